"""Browser tests of "compare with the previous run" (static/tools/compare.js): after a re-run every number
that changed carries data-changed="OLD" (drawn as OLD → NEW by CSS, so the panel text stays the
engine's), the checkbox data-action="toggle-changes" removes and restores the marks, and lines are
only compared when they correspond. Same harness as test_browser.py (conftest.py: the session's build, server and
Chromium). The first run of a page marks nothing: checked on each engine's first run in test_browser_engines.py
(run_default), whose pages run for the first time anyway (a page of this module's own cost a cold start).
"""
from __future__ import annotations

import re

import pytest

from lab_browser import ARTIFACTS, assert_page_shows, engine_text, expect, screenshot

pytestmark = pytest.mark.browser


def marks(lab, where="body"):
    return lab.page.locator(f"{where} [data-changed]")


def count_text(lab):
    return lab.page.locator("[data-changes-count]")


def test_changing_queue_limit_marks_block_1_counts_with_their_old_values(lab):
    assert lab.run() == "done"
    assert lab.run({"QUEUE_LIMIT": 2}) == "done"
    block1 = '[data-block="1"]'
    # "hệ thống chứa tối đa 3 -> 4 yêu cầu", "từ chối 429 ở cổng=1 -> 0", "được phục vụ=3 -> 4",
    # "5 = 3 + 2 -> 5 = 4 + 1"
    pairs = marks(lab, block1).evaluate_all("els => els.map(e => [e.dataset.changed, e.textContent])")
    for old_new in (["3", "4"], ["1", "0"], ["2", "1"]):
        assert old_new in pairs, pairs
    assert ["1", "2"] in pairs  # "giới hạn 2+1" -> "2+2" on the admission lines
    # the old value is visible (CSS generated content), the line's own text is the new run's exactly
    first = marks(lab, block1).first
    before = first.evaluate("e => getComputedStyle(e, '::before').content")
    assert first.get_attribute("data-changed") in before
    assert_page_shows(lab, engine_text({"QUEUE_LIMIT": 2}))
    n = int(count_text(lab).get_attribute("data-changes-count"))
    assert n == marks(lab).count() > 0
    expect(count_text(lab)).to_contain_text(f"{n} số đã đổi")
    expect(count_text(lab)).to_contain_text("khối 1")
    badge = lab.page.locator(f"{block1} > summary").get_attribute("data-changes-badge")
    assert badge == f"{marks(lab, block1).count()} số đổi"


def test_toggle_hides_and_restores_the_marks(lab):
    assert lab.run() == "done"
    assert lab.run({"QUEUE_LIMIT": 2}) == "done"
    shown = marks(lab).count()
    assert shown > 0
    toggle = lab.page.locator('[data-action="toggle-changes"]')
    toggle.uncheck()
    expect(marks(lab)).to_have_count(0)
    expect(lab.page.locator("[data-changes-badge]")).to_have_count(0)
    expect(count_text(lab)).to_contain_text("đang ẩn")
    assert_page_shows(lab, engine_text({"QUEUE_LIMIT": 2}))
    toggle.check()
    expect(marks(lab)).to_have_count(shown)
    assert_page_shows(lab, engine_text({"QUEUE_LIMIT": 2}))


def test_the_same_run_again_changes_nothing(lab):
    assert lab.run({"QUEUE_LIMIT": 2}) == "done"
    assert lab.run({"QUEUE_LIMIT": 2}) == "done"
    expect(marks(lab)).to_have_count(0)
    expect(count_text(lab)).to_have_text("Không có số nào đổi so với lần chạy trước.")
    assert count_text(lab).get_attribute("data-changes-count") == "0"


def test_lines_that_only_one_run_has_are_never_marked(lab):
    """QUEUE_LIMIT 1 -> 2 adds steps 13-16 to block 3: they are new, not 'changed' from some other line."""
    assert lab.run() == "done"
    old_lines = lab.panel_lines(3)
    assert lab.run({"QUEUE_LIMIT": 2}) == "done"
    lines = lab.page.locator('[data-block="3"] pre .line')
    assert lines.count() > len(old_lines) - 1
    old_steps = {int(m.group(1)) for line in old_lines if (m := re.match(r"\s*bước\s+(\d+):", line))}
    marked_steps = set()
    for i in range(lines.count()):
        line = lines.nth(i)
        step = re.match(r"\s*bước\s+(\d+):", line.text_content())
        if step and line.locator("[data-changed]").count():
            marked_steps.add(int(step.group(1)))
    assert marked_steps, "steps whose times moved are marked"
    assert marked_steps <= old_steps, f"steps {sorted(marked_steps - old_steps)} did not exist before"
    # step 11 of both runs: 24.20 ms -> 25.30 ms became 24.20 ms -> 27.80 ms
    step11 = lab.page.locator('[data-block="3"] pre .line', has_text=re.compile(r"^\s*bước 11:"))
    changed = step11.locator("[data-changed]").evaluate_all("els => els.map(e => [e.dataset.changed, e.textContent])")
    assert changed[0] == ["25.30", "27.80"]


def test_marks_are_inserted_as_text_not_markup(lab):
    assert lab.run() == "done"
    assert lab.run({"SLOTS": 3}) == "done"
    for html in marks(lab).evaluate_all("els => els.map(e => e.innerHTML)"):
        assert re.fullmatch(r'<span class="changed-new">-?[\d.eE+-]+</span>', html), html


def test_screenshots_of_the_marks_at_phone_and_desktop_width(lab):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert lab.run() == "done"
    assert lab.run({"QUEUE_LIMIT": 2}) == "done"
    for width in (1440, 375):
        lab.page.set_viewport_size({"width": width, "height": 900})
        screenshot(lab.page.locator("#run-tools"), ARTIFACTS / f"compare-{width}-tools.png")
        screenshot(lab.page.locator('[data-block="1"]'), ARTIFACTS / f"compare-{width}-block1.png")
        screenshot(lab.page.locator('[data-block="3"]'), ARTIFACTS / f"compare-{width}-block3.png")
        overflow = lab.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"the page scrolls sideways at {width} px"
    lab.page.set_viewport_size({"width": 1440, "height": 900})


def test_no_page_errors(lab):
    assert lab.page_errors == []
    assert lab.foreign == []
