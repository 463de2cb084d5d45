"""A deployment search: the cheapest configuration that serves the workload within the SLO (`--search`).

Each `--search NAME=v1,v2,…` (the sweep's syntax, sweep.parse_axis) is one axis of a grid, among `AXES`: GPU,
TENSOR_PARALLEL, REPLICAS, DISAGG with PREFILL_REPLICAS, SLOTS, TOKEN_BUDGET, WEIGHT_BITS, ACT_BITS, KV_BITS. Every
point of the grid (their product) is one engine run (sweep.run_main's main run: timing-only when no figure depends
on the tokens' values, replay.timing_only, the full run otherwise; the row's `timing_only` says which) of the SAME
workload: the
other constants, the trace or generator and its seed, come from the command line. The question is a capacity
planner's (Vidur's configuration search, Agrawal et al., "Vidur: a large-scale simulation framework for LLM
inference", MLSys 2024, asks it the same way): which point meets the SLO attainment at the lowest cost?

- SLO attainment: the share of the workload's requests (every request submitted: a refused or unfinished one
  misses) whose TTFT ≤ TTFT_SLO and TPOT ≤ TPOT_SLO (goodput.meets); a point meets the target `attainment`
  (`--slo-attainment`, 0.9 by default: DistServe's "90 % of requests within the SLOs") when that share ≥ it.
- Cost: the deployment's US$ per hour, GPUs × GPU_PRICE_PER_HOUR with GPUs = REPLICAS × TENSOR_PARALLEL (the
  workload is the same at every point, so the cheaper deployment per hour is the cheaper per token when both keep
  up); ties go to the lower US$ per million output tokens (economics.py), then to the grid's order.
- The answer: the cheapest point that meets the target (None when none does). The Pareto front: the points no
  other point beats on both cost per hour (lower) and goodput (requests/s within the SLOs, higher), by cost.
- A rejected point says why: a constant that does not fit (the config's own problem, e.g. a 70B model on one
  GPU), or per SLO the share it reached, the target, and the request at the target's percentile against the SLO
  (e.g. TTFT p90 23.1 ms = 2.9 × TTFT_SLO); "both" when each SLO alone passes but fewer requests meet both.

    >>> pareto([dict(ok=True, cost_per_hour=1.0, goodput=2.0), dict(ok=True, cost_per_hour=2.0, goodput=1.0),
    ...         dict(ok=True, cost_per_hour=2.0, goodput=3.0), dict(ok=False, cost_per_hour=0.5)])
    [0, 2]
    >>> cheapest([dict(ok=True, meets=True, cost_per_hour=2.0, usd_per_m_output=1.0),
    ...           dict(ok=True, meets=True, cost_per_hour=2.0, usd_per_m_output=0.5),
    ...           dict(ok=True, meets=False, cost_per_hour=1.0, usd_per_m_output=0.1)])
    1

Runs on local processes by default (concurrent.futures.ProcessPoolExecutor, one per core: each point is
independent); `backend="ray"` runs each point as a Ray task (`ray.remote`) on the cluster at `address` (or a local
Ray when None): the same function, so both backends give the same rows. No scheduler of our own.

On the page a small grid runs in the worker, one point after another (run_in_order; web.search): the page's
tool (static/tools/sweep-search.js) says the limit and points to --search for more.

Leaves out: smarter search than the full grid (Vidur and BLIS prune), cost beyond the GPU-hour (economics.py),
and confidence intervals (one seeded run per point).
"""
from __future__ import annotations

import itertools
import math
import os

from ..core.cluster.goodput import meets, percentile
from ..core.inputs.config import Config, ConfigError
from ..core.serving.metrics import request_metrics

AXES = ("GPU", "TENSOR_PARALLEL", "REPLICAS", "DISAGG", "PREFILL_REPLICAS", "SLOTS", "TOKEN_BUDGET", "WEIGHT_BITS",
        "ACT_BITS", "KV_BITS")
ATTAINMENT = 0.9                 # DistServe's example: 90 % of the requests within both SLOs


def grid(axes: list[tuple[str, list]]) -> list[dict]:
    """Every combination of the axes' values, the first axis slowest: [(A, [1, 2]), (B, [x, y])] → 4 points.

    >>> grid([("REPLICAS", [1, 2]), ("GPU", ["L4", "RTX-4090"])])[1]
    {'REPLICAS': 1, 'GPU': 'RTX-4090'}
    """
    names = [name for name, _ in axes]
    return [dict(zip(names, combo)) for combo in itertools.product(*[values for _, values in axes])]


def attainment(cfg: Config, done: list, target: float) -> dict:
    """The share of the workload's requests within each SLO and both (refused or unfinished ones miss), and the
    request at the target's percentile for each SLO (µs; None when it was not served: it has no TTFT)."""
    total = len(cfg.REQUESTS)
    per = [request_metrics(r) for r in done]
    inf = [math.inf] * (total - len(per))
    ttfts = [m["ttft"] for m in per] + inf
    tpots = [m["tpot"] or 0 for m in per] + inf
    at = lambda xs: (None if (v := percentile(xs, target * 100)) in (None, math.inf) else round(v, 1))  # noqa: E731
    return dict(requests=total, served=len(per),
                ttft=round(sum(m["ttft"] <= cfg.TTFT_SLO for m in per) / total, 4),
                tpot=round(sum(m["tpot"] is None or m["tpot"] <= cfg.TPOT_SLO for m in per) / total, 4),
                both=round(sum(meets(m, cfg.TTFT_SLO, cfg.TPOT_SLO) for m in per) / total, 4),
                ttft_at=at(ttfts), tpot_at=at(tpots))


def reasons(a: dict, cfg: Config, target: float) -> list[dict]:
    """Why a valid point misses the target: per SLO {slo, share, need, at, limit} (at ÷ limit = how far over), or
    {slo: "both", ...} when each alone passes."""
    out = []
    for slo, limit in (("ttft", cfg.TTFT_SLO), ("tpot", cfg.TPOT_SLO)):
        if a[slo] < target:
            out.append(dict(slo=slo, share=a[slo], need=target, at=a[f"{slo}_at"], limit=limit,
                            unserved=a["requests"] - a["served"]))
    if not out and a["both"] < target:
        out.append(dict(slo="both", share=a["both"], need=target))
    return out


def evaluate(base: dict, point: dict, target: float) -> dict:
    """One grid point: its row (sweep.run_point's figures, its cost and its SLO attainment) or, when its constants
    do not make a valid configuration, the problems (as --sweep checks them, words/text_schema.problem_text)."""
    # imported here, not at the top: web.limits() reads AXES before the page is ready, without the engine (issue 39)
    from ..core.serving.replay import timing_only
    from .sweep import measure, run_main
    try:
        cfg, main = run_main({**base, **point})
    except ConfigError as exc:
        return dict(point=point, ok=False, problems=[dict(field=p.field, key=p.key, args=p.args, request=p.request)
                                                     for p in exc.problems])
    row = measure(cfg, main.done, main.log.items)
    a = attainment(cfg, main.done, target)
    gpus = cfg.REPLICAS * cfg.TENSOR_PARALLEL
    money = row["economics"] or {}
    why = reasons(a, cfg, target)
    return dict(point=point, ok=True, gpus=gpus, price_per_hour=cfg.GPU_PRICE_PER_HOUR,
                cost_per_hour=round(gpus * cfg.GPU_PRICE_PER_HOUR, 4), usd_per_m_output=money.get("usd_per_m_output"),
                joules_per_output_token=money.get("joules_per_output_token"),
                goodput=(row["goodput"] or {}).get("per_s") or 0.0, throughput=row["throughput"],
                attainment=a, meets=not why, reasons=why, economics=row["economics"], timing_only=timing_only(cfg))


def _evaluate_args(args: tuple) -> dict:
    return evaluate(*args)


def run_local(jobs: list[tuple], workers: int | None = None, on_point=None) -> list[dict]:
    """The points on local processes (one per core by default), in the grid's order; `on_point(index, row)` as each
    point finishes (in the order they finish)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    workers = max(1, min(workers or os.cpu_count() or 1, len(jobs)))
    if workers == 1:
        return [told(i, evaluate(*job), on_point) for i, job in enumerate(jobs)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        futures = {pool.submit(_evaluate_args, job): i for i, job in enumerate(jobs)}
        rows = {}
        for done in as_completed(futures):
            rows[futures[done]] = told(futures[done], done.result(), on_point)
        return [rows[i] for i in range(len(jobs))]


def told(index: int, row: dict, on_point=None) -> dict:
    """`row`, after telling `on_point(index, row)` (a long search's progress: bench/hour_search.py)."""
    if on_point:
        on_point(index, row)
    return row


def start_ray(ray, options: dict, attempts: int = 3) -> None:
    """ray.init(**options), tried again when a new local node misses Ray's own 30 s start-up wait (its raylet
    registers late on a loaded machine: "The current node timed out during startup"); a cluster's address is not
    retried."""
    for attempt in range(attempts):
        try:
            ray.init(**options)
            return
        except Exception as exc:                    # Ray raises a bare Exception for this
            ray.shutdown()
            if options.get("address") or "timed out during startup" not in str(exc) or attempt == attempts - 1:
                raise


def run_ray(jobs: list[tuple], address: str | None = None, num_cpus: int | None = None, on_point=None) -> list[dict]:
    """The points as Ray tasks on the cluster at `address` (None: a new local Ray with `num_cpus` CPUs), in the
    grid's order. The package travels with the job (ray.init's runtime_env `py_modules`), so the cluster's workers
    need NumPy and Ray only; a Ray the caller already started is used as it is (its runtime_env must provide the
    package). Needs the optional extra: pip install "inference_lab[ray]"."""
    import ray

    import inference_lab
    started = not ray.is_initialized()
    if started:
        package = os.path.dirname(os.path.abspath(inference_lab.__file__))         # the folder py/inference_lab
        start_ray(ray, dict(address=address, num_cpus=num_cpus if address is None else None,
                            include_dashboard=False, log_to_driver=False, runtime_env={"py_modules": [package]}))
    try:
        task = ray.remote(evaluate)
        refs = [task.remote(*job) for job in jobs]
        if on_point:                                   # as each finishes (ray.wait), then in the grid's order
            index, left = {ref: i for i, ref in enumerate(refs)}, list(refs)
            while left:
                ready, left = ray.wait(left, num_returns=1)
                told(index[ready[0]], ray.get(ready[0]), on_point)
        return ray.get(refs)
    finally:
        if started:
            ray.shutdown()


def pareto(rows: list[dict]) -> list[int]:
    """Indices of the valid rows no other valid row beats on both cost per hour (≤) and goodput (≥, one strictly),
    cheapest first."""
    ok = [i for i, r in enumerate(rows) if r["ok"]]
    front = [i for i in ok if not any(
        rows[j]["cost_per_hour"] <= rows[i]["cost_per_hour"] and rows[j]["goodput"] >= rows[i]["goodput"]
        and (rows[j]["cost_per_hour"], -rows[j]["goodput"]) != (rows[i]["cost_per_hour"], -rows[i]["goodput"])
        for j in ok)]
    return sorted(front, key=lambda i: (rows[i]["cost_per_hour"], -rows[i]["goodput"], i))


def cheapest(rows: list[dict]) -> int | None:
    """The index of the cheapest row meeting the target (cost per hour, then US$ per million output tokens)."""
    good = [i for i, r in enumerate(rows) if r["ok"] and r["meets"]]
    inf = math.inf
    return min(good, key=lambda i: (rows[i]["cost_per_hour"], rows[i]["usd_per_m_output"] or inf, i), default=None)


def search(base: dict, axes: list[tuple[str, list]], target: float = ATTAINMENT, backend: str = "local",
           address: str | None = None, workers: int | None = None, on_point=None) -> dict:
    """Run the grid; {"axes", "target", "points": rows, "answer": index | None, "pareto": [indices], "backend"}.
    `workers`: local processes, or a new local Ray's CPUs (None: every core); `on_point(index, row)`: told as each
    point finishes."""
    points = grid(axes)
    jobs = [(base, p, target) for p in points]
    rows = (run_ray(jobs, address, workers, on_point) if backend == "ray" else run_local(jobs, workers, on_point))
    return summary(axes, target, rows, backend)


def summary(axes: list[tuple[str, list]], target: float, rows: list[dict], backend: str) -> dict:
    """The search's answer from its rows (all the grid's, or the first ones of a stopped search: `stopped`)."""
    return dict(axes=[dict(name=n, values=v) for n, v in axes], target=target, points=rows,
                answer=cheapest(rows), pareto=pareto(rows), backend=backend,
                stopped=len(rows) < math.prod(len(v) for _, v in axes))


def run_in_order(base: dict, axes: list[tuple[str, list]], target: float, on_point=None) -> dict:
    """The grid one point after another in this process (the page's worker: backend "page"); `on_point` gets the
    answer so far after each point; a KeyboardInterrupt (the page's Stop) ends it with the points done."""
    rows = []
    for p in grid(axes):
        try:
            rows.append(evaluate(base, p, target))
        except KeyboardInterrupt:
            break
        if on_point:
            on_point(summary(axes, target, rows, "page"))
    return summary(axes, target, rows, "page")
