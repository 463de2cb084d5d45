#!/usr/bin/env python3
"""Page-side cost of a re-run (a command, not a test): how long the page takes, after the worker's
result arrives, to show it (panels, charts, compare marks) and lay it out.

    python3 bench/render_profile.py                      # build into a temp folder, 20 re-runs
    python3 bench/render_profile.py --dist /tmp/render-dist --runs 30
    python3 bench/render_profile.py --alternate          # re-runs alternate two configs (compare marks)
    python3 bench/render_profile.py --trace trace.json   # also a Chrome trace of the last re-runs

Each re-run is timed like bench/bench_pages.py's RUN_ONCE (click -> data-status "done" -> forced
layout), split at the moment the worker's "result" message reaches the page:
  click  = the click's own handler (reading the controls, posting the request),
  worker = click -> result message dispatched (engine + posting + structured clone),
  page   = result message -> done -> layout (render, charts, compare marks, layout),
  render = static/app.js: the panels' lines, the charts drawn now, the summary, compare marks (lab:render),
  tools  = static/app.js: the tools' 'result' events (share address, editor) (lab:tools),
  toDone = result message -> data-status "done",
  full   = click -> every chart of this run drawn too (some are drawn after the forced layout) -> layout,
  settled= click -> two frames and an idle period later (paint included).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "py")]
import sitebuild  # noqa: E402  (the build package, sitebuild/)

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

PROBE = """
(() => {
  window.__prof = { resultAt: null };
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        const m = event.data || {};
        if (m.type === 'result') window.__prof.resultAt = performance.now();
      });
    }
  };
})();
"""

RUN_ONCE = """
async (values) => {
  if (values) {
    for (const [name, value] of Object.entries(values)) {
      const c = document.querySelector('[data-constant="' + name + '"]');
      c.value = String(value);
    }
  }
  const s = document.querySelector('[data-status]');
  const button = document.querySelector('[data-action="run"]');
  const finished = new Promise((resolve) => {
    const o = new MutationObserver(() => {
      const v = s.dataset.status;
      if (v === 'done' || v === 'error') { o.disconnect(); resolve([v, performance.now()]); }
    });
    o.observe(s, { attributes: true, attributeFilter: ['data-status'] });
  });
  window.__prof.resultAt = null;
  performance.clearMeasures();
  document.querySelectorAll('[data-chart]').forEach((el) => { el.dataset.stale = '1'; });
  const start = performance.now();
  button.click();
  const clicked = performance.now();
  const [status, doneAt] = await finished;
  const staleCharts = document.querySelectorAll('[data-chart][data-stale]').length;
  document.documentElement.getBoundingClientRect();
  void document.body.offsetHeight;
  const end = performance.now();
  // the whole update: charts drawn after the forced layout (later microtasks or tasks) and laid out
  while (document.querySelector('[data-chart][data-stale]') && performance.now() - end < 5000) {
    await new Promise((r) => setTimeout(r, 0));
  }
  document.documentElement.getBoundingClientRect();
  void document.body.offsetHeight;
  const full = performance.now();
  // whatever is still pending (deferred charts): wait for two frames + an idle period
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  await new Promise((r) => (window.requestIdleCallback ? requestIdleCallback(r, { timeout: 2000 })
                                                     : setTimeout(r, 50)));
  const settled = performance.now();
  const charts = document.querySelectorAll('[data-chart]').length;
  const measured = (name) => performance.getEntriesByName(name, 'measure').reduce((sum, e) => sum + e.duration, 0);
  return { status, total: end - start, worker: window.__prof.resultAt - start,
           page: end - window.__prof.resultAt, toDone: doneAt - window.__prof.resultAt,
           click: clicked - start, render: measured('lab:render'), tools: measured('lab:tools'), full: full - start,
           settled: settled - start, charts, staleCharts };
}
"""


def serve(dist: Path):
    class Quiet(sitebuild.SiteHandler):
        def log_message(self, *args):
            pass

    server = sitebuild.make_server(dist, 0, handler=Quiet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def q(xs, p):
    xs = sorted(xs)
    return xs[max(0, min(len(xs) - 1, round(p / 100 * (len(xs) - 1))))]


def print_profile(profile, top=30):
    """Self time by function (ms), from the samples of a V8 CPU profile."""
    nodes = {n["id"]: n for n in profile["nodes"]}
    deltas = profile.get("timeDeltas", [])
    self_ms = {}
    for node_id, dt in zip(profile["samples"], deltas):
        f = nodes[node_id]["callFrame"]
        key = f"{f['functionName'] or '(anon)'} {f['url'].rsplit('/', 1)[-1].split('?')[0]}:{f['lineNumber'] + 1}"
        self_ms[key] = self_ms.get(key, 0) + dt / 1000
    for key, ms in sorted(self_ms.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{ms:9.1f} ms  {key}")
    # inclusive time of the page's own functions (each counted once per sample)
    parent = {}
    for n in profile["nodes"]:
        for c in n.get("children", []):
            parent[c] = n["id"]
    incl = {}
    for node_id, dt in zip(profile["samples"], deltas):
        seen = set()
        while node_id is not None:
            f = nodes[node_id]["callFrame"]
            if f["url"] and "/static/" in f["url"]:
                key = f"{f['functionName'] or '(anon)'} {f['url'].rsplit('/', 1)[-1].split('?')[0]}"
                if key not in seen:
                    seen.add(key)
                    incl[key] = incl.get(key, 0) + dt / 1000
            node_id = parent.get(node_id)
    print("inclusive:")
    for key, ms in sorted(incl.items(), key=lambda kv: -kv[1])[:top]:
        print(f"{ms:9.1f} ms  {key}")


def save_trace(cdp, page, path: Path):
    done = threading.Event()
    holder = {}
    cdp.on("Tracing.tracingComplete", lambda e: (holder.update(e), done.set()))
    cdp.send("Tracing.end")
    while not done.is_set():
        page.wait_for_timeout(100)
    chunks = []
    while True:
        r = cdp.send("IO.read", {"handle": holder["stream"]})
        chunks.append(r["data"])
        if r.get("eof"):
            break
    path.write_text("".join(chunks))
    print("trace ->", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dist", type=Path, action="append",
                    help="a build to measure; give it twice or more to compare builds, re-runs interleaved")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--alternate", action="store_true", help="re-runs alternate SLOTS 2/3 (compare marks drawn)")
    ap.add_argument("--trace", type=Path, help="a Chrome trace of the last 3 re-runs (first build only)")
    ap.add_argument("--cpuprofile", type=Path, help="a V8 CPU profile of the re-runs (first build only)")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=800)
    args = ap.parse_args()

    tmp = None
    dists = args.dist
    if not dists:
        tmp = tempfile.TemporaryDirectory()
        dists = [Path(tmp.name) / "dist"]
        sitebuild.build(dists[0])
    servers = [serve(d) for d in dists]
    values = [{"SLOTS": 2}, {"SLOTS": 3}] if args.alternate else [None]
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        pages = []
        for _, url in servers:
            ctx = browser.new_context(viewport={"width": args.width, "height": args.height})
            page = ctx.new_page()
            page.add_init_script(PROBE)
            page.goto(url)
            page.wait_for_selector('[data-status="ready"]', timeout=300_000)
            pages.append((ctx, page))
        for _, page in pages:
            page.wait_for_timeout(1000)
            page.evaluate(RUN_ONCE, values[0])  # the first run (loads the chart modules)
        pages[0][1].wait_for_timeout(500)
        samples = [[] for _ in pages]
        cdp = prof = None
        ctx0, page0 = pages[0]
        if args.cpuprofile:
            prof = ctx0.new_cdp_session(page0)
            prof.send("Profiler.enable")
            prof.send("Profiler.setSamplingInterval", {"interval": 100})
            prof.send("Profiler.start")
        for i in range(args.runs):
            if args.trace and i == args.runs - 3:
                cdp = ctx0.new_cdp_session(page0)
                cdp.send("Tracing.start",
                         {"categories": "devtools.timeline,disabled-by-default-devtools.timeline,v8.execute,"
                                        "blink.user_timing,toplevel", "transferMode": "ReturnAsStream"})
            for k, (_, page) in enumerate(pages):
                r = page.evaluate(RUN_ONCE, values[(i + 1) % len(values)])
                if r["status"] != "done":
                    print("run", i, r)
                samples[k].append(r)
                page.wait_for_timeout(150)
        if prof:
            profile = prof.send("Profiler.stop")["profile"]
            args.cpuprofile.write_text(json.dumps(profile))
            print_profile(profile)
        if cdp:
            save_trace(cdp, page0, args.trace)
        browser.close()
    for server, _ in servers:
        server.shutdown()
    for dist, ss in zip(dists, samples):
        stale = max(s["staleCharts"] for s in ss)
        print(f"{str(dist):24} {'p50':>7} {'p90':>7} {'min':>7}  (ms, {len(ss)} re-runs, {ss[-1]['charts']} charts,"
              f" up to {stale} still the previous run's when the forced layout returned)")
        for key in ("total", "click", "worker", "page", "render", "tools", "toDone", "full", "settled"):
            xs = [s[key] for s in ss]
            print(f"  {key:22} {statistics.median(xs):7.1f} {q(xs, 90):7.1f} {min(xs):7.1f}")


if __name__ == "__main__":
    main()
