"""Browser tests of the step navigator (static/tools/steps.js) in block [3]'s panel: the WAI-ARIA slider
(data-step-slider) and its keys, the Lùi/Tiếp buttons, Phát stopping at the last step, clicks on the
timeline (block [3]) and KV chart (block [6]), the view (data-step-view) with its state and reasons,
?step=N in the address (also with an edit in PATCH=: the step of the edited run), the links from blocks
[6] and [11], and that scrubbing never asks Python.
Runs: the default run, a preemption run (SLOTS=3, POOL_BLOCKS=8) and a refused followed request
(FOLLOW=D, refused 429 at step 2). Step numbers and sentences: tests/test_steps.py checks them
against the engine by hand. Site, server and Chromium: the session's (conftest.py).
"""
from __future__ import annotations

import base64
import json
import re

import pytest

from edits import PREFILL_FIRST
from lab_browser import ARTIFACTS, RUN_MS, editor_text, expect, screenshot

pytestmark = pytest.mark.browser

def slider(lab):
    return lab.page.locator("[data-step-slider]")


def view(lab):
    return lab.page.locator("[data-step-view]")


def open_block(lab, n):
    lab.page.evaluate(f"document.querySelector('[data-block=\"{n}\"]').open = true")


def at_step(lab, n, count, title=None):
    s = slider(lab)
    expect(s).to_have_attribute("aria-valuenow", str(n))
    expect(s).to_have_attribute("aria-valuemax", str(count))
    if title is not None:
        expect(s).to_have_attribute("aria-valuetext", f"Bước {n}/{count}: {title}")
    expect(view(lab)).to_contain_text(f"Bước {n}/{count} ")


def test_default_run_slider_spans_every_step(lab):
    assert lab.run() == "done"
    open_block(lab, 3)
    s = slider(lab)
    expect(s).to_have_attribute("role", "slider")
    expect(s).to_have_attribute("aria-valuemin", "1")
    at_step(lab, 1, 12, "A bắt đầu prefill 6 token, A có token đầu, E bị từ chối 400")
    expect(view(lab)).to_contain_text("Chờ vì còn chuẩn bị đầu vào: B (sẵn sàng lúc 0.75 ms).")
    expect(lab.page.locator("[data-step-nav] .kv-cell[data-kv-block]")).to_have_count(12)


def test_keys_move_the_slider(lab):
    s = slider(lab)
    s.focus()
    s.press("Home")
    at_step(lab, 1, 12)
    for _ in range(4):
        s.press("ArrowRight")
    at_step(lab, 5, 12, "A decode, B decode")
    # steps 5-7: C waits for a slot while the budget has 4 tokens left
    expect(view(lab)).to_contain_text("dùng 2/6 token, còn 4")
    no_slot = lab.page.locator('[data-step-view] .step-wait[data-request="C"][data-why="no_slot"]')
    expect(no_slot).to_contain_text("hết chỗ chạy")
    s.press("PageDown")                        # the next step with an event: B finishes at step 7
    at_step(lab, 7, 12, "B xong")
    s.press("PageDown")
    at_step(lab, 8, 12, "C bắt đầu prefill 5 token")
    expect(view(lab)).to_contain_text("C còn 9 token prompt nhưng chỉ được 5: hết ngân sách 6 token của bước")
    expect(lab.page.locator('[data-step-view] .budget-seg[data-phase="prefill"]')).to_have_text("C 5")
    s.press("PageUp")
    at_step(lab, 7, 12)
    s.press("ArrowLeft")
    s.press("ArrowDown")
    at_step(lab, 5, 12)
    s.press("End")
    at_step(lab, 12, 12, "C xong")
    s.press("ArrowRight")                      # stays at the last step
    at_step(lab, 12, 12)
    expect(lab.page.locator("[data-step-nav] .kv-cell.is-free[data-kv-block]")).to_have_count(12)


def test_buttons_move_it_and_the_address_carries_the_step(lab):
    back = lab.page.locator('[data-step-action="back"]')
    nxt = lab.page.locator('[data-step-action="next"]')
    expect(nxt).to_be_disabled()               # at step 12
    back.click()
    back.click()
    at_step(lab, 10, 12, "A xong")
    expect(view(lab)).to_contain_text("A xong (đủ max_new, 10 token), trả block [0, 1, 5, 2], nhường chỗ chạy.")
    nxt.click()
    at_step(lab, 11, 12)
    expect(lab.page).to_have_url(re.compile(r"[?&]step=11(&|$)"))   # written once scrubbing pauses


def test_play_stops_by_itself_at_the_end(lab):
    slider(lab).focus()
    slider(lab).press("End")
    for _ in range(3):
        slider(lab).press("ArrowLeft")
    at_step(lab, 9, 12)
    play = lab.page.locator('[data-step-action="play"]')
    lab.page.emulate_media(reduced_motion="no-preference")   # the pace of a visitor without the setting
    try:
        play.click()
        expect(play).to_have_attribute("aria-pressed", "true")
        expect(slider(lab)).to_have_attribute("aria-valuenow", "12", timeout=RUN_MS)
        expect(play).to_have_attribute("aria-pressed", "false")
        expect(play).to_have_text("Phát")
    finally:
        lab.page.emulate_media(reduced_motion="reduce")


def click_step_column(lab, chart, n):
    col = lab.page.locator(f'[data-chart="{chart}"] .step-col[data-step="{n}"]').first
    col.scroll_into_view_if_needed()
    box = col.bounding_box()
    lab.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] - 4)


def test_clicking_a_step_on_the_charts_selects_it(lab):
    click_step_column(lab, "timeline", 3)
    at_step(lab, 3, 12, "A decode, B prefill 5 token")
    mark = lab.page.locator('[data-chart="timeline"] .step-mark')
    expect(mark).to_have_attribute("data-step", "3")
    expect(mark).to_be_visible()
    col = lab.page.locator('[data-chart="timeline"] .step-col[data-step="3"]').bounding_box()
    box = mark.bounding_box()
    assert abs(box["x"] - col["x"]) < 2 and abs(box["width"] - col["width"]) < 2
    open_block(lab, 6)
    click_step_column(lab, "kv-blocks", 9)
    at_step(lab, 9, 12, "C có token đầu")
    expect(lab.page.locator('[data-chart="kv-blocks"] .step-mark')).to_have_attribute("data-step", "9")
    expect(mark).to_have_attribute("data-step", "9")


def test_a_step_change_moves_nothing_below_the_navigator(lab):
    """The navigator keeps its tallest height (class is-held, contain: strict: static/tools/steps.js holdHeight), so
    a step change never moves the panels below it (on a big run they would all be laid out and painted again),
    and the thumb follows the step on its rail (a transform)."""
    open_block(lab, 3)
    s = slider(lab)
    s.focus()
    s.press("Home")
    frame = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    lab.page.evaluate(frame)
    for n in range(2, 13):                     # every step once, each drawn (a frame): the tallest is held
        s.press("ArrowRight")
        at_step(lab, n, 12)
        lab.page.evaluate(frame)
    nav = lab.page.locator("[data-step-nav]")
    expect(nav).to_have_class(re.compile(r"\bis-held\b"))
    below = "() => [document.querySelector('[data-block=\"4\"]').getBoundingClientRect().top + scrollY," \
        " document.querySelector('[data-step-nav]').offsetHeight]"
    where = lab.page.evaluate(below)
    thumb = "() => { const t = document.querySelector('.step-thumb').getBoundingClientRect();" \
        " const r = document.querySelector('.step-track').getBoundingClientRect();" \
        " return (t.left + t.width / 2 - r.left) / r.width; }"
    lab.page.emulate_media(reduced_motion="reduce")   # no transition: the thumb is at its step at once
    try:
        s.press("Home")
        for n in range(1, 13):
            at_step(lab, n, 12)
            assert lab.page.evaluate(below) == where
            assert abs(lab.page.evaluate(thumb) - (n - 1) / 11) < 0.02
            s.press("ArrowRight")
    finally:
        lab.page.emulate_media(reduced_motion="no-preference")


def test_blocks_6_and_11_lead_to_the_navigator(lab):
    open_block(lab, 11)
    lab.page.evaluate("document.querySelector('[data-block=\"3\"]').open = false")
    lab.page.locator('[data-block="11"] [data-step-jump]').click()
    expect(lab.page.locator('[data-block="3"]')).to_have_attribute("open", "")
    expect(slider(lab)).to_be_focused()
    expect(lab.page.locator('[data-block="6"] [data-step-jump]')).to_have_attribute("href", "#step-nav")


def test_scrubbing_never_asks_python(lab):
    posts = lab.count_sent()
    s = slider(lab)
    s.focus()
    for key in ["Home", "End", "PageUp", "PageUp", "ArrowLeft", "Home"] + ["ArrowRight"] * 11:
        s.press(key)
    at_step(lab, 12, 12)
    assert lab.count_sent() == posts
    lab.wait_status("done")


def test_preemption_run_shows_victim_blocks_and_recompute(lab):
    assert lab.run({"SLOTS": 3, "POOL_BLOCKS": 8}) == "done"
    open_block(lab, 3)
    s = slider(lab)
    s.focus()
    s.press("Home")
    for _ in range(5):
        s.press("ArrowRight")
    at_step(lab, 6, 15, "preempt C")
    expect(view(lab)).to_contain_text(
        "PREEMPT: B cần 1 block KV mới nhưng bể chỉ còn 0/8 block trống -> preempt C (chuỗi vào chạy gần nhất): "
        "trả block [6, 7], quay lại đầu hàng đợi; khi chạy lại phải prefill lại 9 token (prompt + 0 token đã sinh).")
    cell6 = lab.page.locator('[data-step-nav] .kv-cell[data-kv-block="6"]')
    cell7 = lab.page.locator('[data-step-nav] .kv-cell[data-kv-block="7"]')
    expect(cell6).to_have_class("kv-cell is-alloc is-freed")  # C gave it back, B took it
    expect(cell6).to_contain_text("B")
    expect(cell7).to_have_class("kv-cell is-free is-freed")
    expect(view(lab)).to_contain_text("dùng 2/6 token, còn 4")   # C's planned chunk did not run
    s.press("ArrowRight")
    at_step(lab, 7, 15, "C bắt đầu prefill lại 4 token, B xong")
    expect(lab.page.locator('[data-step-view] .step-slot[data-request="C"]')).to_contain_text("prefill · prompt 0/9 "
                                                                                              "(tính lại)")


def test_refused_followed_request_run(lab):
    assert lab.run({"FOLLOW": "D"}) == "done"
    open_block(lab, 3)
    s = slider(lab)
    s.focus()
    s.press("Home")
    s.press("PageDown")
    at_step(lab, 2, 12, "B bắt đầu prefill 5 token, D bị từ chối 429")
    expect(view(lab)).to_contain_text("Cổng: D (đến 1.50 ms) bị TỪ CHỐI 429 vì hàng đợi đầy - đang có 3 yêu cầu "
                                      "trong hệ thống, "
                                      "đã chạm giới hạn 2+1 (SLOTS + QUEUE_LIMIT).")
    screenshot(lab.page.locator("[data-step-nav]"), ARTIFACTS / "steps-refused-1440.png")


def test_address_step_opens_that_step(lab):
    assert lab.visit("?SLOTS=3&POOL_BLOCKS=8&step=6") == "done"
    at_step(lab, 6, 15, "preempt C")
    assert "step=6" in lab.page.url and "SLOTS=3" in lab.page.url
    assert lab.page.locator("#address-note").is_hidden()


def step_item(patches: dict | None, n: int) -> dict:
    """Step n (1-based) of the default run's step record, with these {module.function: source} edits (CPython)."""
    from inference_lab.entrypoints import patch
    from inference_lab.entrypoints.lab import run
    report = patch.run(patch.units_of(patches), run, None)[0] if patches else run()
    return report.steps["items"][n - 1]


def test_address_with_an_edit_and_a_step_opens_that_step_of_the_edited_run(lab):
    """?PATCH=…&step=3 (a shared link of a run with edited code): after the visitor's click on "Chạy mã từ liên
    kết" (someone else's code never runs unasked), the page runs the edit and the step view opens at step 3 of
    THAT run (B gets its first token at 9.90 ms, where the unedited run is still prefilling B); the code view
    of block [3] shows the edited plan_tasks."""
    edited, plain = step_item({"scheduler.plan_tasks": PREFILL_FIRST}, 3), step_item(None, 3)
    assert edited["text"][0] == "Bước 3/12 (6.30 ms -> 9.90 ms): B có token đầu"          # by hand: exercise 15
    assert plain["text"][0] == "Bước 3/12 (7.00 ms -> 10.60 ms): A decode, B prefill 5 token"
    patched = json.dumps({"scheduler.plan_tasks": PREFILL_FIRST}).encode()
    address = base64.urlsafe_b64encode(patched).decode().rstrip("=")
    page_lab = lab
    assert lab.visit(f"?PATCH={address}&step=3") is None       # held: nothing runs until the click
    run_link = page_lab.page.locator('[data-action="run-link-code"]')
    expect(run_link).to_be_enabled()
    run_link.click()
    page_lab.wait_status("done", RUN_MS)
    at_step(page_lab, 3, 12, edited["title"])
    expect(view(page_lab)).to_contain_text(edited["text"][0])
    expect(view(page_lab)).to_contain_text("B prefill 5 token (prompt 11/11, xong prompt).")
    # the budget is said in the edited order, not as "decodes first"
    expect(view(page_lab)).to_contain_text("Ngân sách token của bước (theo thứ tự mà plan_tasks đã sửa trả về)")
    segments = view(page_lab).locator(".budget-seg[data-phase]").all()
    assert [s.get_attribute("data-phase") for s in segments] == ["prefill", "decode"]
    expect(view(page_lab)).not_to_contain_text(plain["text"][0])
    assert "   bước  3: 6.30 ms -> 9.90 ms | chờ=1 chạy=2 | B:p:5 A:d:1" in page_lab.panel_lines(3)
    expect(page_lab.page.locator("[data-block] > summary [data-edited-code]")).to_have_count(13)
    editor = page_lab.page.locator('[data-code-editor="scheduler.plan_tasks"]')
    expect(editor.locator('[data-editor="codemirror"]')).to_have_count(1, timeout=RUN_MS)
    assert editor_text(editor) == PREFILL_FIRST
    assert "step=3" in page_lab.page.url and "PATCH=" in page_lab.page.url
    assert page_lab.page.locator("#address-note").is_hidden()
    assert page_lab.page_errors == []
    # the bare address again: the engine's own code in the editor, the link's notice gone, nothing stored
    assert lab.visit("") is None
    assert editor_text(editor).startswith("def plan_tasks") and editor_text(editor) != PREFILL_FIRST
    expect(page_lab.page.locator("[data-link-code]")).to_have_count(0)
    assert page_lab.page.evaluate("localStorage.getItem('inference-lab:patches')") is None


@pytest.mark.parametrize("width", [375, 1440])
def test_screenshots(lab, width):
    # as a first visit of ?step=8 shows it: no code view open (at 375 px an open CodeMirror editor in
    # block [3] keeps the navigator from ever being still, so Playwright cannot take its picture)
    lab.page.evaluate("document.querySelectorAll('details.code-view[open]').forEach((d) => { d.open = false; })")
    lab.page.set_viewport_size({"width": width, "height": 900})
    try:
        assert lab.visit("?step=8") == "done"
        at_step(lab, 8, 12, "C bắt đầu prefill 5 token")
        nav = lab.page.locator("[data-step-nav]")
        nav.scroll_into_view_if_needed()
        assert nav.bounding_box()["width"] <= width
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        screenshot(nav, ARTIFACTS / f"steps-{width}.png")
        assert lab.page_errors == [] and lab.console_errors == []
    finally:
        lab.page.set_viewport_size({"width": 1440, "height": 900})
