"""A big cluster run opened from an address (issue 39), on the shared session page: 300 requests on 8 replicas
(bench/cluster_bench.py's ISSUE constants; the full 1,000 is bench/big_run_page.py's). The run ends (no crash), the
page's JS heap stays within 300 MB and the whole document within 30,000 elements, the panels print what a person
can read, the long charts draw with the screen and not with the run (the KV chart one raster image, the cluster view
one path per kind, the roofline one point per spot, no dashed line per step and no mark per task on the timeline and
at most 48 request lanes, at most 48 bars on the TTFT and token-budget charts, no .step-col element per step (the
step columns are kept in JS), the text-alternative tables at most ALT_ROWS rows), the worker sends the steps titled
and cut and the step view asks for the step it shows, whole (entrypoints/web.py step_detail), the step navigator
scrubs, and nothing errs. Waits on the page's state, never on time.
"""
from __future__ import annotations

import json
import re
import urllib.parse
from pathlib import Path

import pytest

from lab_browser import READY_MS, Lab, expect
from chart_helpers import CHARTS_SETTLED

pytestmark = pytest.mark.browser

BIG = dict(WORKLOAD_REQUESTS=300, WORKLOAD_PROMPT=128, WORKLOAD_OUTPUT=32, WORKLOAD_RATE=200.0, WORKLOAD_PREFIXES=8,
           WORKLOAD_SHARED=64, SLOTS=32, QUEUE_LIMIT=256, BLOCK_SIZE=16, POOL_BLOCKS="auto", PREFIX_CACHE="on",
           MAX_CONTEXT=256, REPLICAS=8, ROUTER="prefix_aware")
BIG_RUN_MS = 900_000       # a 300-request run on a loaded 2-core machine (~60 s quiet); the wait ends on the state
ALT_ROWS = 200             # static/charts/figure.js
HEAP_MB = 300
DOM_ELEMENTS = 30_000
MAX_ROWS = 48              # static/charts/figure.js

PANELS = """() => [...document.querySelectorAll('[data-block] > pre')].map((pre) => pre.textContent)"""


@pytest.fixture(scope="module")
def big(page_lab: Lab):
    lab = page_lab.fresh()
    lab.page.evaluate("(url) => { history.pushState(null, '', url); dispatchEvent(new PopStateEvent('popstate')); }",
                      lab.home + "?" + urllib.parse.urlencode(BIG))
    assert lab.wait_status("done|error", BIG_RUN_MS) == "done"
    yield lab
    lab.wait_status("ready|done|error", READY_MS)
    lab.page.locator("[data-step-slider]").press("Home")     # the next module starts at step 1


def test_the_run_ends_within_the_heap_and_prints_what_a_person_can_read(big: Lab):
    cdp = big.page.context.new_cdp_session(big.page)
    try:
        cdp.send("HeapProfiler.collectGarbage")
        heap = cdp.send("Runtime.getHeapUsage")["usedSize"]
    finally:
        cdp.detach()
    assert heap <= HEAP_MB * 1e6, f"JS heap {heap / 1e6:.0f} MB"
    for block in big.page.locator("[data-block]").all():   # every chart drawn (they draw when idle or in view)
        block.evaluate("(el) => el.scrollIntoView()")
    expect(big.page.locator('.charts[aria-busy="true"]')).to_have_count(0, timeout=BIG_RUN_MS)
    elements = big.page.evaluate("() => document.getElementsByTagName('*').length")
    assert elements <= DOM_ELEMENTS, f"{elements} elements"
    panels = big.page.evaluate(PANELS)
    assert len(panels) >= 13                               # the header and blocks 1-13
    assert sum(len(p.encode()) for p in panels) <= 200_000
    assert max(len(p.splitlines()) for p in panels) <= 100
    assert not big.page_errors


def test_the_long_charts_draw_with_the_screen_not_the_run(big: Lab):
    page = big.page
    steps = int(page.locator("[data-step-slider]").get_attribute("aria-valuemax"))
    assert steps > 1000
    kv = page.locator('[data-chart="kv-blocks"]').first
    expect(kv.locator("image.kv-raster")).to_have_count(1)
    assert kv.locator("g.run").count() == 0
    view = page.locator('[data-chart="cluster-view"]').first
    expect(view.locator("g.cluster-steps.is-dense")).to_have_count(1)
    assert view.locator("g.step").count() == 0 and view.locator(".cluster-kv path").count() <= 8
    assert page.locator('[data-chart="roofline"] g.point').count() < steps / 2
    timeline = page.locator('[data-chart="timeline"]').first
    assert timeline.locator(".grid line").count() < steps
    assert timeline.locator("g.lane").count() == 48                  # of 300 requests; the note says so
    expect(timeline.locator(".chart-note").first).to_contain_text("48")
    for table in page.locator("table.chart-alt").all():
        assert table.locator("tbody tr").count() <= ALT_ROWS + 1
    assert page.locator(".step-tick").count() <= 1001
    assert page.locator(".step-col").count() == 0                    # the step columns are boxes kept in JS
    assert timeline.locator("g.task").count() == 0 and timeline.locator("g.tasks.is-dense").count() > 0
    for name in ("ttft", "tokens"):
        chart = page.locator(f'[data-chart="{name}"]').first
        expect(chart.locator(".chart-note").first).to_contain_text(str(MAX_ROWS))
    assert page.locator('[data-chart="ttft"] g.request').count() == MAX_ROWS


def test_the_step_navigator_scrubs_the_big_run(big: Lab):
    slider = big.page.locator("[data-step-slider]")
    slider.press("End")
    last = slider.get_attribute("aria-valuemax")
    expect(slider).to_have_attribute("aria-valuenow", last)
    slider.press("ArrowLeft")
    expect(slider).to_have_attribute("aria-valuenow", str(int(last) - 1))
    expect(big.page.locator("[data-step-view] .step-head")).to_contain_text(re.compile(str(int(last) - 1)))
    kv = big.page.locator('[data-chart="kv-blocks"] .step-mark')
    expect(kv).to_have_attribute("data-step", str(int(last) - 1))
    assert not big.page_errors


def test_the_step_view_asks_the_worker_for_the_step_it_shows(big: Lab):
    """The result's steps carry titles, not narration nor slots; the view draws the step whole once the worker sends
    it (web.step_detail: the narration's head line "Bước n/m …", the slots, the decisions)."""
    slider = big.page.locator("[data-step-slider]")
    slider.press("Home")
    for _ in range(3):
        slider.press("ArrowRight")
    view = big.page.locator("[data-step-view]")
    expect(view.locator(".step-text-wait")).to_have_count(0, timeout=READY_MS)
    expect(view.locator('[aria-busy="true"]')).to_have_count(0)
    expect(view.locator(".step-head")).to_contain_text(re.compile(r"\b4/\d+"))
    assert view.locator(".step-slot").count() >= 1
    assert view.locator(".step-decisions li").count() >= 2
    assert view.locator(".step-text-wait").count() == 0
    assert not big.page_errors


def test_the_trace_of_the_big_run_comes_from_the_worker_when_downloaded(big: Lab):
    """A long run's result carries no trace (megabytes); the download button asks the worker (web.trace_json)."""
    button = big.page.locator('[data-action="download-trace"]')
    expect(button).to_be_enabled()
    with big.page.expect_download(timeout=READY_MS) as download:
        button.click()
    events = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))["traceEvents"]
    assert sum(e["ph"] == "X" for e in events) > 1000
    assert not big.page_errors


def test_the_deferred_comparison_is_computed_when_asked(big: Lab):
    """Blocks [6], [11], [12] of this big run are deferred (web.defers; their data.deferred): one line each and a
    button data-replays; the replays' checks wait. The button plays the replays in the worker (web.replays): the
    three panels get their lines, the buttons go, the checks pass. Last in the module: it changes the shown run."""
    page = big.page
    buttons = page.locator("[data-block] [data-replays]")
    expect(buttons).to_have_count(3)
    assert [int(b.evaluate("(el) => el.closest('[data-block]').dataset.block")) for b in buttons.all()] == [6, 11, 12]
    expect(page.locator("#checks-list li.waiting")).to_have_count(2)
    expect(page.locator("#verdict")).to_have_class(re.compile(r"\bwaiting\b"))
    assert page.locator('[data-block="12"] > pre .line').count() == 1
    buttons.nth(2).click()
    assert big.wait_status("done|error", BIG_RUN_MS) == "done"
    expect(page.locator("[data-replays]")).to_have_count(0)
    expect(page.locator("#checks-list li.waiting")).to_have_count(0)
    assert page.locator("#checks-list li.not-ok").count() == 0
    expect(page.locator("#verdict")).to_have_class("verdict pass")
    assert page.locator('[data-block="12"] > pre .line').count() > 5
    # the charts are drawn when the page is idle, block [12]'s among the last: wait for them all (a cap, not a wait)
    page.wait_for_function(CHARTS_SETTLED, timeout=BIG_RUN_MS)
    expect(page.locator('[data-chart="policies"] g').first).to_be_attached()
    assert not big.page_errors
