"""The generated workload (issue 22 §3, core/inputs/workload.py): exact prompt lengths, names R1 … RN, Poisson arrivals
reproducible by seed, shared prefixes, FOLLOW's fallback, the raised bounds, the header's count, block 12's
clock-only replay against a full model run, the long-sequence paths of the model, progress, and the scale
command run to the end (its time printed, never asserted).

Hand-checkable reference (N_MERGES = 10): "model" and "xin" are 1 token (model</w>, xin</w>), "ban" 3
(b a n</w>), "token" 5 (t o k e n</w>), a letter 2 ("a </w>"); every prompt starts with <bos>.
"""
from __future__ import annotations

import json
import time

import numpy as np
import pytest

from cli_runner import missing_parts, run_cli, run_module
from inference_lab import run
from inference_lab.core.inputs import workload
from inference_lab.core.inputs.config import Config, ConfigError, FIELD_BY_NAME, MAX_REQUESTS, MAX_TEXT_CHARS
from inference_lab.core.serving.engine import RunOptions, run_engine
from inference_lab.core.model.model import LONG, attention, attention_blocked, forward, logits_at, make_weights
from inference_lab.core.serving.replay import recorded, replay_engine
from inference_lab.entrypoints.weights import Lab

TOK = workload.tokenizer(10)
SCALE = ["--workload-requests", "64", "--workload-prompt", "2048", "--workload-output", "128", "--slots", "64",
         "--queue-limit", "64", "--block-size", "16", "--pool-blocks", "auto", "--max-context", "4096",
         "--token-budget", "8192"]


def lengths(trace) -> list[int]:
    return [len(TOK.encode(r["text"])[1]) for r in trace]


# ── the generator ──────────────────────────────────────────────────────────
def test_reference_case_by_hand():
    trace = workload.generate(TOK, requests=3, prompt=12, output=4, rate=100.0, seed=1, prefixes=1, shared=5)
    assert [r["id"] for r in trace] == ["R1", "R2", "R3"]
    assert [r["text"] for r in trace] == ["ban model token a", "ban model chao model model a", "ban model hoc xin a"]
    # <bos> + b a n</w> + model</w> = 5 (the shared prefix), + t o k e n</w> + a </w> = 12
    assert TOK.pieces("ban model token a") == ["<bos>", "b", "a", "n</w>", "model</w>", "t", "o", "k", "e", "n</w>",
                                               "a", "</w>"]
    assert lengths(trace) == [12, 12, 12]
    assert [r["arrival"] for r in trace] == [0, 53754, 57419]
    assert all(r["max_new"] == 4 and r["temperature"] == 0.0 and r["top_k"] == 0 and r["top_p"] == 1.0 for r in trace)
    assert [r["seed"] for r in trace] == [1, 2, 3]                       # WORKLOAD_SEED + i


@pytest.mark.parametrize("n_merges", [0, 1, 3, 10, 100])
def test_every_prompt_has_exactly_the_asked_length(n_merges):
    tok = workload.tokenizer(n_merges)
    for prompt in [p for p in range(2, 70) if workload.reachable(n_merges, p, 0, 0)] + [257, 1000]:
        trace = workload.generate(tok, requests=4, prompt=prompt, output=1, rate=0, seed=prompt)
        assert {len(tok.encode(r["text"])[1]) for r in trace} == {prompt}
        assert all(not tok.unknown(r["text"]) for r in trace)
    assert [p for p in range(2, 70) if not workload.reachable(n_merges, p, 0, 0)] == ([2, 4] if n_merges == 0 else [])


def test_arrivals_are_poisson_and_reproducible():
    a = workload.generate(TOK, 1000, 8, 1, rate=10.0, seed=5)
    b = workload.generate(TOK, 1000, 8, 1, rate=10.0, seed=5)
    c = workload.generate(TOK, 1000, 8, 1, rate=10.0, seed=6)
    times = np.array([r["arrival"] for r in a])
    assert a == b and [r["arrival"] for r in a] != [r["arrival"] for r in c]
    assert times[0] == 0 and np.all(np.diff(times) >= 0)
    gaps = np.diff(times) / 1e6                                          # seconds
    assert 0.09 < gaps.mean() < 0.11                                     # 1 / rate
    assert 0.85 < gaps.std() / gaps.mean() < 1.15                        # exponential: std = mean
    assert {r["arrival"] for r in workload.generate(TOK, 20, 8, 1, rate=0, seed=5)} == {0}


def test_shared_prefixes():
    trace = workload.generate(TOK, requests=7, prompt=40, output=1, rate=0, seed=3, prefixes=3, shared=17)
    ids = [TOK.encode(r["text"])[1] for r in trace]
    assert {len(i) for i in ids} == {40}
    heads = [tuple(i[:17]) for i in ids]
    assert [heads.index(h) for h in heads] == [0, 1, 2, 0, 1, 2, 0]     # request i uses prefix i mod 3
    assert len({tuple(i[17:]) for i in ids}) == 7                        # the rest is each request's own


# ── the config ─────────────────────────────────────────────────────────────
def test_config_uses_the_generated_trace_and_follow_falls_back():
    assert [r["id"] for r in Config().REQUESTS] == ["A", "B", "E", "C", "D"]
    cfg = Config.from_values({"WORKLOAD_REQUESTS": 7})
    assert [r["id"] for r in cfg.REQUESTS] == [f"R{i}" for i in range(1, 8)] and cfg.FOLLOW == "R1"
    assert Config.from_values({"WORKLOAD_REQUESTS": 7, "FOLLOW": "R5"}).FOLLOW == "R5"
    with pytest.raises(ConfigError, match="FOLLOW"):
        Config.from_values({"FOLLOW": "R5"})                             # an explicit trace keeps FOLLOW's check
    assert lengths(cfg.REQUESTS) == [16] * 7


def test_bounds():
    for name, at_least in dict(SLOTS=256, QUEUE_LIMIT=1024, MAX_CONTEXT=8192, TOKEN_BUDGET=16384,
                               WORKLOAD_REQUESTS=1000).items():
        assert FIELD_BY_NAME[name].max >= at_least, name
    assert Config.from_values({"WORKLOAD_REQUESTS": 1000}).REQUESTS[-1]["id"] == "R1000"
    with pytest.raises(ConfigError, match="WORKLOAD_REQUESTS"):
        Config.from_values({"WORKLOAD_REQUESTS": 1001})
    with pytest.raises(ConfigError, match="REQUESTS"):                   # the explicit trace stays small
        Config.from_values({"REQUESTS": [dict(Config().REQUESTS[0], id=f"X{i}") for i in range(MAX_REQUESTS + 1)]})
    with pytest.raises(ConfigError, match="80"):
        Config.from_values({"REQUESTS": [dict(Config().REQUESTS[0], text="x" * (MAX_TEXT_CHARS + 1))]})
    with pytest.raises(ConfigError, match="WORKLOAD_SHARED"):
        Config.from_values({"WORKLOAD_REQUESTS": 2, "WORKLOAD_PREFIXES": 1, "WORKLOAD_SHARED": 17})


def test_cli_flags_follow_and_header():
    explicit = run_cli(["--follow", "Z"])
    assert explicit.returncode == 2 and "--follow" in explicit.stderr
    out = run_cli(["--workload-requests", "7", "--follow", "Z", "--workload-rate", "50"])
    assert out.returncode == 0 and not missing_parts(out.stdout)
    lines = out.stdout.splitlines()
    assert lines[2].startswith("ĐẦU VÀO: 7 yêu cầu sinh tự động") and "theo dõi yêu cầu R1" in lines[2]
    assert lines[3].startswith("  R1 … R7: prompt đúng 16 token, max_new=8, greedy, seed 0 + i; đến theo Poisson 50")
    en = run_cli(["--workload-requests", "7", "--lang", "en"])
    assert en.stdout.splitlines()[2].startswith("INPUT: 7 generated requests")
    bad = run_cli(["--workload-requests", "2", "--n-merges", "0", "--workload-prompt", "4"])
    assert bad.returncode == 2 and "N_MERGES" in bad.stderr


# ── the run ────────────────────────────────────────────────────────────────
def test_replay_matches_a_full_model_run():
    """Block 12's clock-only replay gives the steps, tokens and times a run of the model gives."""
    cfg = Config.from_values({"WORKLOAD_REQUESTS": 9, "WORKLOAD_PROMPT": 14, "WORKLOAD_OUTPUT": 6, "SLOTS": 3,
                              "QUEUE_LIMIT": 3, "POOL_BLOCKS": 14, "WORKLOAD_RATE": 400.0})
    lab = Lab.build(cfg)
    main = run_engine(lab, RunOptions("continuous", cfg.TOKEN_BUDGET))
    assert main.rejected                                       # some refused 429: replay must decode them alone
    for policy, cap in (("static", None), ("continuous", None), ("continuous", 4)):
        full = run_engine(lab, RunOptions(policy, cap, check=False, detail=True))
        again = replay_engine(lab, RunOptions(policy, cap, detail=True, tokens=recorded(main)))
        assert [(r.id, r.out, r.token_times) for r in again.done] == [(r.id, r.out, r.token_times) for r in full.done]
        drop = ("cost",)
        assert [{k: v for k, v in it.items() if k not in drop} for it in again.log.items] == \
               [{k: v for k, v in it.items() if k not in drop} for it in full.log.items]
        assert again.end == full.end and len(again.preemptions) == len(full.preemptions)
        tally = replay_engine(lab, RunOptions(policy, cap, tokens=recorded(main))).log.items   # block 12 reads a tally
        told = lambda events: [e for e in events if e["kind"] not in ("budget", "chunk", "first")]  # noqa: E731
        assert [dict(it, events=told(it["events"])) for it in tally] == \
               [{k: (told(v) if k == "events" else v) for k, v in it.items() if k in tally[0]} for it in full.log.items]


def test_long_sequences_take_the_blocked_paths():
    rng = np.random.default_rng(0)
    Q, K, V = (rng.normal(size=(2, LONG + 40, 4)) for _ in range(3))
    ctx, prob = attention_blocked(Q, K, V, 0)
    scores = np.einsum("htd,hkd->htk", Q, K) / 2.0
    scores = np.where(np.tril(np.ones((LONG + 40, LONG + 40), bool))[None], scores, -np.inf)
    full = np.exp(scores - scores.max(-1, keepdims=True))
    full /= full.sum(-1, keepdims=True)
    assert np.allclose(ctx, np.einsum("htk,hkd->htd", full, V).transpose(1, 0, 2).reshape(-1, 8), atol=1e-12)
    assert prob.shape == (2, 1, LONG + 40) and np.allclose(prob[:, 0], full[:, -1], atol=1e-12)
    assert attention(Q, K, V, 0)[1].shape == (2, 1, LONG + 40)
    few = attention(Q[:, -3:], K, V, LONG + 37)                          # 3 queries at the end: every row
    assert few[1].shape == (2, 3, LONG + 40) and np.allclose(few[1], full[:, -3:], atol=1e-12)
    W = make_weights(3, 22)
    ids = list(rng.integers(2, 22, LONG + 30))
    assert np.allclose(logits_at(W, ids, [5, LONG + 29])[0], forward(W, ids, 0)[0][[5, LONG + 29]], atol=1e-10)


def test_a_long_generated_run_passes_its_checks_and_says_how():
    report = run({"WORKLOAD_REQUESTS": 6, "WORKLOAD_PROMPT": LONG + 50, "WORKLOAD_OUTPUT": 5, "SLOTS": 4,
                  "QUEUE_LIMIT": 6, "MAX_CONTEXT": 512, "POOL_BLOCKS": "auto", "TOKEN_BUDGET": 200})
    assert report.passed, [c.name for c in report.checks if not c.ok]
    assert report.block(12).data["replayed"] and report.block(13).data["last_row"] == LONG
    text = report.to_text()
    assert "hai chính sách kia chạy lại trên đồng hồ mà không chạy mô hình" in text
    assert "chỉ tính hàng logits cuối" in text
    assert "replayed" not in run().block(12).data                         # the seed's trace: all 3 run the model


def test_progress_is_told_for_every_engine_run():
    heard = []
    run({"WORKLOAD_REQUESTS": 12, "SLOTS": 4, "QUEUE_LIMIT": 12, "POOL_BLOCKS": "auto"},
        progress=lambda *a: heard.append(a))
    assert [h[0] for h in heard if h[1] == 1] == ["chunked", "static", "nochunk"]
    main = [h for h in heard if h[0] == "chunked"]
    assert [h[1] for h in main] == list(range(1, len(main) + 1)) and main[-1][2:] == (12, 12)


def test_a_thousand_requests_and_the_json_size():
    started = time.perf_counter()
    out = run_cli(["--workload-requests", "1000", "--slots", "64", "--queue-limit", "1024", "--pool-blocks", "auto",
                   "--workload-rate", "200", "--token-budget", "2048", "--json"])     # bench/workload_scale.py's
    seconds = time.perf_counter() - started
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["passed"] and len(data["config"]["REQUESTS"]) == 1000
    print(f"\n1000 generated requests: {seconds:.1f} s, --json {len(out.stdout.encode()) / 1e6:.1f} MB")


@pytest.mark.parametrize("clock", ["seed", "roofline"])
def test_the_scale_command_runs_to_the_end(clock):
    """Issue 22's scale target, `python -m inference_lab` in a new interpreter; the time is printed (bench/
    workload_scale.py measures it), never asserted."""
    started = time.perf_counter()
    out = run_module(SCALE + ["--clock", clock], timeout=600)
    seconds = time.perf_counter() - started
    assert out.returncode == 0, out.stderr[-2000:]
    assert not missing_parts(out.stdout)
    assert "ĐẦU VÀO: 64 yêu cầu sinh tự động" in out.stdout and "TỔNG KẾT" in out.stdout
    print(f"\nscale command, CLOCK={clock}: {seconds:.1f} s")


def test_speculation_on_a_long_generated_workload_runs_the_model_and_passes():
    """SPEC_METHOD has its own verify path (core/serving/speculative.py): no replay then, and a verify over a long
    context still gets every row of its attention (model.attention_blocked, one block)."""
    report = run({"WORKLOAD_REQUESTS": 4, "WORKLOAD_PROMPT": LONG + 44, "WORKLOAD_OUTPUT": 6, "SLOTS": 4,
                  "QUEUE_LIMIT": 4, "MAX_CONTEXT": 400, "POOL_BLOCKS": "auto", "TOKEN_BUDGET": 512,
                  "SPEC_METHOD": "draft"})
    assert report.passed, [c.name for c in report.checks if not c.ok]
    assert "replayed" not in report.block(12).data


@pytest.mark.parametrize("values", [{}, {"WORKLOAD_REQUESTS": 12, "WORKLOAD_PROMPT": 20, "REPLICAS": 2,
                                         "MAX_CONTEXT": 64, "PREFIX_CACHE": "on"}])
def test_a_run_without_the_steps_words_prints_the_same(values):
    """The command line's text output skips the steps' narration (lab.run(narrate=False)): same lines, same
    notes, and the steps are the bare run log."""
    worded, bare = run(values), run(values, narrate=False)
    assert bare.to_text() == worded.to_text() and bare.notes == worded.notes
    assert "text" not in bare.steps["items"][0] and "after_text" not in bare.steps
    assert [{k: v for k, v in it.items() if k not in ("title",
                                                      "text")} for it in worded.steps["items"]] == bare.steps["items"]
