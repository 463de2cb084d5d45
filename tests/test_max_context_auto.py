"""MAX_CONTEXT = auto (issue 42, core/inputs/context.py): the seed's 24 without a recorded trace, the window's
longest request with one, capped by what the run can hold; an explicit number is used as it is; the header and
--json say what set it.

Hand-checkable reference: the conversation trace's first 3 requests are 374 + 44, 396 + 109 and 879 + 55 tokens, so
auto is 934; the code trace's first 4 are 4,818, 3,188, 137 and 7,447 tokens, so under Llama-2-7B (4,096) two of
them are clipped; the seed clock's pool of 12 blocks of 4 holds 12 × 4 + 1 = 49 tokens.
"""
from __future__ import annotations

import json

from cli_runner import run_cli
from inference_lab.core.inputs import trace_workload, workload
from inference_lab.core.inputs.config import Config, validate

TOK = workload.tokenizer(10)
CONV3 = dict(WORKLOAD_TRACE="azure-conv", WORKLOAD_REQUESTS=3)


def test_without_a_trace_auto_is_the_seeds_24():
    assert Config().MAX_CONTEXT == 24 and Config().max_context_auto is None
    assert Config.from_values(dict(WORKLOAD_REQUESTS=4)).MAX_CONTEXT == 24       # the generator keeps the seed's
    assert Config.from_values(dict(CLOCK="roofline")).MAX_CONTEXT == 24
    assert Config(MAX_CONTEXT=20).MAX_CONTEXT == 20 and validate(dict(MAX_CONTEXT="auto")) == []
    assert [p.key for p in validate(dict(MAX_CONTEXT="big"))] == ["not_an_integer"]


def test_auto_plays_the_traces_own_lengths():
    cfg = Config.from_values(dict(CONV3, POOL_BLOCKS=300))
    assert cfg.MAX_CONTEXT == 934
    assert cfg.max_context_auto == dict(value=934, longest=934, cap=None, by="trace", blocks=None)
    lengths = [(len(TOK.encode(r["text"])[1]), r["max_new"]) for r in cfg.REQUESTS]
    assert lengths == [(374, 44), (396, 109), (879, 55)]
    assert trace_workload.clipped(cfg.to_values()) == 0


def test_auto_stops_at_what_the_run_can_hold():
    pool = Config.from_values(CONV3)                                             # the seed clock's 12 blocks of 4
    assert (pool.MAX_CONTEXT, pool.max_context_auto["by"], pool.max_context_auto["blocks"]) == (49, "pool", 12)
    assert trace_workload.clipped(pool.to_values()) == 3
    model = Config.from_values(dict(CLOCK="roofline", SHADOW_MODEL="Llama-2-7B", WORKLOAD_TRACE="azure-code",
                                    WORKLOAD_REQUESTS=4, BLOCK_SIZE=16))
    assert model.max_context_auto == dict(value=4096, longest=7447, cap=4096, by="model", blocks=None)
    assert trace_workload.clipped(model.to_values()) == 2
    gpu = Config.from_values(dict(CLOCK="roofline", WORKLOAD_TRACE="azure-code", WORKLOAD_REQUESTS=4, BLOCK_SIZE=16,
                                  GPU_MEMORY_UTILIZATION=0.215))                 # room for 155 blocks of 16
    assert gpu.max_context_auto == dict(value=155 * 16 + 1, longest=7447, cap=2481, by="gpu", blocks=155)
    assert gpu.POOL_BLOCKS == 155                                                 # the pool then holds the longest
    explicit = Config.from_values(dict(CONV3, POOL_BLOCKS=300, MAX_CONTEXT=24))
    assert explicit.MAX_CONTEXT == 24 and explicit.max_context_auto is None
    assert trace_workload.clipped(explicit.to_values()) == 3


def test_the_header_and_json_say_what_set_it():
    argv = ["--workload-trace", "azure-conv", "--workload-requests", "3", "--json"]
    for lang, said in (("vi", "context tối đa 934 (auto: yêu cầu dài nhất của cửa sổ, prompt + đầu ra = 934 token)"),
                       ("en", "max context 934 (auto: the window's longest request, prompt + output = 934 tokens)")):
        out = run_cli([*argv, "--pool-blocks", "300", "--slots", "3", "--token-budget", "512", "--lang", lang])
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)
        assert said in "\n".join(report["header"]) and report["config"]["MAX_CONTEXT"] == 934
        assert report["header_data"]["max_context_auto"]["by"] == "trace"
    out = run_cli([*argv, "--lang", "en"])
    header = "\n".join(json.loads(out.stdout)["header"])
    assert "max context 49 (auto: the most the KV pool holds, POOL_BLOCKS 12 x BLOCK_SIZE 4 + 1" in header
    assert "clipped to fit MAX_CONTEXT 49 for 3 of the 3 requests" in header
    out = run_cli([*argv, "--max-context", "24", "--lang", "en"])
    report = json.loads(out.stdout)
    assert "max context 24." in "\n".join(report["header"]) and "max_context_auto" not in report["header_data"]
