"""Browser tests of the request editor (static/tools/editor.js): the trace REQUESTS as an editable table
built from describe() (labels, bounds, max_items, the tokenizer's alphabet), per-cell validation in
Vietnamese beside the cell, FOLLOW's choices following the ids, add/remove/reset, and the engine's
own REQUESTS[i].column errors landing beside the right cell.
"""
from __future__ import annotations

import json

import pytest

from lab_browser import ARTIFACTS, assert_page_shows, engine_text, expect, request_cell, screenshot

pytestmark = pytest.mark.browser

def schema() -> dict:
    from inference_lab.entrypoints import web
    return next(d for d in json.loads(web.describe()) if d["name"] == "REQUESTS")


def open_editor(lab):
    editor = lab.page.locator("#requests-editor")
    if editor.get_attribute("open") is None:
        editor.locator("> summary").click()
    return editor


cell = request_cell


def error_for(lab, index: int, column: str):
    return lab.page.locator(f'[data-error-for="REQUESTS[{index}].{column}"]')


def ids(lab) -> list[str]:
    return lab.page.locator("[data-request-field$='.id']").evaluate_all("els => els.map(e => e.value)")


def follow_choices(lab) -> list[str]:
    return lab.control("FOLLOW").locator("option").evaluate_all("els => els.map(e => e.value)")


def test_the_table_is_built_from_the_schema(lab):
    spec = schema()
    open_editor(lab)
    headers = lab.page.locator("#requests-editor thead th").all_inner_texts()
    for column in spec["columns"]:
        assert any(h.startswith(column["label"]) for h in headers), column
    for i, request in enumerate(spec["default"]):
        for column in spec["columns"]:
            value = request.get(column["name"])             # optional columns (priority, cancel_at): absent, empty
            assert value is not None or column["optional"]
            expect(cell(lab, i, column["name"])).to_have_value("" if value is None else str(value).removesuffix(".0"))
    assert ids(lab) == ["A", "B", "E", "C", "D"]
    expect(lab.page.locator("#requests-editor")).to_contain_text(" ".join(spec["alphabet"]))
    legend = lab.page.locator(".requests-legend")
    legend.locator("summary").click()
    expect(legend).to_contain_text("0.001 đến 1")   # top_p's bounds, from the schema


@pytest.mark.parametrize("index, column, typed, says", [
    (0, "top_p", "2", "lớn nhất là 1"),
    (1, "max_new", "abc", "số nguyên"),
    (2, "arrival", "-5", "nhỏ nhất là 0"),
    (3, "text", "   ", "không được rỗng"),
    (4, "id", "A", "bị trùng"),
    (4, "id", "Đ!", "chữ cái hoặc chữ số"),
    (0, "temperature", "", "Hãy nhập một số"),
])
def test_a_bad_cell_is_named_beside_it_and_nothing_runs(lab, index, column, typed, says):
    lab.page.click('[data-action="reset"]')
    runs = lab.count_sent("run")
    cell(lab, index, column).fill(typed)
    lab.page.click('[data-action="run"]')
    error = error_for(lab, index, column)
    expect(error).to_be_visible()
    expect(error).to_contain_text(says)
    expect(cell(lab, index, column)).to_have_attribute("aria-invalid", "true")
    expect(cell(lab, index, column)).to_have_value(typed)
    expect(lab.page.locator("#action-note")).to_contain_text("Chưa chạy")
    assert lab.count_sent("run") == runs          # Run decided at once: the errors are shown, nothing was sent
    cell(lab, index, column).fill("1" if column != "text" else "xin chao")   # typing clears the message
    expect(error).to_have_count(0)
    lab.page.click('[data-action="reset"]')


def test_mac_dinh_refills_the_rows_the_table_has(lab):
    """Mặc định puts the default trace into the table's own inputs (it used to build ~50 new ones before every
    run, which the browser's form scanning then read again): the same elements, the defaults, no error left."""
    lab.page.click('[data-action="reset"]')
    default = cell(lab, 0, "top_p").input_value()
    lab.page.evaluate("() => { window.__firstCell = document.querySelector('[data-request-field=\"0.top_p\"]'); }")
    cell(lab, 0, "top_p").fill("2")
    lab.page.click('[data-action="run"]')
    expect(error_for(lab, 0, "top_p")).to_be_visible()
    lab.page.click('[data-action="reset"]')
    expect(error_for(lab, 0, "top_p")).to_have_count(0)
    expect(cell(lab, 0, "top_p")).to_have_value(default)
    expect(cell(lab, 0, "top_p")).not_to_have_attribute("aria-invalid", "true")
    assert lab.page.evaluate("() => window.__firstCell === document.querySelector('[data-request-field=\"0.top_p\"]')")
    expect(lab.page.locator("[data-request-field$='.id']")).to_have_count(len(schema()["default"]))


def test_unknown_characters_warn_and_the_engine_refuses_with_400(lab):
    lab.page.click('[data-action="reset"]')
    cell(lab, 0, "text").fill("xin chào model!")
    warning = lab.page.locator('[data-warning-for="REQUESTS[0].text"]')
    expect(warning).to_contain_text("“à”")
    expect(warning).to_contain_text("“!”")
    expect(warning).to_contain_text("400")
    assert lab.run(reset=False) == "done"
    expect(lab.page.locator('[data-block="2"]')).to_contain_text("Bị chặn: A - mã 400: văn bản có ký tự tokenizer "
                                                                 "chưa từng thấy: 'à', '!'")
    lab.page.click('[data-action="reset"]')
    expect(warning).to_have_count(0)


def test_pieces_the_vocabulary_lacks_are_explained_after_the_run(lab):
    """'xi' has only known characters, but 10 merges turn it into a piece that is not in the vocabulary."""
    lab.page.click('[data-action="reset"]')
    cell(lab, 1, "text").fill("xi chao")
    warning = lab.page.locator('[data-warning-for="REQUESTS[1].text"]')
    expect(warning).to_have_count(0)
    assert lab.run(reset=False) == "done"
    expect(warning).to_contain_text("“xi”")
    cell(lab, 1, "text").fill("xin chao")
    expect(warning).to_have_count(0)
    lab.page.click('[data-action="reset"]')


def test_follow_choices_follow_the_ids(lab):
    lab.page.click('[data-action="reset"]')
    assert follow_choices(lab) == ["A", "B", "E", "C", "D"]
    expect(lab.control("FOLLOW")).to_have_value("C")
    cell(lab, 3, "id").fill("")
    cell(lab, 3, "id").type("G2")                       # rename the followed request
    expect(lab.control("FOLLOW")).to_have_value("G2")
    assert follow_choices(lab) == ["A", "B", "E", "G2", "D"]
    lab.page.click('[data-action="add-request"]')
    assert ids(lab)[-1] == "C" and follow_choices(lab)[-1] == "C"   # the first free letter
    lab.page.locator('[data-request-field="3.id"]').locator("xpath=ancestor::tr").locator('[data-action="remove-request"]').click()
    assert ids(lab) == ["A", "B", "E", "D", "C"]
    expect(lab.control("FOLLOW")).to_have_value("A")
    expect(lab.page.locator(".editor-note")).to_contain_text("chuyển sang A vì G2 đã bị xóa")
    expect(lab.page.locator('[data-request-field="3.id"]')).to_have_value("D")   # renumbered
    lab.page.click('[data-action="reset-requests"]')
    assert ids(lab) == ["A", "B", "E", "C", "D"]
    assert follow_choices(lab) == ["A", "B", "E", "C", "D"]
    lab.page.click('[data-action="reset"]')
    expect(lab.control("FOLLOW")).to_have_value("C")


def test_add_up_to_the_bound_and_remove_down_to_one(lab):
    spec = schema()
    lab.page.click('[data-action="reset"]')
    add = lab.page.locator('[data-action="add-request"]')
    for _ in range(spec["max_items"] - len(spec["default"])):
        add.click()
    expect(lab.page.locator("[data-request-field$='.id']")).to_have_count(spec["max_items"])
    expect(add).to_be_disabled()
    assert len(set(ids(lab))) == spec["max_items"]
    assert lab.run(reset=False) == "done"
    expect(lab.page.locator('[data-block="1"]')).to_contain_text(f"offered={spec['max_items']}")
    remove = lab.page.locator('[data-action="remove-request"]')
    while remove.count() > 1:
        remove.first.click()
    expect(remove).to_be_disabled()
    expect(add).to_be_enabled()
    assert follow_choices(lab) == ids(lab)
    lab.page.click('[data-action="reset"]')
    expect(lab.page.locator("[data-request-field$='.id']")).to_have_count(len(spec["default"]))


def test_an_edited_trace_reaches_the_engine(lab):
    from inference_lab.core.inputs.config import DEFAULT_REQUESTS
    lab.page.click('[data-action="reset"]')
    cell(lab, 0, "max_new").fill("4")
    cell(lab, 1, "temperature").fill("1,5")
    cell(lab, 4, "arrival").fill("1200")
    expect(lab.page.locator(".edited-badge")).to_be_visible()
    assert lab.run(reset=False) == "done"
    requests = [dict(r) for r in DEFAULT_REQUESTS]
    requests[0]["max_new"] = 4
    requests[1]["temperature"] = 1.5
    requests[4]["arrival"] = 1200
    assert_page_shows(lab, engine_text({"REQUESTS": requests}))
    lab.page.click('[data-action="reset"]')
    expect(lab.page.locator(".edited-badge")).to_be_hidden()


def test_engine_errors_land_beside_the_right_cell(lab):
    """A value the page lets through but the engine refuses: its REQUESTS[i].column error goes beside that cell."""
    lab.page.click('[data-action="reset"]')
    lab.page.evaluate("""() => {
        const post = Worker.prototype.postMessage;
        Worker.prototype.postMessage = function (msg, ...rest) {
          if (msg && msg.type === 'run' && msg.config.REQUESTS) msg.config.REQUESTS[2].top_p = 7;
          Worker.prototype.postMessage = post;
          return post.call(this, msg, ...rest);
        };
    }""")
    assert lab.run(reset=False) == "error"
    error = error_for(lab, 2, "top_p")
    expect(error).to_be_visible()
    expect(error).to_contain_text("top_p")
    expect(lab.page.locator("#requests-editor")).to_have_attribute("open", "")
    expect(lab.page.locator("#page-error")).to_be_hidden()
    lab.page.click('[data-action="reset"]')
    expect(error).to_have_count(0)


def test_screenshots_of_the_editor_at_phone_and_desktop_width(lab):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    lab.page.click('[data-action="reset"]')
    lab.page.click('[data-action="add-request"]')
    cell(lab, 0, "text").fill("xin chào")
    cell(lab, 2, "top_p").fill("3")
    lab.page.click('[data-action="run"]')
    expect(error_for(lab, 2, "top_p")).to_be_visible()
    for width in (1440, 375):
        lab.page.set_viewport_size({"width": width, "height": 900})
        screenshot(lab.page.locator("#requests-editor"), ARTIFACTS / f"editor-{width}.png")
        screenshot(lab.page.locator("#runner"), ARTIFACTS / f"editor-{width}-runner.png")
        overflow = lab.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"the page scrolls sideways at {width} px"
        inner = lab.page.evaluate("(() => { const s = document.querySelector('.requests-scroll'); return "
                                  "s.scrollWidth - s.clientWidth; })()")
        assert inner <= 0, f"the request table scrolls sideways at {width} px"
    lab.page.set_viewport_size({"width": 1440, "height": 900})
    lab.page.click('[data-action="reset"]')


def test_no_page_errors(lab):
    assert lab.page_errors == []
    assert lab.foreign == []
