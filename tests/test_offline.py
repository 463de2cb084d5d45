"""Offline use and deployment: the service worker (dist/sw.js), the classroom zip and the Pages workflow.

The service worker tests use the session's build and Chromium (conftest.py: site, chromium) or build
their own site from the Pyodide mirror (tests/lab_site.py), serve it on 127.0.0.1 and use the page
through Playwright (no request interception: Playwright's routing does not see what a service worker
answers). "Offline" means the server is shut down and the browser context is set offline.
No timing assertions: only what happens, with generous time limits.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

import lab_waits
from lab_browser import PANEL_LINES, cli_sections, engine_text, wait_status
from lab_site import ROOT, CountingHandler, note_boot, sitebuild, build_site, mirror_env, page_csp

READY_MS = 240_000
RUN_MS = 90_000
SW_MS = 120_000
WORKFLOW = ROOT / ".github" / "workflows" / "pages.yml"


# ── a file server whose files can go missing, restartable on the same port (same origin) ──
class SiteServer:
    """Not cross-origin isolated unless `isolated` (a classroom's plain file server sends no COOP/COEP)."""

    def __init__(self, root: Path, port: int = 0, csp: str | None = None, isolated: bool = False):
        self.root, self.csp, self.isolated = root, csp, isolated
        self.paths: list[str] = []
        # (time.time(), method, path) of every request; a conditional GET (the browser revalidating a copy it holds,
        # Cache-Control: no-cache) is "GET?": its body is not sent again when the file is unchanged (304)
        self.hits: list[tuple[float, str, str]] = []
        self.missing: set[str] = set()
        self.failing: dict[str, int] = {}   # path -> how many more requests for it get a 503 (dropped requests)
        self._start(port)

    def _start(self, port: int):
        paths, hits, missing, failing = self.paths, self.hits, self.missing, self.failing

        class Handler(CountingHandler):
            def send_head(self):
                path = self.path.split("?", 1)[0]
                paths.append(path)
                conditional = self.headers.get("If-None-Match") or self.headers.get("If-Modified-Since")
                hits.append((time.time(), self.command + ("?" if conditional else ""), path))
                if path in missing:
                    self.send_error(404, "gone for this test")
                    return None
                if failing.get(path):
                    failing[path] -= 1
                    self.send_error(503, "dropped for this test")
                    return None
                return super().send_head()

            def log_message(self, *args):
                pass

        headers = {"Content-Security-Policy": self.csp} if self.csp else None
        self.server = sitebuild.make_server(self.root, port, headers, handler=Handler, isolated=self.isolated)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        self.running = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def restart(self):
        """Serve again on the same port (the same origin) after stop()."""
        if not self.running:
            self._start(self.port)

    def stop(self):
        if self.running:
            self.running = False
            self.server.shutdown()
            self.server.server_close()


def copy_build(site: Path, dist: Path) -> Path:
    """dist/ as a copy of the build `site` (what build.py would write there: a build empties its folder first)."""
    if dist.exists():
        shutil.rmtree(dist)
    shutil.copytree(site, dist)
    return dist


def new_page(browser):
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    return context, page, errors


def wait_ready(page):
    wait_status(page, "ready", READY_MS)


def run_default(page):
    from playwright.sync_api import expect
    page.click('[data-action="run"]')
    wait_status(page, "done", RUN_MS)
    expect(page.locator('[data-block="summary"]')).to_contain_text("PASS: đường ống phục vụ LLM thu nhỏ chạy đúng")
    for n in (1, 7, 13):
        assert page.locator(f'[data-block="{n}"] pre').inner_text().strip()


LAB_CACHES = "async () => (await caches.keys()).filter((k) => k.startsWith('inference-lab '))"


def poll(page, script: str, arg=None, timeout_ms: int = SW_MS, what: str = "", describe=None):
    """Evaluate an (async) script every 250 ms until it returns something truthy; return that. Timed for the
    summary's slowest waits (lab_waits) as `what` (else the script's start). On a timeout, the message adds
    describe() (what the page and server saw), when given."""
    with lab_waits.timed(f"{what or script[:60]} (timeout {timeout_ms / 1000:.0f} s)"):
        try:
            return _poll(page, script, arg, timeout_ms)
        except AssertionError as exc:
            if describe is None:
                raise
            raise AssertionError(f"{exc}\n{describe()}") from None


SW_STATE = """async () => {
  const r = await navigator.serviceWorker.getRegistration();
  const state = (w) => w && w.state;
  return { caches: await caches.keys(), update: document.documentElement.dataset.offlineUpdate,
           installing: state(r && r.installing), waiting: state(r && r.waiting), active: state(r && r.active) };
}"""


def sw_state(page, server) -> str:
    """The service worker's registration, the caches and the page's update state, and when the server was
    asked for sw.js: why a new build did not take over."""
    asked = [f"{at:.1f} {method}" for at, method, path in list(server.hits) if path == "/sw.js"]
    return f"page: {page.evaluate(SW_STATE)}; sw.js asked at (time.time()): {asked}"


def _poll(page, script: str, arg, timeout_ms: int):
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        value = page.evaluate(script, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout_ms} ms: {script}")
        page.wait_for_timeout(250)


def wait_controlled(page):
    """Wait until the service worker is active, controls the page and has filled its cache."""
    poll(page, "async () => { await navigator.serviceWorker.ready; return !!navigator.serviceWorker.controller; }",
         what="the service worker controls the page")
    return page.evaluate(LAB_CACHES)


def cached_urls(page, cache_name):
    return page.evaluate("async (name) => (await (await caches.open(name)).keys()).map((r) => r.url)", cache_name)


# ── the build's service worker file ──────────────────────────────────────────
def test_sw_js_lists_every_file_of_the_build_with_its_integrity(site):
    sw = (site / "sw.js").read_text(encoding="utf-8")
    line = next(x for x in sw.splitlines() if x.startswith("const BUILD = "))
    data = json.loads(line[len("const BUILD = "):line.index("; // written by build.py")])
    manifest = json.loads((site / "build-info.json").read_text())
    listed = {path for path, _ in data["files"]}
    assert listed == set(manifest["files"]) | {"build-info.json"}
    assert "sw.js" not in listed and not (site / "static" / "worker" / "sw.js").exists()
    for path, integrity in data["files"]:
        assert integrity == sitebuild.sri(sitebuild.sha256_file(site / path))
    assert data["version"] == manifest["build"]["version"] == sitebuild.build_version(manifest["files"])
    assert data["caches"] == manifest["build"]["caches"] == sitebuild.CACHE_NAMES
    assert "exercises.json" in listed or not (site / "exercises.json").exists()


def test_sw_js_changes_when_any_file_changes(site, tmp_path):
    first = site                                   # the session's build: the same sources, built the same way
    with mirror_env():
        engine = tmp_path / "engine"
        shutil.copytree(ROOT / "py", engine, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        (engine / "inference_lab" / "extra.py").write_text("X = 1\n")
        second = sitebuild.build(tmp_path / "b", "vendor", engine)
    assert (first / "sw.js").read_bytes() != (second / "sw.js").read_bytes()


# ── offline after the first visit, then a new build ─────────────────────────
# window.__readyAt: the wall-clock ms (the test server's clock: the same machine) when the status
# first said ready, so the requests the server received before it can be told from those after.
READY_AT = """
document.addEventListener('DOMContentLoaded', () => {
  const s = document.querySelector('[data-status]');
  const seen = () => {
    if (s.dataset.status === 'ready' && window.__readyAt === undefined) {
      window.__readyAt = performance.timeOrigin + performance.now();
    }
  };
  new MutationObserver(seen).observe(s, { attributes: true, attributeFilter: ['data-status'] });
  seen();
});
"""
SW_REGISTERED = "async () => Boolean(await navigator.serviceWorker.getRegistration())"


class FirstVisit:
    """A page that has visited a copy of the session's build once (ready, then one run) and that the
    service worker controls (its cache complete): what the tests below start from, one first visit
    (one cold start, one service worker install) for all. What the server received until ready, and
    whether a service worker was registered before the run, are kept for the first-visit test.
    The copy is this module's: the new-build test rebuilds it."""

    def __init__(self, chromium, site: Path, dist: Path):
        self.dist = copy_build(site, dist)
        self.server = SiteServer(dist, csp=page_csp(dist))
        self.context, self.page, self.errors = new_page(chromium)
        self.page.add_init_script(READY_AT)
        self.page.goto(self.server.url)
        wait_ready(self.page)
        ready_at = self.page.evaluate("window.__readyAt")
        self.until_ready = [(method, path) for at, method, path in list(self.server.hits) if at * 1000 <= ready_at]
        self.registered_before_run = self.page.evaluate(SW_REGISTERED)
        self.isolated_at_first = self.page.evaluate("crossOriginIsolated")
        run_default(self.page)   # the offline copy waits for the first run (static/core/offline.js)
        [self.cache] = wait_controlled(self.page)
        self.first_visit = list(self.server.hits)

    def online(self):
        """Network back on and the server answering on its port again (after a test that went offline)."""
        self.context.set_offline(False)
        self.server.restart()

    def close(self):
        self.context.close()
        self.server.stop()


@pytest.fixture(scope="module")
def first_visit(chromium, site, tmp_path_factory):
    visit = FirstVisit(chromium, site, tmp_path_factory.mktemp("offline") / "dist")
    yield visit
    visit.close()


@pytest.mark.browser
def test_the_first_visit_fetches_each_file_once_and_the_offline_copy_after_the_first_run(first_visit):
    visit = first_visit
    manifest = json.loads((visit.dist / "build-info.json").read_text())
    full_stdlib = "/pyodide/" + manifest["pyodide"].get("fullStdLibURL", "python_stdlib.zip")
    later = {full_stdlib, "/static/vendor/codemirror.js", "/exercises.json", "/code.json", "/sw.js"}
    later |= {"/pyodide/" + name for name in manifest["pyodide"]["files"] if name.startswith("micropip-")}
    # NumPy's part that `import numpy` does not read: loaded right after ready (sitebuild/pyodide.py split_numpy)
    later |= {"/pyodide/" + name for name in manifest["pyodide"]["files"] if name.startswith("numpy-rest-")}
    gets = [path for method, path in visit.until_ready if method == "GET"]
    assert gets and "/pyodide/pyodide.asm.wasm.gz" in gets
    assert sorted(later & set(gets)) == [], "fetched before ready"
    # the warm-up, micropip and the compiled-Python cache wait for the page's 'idle' (protocol.js), and import
    # nothing from the full standard library (stdlib.py WORKER): a visit that runs no student import never fetches it
    # (the service worker downloads it later, for offline use: the worker's own requests are what counts here)
    [worker] = visit.page.workers
    asked = worker.evaluate("performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)")
    assert "/pyodide/pyodide.asm.wasm.gz" in asked and full_stdlib not in asked
    assert sorted({p for p in gets if gets.count(p) > 1}) == [], "fetched twice before ready"
    assert visit.registered_before_run is False           # the offline copy waits for the first run
    # after the run the service worker cached the whole build, taking what the page had loaded from
    # the HTTP cache: no file of the first visit was downloaded twice
    listed = set(manifest["files"]) | {"build-info.json"}
    assert {visit.server.url + path for path in listed} <= set(cached_urls(visit.page, visit.cache))
    downloads = [path for _at, method, path in visit.first_visit if method == "GET" and path != "/build-info.json"]
    # (a test's browser context keeps its HTTP cache in memory, where Chromium keeps no large file: the
    # service worker downloads pyodide.asm.wasm.gz again there; a student's browser keeps it on disk)
    twice = {p for p in downloads if downloads.count(p) > 1} - {"/pyodide/pyodide.asm.wasm.gz"}
    assert sorted(twice) == [], "downloaded twice on the first visit"


@pytest.mark.browser
def test_a_second_tab_on_a_shared_address_starts_its_own_python_and_runs_it(first_visit):
    """Issue 41: a second tab of the same browser opened on a shared address, while the first is open (one
    service worker, two Python workers). Nothing is shared between the tabs but the service worker's files:
    the second tab starts its own Pyodide (a cold start, compiled from the cached pyodide.asm.wasm; ~15-50 s
    on a loaded 2-core machine, twice as long when both tabs start at once) and only then runs the address.
    So the wait for its run is a start's and a run's (READY_MS + RUN_MS), not a run's: a run's wait is what
    made "the second tab waited more than 90 s for its run" look like a hang. The first tab keeps its own
    Python and runs on."""
    visit = first_visit
    config = {"SLOTS": 3, "QUEUE_LIMIT": 2}
    second = visit.context.new_page()
    errors: list[str] = []
    second.on("pageerror", lambda err: errors.append(str(err)))
    try:
        second.goto(visit.server.url + "?QUEUE_LIMIT=2&SLOTS=3")
        assert second.evaluate("Boolean(navigator.serviceWorker.controller)")   # the one service worker serves it
        assert wait_status(second, "done|error", READY_MS + RUN_MS) == "done"
        want = cli_sections(engine_text(config))
        shown = dict(zip(range(1, 14), second.evaluate(PANEL_LINES, list(range(1, 14)))))
        assert [n for n in range(1, 14) if shown[n] != want[n]] == [], "the second tab's panels differ from the CLI"
        assert len(second.workers) == 1 and len(visit.page.workers) == 1     # a worker each
        run_default(visit.page)                                 # the first tab's Python answers, as before
        assert errors == [] and visit.errors == []
    finally:
        second.close()


@pytest.mark.browser
def test_reload_and_run_with_the_network_off(first_visit):
    visit = first_visit
    visit.online()
    server, page, site = visit.server, visit.page, visit.dist
    assert visit.isolated_at_first is False                     # the server sends no COOP/COEP
    urls = cached_urls(page, visit.cache)
    for path in ("index.html", "pyodide/pyodide.asm.wasm.gz", "build-info.json", "static/worker/worker.js",
                 "fonts/jetbrains-mono-vietnamese-wght-normal.woff2",
                 json.loads((site / "build-info.json").read_text())["engine"]["wheel"]):
        assert server.url + path in urls

    # A controlled reload: the page and its Web Worker (Pyodide, numpy, the engine wheel) come from the cache.
    server.paths.clear()
    page.reload()
    wait_ready(page)
    from_network = [p for p in server.paths if p != "/sw.js"]  # the browser's update check may ask for sw.js
    assert from_network == [], f"asked the server for {from_network}"
    # ... with the COOP/COEP headers the service worker adds: isolated, Stop can interrupt (static/core/stop.js)
    assert page.evaluate("crossOriginIsolated") is True

    manifest = json.loads((site / "build-info.json").read_text())
    full_stdlib = manifest["pyodide"].get("fullStdLibURL")
    if full_stdlib:                                        # a pruned standard library: the full one is cached too
        assert server.url + "pyodide/" + full_stdlib in urls

    server.stop()
    visit.context.set_offline(True)
    page.reload()
    wait_ready(page)
    run_default(page)
    if full_stdlib:
        # a module outside the pruned set, imported offline: the lazy finder gets the full zip from the cache
        [worker] = page.workers
        third = worker.evaluate("() => pyodide.runPython('import fractions; str(fractions.Fraction(1, 6) * 2)')")
        assert third == "1/3"
    assert visit.errors == []


@pytest.mark.browser
def test_a_new_build_replaces_the_cache_and_a_failed_update_keeps_the_old_one(first_visit, site, tmp_path):
    visit = first_visit
    visit.online()
    server, page, dist, old_cache = visit.server, visit.page, visit.dist, visit.cache
    old_version = page.locator("#versions").inner_text()

    # A rebuild with a changed file (the engine, version 9.9.9) in the same folder: reload -> update found
    # (the browser's check once the page's network is quiet, and the page's own at ready) -> new cache
    # complete -> activated -> old cache gone; the next load is the new build. The server drops the first
    # two requests for the new engine wheel (as a busy machine or a server being deployed to may; sw.js
    # download() asks twice): that install fails, and the page asks for the new build again
    # (static/core/offline.js RETRY_MS). Before, one failed install left the page on the old build until
    # the next navigation (issue 41: CI waited 120 s).
    engine = tmp_path / "engine"
    shutil.copytree(ROOT / "py", engine, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    pyproject = engine / "pyproject.toml"
    pyproject.write_text(re.sub(r'(?m)^version = "[^"]*"', 'version = "9.9.9"', pyproject.read_text(), count=1))
    with mirror_env():
        sitebuild.build(dist, "vendor", engine)
    assert "9.9.9" in json.loads((dist / "build-info.json").read_text())["engine"]["version"]
    new_wheel = "/" + json.loads((dist / "build-info.json").read_text())["engine"]["wheel"]
    server.failing[new_wheel] = 2
    page.reload()
    poll(page, f"async (old) => {{ const k = await ({LAB_CACHES})(); return k.length === 1 && k[0] !== old; }}",
         old_cache, what="the new build's cache replaced the old", describe=lambda: sw_state(page, server))
    assert server.paths.count(new_wheel) >= 3 and not server.failing[new_wheel], "the failed install was not retried"
    [new_cache] = page.evaluate(LAB_CACHES)
    assert new_cache != old_cache
    page.reload()
    wait_ready(page)
    assert "9.9.9" in page.locator("#versions").inner_text() and page.locator("#versions").inner_text() != old_version
    run_default(page)
    # the page's own check at ready has found the running build before the folder is rebuilt (a check
    # during the rebuild would meet a half-written site)
    poll(page, "() => document.documentElement.dataset.offlineUpdate === 'current'",
         what="the page's check found the running build")

    # A broken update (a file of the new build missing on the server) never activates: the complete
    # cache of the previous build keeps serving, offline too. The missing file is the engine wheel of
    # a third build (9.9.10): one the browser has never seen (sw.js takes files it has seen from the
    # HTTP cache, so a file of an earlier build missing on the server would not be missed).
    pyproject.write_text(re.sub(r'(?m)^version = "[^"]*"', 'version = "9.9.10"', pyproject.read_text(), count=1))
    with mirror_env():
        sitebuild.build(dist, "vendor", engine)
    wheel = "/" + json.loads((dist / "build-info.json").read_text())["engine"]["wheel"]
    server.missing.add(wheel)
    # (the page asks for it again RETRY_MS apart, then gives up)
    page.evaluate("async () => { const r = await navigator.serviceWorker.getRegistration(); try { await r.update(); "
                  "} catch (e) {} }")
    poll(page, "() => document.documentElement.dataset.offlineUpdate === 'failed'",
         what="the broken update was tried again, then given up")
    assert page.evaluate("async () => { const r = await navigator.serviceWorker.getRegistration(); "
                         "return !r.installing && !r.waiting; }")
    assert wheel in server.paths, "the new service worker tried to cache the build"
    assert page.evaluate(LAB_CACHES) == [new_cache]
    server.stop()
    visit.context.set_offline(True)
    page.reload()
    wait_ready(page)
    assert "9.9.9" in page.locator("#versions").inner_text()
    assert visit.errors == []


# ── compiled Python kept between visits (static/worker/pyc-cache.js; builds without bytecode only) ──
WORKER_PROBE = """
window.__worker = { logs: [], ready: [] };
const NativeWorker = window.Worker;
window.Worker = class extends NativeWorker {
  constructor(...args) {
    super(...args);
    this.addEventListener('message', (event) => {
      const m = event.data || {};
      if (m.type === 'ready') window.__worker.ready.push(m.timings || {});
      if (m.type === 'log') window.__worker.logs.push(m.text);
    });
  }
};
"""


def page_output(page) -> list[str]:
    return [page.locator(f'[data-block="{n}"] pre').inner_text() for n in range(1, 14)] + \
        [page.locator('[data-block="summary"] pre').inner_text()]


@pytest.fixture(scope="module")
def source_site(tmp_path_factory) -> Path:
    """A build without bytecode (as where no CPython 3.12 exists): the one that keeps this cache."""
    old = os.environ.get("LAB_PYTHON312")
    os.environ["LAB_PYTHON312"] = "none"
    try:
        return build_site(tmp_path_factory.mktemp("sources") / "dist")
    finally:
        if old is None:
            os.environ.pop("LAB_PYTHON312")
        else:
            os.environ["LAB_PYTHON312"] = old


@pytest.mark.browser
def test_the_next_visit_uses_compiled_python_and_prints_the_same(chromium, source_site):
    site = source_site
    assert json.loads((site / "build-info.json").read_text())["bytecode"] is None
    server = SiteServer(site, csp=page_csp(site))
    context = chromium.new_context()
    context.add_init_script(WORKER_PROBE)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        page.goto(server.url)
        wait_ready(page)
        assert page.evaluate("window.__worker.ready[0].pyc") is False
        run_default(page)
        first = page_output(page)
        page.wait_for_function("() => window.__worker.logs.some((t) => t.startsWith('compiled Python cached'))",
                               timeout=READY_MS)
        names = page.evaluate("async () => (await caches.keys()).filter((k) => k.startsWith('inference-lab-pyc '))")
        assert len(names) == 1, names

        page.reload()
        wait_ready(page)
        assert page.evaluate("window.__worker.ready[0].pyc") is True
        run_default(page)
        assert page_output(page) == first
        for values in ({"QUEUE_LIMIT": 2}, {"QUANT_BITS": 4, "SLOTS": 3}):
            page.click('[data-action="reset"]')
            for name, value in values.items():
                page.locator(f'[data-constant="{name}"]').fill(str(value))
            page.click('[data-action="run"]')
            wait_status(page, "done", RUN_MS)
            got = page_output(page)
            from inference_lab import run
            expected = run(values).to_text()
            for block in got:
                for line in block.split("\n"):
                    assert line.strip() in expected, line
        assert errors == []
    finally:
        context.close()
        server.stop()


# ── the classroom zip ────────────────────────────────────────────────────────
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.browser
def test_zip_unpacks_to_a_folder_that_python_http_server_serves(chromium, site, tmp_path):
    zip_path = sitebuild.write_zip(site, tmp_path)
    version = json.loads((site / "build-info.json").read_text())["engine"]["version"]
    assert zip_path.name == f"inference-lab-{version}.zip"
    with zipfile.ZipFile(zip_path) as zf:
        tops = {name.split("/", 1)[0] for name in zf.namelist()}
        assert tops == {f"inference-lab-{version}"}
        zf.extractall(tmp_path / "unpacked")
    folder = tmp_path / "unpacked" / f"inference-lab-{version}"
    readme = (folder / "README.txt").read_text(encoding="utf-8")
    assert "python3 -m http.server" in readme and "http://localhost:8000/" in readme and "Internet" in readme
    for path in json.loads((site / "build-info.json").read_text())["files"]:
        assert (folder / path).read_bytes() == (site / path).read_bytes()

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"], cwd=folder,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        url = f"http://127.0.0.1:{port}/"
        for _ in range(100):
            try:
                with urllib.request.urlopen(url, timeout=5) as resp:
                    assert resp.read() == (folder / "index.html").read_bytes()
                break
            except OSError:
                time.sleep(0.1)
        wheel = json.loads((folder / "build-info.json").read_text())["engine"]["wheel"]
        with urllib.request.urlopen(url + wheel, timeout=10) as resp:
            assert resp.read() == (folder / wheel).read_bytes()
        context, page, errors = new_page(chromium)
        try:
            page.goto(url)
            wait_ready(page)
            note_boot()  # python3 -m http.server (a subprocess) cannot count it itself
            run_default(page)
            assert errors == []
        finally:
            context.close()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_zip_needs_the_vendored_build(tmp_path, monkeypatch):
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "build-info.json").write_text(json.dumps({"pyodide": {"mode": "cdn", "version": "0.27.7"},
                                                      "engine": {"version": "1"}}))
    with pytest.raises(sitebuild.BuildError, match="vendored"):
        sitebuild.write_zip(dist)


# ── the GitHub Pages workflow ────────────────────────────────────────────────
def test_pages_workflow_builds_with_build_py_and_deploys_with_the_official_actions():
    yaml = pytest.importorskip("yaml")
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers["push"]["branches"] == ["main"] and "workflow_dispatch" in triggers
    assert workflow["permissions"]["pages"] == "write" and workflow["permissions"]["id-token"] == "write"
    steps = [step for job in workflow["jobs"].values() for step in job.get("steps", [])]
    uses = [step["uses"].split("@")[0] for step in steps if "uses" in step]
    for action in ("actions/checkout", "actions/configure-pages", "actions/upload-pages-artifact",
                   "actions/deploy-pages"):
        assert action in uses, action
    runs = " ".join(step.get("run", "") for step in steps)
    assert "build.py" in runs and "requirements.txt" in runs
    upload = next(step for step in steps if step.get("uses", "").startswith("actions/upload-pages-artifact"))
    assert upload["with"]["path"] == "dist"
    deploy_job = next(job for job in workflow["jobs"].values()
                      if any(s.get("uses", "").startswith("actions/deploy-pages") for s in job["steps"]))
    assert deploy_job["environment"]["name"] == "github-pages"
