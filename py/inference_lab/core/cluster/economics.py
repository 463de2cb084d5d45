"""What a run costs in dollars and joules under CLOCK = roofline: US$ per million tokens, joules per token.

Cost. The deployment rents GPUs = REPLICAS × TENSOR_PARALLEL GPUs of kind GPU (a replica is one tensor-parallel
group) for the run's span, the first arrival to the last finish, whether or not a step runs:

    dollars              = GPUs × GPU_PRICE_PER_HOUR × span ÷ 3,600 s
    $ per M output       = dollars ÷ output tokens × 10⁶          (what an API bills per million generated tokens)
    $ per M tokens       = dollars ÷ (prompt + output tokens) × 10⁶

GPU_PRICE_PER_HOUR = auto is the GPU's list price (hardware.PRICES: an always-on cloud rate, its page and date).

Energy. A GPU's draw is linear in its utilisation u (the linear server power model of Fan, Weber and Barroso,
"Power provisioning for a warehouse-sized computer", ISCA 2007: P(u) = P_idle + (P_busy − P_idle) · u), with
P_busy the datasheet's TDP and P_idle = IDLE_SHARE × TDP (hardware.POWER, hardware.IDLE_SHARE):

    u (one step)         = min(1, max(FLOPs ÷ (peak × t), bytes ÷ (bandwidth × t)))   achieved ÷ peak on the
                           busier roof, per GPU, over the step's whole time t (STEP_OVERHEAD and all-reduces
                           count as time at a lower u: the GPU waits)
    joules               = Σ over steps of P(u) × t × TENSOR_PARALLEL
                         + P_idle × (span − busy time) × TENSOR_PARALLEL, summed over the replicas
    J per output token   = joules ÷ output tokens;  output tokens per kWh = output tokens ÷ (joules ÷ 3.6 MJ)

By hand, one H100 (TDP 700 W, idle 105 W, 3.348 US$/h) for 1 s, one 0.5 s step streaming 1.34 TB (0.8 of
3.35 TB/s for 0.5 s: u = 0.8, P = 105 + 595 × 0.8 = 581 W), 100 output tokens after 400 prompt tokens:
581 × 0.5 + 105 × 0.5 = 343 J, 3.43 J per token, 100 ÷ (343 ÷ 3.6e6) = 1,049,563 tokens per kWh;
3.348 × 1 ÷ 3,600 = 0.00093 US$, 9.30 US$ per million output tokens, 1.86 per million tokens in + out:

    >>> from inference_lab.core.clock.hardware import GPUS
    >>> e = energy([(0, 500_000, 1e9, 1.34e12, 0)], 1_000_000, GPUS["H100-SXM5-80GB"], 16, tp=1, replicas=1)
    >>> e["joules"], round(e["utilisation"], 2), e["busy_utilisation"]
    (343.0, 0.4, 0.8)
    >>> c = cost(1, 3.348, 1_000_000, 100, 400)
    >>> c["dollars"], c["usd_per_m_output"], c["usd_per_m_tokens"]
    (0.00093, 9.3, 1.86)

Leaves out: the host (CPUs, memory, NICs, cooling: a server draws more than its GPUs; PUE), the KV transfers of
DISAGG = on (link energy), power capping and clocks below boost, and any price beyond the GPU-hour (storage,
egress, reserved or spot discounts): GPU_PRICE_PER_HOUR is one number the student can change.
"""
from __future__ import annotations

from ..clock.hardware import GPUS, GPU, IDLE_SHARE, POWER


def watts(gpu: GPU, u: float) -> float:
    """P(u) = P_idle + (TDP − P_idle) · u for one GPU (the linear model above)."""
    tdp = POWER[gpu.name][0]
    idle = IDLE_SHARE * tdp
    return idle + (tdp - idle) * u


def step_utilisation(gpu: GPU, act_bits: int, flops: float, nbytes: float, seconds: float) -> float:
    """Achieved ÷ peak on the busier roof over the step's time (per GPU of the group)."""
    if seconds <= 0:
        return 0.0
    return min(1.0, max(flops / (gpu.peak(act_bits) * seconds), nbytes / (gpu.bandwidth * seconds)))


def energy(steps: list[tuple], span_us: int, gpu: GPU, act_bits: int, tp: int, replicas: int) -> dict:
    """Joules of a run: `steps` = [(start µs, end µs, FLOPs per GPU, bytes per GPU, replica)], `span_us` the run's
    span; every replica's GPUs draw P(u) in its steps and P(0) for the rest of the span."""
    joules, busy_us, busy_work = 0.0, [0] * replicas, 0.0
    for start, end, flops, nbytes, replica in steps:
        t = (end - start) / 1e6
        u = step_utilisation(gpu, act_bits, flops, nbytes, t)
        joules += watts(gpu, u) * t * tp
        busy_us[replica] += end - start
        busy_work += u * t
    idle_s = sum(max(0, span_us - b) for b in busy_us) / 1e6
    joules += watts(gpu, 0.0) * idle_s * tp
    busy_s = sum(busy_us) / 1e6
    gpu_seconds = replicas * span_us / 1e6
    return dict(joules=round(joules, 6), tdp=POWER[gpu.name][0], idle_watts=watts(gpu, 0.0),
                busy_utilisation=round(busy_work / busy_s, 4) if busy_s else 0.0,
                utilisation=round(busy_work / gpu_seconds, 4) if gpu_seconds else 0.0,
                mean_watts=round(joules / (gpu_seconds * tp), 2) if gpu_seconds else 0.0)


def cost(gpus: int, price: float, span_us: int, output_tokens: int, input_tokens: int) -> dict:
    """Dollars of `gpus` GPUs at `price` US$/h for `span_us`, and per million output / all tokens."""
    dollars = gpus * price * span_us / 1e6 / 3600
    return dict(gpus=gpus, price_per_hour=price, dollars=round(dollars, 9),
                usd_per_m_output=round(dollars / output_tokens * 1e6, 4) if output_tokens else None,
                usd_per_m_tokens=round(dollars / (output_tokens + input_tokens) * 1e6, 4)
                if output_tokens + input_tokens else None)


def economics(cfg, done: list, items: list) -> dict | None:
    """The run's cost and energy (--json `economics`, block [12]'s line) from its finished requests and its steps;
    None under the seed clock (no GPU to price) or when nothing finished.

    Keys: gpus, price_per_hour (US$), dollars, usd_per_m_output, usd_per_m_tokens, span (µs), output_tokens,
    input_tokens, joules, tdp and idle_watts (W, one GPU), utilisation (time-weighted over the span and every
    GPU), busy_utilisation (over the steps only), mean_watts (per GPU), joules_per_output_token,
    output_tokens_per_kwh."""
    if cfg.CLOCK != "roofline" or not done:
        return None
    span = max(r.finish for r in done) - min(r.arrival for r in done)
    out = sum(len(r.out) for r in done)
    prompt = sum(r.prompt_len for r in done)
    replicas, tp = cfg.REPLICAS, cfg.TENSOR_PARALLEL
    steps = [(it["start"], it["end"], it["cost"]["flops"], it["cost"]["bytes"], it.get("replica", 0))
             for it in items if "cost" in it]
    e = energy(steps, span, GPUS[cfg.GPU], cfg.ACT_BITS, tp, replicas)
    kwh = e["joules"] / 3.6e6
    return dict(**cost(replicas * tp, cfg.GPU_PRICE_PER_HOUR, span, out, prompt), span=span, output_tokens=out,
                input_tokens=prompt, **e, joules_per_output_token=round(e["joules"] / out, 4) if out else None,
                output_tokens_per_kwh=round(out / kwh) if kwh else None)
