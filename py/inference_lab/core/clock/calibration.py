"""The calibration table: the roofline clock against published measurements of real engines on named GPUs.

One `Point` per published figure: its source's address, the configuration (GPU, model, precision, batch or
concurrency, ISL/OSL, engine) and the figure. `lab_figure` recomputes what the lab's clock says for the
same configuration with the profile that names the source's engine (profiles.py); `table()` gives every
row with its ratio lab ÷ published (> 1: the lab is optimistic). tests/test_calibration.py fails when a
row leaves TOLERANCE or the median leaves MEDIAN_GOAL.

How a configuration becomes steps (the clock's own formula, roofline.step_cost, with every output token
generated: ignore_eos, as the benchmarks run):
- "decode" (tokens/s of one stream, batch B): OSL decode steps of B sequences at contexts ISL … ISL+OSL−1,
  tokens/s = OSL ÷ their time (per user; the prefill of the short prompt is left out, as llama-bench's tg
  and gpt-fast's figures leave it out or make it negligible);
- "prefill" (prompt tokens/s): one step of the whole prompt, tokens/s = ISL ÷ its time (llama-bench's pp);
- "ttft" (ms): the same step's time;
- "throughput" (output tokens/s of an offline run at concurrency C, trtllm-bench's "Total Output
  Throughput"): C requests at a time, their prompts in steps of at most 8,192 tokens (TensorRT-LLM's and
  vLLM's default max_num_tokens), then OSL decode steps of C sequences; output tokens/s = C·OSL ÷ the
  total. C is the number of sequences of ISL+OSL tokens the KV room holds (hardware.kv_budget at
  gpu_memory_utilization 0.9, FP8 KV for FP8 checkpoints), at most 2,048 (trtllm-bench's largest batch).
  A static wave: continuous batching mixes prompts into decode steps, which costs the same FLOPs and
  reads the weights less often; close for the compute-bound points used here.

gpt-fast's Llama-3.1-8B at batch 1 on an A100: each step reads 15.01 GB of weights (and a few MB of KV) at
0.69 × 2,039 GB/s = 1,407 GB/s: 10.7 ms, 93.6 tokens/s against the published 93.89.

    >>> round(lab_figure(POINTS[0]), 1), POINTS[0].published
    (93.6, 93.89)

Points left out, and why: llama.cpp on an A100 SXM in the same llama.cpp table (8B F16 tg512 53.49 tok/s
is 0.42 of the A100's bandwidth where the RTX 4090 reaches 0.82; its pp512 of 603.76 tok/s is below its own
pp8192 of 1,323: a broken run), Q4_K_M rows (4.9 bits per weight; WEIGHT_BITS has 16, 8 and 4), multi-GPU
rows beyond three of perf-overview's H100 TP2 column for Llama 3.3 70B FP8 (128/128, 2048/128, 1000/1000: a
tensor-parallel group of 2, `Point.tp`, each step per GPU plus its all-reduces, parallel.py; its other TP rows
are Llama 4 and Qwen3 MoE models or 405B, shapes the lab lacks), TensorRT-LLM v0.5's LLaMA 7B (no Llama-2-7B
shadow model yet).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from .hardware import GPUS, MODELS, kv_budget
from .parallel import communication_seconds
from .profiles import PROFILES
from .roofline import StepCost, step_cost

TOLERANCE = 1.35          # no single-GPU point further than ×1.35 from its published figure
MEDIAN_GOAL = 1.10        # the median ratio within ×1.10
MAX_NUM_TOKENS = 8192     # prompt tokens per step in a throughput run (engines' default max_num_tokens)
MAX_BATCH = 2048

GPT_FAST = "https://github.com/pytorch-labs/gpt-fast (README, Benchmarks: A100-80GB at 330 W, batch 1)"
LLAMA_CPP = ("https://github.com/XiongjieDai/GPU-Benchmarks-on-LLM-Inference (README, llama-bench, "
             "Llama 3 8B, May 2024)")
TRT = ("https://github.com/NVIDIA/TensorRT-LLM/blob/main/docs/source/performance/perf-overview.md (v1.0, "
       "trtllm-bench throughput, TP1)")
TRT_TP = TRT.replace("TP1)", "H100 TP2 column)")


@dataclass(frozen=True, slots=True)
class Point:
    """One published measurement and the configuration it was taken in."""
    source: str
    gpu: str
    model: str
    weight_bits: int
    act_bits: int
    kv_bits: int
    kind: str              # "decode" (tok/s per user) | "prefill" (tok/s) | "ttft" (ms) | "throughput" (output tok/s)
    batch: int             # batch size; 0 for "throughput": as many as the KV room holds
    isl: int
    osl: int
    engine: str            # the profile of profiles.PROFILES that names the source's engine
    published: float
    note: str = ""
    tp: int = 1            # GPUs of one tensor-parallel group (parallel.py); the figure is the group's

    @property
    def unit(self) -> str:
        return "ms" if self.kind == "ttft" else "tok/s"


POINTS: tuple[Point, ...] = (
    Point(GPT_FAST, "A100-SXM4-80GB", "Llama-3.1-8B", 16, 16, 16, "decode", 1, 5, 200, "gpt-fast", 93.89),
    Point(GPT_FAST, "A100-SXM4-80GB", "Llama-3.1-8B", 8, 16, 16, "decode", 1, 5, 200, "gpt-fast", 137.64,
          "int8 weight-only"),
    Point(GPT_FAST, "A100-SXM4-80GB", "Llama-3.1-70B", 8, 16, 16, "decode", 1, 5, 200, "gpt-fast", 18.04,
          "int8 weight-only"),
    Point(LLAMA_CPP, "RTX-4090", "Llama-3.1-8B", 16, 16, 16, "decode", 1, 0, 512, "llama.cpp", 54.84, "tg512, F16"),
    Point(LLAMA_CPP, "RTX-4090", "Llama-3.1-8B", 16, 16, 16, "decode", 1, 0, 4096, "llama.cpp", 52.63, "tg4096, F16"),
    Point(LLAMA_CPP, "RTX-4090", "Llama-3.1-8B", 16, 16, 16, "prefill", 1, 512, 0, "llama.cpp", 9382.00, "pp512, F16"),
    Point(LLAMA_CPP, "RTX-4090", "Llama-3.1-8B", 16, 16, 16, "prefill", 1, 4096, 0, "llama.cpp", 6531.36,
          "pp4096, F16"),
    Point(TRT, "H100-SXM5-80GB", "Llama-3.1-8B", 8, 8, 8, "throughput", 0, 128, 128, "tensorrt-llm", 28312, "FP8"),
    Point(TRT, "H100-SXM5-80GB", "Llama-3.1-8B", 8, 8, 8, "throughput", 0, 2048, 128, "tensorrt-llm", 3450, "FP8"),
    Point(TRT, "H100-SXM5-80GB", "Llama-3.1-8B", 8, 8, 8, "throughput", 0, 1000, 1000, "tensorrt-llm", 15220, "FP8"),
    Point(TRT, "H200-SXM-141GB", "Llama-3.1-8B", 8, 8, 8, "throughput", 0, 128, 128, "tensorrt-llm", 27911, "FP8"),
    Point(TRT, "H200-SXM-141GB", "Llama-3.1-8B", 8, 8, 8, "throughput", 0, 2048, 128, "tensorrt-llm", 3538, "FP8"),
    Point(TRT, "H200-SXM-141GB", "Llama-3.1-70B", 8, 8, 8, "throughput", 0, 128, 128, "tensorrt-llm", 3803,
          "Llama 3.3 70B FP8 (the same shape as 3.1 70B)"),
    Point(TRT, "H200-SXM-141GB", "Llama-3.1-70B", 8, 8, 8, "throughput", 0, 2048, 128, "tensorrt-llm", 442,
          "Llama 3.3 70B FP8"),
    # tensor parallel: the same table's H100 TP2 column for Llama 3.3 70B FP8 (a TP group of 2 GPUs)
    Point(TRT_TP, "H100-SXM5-80GB", "Llama-3.1-70B", 8, 8, 8, "throughput", 0, 128, 128, "tensorrt-llm", 6378,
          "Llama 3.3 70B FP8, TP2", 2),
    Point(TRT_TP, "H100-SXM5-80GB", "Llama-3.1-70B", 8, 8, 8, "throughput", 0, 2048, 128, "tensorrt-llm", 762,
          "Llama 3.3 70B FP8, TP2", 2),
    Point(TRT_TP, "H100-SXM5-80GB", "Llama-3.1-70B", 8, 8, 8, "throughput", 0, 1000, 1000, "tensorrt-llm", 4205,
          "Llama 3.3 70B FP8, TP2", 2),
)


def batch_cost(point: Point, task: tuple, count: int) -> StepCost:
    """step_cost of `count` copies of one task, without listing them: FLOPs and KV bytes scale with the count,
    the weights are read once (the same numbers as step_cost(shape, [task] * count, …))."""
    shape, gpu = MODELS[point.model], GPUS[point.gpu]
    one = step_cost(shape, [task], point.weight_bits, point.kv_bits, point.tp, gpu)
    weights = shape.matmul_params * point.weight_bits / 8 / point.tp
    return StepCost(one.flops * count, weights + (one.bytes - weights) * count, one.tokens * count,
                    communication_seconds(shape, one.tokens * count, point.tp, gpu))


def seconds(point: Point, task: tuple, count: int = 1) -> float:
    """One step of `count` copies of `task` on the point's GPU, at its engine profile's shares of the roofs."""
    flops_fraction, bw_fraction, overhead_us = PROFILES[point.engine].figures(point.weight_bits, point.act_bits)
    cost = batch_cost(point, task, count)
    return cost.seconds(GPUS[point.gpu], point.act_bits, flops_fraction, bw_fraction, overhead_us / 1e6)


def concurrency(point: Point) -> int:
    """Sequences of ISL + OSL tokens the KV room holds at once (at most MAX_BATCH), or the point's batch."""
    if point.batch:
        return point.batch
    room = kv_budget(GPUS[point.gpu], MODELS[point.model], point.weight_bits, point.kv_bits, tp=point.tp)["tokens"]
    return max(1, min(MAX_BATCH, room // (point.isl + point.osl)))


def decode_seconds(point: Point, batch: int) -> float:
    return sum(seconds(point, (1, point.isl + i), batch) for i in range(point.osl))


def prefill_seconds(point: Point, batch: int) -> float:
    """A wave of `batch` prompts in steps of at most MAX_NUM_TOKENS tokens (whole prompts per step when they fit)."""
    per_step = max(1, MAX_NUM_TOKENS // point.isl)
    full, rest = divmod(batch, per_step)
    step = seconds(point, (point.isl, 0), per_step)
    return full * step + (seconds(point, (point.isl, 0), rest) if rest else 0.0)


def lab_figure(point: Point) -> float:
    """What the lab's clock says for the point's configuration (module docstring), in its unit."""
    if point.kind == "decode":
        return point.osl / decode_seconds(point, point.batch)
    if point.kind == "prefill":
        return point.isl / seconds(point, (point.isl, 0))
    if point.kind == "ttft":
        return seconds(point, (point.isl, 0)) * 1e3
    c = concurrency(point)
    return c * point.osl / (prefill_seconds(point, c) + decode_seconds(point, c))


def ratio(point: Point, lab: float) -> float:
    """lab ÷ published for a rate, published ÷ lab for a time: > 1 means the lab is optimistic."""
    return point.published / lab if point.kind == "ttft" else lab / point.published


@functools.cache
def rows() -> tuple:
    """table(), computed once per process (it depends on the code only)."""
    return tuple(table())


def table() -> list[dict]:
    """Every point with the lab's figure and the ratio (the README's and block 10's table)."""
    rows = []
    for p in POINTS:
        lab = lab_figure(p)
        rows.append(dict(source=p.source, gpu=p.gpu, model=p.model, weight_bits=p.weight_bits, act_bits=p.act_bits,
                         kv_bits=p.kv_bits, kind=p.kind, batch=p.batch or concurrency(p), isl=p.isl, osl=p.osl,
                         engine=p.engine, published=p.published, lab=lab, ratio=ratio(p, lab), unit=p.unit,
                         note=p.note, tp=p.tp))
    return rows


def spread(r: float) -> float:
    """How far a ratio is from 1, as a factor ≥ 1 (0.8 and 1.25 are both ×1.25)."""
    return max(r, 1 / r)


def median(values: list[float]) -> float:
    """statistics.median's answer (the middle value, or the mean of the two middle ones), without importing
    statistics: the page's pruned standard library leaves it out (it pulls in fractions and decimal, and the
    page would download the full 2.3 MB library for it; sitebuild/stdlib.py)."""
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def summary(rows: list[dict]) -> dict:
    """{"median": median ratio, "worst": the largest spread, "optimistic": rows with ratio > 1, "rows": n}."""
    ratios = [r["ratio"] for r in rows]
    return dict(median=median(ratios), worst=max(spread(r) for r in ratios),
                optimistic=sum(r > 1 for r in ratios), rows=len(rows))


def _check() -> None:      # pragma: no cover - a quick look: python -m inference_lab.core.clock.calibration
    rows = table()
    for r in rows:
        print(f"{r['engine']:13} {r['gpu']:15} {r['model']:14} w{r['weight_bits']}a{r['act_bits']} {r['kind']:10} "
              f"b{r['batch']:<5} {r['isl']}/{r['osl']:<5} pub {r['published']:>9.2f} lab {r['lab']:>9.2f} "
              f"×{r['ratio']:.3f}")
    print(summary(rows), math.nan if not rows else "")


if __name__ == "__main__":      # pragma: no cover
    _check()
