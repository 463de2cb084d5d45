"""A load sweep: the same run at several values of one constant (`--sweep WORKLOAD_RATE=1,2,4,8,16`), one row each.

Each point is one engine run (the main, continuous-batching run only: none of blocks [11]–[12]'s replays), and
its row holds what a capacity planner reads off a vLLM benchmark's request-rate sweep
(`benchmarks/benchmark_serving.py --request-rate`): output throughput (tokens/s), TTFT and TPOT p50/p90/p99 (µs),
goodput (requests per second meeting TTFT_SLO and TPOT_SLO, goodput.py), under CLOCK = roofline its cost and
energy (`economics`: US$ per million tokens, joules per output token, economics.py) — and Little's law checked
on the run:

- L, the mean number of requests in the system, measured by integrating the count of admitted requests between
  arrival and finish over the run's span (the first arrival to the last finish);
- λ = finished requests ÷ span, W = mean time in the system (finish − arrival); Little's law (J. D. C. Little,
  "A proof for the queuing formula L = λW", Operations Research 9(3), 1961) says L = λ·W for any system that
  starts and ends empty, which a finished run does: `little.gap` is |L − λW| ÷ L, 0 up to rounding.

The knee: the last point before throughput stops following the load, i.e. the point i−1 for the first i where
throughput grew by less than half of what the swept value grew (throughput[i] ÷ throughput[i−1] − 1 <
½ (x[i] ÷ x[i−1] − 1)); None when throughput keeps up to the end. Beyond the knee, more load only adds waiting:
TTFT's tail grows and goodput falls.

    >>> points = parse_axis("WORKLOAD_RATE=1,2,4")
    >>> points
    ('WORKLOAD_RATE', [1.0, 2.0, 4.0])
    >>> knee([1.0, 2.0, 4.0, 8.0], [10.0, 19.0, 30.0, 31.0])
    2

By hand: 10 → 19 tokens/s grew 90 % for a 100 % rise of the rate (more than half: it follows); 19 → 30 grew 58 %
(follows); 30 → 31 grew 3 % for a 100 % rise: the knee is the point before, index 2 (rate 4).

Leaves out: running points in parallel (each point is independent: a search runs them on processes or Ray),
the page's sweep tool (web.sweep runs the points in the worker; static/tools/sweep.js and static/charts/sweep.js
show them), and confidence intervals (one seeded run per point).
"""
from __future__ import annotations

from ..core.cluster.economics import economics
from ..core.cluster.goodput import goodput, spread
from ..core.inputs import trace_workload
from ..core.inputs.config import FIELD_BY_NAME, Config
from ..core.serving.engine import RunOptions, run_engine
from ..core.serving.metrics import request_metrics
from ..core.serving.replay import timing_only


def parse_axis(text: str) -> tuple[str, list]:
    """'NAME=v1,v2,…' → (NAME, values typed as the constant's type); ValueError names what is wrong."""
    name, sep, raw = text.partition("=")
    name = name.strip().upper().replace("-", "_")
    if not sep or name not in FIELD_BY_NAME or not raw.strip():
        raise ValueError(text)
    kind = FIELD_BY_NAME[name].type
    cast = int if kind == "int" else float if kind == "float" else str
    return name, [cast(v.strip()) for v in raw.split(",") if v.strip()]


def in_system(done: list) -> float:
    """L: the time-average number of requests between arrival and finish over [first arrival, last finish]."""
    events = sorted([(r.arrival, 1) for r in done] + [(r.finish, -1) for r in done])
    area, count, last = 0, 0, events[0][0]
    for t, step in events:
        area += count * (t - last)
        count, last = count + step, t
    span = events[-1][0] - events[0][0]
    return area / span if span else 0.0


def measure(cfg: Config, done: list, items: list = ()) -> dict:
    """One point's row from its finished requests and its steps `items` (µs on the simulated clock)."""
    if not done:
        return dict(served=0, throughput=0.0, ttft=None, tpot=None, goodput=None, little=None, economics=None)
    per = [request_metrics(r) for r in done]
    span = max(r.finish for r in done) - min(r.arrival for r in done)
    lam = len(done) / (span / 1e6) if span else 0.0                                    # requests/s
    w = sum(r.finish - r.arrival for r in done) / len(done) / 1e6                      # s
    big_l = in_system(done)
    return dict(served=len(done), span=span, throughput=round(sum(m["n"] for m in per) / (span / 1e6), 2) if span
                else 0.0, ttft=spread([m["ttft"] for m in per]),
                tpot=spread([m["tpot"] for m in per if m["tpot"] is not None]),
                goodput=goodput(done, cfg.TTFT_SLO, cfg.TPOT_SLO), economics=economics(cfg, done, items),
                little=dict(L=round(big_l, 4), lam=round(lam, 4), W=round(w, 6), lam_W=round(lam * w, 4),
                            gap=round(abs(big_l - lam * w) / big_l, 6) if big_l else 0.0))


def run_main(values: dict):
    """(config, result) of one engine run for a {NAME: value} mapping (the main run only; search.py too): timing-only
    (replay.timing_only: placeholder tokens, no model, the same scheduler, blocks and clock) when no figure depends
    on the tokens' values, the full run otherwise. The garbage collector pauses meanwhile (lab.collector_paused: a
    third of a four-replica timing-only point's CPU time went to its passes over the run log's records)."""
    from ..core.cluster.cluster import run_cluster
    from ..core.serving.replay import replay_engine
    from .cluster_data import is_cluster
    from .lab import collector_paused
    from .weights import Lab
    cfg = Config.from_values(values)
    lab = Lab.build(cfg)
    options = RunOptions("continuous", cfg.TOKEN_BUDGET, check=False, timing_only=timing_only(cfg))
    play = run_cluster if is_cluster(cfg) else replay_engine if options.timing_only else run_engine
    with collector_paused():
        return cfg, play(lab, options)


def run_point(values: dict) -> dict:
    """One full engine run for a {NAME: value} mapping (the main run only) and its row."""
    cfg, main = run_main(values)
    row = measure(cfg, main.done, main.log.items)
    row["timing_only"] = timing_only(cfg)
    v = cfg.to_dict()
    if v.get("WORKLOAD_REQUESTS") and v.get("WORKLOAD_TRACE", "off") != "off":   # a recorded trace: say what
        row["clipped"] = dict(n=trace_workload.clipped(v), of=v["WORKLOAD_REQUESTS"], max_context=v["MAX_CONTEXT"])
    return row


def knee(xs: list, throughputs: list) -> int | None:
    """The index of the last point whose throughput still followed the load (see the module docstring): for the
    first i where throughput grew by less than half the value's growth, i − 1; None if it never stopped."""
    for i in range(1, len(xs)):
        if xs[i - 1] > 0 and throughputs[i - 1] > 0 and xs[i] > xs[i - 1]:
            if throughputs[i] / throughputs[i - 1] - 1 < 0.5 * (xs[i] / xs[i - 1] - 1):
                return i - 1
    return None


def sweep(values: dict, name: str, xs: list, progress=None, stopped=lambda: False, on_point=None,
          keep_on_interrupt: bool = False) -> dict:
    """Run every point (in order; `stopped()` ends the sweep early, `progress(i, n)` hears each point, `on_point`
    gets the result so far after each one). keep_on_interrupt: a KeyboardInterrupt (the page's Stop) ends the sweep
    with the points already done (stopped True) instead of going up."""
    rows = []
    for i, x in enumerate(xs):
        if stopped():
            break
        try:
            rows.append(dict(value=x, **run_point({**values, name: x})))
        except KeyboardInterrupt:
            if not keep_on_interrupt:
                raise
            break
        if progress:
            progress(i + 1, len(xs))
        if on_point:
            on_point(result(name, xs, rows))
    return result(name, xs, rows)


def result(name: str, xs: list, rows: list) -> dict:
    """The sweep's answer from the rows done so far: {name, values, points, knee, stopped}."""
    k = knee([r["value"] for r in rows], [r["throughput"] for r in rows])
    return dict(name=name, values=xs, points=rows, knee=k, stopped=len(rows) < len(xs))
