"""The benchmark's server (bench/browser_bench.py): the build, plus bench/ under /__bench__/ (the bare
page, with Pyodide's own files where a bytecode build replaced them), counting the bytes it sends per
path; and what a first visit would weigh with text files gzip'd.
Leaves out: the browser (bench_pages.py) and the figures (bench_report.py)."""
from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
import sitebuild  # noqa: E402  (the build package, sitebuild/)


class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.bytes = 0
        self.requests = 0
        self.by_path: dict[str, int] = {}
        self.hits: list[tuple[float, str, str]] = []  # (time.time(), method, path) of every request, in order

    def hit(self, method: str, path: str):
        with self.lock:
            self.hits.append((time.time(), method, path))

    def add(self, n: int, path: str = "?"):
        with self.lock:
            self.bytes += n
            self.by_path[path] = self.by_path.get(path, 0) + n

    def reset(self):
        with self.lock:
            self.bytes, self.requests, self.by_path, self.hits = 0, 0, {}, []


class _CountingWriter:
    def __init__(self, raw, counter: Counter, handler):
        self._raw, self._counter, self._handler = raw, counter, handler

    def write(self, data):
        self._counter.add(len(data), str(getattr(self._handler, "path", "?")).split("?", 1)[0])
        return self._raw.write(data)

    def __getattr__(self, name):
        return getattr(self._raw, name)


def bench_file(name: str) -> Path | None:
    """The file behind /__bench__/<name>: bench/<name>, or the official pyodide-lock.json for the bare
    page (dist/ holds only the lab's cut-down lock, sitebuild.LAB_LOCK)."""
    if name == "pyodide-lock.json":
        return sitebuild.locate_pyodide_file(name)
    local = ROOT / "bench" / name
    return local if "/" not in name and local.is_file() else None


def make_bench_server(dist: Path, counter: Counter, isolated: bool = True):
    """The bench server: cross-origin isolated (COOP/COEP, as build.py serve), or a plain file server."""

    class Handler(sitebuild.SiteHandler):
        def setup(self):
            super().setup()
            self.wfile = _CountingWriter(self.wfile, counter, self)

        def translate_path(self, path):
            if path.startswith("/__bench__/"):
                local = bench_file(path.split("?", 1)[0][len("/__bench__/"):])
                if local:
                    return str(local)
            name = path.split("?", 1)[0][len("/pyodide/"):] if path.startswith("/pyodide/") else None
            if name in sitebuild.PYODIDE_PINS and not (dist / "pyodide" / name).is_file():
                # the bare page loads Pyodide's own files, which a bytecode build replaced in dist/
                return str(sitebuild.locate_pyodide_file(name))
            return super().translate_path(path)

        def send_head(self):
            counter.hit(self.command, self.path.split("?", 1)[0])
            return super().send_head()

        def handle_one_request(self):
            with counter.lock:
                counter.requests += 1
            return super().handle_one_request()

        def log_message(self, *args):
            pass

    server = sitebuild.make_server(dist, 0, handler=Handler, isolated=isolated)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


TEXT_TYPES = (".js", ".mjs", ".css", ".html", ".json", ".txt", "/")


def gzip_estimate(by_path: dict, dist: Path) -> int | None:
    """The bytes of a first visit if text files were sent gzip'd (as GitHub Pages does); wheels, zip, wasm as sent."""
    import gzip
    if not by_path:
        return None
    total = 0
    for path, sent in by_path.items():
        if path.startswith("/__bench__/"):
            local = bench_file(path[len("/__bench__/"):]) or ROOT / "bench" / "missing"
        else:
            local = dist / (path.lstrip("/") or "index.html")
        if local.is_dir():
            local = local / "index.html"
        if path.endswith(TEXT_TYPES) and local.is_file() and sent >= local.stat().st_size:
            data = local.read_bytes()
            total += sent - len(data) + len(gzip.compress(data, 6))
        else:
            total += sent
    return total
