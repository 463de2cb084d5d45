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
is one comparable top-1 decision.

Leaves out: integer kernels (their extra rounding and their speed), activation and KV
quantization, calibration data, outlier handling.
"""
from __future__ import annotations

import numpy as np

from .config import BOS
from .model import LINEAR, forward


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
    results = []
    logits, k, v, _ = forward(W, ids, 0)
    logits_q, kq, vq, _ = forward(Wq, ids, 0)
    for step in range(steps):
        row, row_q = logits[-1].copy(), logits_q[-1].copy()
        row[BOS] = row_q[BOS] = -np.inf
        first, second = np.argsort(row)[::-1][:2]
        results.append(dict(token=int(first), token_q=int(np.argmax(row_q)), margin=float(row[first] - row[second]),
                            margin_q=float(row_q[first] - row_q[second]), step=step,
                            err=float(np.max(np.abs(logits[-1][1:] - logits_q[-1][1:])))))
        pos = len(ids) + step
        logits, kn, vn, _ = forward(W, [int(first)], pos, k, v)
        logits_q, knq, vnq, _ = forward(Wq, [int(first)], pos, kq, vq)
        k, v = np.concatenate([k, kn], axis=1), np.concatenate([v, vn], axis=1)
        kq, vq = np.concatenate([kq, knq], axis=1), np.concatenate([vq, vnq], axis=1)
    return results
