"""The roofline clock: what one engine step would cost on a named GPU with a real model's shapes.

One step is one forward pass over every task it holds (decodes and prompt chunks together: the weights
are read once, which is the point of chunked prefill, Sarathi-Serve). From the step's tasks, each
`(new tokens n, positions already cached p, positions sampled s)`:

    tokens     = Σ n
    sampled    = Σ s                                       positions whose next token is drawn (below)
    attended   = Σ (n·p + n(n+1)/2)                        causal: the i-th new token sees p + i positions
    FLOPs      = 2 · (matmul params − LM head) · tokens  +  2 · LM head · sampled
               + 4 · layers · heads · head_dim · attended
    bytes      = matmul params · WEIGHT_BITS/8              weights, read once per step
               + KV bytes per token · Σ p                   K/V of every cached position a task attends to
               + KV bytes per token · tokens                K/V written for the new tokens
    time       = max(FLOPs ÷ (peak · FLOPS_FRACTION), bytes ÷ (bandwidth · BANDWIDTH_FRACTION)) + STEP_OVERHEAD
    bound      = "compute" if the FLOP term is the larger, else "memory";  intensity = FLOPs ÷ bytes

Logits are computed only where a token is sampled, as engines do (vLLM's `compute_logits` on the hidden
states at `logits_indices`): the last position of a prompt's FINAL chunk (an earlier chunk samples
nothing), each decode token, each position of a speculative verify pass (k + 1). A task written
`(n, p)` samples one position. (KV bytes per token = 2 · layers · kv_heads · head_dim · KV_BITS/8; peak is
the GPU's dense figure at the ACTIVATIONS' precision, ACT_BITS: bf16 for 16-bit activations whatever
WEIGHT_BITS is (weight-only quantization streams fewer bytes but multiplies at 16 bits), fp8/int8 only for
W8A8; attention runs at the same precision.) The floor max(FLOPs ÷ peak, bytes ÷ bandwidth) is what no real
kernel beats; the fractions ≤ 1 and the overhead ≥ 0 keep every step above it.

The efficiencies come from ENGINE_PROFILE (profiles.py: per engine and precision, from cited measurements;
`ideal` = the datasheet roofs, no overhead); an explicit FLOPS_FRACTION, BANDWIDTH_FRACTION or STEP_OVERHEAD
wins over the profile. The default profile, vllm, keeps at 16 bits the lab's earlier figures:
- BANDWIDTH_FRACTION 0.8: memory-bound decode kernels reach 70-90 % of HBM bandwidth on A100/H100
  (Databricks, "LLM Inference Performance Engineering: Best Practices", 2023, defines this as MBU);
- FLOPS_FRACTION 0.6: large bf16 GEMMs reach about 60-75 % of the dense peak (the MFU that long-prompt
  prefill attains; the same post reports MFU as the prefill metric);
- STEP_OVERHEAD 100 µs: per-step CPU work (scheduling, sampling, launching CUDA-graph-captured kernels).

    >>> from inference_lab.core.clock.hardware import GPUS, MODELS
    >>> c = step_cost(MODELS["Llama-3.1-8B"], [(1, 100)], 16, 16)
    >>> c.bound(GPUS["H100-SXM5-80GB"], 16, 0.6, 0.8), round(c.bytes / 1e9, 2)
    ('memory', 15.02)

A 2,048-token prompt in one chunk samples once: 2 · 6.98 G · 2048 (layers) + 2 · 0.525 G · 1 (LM head)
+ 4 · 32 · 32 · 128 · 2048·2049/2 (attention) = 28.59 + 0.001 + 1.10 = 29.69 TFLOP; charging the LM head at
all 2,048 positions would make it 31.84 (×1.07; ×1.25 for Llama-3.2-1B, whose head is a larger share).

    >>> m = MODELS["Llama-3.1-8B"]
    >>> m.matmul_params - m.head_params, m.head_params
    (6979588096, 525336576)
    >>> once, everywhere = step_cost(m, [(2048, 0, 1)], 16, 16), step_cost(m, [(2048, 0, 2048)], 16, 16)
    >>> round(once.flops / 1e12, 2), round(everywhere.flops / 1e12, 2)
    (29.69, 31.84)

Under TENSOR_PARALLEL = tp > 1 the FLOPs, weight bytes and KV heads are each GPU's share and the step adds
its all-reduces (parallel.py): time = max(compute, memory) per GPU + communication + STEP_OVERHEAD.

Leaves out: pipeline parallelism and overlap of communication with compute, kernel launch detail and
per-layer kernels (one term per step, not per GEMM), activations and their memory traffic, the
embedding lookup, softmax/norm/RoPE FLOPs, and any overlap of CPU work with the GPU.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .hardware import GPUS, GPU, Shape, shadow_model
from .parallel import communication_seconds, kv_heads_per_gpu


@dataclass(frozen=True, slots=True)
class StepCost:
    """FLOPs and HBM bytes of one forward pass ON ONE GPU of the tensor-parallel group (the whole model at
    tp = 1), and the seconds its all-reduces take (parallel.py; 0 at tp = 1)."""
    flops: float
    bytes: float
    tokens: int
    comm: float = 0.0          # seconds of communication per step (2 all-reduces per layer)

    @property
    def intensity(self) -> float:
        return self.flops / self.bytes if self.bytes else 0.0

    def terms(self, gpu: GPU, act_bits: int, flops_fraction: float = 1.0, bw_fraction: float = 1.0) -> tuple:
        """(compute seconds, memory seconds) at these shares of the peaks (1.0, 1.0 = the physical floor);
        the compute peak is the one of the activations' precision (ACT_BITS)."""
        return (self.flops / (gpu.peak(act_bits) * flops_fraction), self.bytes / (gpu.bandwidth * bw_fraction))

    def bound(self, gpu: GPU, act_bits: int, flops_fraction: float = 1.0, bw_fraction: float = 1.0) -> str:
        return bound_of(self.terms(gpu, act_bits, flops_fraction, bw_fraction))

    def seconds(self, gpu: GPU, act_bits: int, flops_fraction: float, bw_fraction: float, overhead_s: float) -> float:
        """max(compute, memory) per GPU + communication + the step overhead (once: one scheduler drives the group)."""
        return self.seconds_of(self.terms(gpu, act_bits, flops_fraction, bw_fraction), overhead_s)

    def seconds_of(self, terms: tuple, overhead_s: float) -> float:
        """`seconds` from its `terms` (compute, memory)."""
        return max(terms) + self.comm + overhead_s


def bound_of(terms: tuple) -> str:
    """"compute" or "memory": the larger of the roofline's (compute, memory) seconds (a tie: memory)."""
    compute, memory = terms
    return "compute" if compute > memory else "memory"


def sampled(task: tuple) -> int:
    """Positions of a task whose logits are computed: its third number, or one (a decode, a whole prompt)."""
    return task[2] if len(task) > 2 else 1


def step_cost(shape: Shape, work: list[tuple], weight_bits: int, kv_bits: int, tp: int = 1,
              gpu: GPU | None = None) -> StepCost:
    """The cost of one step whose tasks are `work` = [(new tokens, positions already cached[, positions sampled])],
    per GPU of a tensor-parallel group of `tp` GPUs of kind `gpu` (weights, FLOPs and KV heads split: parallel.py).

    Llama-3.1-8B decoding one token after 100 cached positions on 2 × H100: half the weights (7.507 GB of 15.01)
    plus 101 positions × 4 of 8 KV heads (65,536 bytes each), and 64 all-reduces of 8,192 bytes (244.4 µs,
    parallel.py's worked example):

    >>> from inference_lab.core.clock.hardware import GPUS, MODELS
    >>> c = step_cost(MODELS["Llama-3.1-8B"], [(1, 100)], 16, 16, 2, GPUS["H100-SXM5-80GB"])
    >>> round(c.bytes / 1e9, 3), round(c.comm * 1e6, 1)
    (7.512, 244.4)
    """
    tokens = attended = past = rows = 0                  # one pass over the tasks (integers: the same sums)
    for w in work:
        n, p = w[0], w[1]
        tokens, past, attended = tokens + n, past + p, attended + n * p + n * (n + 1) // 2
        rows += w[2] if len(w) > 2 else 1                # sampled(w)
    return cost_of_sums(shape, (tokens, past, attended, rows) if work else None, weight_bits, kv_bits, tp, gpu)


def cost_of_sums(shape: Shape, sums: tuple | None, weight_bits: int, kv_bits: int, tp: int = 1,
                 gpu: GPU | None = None, coef: tuple | None = None, comm: float | None = None) -> StepCost:
    """step_cost from the step's four sums over its tasks (tokens, past, attended, rows) (None: no task): the
    cost depends on the tasks through these sums only, so a caller that sums them as it goes (a timing-only replay,
    replay.ReplayEngine) gets the same StepCost without a list of tasks; `coef`: `coefficients` of these arguments,
    `comm`: communication_seconds of these tokens, when the caller kept them (Clock does)."""
    tokens, past, attended, rows = sums or (0, 0, 0, 0)
    per_token, per_row, per_pair, weights, kv = coef or coefficients(shape, weight_bits, kv_bits, tp)
    flops = per_token * tokens + per_row * rows + per_pair * attended
    weights = weights if sums else 0
    if tp <= 1:
        return StepCost(float(flops), float(weights + kv * past + kv * tokens), tokens)
    return StepCost(flops / tp, weights / tp + kv * past + kv * tokens, tokens,
                    communication_seconds(shape, tokens, tp, gpu) if comm is None else comm)


def coefficients(shape: Shape, weight_bits: int, kv_bits: int, tp: int = 1) -> tuple:
    """(FLOPs per new token through the body, per sampled row through the LM head, per attended (query, key) pair;
    weight bytes of the whole model; KV bytes per position on one GPU of the group) of step_cost's formula: one new
    token costs 2 FLOPs per body parameter, a sampled row 2 per LM-head parameter, an attended pair 4 per layer,
    head and head dimension (QK^T and PV)."""
    body = shape.matmul_params - shape.head_params
    kv = shape.kv_bytes_per_token(kv_bits)
    if tp > 1:
        kv = kv * kv_heads_per_gpu(shape, tp) // shape.kv_heads
    return (2 * body, 2 * shape.head_params, 4 * shape.layers * shape.heads * shape.head_dim,
            shape.matmul_params * weight_bits / 8, kv)


class Clock:
    """The run's roofline: the GPU, the shadow model and the constants that charge a step (one per run)."""

    def __init__(self, cfg, lab_vocab: int = 0):
        self.cfg, self.gpu, self.shape = cfg, GPUS[cfg.GPU], shadow_model(cfg.SHADOW_MODEL, lab_vocab)
        self.coef = None           # coefficients(...) of this run, once cost_of_sums needs them
        self.comm = {}             # {tokens: communication_seconds} of this run's steps (tensor parallel only)

    def cost(self, work: list[tuple[int, int]]) -> StepCost:
        return self.cost_at(work, self.cfg.WEIGHT_BITS)

    def cost_at(self, work: list[tuple[int, int]], weight_bits: int) -> StepCost:
        """The cost of a pass of the shadow model with its weights at `weight_bits` (a quantized draft,
        speculative.py)."""
        return step_cost(self.shape, work, weight_bits, self.cfg.KV_BITS, self.cfg.TENSOR_PARALLEL, self.gpu)

    def cost_of_sums(self, sums: tuple | None) -> StepCost:
        """`cost` of a step given as its tasks' four sums (roofline.cost_of_sums; None: no task)."""
        cfg = self.cfg
        tp = cfg.TENSOR_PARALLEL
        if self.coef is None:
            self.coef = coefficients(self.shape, cfg.WEIGHT_BITS, cfg.KV_BITS, tp)
        comm = None
        if tp > 1 and sums:        # a step's all-reduces depend on its tokens only: computed once per count
            comm = self.comm.get(sums[0])
            if comm is None:
                comm = self.comm[sums[0]] = communication_seconds(self.shape, sums[0], tp, self.gpu)
        return cost_of_sums(self.shape, sums, cfg.WEIGHT_BITS, cfg.KV_BITS, tp, self.gpu, self.coef, comm)

    def timed(self, cost: StepCost) -> tuple[int, dict]:
        """(micros(cost), report(cost)) with the roofline's terms taken once (a timing-only step: replay.py)."""
        cfg = self.cfg
        terms = cost.terms(self.gpu, cfg.ACT_BITS, cfg.FLOPS_FRACTION, cfg.BANDWIDTH_FRACTION)
        seconds = cost.seconds_of(terms, cfg.STEP_OVERHEAD / 1e6)
        extra = dict(communication=cost.comm) if cfg.TENSOR_PARALLEL > 1 else {}
        return math.ceil(seconds * 1e6), dict(flops=int(cost.flops), bytes=int(cost.bytes), **extra,
                                              bound=bound_of(terms), intensity=round(cost.intensity, 3),
                                              seconds=seconds)

    def micros(self, cost: StepCost) -> int:
        """The step's duration in whole µs (rounded up, so it never beats the floor)."""
        cfg = self.cfg
        s = cost.seconds(self.gpu, cfg.ACT_BITS, cfg.FLOPS_FRACTION, cfg.BANDWIDTH_FRACTION, cfg.STEP_OVERHEAD / 1e6)
        return math.ceil(s * 1e6)

    def report(self, cost: StepCost) -> dict:
        """The step's `cost` in --json: {"flops", "bytes", "bound", "intensity", "seconds"[, "communication"]};
        flops and bytes per GPU; seconds: the formula's time on this GPU (run_log.page_keys puts the step's own
        duration there under CLOCK=roofline); communication (TENSOR_PARALLEL > 1 only): its all-reduce seconds."""
        return self.timed(cost)[1]


def work_of(tasks) -> dict:
    """{sequence id: (new tokens, positions already cached, positions sampled)} of scheduler.plan_tasks'
    [(phase, seq, n)], taken before the tasks run (a decode feeds 1 token after `cached` positions and samples
    it; a prompt chunk samples its last position only when it is the prompt's final chunk)."""
    return {seq.id: (n, seq.cached, 1 if phase == "decode" or n == seq.num_prefill_left else 0)
            for phase, seq, n in tasks}
