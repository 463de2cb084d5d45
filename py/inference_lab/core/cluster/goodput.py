"""Goodput under SLOs and latency percentiles (DistServe's measure: requests per second that meet both SLOs).

A served (finished) request meets the SLOs when its TTFT ≤ TTFT_SLO and its TPOT ≤ TPOT_SLO (a request with one
token has no TPOT and meets that half). Over the served requests of a run:

    met        requests meeting both          fraction = met ÷ served
    per_s      met ÷ the run's span in seconds (first arrival → last finish, metrics.summarize's span)

Refused (429/400) and cancelled requests are not served: they count in neither `met` nor `served` (block [1]
counts them). Percentiles are nearest-rank: the p-th percentile of n sorted values is the ⌈p·n/100⌉-th, a value
that occurred (no interpolation between two requests).

    >>> percentile([5, 1, 4, 2, 3], 50), percentile([5, 1, 4, 2, 3], 90), percentile([], 99)
    (3, 5, None)
    >>> from types import SimpleNamespace as NS
    >>> r = [NS(arrival=0, ready=0, start=0, token_times=[900, 1900, 2900], out=[7, 8, 9], finish=2900),
    ...      NS(arrival=0, ready=0, start=0, token_times=[1200, 4200], out=[7, 9], finish=4200)]
    >>> g = goodput(r, 1000, 2000); (g["met"], g["served"], g["fraction"], round(g["per_s"], 1))
    (1, 2, 0.5, 238.1)

Leaves out: per-request SLOs (every request has the same two), E2E latency SLOs, warm-up exclusion.
"""
from __future__ import annotations

import math

from ..serving.metrics import request_metrics

PERCENTILES = (50, 90, 99)


def percentile(values: list, p: float):
    """Nearest-rank p-th percentile (None for no values)."""
    if not values:
        return None
    xs = sorted(values)
    return xs[max(1, math.ceil(p * len(xs) / 100)) - 1]


def spread(values: list) -> dict:
    """{"p50", "p90", "p99"} of the values (None each when there are none); TPOTs are rounded to 0.1 µs."""
    return {f"p{p}": (None if (v := percentile(values, p)) is None else round(v, 1)) for p in PERCENTILES}


def meets(m: dict, ttft_slo: int, tpot_slo: int) -> bool:
    return m["ttft"] <= ttft_slo and (m["tpot"] is None or m["tpot"] <= tpot_slo)


def goodput(done: list, ttft_slo: int, tpot_slo: int) -> dict:
    """{"ttft_slo", "tpot_slo", "met", "served", "fraction", "per_s"} over the finished requests `done`."""
    per = [request_metrics(r) for r in done]
    met = sum(meets(m, ttft_slo, tpot_slo) for m in per)
    span = (max(r.finish for r in done) - min(r.arrival for r in done)) if done else 0
    return dict(ttft_slo=ttft_slo, tpot_slo=tpot_slo, met=met, served=len(done),
                fraction=round(met / len(done), 4) if done else None,
                per_s=round(met / (span / 1e6), 3) if span else None)
