"""The page's Stop without a reboot: a KeyboardInterrupt anywhere in a run leaves nothing half done.

Where the page is cross-origin isolated, Stop writes 2 into Pyodide's interrupt buffer (static/worker/
worker.js), which raises KeyboardInterrupt in whatever Python line runs then, exactly as
`_thread.interrupt_main()` does here (both go through the SIGINT handler, so `sandbox.uninterrupted()`
holds them back the same way). Each case below interrupts a run at its n-th line of the package's code,
for n spread over the whole run (cache filling, the engine, the report, JSON), and checks:
- web.run answers {"ok": false, "stopped": <the line it was on>} instead of raising (from its second line on:
  at its very first, `try:` itself, the worker catches the KeyboardInterrupt instead);
- the next unedited run prints what a fresh interpreter prints, byte for byte;
- an edited run's stop names the student's line and puts every namespace back (sandbox.py).
"""
from __future__ import annotations

import _thread
import json
import signal
import sys

import pytest

from inference_lab.entrypoints import sandbox, web

LOOP = "def plan_tasks(running, budget_cap):\n    while True:\n        pass\n"


def lines_of_a_run(config: str = "{}", patches=None) -> int:
    """How many line events a run has in the package's files (the range the interrupts are spread over)."""
    web.empty_caches()
    count = [0]

    def tracer(frame, event, arg):
        if "inference_lab" in frame.f_code.co_filename:
            count[0] += event == "line"
        return tracer
    sys.settrace(tracer)
    try:
        web.run(config, patches)
    finally:
        sys.settrace(None)
    return count[0]


@pytest.fixture(autouse=True)
def sigint_raises():
    """SIGINT handled by Python (KeyboardInterrupt), as in Pyodide: a pytest-xdist worker ignores SIGINT,
    and then `_thread.interrupt_main()` does nothing."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


class NeverStopped(Exception):
    """The interrupt did not end the run (a safety net: the test fails instead of looping forever)."""


def interrupted_run(at: int, config: str = "{}", patches=None, where: str = "inference_lab", stop_seen=None) -> dict:
    """web.run with SIGINT sent at the `at`-th line in files whose name holds `where` (as Stop does through
    the interrupt buffer); stop_seen: the worker's (web.run's argument)."""
    count = [0]

    def tracer(frame, event, arg):
        if where in frame.f_code.co_filename and event == "line":
            count[0] += 1
            if count[0] == at:
                _thread.interrupt_main()
            elif count[0] > at + 1_000_000:
                raise NeverStopped(f"still running {count[0] - at} lines after the interrupt")
        return tracer
    sys.settrace(tracer)
    try:
        return json.loads(web.run(config, patches, "vi", stopped="nút Dừng", stop_seen=stop_seen))
    finally:
        sys.settrace(None)


@pytest.fixture(scope="module")
def fresh() -> str:
    web.empty_caches()
    return web.run("{}")


@pytest.fixture(scope="module")
def total() -> int:
    return lines_of_a_run()


def test_a_stop_anywhere_in_the_engine_leaves_the_next_run_byte_identical(fresh, total):
    assert total > 1000
    stopped = 0
    for at in sorted({2, 3, 5, 17, 60, 200, *(total * k // 13 for k in range(1, 13)), total - 3}):
        answer = interrupted_run(at)
        assert answer.get("stopped") or answer["ok"], answer                 # never an exception
        stopped += bool(answer.get("stopped"))
        assert web.run("{}") == fresh, f"run after a stop at line event {at} of {total} differs"
    assert stopped >= 15


def test_the_stop_message_names_the_engine_line():
    answer = interrupted_run(lines_of_a_run() // 2)
    assert answer["ok"] is False and answer["errors"] == []
    assert answer["stopped"].startswith("Đã dừng (nút Dừng) khi máy đang chạy.")
    assert ", dòng " in answer["stopped"] and ".py" in answer["stopped"]


def test_a_stopped_endless_edit_names_the_students_line_and_puts_everything_back(fresh):
    before = sandbox.snapshot()
    patches = [{"module": "scheduler", "function": "plan_tasks", "source": LOOP, "key": "scheduler.plan_tasks",
                "name": "scheduler.py", "first_line": 40}]
    answer = interrupted_run(1000, patches=patches, where="<patch ")   # well inside the endless loop
    assert answer["ok"] is False
    assert answer["stopped"].startswith("Đã dừng (nút Dừng) khi đang chạy mã đã sửa.")
    assert "scheduler.py, dòng 4" in answer["stopped"]                    # line 2 or 3 of the loop, shifted by 40
    [lesson] = answer["errors"]
    assert lesson["kind"] == "stopped" and lesson["field"] == "patch:scheduler.plan_tasks" and lesson["line"] in (41,
                                                                                                                  42)
    after = sandbox.snapshot()
    assert after["lists"] == before["lists"] and after["modules"].keys() == before["modules"].keys()
    assert web.run("{}") == fresh


def test_an_interrupt_while_namespaces_are_put_back_waits_until_they_are():
    with pytest.raises(KeyboardInterrupt):
        with sandbox.uninterrupted():
            _thread.interrupt_main()
            done = sum(range(100_000))          # the handler runs here, but only notes the signal
    assert done == 4999950000


def test_a_stop_between_runs_is_harmless(fresh):
    with pytest.raises(KeyboardInterrupt):      # a stray SIGINT before a run: raised, the run never starts
        _thread.interrupt_main()
        sum(range(100_000))
    assert web.run("{}") == fresh


@pytest.fixture
def page_worker() -> list:
    """A stand-in for the page's worker: how often Python called the stop_seen it was handed (the list's append
    with True)."""
    return []


def seen_by(page_worker: list):
    return lambda: page_worker.append(True)


def test_a_stop_the_lab_answers_is_reported_seen_so_the_page_waits_for_the_answer(fresh, page_worker):
    """static/core/stop.js restarts Python 1 s after a Stop unless Python said it has the Stop in hand."""
    answer = interrupted_run(lines_of_a_run() // 2, stop_seen=seen_by(page_worker))
    assert answer["stopped"] and page_worker
    patches = [{"module": "scheduler", "function": "plan_tasks", "source": LOOP, "key": "scheduler.plan_tasks"}]
    page_worker.clear()
    assert interrupted_run(1000, patches=patches, where="<patch ", stop_seen=seen_by(page_worker))["stopped"]
    assert page_worker


def test_a_stop_held_back_while_namespaces_are_put_back_is_reported_seen_at_once(page_worker):
    with pytest.raises(KeyboardInterrupt):
        with sandbox.uninterrupted(seen_by(page_worker)):
            _thread.interrupt_main()
            sum(range(100_000))
            assert page_worker == [True]        # seen before the block ends: the answer may be slow to come


def test_a_stop_a_students_bare_except_swallows_is_never_reported_seen(page_worker):
    swallowed = 0
    for _ in range(3):
        try:
            _thread.interrupt_main()
            sum(range(100_000))
        except:                                 # noqa: E722 (what a student's code may do)
            swallowed += 1
    assert swallowed == 3 and page_worker == []


def test_a_stop_leaving_the_students_function_is_told_at_once_and_a_swallowed_one_is_not():
    """patch.told_on_stop: a KeyboardInterrupt that leaves the student's function tells the page (stop_seen) before
    the engine's frames unwind and the bindings are put back (issue 41: a starved worker thread then passed for a
    swallowed Stop); a function that swallows it tells nothing, so the page still restarts Python after 1 s."""
    from inference_lab.entrypoints import patch

    def stopped():
        raise KeyboardInterrupt

    def swallowing():
        try:
            raise KeyboardInterrupt
        except BaseException:
            return None

    told = []
    with pytest.raises(KeyboardInterrupt):
        patch.told_on_stop(stopped, lambda: told.append("seen"))()
    assert told == ["seen"]
    assert patch.told_on_stop(swallowing, lambda: told.append("again"))() is None and told == ["seen"]
    assert patch.told_on_stop(stopped, None) is stopped
