"""The benchmark's figures (bench/browser_bench.py): medians and percentiles of the samples, the summary
with its ratios against the bare page and the seed, the printed table (beside an earlier run's), and the
machine it ran on. Leaves out: taking the samples (bench_pages.py, browser_bench.py)."""
from __future__ import annotations

import contextlib
import os
import platform
import statistics


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def percentile(xs, p):
    """Nearest-rank percentile."""
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    k = max(1, min(len(xs), int(-(-p * len(xs) // 100))))
    return xs[k - 1]


def ratio(a, b):
    return a / b if a is not None and b else None


def summarize(lab, bare, cpy):
    seed_p50 = median(bare["seed_exec_ms"])
    rerun_p50, rerun_p95 = median(lab["rerun_ms"]), percentile(lab["rerun_ms"], 95)
    s = {
        "lab_cold_ready_ms": median(lab["cold_ready_ms"]), "bare_cold_ready_ms": median(bare["cold_ready_ms"]),
        "lab_warm_ready_ms": median(lab["warm_ready_ms"]), "bare_warm_ready_ms": median(bare["warm_ready_ms"]),
        "rerun_p50_ms": rerun_p50, "rerun_p95_ms": rerun_p95, "seed_exec_p50_ms": seed_p50,
        "first_run_ms": median(lab["first_run_ms"]), "first_run_warm_ms": median(lab["first_run_warm_ms"]),
        "lab_bytes_until_ready": median(lab["bytes_until_ready"]),
        "lab_bytes_first_visit": median(lab["bytes_first_visit"]),
        "bare_bytes": median(bare["bytes_until_ready"]),
        "cpython_engine_p50_ms": median(cpy["engine_ms"]), "cpython_engine_first_ms": cpy["engine_first_ms"],
        "cpython_seed_p50_ms": median(cpy["seed_ms"]),
    }
    s["ready_ratio_cold"] = ratio(s["lab_cold_ready_ms"], s["bare_cold_ready_ms"])
    s["ready_ratio_warm"] = ratio(s["lab_warm_ready_ms"], s["bare_warm_ready_ms"])
    s["rerun_ratio_p50"] = ratio(rerun_p50, seed_p50)
    s["rerun_ratio_p95"] = ratio(rerun_p95, seed_p50)
    s["first_run_ratio"] = ratio(s["first_run_ms"], rerun_p50)
    s["first_run_ratio_warm"] = ratio(s["first_run_warm_ms"], rerun_p50)
    s["warm_ratio"] = ratio(s["lab_warm_ready_ms"], s["lab_cold_ready_ms"])
    s["bare_warm_ratio"] = ratio(s["bare_warm_ready_ms"], s["bare_cold_ready_ms"])
    s["extra_bytes_vs_bare"] = (s["lab_bytes_first_visit"] - s["bare_bytes"]) if s["lab_bytes_first_visit"] else None
    s["install_compare_ms"] = bare.get("install_compare_ms")
    s["warmup_done_after_ready_ms"] = median(lab.get("warmup_done_after_ready_ms", []))
    s["pyc_stored_after_ready_ms"] = median(lab.get("pyc_stored_after_ready_ms", []))
    s["cpython_engine_vs_seed"] = ratio(s["cpython_engine_p50_ms"], s["cpython_seed_p50_ms"])
    for key, name in (("worker_timings", "worker_ms"), ("worker_timings_warm", "worker_ms_warm")):
        worker = [t for t in lab.get(key, []) if t]
        if worker:
            s[name] = {k: median([t.get(k) for t in worker]) for k in worker[0]}
    w = s.get("worker_ms") or {}
    if w.get("micropipInstalled") and w.get("ready"):
        # from the packages being loaded to the engine wheel installed: import micropip + install
        s["micropip_ms"] = w["micropipInstalled"] - w["pyodide"]
        s["micropip_share"] = s["micropip_ms"] / w["ready"]
    return s


ROWS = [
    ("ready, cold: lab / bare (ms)", "lab_cold_ready_ms", "bare_cold_ready_ms", "ready_ratio_cold", "≤ 0.6"),
    ("ready, warm: lab / bare (ms)", "lab_warm_ready_ms", "bare_warm_ready_ms", "ready_ratio_warm", ""),
    ("re-run p50 / seed exec p50 (ms)", "rerun_p50_ms", "seed_exec_p50_ms", "rerun_ratio_p50", "≤ 0.5"),
    ("re-run p95 / seed exec p50 (ms)", "rerun_p95_ms", "seed_exec_p50_ms", "rerun_ratio_p95", ""),
    ("first run (cold load) / re-run p50", "first_run_ms", "rerun_p50_ms", "first_run_ratio", "≤ 1.2"),
    ("first run (warm load) / re-run p50", "first_run_warm_ms", "rerun_p50_ms", "first_run_ratio_warm", "≤ 1.2"),
    ("warm ready / cold ready, lab (ms)", "lab_warm_ready_ms", "lab_cold_ready_ms", "warm_ratio", "≤ 0.5"),
    ("warm ready / cold ready, bare (ms)", "bare_warm_ready_ms", "bare_cold_ready_ms", "bare_warm_ratio", ""),
    ("CPython: engine p50 / seed p50 (ms)", "cpython_engine_p50_ms", "cpython_seed_p50_ms", "cpython_engine_vs_seed",
     ""),
]


def fmt(v, digits=1):
    if v is None:
        return "—"
    return f"{float(v):.{digits}f}"


def table(s, old=None) -> str:
    lines = [f"{'metric':38} {'a':>9} {'b':>9} {'ratio':>7} {'goal':>7}" + ("   before: a / b / ratio" if old else "")]
    for label, a, b, r, goal in ROWS:
        line = f"{label:38} {fmt(s.get(a)):>9} {fmt(s.get(b)):>9} {fmt(s.get(r), 2):>7} {goal:>7}"
        if old:
            line += f"   {fmt(old.get(a))} / {fmt(old.get(b))} / {fmt(old.get(r), 2)}"
        lines.append(line)
    mb = lambda v: fmt(v / 1e6, 2) if v is not None else "—"  # noqa: E731
    extra = s.get("extra_bytes_vs_bare")
    line = (f"{'bytes, first visit: lab / bare (MB)':38} {mb(s.get('lab_bytes_first_visit')):>9} "
            f"{mb(s.get('bare_bytes')):>9} "
            f"{(fmt(extra / 1e3, 0) + ' kB') if extra is not None else '—':>7} {'≤ +300kB':>7}")
    if old:
        line += f"   {mb(old.get('lab_bytes_first_visit'))} / {mb(old.get('bare_bytes'))}"
    lines.append(line)
    lines.append(f"{'bytes until ready, lab (MB)':38} {mb(s.get('lab_bytes_until_ready')):>9}")
    if s.get("lab_bytes_until_ready_gzip_est") and s.get("bare_bytes_gzip_est"):
        until = s["lab_bytes_until_ready_gzip_est"]
        label = "  until ready, gzip'd: lab / bare (MB)"
        lines.append(f"{label:38} {mb(until):>9} {mb(s['bare_bytes_gzip_est']):>9} "
                     f"{fmt(until / s['bare_bytes_gzip_est'], 2):>7} {'≤ 1.00':>7}")
    for key, goal in (("stop_isolated_ms", "≤ 300"), ("stop_plain_ms", "")):
        if s.get(key) is not None:
            label = "Stop -> ready, " + ("isolated (ms)" if key == "stop_isolated_ms" else "not isolated (ms)")
            lines.append(f"{label:38} {fmt(s[key], 0):>9} {'':>9} {'':>7} {goal:>7}")
    if s.get("lab_bytes_gzip_est") and s.get("bare_bytes_gzip_est"):
        extra_gz = s["lab_bytes_gzip_est"] - s["bare_bytes_gzip_est"]
        label = "  same, text gzip'd as on Pages (MB)"
        lines.append(f"{label:38} {mb(s['lab_bytes_gzip_est']):>9} {mb(s['bare_bytes_gzip_est']):>9} "
                     f"{fmt(extra_gz / 1e3, 0) + ' kB':>7}")
    if s.get("warmup_done_after_ready_ms") is not None:
        lines.append(f"idle warm-up run done {fmt(s['warmup_done_after_ready_ms'], 0)} ms after ready; "
                     "compiled-Python cache "
                     f"stored {fmt(s.get('pyc_stored_after_ready_ms'), 0)} ms after ready (first visit, median)")
    for name, label in (("worker_ms", "cold"), ("worker_ms_warm", "warm")):
        if s.get(name):
            parts = ", ".join(f"{k} {fmt(v, 0)}" for k, v in s[name].items())
            lines.append(f"worker stages, {label} (ms since the worker started, median): {parts}")
    alt = s.get("install_compare_ms") or {}
    if "unpack" in alt:
        lines.append(f"engine wheel in the bare page's Pyodide: unpackArchive {alt['unpack']:.0f} ms vs "
                     f"import micropip {alt['micropipImport']:.0f} ms + install = {alt['micropipTotal']:.0f} ms")
    if s.get("micropip_share") is not None:
        lines.append(f"micropip (import micropip + install the engine wheel): {s['micropip_ms']:.0f} ms = "
                     f"{s['micropip_share']:.1%} of the worker's ready time (cold)")
    return "\n".join(lines)


def machine_info(browser_version: str) -> dict:
    cpu = ""
    with contextlib.suppress(OSError):
        cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")),
                   "")
    return {"cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
            "chromium": browser_version, "load_average_at_end": os.getloadavg()}
