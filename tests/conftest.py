"""Fixtures shared by every test module (pytest finds them here; no test module imports another).

    site      session  Path of dist/ built once by build.py, Pyodide vendored from the mirror
                       ($LAB_PYODIDE_MIRROR, else ../shared/pyodide-0.27.7); under pytest-xdist, once
                       for all workers (lab_site.build_site_once). Read it, never change it:
                       a test that needs another build makes its own (lab_site.build_site(tmp_path / "dist")).
    server    session  lab_site.RecordingServer serving `site` on 127.0.0.1 with the page's CSP also sent as
                       a header (so the Web Worker runs under it): .origin, .url, .paths (every path asked for).
    chromium  session  one Playwright Chromium Browser (Debian's /usr/bin/chromium or $LAB_CHROMIUM, never a
                       downloaded one); every test opens its own context from it. Skips the test when Playwright
                       or Chromium is missing, fails it instead under LAB_REQUIRE_BROWSER=1 (CI).
    chromium_dejavu    session  a second Chromium from the same Playwright that sees only the DejaVu fonts
                       (Debian's default fonts, fonts-dejavu-core), through a FONTCONFIG_FILE written by
                       lab_browser.dejavu_only_fontconfig(): what a student's Debian machine shows.
    page_lab  session  lab_browser.Lab: the one page of the lab the browser tests of a pytest process share
                       (one cold Pyodide start for all of them; under tests/run-all.sh's two workers, one page
                       each: see SECOND_PAGE), in its own context (clipboard allowed), loaded until ready.
    lab       module   that page, put back to a first visit's state (Lab.fresh: storage cleared, the bare
                       address applied without reloading, 1440 × 900). Tests change its address with
                       lab.visit(query). A test about a cold start, the service worker or offline opens
                       its own context; a module that needs a differently opened page defines its own `lab`.

Every test that uses a browser (`chromium`, `chromium_dejavu`, `lab`) gets the `browser` marker, so
`pytest -m "not browser"` runs everything else. One Playwright per session is also a must: a second
sync Playwright in the same thread fails ("Sync API inside the asyncio loop").
"""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

import lab_cost
import lab_waits
from lab_browser import CHROMIUM, CHROMIUM_ARGS, DEJAVU_DIR, Lab, browser_unavailable, dejavu_only_fontconfig
from lab_site import RecordingServer, build_site, build_site_once, cold_boots, count_workers, page_csp, workers_started


# Shared-page modules that run on a second page in the other worker (one more cold boot), beside the tests
# that open their own contexts and the engine, golden and build tests, so that both workers end at about
# the same time: chosen by measured seconds (~90 s of the ~500 s of shared-page tests; tests/run-all.sh).
SECOND_PAGE = ("test_browser_cluster.py", "test_browser_english.py", "test_browser_speculation.py")


@pytest.hookimpl(tryfirst=True)   # before pytest-xdist reads the xdist_group marks (--dist loadgroup)
def pytest_collection_modifyitems(items):
    """Browser tests get the `browser` mark and an xdist group, so under `pytest -n 2 --dist loadgroup`
    (tests/run-all.sh) they run in two workers, each group whole in one worker, in collection order:
      - "browser": the tests on the shared page (`lab`, `page_lab`), but for SECOND_PAGE's modules: one
        worker, one cold start of the page;
      - "browser-b": the tests that open their own contexts only (cold starts, the service worker, offline,
        another font set), also those of a module whose other tests use the shared page, and SECOND_PAGE's
        modules on that worker's own shared page; the same worker then takes the engine, golden and build
        tests (pytest-xdist hands those out one by one to whichever worker is free);
      - "engine-webkit", "engine-firefox", "engine-chromium": test_browser_engines.py, one group per engine (its
        own browser and page; WebKit's ~2 min is the longest, so it comes first). pytest-xdist gives the two
        largest groups ("browser", "browser-b") to the two workers first, then each next group, largest first,
        to the worker that is about to run out: so the engines run beside the rest, on whichever worker ends its
        own group first, and the single tests fill what is left (before, "browser-b" held all three engines:
        the module's ~4 min, WebKit's ~2-3 of them, always on that one worker).
      - "exercise-NN": test_exercises.py's tests of exercise NN, which share its runs (functools.lru_cache, per
        process): in one worker, each run is made once (handed out one by one, the two workers made the heaviest,
        exercises 24, 26, 45 and 46, ~2-5 s of CPU each, twice).
      - "true-words-NAME": test_true_words.py's tests of row NAME (two languages, five or six checks each), which
        share its run (the module's `reports` fixture): in one worker, each row is run once, not once per worker.
      - "module-FILE": the other tests that use a module-scoped fixture of their own module (a run, a build, a
        search: shares_a_module_fixture), so that it is made in one worker only.
    A module's module-scoped fixtures live in the worker of the tests that use them. (Two pages of equal
    test counts were tried: the second worker then had twice the work of the first and the suite was slower.)"""
    for item in items:
        if item.path.name == "test_browser_engines.py":     # its own browsers, one page each: a group each
            item.add_marker(pytest.mark.xdist_group("engine-" + item.callspec.params["engine"]))
            continue
        if "playwright_sync" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.xdist_group(browser_group(item)))
        elif item.path.name == "test_exercises.py" and "ex" in getattr(getattr(item, "callspec", None), "params", {}):
            # an exercise's tests share its runs (test_exercises.py caches them per process): one worker each
            item.add_marker(pytest.mark.xdist_group(f"exercise-{item.callspec.params['ex'].number:02d}"))
        elif item.path.name == "test_true_words.py" and "reports" in getattr(item, "fixturenames", ()):
            # a row's tests share its run (the module's `reports` cache, per process): one worker each
            item.add_marker(pytest.mark.xdist_group(f"true-words-{item.callspec.params['name']}"))
        elif shares_a_module_fixture(item):
            # the module's tests share what its module-scoped fixture made (a run, a build, a search): one worker
            item.add_marker(pytest.mark.xdist_group("module-" + item.path.stem))


def shares_a_module_fixture(item) -> bool:
    """Whether the test uses a module-scoped fixture its own module defines (made once per process that runs one of
    the module's tests: handed out one by one, both workers would make it)."""
    info = getattr(item, "_fixtureinfo", None)
    module = item.nodeid.split("::")[0]
    return info is not None and any(d.scope == "module" and d.baseid == module
                                    for defs in info.name2fixturedefs.values() for d in defs)


def browser_group(item) -> str:
    """The xdist group of a browser test (see pytest_collection_modifyitems)."""
    first_page = "page_lab" in item.fixturenames and item.path.name not in SECOND_PAGE
    return "browser" if first_page else "browser-b"


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    if os.environ.get("PYTEST_XDIST_WORKER"):     # one build for the run, in the workers' shared temporary folder
        return build_site_once(tmp_path_factory.getbasetemp().parent / "site")
    return build_site(tmp_path_factory.mktemp("site") / "dist")


@pytest.fixture(scope="session")
def server(site):
    srv = RecordingServer(site, headers={"Content-Security-Policy": page_csp(site)})
    yield srv
    srv.close()


def unavailable(reason: str):
    """Skip the test, or fail it under LAB_REQUIRE_BROWSER=1 (CI)."""
    if os.environ.get("LAB_REQUIRE_BROWSER") == "1":
        pytest.fail(f"LAB_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def playwright_sync():
    """The session's one sync Playwright (the browsers below come from it)."""
    reason = browser_unavailable()
    if reason:
        unavailable(reason)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def chromium(playwright_sync):
    browser = count_workers(playwright_sync.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS))
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def chromium_dejavu(playwright_sync, tmp_path_factory):
    if not DEJAVU_DIR.is_dir():
        unavailable(f"no DejaVu fonts in {DEJAVU_DIR} (apt-get install fonts-dejavu-core)")
    config = dejavu_only_fontconfig(tmp_path_factory.mktemp("fontconfig"))
    browser = count_workers(playwright_sync.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                                            env={**os.environ, "FONTCONFIG_FILE": str(config)}))
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def page_lab(chromium, server):
    lab = Lab(chromium, server.origin)
    lab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.origin)
    lab.open(server.url)
    yield lab
    lab.close()


@pytest.fixture(scope="module")
def lab(page_lab):
    return page_lab.fresh()


_from_workers = [0, 0]   # (cold boots, workers started) reported by pytest-xdist's workers
_boots_by_test: dict[str, int] = {}   # test id -> cold boots it caused (the shared page's go to its first test)
_waits_of_workers: list[dict] = []    # lab_waits.collected() of each pytest-xdist worker
_cost_of_workers: dict[str, list] = {}   # lab_cost.collected() of each pytest-xdist worker, by its id (gw0, gw1)
_started = [time.time()]              # the run's start (the controller's), for the workers' end times


def pytest_sessionstart(session):
    _started[0] = time.time()


def xdist_group(item) -> str:
    """The test's xdist group (pytest_collection_modifyitems), "(no group)" for the tests handed out one by one."""
    mark = item.get_closest_marker("xdist_group")
    if mark is None:
        return "(no group)"
    return mark.args[0] if mark.args else mark.kwargs.get("name", "(no group)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item):
    before = cold_boots()
    meter = lab_cost.Meter(item.nodeid, xdist_group(item))
    yield
    meter.stop()
    if cold_boots() > before:
        _boots_by_test[item.nodeid] = cold_boots() - before


def pytest_sessionfinish(session):
    if hasattr(session.config, "workeroutput"):      # an xdist worker: hand the counts to the controller
        session.config.workeroutput["pyodide"] = [cold_boots(), workers_started(), _boots_by_test]
        session.config.workeroutput["waits"] = lab_waits.collected()
        session.config.workeroutput["cost"] = lab_cost.collected()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    boots, workers, by_test = (getattr(node, "workeroutput", {}).get("pyodide", [0, 0, {}]) + [{}])[:3]
    _from_workers[0] += boots
    _from_workers[1] += workers
    _boots_by_test.update(by_test)
    waits = getattr(node, "workeroutput", {}).get("waits")
    if waits:
        _waits_of_workers.append(waits)
    cost = getattr(node, "workeroutput", {}).get("cost")
    if cost:
        _cost_of_workers[node.gateway.id] = cost


def pytest_terminal_summary(terminalreporter):
    """The suite's cost in every CI log: how many times a test server handed out Pyodide (cold boots),
    and how many Pyodide workers the pages started (also those the service worker or the HTTP cache fed,
    and the restarts after Stop); summed over pytest-xdist's workers; then which tests booted; then the run's
    slowest state waits (lab_waits: seconds, what was awaited with its timeout, which test); then what the tests
    cost (lab_cost: CPU and wall seconds per xdist group, each worker's busy seconds and end, the costliest
    tests): whether both workers ended together, and where the CPU went."""
    boots, workers = cold_boots() + _from_workers[0], workers_started() + _from_workers[1]
    terminalreporter.write_sep("-", f"Pyodide cold boots: {boots} (Pyodide workers started: {workers})")
    for nodeid, n in sorted(_boots_by_test.items()):
        terminalreporter.write_line(f"  {n} cold boot{'s' if n > 1 else ''}: {nodeid}")
    waits = lab_waits.merge(lab_waits.collected(), *_waits_of_workers)
    if waits["count"]:
        head, lines = lab_waits.summary_lines(waits)
        terminalreporter.write_sep("-", head)
        for line in lines:
            terminalreporter.write_line(line)
    cost = dict(_cost_of_workers)
    if lab_cost.collected():
        cost["main"] = lab_cost.collected()
    if any(cost.values()):
        if os.environ.get("LAB_COST_FILE"):
            lab_cost.write_rows(cost, os.environ["LAB_COST_FILE"])
        head, lines = lab_cost.summary_lines(cost, _started[0])
        terminalreporter.write_sep("-", head)
        for line in lines:
            terminalreporter.write_line(line)
