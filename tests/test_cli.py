"""CLI contract of `python -m inference_lab`: exit codes, error messages, --json.

Invalid input -> exit 2 with a message on stderr naming the flag (every bad flag when there are several),
never a traceback. --json -> one JSON document with keys header, blocks (13), summary, checks, passed.
The cases run in this process through cli.main (cli_runner.run_cli); the few marked "new interpreter"
run the real `python -m inference_lab` (cli_runner.run_module).
"""
from __future__ import annotations

import json

import pytest

from cli_runner import run_cli, run_module


def assert_rejected(proc, *flags: str) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 2, f"exit {proc.returncode}, want 2; stderr: {proc.stderr[-2000:]}"
    for flag in flags:
        assert flag in proc.stderr, f"stderr does not name {flag}: {proc.stderr!r}"


def test_non_integer_slots():
    assert_rejected(run_cli(["--slots", "abc"]), "--slots")


def test_huge_slots():
    assert_rejected(run_cli(["--slots", "1000000000"]), "--slots")


def test_huge_pool():
    assert_rejected(run_cli(["--pool-blocks", "1000000000"]), "--pool-blocks")


def test_unknown_flag():
    assert_rejected(run_cli(["--no-such-flag", "3"]), "--no-such-flag")


def test_missing_value():
    assert_rejected(run_cli(["--slots"]), "--slots")


def test_stray_positional_argument():
    proc = run_cli(["surprise"])
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 2


def test_several_bad_flags_are_all_named():
    """New interpreter: exit status 2 and the messages on stderr of the real process."""
    proc = run_module(["--slots", "abc", "--block-size", "0", "--quant-bits", "99", "--quality-gate", "2"])
    assert_rejected(proc, "--slots", "--block-size", "--quant-bits", "--quality-gate")


@pytest.mark.parametrize("flag,value", [
    ("--slots", "0"), ("--slots", "-1"), ("--slots", "2.5"), ("--queue-limit", "-1"), ("--token-budget", "0"),
    ("--block-size", "0"), ("--pool-blocks", "0"), ("--quant-bits", "1"), ("--quant-bits", "99"),
    ("--max-context", "0"), ("--seed", "-1"), ("--seed", "1.5"), ("--n-merges", "-1"), ("--n-merges", "x"),
    ("--cost-gateway", "-1"), ("--cost-tokenize-per-token", "-5"), ("--cost-decode-fixed", "abc"),
    ("--cost-decode-per-seq", "-1"), ("--cost-prefill-fixed", "-1"), ("--cost-prefill-per-token", "1e999"),
    ("--ttft-slo", "-1"), ("--quality-gate", "1.5"), ("--quality-gate", "-0.1"), ("--quality-gate", "nan"),
    ("--quality-gate", "abc"), ("--follow", ""),
])
def test_invalid_value(flag, value):
    assert_rejected(run_cli([flag, value]), flag)


@pytest.fixture
def requests_file(tmp_path):
    def write(content: str):
        path = tmp_path / "requests.json"
        path.write_text(content, encoding="utf-8")
        return str(path)
    return write


GOOD_REQUEST = dict(id="C", arrival=0, text="ban hoc model", max_new=8, temperature=0.8, top_k=5, top_p=0.9, seed=4)


@pytest.mark.parametrize("content", [
    "this is not json",
    "{}",
    "[1, 2, 3]",
    json.dumps([{k: v for k, v in GOOD_REQUEST.items() if k != "text"}]),
    json.dumps([dict(GOOD_REQUEST, max_new="eight")]),
    json.dumps([dict(GOOD_REQUEST, arrival=-5)]),
    json.dumps([dict(GOOD_REQUEST, top_p=0.0)]),
    json.dumps([dict(GOOD_REQUEST, temperature=-1.0)]),
    json.dumps([GOOD_REQUEST, GOOD_REQUEST]),
], ids=["not-json", "object", "numbers", "missing-text", "string-max-new", "negative-arrival", "top-p-zero",
        "negative-temperature", "duplicate-id"])
def test_invalid_requests_file(content, requests_file):
    assert_rejected(run_cli(["--requests", requests_file(content)]), "--requests")


def test_missing_requests_file(tmp_path):
    assert_rejected(run_cli(["--requests", str(tmp_path / "nope.json")]), "--requests")


def test_valid_requests_file_runs(requests_file):
    proc = run_cli(["--requests", requests_file(json.dumps([GOOD_REQUEST]))])
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.rstrip("\n").splitlines()[-1].startswith("PASS:")


def load_report(args: list[str], run=run_cli) -> dict:
    proc = run(["--json", *args])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode in (0, 1), f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    report = json.loads(proc.stdout)
    assert isinstance(report, dict)
    assert {"header", "blocks", "summary", "checks", "passed"} <= set(report), sorted(report)
    assert len(report["blocks"]) == 13
    assert isinstance(report["passed"], bool)
    assert (proc.returncode == 0) == report["passed"]
    return report


def test_json_report_default():
    """New interpreter: --json prints one JSON document that holds every line of the text output."""
    report = load_report([], run=run_module)
    assert report["passed"] is True
    assert report["checks"]
    from inference_lab.entrypoints.report import Report
    assert Report.from_dict(report).to_text() == run_cli([]).stdout


def test_json_report_degenerate_config():
    """The seed crashes with SLOTS=1 (C is rejected); the JSON report must still be complete."""
    load_report(["--slots", "1"])


def test_json_with_bad_flag_is_still_exit_2():
    assert_rejected(run_cli(["--json", "--slots", "abc"]), "--slots")
