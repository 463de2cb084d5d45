"""The benchmark in the browser (bench/browser_bench.py): scripts injected into the pages (when the lab is
ready, one run timed, the service worker ready), and the loads and runs of the lab and the bare page,
cold and warm, alternating so that load from elsewhere hits both alike.
Leaves out: the server (bench_server.py), the figures (bench_report.py) and the command line."""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))
import seed_program  # noqa: E402
from bench_report import median, percentile  # noqa: E402

READY_MS = 300_000
RUN_MS = 120_000
PAUSE_BEFORE_FIRST_RUN_MS = 3000

# Records, in window.__bench, when the lab's status first says ready and what the worker reported.
LAB_PROBE = """
(() => {
  window.__bench = { stages: [] };
  const Native = window.Worker;
  if (Native) {
    window.Worker = class extends Native {
      constructor(...args) {
        super(...args);
        this.addEventListener('message', (event) => {
          const m = event.data || {};
          if (m.type === 'progress') window.__bench.stages.push([m.stage, m.detail, performance.now()]);
          if (m.type === 'ready') window.__bench.workerTimings = m.timings || null;
          if (m.type === 'log' && /^engine warmed up/.test(m.text || '')) window.__bench.warmedAt = performance.now();
          if (m.type === 'log' && /^compiled Python cached/.test(m.text || '')) {
            window.__bench.pycAt = performance.now();
          }
        });
      }
    };
  }
  document.addEventListener('DOMContentLoaded', () => {
    const s = document.querySelector('[data-status]');
    if (!s) return;
    const seen = () => {
      if (s.dataset.status !== 'ready' || window.__bench.ready !== undefined) return;
      window.__bench.ready = performance.now();
      if (window.__benchReadyBytes) window.__benchReadyBytes(); // the server's byte count at this moment
    };
    new MutationObserver(seen).observe(s, { attributes: true, attributeFilter: ['data-status'] });
    seen();
  });
})();
"""

# Click Chạy, wait for data-status done/error, force style + layout of the filled panels.
RUN_ONCE = """
async () => {
  const s = document.querySelector('[data-status]');
  const button = document.querySelector('[data-action="run"]');
  if (button.disabled) return { status: 'disabled', ms: null };
  const finished = new Promise((resolve) => {
    const o = new MutationObserver(() => {
      const v = s.dataset.status;
      if (v === 'done' || v === 'error') { o.disconnect(); resolve(v); }
    });
    o.observe(s, { attributes: true, attributeFilter: ['data-status'] });
  });
  const start = performance.now();
  button.click();
  const status = await finished;
  document.documentElement.getBoundingClientRect();
  void document.body.offsetHeight;
  return { status, ms: performance.now() - start };
}
"""

SW_READY = """
async () => {
  if (!('serviceWorker' in navigator)) return false;
  const reg = await navigator.serviceWorker.getRegistration();
  if (!reg) return false;
  await navigator.serviceWorker.ready;
  return true;
}
"""


def wait_ready(page, what: str) -> float:
    page.wait_for_function("() => window.__bench && window.__bench.ready !== undefined", timeout=READY_MS)
    status = page.evaluate("() => (document.querySelector('[data-status]') || {}).dataset?.status")
    if status != "ready":
        raise RuntimeError(f"{what}: status {status!r} instead of ready")
    return page.evaluate("() => window.__bench.ready")


def click_run(page) -> float:
    page.wait_for_function("() => !document.querySelector('[data-action=\"run\"]').disabled", timeout=RUN_MS)
    got = page.evaluate(RUN_ONCE)
    if got["status"] != "done":
        raise RuntimeError(f"run ended with status {got['status']}")
    return got["ms"]


def lab_load(browser, url, counter, has_sw, has_pyc, out, log, keep=False):
    """One cold visit (fresh context) and one warm visit (same context) of the lab, a first run on each."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.add_init_script(LAB_PROBE)
    page = context.new_page()
    at_ready = []  # the server's counts when the status first said ready (not when the poll saw it)
    page.expose_binding("__benchReadyBytes", lambda source: at_ready.append((counter.bytes, dict(counter.by_path))))
    counter.reset()
    page.goto(url)
    cold = wait_ready(page, "lab cold")
    page.wait_for_function("() => true")  # let the binding's call land
    sent, by_path = at_ready[0] if at_ready else (counter.bytes, dict(counter.by_path))
    out["bytes_until_ready"].append(sent)
    out["bytes_by_path_until_ready"] = by_path
    out["cold_ready_ms"].append(cold)
    out["worker_timings"].append(page.evaluate("() => window.__bench.workerTimings"))
    out["stages"].append(page.evaluate("() => window.__bench.stages"))
    page.wait_for_timeout(PAUSE_BEFORE_FIRST_RUN_MS)
    out["first_run_ms"].append(click_run(page))
    if has_sw:
        page.wait_for_function(SW_READY, timeout=READY_MS)
    if has_pyc:  # a second visit comes later in real life: let the compiled-Python cache be written
        page.wait_for_function("() => window.__bench.pycAt !== undefined", timeout=READY_MS)
        out["pyc_stored_after_ready_ms"].append(page.evaluate("() => window.__bench.pycAt - window.__bench.ready"))
    out["warmup_done_after_ready_ms"].append(page.evaluate("() => (window.__bench.warmedAt || NaN) - "
                                                           "window.__bench.ready"))
    page.wait_for_timeout(300)
    out["bytes_first_visit"].append(counter.bytes)
    out["bytes_by_path"] = dict(sorted(counter.by_path.items(), key=lambda kv: -kv[1]))
    page.goto(url)  # second visit, same context
    warm = wait_ready(page, "lab warm")
    out["warm_ready_ms"].append(warm)
    out["worker_timings_warm"].append(page.evaluate("() => window.__bench.workerTimings"))
    page.wait_for_timeout(PAUSE_BEFORE_FIRST_RUN_MS)
    out["first_run_warm_ms"].append(click_run(page))
    log(f"  lab:  cold ready {cold:.0f} ms, warm ready {warm:.0f} ms, first run {out['first_run_ms'][-1]:.0f} / "
        f"{out['first_run_warm_ms'][-1]:.0f} ms, {out['bytes_first_visit'][-1] / 1e6:.2f} MB")
    if keep:
        return context, page
    context.close()
    return None


def bare_load(browser, url, counter, out, log, keep=False):
    context = browser.new_context()
    page = context.new_page()
    counter.reset()
    page.goto(url)
    cold = wait_ready(page, "bare cold")
    out["bytes_until_ready"].append(counter.bytes)
    out["bytes_by_path"] = dict(sorted(counter.by_path.items(), key=lambda kv: -kv[1]))
    out["cold_ready_ms"].append(cold)
    out["worker_timings"].append(page.evaluate("() => window.__bench.worker"))
    page.wait_for_timeout(300)
    page.goto(url)
    warm = wait_ready(page, "bare warm")
    out["warm_ready_ms"].append(warm)
    log(f"  bare: cold ready {cold:.0f} ms, warm ready {warm:.0f} ms, {out['bytes_until_ready'][-1] / 1e6:.2f} MB")
    if keep:
        return context, page
    context.close()
    return None


LOOP = "def plan_tasks(running, budget_cap):\n    while True:\n        pass\n"

# Click Stop while the endless edit runs; ms until the status says ready again (interrupted, or restarted).
STOP_ONCE = """
async () => {
  const s = document.querySelector('[data-status]');
  const ready = new Promise((resolve) => {
    const o = new MutationObserver(() => { if (s.dataset.status === 'ready') { o.disconnect(); resolve(); } });
    o.observe(s, { attributes: true, attributeFilter: ['data-status'] });
  });
  const start = performance.now();
  document.querySelector('[data-action="stop"]').click();
  await ready;
  return performance.now() - start;
}
"""


def measure_stop(browser, url, times, log, what):
    """Stop latency: an endless edit of plan_tasks run `times` times and stopped, click -> ready again."""
    from lab_browser import open_editor
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.add_init_script(LAB_PROBE)
    page = context.new_page()
    page.goto(url)
    wait_ready(page, "stop " + what)
    isolated = page.evaluate("crossOriginIsolated")
    lab = type("Page", (), {"page": page})()
    editor = open_editor(lab, "scheduler.plan_tasks", 3)
    editor.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(LOOP)
    out = []
    for _ in range(times):
        page.wait_for_function("() => !document.querySelector('[data-action=\"run\"]').disabled", timeout=READY_MS)
        editor.locator('[data-action="run-code"]').click()
        page.wait_for_function("() => document.querySelector('[data-status]').dataset.status === 'running'")
        page.wait_for_timeout(500)  # well inside the loop
        out.append(page.evaluate(STOP_ONCE))
    workers = page.evaluate("() => performance.getEntriesByType('resource').filter((e) => "
                            "/pyodide[.]asm[.]wasm([.]gz)?$/.test(e.name)).length")
    log(f"  stop ({what}, crossOriginIsolated={isolated}): click -> ready p50 {median(out):.0f} ms "
        f"({', '.join(f'{x:.0f}' for x in out)}); pyodide.asm.wasm fetched {workers}x by the page's workers")
    context.close()
    return {"isolated": isolated, "stop_ms": out}


def measure_browser(browser, url, counter, loads, runs, has_sw, has_pyc, log):
    """Lab and bare loads alternate (and swap order every round), so load from elsewhere hits both alike."""
    lab = {"cold_ready_ms": [], "warm_ready_ms": [], "first_run_ms": [], "first_run_warm_ms": [],
           "rerun_ms": [], "bytes_until_ready": [], "bytes_first_visit": [], "worker_timings": [],
           "worker_timings_warm": [], "stages": [], "pyc_stored_after_ready_ms": [], "warmup_done_after_ready_ms": []}
    bare = {"cold_ready_ms": [], "warm_ready_ms": [], "bytes_until_ready": [], "seed_exec_ms": [],
            "seed_first_exec_ms": None, "worker_timings": []}
    bare_url = url + "__bench__/bare.html"
    kept_lab = kept_bare = None
    for i in range(loads):
        last = i == loads - 1
        log(f" round {i + 1}/{loads}")
        steps = [lambda: lab_load(browser, url, counter, has_sw, has_pyc, lab, log, keep=last),
                 lambda: bare_load(browser, bare_url, counter, bare, log, keep=last)]
        if i % 2:
            steps.reverse()
        results = [step() for step in steps]
        if last:
            kept_lab, kept_bare = results if i % 2 == 0 else results[::-1]
    context, page = kept_lab
    for _ in range(runs):
        lab["rerun_ms"].append(click_run(page))
    log(f"  {runs} re-runs: p50 {median(lab['rerun_ms']):.1f} ms, p95 {percentile(lab['rerun_ms'], 95):.1f} ms")
    context.close()
    context, page = kept_bare
    got = page.evaluate("([src, n]) => window.__benchSeed(src, n)", [seed_program.source(), runs + 1])
    bare["seed_first_exec_ms"] = got["times"][0]
    bare["seed_exec_ms"] = got["times"][1:]
    log(f"  seed exec in Pyodide: first {got['times'][0]:.0f} ms, p50 {median(bare['seed_exec_ms']):.1f} ms")
    wheel = "/" + json.loads(page.evaluate("() => fetch('/build-info.json').then((r) => r.text())"))["engine"]["wheel"]
    bare["install_compare_ms"] = page.evaluate("(w) => window.__benchInstall(w)", wheel)
    log(f"  engine wheel: unpacked directly {bare['install_compare_ms'].get('unpack', 0):.0f} ms, "
        f"import micropip + install {bare['install_compare_ms'].get('micropipTotal', 0):.0f} ms")
    context.close()
    return lab, bare
