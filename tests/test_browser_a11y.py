"""Accessibility: axe-core (tests/lab_axe.py: pinned, fetched at test time, never committed) finds no
violation of WCAG 2.0/2.1 A and AA or of its best practices on the page:
  - at 1440 px, after a run (Chạy), with the step view, a code view, the code editor (CodeMirror) and the
    request editor open;
  - at 375 px, that page with every other fold opened too (13 panels and their charts, the code views, the
    exercises' answers, the guide): the narrow page is where regions start to scroll and text wraps over
    other things, and what the folds hold (colours, labels, roles) is the same at both widths. (Every fold
    at 1440 px too cost ~10-20 s more of axe's colour-contrast rule, on ~10,000 elements.)
  - in the English edition (?lang=en), every fold open at 375 px, in a page without Python (the worker script
    is refused, so it costs no second Pyodide boot; the run's output is checked in Vietnamese above).
No rule is switched off. One Pyodide boot for the whole module (conftest's module-scoped `lab`).
"""
from __future__ import annotations

import os

import pytest

import lab_axe
from chart_helpers import CHARTS_DRAWN
from lab_browser import RUN_MS, Lab, expect, open_editor

pytestmark = pytest.mark.browser

# Marks the block panels' charts on screen as stale; a chart redrawn for the new width comes without the mark.
MARK_VISIBLE_CHARTS = """() => document.querySelectorAll('[data-block] [data-chart]').forEach((el) => {
    if (el.checkVisibility()) el.dataset.stale = '1'; })"""
OPEN_EVERY_FOLD = "() => document.querySelectorAll('details').forEach((d) => { d.open = true; })"


@pytest.fixture(scope="module")
def axe(chromium):
    """axe.min.js's text; skips without it (fails under LAB_REQUIRE_BROWSER=1, as CI sets)."""
    try:
        return lab_axe.axe_source()
    except lab_axe.AxeUnavailable as why:
        if os.environ.get("LAB_REQUIRE_BROWSER") == "1":
            pytest.fail(f"LAB_REQUIRE_BROWSER=1 but axe-core {lab_axe.AXE_VERSION} cannot be had: {why}", pytrace=False)
        pytest.skip(str(why))


def at_width(lab: Lab, width: int) -> None:
    """The viewport at `width` px, once the charts on screen have been drawn again for it."""
    if lab.page.viewport_size["width"] != width:    # (the same width draws nothing again)
        lab.page.evaluate(MARK_VISIBLE_CHARTS)
        lab.page.set_viewport_size({"width": width, "height": 900})
    lab.page.wait_for_function(CHARTS_DRAWN, timeout=RUN_MS)


def assert_no_violations(page, source: str, where: str) -> None:
    version = lab_axe.inject(page, source)
    assert version == lab_axe.AXE_VERSION
    violations = lab_axe.run_axe(page, source)
    assert violations == [], f"axe-core {version}, {where}:\n{lab_axe.describe(violations)}"


@pytest.fixture(scope="module")
def views_open(lab):
    """After a run: block 3 open with its step view, its code view and the plan_tasks editor, the request editor."""
    assert lab.run() == "done"
    open_editor(lab, "scheduler.plan_tasks", 3)          # opens block 3, its code view, then the editor
    expect(lab.page.locator("[data-step-view]")).to_be_visible()
    expect(lab.page.locator('[data-code-for="3"]')).to_have_attribute("open", "")
    editor = lab.page.locator("#requests-editor")
    if editor.get_attribute("open") is None:
        editor.locator("> summary").click()
    lab.page.wait_for_function(CHARTS_DRAWN, timeout=RUN_MS)
    return lab


@pytest.fixture(scope="module")
def everything_open(views_open):
    """views_open, then every other fold opened too (the exercises' answers drawn); the views stay open."""
    lab = views_open
    lab.page.evaluate(OPEN_EVERY_FOLD)
    expect(lab.page.locator("article[data-exercise]").first).to_be_visible()
    lab.page.wait_for_function(CHARTS_DRAWN, timeout=RUN_MS)
    expect(lab.page.locator("[data-step-view]")).to_be_visible()
    expect(lab.page.locator('[data-code-editor="scheduler.plan_tasks"] [data-editor="codemirror"]')).to_be_visible()
    expect(lab.page.locator("#requests-editor")).to_have_attribute("open", "")
    return lab


def test_no_violations_after_a_run_with_the_views_and_editors_open_at_1440(views_open, axe):
    at_width(views_open, 1440)
    assert_no_violations(views_open.page, axe, "after a run, step view, code view and editors open, 1440 px")


def test_no_violations_with_every_fold_open_at_375(everything_open, axe):
    lab = everything_open
    try:
        at_width(lab, 375)
        assert_no_violations(lab.page, axe, "after a run, step view, code view, editors and every fold open, 375 px")
    finally:
        lab.page.set_viewport_size({"width": 1440, "height": 900})


def test_english_edition_has_no_violations(chromium, server, axe):
    page_lab = Lab(chromium, server.origin)
    try:
        page_lab.context.route("**/static/worker/worker.js*", lambda route: route.abort())   # no second Pyodide boot
        page_lab.page.goto(server.url + "?lang=en")
        expect(page_lab.page.locator("html")).to_have_attribute("lang", "en")
        # the exercises load when their section comes near the screen (this page never gets ready: no worker)
        page_lab.page.locator("#bai-tap").scroll_into_view_if_needed()
        expect(page_lab.page.locator("article[data-exercise]").first).to_be_visible(timeout=RUN_MS)
        page_lab.page.evaluate(OPEN_EVERY_FOLD)
        page_lab.page.set_viewport_size({"width": 375, "height": 900})
        assert_no_violations(page_lab.page, axe, "English edition, every fold open, 375 px")
    finally:
        page_lab.close()


def test_no_page_errors_and_nothing_left_the_server(views_open):
    assert views_open.page_errors == []
    assert views_open.foreign == []
