"""The roofline clock: what one engine step would cost on a named GPU with a real model's shapes.

One step is one forward pass over every task it holds (decodes and prompt chunks together: the weights
are read once, which is the point of chunked prefill, Sarathi-Serve). From the step's tasks, each
`(new tokens n, positions already cached p)`:

    tokens     = Σ n
    attended   = Σ (n·p + n(n+1)/2)                        causal: the i-th new token sees p + i positions
    FLOPs      = 2 · matmul params · tokens  +  4 · layers · heads · head_dim · attended
    bytes      = matmul params · WEIGHT_BITS/8              weights, read once per step
               + KV bytes per token · Σ p                   K/V of every cached position a task attends to
               + KV bytes per token · tokens                K/V written for the new tokens
    time       = max(FLOPs ÷ (peak · FLOPS_FRACTION), bytes ÷ (bandwidth · BANDWIDTH_FRACTION)) + STEP_OVERHEAD
    bound      = "compute" if the FLOP term is the larger, else "memory";  intensity = FLOPs ÷ bytes

(KV bytes per token = 2 · layers · kv_heads · head_dim · KV_BITS/8; peak is the GPU's dense bf16 figure,
its fp8/int8 one when WEIGHT_BITS = 8.) The floor max(FLOPs ÷ peak, bytes ÷ bandwidth) is what no real
kernel beats; the fractions ≤ 1 and the overhead ≥ 0 keep every step above it.

Default efficiencies (schema.py, under "Nâng cao"; assumed, change them to match a measurement):
- BANDWIDTH_FRACTION 0.8: memory-bound decode kernels reach 70-90 % of HBM bandwidth on A100/H100
  (Databricks, "LLM Inference Performance Engineering: Best Practices", 2023, defines this as MBU);
- FLOPS_FRACTION 0.6: large bf16 GEMMs reach about 60-75 % of the dense peak (the MFU that long-prompt
  prefill attains; the same post reports MFU as the prefill metric);
- STEP_OVERHEAD 100 µs: per-step CPU work (scheduling, sampling, launching CUDA-graph-captured kernels).

    >>> from inference_lab.core.hardware import GPUS, MODELS
    >>> c = step_cost(MODELS["Llama-3.1-8B"], [(1, 100)], 16, 16)
    >>> c.bound(GPUS["H100-SXM5-80GB"], 16, 0.6, 0.8), round(c.bytes / 1e9, 2)
    ('memory', 15.02)

Leaves out: communication (one GPU, no tensor or pipeline parallelism), kernel launch detail and
per-layer kernels (one term per step, not per GEMM), activations and their memory traffic, the
embedding lookup, softmax/norm/RoPE FLOPs, and any overlap of CPU work with the GPU.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .hardware import GPUS, GPU, Shape, shadow_model


@dataclass(frozen=True, slots=True)
class StepCost:
    """FLOPs and HBM bytes of one forward pass."""
    flops: float
    bytes: float
    tokens: int

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes if self.bytes else 0.0

    def terms(self, gpu: GPU, weight_bits: int, flops_fraction: float = 1.0, bw_fraction: float = 1.0) -> tuple:
        """(compute seconds, memory seconds) at these shares of the peaks (1.0, 1.0 = the physical floor)."""
        return (self.flops / (gpu.peak(weight_bits) * flops_fraction), self.bytes / (gpu.bandwidth * bw_fraction))

    def bound(self, gpu: GPU, weight_bits: int, flops_fraction: float = 1.0, bw_fraction: float = 1.0) -> str:
        compute, memory = self.terms(gpu, weight_bits, flops_fraction, bw_fraction)
        return "compute" if compute > memory else "memory"

    def seconds(self, gpu: GPU, weight_bits: int, flops_fraction: float, bw_fraction: float, overhead_s: float) -> float:
        return max(self.terms(gpu, weight_bits, flops_fraction, bw_fraction)) + overhead_s


def step_cost(shape: Shape, work: list[tuple[int, int]], weight_bits: int, kv_bits: int) -> StepCost:
    """The cost of one step whose tasks are `work` = [(new tokens, positions already cached)]."""
    tokens = sum(n for n, _ in work)
    attended = sum(n * p + n * (n + 1) // 2 for n, p in work)
    past = sum(p for _, p in work)
    flops = 2 * shape.matmul_params * tokens + 4 * shape.layers * shape.heads * shape.head_dim * attended
    kv = shape.kv_bytes_per_token(kv_bits)
    weights = shape.matmul_params * weight_bits / 8 if work else 0
    return StepCost(float(flops), float(weights + kv * past + kv * tokens), tokens)


class Clock:
    """The run's roofline: the GPU, the shadow model and the constants that charge a step (one per run)."""

    def __init__(self, cfg, lab_vocab: int = 0):
        self.cfg, self.gpu, self.shape = cfg, GPUS[cfg.GPU], shadow_model(cfg.SHADOW_MODEL, lab_vocab)

    def cost(self, work: list[tuple[int, int]]) -> StepCost:
        return step_cost(self.shape, work, self.cfg.WEIGHT_BITS, self.cfg.KV_BITS)

    def cost_at(self, work: list[tuple[int, int]], weight_bits: int) -> StepCost:
        """The cost of a pass of the shadow model with its weights at `weight_bits` (a quantized draft, speculative.py)."""
        return step_cost(self.shape, work, weight_bits, self.cfg.KV_BITS)

    def micros(self, cost: StepCost) -> int:
        """The step's duration in whole µs (rounded up, so it never beats the floor)."""
        cfg = self.cfg
        s = cost.seconds(self.gpu, cfg.WEIGHT_BITS, cfg.FLOPS_FRACTION, cfg.BANDWIDTH_FRACTION, cfg.STEP_OVERHEAD / 1e6)
        return math.ceil(s * 1e6)

    def report(self, cost: StepCost) -> dict:
        """The step's `cost` in --json: {"flops", "bytes", "bound", "intensity", "seconds"}; seconds: the
        formula's time on this GPU (run_log.page_keys puts the step's own duration there under CLOCK=roofline)."""
        cfg = self.cfg
        return dict(flops=int(cost.flops), bytes=int(cost.bytes),
                    bound=cost.bound(self.gpu, cfg.WEIGHT_BITS, cfg.FLOPS_FRACTION, cfg.BANDWIDTH_FRACTION),
                    intensity=round(cost.intensity, 3),
                    seconds=cost.seconds(self.gpu, cfg.WEIGHT_BITS, cfg.FLOPS_FRACTION, cfg.BANDWIDTH_FRACTION,
                                         cfg.STEP_OVERHEAD / 1e6))


def work_of(tasks) -> dict:
    """{sequence id: (new tokens, positions already cached)} of scheduler.plan_tasks' [(phase, seq, n)],
    taken before the tasks run (a decode feeds 1 token after `cached` positions)."""
    return {seq.id: (n, seq.cached) for _, seq, n in tasks}
