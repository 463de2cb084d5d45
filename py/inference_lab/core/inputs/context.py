"""MAX_CONTEXT = auto: the context the run's requests need, capped by what the run can hold.

MAX_CONTEXT's default is "auto" (schema.py), resolved once, when the Config is built (config.Config), before the
recorded trace is clipped to it (trace_workload.fitted) and before POOL_BLOCKS = auto is sized from it
(config.auto_pool_blocks: MAX_CONTEXT first, so the two never wait on each other):

- without a recorded trace (REQUESTS, or the generator's requests): the seed's 24 (SEED_MAX_CONTEXT), so every
  run the seed can run prints the seed's bytes;
- with one (WORKLOAD_TRACE): the window's longest request, prompt + output as played (a prompt of at least 2
  tokens, an output of at least 1: trace_workload.fitted), as vLLM's max_model_len defaults to the longest the
  model serves — but no more than the run can hold:
    - "model": under CLOCK = roofline, SHADOW_MODEL's context (max_position_embeddings in its config.json;
      vLLM refuses a larger max_model_len: config._check_context);
    - "pool": a request of T tokens needs ⌈(T − 1) ÷ BLOCK_SIZE⌉ KV blocks (the last token's K/V is never
      written: engine.input_rejected), so POOL_BLOCKS blocks hold T ≤ POOL_BLOCKS × BLOCK_SIZE + 1;
    - "gpu": with POOL_BLOCKS = auto the pool is sized from MAX_CONTEXT, so the cap is vLLM's blocks for the GPU
      and SHADOW_MODEL (hardware.kv_budget) × BLOCK_SIZE + 1, as vLLM refuses to start when one max_model_len
      sequence does not fit its KV cache ("The model's max seq len … is larger than the maximum number of tokens
      that can be stored in KV cache": vllm/v1/core/kv_cache_utils.py, check_enough_kv_cache_memory);
    - "bound": the schema's bound (131,072, the longest shadow model's context).

  Where a cap is below the longest request the run clips (trace_workload.fitted) and its header says so.

    >>> fit = max_context(dict(WORKLOAD_TRACE="azure-conv", WORKLOAD_REQUESTS=3, WORKLOAD_TRACE_START=0.0,
    ...     WORKLOAD_TRACE_DURATION=0.0, WORKLOAD_TIME_SCALE=1.0, CLOCK="seed", POOL_BLOCKS=300, BLOCK_SIZE=4))
    >>> fit["value"], fit["longest"], fit["by"]              # R3: 879 + 55 tokens; the pool holds 1,201
    (934, 934, 'trace')
    >>> max_context(dict(WORKLOAD_TRACE="off"))["value"]
    24

By hand: the conversation trace's first three requests are 374 + 44, 396 + 109 and 879 + 55 tokens; the longest,
934, fits a pool of 300 blocks of 4 tokens (300 × 4 + 1 = 1,201), so MAX_CONTEXT = 934 and nothing is clipped.

Leaves out: the generator's requests (WORKLOAD_REQUESTS without a trace keep the seed's 24: a generated run sets
MAX_CONTEXT itself, as before) and vLLM's own default (the model's whole context, whatever the requests): the lab
plays a known trace, so the longest request is the context it needs.
"""
from __future__ import annotations

import math

import numpy as np

from ..clock.hardware import GPUS, MODELS, kv_budget
from ..clock.parallel import TP_CHOICES
from . import trace_workload
from .schema import FIELD_BY_NAME, MAX_MODEL_CONTEXT, SEED_MAX_CONTEXT

PLAYED = ("WORKLOAD_TRACE", "WORKLOAD_TRACE_START", "WORKLOAD_TRACE_DURATION", "WORKLOAD_TIME_SCALE",
          "WORKLOAD_REQUESTS")


def _value(values: dict, name: str):
    return values.get(name, FIELD_BY_NAME[name].default)


def _named(table: dict, name):
    """table[name], None when `name` is not one of its keys (a typed value may be anything: validate words it)."""
    return table.get(name) if isinstance(name, str) else None


def _count(v) -> bool:
    """A whole number ≥ 1 (not a bool): a value a cap can be computed from."""
    return isinstance(v, int) and not isinstance(v, bool) and v >= 1


def longest(values: dict) -> int:
    """The window's longest request as played unclipped: max(prompt, 2) + max(output, 1) tokens."""
    rows = trace_workload.window({name: _value(values, name) for name in PLAYED})
    return int((np.maximum(rows[:, 1], trace_workload.MIN_PROMPT) + np.maximum(rows[:, 2], 1)).max())


def gpu_blocks(values: dict) -> int | None:
    """vLLM's KV blocks for the GPU and SHADOW_MODEL (hardware.kv_budget), None if a value is not a valid one."""
    gpu, model = _named(GPUS, _value(values, "GPU")), _named(MODELS, _value(values, "SHADOW_MODEL"))
    bits, kv_bits, tp = _value(values, "WEIGHT_BITS"), _value(values, "KV_BITS"), _value(values, "TENSOR_PARALLEL")
    utilization, size = _value(values, "GPU_MEMORY_UTILIZATION"), _value(values, "BLOCK_SIZE")
    if gpu is None or model is None or tp not in TP_CHOICES or bits not in FIELD_BY_NAME["WEIGHT_BITS"].choices \
            or kv_bits not in FIELD_BY_NAME["KV_BITS"].choices \
            or not _count(size) or not isinstance(utilization, (int, float)) or not math.isfinite(utilization) \
            or not 0 < utilization <= 1:
        return None
    return kv_budget(gpu, model, bits, kv_bits, size, utilization, tp)["blocks"]


def caps(values: dict) -> dict:
    """{what: tokens} for every cap that applies (see the module docstring); a value that is not valid names no
    cap (config.validate words its problem)."""
    out = {}
    model = _named(MODELS, _value(values, "SHADOW_MODEL"))
    if _value(values, "CLOCK") == "roofline" and model is not None:
        out["model"] = model.context
    pool, size = _value(values, "POOL_BLOCKS"), _value(values, "BLOCK_SIZE")
    blocks = gpu_blocks(values) if pool == "auto" else pool
    if _count(blocks) and _count(size):
        out["gpu" if pool == "auto" else "pool"] = blocks * size + 1
    out["bound"] = MAX_MODEL_CONTEXT
    return out


def max_context(values: dict) -> dict:
    """MAX_CONTEXT = auto for a {NAME: value} mapping: {value, longest, cap, by, blocks}: `by` names what set it
    ("seed" without a recorded trace, "trace" when its longest request fits, else the cap: "model", "pool",
    "gpu" or "bound"), `cap` that cap's tokens (None when the trace fits), `blocks` the pool's blocks behind a
    "pool" or "gpu" cap."""
    if _value(values, "WORKLOAD_TRACE") == "off":
        return dict(value=SEED_MAX_CONTEXT, longest=None, cap=None, by="seed", blocks=None)
    need, limits = longest(values), caps(values)
    by = min(limits, key=limits.get)
    cap = limits[by]
    blocks = (cap - 1) // _value(values, "BLOCK_SIZE") if by in ("pool", "gpu") else None
    if need <= cap:
        return dict(value=need, longest=need, cap=None, by="trace", blocks=None)
    return dict(value=cap, longest=need, cap=cap, by=by, blocks=blocks)
