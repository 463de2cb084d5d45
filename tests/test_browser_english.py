"""The English page (issue 14) in Chromium: `?lang=en` gives the whole lab in English, the switch keeps the
constants and words the last run again without running the engine, and the choice is remembered.

- no Vietnamese letter in the visible text, the controls, the error messages or the charts (SVG text,
  titles, text alternatives) of the English page after a run; the panels show the English engine output
- invalid input: the field error and the address note are English, from the engine's `message_en` too
- switching: Vietnamese page with SLOTS=3 run → "English" → the same constants, the English words of the
  same run (the worker is asked to `render`, never to `run`), → "Tiếng Việt" → the Vietnamese bytes again
- the choice is remembered (localStorage) and kept in the address (lang=en)
"""
from __future__ import annotations

import json
import re

import pytest

from lab_browser import RUN_MS, Lab, assert_page_shows, expect

from inference_lab.entrypoints import web
from inference_lab.entrypoints.report import Report

VIETNAMESE = re.compile(r"[\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u1E00-\u1EFF]")

# Every message the page posts to the worker, by type (an init script runs before the page's own).
SPY = """
(() => {
  window.__sent = [];
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (msg, ...rest) {
    if (msg && msg.type) window.__sent.push(msg.type);
    return post.call(this, msg, ...rest);
  };
})();
"""

# The text a reader sees or hears: visible text, form controls' values and labels, SVG text and titles,
# aria-label / title / alt attributes, CSS-generated ::before/::after text; the engine's Python source in the
# code views (issue 11: code, shown as written) and the language switch (lang="vi": the other language's own name) left out.
VISIBLE_TEXT = """
() => {
  // the other language's own name (the switch), and the engine's source code shown as written (code views)
  const skip = (el) => el.closest('[lang="vi"]:not(html), .code-block, .cm-content');
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || skip(el) || el.closest('script, style, noscript')) continue;
    const visible = el.closest('svg') ? true : el.checkVisibility({ checkVisibilityCSS: true });
    if (visible && n.textContent.trim()) out.push(n.textContent.trim());
  }
  for (const el of document.querySelectorAll('[aria-label], [title], [alt], [placeholder], [data-label]')) {
    if (skip(el) || !el.checkVisibility()) continue;
    for (const a of ['aria-label', 'title', 'alt', 'placeholder', 'data-label']) if (el.getAttribute(a)) out.push(el.getAttribute(a));
  }
  for (const el of document.querySelectorAll('option')) out.push(el.textContent);
  for (const el of document.body.querySelectorAll('*')) {   // CSS-generated text (::before / ::after)
    if (skip(el) || !el.checkVisibility()) continue;
    for (const pseudo of ['::before', '::after']) {
      const content = getComputedStyle(el, pseudo).content;
      if (content && content !== 'none' && content !== 'normal') out.push(content);
    }
  }
  out.push(document.title);
  return out;
}
"""


def english_text(config: dict) -> str:
    result = json.loads(web.run(json.dumps(config), lang="en"))
    assert result["ok"], result
    return Report.from_dict(result["report"]).to_text()


def vietnamese_left(page) -> list[str]:
    return [t for t in page.evaluate(VISIBLE_TEXT) if VIETNAMESE.search(t)]


def open_all(page):
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")


@pytest.fixture
def new_lab(chromium, server):
    labs = []

    def make(path="", spy=False):
        lab = Lab(chromium, server.origin)
        if spy:
            lab.context.add_init_script(SPY)
        labs.append(lab)
        return lab.open(server.url + path) if path is not None else lab
    yield make
    for lab in labs:
        lab.close()


def assert_page_shows_en(lab, text):
    expected = text.split("\n")
    shown = [lab.page.locator('#run-header pre').inner_text()]
    shown += [lab.page.locator(f'[data-block="{n}"] > summary').inner_text() + "\n"
              + lab.page.locator(f'[data-block="{n}"] > pre').inner_text() for n in range(1, 14)]
    shown.append(lab.page.locator('[data-block="summary"] pre').inner_text())
    joined = "\n".join(shown)
    for line in (x for x in expected if x.strip()):
        assert line.strip() in joined, f"the page lacks the English line: {line}"


def test_english_page_after_a_run_has_no_vietnamese(new_lab):
    lab = new_lab("?lang=en")
    page = lab.page
    assert page.evaluate("document.documentElement.lang") == "en"
    assert page.title().startswith("End-to-end lab")
    assert lab.run() == "done"
    open_all(page)
    expect(page.locator('#hinh-khoi-3 svg').first).to_be_visible(timeout=RUN_MS)
    page.locator('#hinh-khoi-3').scroll_into_view_if_needed()
    for n in (2, 5, 6, 8, 9, 10, 11, 12, 13):
        page.locator(f'[data-block="{n}"]').scroll_into_view_if_needed()
    page.wait_for_timeout(500)  # charts draw when they come into view
    left = vietnamese_left(page)
    assert not left, f"Vietnamese on the English page: {left[:10]}"
    assert_page_shows_en(lab, english_text({}))
    assert page.locator('label[for]').first.inner_text() != ""
    labels = page.locator('#fields-headline label').all_inner_texts()
    assert any("Running slots (SLOTS)" in t for t in labels), labels
    charts = page.evaluate("Array.from(document.querySelectorAll('svg title, svg desc, svg text, figcaption, .chart-title'), (e) => e.textContent)")
    assert charts and not [c for c in charts if VIETNAMESE.search(c)]
    assert not lab.page_errors and not lab.console_errors


def test_phone_width_is_english_too(new_lab, server):
    """At 375 px the mapping table becomes cards whose labels are CSS-generated text; the step viewer too."""
    lab = new_lab(None)
    lab.page.set_viewport_size({"width": 375, "height": 800})
    lab.open(server.url + "?lang=en")
    assert lab.run() == "done"
    open_all(lab.page)
    left = vietnamese_left(lab.page)
    assert not left, f"Vietnamese on the English page at 375 px: {left[:10]}"


def test_errors_are_english(new_lab):
    lab = new_lab("?lang=en")
    lab.set_value("SLOTS", "0")
    lab.page.click('[data-action="run"]')
    error = lab.page.locator('[data-error-for="SLOTS"]')
    expect(error).to_be_visible()
    assert "smallest value is 1" in error.inner_text()
    assert not VIETNAMESE.search(lab.page.locator('#action-note').inner_text())
    bad = new_lab("?lang=en&SLOTS=abc&NOPE=1")
    note = bad.page.locator('#address-note')
    expect(note).to_be_visible()
    assert "invalid" in note.inner_text() and not VIETNAMESE.search(note.inner_text())
    assert not VIETNAMESE.search(bad.page.locator('[data-error-for="SLOTS"]').inner_text())


def test_switching_language_keeps_the_constants_and_rewords_the_last_run(new_lab, server):
    lab = new_lab("", spy=True)
    page = lab.page
    assert page.evaluate("document.documentElement.lang") == "vi"
    assert lab.run({"SLOTS": 3}) == "done"
    assert_page_shows(lab, _vi_text({"SLOTS": 3}))
    page.click('#lang-switch')
    page.wait_for_url(re.compile(r"lang=en"))
    expect(page.locator('[data-status]')).to_have_attribute("data-status", "done", timeout=RUN_MS * 3)
    assert page.evaluate("document.documentElement.lang") == "en"
    assert "SLOTS=3" in page.url and "lang=en" in page.url
    assert lab.control("SLOTS").input_value() == "3"
    assert "render" in page.evaluate("window.__sent") and "run" not in page.evaluate("window.__sent")
    assert_page_shows_en(lab, english_text({"SLOTS": 3}))
    # remembered: the bare address opens in English and gets lang=en (so a copied address keeps it)
    page.goto(server.url)
    expect(page.locator('[data-status]')).to_have_attribute("data-status", "ready", timeout=RUN_MS * 3)
    assert page.evaluate("document.documentElement.lang") == "en" and "lang=en" in page.url
    # and back: the Vietnamese bytes of the run
    assert lab.run({"SLOTS": 3}) == "done"
    page.click('#lang-switch')
    page.wait_for_url(re.compile(r"lang=vi"))
    expect(page.locator('[data-status]')).to_have_attribute("data-status", "done", timeout=RUN_MS * 3)
    assert page.evaluate("document.documentElement.lang") == "vi"
    assert_page_shows(lab, _vi_text({"SLOTS": 3}))


def _vi_text(config):
    from lab_browser import engine_text
    return engine_text(config)


def test_code_editor_and_its_lessons_are_english(new_lab):
    """Issue 11's code views on the English page: the fold, the editor's help and buttons, and a lesson about a
    mistake in the edited code are English (the engine's source itself is shown as written)."""
    lab = new_lab("?lang=en")
    page = lab.page
    assert lab.run() == "done"
    page.locator('[data-block="3"] > summary').click() if page.locator('[data-block="3"]').get_attribute("open") is None else None
    fold = page.locator('[data-code-for="3"]')
    assert not VIETNAMESE.search(fold.locator(":scope > summary").inner_text())
    fold.locator(":scope > summary").click()
    page.locator('[data-code-ref="scheduler.plan_tasks"] [data-action="edit-code"]').click()
    editor = page.locator('[data-code-editor="scheduler.plan_tasks"]')
    expect(editor.locator('[data-editor="codemirror"]')).to_have_count(1, timeout=20000)
    editor.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text("def plan_tasks(running, budget_cap):\n    return 5\n")
    editor.locator('[data-action="run-code"]').click()
    error = editor.locator('[data-error-for^="patch:"]').first
    expect(error).to_be_visible(timeout=RUN_MS)
    assert "returned a wrong value" in error.inner_text(), error.inner_text()
    texts = editor.evaluate("""(el) => Array.from(el.querySelectorAll('button, p, [data-error-for], label'),
                                                  (e) => e.innerText).concat([el.getAttribute('aria-label') || ''])""")
    left = [t for t in texts if VIETNAMESE.search(t)]
    assert not left, left
    assert not VIETNAMESE.search(page.locator('#status').inner_text())
