"""Configurations where the seed program itself crashes (tests/golden/crashes.json).

expect "pass": degenerate but valid input. The engine must finish: exit 0, no traceback, all 13 block
headers, a TỔNG KẾT line and a line starting with "PASS:". If the followed request was rejected, the
output says so (a line naming it with 429/400); characters missing from the vocabulary (or, when all
characters are known, the BPE pieces missing from it) are named on a line that says 400.
expect "invalid": outside the engine's input domain: exit 2, no traceback, stderr names one of `flags`.
"""
from __future__ import annotations

import json
import re
import warnings

import pytest

import seed_program
from cli_runner import cli_args, missing_parts, run_cli
from golden_cases import GOLDEN_DIR

CRASHES = json.loads((GOLDEN_DIR / "crashes.json").read_text(encoding="utf-8"))
PASSING = [n for n, c in CRASHES.items() if c["expect"] == "pass"]
INVALID = [n for n, c in CRASHES.items() if c["expect"] == "invalid"]


def follow_of(case: dict) -> str:
    return case["overrides"].get("FOLLOW", "C")


@pytest.mark.parametrize("name", PASSING)
def test_degenerate_run_passes(name, tmp_path):
    case = CRASHES[name]
    proc = run_cli(cli_args(case["overrides"], tmp_path))
    label = f"{name} (seed: {case['error']})"
    assert "Traceback" not in proc.stderr, f"{label}: traceback\n{proc.stderr[-2000:]}"
    assert proc.returncode == 0, f"{label}: exit {proc.returncode}\n{proc.stderr[-2000:]}"
    assert not missing_parts(proc.stdout), f"{label}: output lacks {missing_parts(proc.stdout)}"
    lines = proc.stdout.splitlines()
    assert any(line.startswith("PASS:") for line in lines), f"{label}: no PASS: line"

    code = case.get("follow_rejected")
    if code:
        follow = re.escape(follow_of(case))
        hits = [line for line in lines if re.search(rf"(?<!\w){follow}(?!\w)", line) and re.search(rf"\b{code}\b",
                                                                                                   line)]
        assert hits, f"{label}: no line names the followed request {follow_of(case)} with {code}"

    for rid, pieces in case.get("unknown_pieces", {}).items():
        # name the unknown characters; when every character is known (BPE stopped at an intermediate
        # merge that is not in the vocabulary), name the missing pieces instead
        names = case["unknown_chars"][rid] or pieces
        hits = [line for line in lines if re.search(r"\b400\b", line) and all(n in line for n in names)]
        assert hits, f"{label}: no 400 line naming {names} (not in the vocabulary) for request {rid}"


@pytest.mark.parametrize("name", INVALID)
def test_invalid_input_is_rejected(name, tmp_path):
    case = CRASHES[name]
    proc = run_cli(cli_args(case["overrides"], tmp_path))
    label = f"{name} (seed: {case['error']})"
    assert "Traceback" not in proc.stderr, f"{label}: traceback\n{proc.stderr[-2000:]}"
    assert proc.returncode == 2, f"{label}: exit {proc.returncode}, want 2\n{proc.stderr[-2000:]}"
    assert any(flag in proc.stderr for flag in case["flags"]), (f"{label}: stderr names none of {case['flags']}: "
                                                                f"{proc.stderr!r}")


def test_crash_list_still_crashes_the_seed():
    """Seed side only: every listed case still crashes the seed with the recorded error."""
    changed = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, case in CRASHES.items():
            _, err = seed_program.run(case["overrides"])
            if err != case["error"]:
                changed.append((name, case["error"], err))
    assert not changed, f"run python3 tests/make_golden.py; changed: {changed}"
