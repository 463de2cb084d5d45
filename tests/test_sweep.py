"""A load sweep (issue 42 §Load sweeps, entrypoints/sweep.py): one run per value, the rows' figures, the knee rule,
Little's law measured on the run, the command line's text and JSON in both languages, and bad input.

Hand-checkable reference: knee([1, 2, 4, 8], [10, 19, 30, 31]) is 2 (30 → 31 grew 3 % for a 100 % rise).
"""
from __future__ import annotations

import json

import pytest

from cli_runner import run_cli
from inference_lab.entrypoints import sweep

BASE = ["--clock", "roofline", "--workload-trace", "azure-conv", "--workload-requests", "16", "--max-context", "8192",
        "--slots", "32", "--token-budget", "8192", "--queue-limit", "32"]


def test_knee_rule_by_hand():
    assert sweep.knee([1.0, 2.0, 4.0, 8.0], [10.0, 19.0, 30.0, 31.0]) == 2
    assert sweep.knee([1.0, 2.0, 4.0], [10.0, 20.0, 40.0]) is None
    assert sweep.knee([1.0, 2.0], [10.0, 10.0]) == 0


def test_parse_axis():
    assert sweep.parse_axis("WORKLOAD_RATE=1,2,4") == ("WORKLOAD_RATE", [1.0, 2.0, 4.0])
    assert sweep.parse_axis("slots=1, 8") == ("SLOTS", [1, 8])
    for bad in ("WORKLOAD_RATE", "NOPE=1", "SLOTS="):
        with pytest.raises(ValueError):
            sweep.parse_axis(bad)


def test_in_system_by_hand():
    class R:
        def __init__(self, arrival, finish):
            self.arrival, self.finish = arrival, finish
    # one request 0–10, one 5–15: area 20 over a span of 15
    assert sweep.in_system([R(0, 10), R(5, 15)]) == pytest.approx(20 / 15)


def test_cli_sweep_json_rows_and_little():
    out = run_cli([*BASE, "--sweep", "WORKLOAD_TIME_SCALE=1,16", "--json"])
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["name"] == "WORKLOAD_TIME_SCALE" and [p["value"] for p in result["points"]] == [1.0, 16.0]
    slow, fast = result["points"]
    assert slow["served"] == fast["served"] == 16
    assert fast["throughput"] > slow["throughput"]                       # same requests, 16× the rate
    for p in result["points"]:
        assert set(p["ttft"]) == {"p50", "p90", "p99"} and p["ttft"]["p50"] <= p["ttft"]["p99"]
        little = p["little"]
        assert little["L"] == pytest.approx(little["lam"] * little["W"], rel=1e-3) and little["gap"] < 1e-3
    assert fast["little"]["L"] > slow["little"]["L"]                     # more in the system at a higher rate


def test_cli_sweep_text_both_languages():
    for lang, head in (("vi", "QUÉT WORKLOAD_RATE"), ("en", "SWEEP WORKLOAD_RATE")):
        out = run_cli(["--clock", "roofline", "--workload-requests", "8", "--workload-prompt", "64",
                       "--max-context", "512", "--queue-limit", "8", "--sweep",
                       "WORKLOAD_RATE=1,4", "--lang", lang])
        assert out.returncode == 0, out.stderr
        assert out.stdout.startswith(head) and out.stdout.count("Little") == 2


def test_cli_sweep_bad_input_names_the_point():
    out = run_cli(["--sweep", "SLOTS=1,0", "--lang", "en"])
    assert out.returncode == 2 and "--sweep SLOTS=0" in out.stderr
    out = run_cli(["--sweep", "NOPE=1", "--lang", "en"])
    assert out.returncode == 2 and "NAME=V1,V2" in out.stderr


def test_a_sweep_over_a_recorded_trace_says_how_many_requests_were_clipped():
    """A MAX_CONTEXT below the trace's prompts (~1,000 tokens) clips them: each point says so. (Its default, auto,
    fits the trace: the next test.)"""
    base = ["--clock", "roofline", "--workload-trace", "azure-conv", "--workload-requests", "6", "--max-context", "24",
            "--sweep", "WORKLOAD_TIME_SCALE=1,2"]
    out = run_cli([*base, "--json"])
    assert out.returncode == 0, out.stderr
    assert [p["clipped"] for p in json.loads(out.stdout)["points"]] == [dict(n=6, of=6, max_context=24)] * 2
    for lang, said in (("vi", "ở 6 trên 6 yêu cầu của trace"), ("en", "for 6 of the trace's 6 requests")):
        out = run_cli([*base, "--lang", lang])
        assert out.returncode == 0 and out.stdout.count(said) == 2, out.stderr
    out = run_cli([*base, "--max-context", "8192", "--json"])
    assert {p["clipped"]["n"] for p in json.loads(out.stdout)["points"]} == {0}


def test_a_sweep_over_a_recorded_trace_with_max_context_auto_plays_its_own_lengths():
    """MAX_CONTEXT's default, auto (core/inputs/context.py), is the window's longest request: the conversation
    trace's first 6 requests (418, 505, 934, 107, 107, 465 tokens of prompt + output) run unclipped at 934. Under a
    model of 4,096 tokens (Llama-2-7B) auto stops there: of the code trace's first 4 (4,818, 3,188, 137, 7,447)
    two are clipped, and the point says so."""
    base = ["--clock", "roofline", "--workload-trace", "azure-conv", "--workload-requests", "6", "--slots", "8",
            "--token-budget", "8192", "--sweep", "WORKLOAD_TIME_SCALE=1,2", "--json"]
    out = run_cli(base)
    assert out.returncode == 0, out.stderr
    assert [p["clipped"] for p in json.loads(out.stdout)["points"]] == [dict(n=0, of=6, max_context=934)] * 2
    out = run_cli([*base[:3], "azure-code", "--workload-requests", "4", *base[6:], "--shadow-model", "Llama-2-7B"])
    assert out.returncode == 0, out.stderr
    assert [p["clipped"] for p in json.loads(out.stdout)["points"]] == [dict(n=2, of=4, max_context=4096)] * 2
