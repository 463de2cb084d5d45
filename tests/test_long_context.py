"""Long context (issue 40): a 32,768-token prompt is served at its full length while the lab's NumPy model computes
its stand-in (model.stand_in_skip: the last STAND_IN = 1,024 tokens at the model's positions 0 ..).

A smaller version of the issue's long-context run (64 × 32,768 × 128 on H100, Llama-3.1-8B, TP 1; timed by
bench/long_context.py): 8 requests × 32,768-token prompts × 16 tokens. By hand:
- blocks: a finished sequence caches prompt + max_new − 1 = 32,783 positions = ⌈32,783 ÷ 16⌉ = 2,049 blocks of 16;
- prefill chunks: TOKEN_BUDGET 8,192 → R1's prompt is 4 chunks of 8,192 (it runs alone in the first steps);
- decode: Llama-3.1-8B keeps 2 × 32 layers × 8 KV heads × 128 dims × 2 bytes = 131,072 bytes per position, so a
  decode at context c reads c × 131,072 bytes of KV on top of the weights (32,768 positions: 4 GiB);
- the model: 32,768 − 1,024 = 31,744 positions are never computed; the last prefill row sits at model position 1,023.
"""
from __future__ import annotations

import pytest

from inference_lab import run
from inference_lab.core.clock.hardware import MODELS
from inference_lab.core.inputs.config import Config, ConfigError
from inference_lab.core.model.model import LONG_PROMPT, STAND_IN, stand_in_skip
from inference_lab.core.serving.engine import RunOptions, run_engine
from inference_lab.entrypoints.lab import render
from inference_lab.entrypoints.weights import Lab

PROMPT, OUT, N = 32768, 16, 8
LONG = dict(CLOCK="roofline", GPU="H100-SXM5-80GB", SHADOW_MODEL="Llama-3.1-8B", WORKLOAD_REQUESTS=N,
            WORKLOAD_PROMPT=PROMPT, WORKLOAD_OUTPUT=OUT, SLOTS=64, QUEUE_LIMIT=64, BLOCK_SIZE=16, POOL_BLOCKS="auto",
            MAX_CONTEXT=PROMPT + 128, TOKEN_BUDGET=8192, IGNORE_EOS="on")
KV_PER_TOKEN = 2 * 32 * 8 * 128 * 2                       # Llama-3.1-8B at 16 bits: 131,072 bytes


@pytest.fixture(scope="module")
def long_run():
    lab = Lab.build(Config.from_values(LONG))
    return lab, run_engine(lab, RunOptions("continuous", lab.cfg.TOKEN_BUDGET, check=True))


def test_the_stand_in_rule():
    assert (LONG_PROMPT, STAND_IN) == (8192, 1024)
    assert stand_in_skip(LONG_PROMPT) == 0 and stand_in_skip(LONG_PROMPT + 1) == LONG_PROMPT + 1 - STAND_IN
    assert stand_in_skip(PROMPT) == 31744
    assert MODELS["Llama-3.1-8B"].kv_bytes_per_token(16) == KV_PER_TOKEN


def test_prompts_reach_32k_and_not_beyond_the_bound():
    cfg = Config.from_values(dict(LONG, WORKLOAD_REQUESTS=2))
    assert cfg.WORKLOAD_PROMPT == PROMPT
    with pytest.raises(ConfigError, match="WORKLOAD_PROMPT"):
        Config.from_values(dict(LONG, WORKLOAD_PROMPT=PROMPT + 1))


def test_every_request_is_served_at_full_length_with_its_stand_in(long_run):
    _, res = long_run
    assert len(res.done) == N and not res.rejected
    for seq in res.done:
        assert seq.prompt_len == PROMPT and seq.stand_in_skip == PROMPT - STAND_IN and seq.stand_in_len == STAND_IN
        assert len(seq.out) == OUT and seq.reason == "max_new_tokens"
        assert len(seq.history) == PROMPT + OUT - 1                    # every position served, the model's or not


def test_kv_blocks_cover_the_full_prompt(long_run):
    _, res = long_run
    released = {rid: blocks for _, rid, blocks in res.log.noted("release")}
    assert {rid: len(b) for rid, b in released.items()} == {f"R{i}": 2049 for i in range(1, N + 1)}
    assert not res.problems and len(res.pool.free) == res.pool.num_blocks          # all given back, audit clean


def test_prefill_is_chunked_over_the_token_budget(long_run):
    _, res = long_run
    chunks = [n for it in res.log.items for rid, phase, n in it["tasks"] if rid == "R1" and phase == "prefill"]
    assert chunks == [8192] * 4
    for it in res.log.items:
        assert sum(n for _, phase, n in it["tasks"] if phase == "prefill") <= 8192


def test_decode_cost_reads_the_kv_of_32k_positions(long_run):
    lab, res = long_run
    clock = res.log.items
    decodes = [it for it in clock if it["tasks"] and all(p == "decode" for _, p, _ in it["tasks"])]
    assert decodes
    from inference_lab.core.clock.roofline import Clock
    c = Clock(lab.cfg, lab.tokenizer.vocab_size)
    for it in decodes[:3]:
        b = len(it["tasks"])
        bare = c.cost([(1, 0, 1)] * b)                                   # the same decode with no context
        full = c.cost([(1, PROMPT, 1)] * b)
        assert full.bytes - bare.bytes >= b * PROMPT * KV_PER_TOKEN      # 4 GiB of KV per sequence
        assert it["cost"]["bytes"] >= full.bytes                        # its context is at least the prompt


def test_the_model_computed_only_the_stand_in(long_run):
    _, res = long_run
    lp = res.trace["last_prefill"]["R1"]
    assert lp["position"] == STAND_IN - 1 and lp["prob"].shape[-1] == STAND_IN
    assert res.trace["first_decode"]["R1"]["position"] == STAND_IN
    assert res.trace["parity"] <= 1e-9 and res.trace["gather"] <= 1e-9         # the cache check on the stand-in
    assert res.trace["positions_cached"] == N * (STAND_IN + OUT - 1)


@pytest.fixture(scope="module")
def two_long():
    """Two 32k-token prompts × 4 tokens, run once in Vietnamese; English by lab.render (no second engine run)."""
    vi = run(dict(LONG, WORKLOAD_REQUESTS=2, WORKLOAD_OUTPUT=4))
    return {"vi": vi, "en": render(vi, "en")}


@pytest.mark.parametrize("lang, words, shown", [
    ("vi", ["1024 token CUỐI", "stand-in", "31744 vị trí đầu"], "chỉ in và vẽ 24 từ đầu"),
    ("en", ["LAST 1024 tokens", "stand-in", "first 31744 positions"], "only its first 24 words")])
def test_block_4_says_so_and_block_2_prints_a_screen_of_it(two_long, lang, words, shown):
    report = two_long[lang]
    assert report.passed
    text = "\n".join(report.block(4).lines)
    assert all(w in text for w in words), text
    assert "(2, 1024, 4)" in text and "[8192, 8192, 8192, 8192]" in text
    block2 = "\n".join(report.block(2).lines)
    assert shown in block2 and "32768" in block2 and len(block2) < 5_000       # not the prompt's 32,768 tokens


def test_a_prompt_at_the_old_bound_has_no_stand_in():
    report = run(dict(LONG, WORKLOAD_REQUESTS=1, WORKLOAD_PROMPT=300, WORKLOAD_OUTPUT=2, MAX_CONTEXT=512))
    assert "stand-in" not in "\n".join(report.block(4).lines)


@pytest.mark.parametrize("extra", [
    dict(REPLICAS=2, DISAGG="on", PREFILL_REPLICAS=1),               # the prefill replica ships the stand-in's K/V
    dict(SPEC_METHOD="ngram", SPEC_TOKENS=3),                         # verify at the model's positions
    dict(PREFIX_CACHE="on", WORKLOAD_PREFIXES=1, WORKLOAD_SHARED=4096),   # shared blocks before the stand-in
    dict(POOL_BLOCKS=2100),                                           # one 2,049-block sequence at a time
], ids=["disagg", "ngram", "prefix-cache", "small-pool"])
def test_the_stand_in_with_the_engines_other_paths(extra):
    report = run(dict(LONG, WORKLOAD_REQUESTS=2, WORKLOAD_OUTPUT=4, **extra))
    assert report.passed, report.checks
    assert "stand-in" in "\n".join(report.block(4).lines)


def test_block_3_stays_a_screen_long_when_long_prompts_preempt_each_other():
    """The long-context command (64 x 32k-token prompts x 128 out, POOL_BLOCKS=auto on an H100) preempts thousands of
    times: block [3] prints the first 8 preemptions and one line counting the rest (words/limits.py), and no line lists
    every late request or every freed block (block [3] of this run printed 1.35 MB before)."""
    report = run(Config.from_values(dict(LONG, WORKLOAD_REQUESTS=64, WORKLOAD_OUTPUT=128)), lang="vi")
    lines = report.block(3).lines
    assert len(lines) <= 60 and max(map(len, lines)) <= 1200
    assert sum(line.startswith("Preemption ở bước") for line in lines) == 8
    assert any("lần preempt nữa" in line for line in lines)
