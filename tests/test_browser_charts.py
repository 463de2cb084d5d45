"""Browser tests of the six charts (static/charts/): each is drawn from the run's report data inside its
block's panel above the lines, for the default run, a run whose followed request is refused (SLOTS=1)
and a run with preemptions (SLOTS=3, POOL_BLOCKS=7, QUEUE_LIMIT=2). Marks are checked against the
engine's own report (computed here in CPython); hover and keyboard details, phone width and the CSP are
checked too. Screenshots of every chart at 375 and 1440 px go to tests/artifacts/chart-*.png (LAB_SCREENSHOTS=1).
Same harness as test_browser.py (conftest.py: the session's build, server and Chromium).
"""
from __future__ import annotations


import pytest

from chart_helpers import assert_drawn as drawn, chart as chart_in, mark_stale, run_and_wait_for_charts as run_and_wait
from lab_browser import ARTIFACTS, RUN_MS, Lab, block_data, engine_report, expect, screenshot

pytestmark = pytest.mark.browser

BLOCK_OF = {"timeline": 3, "attention": 5, "kv-blocks": 6, "sampling": 8, "ttft": 11, "policies": 12}
RUNS = {
    "default": {},
    "refused": {"SLOTS": 1},                                    # FOLLOW=C gets 429 at the gateway
    # the KV pool runs out: 2 preemptions, C waits for KV once
    "preempt": {"SLOTS": 3, "POOL_BLOCKS": 7, "QUEUE_LIMIT": 2},
}


def chart(lab: Lab, name: str):
    return chart_in(lab, name, BLOCK_OF[name])


def run_and_wait_for_charts(lab: Lab, values: dict) -> None:
    run_and_wait(lab, values, list(BLOCK_OF.items()))


def assert_drawn(lab: Lab, name: str) -> None:
    drawn(lab, name, BLOCK_OF[name])


def step_owners(report) -> list[dict]:
    """Every step's {block (str): owner} from the run log's tables (a shared block: its first holder)."""
    out = []
    for it in report["steps"]["items"]:
        owners = {}
        for rid, table in it["tables"].items():
            for b in table:
                owners.setdefault(str(b), rid)
        out.append(owners)
    return out


def kv_reuses(steps: list) -> int:
    """Blocks taken over by another request, counted from the end-of-step owners like the chart does."""
    blocks = {int(b) for st in steps for b in st}
    count = 0
    for b in blocks:
        last = None
        for st in steps:
            owner = st.get(str(b))
            if owner is not None and last is not None and owner != last:
                count += 1
            last = owner if owner is not None else last
    return count


# ── the three runs ───────────────────────────────────────────────────────────
def test_default_run_draws_all_six_charts_from_the_report(lab):
    run_and_wait_for_charts(lab, RUNS["default"])
    report = engine_report(RUNS["default"])
    for name in BLOCK_OF:
        assert_drawn(lab, name)

    b3, b6, b11 = block_data(report, 3), block_data(report, 6), block_data(report, 11)
    tl = chart(lab, "timeline")
    lanes = tl.locator("[data-request]").evaluate_all("els => els.map(e => e.dataset.request)")
    assert lanes == [r["id"] for r in report["config"]["REQUESTS"]]            # REQUESTS order: A B E C D
    items = report["steps"]["items"]
    assert "steps" not in b3 and "steps" not in b11                               # the run log is the one record
    assert tl.locator(".task").count() == sum(len(st["tasks"]) for st in items)
    prefills = sum(t[1] == "prefill" for st in items for t in st["tasks"])
    assert tl.locator('.task[data-phase="prefill"]').count() == prefills
    refused = tl.locator(".refused").evaluate_all("els => els.map(e => [e.closest('[data-request]').dataset.request, "
                                                  "e.dataset.code])")
    assert sorted(refused) == sorted([r["id"], r["code"]] for r in b11["rejected"]) == [["D", "429"], ["E", "400"]]
    expect(tl.locator('[data-request="D"]')).to_contain_text("429")
    expect(tl.locator('[data-request="E"]')).to_contain_text("400")
    assert tl.locator(".preemption").count() == 0

    kv = chart(lab, "kv-blocks")
    steps = step_owners(report)
    peak = next(i for i, st in enumerate(steps)
                if {int(k): v for k, v in st.items()} == {b: r for r, bl in b6["peak"]["tables"].items() for b in bl})
    expect(kv.locator(".peak")).to_have_attribute("data-step", str(peak + 1))
    expect(kv.locator(".peak")).to_contain_text(f"{b6['peak']['used']}/{report['config']['POOL_BLOCKS']}")
    assert kv.locator(".reuse").count() == kv_reuses(steps) == 4
    assert kv.locator(".preemption").count() == 0

    att = block_data(report, 5)
    assert chart(lab, "attention").locator(".bar").count() == 2 * len(att["heads"][0]) == 18
    expect(chart(lab, "attention").locator("figcaption")).to_contain_text(att["token_text"])

    smp = chart(lab, "sampling")
    expect(smp.locator(".chosen-band")).to_have_count(1)
    chosen = block_data(report, 8)["token_text"]
    expect(smp.locator("figcaption")).to_contain_text(f"“{chosen}”")
    assert smp.locator(f'.bar[data-token="{block_data(report, 8)["token"]}"]').count() == 2       # before and after

    tt = chart(lab, "ttft")
    shown = tt.locator(".request").evaluate_all("els => els.map(e => e.dataset.request)")
    assert shown == [r["id"] for r in b11["requests"]]
    expect(tt.locator(".slo")).to_contain_text("SLO 8.00 ms")
    expect(tt.locator("svg.chart-svg")).to_contain_text("TTFT 22.00 ms · ✗ vượt SLO")

    pol = chart(lab, "policies")
    assert pol.locator(".bar").count() == 3 * 5          # 3 policies × span, throughput, mean/max TTFT, worst gap
    assert pol.locator('.bar[data-metric="preemptions"]').count() == 0
    expect(pol.locator('.bar[data-policy="nochunk"][data-metric="worst_gap"]')).to_contain_text("6.00 ms")


def test_refused_followed_request_keeps_every_chart_and_explains_the_missing_ones(lab):
    run_and_wait_for_charts(lab, RUNS["refused"])
    report = engine_report(RUNS["refused"])
    assert report["follow"]["served"] is False and report["follow"]["code"] == "429"
    for name in ("timeline", "kv-blocks", "ttft", "policies"):
        assert_drawn(lab, name)
    for name in ("attention", "sampling"):
        root = chart(lab, name)
        expect(root).to_have_attribute("data-empty", "true")
        expect(root.locator(".chart-note")).to_contain_text("C bị từ chối 429")
        expect(root.locator(".chart-note")).to_contain_text("A, B")       # which requests to follow instead
        assert root.get_attribute("aria-labelledby") and root.locator("figcaption").inner_text().strip()
    tl = chart(lab, "timeline")
    expect(tl.locator('[data-request="C"] .refused')).to_have_attribute("data-code", "429")
    expect(tl.locator('[data-request="C"]')).to_contain_text("yêu cầu theo dõi")
    assert tl.locator(".refused").count() == len(block_data(report, 11)["rejected"]) == 3
    assert chart(lab, "ttft").locator(".request").count() == 2


def test_preemption_run_marks_preemptions_on_the_timeline_and_kv_blocks(lab):
    run_and_wait_for_charts(lab, RUNS["preempt"])
    report = engine_report(RUNS["preempt"])
    for name in BLOCK_OF:
        assert_drawn(lab, name)
    pre = block_data(report, 3)["preemptions"]
    assert [(p["step"], p["request"]) for p in pre] == [(5, "C"), (9, "D")]    # at step 6 C waits for KV (issue 21)

    tl = chart(lab, "timeline")
    marks = tl.locator(".preemption").evaluate_all("els => els.map(e => "
                                                   "[e.closest('[data-request]').dataset.request, +e.dataset.step])")
    assert marks == [[p["request"], p["step"]] for p in pre]
    assert "2 lần preempt" in tl.locator("svg.chart-svg").get_attribute("aria-label")

    kv = chart(lab, "kv-blocks")
    steps = kv.locator(".preemption").evaluate_all("els => els.map(e => +e.dataset.step)")
    assert steps == sorted({p["step"] for p in pre})
    assert kv.locator(".reuse").count() == kv_reuses(step_owners(report)) > 4
    assert "preempt" in kv.locator("svg.chart-svg").get_attribute("aria-label")

    expect(chart(lab, "ttft").locator("svg.chart-svg")).to_contain_text("TTFT 22.50 ms · ✗ vượt SLO · preempt 1 lần")
    assert chart(lab, "policies").locator('.bar[data-metric="preemptions"]').count() == 3


# ── reading a chart: hover, keyboard, phone width ───────────────────────────
def test_hover_and_keyboard_show_details(lab):
    run_and_wait_for_charts(lab, RUNS["default"])
    tl = chart(lab, "timeline")
    tip = tl.locator(".chart-tip")
    expect(tip).to_be_hidden()
    tl.locator('.task[data-phase="prefill"]').first.hover()
    expect(tip).to_be_visible()
    expect(tip).to_contain_text("Bước 1")
    expect(tip).to_contain_text("prefill 6 token")
    lab.page.mouse.move(0, 0)
    expect(tip).to_be_hidden()

    frame = tl.locator(".chart-frame")
    assert frame.get_attribute("tabindex") == "0" and "mũi tên" in frame.get_attribute("aria-label")
    frame.focus()
    expect(tip).to_be_visible()
    first = tip.inner_text()
    lab.page.keyboard.press("ArrowRight")
    expect(tip).not_to_have_text(first)
    live = tl.locator(".chart-live")
    expect(live).to_have_text(tip.inner_text())                  # screen readers hear the same detail
    lab.page.keyboard.press("End")
    expect(tl.locator(".is-active")).to_have_count(1)
    lab.page.keyboard.press("Escape")
    expect(tip).to_be_hidden()

    # every chart with marks can be read with the keyboard
    for name in BLOCK_OF:
        root = chart(lab, name)
        root.locator(".chart-frame").focus()
        lab.page.keyboard.press("ArrowDown")
        expect(root.locator(".chart-tip")).to_be_visible()
        assert root.locator(".chart-tip").inner_text().strip()


def test_charts_are_legible_at_phone_width_and_follow_the_width(lab):
    run_and_wait_for_charts(lab, RUNS["default"])
    try:
        lab.page.set_viewport_size({"width": 375, "height": 900})
        for name in BLOCK_OF:
            svg = chart(lab, name).locator("svg[role=img]")
            # redrawn for the narrow panel: drawn 1:1, no sideways scroll inside the chart
            lab.page.wait_for_function(
                """([sel]) => { const s = document.querySelector(sel); const f = s && s.closest('.chart-frame');
                   return s && f && +s.getAttribute('width') <= f.clientWidth + 1; }""",
                arg=[f'[data-chart="{name}"] svg[role=img]'], timeout=RUN_MS)
            sizes = svg.evaluate("""s => [...s.querySelectorAll('text')].filter(t => t.textContent.trim())
                .map(t => parseFloat(getComputedStyle(t).fontSize) * s.getBoundingClientRect().width
                          / s.viewBox.baseVal.width)""")
            assert sizes and min(sizes) >= 11, f"{name}: text drawn at {min(sizes):.1f} px"
        overflow = lab.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, "the page scrolls sideways at 375 px"
    finally:
        lab.page.set_viewport_size({"width": 1440, "height": 900})
    lab.page.wait_for_function(
        "() => +document.querySelector('[data-chart=timeline] svg[role=img]').getAttribute('width') > 900",
        timeout=RUN_MS)


DRAWN_FOR_ITS_FRAME = """([sel]) => {
    const root = document.querySelector(sel);
    if (!root) return false;
    if (root.dataset.empty === 'true') return true;                      // a note instead of a drawing
    const svg = root.querySelector('svg[role=img]'), frame = svg && svg.closest('.chart-frame');
    return Boolean(frame) && (+svg.getAttribute('width') <= frame.clientWidth + 1
                              || root.querySelector('.chart-scroll-note') !== null);  // wider: scrolls in its frame
}"""


@pytest.mark.parametrize("run", list(RUNS))
def test_screenshots_of_every_chart_at_both_widths(lab, run):
    """At each width every chart is redrawn for its frame, stays inside the screen with its caption,
    and the page never scrolls sideways; the screenshots are saved for a person to look at (LAB_SCREENSHOTS=1)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    run_and_wait_for_charts(lab, RUNS[run])
    try:
        for width in (1440, 375):
            fresh = ""
            if lab.page.viewport_size["width"] != width:
                # every chart is drawn again for the new width: wait for the new drawing, not the old one
                mark_stale(lab)
                fresh = ":not([data-stale])"
            lab.page.set_viewport_size({"width": width, "height": 900})
            for name in BLOCK_OF:
                lab.page.wait_for_function(DRAWN_FOR_ITS_FRAME, arg=[f'[data-chart="{name}"]{fresh}'], timeout=RUN_MS)
                root = lab.page.locator(f'[data-block="{BLOCK_OF[name]}"] [data-chart="{name}"]{fresh}')
                root.scroll_into_view_if_needed()
                box = root.bounding_box()
                assert box and box["x"] >= 0 and box["x"] + box["width"] <= width + 1, (f"{name} leaves the screen at "
                                                                                        f"{width} px")
                expect(root.locator("figcaption")).to_be_visible()
                assert root.locator("figcaption").inner_text().strip(), f"{name} has no caption at {width} px"
                if root.get_attribute("data-empty") != "true":
                    expect(root.locator("svg[role=img]")).to_be_visible()
                screenshot(root, ARTIFACTS / f"chart-{name}-{run}-{width}.png")
            overflow = lab.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, f"the page scrolls sideways at {width} px"
    finally:
        lab.page.set_viewport_size({"width": 1440, "height": 900})


def test_no_page_errors_and_nothing_refused_by_the_csp(lab):
    assert lab.page_errors == []
    assert [e for e in lab.console_errors if "Content Security Policy" in e or "Refused" in e or "chart" in e] == []
    assert lab.foreign == []
