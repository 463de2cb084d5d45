"""Browser tests of shareable runs and the trace export (static/tools/share.js, with the request editor):
the constants that differ from their defaults live in the page address (?SLOTS=3&...; an edited
trace as base64url JSON under REQUESTS=), an address restores the controls and runs once ready, an
invalid value is reported and never run (an address is applied to the module's page as back/forward
does, lab.visit: the same code path as opening it, without starting Python again), "Sao chép liên kết" copies the
address, and "Tải trace (Perfetto)" downloads the last run's Chrome trace-event JSON.
"""
from __future__ import annotations

import base64
import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from lab_browser import ARTIFACTS, assert_page_shows, csp_errors, engine_text, expect, request_cell, screenshot

pytestmark = pytest.mark.browser

def default_requests() -> list[dict]:
    from inference_lab.core.inputs.config import DEFAULT_REQUESTS
    return [dict(r) for r in DEFAULT_REQUESTS]


def b64url(obj) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def as_rows(requests: list[dict]) -> list[list]:
    columns = ["id", "arrival", "text", "max_new", "temperature", "top_k", "top_p", "seed"]
    return [[r[c] for c in columns] for r in requests]


def query_of(url: str) -> dict:
    return {k: v[-1] for k, v in parse_qs(urlsplit(url).query).items()}


# ── the address follows the runs ─────────────────────────────────────────────
def test_each_run_writes_its_changed_constants_into_the_address(lab):
    assert lab.run({"SLOTS": 3, "QUALITY_GATE": "0,9"}) == "done"
    assert query_of(lab.page.url) == {"SLOTS": "3", "QUALITY_GATE": "0.9"}
    assert lab.run() == "done"
    assert urlsplit(lab.page.url).query == "", "a run with the defaults leaves a clean address"


def test_copy_link_copies_the_address_of_the_controls(lab):
    lab.page.click('[data-action="reset"]')
    lab.set_value("QUEUE_LIMIT", 2)
    lab.set_value("FOLLOW", "A")
    lab.page.click('[data-action="copy-link"]')
    expect(lab.page.locator(".tools-note")).to_have_text("Đã sao chép liên kết.")
    link = lab.page.locator("[data-share-url]").input_value()
    assert query_of(link) == {"QUEUE_LIMIT": "2", "FOLLOW": "A"}
    assert lab.page.evaluate("navigator.clipboard.readText()") == link
    assert lab.page.url == link


def test_copy_link_falls_back_to_a_selected_field(lab):
    lab.page.click('[data-action="reset"]')
    lab.set_value("SLOTS", 4)
    lab.page.evaluate("""() => Object.defineProperty(navigator.clipboard, 'writeText',
        { value: () => Promise.reject(new Error('no')), configurable: true }) && undefined""")
    lab.page.click('[data-action="copy-link"]')
    note = lab.page.locator(".tools-note")
    expect(note).to_have_text(re.compile("Đã sao chép liên kết|Ctrl\\+C"))
    field = lab.page.locator("[data-share-url]")
    assert query_of(field.input_value()) == {"SLOTS": "4"}
    if "Ctrl" in note.text_content():   # not copied: the link is selected for the student
        assert field.evaluate("el => document.activeElement === el && el.selectionEnd - el.selectionStart === "
                              "el.value.length")


def test_copy_link_refuses_invalid_controls(lab):
    lab.page.click('[data-action="reset"]')
    lab.set_value("SLOTS", "abc")
    lab.page.click('[data-action="copy-link"]')
    expect(lab.page.locator(".tools-note")).to_contain_text("Chưa sao chép")
    expect(lab.page.locator('[data-error-for="SLOTS"]')).to_be_visible()
    lab.page.click('[data-action="reset"]')


# ── opening an address ───────────────────────────────────────────────────────
def test_an_address_restores_the_constants_and_runs(lab):
    lab.visit("")
    lab.page.evaluate("document.getElementById('advanced').open = false")
    runs = lab.count_sent("run")
    assert lab.visit("?SLOTS=3&QUEUE_LIMIT=2&COST_GATEWAY=300&FOLLOW=D") == "done"
    for name, value in {"SLOTS": "3", "QUEUE_LIMIT": "2", "COST_GATEWAY": "300", "FOLLOW": "D"}.items():
        expect(lab.control(name)).to_have_value(value)
    expect(lab.control("COST_GATEWAY")).to_be_visible()          # the advanced fold was opened
    assert lab.count_sent("run") == runs + 1
    assert_page_shows(lab, engine_text({"SLOTS": 3, "QUEUE_LIMIT": 2, "COST_GATEWAY": 300, "FOLLOW": "D"}))
    assert lab.page_errors == [] and lab.foreign == []


def test_invalid_values_in_an_address_are_reported_replaced_and_not_run(lab):
    runs = lab.count_sent("run")
    # applying an address is synchronous (static/core/address.js): once visit() returns, nothing ran
    assert lab.visit("?SLOTS=abc&QUEUE_LIMIT=2&POOL_BLOCKS=100000&NOPE=%3Cb%3Ex%3C%2Fb%3E") is None
    note = lab.page.locator("#address-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("không hợp lệ")
    for name in ("SLOTS", "POOL_BLOCKS", "NOPE"):
        expect(note).to_contain_text(name)
    assert note.locator("b").count() == 0, "address text is shown as text"
    for name, default in (("SLOTS", "2"), ("POOL_BLOCKS", "12")):
        expect(lab.page.locator(f'[data-error-for="{name}"]')).to_be_visible()
        expect(lab.control(name)).to_have_value(default)
    expect(lab.page.locator('[data-error-for="SLOTS"]')).to_contain_text("abc")
    expect(lab.control("QUEUE_LIMIT")).to_have_value("2")        # the valid one is kept
    assert lab.count_sent("run") == runs, "an invalid address must not run"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for width in (1440, 375):
        lab.page.set_viewport_size({"width": width, "height": 900})
        screenshot(lab.page.locator("#runner"), ARTIFACTS / f"share-{width}-invalid-address.png")
    lab.page.set_viewport_size({"width": 1440, "height": 900})
    # the student can run what is now in the controls
    lab.page.click('[data-action="run"]')
    lab.wait_status("done")
    assert lab.last_sent("run")["config"]["SLOTS"] == 2 and lab.count_sent("run") == runs + 1
    expect(note).to_be_hidden()
    assert lab.page_errors == []


def test_an_invalid_trace_in_an_address_is_reported_and_not_run(lab):
    requests = default_requests()
    requests[1]["top_p"] = 5
    requests[2]["id"] = "A"
    runs = lab.count_sent("run")
    assert lab.visit("?REQUESTS=" + b64url(as_rows(requests)) + "&FOLLOW=Z") is None
    note = lab.page.locator("#address-note")
    expect(note).to_contain_text("REQUESTS")
    expect(note).to_contain_text("FOLLOW")
    expect(lab.page.locator('[data-error-for="REQUESTS"]')).to_contain_text("top_p")
    expect(lab.page.locator('[data-error-for="FOLLOW"]')).to_be_visible()
    expect(lab.control("FOLLOW")).to_have_value("C")
    expect(lab.page.locator('[data-request-field="1.top_p"]')).to_have_value("0.9")   # the default trace
    expect(lab.page.locator('[data-request-field="2.id"]')).to_have_value("E")
    assert lab.count_sent("run") == runs


def test_a_garbled_trace_in_an_address_is_reported(lab):
    runs = lab.count_sent("run")
    assert lab.visit("?REQUESTS=!!notbase64") is None
    expect(lab.page.locator('[data-error-for="REQUESTS"]')).to_contain_text("không giải mã được")
    assert lab.count_sent("run") == runs


# ── an edited trace through the address ──────────────────────────────────────
def test_an_edited_trace_runs_and_survives_the_address(lab):
    lab.page.click('[data-action="reset"]')
    request_cell(lab, 0, "max_new").fill("3")
    lab.page.click('[data-action="add-request"]')
    request_cell(lab, 5, "text").fill("ban hoc token")
    lab.set_value("FOLLOW", "F")
    assert lab.run(reset=False) == "done"
    requests = default_requests()
    requests[0]["max_new"] = 3
    requests.append(dict(id="F", arrival=2000, text="ban hoc token", max_new=5, temperature=0.0, top_k=0, top_p=1.0,
                         seed=6))
    expected = engine_text({"REQUESTS": requests, "FOLLOW": "F"})
    assert_page_shows(lab, expected)
    assert "F" in lab.page.locator('[data-block="1"]').inner_text()

    query = query_of(lab.page.url)
    assert set(query) == {"REQUESTS", "FOLLOW"}
    lab.page.click('[data-action="copy-link"]')
    link = lab.page.locator("[data-share-url]").input_value()
    assert link == lab.page.url

    assert lab.visit("") is None                                  # the bare address: the default trace back
    expect(lab.page.locator("[data-request-field$='.id']")).to_have_count(5)
    lab.page.evaluate("document.getElementById('requests-editor').open = false")
    assert lab.visit("?" + urlsplit(link).query) == "done"       # the link, applied as opening it does
    expect(lab.page.locator("#requests-editor")).to_have_attribute("open", "")
    expect(lab.page.locator("[data-request-field$='.id']")).to_have_count(6)
    expect(lab.page.locator('[data-request-field="0.max_new"]')).to_have_value("3")
    expect(lab.page.locator('[data-request-field="5.id"]')).to_have_value("F")
    expect(lab.page.locator('[data-request-field="5.text"]')).to_have_value("ban hoc token")
    expect(lab.control("FOLLOW")).to_have_value("F")
    assert_page_shows(lab, expected)
    assert lab.page_errors == []
    lab.page.click('[data-action="reset"]')


def test_unicode_text_survives_the_address(lab):
    lab.page.click('[data-action="reset"]')
    request_cell(lab, 3, "text").fill("bạn học model")   # unknown characters: C is refused 400, FOLLOW moves to A
    lab.set_value("FOLLOW", "A")
    assert lab.run(reset=False) == "done"
    query = urlsplit(lab.page.url).query
    assert lab.visit("") is None
    expect(lab.page.locator('[data-request-field="3.text"]')).not_to_have_value("bạn học model")
    assert lab.visit("?" + query) == "done"
    expect(lab.page.locator('[data-request-field="3.text"]')).to_have_value("bạn học model")
    expect(lab.page.locator('[data-block="2"]')).to_contain_text("chưa từng thấy")
    lab.page.click('[data-action="reset"]')


# ── trace export ─────────────────────────────────────────────────────────────
def test_trace_download_is_chrome_trace_event_json(lab, tmp_path):
    assert lab.run({"QUEUE_LIMIT": 2}) == "done"
    button = lab.page.locator('[data-action="download-trace"]')
    expect(button).to_be_enabled()
    with lab.page.expect_download() as info:
        button.click()
    download = info.value
    assert download.suggested_filename == "inference-lab-trace.json"
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    trace = json.loads(path.read_text(encoding="utf-8"))
    events = trace["traceEvents"]
    assert isinstance(events, list) and events
    for event in events:
        assert event["ph"] in {"M", "X", "i"} and isinstance(event["pid"], int)
        if event["ph"] != "M":
            assert isinstance(event["ts"], (int, float)) and isinstance(event["tid"], int)
        if event["ph"] == "X":
            assert event["dur"] >= 0
    threads = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert threads == {f"yêu cầu {r}" for r in "ABCDE"}
    assert any(e["ph"] == "X" and e["tid"] == 5 for e in events), "D is served with QUEUE_LIMIT=2 and has slices"
    from inference_lab.entrypoints import web
    assert trace == json.loads(web.run(json.dumps({"QUEUE_LIMIT": 2})))["trace"]
    expect(lab.page.locator(".tools-note")).to_contain_text("inference-lab-trace.json")


def test_no_page_errors(lab):
    assert lab.page_errors == []
    assert lab.foreign == []
    assert csp_errors(lab) == []
