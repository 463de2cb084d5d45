"""Helpers shared by the site tests: build dist/ from the Pyodide mirror and serve it locally.

`pyodide_mirror()` is $LAB_PYODIDE_MIRROR (made absolute), else pyodide-0.27.7 in the shared folder ($LAB_SHARED,
default ../shared next to the repository) when it exists (else None: the build then uses its cache or the CDN).
`RecordingServer` is sitebuild's plain threaded file server on 127.0.0.1 that remembers every path asked for and can
be told to answer some paths itself (to fake a missing file or a different engine). `cold_boots()` is how many
times any test server handed a browser Pyodide's pyodide.asm.wasm.gz (a build test's own urllib GET is no boot) (each
one is a cold Pyodide start, ~10-30 s on a 2-core machine; a start whose browser kept the 3.1 MB file in its HTTP
cache is not counted: the summary also says how many workers started); conftest.py prints it in the terminal summary
("Pyodide cold boots: N").
"""
from __future__ import annotations

import os
import re
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import sitebuild  # noqa: E402  (the build package, sitebuild/)

SHARED = Path(os.environ.get("LAB_SHARED", ROOT.parent / "shared"))
GOLDEN = SHARED / "golden" / "default.txt"
DEFAULT_MIRROR = SHARED / f"pyodide-{sitebuild.PYODIDE_VERSION}"


BOOT_FILE = "pyodide.asm.wasm.gz"  # the vendored build ships it gzip'd (sitebuild/pyodide.py GZIPPED)
_boots = [0]


class CountingHandler(sitebuild.SiteHandler):
    """sitebuild's file handler that counts the cold boots it serves: every test server's handler is one."""

    def send_response(self, code, message=None):
        # 304: a reload that revalidated the file (Cache-Control: no-cache) boots Pyodide all the same
        if (self.command == "GET" and code in (200, 304) and self.path.split("?", 1)[0].endswith("/" + BOOT_FILE)
                and "Chrome" in self.headers.get("User-Agent", "")):   # a page's worker, not a build test's urllib
            _boots[0] += 1
        super().send_response(code, message)


def note_boot():
    """A cold boot served by a server that is not a CountingHandler (test_offline.py's plain http.server)."""
    _boots[0] += 1


def cold_boots() -> int:
    return _boots[0]


_workers = [0]


def count_workers(browser):
    """Make `browser` count every Web Worker its pages start (each one starts Pyodide: a cold start
    that a server never sees when a service worker or the HTTP cache answers)."""
    plain = browser.new_context

    def new_context(*args, **kwargs):
        context = plain(*args, **kwargs)
        context.on("page", lambda page: page.on("worker", lambda _w: _workers.__setitem__(0, _workers[0] + 1)))
        return context
    browser.new_context = new_context
    return browser


def workers_started() -> int:
    return _workers[0]


def pyodide_mirror() -> Path | None:
    """The mirror as an absolute path: a relative $LAB_PYODIDE_MIRROR is read, like the build reads it,
    from the folder the tests were started in (sitebuild.STARTED_IN), wherever a test runs later."""
    value = os.environ.get(sitebuild.MIRROR_ENV)
    if value:
        return sitebuild.resolve_path(value)
    return DEFAULT_MIRROR if DEFAULT_MIRROR.is_dir() else None


@contextmanager
def mirror_env():
    """Run a build with LAB_PYODIDE_MIRROR set to pyodide_mirror() (when there is one)."""
    old = os.environ.get(sitebuild.MIRROR_ENV)
    mirror = pyodide_mirror()
    if mirror is not None:
        os.environ[sitebuild.MIRROR_ENV] = str(mirror)
    try:
        yield mirror
    finally:
        if old is None:
            os.environ.pop(sitebuild.MIRROR_ENV, None)
        else:
            os.environ[sitebuild.MIRROR_ENV] = old


def build_site(out: Path, mode: str = "vendor") -> Path:
    with mirror_env():
        return sitebuild.build(out, mode)


def build_site_once(folder: Path) -> Path:
    """folder/dist built by build_site, once for all the processes of a test run that ask for it: the first
    builds it while holding folder/lock, the others wait for the lock, then find the finished build
    (folder/built, written last). Under tests/run-all.sh's two pytest-xdist workers this saves a build
    (~5 s of CPU) that both would make of the same sources."""
    import fcntl
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)     # released when the file closes
        if not (folder / "built").exists():
            build_site(folder / "dist")
            (folder / "built").write_text("done\n")
    return folder / "dist"


def page_csp(dist: Path) -> str:
    html = (dist / "index.html").read_text(encoding="utf-8")
    return re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)


class RecordingServer:
    """Serves `dist` on 127.0.0.1:<free port>; `overrides` maps a path to (status, content type, bytes).
    Cross-origin isolated (COOP/COEP, as `build.py serve`) unless `isolated=False` (a plain file server)."""

    def __init__(self, dist: Path, headers: dict[str, str] | None = None, overrides: dict | None = None,
                 isolated: bool = True):
        self.paths: list[str] = []
        recorder, fixed = self.paths, dict(overrides or {})

        class Handler(CountingHandler):
            def do_GET(self):
                self._answer(send_body=True)

            def do_HEAD(self):
                self._answer(send_body=False)

            def _answer(self, send_body):
                path = self.path.split("?", 1)[0]
                recorder.append(path)
                if path not in fixed:
                    return super().do_GET() if send_body else super().do_HEAD()
                status, content_type, body = fixed[path]
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if send_body:
                    self.wfile.write(body)

            def log_message(self, *args):  # keep test output readable
                pass

        self.server = sitebuild.make_server(dist, 0, headers, handler=Handler, isolated=isolated)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.url = self.origin + "/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
