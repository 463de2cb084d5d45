"""The run's state waits, timed: where a browser test's seconds go.

Every helper that waits on the page's state (lab_browser.wait_status, hence Lab.open, Lab.run, Lab.visit;
lab_engines.wait_for, hence every wait of tests/test_browser_engines.py in Chromium, Firefox and WebKit;
test_offline.py's poll) notes here how long it waited, for what, and in which test (pytest's
PYTEST_CURRENT_TEST). conftest.py prints the slowest beside the Pyodide cold boots at the end of a run
(summed over pytest-xdist's workers), e.g.

    --------------- state waits: 86, 125.9 s in all; the 10 slowest ----------------
        48.2 s  webkit: status ready|done (timeout 180 s)  tests/test_browser_engines.py::test_in_every_engine[webk…
        23.7 s  status done|error (timeout 330 s)          tests/test_offline.py::test_a_second_tab_on_a_shared_addr…

so a CI log names what a slow or loaded machine made slow, and how close each wait came to its timeout.
A wait that timed out is noted too, "(timed out)" after what it waited for.
Leaves out: Playwright's own waits (expect(...), locator actions): each is short and bounded by its timeout.
"""
from __future__ import annotations

import os
import time
from contextlib import contextmanager

SHOWN = 10                     # the slowest waits the summary names
_slowest: list[tuple[float, str, str]] = []   # (seconds, test id, what), at most SHOWN × 4 kept
_totals = [0, 0.0]             # waits noted, seconds waited in all


def current_test() -> str:
    """The id of the test running now ("tests/test_x.py::test_y"), or "-" outside a test."""
    return os.environ.get("PYTEST_CURRENT_TEST", "-").rsplit(" (", 1)[0]


def note(what: str, seconds: float, test: str | None = None):
    """One wait of `seconds` for `what` (in the running test unless `test` is given)."""
    _totals[0] += 1
    _totals[1] += seconds
    _slowest.append((round(seconds, 1), test or current_test(), what))
    if len(_slowest) > SHOWN * 4:          # keep the slowest only: a run notes thousands
        _slowest.sort(reverse=True)
        del _slowest[SHOWN:]


@contextmanager
def timed(what: str):
    """Note the seconds the block took as one wait for `what` ("(timed out)" added when it raised)."""
    start, ok = time.monotonic(), False
    try:
        yield
        ok = True
    finally:
        note(what if ok else what + " (timed out)", time.monotonic() - start)


def collected() -> dict:
    """This process's waits, for the summary (also what a pytest-xdist worker hands its controller)."""
    return {"count": _totals[0], "seconds": _totals[1], "slowest": sorted(_slowest, reverse=True)[:SHOWN]}


def merge(*parts: dict) -> dict:
    """Several processes' collected() as one."""
    rows = sorted((tuple(row) for part in parts for row in part["slowest"]), reverse=True)[:SHOWN]
    return {"count": sum(p["count"] for p in parts), "seconds": sum(p["seconds"] for p in parts), "slowest": rows}


def summary_lines(waits: dict) -> tuple[str, list[str]]:
    """The summary's heading and one line per slow wait: seconds, what, test."""
    head = f"state waits: {waits['count']}, {waits['seconds']:.1f} s in all; the {SHOWN} slowest"
    rows = waits["slowest"]
    width = max((len(what) for _, _, what in rows), default=0)
    return head, [f"  {seconds:6.1f} s  {what:<{width}}  {test}" for seconds, test, what in rows]
