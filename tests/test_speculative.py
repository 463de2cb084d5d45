"""Speculative decoding (SPEC_METHOD, SPEC_TOKENS): the proposers, the acceptance rule, lossless output, the KV
rollback, the budget and the run log's counts.

- greedy texts are identical with speculation on and off for any constants (hypothesis, tests/helpers.configs);
- the sampled distribution: a seeded chi-square test, false-alarm rate at most 0.1 % (FALSE_ALARM) for a random
  seed, of the first emitted token from one fixed prefix against the plain sampler's probabilities;
- after every step no rejected token keeps a KV slot, block invariants hold, and with the prefix cache on every
  cached block's hash is the hash of kept tokens only; preemption and cancellation in a speculating run.
Leaves out: the words (test_speculative_words.py) and the page (test_browser_speculation.py)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from inference_lab.core.model import rejection_sampler as rs
from inference_lab.core.serving.block_manager import hash_block
from inference_lab.core.inputs.config import Config
from inference_lab.core.serving.engine import Engine, RunOptions, run_engine
from inference_lab.core.serving.speculative import DraftModel, ngram_propose, spec_limit, split_budget
from inference_lab.entrypoints.lab import Lab
from helpers import configs


def test_ngram_proposer_longest_then_earliest_match():
    assert ngram_propose([0, 5, 6, 7, 9, 5, 6], 2) == [7, 9]          # n = 2 matches
    assert ngram_propose([0, 5, 6, 7, 5, 8, 5], 3) == [6, 7, 5]       # n = 1: the earliest 5
    assert ngram_propose([0, 4, 5, 9, 5, 9, 4, 5], 4) == [9, 5, 9, 4]  # the longest n (2: [4, 5]) beats n = 1
    assert ngram_propose([0, 5, 6, 5], 8) == [6, 5]                   # fewer than K when the sequence ends
    assert ngram_propose([0, 1, 2], 3) == [] and ngram_propose([3], 3) == []


def test_k_is_cut_near_max_new_and_max_context_and_by_the_budget():
    class S:
        out, max_new, prompt_len = [1, 2], 6, 5
    assert spec_limit(S, 8, 100) == 3                                 # 2 done + 3 proposed + 1 bonus = 6
    assert spec_limit(S, 8, 9) == 1                                   # 5 + 2 + 1 + 1 = 9 positions
    a, b = type("A", (), {"id": "A"}), type("B", (), {"id": "B"})
    assert split_budget([(a, 3), (b, 3)], 2, 6) == {"A": 3, "B": 1}   # 2 decodes + 4 proposals = 6
    assert split_budget([(a, 3), (b, 3)], 2, None) == {"A": 3, "B": 3}


def test_acceptance_rule_greedy_and_residual():
    p = np.array([0.0, 0.2, 0.8])
    assert rs.accepts(0.8, 1.0, 0.0) and not rs.accepts(0.0, 1.0, 0.0)
    assert rs.residual(p, np.array([0.0, 0.0, 1.0])).tolist() == [0.0, 1.0, 0.0]
    rows = np.array([[0.0, 1.0, 3.0], [0.0, 5.0, 1.0], [0.0, 0.0, 2.0]])
    greedy = dict(temperature=0.0, top_k=0, top_p=1.0)
    assert rs.verify(rows, [2, 1], [None, None], greedy, None) == (2, 2)     # both kept, bonus = argmax of row 2
    assert rs.verify(rows, [1, 1], [None, None], greedy, None) == (0, 2)     # 1 is not the argmax: corrected to 2


def draws_from_the_rule(lab, prefix, params, proposer: str, n: int, seed: int, accept=None) -> np.ndarray:
    """Counts of the first emitted token over n independent speculations from one prefix (K = 2)."""
    rng, vocab, counts = np.random.default_rng(seed), lab.tokenizer.vocab_size, np.zeros(lab.tokenizer.vocab_size)
    draft = DraftModel(lab.W, 2, vocab)
    for _ in range(n):
        if proposer == "draft":
            seq = type("S", (), dict(id="X", seed=seed, sampling=params))
            draft.rngs["X"] = rng
            tokens, qs = draft.propose(seq, prefix, 2)
        else:
            tokens, qs = [int(rng.integers(2, vocab)), int(rng.integers(2, vocab))], [None, None]
        logits = lab.forward(prefix + tokens, 0)[0][len(prefix) - 1:]           # (K + 1, vocab)
        n_ok, token = rs.verify(logits, tokens, qs, params, rng)
        counts[(tokens[:n_ok] + [token])[0]] += 1
    return counts


@pytest.mark.parametrize("proposer", ["draft", "random"])
def test_sampled_distribution_is_the_targets(proposer):
    lab = Lab.build(Config.from_values({}))
    prefix = lab.tokenizer.encode("ban hoc model")[1]
    params = dict(temperature=1.0, top_k=0, top_p=1.0)
    p = rs.sample_probs(lab.forward(prefix, 0)[0][-1], params)
    counts = draws_from_the_rule(lab, prefix, params, proposer, 3000, seed=11)
    stat, df = rs.chi_square(counts, p)
    assert stat < rs.chi_square_critical(df), (stat, df)


def test_always_accept_is_caught_by_the_same_test(monkeypatch):
    monkeypatch.setattr(rs, "accepts", lambda p_x, q_x, u: True)
    p = np.array([0.0, 0.1, 0.2, 0.7])
    q = np.array([0.0, 1 / 3, 1 / 3, 1 / 3])
    stat, df = rs.chi_square(rs.rule_histogram(p, q, 2000, 3), p)
    assert stat > rs.chi_square_critical(df)
    monkeypatch.undo()
    stat, df = rs.chi_square(rs.rule_histogram(p, q, 2000, 3), p)
    assert stat < rs.chi_square_critical(df)


spec_values = st.fixed_dictionaries(dict(SPEC_METHOD=st.sampled_from(["ngram", "draft"]), SPEC_TOKENS=st.integers(1, 8),
                                         PREFIX_CACHE=st.sampled_from(["off", "on"])))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs(), spec_values)
def test_greedy_texts_identical_with_speculation_on_and_off(values, spec):
    for r in values["REQUESTS"]:
        r["temperature"] = 0.0
    lab = Lab.build(Config.from_values(dict(values, **spec)))
    on = run_engine(lab, RunOptions("continuous", lab.cfg.TOKEN_BUDGET))
    off = run_engine(lab, RunOptions("continuous", lab.cfg.TOKEN_BUDGET, spec="off"))
    on_out, off_out = {r.id: r.out for r in on.done}, {r.id: r.out for r in off.done}
    both = on_out.keys() & off_out.keys()
    assert {i: on_out[i] for i in both} == {i: off_out[i] for i in both}
    refused_429 = {seq.id for seq, code in on.rejected + off.rejected if code == "429"}
    assert (on_out.keys() ^ off_out.keys()) <= refused_429      # shorter steps may change who the gateway sees
    assert not on.problems and on.trace["parity"] <= 1e-9 and on.trace["gather"] <= 1e-9


class WatchedEngine(Engine):
    """An engine that checks after every step that no rejected token keeps KV and no hash holds one."""

    def run_step(self, step):
        super().run_step(step)
        bs = self.pool.block_size
        for seq in self.running:
            assert seq.cached == len(seq.history), seq.id                     # rejected positions left the cache
            assert len(seq.block_table) == -(-seq.cached // bs), seq.id       # no block past the kept positions
            parent = None
            for i, b in enumerate(seq.block_table[:seq.cached // bs]):
                h = hash_block(parent, seq.history[i * bs:(i + 1) * bs])
                assert self.pool.block_hash[b] in (None, h), (seq.id, i)      # only kept tokens are hashed
                parent = self.pool.block_hash[b] or h
        assert not self.pool.audit()


def one_shot(rid: str, text: str, max_new: int) -> dict:
    return dict(id=rid, arrival=0, text=text, max_new=max_new, temperature=0.0, top_k=0, top_p=0.05, seed=0)


# Hypothesis found it: F is preempted mid-prompt before its first token; its recompute samples that first token
PREEMPTED_BEFORE_FIRST = dict(REQUESTS=[one_shot(r, "xin", 1) for r in "ABCD"] + [one_shot("E", "chao", 6),
                                                                                  one_shot("F", "xin chao", 1)],
                              FOLLOW="A", POOL_BLOCKS=3)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs(), spec_values, st.lists(st.integers(0, 30_000), min_size=6, max_size=6))
@example(PREEMPTED_BEFORE_FIRST, {"SPEC_METHOD": "ngram", "SPEC_TOKENS": 1, "PREFIX_CACHE": "off"}, [0, 0, 0, 0, 1, 1])
def test_rollback_frees_rejected_slots_under_preemption_and_cancellation(values, spec, cancels):
    for r, c in zip(values["REQUESTS"], cancels):
        if c % 3 == 0:
            r["cancel_at"] = c
    lab = Lab.build(Config.from_values(dict(values, **spec)))
    res = WatchedEngine(lab, RunOptions("continuous", lab.cfg.TOKEN_BUDGET)).run()
    assert sorted(res.pool.free) == list(range(lab.cfg.POOL_BLOCKS)) and not any(res.pool.ref_cnt)
    check_counts(res, lab.cfg)


def check_counts(res, cfg):
    """accepted <= proposed; each verify emits accepted + (recovered/bonus token); budget holds k + 1 per verify."""
    emitted = {}
    for it in res.log.items:
        spec = it.get("spec", {})
        for rid, v in spec.items():
            assert 0 <= v["accepted"] <= len(v["proposed"]) <= cfg.SPEC_TOKENS
            assert v["token"] is not None or v["accepted"] >= 1
            emitted[rid] = emitted.get(rid, 0) + v["accepted"] + (v["token"] is not None)
        for rid, phase, n in it["tasks"]:
            if phase == "decode" and rid not in spec:
                emitted[rid] = emitted.get(rid, 0) + 1
        if cfg.TOKEN_BUDGET is not None and any(t[1] == "prefill" for t in it["tasks"]) or spec:
            assert it["budget"][0] <= it["budget"][1]
    for seq in res.done + res.aborted:
        # every prompt that ran to its end (the first time, or again after a preemption) sampled one token; a request
        # preempted before its first token gets that first token from its recompute: one token, not two
        prompts_done = sum(1 for it in res.log.items for e in it["events"]
                           if e["kind"] == "chunk" and e["id"] == seq.id and e["done"] == e["total"])
        assert len(seq.out) == emitted.get(seq.id, 0) + prompts_done, seq.id


def test_default_trace_with_speculation_counts_add_up_and_verifies_in_one_pass():
    for method in ("ngram", "draft"):
        cfg = Config.from_values(dict(SPEC_METHOD=method, SPEC_TOKENS=4, QUANT_BITS=4))
        lab = Lab.build(cfg)
        res = WatchedEngine(lab, RunOptions("continuous", cfg.TOKEN_BUDGET)).run()
        check_counts(res, cfg)
        verified = [(it, rid, v) for it in res.log.items for rid, v in it.get("spec", {}).items()]
        assert verified and any(v["accepted"] for _, _, v in verified)
        assert any(e["kind"] == "rollback" for it in res.log.items for e in it["events"])


def test_prefix_cache_and_speculation_hash_only_kept_tokens():
    reqs = [dict(id=c, arrival=i * 3000, text="xin chao model hoc token ban", max_new=12, temperature=0.0, top_k=0,
                 top_p=1.0, seed=i) for i, c in enumerate("ABC")]
    cfg = Config.from_values(dict(REQUESTS=reqs, FOLLOW="A", SPEC_METHOD="draft", QUANT_BITS=2, SPEC_TOKENS=5,
                                  PREFIX_CACHE="on", BLOCK_SIZE=2, MAX_CONTEXT=40, POOL_BLOCKS=40, TOKEN_BUDGET=16))
    lab = Lab.build(cfg)
    res = WatchedEngine(lab, RunOptions("continuous", cfg.TOKEN_BUDGET)).run()
    assert res.log.happenings("cache_hit")
    assert any(e["kind"] == "rollback" for it in res.log.items for e in it["events"])


def test_preemption_and_cancellation_in_a_speculating_run():
    """POOL_BLOCKS=6: B is preempted while A verifies proposals (k + 1 slots each), C is cancelled mid-run."""
    reqs = [dict(id="A", arrival=0, text="xin chao model", max_new=10, temperature=0.0, top_k=0, top_p=1.0, seed=1),
            dict(id="B", arrival=0, text="model hoc token", max_new=9, temperature=0.8, top_k=4, top_p=0.9, seed=2),
            dict(id="C", arrival=0, text="ban hoc model", max_new=9, temperature=0.0, top_k=0, top_p=1.0, seed=4,
                 cancel_at=9000)]
    cfg = Config.from_values(dict(SPEC_METHOD="ngram", SPEC_TOKENS=4, SLOTS=3, QUEUE_LIMIT=2, POOL_BLOCKS=6,
                                  TOKEN_BUDGET=12, REQUESTS=reqs, FOLLOW="A"))
    lab = Lab.build(cfg)
    res = WatchedEngine(lab, RunOptions("continuous", cfg.TOKEN_BUDGET)).run()
    preempt_steps = {p["step"] for p in res.log.happenings("preempt")}
    assert preempt_steps and any("spec" in res.log.items[s - 1] for s in preempt_steps)
    assert [a["request"] for a in res.log.happenings("abort")] == ["C"]
    check_counts(res, cfg)
    off = run_engine(lab, RunOptions("continuous", cfg.TOKEN_BUDGET, spec="off"))

    def greedy(result):
        return {r.id: r.out for r in result.done if r.temperature == 0}
    assert greedy(res) == greedy(off)
