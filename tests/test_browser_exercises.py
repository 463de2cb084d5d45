"""Browser tests of the "Bài tập" section (static/tools/exercises.js): the exercises from dist/exercises.json,
the run button that sets an exercise's constants and runs, the answer toggle, and predictions kept in
localStorage across a reload. Site, server and Chromium: the session's (conftest.py).
"""
from __future__ import annotations

import json

import pytest

from lab_browser import ARTIFACTS, RUN_MS, Lab, csp_errors, expect, screenshot
from lab_site import ROOT

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def exercises(site):
    return json.loads((site / "exercises.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def lab(page_lab):
    lab = page_lab.fresh()
    lab.bad_responses = []
    note = lambda r: r.status >= 400 and lab.bad_responses.append(f"{r.status} {r.url}")  # noqa: E731
    lab.page.on("response", note)
    yield lab
    lab.page.remove_listener("response", note)


def card(lab: Lab, number: int):
    return lab.page.locator(f'#bai-tap article.exercise[data-exercise="{number}"]')


def output_text(lab: Lab) -> str:
    return lab.page.locator("#mapping").inner_text() + "\n" + lab.page.locator("#summary").inner_text()


def test_the_section_lists_every_exercise(lab, exercises):
    files = sorted((ROOT / "exercises").glob("[0-9][0-9]-*.md"))
    assert len(exercises) == len(files) >= 6
    cards = lab.page.locator("#bai-tap article.exercise")
    expect(cards).to_have_count(len(files))
    for ex in exercises:
        item = card(lab, ex["number"])
        expect(item.locator("h3")).to_have_text(f"Bài {ex['number']} {ex['title']}")
        for name, value in ex["constants"].items():
            if isinstance(value, list):          # a trace: its ids, each with the columns only some requests set
                common = set.intersection(*(set(r) for r in value))
                extra = [", ".join(f"{k} {v}" for k, v in r.items() if k not in common) for r in value]
                value = "[" + ", ".join(r["id"] + (f" ({e})" if e else "") for r, e in zip(value, extra)) + "]"
            if isinstance(value, float) and value.is_integer():
                value = int(value)                   # the page writes numbers as JavaScript does: 300.0 -> 300
            expect(item.locator(".exercise-constants")).to_contain_text(f"{name} = {value}")
        for name in ex["patch"]:                     # an exercise that rewrites a function names it
            expect(item.locator(".exercise-constants")).to_contain_text(name)
        expect(item.locator("textarea")).to_have_accessible_name("Dự đoán của bạn")
        expect(item.locator(".exercise-answer")).to_be_hidden()
        expect(item.locator('[data-exercise-action="run"]')).to_be_enabled()
    # the question is the build's rendered Markdown (inline code stays code)
    expect(card(lab, 2).locator(".exercise-question code").first).to_have_text("SLOTS = 2")
    expect(lab.page.locator("#exercise-toc a")).to_have_count(len(files))
    assert lab.page.locator("#bai-tap script").count() == 0


def test_run_button_sets_the_constants_and_runs(lab, exercises):
    ex = next(e for e in exercises if e["number"] == 2)
    lab.set_value("SLOTS", 5)  # the button starts from the defaults
    card(lab, 2).locator('[data-exercise-action="run"]').click()
    expect(lab.control("QUEUE_LIMIT")).to_have_value(str(ex["constants"]["QUEUE_LIMIT"]))
    expect(lab.control("SLOTS")).to_have_value("2")
    lab.wait_status("done", RUN_MS)
    text = output_text(lab)
    missing = [s for s in ex["expect"] if s not in text]
    assert not missing, f"not on the page after exercise 2's run: {missing}"
    expect(card(lab, 2).locator(".exercise-note")).to_contain_text("Đã chạy xong")
    expect(card(lab, 2).locator('.exercise-note a[href="#mapping"]')).to_be_visible()


def test_every_exercise_button_gives_its_expected_output(lab, exercises):
    for ex in exercises:
        if ex["number"] == 2:
            continue  # above
        card(lab, ex["number"]).locator('[data-exercise-action="run"]').click()
        lab.wait_status("done", RUN_MS)
        text = output_text(lab)
        assert [s for s in ex["expect"] if s not in text] == [], f"exercise {ex['number']}"
        expect(card(lab, ex["number"]).locator(".exercise-note")).to_contain_text(f"bài {ex['number']}")
    expect(card(lab, 2).locator(".exercise-note")).to_be_empty()  # its note no longer describes the output


def test_xem_dap_an_reveals_the_answer(lab):
    item = card(lab, 2)
    button = item.get_by_role("button", name="Xem đáp án")
    answer = item.locator(".exercise-answer")
    expect(button).to_have_attribute("aria-expanded", "false")
    button.click()
    expect(answer).to_be_visible()
    expect(answer).to_contain_text("Cổng đếm chỗ")
    expect(answer.locator("table")).to_have_count(1)
    expect(item.locator('[data-exercise-action="answer"]')).to_have_attribute("aria-expanded", "true")
    # keyboard: Enter on the focused button hides it again
    item.locator('[data-exercise-action="answer"]').focus()
    lab.page.keyboard.press("Enter")
    expect(answer).to_be_hidden()
    expect(item.locator('[data-exercise-action="answer"]')).to_have_attribute("aria-expanded", "false")
    expect(item.locator('[data-exercise-action="answer"]')).to_have_text("Xem đáp án")


def test_a_typed_prediction_survives_a_reload(chromium, server):
    """A page of its own (a reload is the point), whose Python never arrives: pyodide.asm.wasm is held
    unanswered, so the page stays loading (no cold start needed to show what a reload keeps)."""
    typed = "A, B nhận; E, C, D nhận 429 vì <b>đầy</b>\ndòng hai"
    context = chromium.new_context()
    context.route("**/pyodide.asm.wasm*", lambda route: None)
    page = context.new_page()
    try:
        page.goto(server.url)
        # the exercises load when their section comes near the screen (before ready, only then)
        page.locator("#bai-tap").scroll_into_view_if_needed()
        box = page.locator('#bai-tap-02 textarea')
        box.fill(typed)
        assert page.evaluate("localStorage.getItem('inference-lab:prediction:02')") == typed
        page.reload()
        page.locator("#bai-tap").scroll_into_view_if_needed()
        expect(page.locator('#bai-tap-02 textarea')).to_have_value(typed)
        expect(page.locator('#bai-tap-01 textarea')).to_have_value("")
        # the run button waits for Python
        expect(page.locator('#bai-tap-02 [data-exercise-action="run"]')).to_be_disabled()
        assert page.locator("[data-status]").get_attribute("data-status") == "loading"
    finally:
        context.close()


def test_screenshots_of_the_section_at_phone_and_desktop_width(lab):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    card(lab, 2).get_by_role("button", name="Xem đáp án").click()
    card(lab, 1).locator("textarea").fill("C nhanh hơn vì có thêm một chỗ chạy.")
    # The patch exercises opened their function's code view (static/tools/code.js) in a block panel. An element
    # taller than the window is captured by Chromium laying the page out for a moment 1 px wide, and with
    # an open code view that one layout took 25-40 s here (0.4 s with the views closed): close them, they
    # are not part of this section.
    lab.page.evaluate("document.querySelectorAll('details[data-code-for]').forEach((d) => { d.open = false; })")
    try:
        for width in (1440, 375):
            lab.page.set_viewport_size({"width": width, "height": 900})
            screenshot(lab.page.locator("#bai-tap"), ARTIFACTS / f"exercises-{width}.png")
            overflow = lab.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, f"the page scrolls sideways at {width} px"
    finally:
        lab.page.set_viewport_size({"width": 1440, "height": 900})
        card(lab, 1).locator("textarea").fill("")


def test_no_page_errors_and_nothing_left_the_server(lab):
    assert lab.page_errors == []
    assert csp_errors(lab) == []
    assert [r for r in lab.bad_responses if "exercise" in r] == []
    assert lab.foreign == []


def test_an_exercise_on_the_roofline_clock_takes_the_roofline_defaults(lab, exercises):
    """An exercise that sets CLOCK = roofline and leaves COST_TOKENIZE_PER_TOKEN alone runs with its roofline
    default (schema.py roofline_default: 1 µs a token), as `--exercise N` does on the command line."""
    ex = next(e for e in exercises if e["constants"].get("CLOCK") == "roofline"
              and "COST_TOKENIZE_PER_TOKEN" not in e["constants"])
    card(lab, ex["number"]).locator('[data-exercise-action="run"]').click()
    lab.wait_status("done", RUN_MS)
    sent = lab.last_sent("run")["config"]
    assert sent["COST_TOKENIZE_PER_TOKEN"] == 1
    assert sent["POOL_BLOCKS"] == ex["constants"].get("POOL_BLOCKS", "auto")
    lab.page.click('[data-action="reset"]')
    expect(lab.control("COST_TOKENIZE_PER_TOKEN")).to_have_value("50")
