"""The dev server: dist/ served on 127.0.0.1 by the standard library's threaded HTTP server.

SiteHandler adds the MIME types the lab needs (.wasm, .mjs, .whl) and "Cache-Control: no-cache" to
every response; make_server() lets tests and benchmarks add headers (the page's CSP) and their own
handler subclass. Left out: TLS, compression, range requests and anything a production host does.
"""
from __future__ import annotations

import functools
import http.server
from pathlib import Path

from .common import BuildError

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
                handler: type[SiteHandler] = SiteHandler) -> http.server.ThreadingHTTPServer:
    """A threaded HTTP server for dist/ on 127.0.0.1 (port 0 picks a free port)."""
    handler_cls = type("Handler", (handler,), {"extra_headers": dict(headers or {})})
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

