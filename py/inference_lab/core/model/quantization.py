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

Leaves out: integer kernels (their extra rounding and their speed), activation and KV
quantization, calibration data, outlier handling.
"""
from __future__ import annotations

import numpy as np

from .tokenizer import BOS
from .model import LINEAR, LONG, forward, logits_at


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
