"""Every browser a student opens (issue 41): one table of checks, run in Chromium (Playwright), Firefox ESR
(puppeteer-core over WebDriver BiDi) and WebKitGTK, Safari's engine (Selenium + WebKitWebDriver on Xvfb).

Each engine opens the lab once, on its own cross-origin isolated server (COOP same-origin, COEP require-corp:
sitebuild/serve.py), and the checks of CHECKS run in order on that one page (addresses applied in place, as the
back button does): the first visit to ready, Run (the panels print what the command line prints; the first run
marks no number as changed: test_browser_compare.py's first-run check, here in each engine), a changed constant, an
address with constants, the English edition, the roofline and cluster charts drawn with their text alternatives, a
code view and an edited run (a link's edit, run by its button), the step slider by keyboard (on the first run's
steps), Stop on a looping edit (in the same Python where the page can interrupt it; else a restart whose message
says why, the restarted start shown by the next check), a reload with the server shut down (the service worker
serves the lab, Python starts and runs), and no page error. Each engine starts Python twice: the first visit and the
offline reload (WebKit, ~40 s a start on a loaded 2-core machine, is most of the module's time). The seconds each
check took are printed per engine (`-s`); the slowest waits are in the run's summary (tests/lab_waits.py) and
pytest's --durations.
A missing browser fails the run under LAB_REQUIRE_BROWSER=1 (CI) and skips otherwise, saying why.
"""
from __future__ import annotations

import base64
import functools
import inspect
import json
import os
import re
import time

import pytest

from edits import GREEDY
from lab_browser import READY_MS, RUN_MS, cli_sections, engine_text
from lab_engines import Chromium, Firefox, WebKit, missing, wait_for
from lab_site import RecordingServer

pytestmark = pytest.mark.browser

READY_S, RUN_S = READY_MS / 1000, RUN_MS / 1000
VIETNAMESE = re.compile(r"[\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u1E00-\u1EFF]")
STATUS = "() => document.querySelector('[data-status]')?.dataset.status ?? ''"
# Each numbered panel's heading and printed lines (WebKit's innerText of a <pre> keeps its last newline: dropped).
PANELS = """() => [...document.querySelectorAll('[data-block]')].filter((p) => /^\\d+$/.test(p.dataset.block))
  .map((p) => [p.querySelector(':scope > summary').innerText,
               ...p.querySelector(':scope > pre').innerText.replace(/\\n$/, '').split('\\n')])"""
CLICK = "(css) => { document.querySelector(css).click(); return true; }"
# Apply an address the way back/forward does (static/core/address.js), counting the page's runs before.
VISIT = """(url) => { history.pushState(null, '', url); dispatchEvent(new PopStateEvent('popstate')); return true; }"""
# Every status the page changes to from now on (window.__labSeen), and the first of `wanted` among them.
RECORD = """() => {
  const status = () => document.querySelector('[data-status]')?.dataset.status;
  window.__labSeen = [];
  window.__labLast = status();
  if (!window.__labObserver) {
    window.__labObserver = new MutationObserver(() => {
      const now = status();
      if (now !== window.__labLast) { window.__labLast = now; window.__labSeen.push(now); }
    });
    window.__labObserver.observe(document.documentElement,
      { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
  }
  return true;
}"""
SEEN = "(w) => window.__labSeen.find((s) => new RegExp(`^(${w})$`).test(s)) ?? null"
LOOP = ("def plan_tasks(running, budget_cap):\n    import sys\n    f = sys._getframe()\n"
        '    while not {"progress", "stop_seen"} <= f.f_locals.keys(): f = f.f_back\n'
        '    f.f_locals["progress"]("chunked", 4242, 0, 1)\n    while True:\n        pass\n')

LINK_CODE_READY = "() => Boolean(document.querySelector('[data-action=\"run-link-code\"]:not([disabled])'))"
INSIDE_LOOP = "() => /4242/.test(document.getElementById('status-detail')?.textContent)"   # LOOP said it runs


def patch_param(patches: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(patches).encode()).decode().rstrip("=")


class Visit:
    """One engine's open page of the lab, its server and the seconds each check took."""

    def __init__(self, driver, server):
        self.driver, self.server, self.seconds = driver, server, {}
        # a run's wait: WebKit starts and runs wasm 3-4× slower than the others (README "Browsers")
        self.run_s = RUN_S * (3 if driver.name == "webkit" else 1)

    def status_is(self, wanted: str, timeout: float) -> str:
        return wait_for(self.driver, f"(w) => new RegExp(`^(${{w}})$`).test(({STATUS})()) && ({STATUS})()",
                        wanted, timeout, what=f"status {wanted}")

    def click(self, css: str):
        self.driver.js(CLICK, css)

    def after(self, action: str, arg, wanted: str) -> str:
        """Do `action` (a function's source) in the page, then wait until the status it sets becomes one of
        `wanted`: every status set after the action is recorded (RECORD), so a "done" left by the last run
        never answers for this one."""
        self.driver.js(RECORD)
        self.driver.js(action, arg)
        said = "the address /" + arg.split("/", 3)[-1] if action == VISIT else arg   # for the summary's waits
        return wait_for(self.driver, SEEN, wanted, self.run_s, what=f"status {wanted} after {said}"[:90])

    def visit(self, query: str, runs: bool = True) -> str | None:
        """Apply home + query in place; the final status of the run it asks for (runs=True), else the status
        once the address is applied (no run: a bare address shows ready, as a first visit)."""
        self.status_is("ready|done|error", READY_S)
        if runs:
            return self.after(VISIT, self.server.url + query, "done|error")
        self.driver.js(VISIT, self.server.url + query)
        return self.status_is("ready|done|error", self.run_s)

    def run(self) -> str:
        """Press Run once Python is idle (a run still going would answer for this one), then its final status."""
        self.status_is("ready|done|error", READY_S)
        return self.after(CLICK, '[data-action="run"]', "done|error")

    def panels(self) -> dict:
        return dict(enumerate(self.driver.js(PANELS), start=1))


@functools.lru_cache(maxsize=None)
def cli_text(config_json: str) -> dict:
    """The command line's sections for a config (computed once for the three engines)."""
    return cli_sections(engine_text(json.loads(config_json)))


def assert_shows(visit: Visit, config: dict):
    want = cli_text(json.dumps(config, sort_keys=True))
    shown = visit.panels()
    for n in range(1, 14):
        assert shown[n] == want[n], f"{visit.driver.name}: panel {n} differs from the command line for {config}"


# ── the checks, in the order they run on each engine's one page ─────────────
def first_visit(v: Visit):
    v.driver.goto(v.server.url)
    v.status_is("ready", READY_S)


# What "compare with the previous run" (static/tools/compare.js) shows once a page's first run is printed: the
# count says "0" (data-changes-count) in its first-run words, nothing is marked, the toggle is on. (Checked here, on
# each engine's first run, rather than on a Chromium page of test_browser_compare.py's own: one cold start less.)
FIRST_RUN_COMPARE = """() => {
  const count = document.querySelector('[data-changes-count]');
  if (!count || count.dataset.changesCount !== '0') return null;
  return { marks: document.querySelectorAll('[data-changed]').length, text: count.textContent,
           toggle: document.querySelector('[data-action="toggle-changes"]')?.checked ?? null };
}"""


def run_default(v: Visit):
    assert v.run() == "done"
    assert_shows(v, {})
    # the first run of a page has nothing to compare with (was test_browser_compare's test_first_run_marks_nothing)
    first = wait_for(v.driver, FIRST_RUN_COMPARE, None, v.run_s, what="the first run's compare line")
    assert first["marks"] == 0, f"{v.driver.name}: the first run marks {first['marks']} numbers as changed"
    assert "chạy lại" in first["text"], f"{v.driver.name}: the first run's compare line says {first['text']!r}"
    assert first["toggle"] is True, f"{v.driver.name}: the compare toggle is not on after the first run"


def changed_constant(v: Visit):
    v.driver.js("""() => { const el = document.querySelector('[data-constant="SLOTS"]');
      el.closest('details')?.setAttribute('open', ''); el.value = '3';
      el.dispatchEvent(new Event('input', { bubbles: true })); el.dispatchEvent(new Event('change', { bubbles: true }));
      return true; }""")
    assert v.run() == "done"
    assert_shows(v, {"SLOTS": 3})
    assert v.driver.js("() => document.querySelectorAll('[data-block] .changed').length") > 0   # old → new marks


def address_with_constants(v: Visit):
    assert v.visit("?QUEUE_LIMIT=2&SLOTS=3") == "done"
    assert_shows(v, {"QUEUE_LIMIT": 2, "SLOTS": 3})
    assert v.driver.js("() => document.querySelector('[data-constant=\"QUEUE_LIMIT\"]').value") == "2"


# The panels' text, once the page is in `lang` and shows the words of that language (a switch re-renders the last
# run in place: the worker is asked to `render`, the status need not change).
PANELS_IN = """([lang, vietnamese]) => {
  if (document.documentElement.lang !== lang) return null;
  const text = [...document.querySelectorAll('[data-block] > pre')].map((p) => p.innerText).join('\\n');
  return new RegExp(vietnamese, 'u').test(text) === (lang === 'vi') ? text : null;
}"""


def english_edition(v: Visit):
    v.visit("?lang=en", runs=False)
    text = wait_for(v.driver, PANELS_IN, ["en", VIETNAMESE.pattern], v.run_s, what="the panels in English")
    assert "TTFT" in text and not VIETNAMESE.search(text)
    v.visit("?lang=vi", runs=False)
    wait_for(v.driver, PANELS_IN, ["vi", VIETNAMESE.pattern], v.run_s, what="the panels in Vietnamese")


CHART_DRAWN = """([name, block]) => {
  const root = document.querySelector(`[data-block="${block}"] [data-chart="${name}"]`);
  const svg = root && !root.dataset.empty && root.querySelector('svg[role="img"]');
  if (!svg || !svg.querySelector('[data-mark]')) return null;
  return { label: svg.getAttribute('aria-label'), alt: root.querySelector('.chart-alt')?.textContent.trim(),
           caption: root.querySelector('figcaption')?.innerText.trim() };
}"""


def charts(v: Visit):
    for query, places in (("?CLOCK=roofline", [("roofline", 10)]),
                          ("?REPLICAS=3&DISAGG=on&PREFILL_REPLICAS=1", [("cluster-view", 3), ("cluster", 11)])):
        assert v.visit(query) == "done"
        for name, block in places:
            v.driver.js(f"() => {{ document.querySelector('[data-block=\"{block}\"]').open = true; }}")
            drawn = wait_for(v.driver, CHART_DRAWN, [name, block], v.run_s, what=f"the {name} chart drawn")
            assert len(drawn["label"] or "") > 20 and drawn["alt"] and drawn["caption"], (name, drawn)


def code_view_and_edited_run(v: Visit):
    from inference_lab.entrypoints import patch
    from inference_lab.entrypoints.lab import run
    from inference_lab.words.blocks import SourceRef
    v.visit("", runs=False)
    v.driver.js("() => { const d = document.querySelector('[data-code-for=\"3\"]'); d.open = true; }")
    source = inspect.getsource(SourceRef("scheduler", "plan_tasks").resolve()).rstrip("\n")
    assert source in v.driver.js("() => document.querySelector('[data-code-for=\"3\"]').textContent")
    assert v.visit("?PATCH=" + patch_param({"sampler.sample": GREEDY}), runs=False) in ("ready", "done")
    wait_for(v.driver, LINK_CODE_READY, None, v.run_s, what="the link's code ready to run")
    assert v.after(CLICK, '[data-action="run-link-code"]', "done|error") == "done"
    wait_for(v.driver, "() => document.querySelectorAll('[data-block] > summary [data-edited-code]').length === 13",
             None, v.run_s, what="13 panels marked as run with edited code")
    want = cli_sections(patch.run(patch.units_of({"sampler.sample": GREEDY}), run, None)[0].to_text())
    assert v.panels()[8][1:] == want[8][1:]


def step_slider_by_keyboard(v: Visit):
    """On the steps of the run before (run_default's): no run of its own. The step navigator is drawn after the
    first run's output (static/tools/steps.js), so the check waits for it first."""
    assert v.driver.js(STATUS) == "done"
    slider = "[data-step-slider]"
    wait_for(v.driver, f"() => Boolean(document.querySelector('{slider}'))", None, v.run_s, what="the step slider")
    v.driver.js(f"() => document.querySelector('{slider}').scrollIntoView()")
    v.driver.press(slider, "Home")
    wait_for(v.driver, f"() => document.querySelector('{slider}').getAttribute('aria-valuenow') === '1'", None, v.run_s,
             what="step 1 after Home")
    before = v.driver.js("() => document.querySelector('[data-step-view]').textContent")
    v.driver.press(slider, "ArrowRight")
    wait_for(v.driver, f"() => document.querySelector('{slider}').getAttribute('aria-valuenow') === '2'", None, v.run_s,
             what="step 2 after ArrowRight")
    assert v.driver.js("() => document.querySelector('[data-step-view]').textContent") != before


def stop_looping_edit(v: Visit):
    """Where the page can interrupt Python (isolated; not WebKit, whose blob: worker gets no SharedArrayBuffer even
    on an isolated page), Stop ends the run in the same Python, which answers the next run at once. Elsewhere the
    page starts Python again and its message says why: the check ends as the new start begins, and the next
    check (offline_reload: a start and a run served by the service worker) shows Python starting and running
    again, so WebKit, the slowest to start (~40 s under load), starts Python once less."""
    in_place = v.driver.js("() => crossOriginIsolated") and v.driver.name != "webkit"
    assert v.visit("?PATCH=" + patch_param({"scheduler.plan_tasks": LOOP}), runs=False) in ("ready", "done")
    wait_for(v.driver, LINK_CODE_READY, None, v.run_s, what="the link's code ready to run")
    v.click('[data-action="run-link-code"]')
    wait_for(v.driver, INSIDE_LOOP, None, v.run_s, what="the looping edit running")
    stopped = v.after(CLICK, '[data-action="stop"]', "ready|loading")
    note = v.driver.js("() => document.getElementById('action-note').innerText")
    if not in_place:
        assert stopped == "loading", stopped                     # Python starts again ...
        why = "không cho worker chạy Python dùng SharedArrayBuffer" if v.driver.name == "webkit" else \
            "không được cách ly cross-origin"
        assert why in note, note                                  # ... and the message says why
        return
    assert stopped == "ready" and "không phải khởi động lại" in note, note     # interrupted in the same Python
    v.visit("", runs=False)
    assert v.run() == "done"
    assert v.driver.js("() => document.querySelectorAll('[data-edited-code]').length") == 0


SW_ACTIVE = """async () => { const r = await navigator.serviceWorker.getRegistration();
  return Boolean(r && r.active && r.active.state === 'activated' && navigator.serviceWorker.controller); }"""


def offline_reload(v: Visit):
    wait_for(v.driver, SW_ACTIVE, None, v.run_s * 2, what="the service worker active and in control")
    v.server.close()                                 # the network is gone: only the service worker answers
    v.driver.goto(v.server.url)
    v.status_is("ready|done", READY_S)
    assert v.driver.js("() => crossOriginIsolated") is True       # a visit the service worker served
    assert v.run() == "done"
    assert_shows(v, {})


def no_page_errors(v: Visit):
    assert v.driver.errors() == []


CHECKS = [first_visit, run_default, step_slider_by_keyboard, changed_constant, address_with_constants,
          english_edition, charts, code_view_and_edited_run, stop_looping_edit, offline_reload, no_page_errors]
ENGINES = ["webkit", "firefox", "chromium"]   # the slowest first: conftest.py hands each to a worker in this order


@pytest.fixture(scope="module", params=ENGINES)
def engine(request, site):
    name = request.param
    reason = missing(name)
    if reason:
        if os.environ.get("LAB_REQUIRE_BROWSER") == "1":
            pytest.fail(f"LAB_REQUIRE_BROWSER=1 but {reason}", pytrace=False)
        pytest.skip(reason)
    server = RecordingServer(site)                   # its own: the offline check shuts it down
    if name == "chromium":
        driver = Chromium(request.getfixturevalue("chromium"))
    else:
        driver = Firefox() if name == "firefox" else WebKit()
    visit = Visit(driver, server)
    yield visit
    print(f"\n{name} {driver.version}: " + ", ".join(f"{k} {s:.1f} s" for k, s in visit.seconds.items()))
    driver.close()
    server.close()


@pytest.mark.parametrize("check", CHECKS, ids=[c.__name__ for c in CHECKS])
def test_in_every_engine(engine, check):
    if check is not first_visit and "first_visit" not in engine.seconds:
        pytest.fail("the page never reached ready")
    start = time.monotonic()
    check(engine)
    engine.seconds[check.__name__] = time.monotonic() - start
