"""The dev server: dist/ served on 127.0.0.1 by the standard library's threaded HTTP server.

SiteHandler adds the MIME types the lab needs (.wasm, .mjs, .whl) and "Cache-Control: no-cache" to
every response, and the two headers that make the page cross-origin isolated (isolation(): COOP
same-origin and COEP), so that Stop interrupts a run through Pyodide's interrupt buffer (a
SharedArrayBuffer) instead of restarting Python (static/core/stop.js). COEP is the build's
(embedder_policy(), written into build-info.json's "build"): "require-corp" when every file is the site's
own (the default vendored build), which Safari/WebKit also honours (WebKit has no "credentialless": with it
a page is never cross-origin isolated there; issue 41, MDN "Cross-Origin-Embedder-Policy" compatibility);
"credentialless" for a --pyodide cdn build, whose CDN sends no Cross-Origin-Resource-Policy header
(cross-origin requests then go without cookies; Safari stays unisolated there). The service worker
(static/worker/sw.js) adds the same headers on GitHub Pages, which cannot send them. make_server() lets
tests and benchmarks add headers (the page's CSP), leave isolation out (`isolated=False`: a plain file
server, as a classroom's) and use their own handler subclass. Left out: TLS, compression, range requests
and anything a production host does.
"""
from __future__ import annotations

import functools
import http.server
import json
from pathlib import Path

from .common import BuildError

ISOLATION = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "credentialless"}


def embedder_policy(pyodide_mode: str) -> str:
    """The build's Cross-Origin-Embedder-Policy: "require-corp" when the site serves every file itself
    (WebKit/Safari honour it, not "credentialless"), "credentialless" when Pyodide comes from a CDN."""
    return "credentialless" if pyodide_mode == "cdn" else "require-corp"


def isolation(dist: Path) -> dict[str, str]:
    """COOP/COEP for the build in dist/ (its build-info.json's "coep"; ISOLATION for an older build)."""
    try:
        coep = json.loads((dist / "build-info.json").read_text(encoding="utf-8"))["build"]["coep"]
    except (OSError, ValueError, KeyError):
        return dict(ISOLATION)
    return {**ISOLATION, "Cross-Origin-Embedder-Policy": coep}

class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Plain static file handler; `extra_headers` are added to every response (none by default)."""

    extra_headers: dict[str, str] = {}
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript",
                      ".json": "application/json", ".whl": "application/zip"}

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        for key, value in self.extra_headers.items():
            self.send_header(key, value)
        super().end_headers()


def make_server(dist: Path, port: int = 0, headers: dict[str, str] | None = None,
                handler: type[SiteHandler] = SiteHandler, isolated: bool = True) -> http.server.ThreadingHTTPServer:
    """A threaded HTTP server for dist/ on 127.0.0.1 (port 0 picks a free port); cross-origin isolated
    (isolation(dist)) unless `isolated` is false."""
    extra = {**(isolation(dist) if isolated else {}), **(headers or {})}
    handler_cls = type("Handler", (handler,), {"extra_headers": extra})
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(handler_cls, directory=str(dist)))


def serve(dist: Path, port: int) -> None:
    try:
        server = make_server(dist, port)
    except OSError as exc:
        raise BuildError(f"Cannot listen on 127.0.0.1:{port}: {exc}. Try another --port.") from exc
    print(f"Inference Lab: http://127.0.0.1:{server.server_address[1]}/  (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()

