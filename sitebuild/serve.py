"""The dev server: dist/ served on 127.0.0.1 by the standard library's threaded HTTP server.

SiteHandler adds the MIME types the lab needs (.wasm, .mjs, .whl) and "Cache-Control: no-cache" to
every response, and the two headers that make the page cross-origin isolated (ISOLATION: COOP
same-origin, COEP credentialless), so that Stop interrupts a run through Pyodide's interrupt buffer (a
SharedArrayBuffer) instead of restarting Python (static/core/stop.js). COEP is "credentialless" rather
than "require-corp" so that a --pyodide cdn build still loads Pyodide from a CDN that sends no
Cross-Origin-Resource-Policy header (cross-origin requests then go without cookies); the service worker
(static/worker/sw.js) adds the same headers on GitHub Pages, which cannot send them. make_server() lets
tests and benchmarks add headers (the page's CSP), leave isolation out (`isolated=False`: a plain file
server, as a classroom's) and use their own handler subclass. Left out: TLS, compression, range requests
and anything a production host does.
"""
from __future__ import annotations

import functools
import http.server
from pathlib import Path

from .common import BuildError

ISOLATION = {"Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "credentialless"}

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
    (ISOLATION) unless `isolated` is false."""
    extra = {**(ISOLATION if isolated else {}), **(headers or {})}
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

