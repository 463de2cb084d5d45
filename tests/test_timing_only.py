"""Timing-only runs (issue 42: an hour of the conversation trace searched on the command line): replay.timing_only
says when no figure depends on the tokens' values, and then a ReplayEngine with placeholder tokens (no model)
must give the full run's clock exactly: every step's start, end and tasks, every request's TTFT, TPOT, e2e and
finish, the refusals, the preemptions and the goodput. The cases are small recorded-trace runs that exercise the
scheduler's rules: one engine, chunked prefill under a small budget, preemption in a small pool, replicas behind a
router, disaggregated prefill and decode, tensor parallelism on another GPU, the code trace.

Also: the points of --sweep/--search say which way they ran; more than MAX_WORKLOAD requests of a trace file only
for timing-only --sweep/--search points; the same search of timing-only points gives the same rows on local
processes and on a local Ray (ray.init(num_cpus=2)).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_cli
from inference_lab.core.cluster.cluster import run_cluster
from inference_lab.core.cluster.goodput import goodput
from inference_lab.core.inputs.config import Config, ConfigError
from inference_lab.core.inputs.schema import MAX_WORKLOAD
from inference_lab.core.serving.engine import RunOptions, run_engine
from inference_lab.core.serving.metrics import request_metrics
from inference_lab.core.serving.replay import replay_engine, timing_only, tokens_matter
from inference_lab.entrypoints import search
from inference_lab.entrypoints.cluster_data import is_cluster
from inference_lab.entrypoints.sweep import run_point
from inference_lab.entrypoints.weights import Lab

CONV = Path(__file__).resolve().parents[2] / "shared" / "traces" / "azure-llm-inference-2023" / \
    "AzureLLMInferenceTrace_conv.csv"
BASE = dict(CLOCK="roofline", WORKLOAD_TRACE="azure-conv", WORKLOAD_REQUESTS=16, IGNORE_EOS="on", MAX_CONTEXT=4096,
            WORKLOAD_TIME_SCALE=20.0, SLOTS=8, TOKEN_BUDGET=512)
CASES = {
    "one engine": {},
    "small budget": dict(TOKEN_BUDGET=64, SLOTS=4),
    "preemption": dict(POOL_BLOCKS=120, BLOCK_SIZE=16),
    "replicas": dict(REPLICAS=2, ROUTER="least_loaded", POOL_BLOCKS=180, BLOCK_SIZE=16),
    "disaggregated": dict(REPLICAS=3, DISAGG="on", PREFILL_REPLICAS=1),
    "tp2 on A100, code trace": dict(WORKLOAD_TRACE="azure-code", TENSOR_PARALLEL=2, GPU="A100-SXM4-80GB"),
}


def both_runs(values: dict):
    cfg = Config.from_values(values)
    lab = Lab.build(cfg)
    full = (run_cluster if is_cluster(cfg) else run_engine)(lab, RunOptions("continuous", cfg.TOKEN_BUDGET,
                                                                            check=False))
    fast = (run_cluster if is_cluster(cfg) else replay_engine)(lab, RunOptions("continuous", cfg.TOKEN_BUDGET,
                                                                               check=False, timing_only=True))
    return cfg, full, fast


@pytest.mark.parametrize("case", list(CASES))
def test_timing_only_equals_the_full_run(case):
    cfg, full, fast = both_runs({**BASE, **CASES[case]})
    assert timing_only(cfg)
    steps = lambda r: [(i["start"], i["end"], i["tasks"]) for i in r.log.items]            # noqa: E731
    per = lambda r: [(s.id, request_metrics(s), s.arrival, s.finish, len(s.out)) for s in r.done]   # noqa: E731
    assert len(full.log.items) > 20 and steps(fast) == steps(full)
    assert full.done and per(fast) == per(full)
    assert [(s.id, code) for s, code in fast.rejected] == [(s.id, code) for s, code in full.rejected]
    assert fast.log.happenings("preempt") == full.log.happenings("preempt")
    assert goodput(fast.done, cfg.TTFT_SLO, cfg.TPOT_SLO) == goodput(full.done, cfg.TTFT_SLO, cfg.TPOT_SLO)
    assert fast.end == full.end
    assert all(tok == 2 for s in fast.done for tok in s.out)         # placeholders: no model ran
    if case == "preemption":
        assert full.log.happenings("preempt")                       # the case does preempt


def test_when_tokens_matter_the_full_run_is_kept():
    trace = dict(CLOCK="roofline", WORKLOAD_TRACE="azure-code", WORKLOAD_REQUESTS=4, MAX_CONTEXT=4096)
    assert tokens_matter(Config.from_values({**trace, "IGNORE_EOS": "on"})) == []
    assert tokens_matter(Config.from_values(trace)) == ["eos"]
    assert tokens_matter(Config.from_values({**trace, "IGNORE_EOS": "on", "PREFIX_CACHE": "on"})) == ["prefix"]
    assert tokens_matter(Config.from_values({**trace, "IGNORE_EOS": "on", "SPEC_METHOD": "ngram"})) == ["spec"]
    assert tokens_matter(Config()) == ["requests", "eos"]                     # the seed's own trace
    assert run_point({**trace, "IGNORE_EOS": "on"})["timing_only"] is True
    assert run_point(trace)["timing_only"] is False


def test_more_than_max_workload_requests_only_from_a_trace_file():
    assert MAX_WORKLOAD == 1000
    with pytest.raises(ConfigError):                   # the shipped sample (the page's) keeps the cap
        Config.from_values(dict(WORKLOAD_TRACE="azure-conv", WORKLOAD_REQUESTS=MAX_WORKLOAD + 1))
    with pytest.raises(ConfigError):                   # so does the generator
        Config.from_values(dict(WORKLOAD_REQUESTS=MAX_WORKLOAD + 1))
    cfg = Config.from_values(dict(CLOCK="roofline", WORKLOAD_TRACE=str(CONV), WORKLOAD_REQUESTS=1500,
                                  IGNORE_EOS="on", MAX_CONTEXT=8192))
    assert len(cfg.REQUESTS) == 1500


def test_cli_long_trace_only_for_timing_only_sweep_or_search():
    base = ["--clock", "roofline", "--workload-trace", str(CONV), "--workload-requests", "1200",
            "--max-context", "8192", "--lang", "en"]
    out = run_cli(base)                                             # a 13-block run of 1,200 requests: refused
    assert out.returncode == 2 and "more than 1000 requests run only with --sweep or --search" in out.stderr
    out = run_cli([*base, "--sweep", "SLOTS=8,16"])                 # IGNORE_EOS off: full points, refused
    assert out.returncode == 2 and "--workload-requests 1200" in out.stderr


def test_cli_says_how_the_points_ran():
    base = ["--clock", "roofline", "--workload-trace", "azure-code", "--workload-requests", "6",
            "--max-context", "4096", "--sweep", "SLOTS=4,8"]
    out = run_cli([*base, "--ignore-eos", "on", "--lang", "en"])
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[1].startswith("Each point is timing-only")
    out = run_cli(base)
    assert out.returncode == 0, out.stderr
    line = out.stdout.splitlines()[1]
    assert line.startswith("Mỗi điểm là một lần chạy đủ") and "IGNORE_EOS = off" in line
    rows = json.loads(run_cli([*base, "--ignore-eos", "on", "--json"]).stdout)["points"]
    assert [r["timing_only"] for r in rows] == [True, True]


def test_a_trace_search_of_timing_only_points_agrees_on_local_and_ray():
    import ray                                       # requirements-dev.txt installs Ray: never skipped
    base = dict(CLOCK="roofline", WORKLOAD_TRACE="azure-conv", WORKLOAD_REQUESTS=24, IGNORE_EOS="on",
                MAX_CONTEXT=8192, SLOTS=16, TOKEN_BUDGET=1024, WORKLOAD_TIME_SCALE=4.0, TTFT_SLO=400_000)
    axes = [("REPLICAS", [1, 2]), ("GPU", ["H100-SXM5-80GB", "A100-SXM4-80GB"])]
    local = search.search(base, axes, 0.9, "local", workers=2)
    assert all(r["ok"] and r["timing_only"] for r in local["points"])
    on_ray = search.search(base, axes, 0.9, "ray", workers=2)             # a local Ray: ray.init(num_cpus=2)
    assert not ray.is_initialized()
    assert on_ray["answer"] == local["answer"] and on_ray["pareto"] == local["pareto"]
    assert json.dumps(on_ray["points"]) == json.dumps(local["points"])
