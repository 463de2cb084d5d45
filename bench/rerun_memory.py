#!/usr/bin/env python3
"""A classroom of re-runs: does memory stay flat over 500 runs? (a command that prints, not a test)

    python3 bench/rerun_memory.py                     # build a vendored site into a temp folder, 500 runs
    python3 bench/rerun_memory.py --dist dist --runs 200 --every 25

One headless Chromium (/usr/bin/chromium or $LAB_CHROMIUM, driven by Playwright) opens the lab from a
local server on 127.0.0.1, waits until it is ready and the worker has warmed up (and stored its
compiled-Python cache), then clicks Chạy `--runs` times, each time with the next set of constants of
CONFIGS typed into the page's controls (as a student alternating between settings does). Before the
first run, every `--every` runs and after the last one, it records:

- the page: JS heap in use after a forced garbage collection, DOM nodes and event listeners (Chrome
  DevTools Protocol: HeapProfiler.collectGarbage, Performance.getMetrics);
- the worker (static/worker/worker.js answers {type: 'stats'} on a MessagePort, so the page never sees it):
  the WebAssembly memory that holds Pyodide (it grows and never shrinks) and the objects Python's
  garbage collector tracks (len(gc.get_objects())); Pyodide's CPython has no pymalloc, so
  sys.getallocatedblocks() says 0 there and is left out.

Prints one line per sample and a verdict per figure: whether the second half of the runs ever
goes above the first half (a leak keeps growing; a cache that fills up grows in the first half only).
Writes the samples to bench/results/rerun-memory-<time>.json (git-ignored). Leaves out the worker's
own JS heap (no CDP session on a dedicated worker through Playwright) and any timing goal.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
import sitebuild  # noqa: E402  (the build package, sitebuild/)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from render_profile import serve  # noqa: E402  (a quiet sitebuild.SiteHandler server on a free port)

CHROMIUM = os.environ.get("LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--enable-precise-memory-info"]
RESULTS = ROOT / "bench" / "results"
READY_MS = 300_000
SETTLE_MS = 60_000  # at most this long for the warm-up and the compiled-Python cache after ready

# The constants typed before each run, in turn ({} = the defaults after Mặc định).
CONFIGS = [
    {},
    {"QUEUE_LIMIT": 2},
    {"SLOTS": 3, "QUANT_BITS": 4},
    {"TOKEN_BUDGET": 3, "POOL_BLOCKS": 8, "FOLLOW": "A"},
]

# Keeps the page's worker in window.__labWorker and notes the worker's warm-up and cache logs.
PROBE = """
(() => {
  window.__probe = { warmed: false, pyc: false, worker: null };
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      window.__probe.worker = this;
      this.addEventListener('message', (event) => {
        const m = event.data || {};
        if (m.type === 'log' && /^engine warmed up/.test(m.text || '')) window.__probe.warmed = true;
        if (m.type === 'log' && /^compiled Python cached/.test(m.text || '')) window.__probe.pyc = true;
      });
    }
  };
})();
"""

# Mặc định, type the constants, Chạy; resolves when data-status is done or error.
RUN_WITH = """
async (values) => {
  const status = document.querySelector('[data-status]');
  document.querySelector('[data-action="reset"]').click();
  for (const [name, value] of Object.entries(values)) {
    const control = document.querySelector(`[data-constant="${name}"]`);
    control.value = String(value);
    control.dispatchEvent(new Event('input', { bubbles: true }));
    control.dispatchEvent(new Event('change', { bubbles: true }));
  }
  const finished = new Promise((resolve) => {
    const o = new MutationObserver(() => {
      const v = status.dataset.status;
      if (v === 'done' || v === 'error') { o.disconnect(); resolve(v); }
    });
    o.observe(status, { attributes: true, attributeFilter: ['data-status'] });
  });
  const start = performance.now();
  document.querySelector('[data-action="run"]').click();
  const result = await finished;
  void document.body.offsetHeight;
  return { status: result, ms: performance.now() - start };
}
"""

WORKER_STATS = """
() => new Promise((resolve, reject) => {
  const channel = new MessageChannel();
  const timer = setTimeout(() => reject(new Error('no stats from the worker')), 30000);
  channel.port1.onmessage = (event) => { clearTimeout(timer); resolve(event.data.stats); };
  window.__probe.worker.postMessage({ id: 'bench-stats', type: 'stats' }, [channel.port2]);
})
"""


def sample(page, cdp, runs: int) -> dict:
    cdp.send("HeapProfiler.collectGarbage")
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    worker = page.evaluate(WORKER_STATS)
    return {
        "runs": runs,
        "pageJsHeapUsed": int(metrics["JSHeapUsedSize"]),
        "pageJsHeapTotal": int(metrics["JSHeapTotalSize"]),
        "pageNodes": int(metrics["Nodes"]),
        "pageListeners": int(metrics["JSEventListeners"]),
        "pageMemoryUsed": page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : null"),
        **worker,
    }


FIGURES = [  # (key, label, unit divisor, unit)
    ("pageJsHeapUsed", "page JS heap", 1e6, "MB"),
    ("pageNodes", "page DOM nodes", 1, ""),
    ("pageListeners", "page listeners", 1, ""),
    ("wasmBytes", "worker Wasm memory", 1e6, "MB"),
    ("pyGcObjects", "Python gc objects", 1, ""),
]


def fmt(value, div, unit):
    if value is None:
        return "-"
    return f"{value / div:.2f} {unit}".strip() if div != 1 else f"{value}"


def verdicts(samples: list[dict]) -> list[str]:
    """Per figure: before the first run, the range over the first and the second half of the runs,
    and "bounded" when the second half's median is within 5 % of the first half's (a median: the page
    draws some charts when idle, so one sample may catch a few hundred more nodes for a moment)."""
    last = samples[-1]["runs"]
    first_half = [s for s in samples if 0 < s["runs"] <= last / 2]
    second_half = [s for s in samples if s["runs"] > last / 2]
    lines = []
    for key, label, div, unit in FIGURES:
        values = [s.get(key) for s in samples]
        if None in values or not first_half or not second_half:
            continue
        a = [s[key] for s in first_half]
        b = [s[key] for s in second_half]
        bounded = statistics.median(b) <= statistics.median(a) * 1.05
        lines.append(f"{label:>20}: before {fmt(samples[0][key], div, unit)}; runs 1-{last // 2}: "
                     f"{fmt(min(a), div, unit)} .. {fmt(max(a), div, unit)}; runs {last // 2 + 1}-{last}: "
                     f"{fmt(min(b), div, unit)} .. {fmt(max(b), div, unit)}; after {fmt(samples[-1][key], div, unit)}"
                     f" -> {'bounded' if bounded else 'GROWS'}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dist", type=Path, help="an existing vendored build (default: build one into a temp folder)")
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--every", type=int, default=40,
                        help="sample every N runs (a multiple of len(CONFIGS): samples after the same constants)")
    args = parser.parse_args(argv)
    from playwright.sync_api import expect, sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        dist = args.dist.resolve() if args.dist else sitebuild.build(Path(tmp) / "dist")
        server, url = serve(dist)
        samples, times, statuses = [], [], {}
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                context = browser.new_context(viewport={"width": 1440, "height": 900})
                context.add_init_script(PROBE)
                page = context.new_page()
                errors = []
                page.on("pageerror", lambda err: errors.append(str(err)))
                page.goto(url)
                expect(page.locator("[data-status]")).to_have_attribute("data-status", "ready", timeout=READY_MS)
                try:
                    page.wait_for_function("() => window.__probe.warmed && window.__probe.pyc", timeout=SETTLE_MS)
                except Exception:
                    print("note: the compiled-Python cache was not stored within 60 s; measuring anyway", flush=True)
                cdp = context.new_cdp_session(page)
                cdp.send("Performance.enable")
                samples.append(sample(page, cdp, 0))
                print(f"runs {0:>4}: {json.dumps(samples[-1])}", flush=True)
                started = time.monotonic()
                for i in range(1, args.runs + 1):
                    out = page.evaluate(RUN_WITH, CONFIGS[(i - 1) % len(CONFIGS)])
                    statuses[out["status"]] = statuses.get(out["status"], 0) + 1
                    times.append(out["ms"])
                    if i % args.every == 0 or i == args.runs:
                        samples.append(sample(page, cdp, i))
                        print(f"runs {i:>4}: {json.dumps(samples[-1])}", flush=True)
                elapsed = time.monotonic() - started
                browser.close()
        finally:
            server.shutdown()
            server.server_close()

    print()
    print(f"{args.runs} runs in {elapsed:.0f} s; statuses {statuses}; click -> done p50 "
          f"{statistics.median(times):.0f} ms, max {max(times):.0f} ms; page errors: {len(errors)}")
    for line in verdicts(samples):
        print(line)
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / f"rerun-memory-{dt.datetime.now().strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps({"configs": CONFIGS, "samples": samples, "ms": times, "statuses": statuses,
                               "errors": errors}, indent=1))
    print(f"samples: {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
