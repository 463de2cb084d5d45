"""Browser tests of the roofline (issue 22) on the page: the `roofline` chart of block [10] under both clocks
(one point per step with a cost, its bound and mix from the engine's own report computed here in CPython,
the ridge point labelled, the clock in the caption), a click on a point selecting that step in the step
view (the store's selected step, marked on the chart), the chart legible at 375 and 1440 px (no label
outside its drawing, no two labels overlapping; screenshots in tests/artifacts/chart-roofline-*.png under
LAB_SCREENSHOTS=1), the address ?CLOCK=roofline applying the roofline defaults like the control does (explicit values
win), and the step view saying a step's bound in words and numbers.
Same harness as test_browser_charts.py (conftest.py: the session's one page, no new cold boot).
"""
from __future__ import annotations

import pytest

from chart_helpers import (SVG_TEXTS_OUTSIDE, SVG_TEXTS_OVERLAPPING, assert_drawn, chart, mark_stale,
                           run_and_wait_for_charts)
from lab_browser import ARTIFACTS, RUN_MS, Lab, engine_report, expect, screenshot

pytestmark = pytest.mark.browser

PLACE = [("roofline", 10)]
# what the page runs after CLOCK is set to roofline on the control (its roofline defaults follow it)
RUNS = {
    "seed": {},
    "roofline": {"CLOCK": "roofline", "POOL_BLOCKS": "auto", "COST_TOKENIZE_PER_TOKEN": 1},
}


def run_clock(lab: Lab, clock: str) -> dict:
    """Run the page with CLOCK = clock (set on its control, as a student does); the engine's report of that run."""
    run_and_wait_for_charts(lab, {"CLOCK": clock} if clock != "seed" else {}, PLACE)
    return engine_report(RUNS[clock])


def costed_steps(report: dict) -> list[dict]:
    return [it for it in report["steps"]["items"] if it.get("cost") and it["cost"]["flops"] > 0]


@pytest.mark.parametrize("clock", list(RUNS))
def test_roofline_chart_draws_every_step_on_the_gpus_roofs(lab, clock):
    report = run_clock(lab, clock)
    assert lab.control("POOL_BLOCKS").input_value() == ("auto" if clock == "roofline" else "12")
    assert_drawn(lab, "roofline", 10)
    root = chart(lab, "roofline", 10)
    steps = costed_steps(report)
    points = root.locator("svg .point")
    expect(points).to_have_count(len(steps))
    assert [int(p) for p in points.evaluate_all("els => els.map((e) => e.dataset.step)")] == \
        [i + 1 for i, it in enumerate(report["steps"]["items"]) if it in steps]
    assert points.evaluate_all("els => els.map((e) => e.dataset.bound)") == [it["cost"]["bound"] for it in steps]
    mixes = points.evaluate_all("els => els.map((e) => e.dataset.mix)")
    for it, mix in zip(steps, mixes):
        phases = {task[1] for task in it["tasks"]}
        assert mix == ("mixed" if phases == {"decode", "prefill"} else phases.pop()), (it["tasks"], mix)
    # both roofs, the ridge point and its label; the caption names the clock, the GPU and the model
    expect(root.locator("svg .roof")).to_have_count(2)
    expect(root.locator("svg .ridge")).to_have_count(1)
    expect(root.locator("svg .ridge-label")).to_contain_text("222")   # 0.6 × 989.4 TFLOP/s ÷ (0.8 × 3.35 TB/s)
    caption = root.locator("figcaption").inner_text()
    assert f"CLOCK={clock}" in caption and "H100-SXM5-80GB" in caption and "Llama-3.1-8B" in caption
    expect(root.locator(".chart-note").first).to_contain_text(f"CLOCK={clock}")
    # every step of the default trace is memory-bound on an H100 (6-11 token prompts): all below the ridge
    assert set(it["cost"]["bound"] for it in steps) == {"memory"}


def test_clicking_a_point_selects_its_step_and_the_mark_follows_the_step(lab):
    report = run_clock(lab, "roofline")
    count = len(report["steps"]["items"])
    root = chart(lab, "roofline", 10)
    root.scroll_into_view_if_needed()
    point = root.locator('svg .point[data-step="4"]')
    box = point.bounding_box()
    lab.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    slider = lab.page.locator("[data-step-slider]")
    hit = int(slider.get_attribute("aria-valuenow"))
    # points of steps with the same tasks lie on each other: the click selects the one on top
    top = point.evaluate("""(g) => { const r = g.getBoundingClientRect();
        const el = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
        return +el.closest('[data-step]').dataset.step; }""")
    assert hit == top
    expect(slider).to_have_attribute("aria-valuemax", str(count))
    mark = root.locator(".step-mark")
    expect(mark).to_have_attribute("data-step", str(hit))
    expect(mark).to_be_visible()
    col = root.locator(f'.step-col[data-step="{hit}"]').bounding_box()
    got = mark.bounding_box()
    assert abs(got["x"] - col["x"]) < 2 and abs(got["y"] - col["y"]) < 2
    # the selected step is the page's state: moving the slider moves the chart's mark
    slider.focus()
    lab.page.keyboard.press("Home")
    expect(mark).to_have_attribute("data-step", "1")
    # a click on empty plot selects nothing new
    frame = root.locator(".chart-frame").bounding_box()
    lab.page.mouse.click(frame["x"] + frame["width"] - 20, frame["y"] + 30)
    expect(slider).to_have_attribute("aria-valuenow", "1")


def test_the_step_view_says_the_bound_in_words_and_numbers_under_both_clocks(lab):
    run_clock(lab, "roofline")
    slider = lab.page.locator("[data-step-slider]")
    slider.focus()
    lab.page.keyboard.press("Home")
    view = lab.page.locator("[data-step-view]")
    expect(view).to_contain_text("Chi phí trên H100-SXM5-80GB (Llama-3.1-8B): prefill 6 token: đọc 15.01 GB, 85 GFLOP "
                                 "-> giới hạn bởi bộ nhớ (memory-bound): 4.48 ms ≈ 15.01 GB ÷ 3.35 TB/s")
    expect(view).to_contain_text("với BANDWIDTH_FRACTION 0.8 và FLOPS_FRACTION 0.6 của mức đỉnh, cộng STEP_OVERHEAD "
                                 "100 µs, bước tốn 5.70 ms")
    expect(view.locator(".step-cost-seed")).to_have_count(0)        # the engine's own line says it
    # under the seed clock the view still says what the step would cost on the GPU (from the run log's `cost`)
    run_clock(lab, "seed")
    slider.focus()
    lab.page.keyboard.press("Home")
    expect(view.locator(".step-cost-seed")).to_have_text(
        "Nếu CLOCK=roofline (đồng hồ seed không dùng dòng này): trên H100-SXM5-80GB (Llama-3.1-8B), prefill 6 token: "
        "đọc 15.01 GB, 85 GFLOP -> giới hạn bởi bộ nhớ (memory-bound): 4.48 ms ≈ 15.01 GB ÷ 3.35 TB/s ở mức đỉnh; "
        "với BANDWIDTH_FRACTION 0.8 và FLOPS_FRACTION 0.6 của mức đỉnh, cộng STEP_OVERHEAD 100 µs, đồng hồ roofline "
        "sẽ tính 5.70 ms.")


@pytest.mark.parametrize("clock", list(RUNS))
def test_roofline_chart_is_legible_at_375_and_1440_px(lab, clock):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    run_clock(lab, clock)
    sel = '[data-block="10"] [data-chart="roofline"]:not([data-stale])'
    try:
        for width in (375, 1440):
            mark_stale(lab)
            lab.page.set_viewport_size({"width": width, "height": 900})
            # redrawn for the panel's width: drawn 1:1, no sideways scroll inside the chart
            lab.page.wait_for_function(
                """([sel, w]) => { const s = document.querySelector(sel + ' svg[role=img]');
                   const f = s && s.closest('.chart-frame');
                   return s && f && +s.getAttribute('width') <= f.clientWidth + 1
                          && (w > 400 || f.clientWidth < 400); }""",
                arg=[sel, width], timeout=RUN_MS)
            svg = lab.page.locator(sel + " svg[role=img]")
            assert svg.evaluate(SVG_TEXTS_OUTSIDE) == [], f"labels outside the drawing at {width} px"
            assert svg.evaluate(SVG_TEXTS_OVERLAPPING) == [], f"labels overlap at {width} px"
            sizes = svg.evaluate("""s => [...s.querySelectorAll('text')].filter(t => t.textContent.trim())
                .map(t => parseFloat(getComputedStyle(t).fontSize) * s.getBoundingClientRect().width
                          / s.viewBox.baseVal.width)""")
            assert sizes and min(sizes) >= 11, f"text drawn at {min(sizes):.1f} px"
            root = lab.page.locator(sel)
            root.scroll_into_view_if_needed()
            box = root.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1, f"the chart leaves the screen at {width} px"
            screenshot(root, ARTIFACTS / f"chart-roofline-{clock}-{width}.png")
            overflow = lab.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, f"the page scrolls sideways at {width} px"
    finally:
        lab.page.set_viewport_size({"width": 1440, "height": 900})


# Long prompts on an A100 (exercise 22): two 82-token prompts join a decode in one compute-bound step. The
# page's own chart module draws the engine's report (computed here in CPython) into block [10]'s panel.
LONG_PROMPTS = dict(RUNS["roofline"], GPU="A100-SXM4-80GB", SLOTS=3, QUEUE_LIMIT=2, MAX_CONTEXT=128, N_MERGES=0,
                    FOLLOW="A", TOKEN_BUDGET=256, REQUESTS=[
    dict(id="A", arrival=0, text="xin chao", max_new=40, temperature=0.0, top_k=0, top_p=1.0, seed=1),
    dict(id="B", arrival=30000, text="xin chao model hoc token ban xin chao model hoc token ban xin chao model hoc tok",
         max_new=8, temperature=0.0, top_k=0, top_p=1.0, seed=2),
    dict(id="C", arrival=30000, text="model hoc token ban xin chao model hoc token ban xin chao model hoc token ban xi",
         max_new=8, temperature=0.0, top_k=0, top_p=1.0, seed=3)])
DRAW_BLOCK_10 = """async ([report]) => {
    const version = new URL(document.querySelector('script[type="module"][src]').src).search;
    const charts = await import(new URL('static/charts/index.js' + version, document.baseURI).href);
    const panel = document.querySelector('details[data-block="10"]');
    panel.open = true;
    panel.querySelectorAll('[data-chart]').forEach((el) => { el.dataset.stale = '1'; });
    await charts.placeAllCharts([[panel, 10]], report);
}"""


def test_compute_bound_steps_lie_right_of_the_ridge_and_stay_legible(lab):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    report = engine_report(LONG_PROMPTS)
    bounds = [it["cost"]["bound"] for it in costed_steps(report)]
    assert "compute" in bounds and "memory" in bounds
    sel = '[data-block="10"] [data-chart="roofline"]:not([data-stale])'
    try:
        for width in (1440, 375):
            lab.page.set_viewport_size({"width": width, "height": 900})
            lab.page.evaluate(DRAW_BLOCK_10, [report])
            root = lab.page.locator(sel)
            expect(root).to_have_count(1, timeout=RUN_MS)
            ridge = float(root.locator("svg .ridge").get_attribute("cx"))
            for bound, x in root.locator("svg .point").evaluate_all(
                    "els => els.map((g) => [g.dataset.bound, g.querySelector('rect').x.baseVal.value + 8])"):
                assert (x > ridge) == (bound == "compute"), (bound, x, ridge)
            svg = root.locator("svg[role=img]")
            assert svg.evaluate(SVG_TEXTS_OUTSIDE) == [], f"labels outside the drawing at {width} px"
            assert svg.evaluate(SVG_TEXTS_OVERLAPPING) == [], f"labels overlap at {width} px"
            root.scroll_into_view_if_needed()
            screenshot(root, ARTIFACTS / f"chart-roofline-long-prompts-{width}.png")
    finally:
        lab.page.set_viewport_size({"width": 1440, "height": 900})


def test_address_clock_roofline_applies_the_roofline_defaults(lab):
    assert lab.visit("?CLOCK=roofline") == "done"
    assert lab.control("CLOCK").input_value() == "roofline"
    assert lab.control("POOL_BLOCKS").input_value() == "auto"
    assert lab.control("COST_TOKENIZE_PER_TOKEN").input_value() == "1"
    ran = lab.last_sent("run")["config"]
    assert ran["CLOCK"] == "roofline" and ran["POOL_BLOCKS"] == "auto" and ran["COST_TOKENIZE_PER_TOKEN"] == 1
    expect(lab.page.locator("#run-header pre")).to_contain_text("CLOCK=roofline")
    # an explicit value in the address wins over the roofline default
    assert lab.visit("?CLOCK=roofline&POOL_BLOCKS=12&COST_TOKENIZE_PER_TOKEN=50") == "done"
    assert lab.control("POOL_BLOCKS").input_value() == "12"
    assert lab.control("COST_TOKENIZE_PER_TOKEN").input_value() == "50"
    ran = lab.last_sent("run")["config"]
    assert ran["POOL_BLOCKS"] == 12 and ran["COST_TOKENIZE_PER_TOKEN"] == 50
    # back to the seed's clock: its own defaults again
    assert lab.visit("?SLOTS=3") == "done"
    assert lab.control("CLOCK").input_value() == "seed"
    assert lab.control("POOL_BLOCKS").input_value() == "12"


def test_new_clock_controls_come_from_the_schema_and_the_address(lab):
    """ACT_BITS, GPU_MEMORY_UTILIZATION, ENGINE_PROFILE, IGNORE_EOS are controls with the schema's defaults; the
    efficiencies read `auto` (ENGINE_PROFILE's figures); address parts reach the run; block 10 says how far to
    trust the milliseconds (the calibration table) under CLOCK = roofline only."""
    assert lab.visit("?SLOTS=3") == "done"
    defaults = {"ACT_BITS": "16", "GPU_MEMORY_UTILIZATION": "0.9", "ENGINE_PROFILE": "vllm", "IGNORE_EOS": "off",
                "FLOPS_FRACTION": "auto", "BANDWIDTH_FRACTION": "auto", "STEP_OVERHEAD": "auto"}
    assert {name: lab.control(name).input_value() for name in defaults} == defaults
    assert lab.page.locator('[data-block="10"]').filter(has_text="Tin những mili giây").count() == 0
    query = ("?CLOCK=roofline&WEIGHT_BITS=8&ACT_BITS=8&ENGINE_PROFILE=tensorrt-llm&GPU_MEMORY_UTILIZATION=0.8"
             "&IGNORE_EOS=on")
    assert lab.visit(query) == "done"
    ran = lab.last_sent("run")["config"]
    assert (ran["ACT_BITS"], ran["ENGINE_PROFILE"], ran["GPU_MEMORY_UTILIZATION"], ran["IGNORE_EOS"]) == \
        (8, "tensorrt-llm", 0.8, "on")
    assert ran["FLOPS_FRACTION"] == "auto"
    block = lab.page.locator('[data-block="10"]')
    expect(block).to_contain_text("Tin những mili giây này đến đâu")
    expect(block).to_contain_text("ENGINE_PROFILE=tensorrt-llm, FLOPS_FRACTION 0.5, BANDWIDTH_FRACTION 0.8, "
                                  "STEP_OVERHEAD 50 µs")
    expect(block).to_contain_text("gpt-fast · A100-SXM4-80GB · Llama-3.1-8B W16A16")


def test_tensor_parallel_from_the_address_shows_communication(lab):
    """?TENSOR_PARALLEL=2 reaches the run (a control from the schema); the roofline chart's table gets a
    communication column with each step's all-reduce time (--json cost.communication), the header names the GPUs,
    and a 70B at TP 1 is refused at SHADOW_MODEL with how many GPUs it needs."""
    assert lab.visit("?SLOTS=3") == "done"
    assert lab.control("TENSOR_PARALLEL").input_value() == "1"
    assert lab.visit("?CLOCK=roofline&SHADOW_MODEL=Llama-3.1-70B&TENSOR_PARALLEL=2") == "done"
    ran = lab.last_sent("run")["config"]
    assert ran["TENSOR_PARALLEL"] == 2
    report = engine_report({"CLOCK": "roofline", "SHADOW_MODEL": "Llama-3.1-70B", "TENSOR_PARALLEL": 2,
                            "POOL_BLOCKS": "auto", "COST_TOKENIZE_PER_TOKEN": 1})
    comm = [f"{it['cost']['communication'] * 1e3:.2f}" for it in costed_steps(report)]
    assert_drawn(lab, "roofline", 10)
    root = chart(lab, "roofline", 10)
    expect(root.locator("table th").filter(has_text="giao tiếp (ms)")).to_have_count(1)
    cells = root.locator("table tbody tr").evaluate_all(
        "rows => rows.map((r) => r.children[6].textContent.trim())")
    assert cells == comm
    expect(lab.page.locator("#run-header pre")).to_contain_text("SONG SONG TENSOR: mỗi bản sao là 2 GPU")
    lab.set_value("TENSOR_PARALLEL", 1)
    lab.page.click('[data-action="run"]')
    expect(lab.page.locator('[data-error-for="SHADOW_MODEL"]')).to_contain_text("cần TENSOR_PARALLEL ≥ 2")
    lab.page.click('[data-action="reset"]')


def test_no_page_errors(lab):
    assert lab.page_errors == []
    assert [e for e in lab.console_errors if "chart" in e or "Refused" in e] == []
