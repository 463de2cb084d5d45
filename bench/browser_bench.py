#!/usr/bin/env python3
"""Browser benchmark of the lab (a command, not a test).

    python3 bench/browser_bench.py                       # build a vendored site into a temp folder, measure
    python3 bench/browser_bench.py --dist dist --label x # measure an existing vendored build
    python3 bench/browser_bench.py --compare bench/results/OLD.json   # also print OLD's figures beside

One headless Chromium (/usr/bin/chromium or $LAB_CHROMIUM, driven by Playwright) against a local
server on 127.0.0.1 that serves the build plus bench/ under /__bench__/ (bare.html: the same Pyodide +
numpy, the plain documented way, nothing else). It measures:

- cold loads: a fresh browser context each (empty HTTP cache, no service worker), `--loads` times,
  for the lab (navigation -> data-status="ready") and the bare page (navigation -> `import numpy` done);
- warm loads: a second visit in the same context (service worker, compiled-Python cache and HTTP
  cache as a student has them: the second visit waits until the first one has written its caches);
- first run: one click on Chạy 3 s after ready (a person's pause), on every load;
- re-runs: `--runs` clicks on Chạy, click -> data-status="done" with the panels filled and laid out;
- the seed program (tests/seed_program.py's source()) exec'd in the bare page's Pyodide worker (a
  bench-only worker: nothing of this is in the shipped code path), p50 of `--runs` execs;
- bytes sent by the server on a first visit (bodies + headers; no compression), until ready and until
  the service worker has cached the lab;
- the engine (inference_lab.entrypoints.web.run) and the seed program in CPython, in this process;
- Stop: an endless edit run and stopped `--stops` times, click -> ready, on the isolated server (COOP/COEP:
  the interrupt) and on a plain one (terminate and restart Python).
The server sends COOP/COEP (as build.py serve; the service worker adds them on Pages), so the lab's runs
are measured cross-origin isolated.

Prints a table and writes the samples to bench/results/<label>-<time>.json (git-ignored).
This module: the command line, the CPython timings and the results file. Leaves out: the server
(bench_server.py), the measurements in the browser (bench_pages.py) and the figures (bench_report.py).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "py"), str(ROOT / "tests")]
import sitebuild  # noqa: E402  (the build package, sitebuild/)
import seed_program  # noqa: E402
from bench_pages import PAUSE_BEFORE_FIRST_RUN_MS, measure_browser, measure_stop  # noqa: E402
from bench_report import machine_info, median, summarize, table  # noqa: E402
from bench_server import Counter, gzip_estimate, make_bench_server  # noqa: E402

CHROMIUM = os.environ.get("LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
RESULTS = ROOT / "bench" / "results"


def measure_cpython(runs):
    from inference_lab.entrypoints import web
    code = compile(seed_program.source(), "inference-end-to-end.py", "exec")

    def seed():
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, {"__name__": "__seed__"})

    def timed(fn):
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1000

    engine_first = timed(lambda: web.run("{}"))
    engine = [timed(lambda: web.run("{}")) for _ in range(runs)]
    seed_first = timed(seed)
    seeds = [timed(seed) for _ in range(runs)]
    return {"engine_first_ms": engine_first, "engine_ms": engine, "seed_first_ms": seed_first, "seed_ms": seeds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path,
                        help="an existing vendored build to serve (default: build one into a temp folder)")
    parser.add_argument("--loads", type=int, default=5, help="cold and warm page loads of each page (default 5)")
    parser.add_argument("--runs", type=int, default=20, help="re-runs and seed execs (default 20)")
    parser.add_argument("--stops", type=int, default=5,
                        help="Stop latency samples, isolated and not (default 5; 0: skip)")
    parser.add_argument("--label", default="bench", help="name of the JSON file under bench/results/")
    parser.add_argument("--compare", type=Path, help="an earlier results JSON to print beside")
    args = parser.parse_args(argv)
    if args.loads < 5 or args.runs < 20:
        print("note: fewer than 5 loads or 20 runs is below what the issue asks for", file=sys.stderr)

    from playwright.sync_api import sync_playwright

    def log(msg):
        print(msg, flush=True)

    with tempfile.TemporaryDirectory(prefix="lab-bench-") as tmp:
        if args.dist:
            dist = args.dist.resolve()
        else:
            log("building a vendored site …")
            dist = sitebuild.build(Path(tmp) / "dist", "vendor")
        manifest = json.loads((dist / sitebuild.MANIFEST).read_text(encoding="utf-8"))
        if manifest["pyodide"]["mode"] != "vendor":
            raise SystemExit("the benchmark needs a vendored build (the bare page loads Pyodide from /pyodide/)")
        has_sw = (dist / "sw.js").is_file()
        # the compiled-Python cache of the first visit: only where the build shipped no bytecode
        has_pyc = (dist / "static" / "worker" / "pyc-cache.js").is_file() and not manifest.get("bytecode")
        counter = Counter()
        server, url = make_bench_server(dist, counter)
        dist_for_sizes = dist
        log("CPython: engine and seed program …")
        cpy = measure_cpython(args.runs)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                log(f"Chromium {browser.version}; serving {dist} at {url}")
                lab, bare = measure_browser(browser, url, counter, args.loads, args.runs, has_sw, has_pyc, log)
                if args.stops:
                    lab["stop_isolated"] = measure_stop(browser, url, args.stops, log, "COOP/COEP")
                    plain, plain_url = make_bench_server(dist, Counter(), isolated=False)
                    try:
                        lab["stop_plain"] = measure_stop(browser, plain_url, args.stops, log, "plain server")
                    finally:
                        plain.shutdown()
                        plain.server_close()
                version = browser.version
                browser.close()
        finally:
            server.shutdown()
            server.server_close()
        summary = summarize(lab, bare, cpy)
        summary["lab_bytes_gzip_est"] = gzip_estimate(lab.get("bytes_by_path"), dist_for_sizes)
        summary["bare_bytes_gzip_est"] = gzip_estimate(bare.get("bytes_by_path"), dist_for_sizes)
        summary["lab_bytes_until_ready_gzip_est"] = gzip_estimate(lab.get("bytes_by_path_until_ready"), dist_for_sizes)
        for key in ("stop_isolated", "stop_plain"):
            if lab.get(key):
                summary[key + "_ms"] = median(lab[key]["stop_ms"])

    old = json.loads(args.compare.read_text())["summary"] if args.compare else None
    print()
    print(table(summary, old))
    print("load average (1, 5, 15 min) at the end: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) +
          f" on {os.cpu_count()} cores (other processes make every figure noisier)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = RESULTS / f"{args.label}-{stamp}.json"
    out.write_text(json.dumps({
        "label": args.label, "when": stamp, "machine": machine_info(version), "service_worker": has_sw,
        "pyc_cache": has_pyc,
        "settings": {"loads": args.loads, "runs": args.runs, "pause_before_first_run_ms": PAUSE_BEFORE_FIRST_RUN_MS},
        "summary": summary, "lab": lab, "bare": bare, "cpython": cpy,
    }, indent=1))
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
