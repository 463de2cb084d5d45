"""[9] Weight precision and [13] the quality gate: symmetric per-output-channel integer weights.

`quantize_weights(W, bits)` maps each of the 8 linear matrices to integers in
[-(2^(bits-1) - 1), 2^(bits-1) - 1] with one FP32 scale per column (output channel):
scale = max|w| / levels, w_int = round(w / scale). The lab stores the integers and
multiplies with the restored floats ("fake quantization"), so the reconstruction
error is exactly what the format loses, at most half a scale per element.

    >>> import numpy as np
    >>> Wq, info = quantize_weights({"Wq": np.array([[1.0, -0.5], [0.25, 0.5]])}, 8, names=("Wq",))
    >>> info["Wq"]["scales"], round(info["Wq"]["half_scale"], 6)
    (2, 0.003937)

`greedy_teacher_forced` is the quality gate's probe: the original model decodes
greedily and the quantized model is fed the SAME context at every step, so each step
is one comparable top-1 decision. Its two halves are separate functions: the original
model's side (`greedy_reference`) is the same for every bit width, so the lab computes
it once per prompt when it compares several widths. A long prompt (a generated workload's) is passed with
`prompt_pass`: only its last row's logits, which is all the gate compares.

KV_BITS = 8 quantizes the lab's KV cache to FP8 E4M3 (fp8.py) with one scale per head for K and one for V, as
vLLM's FP8 KV cache does with per-attention-head scales (docs "Quantized KV Cache": kv_cache_dtype="fp8", k/v_scale
of shape [num_kv_heads], calibrated by llm-compressor). `kv_cache_scales(W)` calibrates them on every value the cache
can ever hold: in this ONE-layer model a position's K and V come from its own token alone (and K's RoPE rotation
keeps each pair's norm), so the vocabulary's embeddings give each head's largest |V| and |K| exactly and
scale = amax / 448 (the min-max rule for FP8 E4M3; vLLM's on-the-fly calculate_kv_scales divides one batch's amax by
K_SCALE_CONSTANT 200 and V_SCALE_CONSTANT 100 instead, leaving room for values it has not seen):

    >>> W = {"E": np.array([[1.0, 0.0], [0.0, 1.0]]), "Wk": np.eye(2)[:, [0, 1] * 4], "Wv": np.eye(2)[:, [1, 0] * 4]}
    >>> kv_cache_scales(W).round(6).tolist()     # rmsnorm: rows (√2, 0), (0, √2); K's pair (√2, √2) reaches 2
    [[0.004464, 0.004464], [0.003157, 0.003157]]

`with_fp8_kv_cache(W)` is the model the engine runs at KV_BITS = 8 (model.forward stores every K/V as FP8);
`kv_cache_error(W, Wkv, ids)` is block [9]'s probe of what that costs on one prompt, and the quality gate compares
the FP8-cache model with the original one (`compare_to_reference`, the same probe as the weights').

Leaves out: integer kernels (their extra rounding and their speed), activation quantization, calibration data,
outlier handling; FP8 query quantization (FlashAttention 3 also casts Q to FP8), E5M2, per-tensor or per-block
KV scales.
"""
from __future__ import annotations

import numpy as np

from .tokenizer import BOS
from .fp8 import E4M3_MAX, half_step
from .model import (D_HEAD, KV_SCALE, LINEAR, LONG, N_HEADS, attention, forward, kv_cache_values, logits_at, rmsnorm,
                    rope, split_heads)


def prompt_pass(W: dict, ids):
    """The gate's prompt forward: (logits, K, V). A prompt of more than model.LONG tokens gets only its last
    row's logits (model.logits_at: the gate reads no other row; O(T) instead of O(T²))."""
    if len(ids) > LONG:
        return logits_at(W, ids, [len(ids) - 1])
    return forward(W, ids, 0)[:3]


def quantize_weights(W: dict, bits: int, names=LINEAR):
    levels = 2 ** (bits - 1) - 1                                       # 127 for INT8
    Wq, info = dict(W), {}
    for name in names:
        w = W[name]
        scale = np.max(np.abs(w), axis=0, keepdims=True) / levels      # one scale per column
        ints = np.clip(np.rint(w / scale), -levels, levels).astype(np.int8)
        restored = ints.astype(float) * scale
        Wq[name] = restored
        info[name] = dict(elements=w.size, scales=scale.size, max_err=float(np.max(np.abs(restored - w))),
                          half_scale=float(np.max(scale) / 2),
                          within_half_scale=bool(np.max(np.abs(restored - w) - scale / 2) <= 1e-12))
    return Wq, info


def greedy_teacher_forced(W: dict, Wq: dict, ids, steps: int) -> list[dict]:
    """Original model decodes greedily; at each step the quantized model sees the same context."""
    return compare_to_reference(greedy_reference(W, ids, steps), Wq, ids)


def greedy_reference(W: dict, ids, steps: int) -> dict:
    """The original model's side of the gate, which no bit width changes (so a lab caches it once):
    the prompt's logits (T, VOCAB; only the last row (1, VOCAB) for a prompt of more than LONG tokens), then each
    step's last logits row (VOCAB,) and its greedy token."""
    logits, k, v = prompt_pass(W, ids)
    out = dict(prompt_logits=logits, rows=[], tokens=[])
    for step in range(steps):
        row = logits[-1].copy()
        row[BOS] = -np.inf
        first = int(np.argsort(row)[::-1][0])
        out["rows"].append(logits[-1])
        out["tokens"].append(first)
        if step + 1 == steps:
            break                                  # the last token is compared, never fed
        logits, kn, vn, _ = forward(W, [first], len(ids) + step, k, v)
        k, v = np.concatenate([k, kn], axis=1), np.concatenate([v, vn], axis=1)
    return out


def compare_to_reference(ref: dict, Wq: dict, ids) -> list[dict]:
    """The quantized model fed the reference's tokens: one comparable top-1 decision per step."""
    results = []
    logits_q, kq, vq = prompt_pass(Wq, ids)
    for step, (raw, first) in enumerate(zip(ref["rows"], ref["tokens"])):
        row, row_q = raw.copy(), logits_q[-1].copy()
        row[BOS] = row_q[BOS] = -np.inf
        second = np.argsort(row)[::-1][1]
        results.append(dict(token=first, token_q=int(np.argmax(row_q)), margin=float(row[first] - row[second]),
                            margin_q=float(row_q[first] - row_q[second]), step=step,
                            err=float(np.max(np.abs(raw[1:] - logits_q[-1][1:])))))
        if step + 1 == len(ref["rows"]):
            break
        logits_q, knq, vnq, _ = forward(Wq, [first], len(ids) + step, kq, vq)
        kq, vq = np.concatenate([kq, knq], axis=1), np.concatenate([vq, vnq], axis=1)
    return results


def kv_cache_scales(W: dict):
    """Per-head FP8 scales (2, N_HEADS), row 0 K, row 1 V: each head's largest |K| or |V| over the vocabulary / 448.
    K's largest value is each RoPE pair's norm √(k_i² + k_(i+d/2)²), which the rotation can reach but never passes."""
    N = rmsnorm(W["E"])                                                     # (vocab rows, D_MODEL): every input
    k = (N @ W["Wk"]).reshape(len(N), N_HEADS, D_HEAD)                     # before RoPE
    v = (N @ W["Wv"]).reshape(len(N), N_HEADS, D_HEAD)
    half = D_HEAD // 2
    k_amax = np.sqrt(k[..., :half] ** 2 + k[..., half:] ** 2).max(axis=(0, 2))          # (N_HEADS,)
    return np.stack([k_amax, np.abs(v).max(axis=(0, 2))]) / E4M3_MAX


def with_fp8_kv_cache(W: dict) -> dict:
    """The model with an FP8 KV cache (KV_BITS = 8): the same weights and their per-head KV scales."""
    return dict(W, **{KV_SCALE: kv_cache_scales(W)})


def kv_cache_error(W: dict, Wkv: dict, ids) -> dict:
    """Block [9]'s KV probe on one prompt: K and V as computed (W) against what the FP8 cache holds (Wkv), the
    attention output over the prompt with each, and the largest logit change (<bos> left out; a prompt of more than
    LONG tokens: its last row, as the gate)."""
    N = rmsnorm(W["E"][ids])
    Qr, K, V = (split_heads(rope(N @ W["Wq"], 0)), split_heads(rope(N @ W["Wk"], 0)),
                split_heads(N @ W["Wv"]))                                   # (heads, T, d_head) each
    Kq, Vq = kv_cache_values(Wkv, K, V)                                      # what the cache holds
    ctx, ctx_q = attention(Qr, K, V, 0)[0], attention(Qr, Kq, Vq, 0)[0]     # (T, heads·d_head)
    scale = Wkv[KV_SCALE][:, :, None, None]                                 # (2, heads, 1, 1)
    bound = half_step(np.stack([K, V]) / scale) * scale                     # half an FP8 step at each value
    err = np.abs(np.stack([Kq, Vq]) - np.stack([K, V]))                     # (2, heads, T, d_head)
    lg, lg_q = prompt_pass(W, ids)[0], prompt_pass(Wkv, ids)[0]
    return dict(k_max=float(err[0].max()), k_mean=float(err[0].mean()), v_max=float(err[1].max()),
                v_mean=float(err[1].mean()), within_half_step=bool(np.all(err <= bound + 1e-15)),
                k_scale=Wkv[KV_SCALE][0].tolist(), v_scale=Wkv[KV_SCALE][1].tolist(),
                attn_rel=float(np.linalg.norm(ctx_q - ctx) / np.linalg.norm(ctx)),
                logit_err=float(np.max(np.abs(lg[:, 1:] - lg_q[:, 1:]))), tokens=len(ids))
