"""KV_BITS = 8: the lab's own KV cache stored as FP8 E4M3 with per-head scales (core/model/fp8.py,
quantization.kv_cache_scales, model.kv_cache_values), and what blocks [9] and [13] report of it.

Hand-checkable figures of the format, then runs: the cache really holds FP8 values (each K/V within half an FP8
step of the float value, on the grid once divided by its head's scale), the served tokens come from that model, and
both languages word the KV error and the flipped decisions. KV_BITS = 16 is untouched (the goldens pin its bytes).
"""
from __future__ import annotations

import numpy as np
import pytest

from inference_lab import run
from inference_lab.core.model.fp8 import E4M3_MAX, fake_quant, half_step, round_e4m3
from inference_lab.core.model.model import KV_SCALE, forward, logits_at
from inference_lab.core.model.quantization import kv_cache_scales, with_fp8_kv_cache
from inference_lab.entrypoints.weights import fp8_kv_model_for, model_for
from inference_lab.words.limits import seed_shaped


# ── the format, by hand ─────────────────────────────────────────────────────
def test_e4m3_grid_by_hand():
    # [1, 2): step 1/8; [0.25, 0.5): step 1/32; below 2^-6 subnormals of 2^-9; 448 is the largest value
    assert round_e4m3([1.0, 1.125, 1.0625, 1.1875, 0.3, 2 ** -9, 0.0009, 448.0, 460.0, 1e6]).tolist() == [
        1.0, 1.125, 1.0, 1.25, 0.3125, 2 ** -9, 0.0, 448.0, 448.0, 448.0]
    assert round_e4m3([-0.3, -1e6]).tolist() == [-0.3125, -448.0]
    # every code 0x00..0x7E of E4M3FN (0x7F is NaN): exponent field e, mantissa m; e = 0 are the subnormals m·2^-9
    grid = np.array([m * 2.0 ** -9 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7)
                     for e in range(16) for m in range(8)][:127])
    assert grid[-1] == E4M3_MAX and np.all(np.diff(grid) > 0)
    assert np.array_equal(round_e4m3(grid), grid)                      # the grid rounds to itself
    mid = (grid[:-1] + grid[1:]) / 2                                   # a tie goes to the even code
    assert np.array_equal(round_e4m3(mid), np.where(np.arange(126) % 2 == 0, grid[:-1], grid[1:]))


def test_rounding_never_moves_a_value_more_than_half_a_step():
    x = np.random.default_rng(0).normal(0, 30, 100_000)
    x = x[np.abs(x) <= E4M3_MAX]
    err = np.abs(round_e4m3(x) - x)
    assert np.all(err <= half_step(x))
    assert np.all(err <= np.maximum(np.abs(x) / 16, 2 ** -10))         # 3 mantissa bits: at most 1/16 of a normal


def test_fake_quant_uses_each_heads_scale():
    x = np.array([[[0.5, -1.1]], [[0.5, -1.1]]])                         # (heads 2, T 1, d 2)
    out = fake_quant(x, np.array([0.01, 1.0]))
    assert out[0].round(12).tolist() == [[0.48, -1.12]]                 # 50 -> 48 and -110 -> -112 on the grid
    assert out[1].tolist() == [[0.5, -1.125]]                           # 0.5 exact, -1.1 -> -1.125


def test_scales_cover_every_value_the_cache_can_hold():
    W = model_for(7, 10)
    scales = kv_cache_scales(W)                                          # (2, heads)
    assert scales.shape == (2, 2) and np.all(scales > 0)
    every = list(range(W["E"].shape[0])) * 3                             # every token at many positions
    _, K, V, _ = forward(W, every, 0)
    assert np.abs(K).max(axis=(1, 2)).tolist() <= (scales[0] * E4M3_MAX * (1 + 1e-12)).tolist()
    assert np.allclose(np.abs(V).max(axis=(1, 2)), scales[1] * E4M3_MAX)   # V's amax is reached exactly


# ── the model with an FP8 KV cache ──────────────────────────────────────────
def test_the_cache_holds_fp8_values_within_half_a_step():
    W = model_for(7, 10)
    Wkv = with_fp8_kv_cache(W)
    ids = [0, 3, 4, 5, 6, 7, 8, 9, 10]
    _, K, V, _ = forward(W, ids, 0)
    _, Kq, Vq, _ = forward(Wkv, ids, 0)
    for x, q, s in ((K, Kq, Wkv[KV_SCALE][0]), (V, Vq, Wkv[KV_SCALE][1])):
        s = s[:, None, None]
        assert np.all(np.abs(q - x) <= half_step(x / s) * s + 1e-15)
        assert np.all(np.abs(q - x) <= s / 2 * 32)                       # never more than half the widest step
        assert np.allclose(round_e4m3(q / s), q / s, rtol=1e-12, atol=0)   # on the grid: one byte each
        assert not np.array_equal(q, x)                                 # and really rounded
    # a recompute from scratch, a decode through the cache and logits_at all see the same FP8 values
    full = forward(Wkv, ids, 0)[0]
    step = forward(Wkv, ids[-1:], len(ids) - 1, Kq[:, :-1], Vq[:, :-1])[0]
    assert np.allclose(full[-1], step[0], atol=1e-12)
    assert np.allclose(logits_at(Wkv, ids, [len(ids) - 1])[0][0], full[-1], atol=1e-12)
    assert not np.allclose(full, forward(W, ids, 0)[0], atol=1e-6)


@pytest.fixture(scope="module")
def kv8():
    return {clock: run(dict(KV_BITS=8, CLOCK=clock), "en") for clock in ("seed", "roofline")}


def test_a_kv8_run_serves_the_fp8_model(kv8):
    W, Wkv = model_for(7, 10), fp8_kv_model_for(7, 10)
    for rep in kv8.values():
        assert rep.passed, [c.name for c in rep.checks if not c.ok]      # parity and gather hold on FP8 values
        b4 = rep.block(4).data
        ids = rep.block(2).data["follow"]["ids"]
        assert np.allclose(b4["logits"], forward(Wkv, ids, 0)[0][-1], atol=1e-9)
        assert not np.allclose(b4["logits"], forward(W, ids, 0)[0][-1], atol=1e-6)


def test_block9_reports_the_kv_error_next_to_the_weights(kv8):
    for rep in kv8.values():
        d = rep.block(9).data
        kv = d["kv"]
        assert kv["within_half_step"] and kv["tokens"] == len(rep.block(2).data["follow"]["ids"])
        assert 0 < kv["k_mean"] <= kv["k_max"] and 0 < kv["v_mean"] <= kv["v_max"]
        assert kv["k_max"] <= 16 * max(kv["k_scale"]) and kv["v_max"] <= 16 * max(kv["v_scale"])   # half of 2^5
        assert 0 < kv["attn_rel"] < 0.1 and kv["logit_err"] > 0
        text = "\n".join(rep.block(9).lines)
        assert "FP8 E4M3" in text and f"{kv['k_max']:.4f}" in text and f"{d['logit_err']:.4f} for the INT8" in text
        assert "not simulated" not in text and "not quantized" not in text


def test_block13_reports_the_flipped_decisions(kv8):
    for rep in kv8.values():
        d = rep.block(13).data
        kv = d["kv"]
        assert kv["decisions"] == d["decisions"] == 40
        assert kv["flips"] == sum(r["n"] - r["agree"] for r in kv["rows"]) == len(kv["flipped"])
        for f in kv["flipped"]:
            assert f["token"] != f["token_q"]
        text = "\n".join(rep.block(13).lines)
        assert f"Total with the FP8 KV cache: {40 - kv['flips']}/40" in text
        assert text.count("Flipped: prompt") == kv["flips"]


def test_kv8_words_in_vietnamese():
    rep = run(dict(KV_BITS=8), "vi")
    b9, b13 = "\n".join(rep.block(9).lines), "\n".join(rep.block(13).lines)
    assert "KV cache ở KV_BITS=8" in b9 and "Sai số KV khi chạy prompt" in b9
    assert "KV cache lượng tử hóa không được chạy" not in b9
    assert "Tổng với KV cache FP8" in b13


def test_kv8_is_never_the_seeds_configuration():
    assert seed_shaped({}) and not seed_shaped({"KV_BITS": 8})
    rep = run(dict(KV_BITS=16), "vi")
    assert "kv" not in rep.block(9).data and "kv" not in rep.block(13).data
    assert "KV cache lượng tử hóa không được chạy." in rep.block(9).lines[-1]     # the seed's line, its bytes


def test_block13_compares_the_served_tokens_with_the_16_bit_kv_run():
    """SEED 4: two of the three served requests draw other tokens once their cache is FP8; each changed row's
    16-bit text is what the KV_BITS = 16 run serves, each unchanged request serves the same text in both runs."""
    rep8, rep16 = run(dict(SEED=4, KV_BITS=8), "en"), run(dict(SEED=4), "en")
    served = rep8.block(13).data["kv"]["served"]
    text8 = {s["id"]: s["text"] for s in rep8.block(8).data["stops"]}
    text16 = {s["id"]: s["text"] for s in rep16.block(8).data["stops"]}
    changed = {c["id"]: c for c in served["changed"]}
    assert served["compared"] == len(text8) == 3 and sorted(changed) == ["A", "C"]
    for rid in text8:
        if rid in changed:
            assert (changed[rid]["text"], changed[rid]["text16"]) == (text8[rid], text16[rid]) != (text8[rid],) * 2
        else:
            assert text8[rid] == text16[rid]
    text = "\n".join(rep8.block(13).lines)
    assert "Served run: 2 of 3 finished requests got other tokens" in text
    assert f"A: from token {changed['A']['at'] + 1} on: '{text8['A']}'" in text


def test_a_workload_keeps_the_gate_but_not_the_twin_run():
    rep = run(dict(KV_BITS=8, WORKLOAD_REQUESTS=4, WORKLOAD_PROMPT=8, WORKLOAD_OUTPUT=4), "en")
    kv = rep.block(13).data["kv"]
    assert kv["served"] is None and kv["decisions"] == 4 * 8 and "kv" in rep.block(9).data
    assert any("not compared with a run on a 16-bit KV cache" in line for line in rep.block(13).lines)
