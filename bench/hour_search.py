#!/usr/bin/env python3
"""Issue 42's scale target, a command, not a test: a search of 24 points on an hour of the Azure conversation trace
(19,366 requests, ../shared/traces/), on local processes and on a local Ray, the same answer from both.

    python3 bench/hour_search.py                     # the hour: measure, then the 24 points on local, then on Ray
    python3 bench/hour_search.py --minutes 1         # the trace's first minute (324 requests) instead
    python3 bench/hour_search.py --measure-only      # one point, full run against timing-only, extrapolated
    python3 bench/hour_search.py --backends local    # one backend
    python3 bench/hour_search.py --together          # both backends at the same time (a thread each)

First it measures one point (one H100, the grid's base constants) on the first `--measure` requests twice: the full
run (the NumPy model computes every token: engine.run_engine) and the timing-only run the search uses
(replay.timing_only: the same scheduler, blocks and clock, placeholder tokens), checks that their figures are equal
(sweep.measure's row: throughput, TTFT/TPOT percentiles, goodput, Little's law, cost, energy), prints both times,
the steps and each one's time per step, and extrapolates both to the window (time ∝ requests). Then it runs the
grid REPLICAS = 1, 2, 4 × GPU = H100, A100 × TENSOR_PARALLEL = 1, 2 × SLOTS = 64, 128 (24 points) with
search.search on each backend (`--workers` processes, or a new local Ray with that many CPUs: ray.init(num_cpus=2))
and prints each backend's wall-clock seconds, its answer and Pareto front, and whether the two backends' rows are
the same (JSON-equal).

The base constants: CLOCK = roofline, Llama-3.1-8B, IGNORE_EOS = on (each request makes the trace's
GeneratedTokens), BLOCK_SIZE = 16 (vLLM's default on GPUs), POOL_BLOCKS = auto, TOKEN_BUDGET = 8,192 (vLLM's
max_num_batched_tokens for online serving), QUEUE_LIMIT = 1,024, MAX_CONTEXT = 16,384 (longer requests are clipped,
trace_workload.fitted), the SLO defaults of the roofline clock.

A local Ray starts its workers at nice 15 (Ray's RAY_worker_niceness): on a loaded shared machine they then get a
fraction of the CPU the local processes get (here ~2 against ~8 CPU-seconds a minute), so this command sets
RAY_worker_niceness = 0 for the Ray it starts unless the environment says otherwise.

How long it takes. Session 48 (2026-12-03, the shared 2-core machine at load 15-20, other sessions' tests
running), after the multi-replica fixes (the garbage collector paused during a point's run, sweep.run_main: a third
of a four-replica point's CPU went to its passes over millions of step records; the pool's free list merged in place
instead of sorted(free + blocks) of a TP 2 pool's 64k blocks at every finish; the router's prompt hashes once per
request; steady decode runs reuse their planned tasks; the all-reduce seconds kept per token count): the first
10 minutes (2,867 requests), `--minutes 10 --together`: local processes 1,625 s wall, 245 s CPU; the local Ray
1,647 s wall; "same answer True, same Pareto front True, same rows True"; answer #1 (one H100, TP 1, 64 slots,
3.35 US$/h, goodput 4.759/s, 100 %), Pareto front [5, 6, 1, 2, 3, 4]. CPU seconds per point on those 10 minutes:
one H100 4.2 s (4.5 before), 2 × H100 TP 2 10.3 s (16.4), 4 × H100 TP 2 13.2 s (17.5 at a lighter load), 4 × A100
TP 1 8.8 s. The costly points are the multi-replica ones because each replica steps on its own (four replicas at
TP 2 take six times the steps of one H100, ~0.02 ms each): no step cost grows with the run (5 and 10 minutes give
the same time per step). Extrapolated to the hour (× 6.75): ~1,650 CPU-seconds (~28 CPU-minutes) per backend at
that load. The hour itself, this command as it is, 2026-12-03 19:30–20:14 UTC: local processes 24 points in 1,693 s
wall (1,795 s CPU; load 2–9, other jobs finishing), then the local Ray 24 points in 817 s wall on the quiet machine;
"same answer True, same Pareto front True, same rows True"; answer #1 (one H100, TP 1, 64 slots, 3.35 US$/h, goodput
5.514/s, both SLOs 100 %), Pareto front [6, 1, 2, 3, 4]; the measure point 4.0 s CPU full against 0.1 s
timing-only. Memory: every step keeps its record
(~1.4 KB), so a four-replica TP 2 point of the hour (~3.4 million steps) holds ~5 GB until its row is measured, and
two local workers hold two such points: run the backends one after the other (the default), not `--together`, on
the hour.

Session 47 (load 15-30), before those fixes: the measure point (100 requests, one H100) 12.2 s CPU full against
0.3 s timing-only (0.05 ms per step; figures equal); with --together, local processes finished the hour's 8
one-replica points in 2,293 s wall (≈ 95 CPU-seconds a point) and no multi-replica point in time (one took ~670 s);
the one-replica rows of the hour: one H100 3.35 US$/h, goodput 5.514/s, both SLOs 100 % (64 and 128 slots alike);
2 × H100 (TP 2) 6.70 US$/h, 5.529/s, 100 %; one A100 2.16 US$/h, 56 % (64 slots) and 59 % (128), rejected;
2 × A100 (TP 2) 4.32 US$/h, 5.266/s, 95 %; every other point costs at least 4.32 US$/h, so the hour's answer is one
H100, TP 1, 64 slots. Its local Ray first timed out starting (Ray's raylet waiting for its dashboard agent,
ray-project/ray#62883): set RAY_agent_register_timeout_ms = 600000 on a loaded machine.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
from inference_lab.core.cluster.cluster import run_cluster  # noqa: E402
from inference_lab.core.inputs import trace_workload  # noqa: E402
from inference_lab.core.inputs.config import Config  # noqa: E402
from inference_lab.core.serving.engine import RunOptions, run_engine  # noqa: E402
from inference_lab.core.serving.replay import replay_engine  # noqa: E402
from inference_lab.entrypoints.cluster_data import is_cluster  # noqa: E402
from inference_lab.entrypoints.lab import collector_paused  # noqa: E402
from inference_lab.entrypoints.search import search  # noqa: E402
from inference_lab.entrypoints.sweep import measure  # noqa: E402
from inference_lab.entrypoints.weights import Lab  # noqa: E402

CONV = ROOT.parent / "shared" / "traces" / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_conv.csv"
BASE = dict(CLOCK="roofline", SHADOW_MODEL="Llama-3.1-8B", IGNORE_EOS="on", BLOCK_SIZE=16, POOL_BLOCKS="auto",
            TOKEN_BUDGET=8192, QUEUE_LIMIT=1024, MAX_CONTEXT=16384, SLOTS=64)
AXES = [("REPLICAS", [1, 2, 4]), ("GPU", ["H100-SXM5-80GB", "A100-SXM4-80GB"]), ("TENSOR_PARALLEL", [1, 2]),
        ("SLOTS", [64, 128])]


def window(trace: str, minutes: float) -> dict:
    """The base constants for the trace's first `minutes` (every request in them)."""
    v = dict(WORKLOAD_TRACE=trace, WORKLOAD_TRACE_START=0.0, WORKLOAD_TRACE_DURATION=minutes * 60.0,
             WORKLOAD_TIME_SCALE=1.0, WORKLOAD_REQUESTS=10**9)
    n = len(trace_workload.window(v))
    return dict(BASE, WORKLOAD_TRACE=trace, WORKLOAD_TRACE_DURATION=minutes * 60.0, WORKLOAD_REQUESTS=n)


def timed_point(values: dict, timing_only: bool) -> tuple[float, dict, int]:
    """(seconds, the point's row, steps) of one run, full or timing-only."""
    cfg = Config.from_values(values)
    lab = Lab.build(cfg)
    options = RunOptions("continuous", cfg.TOKEN_BUDGET, check=False, timing_only=timing_only)
    play = run_cluster if is_cluster(cfg) else replay_engine if timing_only else run_engine
    t = time.process_time()
    with collector_paused():                           # as the search's points run (sweep.run_main)
        result = play(lab, options)
    seconds = time.process_time() - t                  # CPU seconds: the fairer figure on a shared machine
    return seconds, measure(cfg, result.done, result.log.items), len(result.log.items)


def measure_point(base: dict, n: int) -> float:
    """One point on the first n requests, both ways; returns timing-only seconds per request."""
    values = dict(base, WORKLOAD_TRACE_DURATION=0.0, WORKLOAD_REQUESTS=n)
    fast_s, fast, steps = timed_point(values, True)
    full_s, full, _ = timed_point(values, False)
    same = json.dumps(fast, sort_keys=True) == json.dumps(full, sort_keys=True)
    print(f"one point, {n} requests, one H100: full run {full_s:.1f} s CPU, timing-only {fast_s:.1f} s CPU "
          f"({full_s / fast_s:.1f}× faster), {steps} steps: {full_s / steps * 1e3:.2f} ms against "
          f"{fast_s / steps * 1e3:.2f} ms per step; figures equal: {same}")
    whole = base["WORKLOAD_REQUESTS"]
    print(f"extrapolated to the window's {whole} requests: full {full_s * whole / n:.0f} s, timing-only "
          f"{fast_s * whole / n:.0f} s for this one point")
    return fast_s / n


def run_search(base: dict, backend: str, workers: int) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds of this process and its finished children: the local workers, not Ray's), result.
    Each point is printed as it finishes (its number in the grid, the wall-clock seconds so far, its row's figures),
    so a search stopped before its end still says how far it got and what its points gave."""
    t, cpu = time.perf_counter(), cpu_seconds()

    def on_point(i: int, row: dict) -> None:
        print(f"{backend}: point {i + 1} done at {time.perf_counter() - t:.0f} s wall: {line(row)}", flush=True)

    result = search(base, AXES, 0.9, backend, workers=workers, on_point=on_point)
    return time.perf_counter() - t, cpu_seconds() - cpu, result


def line(r: dict) -> str:
    """One point's row in a line (its constants, cost per hour, goodput, both SLOTs' attainment)."""
    if not r["ok"]:
        return f"{r['point']}: not a valid configuration ({r['problems'][0]['key']})"
    return (f"{r['point']}: {r['cost_per_hour']:.2f} US$/h, goodput {r['goodput']:g}/s, both SLOs "
            f"{r['attainment']['both']:.0%}, meets {r['meets']}")


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def describe(name: str, seconds: float, cpu: float, result: dict) -> None:
    rows, answer = result["points"], result["answer"]
    point = rows[answer]["point"] if answer is not None else None
    print(f"{name}: {len(rows)} points in {seconds:.0f} s wall, {cpu:.0f} s CPU here; all timing-only: "
          f"{all(r.get('timing_only') for r in rows if r['ok'])}; answer #{None if answer is None else answer + 1} "
          f"{point}; Pareto front {[i + 1 for i in result['pareto']]}")
    for i, r in enumerate(rows, 1):
        print(f"   {i:>2} {line(r)}{'  ← answer' if i - 1 == answer else ''}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--trace", default=str(CONV), help="the conversation trace's CSV (default: ../shared/traces/…)")
    p.add_argument("--minutes", type=float, default=60.0, help="the window: the trace's first MINUTES (default 60)")
    p.add_argument("--measure", type=int, default=100, help="requests of the full-against-timing-only point")
    p.add_argument("--measure-only", action="store_true", help="measure and extrapolate; no search")
    p.add_argument("--backends", default="local,ray", help="local, ray or both (default local,ray)")
    p.add_argument("--workers", type=int, default=2, help="local processes, or the local Ray's CPUs (default 2)")
    p.add_argument("--together", action="store_true", help="run the backends at the same time (one thread each)")
    args = p.parse_args()
    os.environ.setdefault("RAY_worker_niceness", "0")     # a local Ray's workers as the local processes (docstring)
    base = window(args.trace, args.minutes)
    n = base["WORKLOAD_REQUESTS"]
    points = 1
    for _, values in AXES:
        points *= len(values)
    print(f"window: the first {args.minutes:g} min of {Path(args.trace).name}: {n} requests; grid: {points} points "
          f"({' × '.join(name for name, _ in AXES)})")
    measure_point(base, min(args.measure, n))
    if args.measure_only:
        return
    results = {}

    def one(backend: str) -> None:
        seconds, cpu, results[backend] = run_search(base, backend, args.workers)
        describe(backend, seconds, cpu, results[backend])

    backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    if args.together:                        # CPU seconds "here" then count both backends' local children
        threads = [threading.Thread(target=one, args=(b,)) for b in backends]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    else:
        for backend in backends:
            one(backend)
    if len(results) == 2:
        local, ray = results["local"], results["ray"]
        same = json.dumps(local["points"]) == json.dumps(ray["points"])
        print(f"local and ray: same answer {local['answer'] == ray['answer']}, same Pareto front "
              f"{local['pareto'] == ray['pareto']}, same rows {same}")


if __name__ == "__main__":
    main()
