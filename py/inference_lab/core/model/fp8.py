"""[9] The FP8 E4M3 number format in NumPy: what KV_BITS = 8 stores in the lab's KV cache.

FP8 E4M3 (OCP 8-bit floating point, "E4M3FN": 1 sign bit, 4 exponent bits with bias 7, 3 mantissa bits, no
infinities) holds ±0, the subnormals k·2^-9 (k = 1..7) and the normals (1 + m/8)·2^e for e = -6..8, up to 448.
`round_e4m3(x)` rounds every float to its nearest E4M3 value (ties to an even mantissa, as a hardware cast does)
and saturates at ±448, as vLLM's cache write does (csrc/quantization/fp8/nvidia/quant_utils.cuh,
scaled_vec_conversion: __nv_cvt_float_to_fp8(a / scale, __NV_SATFINITE, …)). A value in [2^e, 2^(e+1)) moves by at most
half a step, 2^(e-4), i.e. by at most 1/16 of itself; below 2^-6 the step is 2^-9 and the error at most 2^-10.

    >>> round_e4m3([1.0625, 1.1875, 0.3, 0.001, 500.0, -3.3]).tolist()     # ties to even; 500 saturates
    [1.0, 1.25, 0.3125, 0.001953125, 448.0, -3.25]
    >>> half_step([1.0625, 0.3, 0.001, 448.0]).tolist()                    # |x − round_e4m3(x)| never exceeds it
    [0.0625, 0.015625, 0.0009765625, 16.0]

`fake_quant(x, scale)` is the KV cache's write: x (heads, T, d_head) divided by its head's scale, rounded to E4M3,
multiplied back (the value attention reads); vLLM's FP8 KV cache stores round_e4m3(x / scale) in one byte and
multiplies by the scale where attention reads it (docs "Quantized KV Cache": per-tensor or per-attention-head
k_scale / v_scale, an FP32 scale beside the FP8 values).

    >>> fake_quant(np.array([[[0.5, -1.1]]]), np.array([0.01])).tolist()  # 50 and -110 on the grid: 48 and -112
    [[[0.48, -1.12]]]

Leaves out: E5M2 (vLLM's fp8_e5m2: more range, one mantissa bit less), NaN, and the FP8 bytes themselves: the lab
keeps each dequantized value in float64 (every one of them exactly a grid value × its scale), so the NumPy pool's
size does not shrink (block [10] counts the lab's float64 bytes; the roofline clock counts 1 byte per value).
"""
from __future__ import annotations

import numpy as np

E4M3_MAX = 448.0          # the largest finite E4M3FN value: 1.75 · 2^8
MANTISSA_BITS = 3
MIN_EXPONENT = -6         # the smallest normal exponent (bias 7); below 2^-6 the subnormals keep its step 2^-9


def _step(a):
    """The grid's spacing at |x| = a (a ≥ 0): 2^(e-3) for a in [2^e, 2^(e+1)), never below 2^-9."""
    _, e = np.frexp(a)                                   # a = m · 2^e with m in [0.5, 1): the leading bit is 2^(e-1)
    return np.ldexp(1.0, np.maximum(e - 1, MIN_EXPONENT) - MANTISSA_BITS)


def round_e4m3(x):
    """The nearest E4M3 value of every element (same shape, float64), saturated at ±448."""
    x = np.asarray(x, dtype=float)
    a = np.minimum(np.abs(x), E4M3_MAX)
    return np.copysign(np.rint(a / _step(a)) * _step(a), x)


def half_step(x):
    """Half the grid's spacing at each |x| (saturated at 448): the most rounding can move that value."""
    return _step(np.minimum(np.abs(np.asarray(x, dtype=float)), E4M3_MAX)) / 2


def fake_quant(x, scale):
    """x (heads, T, d_head) stored as FP8 with one scale per head (scale (heads,)), read back as floats."""
    s = np.asarray(scale, dtype=float)[:, None, None]     # (heads, 1, 1)
    return round_e4m3(x / s) * s
