"""The capacity tools on the page (issue 42), on the shared session page: a 3-point load sweep and a 2-point
configuration search run in the worker (data-action="sweep" / "search"), each answer the same as Python's for
the constants the page sent (web.sweep, web.search in CPython), drawn (data-chart="sweep" with the knee,
data-chart="search" with the answer) with a text alternative and a table of the rows; bad input is said beside the
tool's field (data-error-for); Stop in the middle of a sweep keeps the points already done.
"""
from __future__ import annotations

import json

import pytest

from lab_browser import ARTIFACTS, RUN_MS, Lab, expect, screenshot

pytestmark = pytest.mark.browser

SMALL = {"WORKLOAD_REQUESTS": 24, "WORKLOAD_PROMPT": 16, "WORKLOAD_OUTPUT": 8}
# tests/test_search.py's grid: the H100 meets the 20 ms TTFT_SLO, the L4 does not
GRID = {"CLOCK": "roofline", "WORKLOAD_REQUESTS": 16, "WORKLOAD_PROMPT": 64, "WORKLOAD_OUTPUT": 16,
        "WORKLOAD_RATE": 50, "MAX_CONTEXT": 128, "QUEUE_LIMIT": 16, "TOKEN_BUDGET": 512, "SLOTS": 8,
        "TTFT_SLO": 20000}
# heavy enough that a point takes seconds in Pyodide: Stop lands in the middle of the sweep
HEAVY = {"WORKLOAD_REQUESTS": 200, "WORKLOAD_PROMPT": 24, "WORKLOAD_OUTPUT": 24, "QUEUE_LIMIT": 200,
         "MAX_CONTEXT": 64, "POOL_BLOCKS": 64}


def set_constants(lab: Lab, values: dict):
    lab.page.click('[data-action="reset"]')
    if "CLOCK" in values:                         # first, as the address does: the roofline defaults follow it
        lab.set_value("CLOCK", values["CLOCK"])
        lab.control("CLOCK").dispatch_event("change")
    for name, value in values.items():
        if name != "CLOCK":
            lab.set_value(name, value)


def sweep(lab: Lab, values: dict, axis: str):
    set_constants(lab, values)
    lab.page.fill("[data-sweep-axis]", axis)
    lab.page.click('[data-action="sweep"]')


def drawn(lab: Lab, tool: str, state: str = "done"):
    """Until the tool's answer is drawn (data-tool-state, set once its chart is in)."""
    expect(lab.page.locator(f'[data-tool="{tool}"]')).to_have_attribute("data-tool-state", state, timeout=RUN_MS)


def test_a_three_point_sweep_draws_the_knee_rows_and_little_as_python_computes_them(lab: Lab):
    from inference_lab.entrypoints import web
    sweep(lab, SMALL, "WORKLOAD_RATE=10,40,160")
    assert lab.wait_status("done|error", RUN_MS * 3) == "done"
    drawn(lab, "sweep")
    sent = lab.last_sent("sweep")
    expected = json.loads(web.sweep(json.dumps(sent["config"]), "WORKLOAD_RATE=10,40,160", "vi"))["sweep"]
    assert expected["knee"] == 1
    figure = lab.page.locator('[data-chart="sweep"]')
    expect(figure).to_have_attribute("data-knee", "40")
    expect(figure).to_have_attribute("data-points", "3")
    expect(figure.locator("g.knee")).to_have_attribute("data-knee", "40")
    assert figure.locator("svg .mark").count() == 3                  # a point per value, hoverable and focusable
    rows = lab.page.locator("[data-sweep-rows] tbody tr")
    expect(rows).to_have_count(3)
    throughputs = [rows.nth(i).locator("td").first.inner_text() for i in range(3)]
    assert throughputs == [f"{p['throughput']:.1f}" for p in expected["points"]]
    expect(rows.nth(1)).to_have_attribute("data-knee", "true")
    # the text alternative: the sentence (knee, Little) and a table of the three rows
    alt = figure.locator("p.chart-alt")
    expect(alt).to_contain_text("WORKLOAD_RATE = 40")
    expect(alt).to_contain_text("Little")
    expect(figure.locator("table.chart-alt tbody tr")).to_have_count(3)
    lines = lab.page.locator('[data-capacity-lines="sweep"] pre')
    expect(lines).to_contain_text("Little: L đo được")
    expect(lines).to_contain_text("ĐIỂM GÃY: WORKLOAD_RATE = 40")
    screenshot(lab.page.locator('[data-tool="sweep"]'), ARTIFACTS / "capacity-sweep.png")


def test_a_bad_sweep_axis_is_said_beside_the_field_and_nothing_runs(lab: Lab):
    before = lab.count_sent("sweep")
    sweep(lab, SMALL, "CLOCK=seed,roofline")
    assert lab.wait_status("done|error", RUN_MS) == "error"
    assert lab.count_sent("sweep") == before + 1
    error = lab.page.locator('[data-tool="sweep"] [data-error-for="sweep"]')
    expect(error).to_contain_text("CLOCK")
    expect(lab.page.locator("[data-sweep-axis]")).to_have_attribute("aria-invalid", "true")
    expect(lab.page.locator("[data-sweep-axis]")).to_have_value("CLOCK=seed,roofline")   # what they typed stays


def test_a_two_point_search_finds_the_h100_and_draws_the_front(lab: Lab):
    from inference_lab.entrypoints import web
    set_constants(lab, GRID)
    lab.page.fill("[data-search-axes]", "GPU=L4,H100-SXM5-80GB")
    lab.page.fill("[data-search-attainment]", "0.9")
    lab.page.click('[data-action="search"]')
    assert lab.wait_status("done|error", RUN_MS * 3) == "done"
    drawn(lab, "search")
    sent = lab.last_sent("search")
    expected = json.loads(web.search(json.dumps(sent["config"]), "GPU=L4,H100-SXM5-80GB", "0.9"))["search"]
    assert expected["points"][expected["answer"]]["point"] == {"GPU": "H100-SXM5-80GB"}
    expect(lab.page.locator("[data-search-answer]")).to_have_attribute("data-search-answer", "GPU=H100-SXM5-80GB")
    figure = lab.page.locator('[data-chart="search"]')
    expect(figure).to_have_attribute("data-answer", "GPU=H100-SXM5-80GB")
    expect(figure.locator("g.point")).to_have_count(2)
    expect(figure.locator('g.point[data-meets="false"]')).to_have_count(1)
    expect(figure.locator("table.chart-alt tbody tr")).to_have_count(2)
    expect(figure.locator("p.chart-alt")).to_contain_text("GPU=H100-SXM5-80GB")
    rows = lab.page.locator("[data-search-rows] tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(1)).to_have_attribute("data-answer", "true")
    cost = f"{expected['points'][1]['cost_per_hour']:.2f}"
    expect(rows.nth(1).locator("td").nth(1)).to_have_text(cost)
    lines = lab.page.locator('[data-capacity-lines="search"] pre')
    expect(lines).to_contain_text("BỊ LOẠI")                          # the L4's reasons
    expect(lines).to_contain_text("#1 GPU=L4: TTFT")
    screenshot(lab.page.locator('[data-tool="search"]'), ARTIFACTS / "capacity-search.png")


def test_stop_in_the_middle_of_a_sweep_keeps_the_points_done(lab: Lab):
    values = "WORKLOAD_RATE=50,100,200,400,800"
    sweep(lab, HEAVY, values)
    figure = lab.page.locator('[data-chart="sweep"]')
    expect(figure).to_have_attribute("data-points", "1", timeout=RUN_MS * 2)   # the first point is in
    lab.page.click('[data-action="stop"]')
    lab.wait_status("done|ready|error", RUN_MS * 2)
    drawn(lab, "sweep", "stopped")
    kept = int(figure.get_attribute("data-points"))
    assert 1 <= kept < 5
    rows = lab.page.locator("[data-sweep-rows] tbody tr th")
    expect(rows).to_have_count(kept)
    assert [rows.nth(i).inner_text().split(" ")[0] for i in range(kept)] == ["50", "100", "200", "400"][:kept]
    expect(lab.page.locator("[data-capacity-stopped]")).to_contain_text(f"{kept} trên 5")
    # Python is still there: the next run is an ordinary one
    assert lab.run({}) == "done"


def test_block_11_draws_the_trace_against_the_generator_with_a_text_alternative(lab: Lab):
    from chart_helpers import run_and_wait_for_charts
    from lab_browser import block_data, engine_report
    values = {"WORKLOAD_TRACE": "azure-code", "WORKLOAD_REQUESTS": 20, "MAX_CONTEXT": 2048}
    run_and_wait_for_charts(lab, values, [("distributions", 11)])
    d = block_data(engine_report(lab.last_sent("run")["config"]), 11)["distributions"]
    figure = lab.page.locator('[data-block="11"] [data-chart="distributions"]')
    expect(figure).to_have_attribute("data-cv", f"{d['trace']['gap']['cv']:g}")
    expect(figure.locator("svg .mark")).to_have_count(3 * 2 * 4)          # 3 distributions × 2 sources × 4 stats
    rows = figure.locator("table.chart-alt tbody tr")
    expect(rows).to_have_count(6)
    expect(rows.nth(4).locator("td").last).to_have_text(f"{d['trace']['gap']['cv']:g}")
    expect(figure.locator("p.chart-alt")).to_contain_text("p50/p99/max")
    screenshot(figure, ARTIFACTS / "capacity-distributions.png")
    run_and_wait_for_charts(lab, {}, [("ttft", 11)])            # a run without a trace: a note saying how to get one
    off = lab.page.locator('[data-block="11"] [data-chart="distributions"]')
    expect(off).to_have_attribute("data-empty", "true")
    expect(off.locator(".chart-note")).to_contain_text("WORKLOAD_TRACE = off")
    expect(off.locator("svg .mark")).to_have_count(0)


def test_the_capacity_section_has_no_axe_violations_and_fits_a_phone(lab: Lab):
    import lab_axe
    try:
        source = lab_axe.axe_source()
    except lab_axe.AxeUnavailable as why:
        pytest.skip(str(why))
    sweep(lab, SMALL, "SLOTS=1,2")
    assert lab.wait_status("done|error", RUN_MS * 3) == "done"
    drawn(lab, "sweep")
    expect(lab.page.locator('[data-chart="sweep"]')).to_have_attribute("data-points", "2")
    violations = lab_axe.run_axe(lab.page, source, "#capacity")
    assert violations == [], lab_axe.describe(violations)
    lab.page.set_viewport_size({"width": 375, "height": 800})
    try:
        figure = lab.page.locator('[data-chart="sweep"]')
        # redrawn for the new width (the tool watches its output's width): the drawing fits the phone's column
        lab.page.wait_for_function("""() => {
            const svg = document.querySelector('[data-chart="sweep"] svg.chart-svg');
            return svg && Number(svg.getAttribute('width')) <= document.documentElement.clientWidth; }""",
                                   timeout=RUN_MS)
        expect(figure).to_have_attribute("data-points", "2")
        wide = lab.page.evaluate("() => document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert wide <= 0, f"the page scrolls sideways by {wide} px at 375 px"
        screenshot(lab.page.locator('[data-tool="sweep"]'), ARTIFACTS / "capacity-sweep-375.png")
    finally:
        lab.page.set_viewport_size({"width": 1440, "height": 900})
