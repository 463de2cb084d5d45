"""Block [11] with a recorded trace (issue 42): the trace's prompt and output lengths and gaps between arrivals
against the generator's with the same count, mean rate and mean lengths (trace_workload.distributions), by hand
on a four-request file, in the block's data ("distributions", report.py) and lines in both languages, and the
generator's gaps drawn exactly as a run of the generator draws them (workload.arrivals).
"""
from __future__ import annotations

import json

import numpy as np

from inference_lab.core.inputs import trace_workload, workload
from inference_lab.entrypoints import web

TRACE = dict(WORKLOAD_TRACE="azure-conv", WORKLOAD_REQUESTS=40, MAX_CONTEXT=2048)


def values(name: str, n: int) -> dict:
    return dict(WORKLOAD_TRACE=name, WORKLOAD_TRACE_START=0.0, WORKLOAD_TRACE_DURATION=0.0, WORKLOAD_TIME_SCALE=1.0,
                WORKLOAD_REQUESTS=n, WORKLOAD_SEED=0, N_MERGES=10, MAX_CONTEXT=2048)


def test_distributions_by_hand(tmp_path):
    path = tmp_path / "four.csv"
    path.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:00:00.0,10,1\n"
                    "2023-11-16 18:00:01.0,20,2\n2023-11-16 18:00:01.5,30,3\n2023-11-16 18:00:04.0,100,10\n")
    d = trace_workload.distributions(values(str(path), 4))
    assert d["requests"] == 4 and d["rate"] == 0.75                       # 3 gaps in 4 s
    assert d["trace"]["prompt"] == dict(mean=40.0, p50=25.0, p90=79.0, p99=97.9, max=100.0)
    gap = d["trace"]["gap"]                                              # 1000, 500, 2500 ms
    assert (gap["mean"], gap["p50"], gap["max"]) == (1333.33, 1000.0, 2500.0)
    assert gap["cv"] == round(float(np.std([1000, 500, 2500]) / np.mean([1000, 500, 2500])), 3)   # 0.624
    assert gap["peak_1s"] == 2                                           # 1.0 s and 1.5 s share a second
    assert d["generator"]["prompt"] == dict(mean=40.0, p50=40.0, p90=40.0, p99=40.0, max=40.0)
    assert d["generator"]["output"]["p99"] == 4.0                        # mean 4 tokens, every request the same


def test_the_generators_gaps_are_the_generators_own():
    tok = workload.tokenizer(10)
    trace = workload.generate(tok, requests=6, prompt=8, output=2, rate=5.0, seed=3)
    at = workload.arrivals(np.random.default_rng(3), 6, 5.0)
    assert [r["arrival"] for r in trace] == at.tolist()


def test_block_11_prints_and_carries_the_trace_against_the_generator_in_both_languages():
    for lang, head, lesson in (("vi", "Trace so với bộ sinh", "Vì sao trung bình đánh lừa"),
                               ("en", "The trace against the generator", "Why averages mislead")):
        out = json.loads(web.run(json.dumps(TRACE), lang=lang))
        block = next(b for b in out["report"]["blocks"] if b["number"] == 11)
        d = block["data"]["distributions"]
        assert d == trace_workload.distributions(values("azure-conv", 40))
        assert d["trace"]["gap"]["cv"] > d["generator"]["gap"]["cv"] * 1.2      # the trace comes in bursts
        assert d["trace"]["prompt"]["p99"] > 2 * d["trace"]["prompt"]["mean"]   # and has a long tail
        text = "\n".join(block["lines"])
        assert head in text and lesson in text
        assert f"WORKLOAD_PROMPT={d['generator']['prompt']['mean']:g}" in text


def test_a_run_without_a_recorded_trace_has_no_distributions():
    out = json.loads(web.run(json.dumps(dict(WORKLOAD_REQUESTS=8))))
    block = next(b for b in out["report"]["blocks"] if b["number"] == 11)
    assert "distributions" not in block["data"]
