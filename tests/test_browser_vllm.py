"""Browser tests of the three vLLM behaviours on the page: the PREFIX_CACHE and SCHED_POLICY controls and the
request editor's priority / cancel_at columns come from the engine's schema; PREFIX_CACHE=on shows block 6's
hits and shared blocks in its panel and marks the shared blocks on the KV chart; the share address carries
the new constant and columns and restores them; the step view (block [3]'s navigator) narrates a cache hit
and a cancellation and marks the shared block. Numbers are checked against the engine's own report.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest

from chart_helpers import run_and_wait_for_charts
from lab_browser import ARTIFACTS, RUN_MS, block_data as data, engine_report, expect, request_cell, screenshot

pytestmark = pytest.mark.browser

SHARED = {"SLOTS": 3, "QUEUE_LIMIT": 2, "PREFIX_CACHE": "on"}      # A and D run together and share block 0


def lines(report: dict, n: int) -> list[str]:
    return next(b for b in report["blocks"] if b["number"] == n)["lines"]


def run_and_wait_for_kv_chart(lab, values: dict) -> None:
    """Run, then wait until the KV chart of the previous run has been replaced (charts may draw when idle)."""
    run_and_wait_for_charts(lab, values, [("kv-blocks", 6)])


def panel_text(lab, n: int) -> str:
    return lab.page.locator(f'[data-block="{n}"] pre').inner_text()


def shared_spans(report) -> list[tuple[int, str]]:
    """(block, "A,D") for each run of consecutive steps in which a block is held by the same requests
    (from the run log's tables, holders in table order as the chart reads them)."""
    spans, last = [], {}
    for it in report["steps"]["items"]:
        holders = {}
        for rid, table in it["tables"].items():
            for b in table:
                holders.setdefault(b, []).append(rid)
        now = {b: ",".join(ids) for b, ids in holders.items() if len(ids) > 1}
        spans += [(b, key) for b, key in now.items() if last.get(b) != key]
        last = now
    return spans


def test_new_controls_and_columns_come_from_the_schema(lab):
    for name, options in (("PREFIX_CACHE", ["off", "on"]), ("SCHED_POLICY", ["fcfs", "priority"])):
        control = lab.control(name)
        assert control.evaluate("el => el.tagName") == "SELECT"
        assert control.locator("option").evaluate_all("els => els.map(e => e.value)") == options
        assert control.input_value() == options[0]
    for column in ("priority", "cancel_at"):
        expect(request_cell(lab, 0, column)).to_have_value("")          # optional and absent in the seed's trace


def test_prefix_cache_on_shows_hits_and_marks_shared_blocks(lab):
    report = engine_report(SHARED)
    b6 = data(report, 6)
    assert b6["prefix_hits"]["D"] == 4 and b6["shared_blocks"] == [0]
    run_and_wait_for_kv_chart(lab, SHARED)
    text = panel_text(lab, 6)
    for line in lines(report, 6):
        if line.startswith(("Trúng cache", "Block dùng chung", "Evict", "Prefix cache")):
            assert line in text
    assert "Trúng cache: D lấy 4 token (block [0]) ở bước 8." in text
    kv = lab.page.locator('[data-block="6"] [data-chart="kv-blocks"]')
    expect(kv.locator("svg.chart-svg")).to_have_count(1)
    marks = kv.locator(".shared").evaluate_all("els => els.map(e => [+e.dataset.kvBlock, e.dataset.shared])")
    assert [tuple(m) for m in marks] == shared_spans(report) and marks
    assert kv.locator(".cached").count() > 0                     # freed blocks that keep their hash
    expect(kv.locator(".chart-legend")).to_contain_text("dùng chung")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    screenshot(kv, ARTIFACTS / "vllm-kv-blocks-prefix-cache.png")
    assert "block từng được nhiều yêu cầu cùng giữ" in kv.locator("svg.chart-svg").get_attribute("aria-label")


def test_default_run_draws_no_prefix_cache_marks(lab):
    run_and_wait_for_kv_chart(lab, {})
    kv = lab.page.locator('[data-block="6"] [data-chart="kv-blocks"]')
    expect(kv.locator("svg.chart-svg")).to_have_count(1)
    assert kv.locator(".shared").count() == 0 and kv.locator(".cached").count() == 0
    assert "Prefix cache" not in panel_text(lab, 6)


def test_cancel_at_and_priority_from_the_editor_reach_the_engine(lab):
    lab.page.click('[data-action="reset"]')
    request_cell(lab, 0, "cancel_at").fill("8000")
    lab.set_value("SCHED_POLICY", "priority")
    request_cell(lab, 3, "priority").fill("0")
    for i in (0, 1, 2, 4):
        request_cell(lab, i, "priority").fill("1")
    assert lab.run(reset=False) == "done"
    text1, text3 = panel_text(lab, 1), panel_text(lab, 3)
    assert "A: client HỦY lúc 8.00 ms -> engine bỏ nó ở ranh giới bước lúc 10.20 ms" in text1   # C runs before B
    assert "offered = served + rejected + aborted" in text1
    assert "Priority ở bước" in text3 and "C (priority 0) được vào chạy trước" in text3
    query = {k: v[-1] for k, v in parse_qs(urlsplit(lab.page.url).query).items()}
    assert query["SCHED_POLICY"] == "priority" and "REQUESTS" in query


def test_share_address_round_trips_the_new_values(lab):
    lab.page.click('[data-action="reset"]')
    request_cell(lab, 0, "cancel_at").fill("8000")
    request_cell(lab, 3, "priority").fill("2")
    assert lab.run({"PREFIX_CACHE": "on", "QUEUE_LIMIT": 2}, reset=False) == "done"
    address = lab.page.url
    query = parse_qs(urlsplit(address).query)
    assert query["PREFIX_CACHE"] == ["on"] and query["QUEUE_LIMIT"] == ["2"]
    assert lab.visit("") is None                                  # the bare address: defaults back
    expect(request_cell(lab, 0, "cancel_at")).to_have_value("")
    assert lab.visit("?" + urlsplit(address).query) == "done"     # the address, applied as opening it does
    assert lab.control("PREFIX_CACHE").input_value() == "on"
    expect(request_cell(lab, 0, "cancel_at")).to_have_value("8000")
    expect(request_cell(lab, 3, "priority")).to_have_value("2")
    expect(request_cell(lab, 1, "cancel_at")).to_have_value("")
    assert "Trúng cache: D lấy 4 token" in panel_text(lab, 6)


# ── the step view (block [3]'s navigator) with the new events ──────────────
def step_to(lab, n: int, count: int, title: str) -> None:
    lab.page.evaluate("document.querySelector('[data-block=\"3\"]').open = true")
    slider = lab.page.locator("[data-step-slider]")
    slider.focus()
    slider.press("Home")
    for _ in range(n - 1):
        slider.press("ArrowRight")
    expect(slider).to_have_attribute("aria-valuetext", f"Bước {n}/{count}: {title}")


def test_step_view_narrates_a_prefix_cache_hit_and_marks_the_shared_block(lab):
    report = engine_report(SHARED)
    item = report["steps"]["items"][7]
    assert item["reused"] == [0] and item["tables"]["D"] == [0, 11]
    assert lab.run(SHARED) == "done"
    step_to(lab, 8, 13, "D lấy 4 token từ prefix cache, D bắt đầu prefill 4 token")
    view = lab.page.locator("[data-step-view]")
    for line in item["text"][1:]:
        expect(view).to_contain_text(line)
    block0 = lab.page.locator('[data-step-nav] .kv-cell[data-kv-block="0"]')
    expect(block0).to_have_class("kv-cell is-shared is-reused")
    expect(block0).to_contain_text("A×2")
    expect(block0).to_have_attribute("title", "block 0: dùng chung: A, D (prefix cache), vừa lấy lại từ prefix cache")
    expect(lab.page.locator("[data-step-nav] .step-free")).to_contain_text("lấy lại từ prefix cache 1")


DENSE_SHARED = {**SHARED, "POOL_BLOCKS": 80}  # over 64 blocks: static/tools/steps.js draws the pool on a canvas


def canvas_pixels(lab, points: dict) -> dict:
    """{name: (r, g, b)} of the step view's KV canvas at {name: (block, dx, dy)}: 64 blocks a row, 8 px a block."""
    canvas = lab.page.locator("[data-step-nav] canvas.step-kv.is-dense")
    xy = {k: ((b % 64) * 8 + dx, (b // 64) * 8 + dy) for k, (b, dx, dy) in points.items()}
    got = canvas.evaluate("(c, xy) => Object.fromEntries(Object.entries(xy).map(([k, [x, y]]) => "
                          "[k, Array.from(c.getContext('2d').getImageData(x, y, 1, 1).data).slice(0, 3)]))", xy)
    return {k: tuple(v) for k, v in got.items()}


def test_step_view_canvas_marks_shared_and_cached_blocks(lab):
    """With more than 64 blocks the step view paints a canvas; PREFIX_CACHE=on marks show there as on the cells:
    block 0 shared by A and D ("=" in the ink colour) and just taken back from the cache (dotted frame), blocks
    2-4 free but still hashed (grey dot), block 8 free without a hash, block 10 just allocated (solid frame)."""
    report = engine_report(DENSE_SHARED)
    item = report["steps"]["items"][7]
    assert item["reused"] == [0] and item["tables"]["D"] == [0, 11] and item["tables"]["A"] == [0, 1, 5, 10]
    assert item["cached_free"] == [[2, 4]] and item["alloc"] == [10, 11]
    assert lab.run(DENSE_SHARED) == "done"
    step_to(lab, 8, 13, "D lấy 4 token từ prefix cache, D bắt đầu prefill 4 token")
    expect(lab.page.locator('[data-step-nav] .kv-cell[data-kv-block="0"]')).to_have_count(0)   # no cells: a canvas
    px = canvas_pixels(lab, {
        "shared_fill": (0, 3, 3), "shared_line": (0, 3, 2), "shared_line2": (0, 3, 4), "shared_corner": (0, 0, 0),
        "shared_edge": (0, 1, 0), "a_fill": (1, 3, 3), "a_row2": (1, 3, 2), "a_corner": (1, 0, 0),
        "cached_dot": (2, 3, 3), "cached_edge": (2, 0, 0), "cached_dot4": (4, 3, 3), "free_mid": (8, 3, 3),
        "alloc_corner": (10, 0, 0), "alloc_fill": (10, 3, 3)})
    black, free, dot = (0, 0, 0), (0xdd, 0xe1, 0xe7), (0x8a, 0x94, 0xa1)
    a = px["a_fill"]                                   # A's colour (block 1: A alone, no mark)
    assert a not in (black, free) and px["a_row2"] == a and px["a_corner"] == a
    assert px["shared_fill"] == a and px["shared_line"] == px["shared_line2"] != a      # "=" across A's colour
    assert px["shared_corner"] == black and px["shared_edge"] == a                     # dotted frame
    assert px["cached_dot"] == px["cached_dot4"] == dot and px["cached_edge"] == free
    assert px["free_mid"] == free
    assert px["alloc_corner"] == black and px["alloc_fill"] == a
    canvas = lab.page.locator("[data-step-nav] canvas.step-kv.is-dense")
    expect(canvas).to_have_attribute("aria-label", re.compile(r"; dùng chung: block 0 \(A, D\); trống còn hash 3\.$"))
    keys = lab.page.locator("[data-step-nav] .step-legend canvas.kv-key.is-painted")
    assert keys.evaluate_all("els => els.map(e => e.dataset.key)") == [
        "is-free", "is-alloc", "is-freed is-free", "is-shared", "is-reused", "is-free is-cached"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    screenshot(lab.page.locator("[data-step-nav]"), ARTIFACTS / "vllm-steps-prefix-cache-canvas.png")


def test_step_view_narrates_a_cancellation(lab):
    lab.page.click('[data-action="reset"]')
    request_cell(lab, 0, "cancel_at").fill("8000")
    assert lab.run(reset=False) == "done"
    step_to(lab, 4, 8, "A bị hủy, C bắt đầu prefill 5 token, B có token đầu")
    expect(lab.page.locator("[data-step-view]")).to_contain_text(
        'HỦY: client của A hủy lúc 8.00 ms -> engine bỏ A ở ranh giới bước lúc 10.60 ms (đang chạy, đã sinh 3 token, '
        'trả block [0, 1]); trạng thái "aborted", không chạy tiếp (như finish_requests của vLLM).')
    expect(lab.page.locator('[data-step-nav] .kv-cell[data-kv-block="0"]')).to_have_class("kv-cell is-alloc is-freed")
    legend = lab.page.locator('[data-block="3"] [data-chart="timeline"] .chart-legend')
    expect(legend).to_contain_text("từ chối 429/400 hoặc bị hủy", timeout=RUN_MS)


def test_step_view_says_why_a_request_waits_for_kv_blocks(lab):
    """Issue 21: with SLOTS=3 and POOL_BLOCKS=7, C (admitted again at step 6) finds no free block for its chunk:
    the step view says it waits for KV blocks ("chờ block KV") and nobody is preempted in that step."""
    values = {"SLOTS": 3, "POOL_BLOCKS": 7}
    report = engine_report(values)
    item = report["steps"]["items"][5]
    assert [e["id"] for e in item["events"] if e["kind"] == "wait_kv"] == ["C"]
    assert not [e for e in item["events"] if e["kind"] == "preempt"]
    assert lab.run(values) == "done"
    step_to(lab, 6, report["steps"]["count"], item["title"])
    assert "chờ block KV" in item["title"]
    line = next(t for t in item["text"] if t.startswith("CHỜ BLOCK KV: C"))
    expect(lab.page.locator("[data-step-view]")).to_contain_text(line)


@pytest.mark.parametrize("width", [375, 1440])
def test_screenshots_of_the_step_view_with_a_cache_hit_and_a_cancellation(lab, width):
    shot = lab
    try:
        shot.page.set_viewport_size({"width": width, "height": 900})
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        assert shot.run(SHARED) == "done"
        step_to(shot, 8, 13, "D lấy 4 token từ prefix cache, D bắt đầu prefill 4 token")
        nav = shot.page.locator("[data-step-nav]")
        nav.scroll_into_view_if_needed()
        assert nav.bounding_box()["width"] <= width
        screenshot(nav, ARTIFACTS / f"vllm-steps-prefix-cache-{width}.png")
        kv = shot.page.locator('[data-block="6"] [data-chart="kv-blocks"]')
        shot.page.evaluate("document.querySelector('[data-block=\"6\"]').open = true")
        expect(kv.locator(".shared")).not_to_have_count(0, timeout=RUN_MS)
        expect(kv.locator(".step-mark")).to_have_attribute("data-step", "8")       # the navigator's step
        kv.scroll_into_view_if_needed()
        screenshot(kv, ARTIFACTS / f"vllm-kv-blocks-prefix-cache-{width}.png")
        shot.page.click('[data-action="reset"]')
        request_cell(shot, 0, "cancel_at").fill("8000")
        assert shot.run(reset=False) == "done"
        step_to(shot, 4, 8, "A bị hủy, C bắt đầu prefill 5 token, B có token đầu")
        nav.scroll_into_view_if_needed()
        screenshot(nav, ARTIFACTS / f"vllm-steps-cancel-{width}.png")
        timeline = shot.page.locator('[data-block="3"] [data-chart="timeline"]')
        expect(timeline.locator(".step-mark")).to_have_attribute("data-step", "4", timeout=RUN_MS)
        timeline.scroll_into_view_if_needed()
        screenshot(timeline, ARTIFACTS / f"vllm-timeline-cancel-{width}.png")
        assert shot.page_errors == [] and shot.console_errors == []
    finally:
        shot.page.set_viewport_size({"width": 1440, "height": 900})
