"""Long context in the page (issue 40): the address of a run with 32,768-token prompts on an H100 with Llama-3.1-8B's
sizes runs in the worker with progress on the status line, then shows its result (block [4] says what the lab's model
computed: the prompt's stand-in, its last 1,024 tokens; model.STAND_IN); the issue's full address (64 × 32,768 × 128)
starts, shows Stop, and Stop ends it without losing what the address set. A smaller version (4 × 32,768 × 8) is
run to the end; bench/long_context.py times the full one on the command line. Waits on the page's state, never on
time.
"""
from __future__ import annotations

import re
import urllib.parse

import pytest

from lab_browser import READY_MS, expect
from test_browser_workload import WATCH

pytestmark = pytest.mark.browser

LONG = dict(CLOCK="roofline", GPU="H100-SXM5-80GB", SHADOW_MODEL="Llama-3.1-8B", TENSOR_PARALLEL=1,
            WORKLOAD_REQUESTS=64, WORKLOAD_PROMPT=32768, WORKLOAD_OUTPUT=128, IGNORE_EOS="on", SLOTS=64,
            QUEUE_LIMIT=64, BLOCK_SIZE=16, POOL_BLOCKS="auto", MAX_CONTEXT=32896, TOKEN_BUDGET=8192)
SMALL = dict(LONG, WORKLOAD_REQUESTS=4, WORKLOAD_OUTPUT=8)
SMALL_RUN_MS = 900_000     # 4 × 32,768-token prompts in Pyodide on a loaded 2-core machine; the wait ends on the state


def test_a_32k_workload_shows_progress_then_its_result(lab):
    lab.page.evaluate(WATCH)
    lab.wait_idle()
    lab.page.evaluate("(url) => { history.pushState(null, '', url); dispatchEvent(new PopStateEvent('popstate')); }",
                      lab.home + "?" + urllib.parse.urlencode(SMALL))
    assert lab.wait_status("done|error", SMALL_RUN_MS) == "done", (lab.page.locator("#status").inner_text(),
                                                                   lab.page_errors)
    seen = lab.page.evaluate("window.__statusSeen")
    progress = [s for s in seen if s["status"] == "running" and re.search(r"bước \d+, xong \d+/4 yêu cầu", s["detail"])]
    assert progress, seen
    assert all(s["value"] is not None and 0 <= s["value"] <= 1 for s in progress)
    header = lab.page.locator("#run-header").inner_text()
    assert "ĐẦU VÀO: 4 yêu cầu sinh tự động" in header and "prompt đúng 32768 token" in header
    block4 = "\n".join(lab.panel_lines(4))
    assert "[8192, 8192, 8192, 8192]" in block4 and "1024 token CUỐI" in block4 and "stand-in" in block4
    assert "(2, 1024, 4)" in block4
    assert not lab.page_errors


def test_the_full_long_context_address_runs_and_stops(lab):
    lab.wait_idle()
    lab.page.evaluate("(url) => { history.pushState(null, '', url); dispatchEvent(new PopStateEvent('popstate')); }",
                      lab.home + "?" + urllib.parse.urlencode(LONG))
    expect(lab.status).to_have_attribute("data-status", "running", timeout=READY_MS)
    expect(lab.page.locator('[data-action="stop"]')).to_be_visible()
    lab.page.click('[data-action="stop"]')
    lab.wait_status("ready|stopped|done", READY_MS)
    expect(lab.page.locator('[data-action="stop"]')).to_be_hidden()
    expect(lab.control("WORKLOAD_PROMPT")).to_have_value("32768")          # nothing the address set is lost
    expect(lab.control("WORKLOAD_REQUESTS")).to_have_value("64")
