#!/usr/bin/env python3
"""The big cluster run opened from an address, in Chromium: time, memory, DOM, panel text, step scrub
(issue 39; a command that prints figures, not a test).

    python3 bench/big_run_page.py --dist dist                     # the issue's run: 1,000 requests, 8 replicas
    python3 bench/big_run_page.py --dist dist --requests 100 --requests 300

Per size, one headless Chromium (/usr/bin/chromium or $LAB_CHROMIUM, driven by Playwright) opens a fresh page
at `?WORKLOAD_REQUESTS=N&REPLICAS=8&ROUTER=prefix_aware&...` (bench/cluster_bench.py's ISSUE constants), which
runs once the engine is ready, and waits for the page's state ([data-status] done or error; a crashed tab is
reported as such). It prints:

- seconds from the run's start (the worker's 'started' message) to its result, and the command line's
  lab.run time for the same constants measured here before (the issue's goal: the page ≤ 2.5× the CLI);
- the result message's size (the JSON the worker posts, measured by re-serialising it in the page);
- the page's JS heap after a forced garbage collection and its DOM nodes (CDP Performance.getMetrics), the
  element count (document.querySelectorAll('*')), and the elements under each panel and chart, largest first;
- the panels' printed text (each [data-block] <pre>), in bytes;
- the comparison a deferred run leaves for later (the [data-replays] button: its seconds, progress messages and
  their longest gap);
- the step scrub: milliseconds per ArrowRight keydown on the step slider ([data-step-slider]), measured in the
  page over 20 steps: the event's handlers (the step view and the charts' marks update synchronously) and the time
  to the next painted frame.

Goals (issue 39): heap ≤ 300 MB, ≤ 30,000 elements, a scrub < 50 ms a step. Leaves out the worker's own heap
(bench/rerun_memory.py reports the WebAssembly memory) and the first-visit figures (bench/first_visit.py).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "py"), str(Path(__file__).resolve().parent)]
from cluster_bench import ISSUE  # noqa: E402  (the issue's constants, one place)
from render_profile import serve  # noqa: E402  (a quiet sitebuild.SiteHandler server on a free port)

CHROMIUM = os.environ.get("LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--enable-precise-memory-info"]
READY_MS = 300_000
RUN_MS = 1_800_000

# Notes when the worker starts and answers a run, the answer's size (JSON re-serialised in the page) and the main
# thread's long tasks (PerformanceObserver 'longtask': [start, duration] in ms, each over 50 ms).
PROBE = """
(() => {
  const probe = window.__probe = { started: null, result: null, bytes: null, progress: 0, worker: null, tasks: [],
                                   times: [] };
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) probe.tasks.push([e.startTime, e.duration]);
    }).observe({ type: 'longtask', buffered: true });
  } catch (e) { probe.tasks = null; }
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      probe.worker = this;
      this.addEventListener('message', (event) => {
        const m = event.data || {};
        if (m.type === 'started') probe.started = performance.now();
        if (m.type === 'progress' && m.stage === 'run') { probe.progress += 1; probe.times.push(performance.now()); }
        if (m.type === 'result') {
          probe.result = performance.now();
          probe.bytes = m.json ? m.json.byteLength : JSON.stringify(m.result).length; // the JSON text (protocol.js)
        }
      });
    }
  };
})();
"""

# Elements per panel and chart, and the panels' printed text.
DOM = """() => {
  const count = (el) => el.querySelectorAll('*').length + 1;
  const parts = [...document.querySelectorAll('[data-block], [data-chart], [data-step-view]')].map((el) => {
    const name = el.dataset.chart ? 'chart ' + el.dataset.chart : el.dataset.block ? 'block ' + el.dataset.block
      : 'step view';
    return [name, count(el)];
  });
  const text = [...document.querySelectorAll('[data-block] > pre')].reduce((n, pre) => n + pre.textContent.length, 0);
  return { elements: document.querySelectorAll('*').length, parts, text };
}"""


def address(requests: int, replicas: int) -> str:
    values = dict(ISSUE, WORKLOAD_REQUESTS=requests, REPLICAS=replicas, ROUTER="prefix_aware")
    return "?" + urllib.parse.urlencode({k: v for k, v in values.items()})


def cli_seconds(requests: int, replicas: int) -> float:
    from inference_lab.core.inputs.config import Config
    from inference_lab.entrypoints.lab import run
    cfg = Config.from_values(dict(ISSUE, WORKLOAD_REQUESTS=requests, REPLICAS=replicas, ROUTER="prefix_aware"))
    start = time.perf_counter()
    run(cfg)
    return time.perf_counter() - start


# The step scrub measured in the page: ArrowRight keydown events on the step slider, one at a time; per step the
# time the event's handlers took (the step view and the charts' marks updated: they update synchronously), the
# time until the next frame was painted after it (a requestAnimationFrame, then a message: after the paint) and, for
# a long run, until the step view was drawn whole (its step's item came from the worker: no [aria-busy] part left).
SCRUB = """async (steps) => {
  const slider = document.querySelector('[data-step-slider]');
  const frame = () => new Promise((done) => requestAnimationFrame(() => {
    const ch = new MessageChannel(); ch.port1.onmessage = () => done(); ch.port2.postMessage(0);
  }));
  const busy = () => document.querySelector('[data-step-view] [aria-busy="true"]');
  slider.focus();
  await frame();
  let script = 0, painted = 0, whole = 0, moved = 0;
  for (let i = 0; i < steps; i++) {
    while (busy()) await frame();                       // the step before drawn whole
    const before = slider.getAttribute('aria-valuenow');
    const t0 = performance.now();
    slider.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true, cancelable: true }));
    const t1 = performance.now();
    await frame();
    const t2 = performance.now();
    while (busy()) await frame();                       // a long run: the step's whole item came from the worker
    script += t1 - t0;
    painted += t2 - t0;
    whole += performance.now() - t0;
    moved += slider.getAttribute('aria-valuenow') !== before ? 1 : 0;
  }
  return { script: script / steps, painted: painted / steps, whole: whole / steps, moved };
}"""


def scrub(page, steps: int = 20) -> dict | None:
    """Milliseconds per ArrowRight on the step slider over `steps` steps from the third event step: the handlers'
    time and the time to the next painted frame (SCRUB)."""
    slider = page.locator("[data-step-slider]")
    if not slider.count() or int(slider.get_attribute("aria-valuemax") or 0) < steps + 2:
        return None
    slider.focus()
    slider.press("Home")
    for _ in range(3):                                   # PageDown: the next step with an event, near the start
        slider.press("PageDown")
    return page.evaluate(SCRUB, steps)


# The worker's memory (static/worker/worker.js answers {type: 'stats'} on a MessagePort): the WebAssembly memory that
# holds Pyodide (it grows and never shrinks) and the objects Python's garbage collector tracks.
WORKER_STATS = """
() => new Promise((resolve, reject) => {
  const channel = new MessageChannel();
  const timer = setTimeout(() => reject(new Error('no stats from the worker')), 120000);
  channel.port1.onmessage = (event) => { clearTimeout(timer); resolve(event.data.stats); };
  window.__probe.worker.postMessage({ id: 'bench-stats', type: 'stats' }, [channel.port2]);
})
"""


def memory(page, cdp) -> dict:
    """The page's JS heap after a forced collection, its elements, and the worker's memory."""
    cdp.send("HeapProfiler.collectGarbage")
    heap = cdp.send("Runtime.getHeapUsage")["usedSize"]
    stats = page.evaluate(WORKER_STATS)
    return dict(heap=heap, elements=page.evaluate("() => document.getElementsByTagName('*').length"),
                wasm=stats.get("wasmBytes"), py_objects=stats.get("pyGcObjects"))


def draw_every_chart(page) -> None:
    """The charts draw when idle or when their panel comes into view (static/charts/index.js): each panel brought
    into view, then wait until none is still to draw, so the figures count every chart."""
    page.evaluate("() => { for (const el of document.querySelectorAll('[data-block]')) el.scrollIntoView(); }")
    page.wait_for_function("() => !document.querySelector('.charts[aria-busy=\"true\"]')", timeout=RUN_MS)


def replays(page) -> dict | None:
    """A deferred run's comparison (blocks [6], [11], [12]: web.defers): clicks the first [data-replays] button and
    waits until the report comes back with no button left; {seconds, progress messages, the longest gap between
    two of them (from the click to the result), status}, or None when nothing was deferred."""
    if not page.locator("[data-block] [data-replays]").count():
        return None
    clicked = page.evaluate("""() => { const p = window.__probe; p.result = null; p.times = [];
        const t = performance.now(); document.querySelector('[data-block] [data-replays]').click(); return t; }""")
    page.wait_for_function("() => window.__probe.result && !document.querySelector('[data-replays]') && ['done', "
                           "'error'].includes(document.querySelector('[data-status]')?.dataset.status)", timeout=RUN_MS)
    probe = page.evaluate("window.__probe")
    marks = [clicked, *probe["times"], probe["result"]]
    return dict(seconds=(probe["result"] - clicked) / 1000, progress=len(probe["times"]),
                gap=max(b - a for a, b in zip(marks, marks[1:])) / 1000,
                first=(marks[1] - marks[0]) / 1000, last=(marks[-1] - marks[-2]) / 1000,
                status=page.locator("[data-status]").get_attribute("data-status"),
                elements=page.evaluate("document.querySelectorAll('*').length"))


def run_again(page) -> float:
    """Presses Run (the controls hold the address's constants) and waits for its result; its seconds."""
    page.evaluate("() => { window.__probe.result = null; window.__probe.started = null; }")
    page.locator('[data-action="run"]').click()
    page.wait_for_function("() => window.__probe.result && ['done', 'error'].includes("
                           "document.querySelector('[data-status]')?.dataset.status)", timeout=RUN_MS)
    probe = page.evaluate("window.__probe")
    return (probe["result"] - probe["started"]) / 1000


def measure(browser, url: str, shots: Path | None = None, twice: bool = False) -> dict:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.add_init_script(PROBE)
    page = context.new_page()
    errors, crashed = [], []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.on("crash", lambda _: crashed.append(True))
    out = {"errors": errors}
    try:
        page.goto(url)
        page.wait_for_function("() => ['done', 'error'].includes(document.querySelector('[data-status]')"
                               "?.dataset.status) && window.__probe.result", timeout=RUN_MS)
        probe = page.evaluate("window.__probe")
        out.update(status=page.locator("[data-status]").get_attribute("data-status"),
                   seconds=(probe["result"] - probe["started"]) / 1000, bytes=probe["bytes"],
                   progress=probe["progress"],
                   tail=(probe["result"] - probe["times"][-1]) / 1000 if probe["times"] else None)
        draw_every_chart(page)
        # the longest main-thread task from the result's arrival (its message is taken in by one) to the charts drawn
        tasks = page.evaluate("window.__probe.tasks")
        out["longest"] = None if tasks is None else max(
            [d for start, d in tasks if start + d >= probe["result"]], default=0.0)
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable")
        cdp.send("HeapProfiler.collectGarbage")
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        out.update(heap=metrics["JSHeapUsedSize"], nodes=int(metrics["Nodes"]), **page.evaluate(DOM))
        out["scrub"] = scrub(page)
        out["replays"] = replays(page)
        if twice:   # the same run again: does the tab (page heap, worker memory) grow? (issue 39: it must not)
            out["first"] = memory(page, cdp)
            out["again_seconds"] = run_again(page)
            draw_every_chart(page)
            out["second"] = memory(page, cdp)
        if shots:  # the charts that grow with the run, to look at
            shots.mkdir(parents=True, exist_ok=True)
            for name in ("kv-blocks", "timeline", "cluster-view", "roofline"):
                chart = page.locator(f'[data-chart="{name}"]').first
                if chart.count():
                    chart.screenshot(path=str(shots / f"{name}.png"))
    except Exception as exc:  # a crashed tab or a timeout: say so, with what was measured
        out["failed"] = "tab crashed" if crashed else f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    context.close()
    return out


def show(requests: int, replicas: int, cli: float | None, m: dict) -> None:
    print(f"\n{requests} requests, {replicas} replicas: CLI lab.run " + (f"{cli:.1f} s" if cli else "not timed"))
    if "failed" in m:
        print(f"  FAILED: {m['failed']}")
    if "seconds" in m:
        ratio = f"{m['seconds'] / cli:.2f}x the CLI" if cli else "CLI not timed"
        print(f"  page: status {m['status']}, run {m['seconds']:.1f} s ({ratio}), "
              f"result message {m['bytes'] / 1e6:.2f} MB, {m['progress']} progress messages"
              + (f" (the last {m['tail']:.2f} s before the result)" if m.get("tail") is not None else ""))
    if m.get("longest") is not None:
        print(f"  longest main-thread task from the result to every chart drawn: {m['longest']:.0f} ms")
    if "heap" in m:
        print(f"  JS heap {m['heap'] / 1e6:.1f} MB; DOM {m['elements']} elements ({m['nodes']} nodes); "
              f"panel text {m['text'] / 1e3:.1f} kB")
        if m.get("scrub"):
            sc = m["scrub"]
            print(f"  step scrub: {sc['script']:.1f} ms/step in the handlers, {sc['painted']:.1f} ms/step "
                  f"to the next painted frame, {sc['whole']:.1f} ms/step until drawn whole (the step's detail from "
                  f"the worker; {sc['moved']} steps moved)")
        for name, n in sorted(m["parts"], key=lambda p: -p[1])[:8]:
            print(f"    {n:>8}  {name}")
    if m.get("replays"):
        r = m["replays"]
        total = f", run + comparison {m['seconds'] + r['seconds']:.1f} s" if "seconds" in m else ""
        print(f"  the comparison (blocks [6], [11], [12], button data-replays): {r['seconds']:.1f} s, status "
              f"{r['status']}, {r['progress']} progress messages, longest gap between two {r['gap']:.2f} s (the "
              f"click to the first {r['first']:.2f} s, the last to the result {r['last']:.2f} s){total}; "
              f"then {r['elements']} elements")
    if "second" in m:
        for name in ("first", "second"):
            x = m[name]
            print(f"  after the {name} run: JS heap {x['heap'] / 1e6:.1f} MB, {x['elements']} elements, worker "
                  f"WebAssembly memory {(x['wasm'] or 0) / 1e6:.0f} MB, {x['py_objects']} Python objects")
        print(f"  the second run took {m['again_seconds']:.1f} s")
    print(f"  page errors: {len(m['errors'])}" + (f" (first: {m['errors'][0][:200]})" if m["errors"] else ""))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="a built site (python3 build.py)")
    parser.add_argument("--requests", type=int, action="append", help="WORKLOAD_REQUESTS (repeatable; 1000)")
    parser.add_argument("--replicas", type=int, default=8)
    parser.add_argument("--shots", type=Path, help="a folder for screenshots of the long charts (per size)")
    parser.add_argument("--twice", action="store_true", help="run it a second time: the memory after each run")
    parser.add_argument("--no-cli", dest="cli", action="store_false", help="skip timing the command line's run")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright
    server, url = serve(args.dist.resolve())
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for requests in args.requests or [1000]:
                cli = cli_seconds(requests, args.replicas) if args.cli else None
                show(requests, args.replicas, cli, measure(browser, url + address(requests, args.replicas),
                                                          args.shots / str(requests) if args.shots else None,
                                                          args.twice))
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
