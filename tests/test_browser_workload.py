"""A generated workload in the page (issue 22 §3): the address ?WORKLOAD_REQUESTS=… runs it in the worker, the
page stays responsive and its status line shows the run's progress (small typed messages from the worker,
static/worker/worker.js runProgress, at most every ~100 ms), then the finished result: the header says the
real number of generated requests and the followed request falls back to R1.
Uses the session's page (conftest.py page_lab): the address is applied with lab.visit, no new cold start.
"""
from __future__ import annotations

import re

import pytest

from lab_browser import RUN_MS, expect

pytestmark = pytest.mark.browser

QUERY = ("?WORKLOAD_REQUESTS=32&WORKLOAD_PROMPT=300&WORKLOAD_OUTPUT=32&SLOTS=16&QUEUE_LIMIT=32&MAX_CONTEXT=512"
         "&POOL_BLOCKS=auto&BLOCK_SIZE=16&TOKEN_BUDGET=1024")

# Every (data-status, detail, progress value) the status line shows, and whether the page answered a timer
# while the run was in flight (the worker runs it: the page's own thread stays free).
WATCH = """() => {
  const status = document.getElementById('status');
  const seen = window.__statusSeen = [];
  window.__ticks = { running: 0 };
  const note = () => {
    const bar = document.getElementById('status-progress');
    const row = { status: status.dataset.status, detail: document.getElementById('status-detail').textContent,
                  value: bar.hidden ? null : bar.value, busy: status.getAttribute('aria-busy') };
    const last = seen[seen.length - 1];
    if (!last || last.status !== row.status || last.detail !== row.detail) seen.push(row);
  };
  new MutationObserver(note).observe(status, { attributes: true, childList: true, subtree: true, characterData: true });
  const tick = () => { if (status.dataset.status === 'running') window.__ticks.running += 1; setTimeout(tick, 20); };
  tick();
}"""


def test_a_generated_workload_shows_progress_then_its_result(lab):
    lab.page.evaluate(WATCH)
    final = lab.visit(QUERY)
    assert final == "done", (lab.page.locator("#status").inner_text(), lab.page.locator("#page-error").inner_text(),
                             lab.page.evaluate("[...document.querySelectorAll('[data-error-for]')].map((e) => "
                                               "e.textContent)"),
                             lab.page_errors, lab.console_errors)
    seen = lab.page.evaluate("window.__statusSeen")
    running = [s for s in seen if s["status"] == "running"]
    progress = [s for s in running if re.search(r"bước \d+, xong \d+/32 yêu cầu", s["detail"])]
    assert progress, seen
    assert all(s["value"] is not None and 0 <= s["value"] <= 1 for s in progress)
    assert any(s["busy"] == "true" for s in progress)                  # the live region is quiet meanwhile
    assert seen[-1]["status"] == "done" and seen.index(progress[-1]) < len(seen) - 1
    assert lab.page.evaluate("window.__ticks.running") > 0             # the page kept answering during the run
    expect(lab.status).not_to_have_attribute("aria-busy", "true")
    header = lab.page.locator("#run-header").inner_text()
    assert "ĐẦU VÀO: 32 yêu cầu sinh tự động" in header and "theo dõi yêu cầu R1" in header
    lines = lab.panel_lines(12)
    assert any("chạy lại trên đồng hồ mà không chạy mô hình" in line for line in lines)
    expect(lab.page.locator('[data-block="13"]')).to_contain_text("R1", timeout=RUN_MS)
    assert not lab.page_errors


def test_a_recorded_trace_runs_its_own_lengths_with_max_context_auto(lab):
    """MAX_CONTEXT's control holds "auto" (its default, core/inputs/context.py): with the conversation trace's first
    3 requests (374 + 44, 396 + 109, 879 + 55 tokens) and a pool of 300 blocks of 4 (1,201 tokens) the run's
    MAX_CONTEXT is the longest request, 934, and the header says so; nothing is clipped."""
    final = lab.visit("?WORKLOAD_TRACE=azure-conv&WORKLOAD_REQUESTS=3&POOL_BLOCKS=300&SLOTS=3&QUEUE_LIMIT=3"
                      "&TOKEN_BUDGET=512")
    assert final == "done", (lab.page.locator("#status").inner_text(), lab.page_errors, lab.console_errors)
    expect(lab.control("MAX_CONTEXT")).to_have_value("auto")
    header = lab.page.locator("#run-header").inner_text()
    assert "context tối đa 934 (auto: yêu cầu dài nhất của cửa sổ" in header, header
    assert "bị cắt" not in header
    assert not lab.page_errors
