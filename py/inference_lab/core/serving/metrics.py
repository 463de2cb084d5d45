"""[11]/[12] Telemetry and benchmark figures on the simulated clock.

Per served request (all in simulated µs):
- prep = ready − arrival (gateway + tokenisation), queue = start − ready (waiting for a
  slot), prefill = first token − start; prep + queue + prefill = TTFT exactly;
- TPOT = mean gap between tokens after the first; E2E = last token − arrival;
- gap = the longest stall between two consecutive tokens of one request.

    >>> from types import SimpleNamespace as NS
    >>> r = NS(arrival=1000, ready=1650, start=16200, token_times=[23000, 24300, 25600], out=[5, 6, 1])
    >>> m = request_metrics(r); (m["ttft"], m["tpot"], m["gap"])
    (22000, 1300.0, 1300)

`summarize(done)` adds the run's totals: tokens, span (first arrival → last finish),
throughput (tokens per simulated second), mean/max TTFT, mean TPOT and worst gap. `step_mix(items)` splits
a run log's steps into mixed (decodes and prompt chunks in one forward pass), decode-only and prompt-only,
with the mean µs of a mixed and of a decode-only step (block [12] under CLOCK = roofline).
Values that do not exist (no request served, nobody with 2 tokens) are None.

Leaves out: percentiles (three requests give no honest p95/p99), goodput, energy.
"""
from __future__ import annotations


def request_metrics(req) -> dict:
    first, last, n = req.token_times[0], req.token_times[-1], len(req.out)
    return dict(
        prep=req.ready - req.arrival,
        queue=req.start - req.ready,
        prefill=first - req.start,
        ttft=first - req.arrival,
        tpot=(last - first) / (n - 1) if n > 1 else None,
        e2e=last - req.arrival,
        gap=max(b - a for a, b in zip(req.token_times, req.token_times[1:])) if n > 1 else 0,
        n=n,
    )


def summarize(done: list) -> dict:
    per = {r.id: request_metrics(r) for r in done}
    if not per:
        return dict(per=per, tokens=0, span=None, throughput=None, mean_ttft=None, max_ttft=None,
                    mean_tpot=None, worst_gap=None)
    tokens = sum(m["n"] for m in per.values())
    span = max(r.finish for r in done) - min(r.arrival for r in done)
    tpots = [m["tpot"] for m in per.values() if m["tpot"] is not None]
    return dict(per=per, tokens=tokens, span=span, throughput=tokens / (span / 1e6),
                mean_ttft=sum(m["ttft"] for m in per.values()) / len(per),
                max_ttft=max(m["ttft"] for m in per.values()),
                mean_tpot=sum(tpots) / len(tpots) if tpots else None, worst_gap=max(m["gap"] for m in per.values()))


def step_mix(items) -> dict:
    """How a policy's steps split: mixed (decodes and prompt chunks in one forward pass), decode only, prompt
    only; with the mean µs of a mixed and of a decode-only step (None when there is none)."""
    phases = [{task[1] for task in it["tasks"]} for it in items]
    def mean_us(kind):
        spans = [it["end"] - it["start"] for it, ph in zip(items, phases) if ph == kind]
        return round(sum(spans) / len(spans)) if spans else None
    return dict(mixed=sum(ph == {"decode", "prefill"} for ph in phases),
                decode_only=sum(ph == {"decode"} for ph in phases),
                prefill_only=sum(ph == {"prefill"} for ph in phases), mixed_us=mean_us({"decode", "prefill"}),
                decode_us=mean_us({"decode"}))
