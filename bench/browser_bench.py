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
- the engine (inference_lab.entrypoints.web.run) and the seed program in CPython, in this process.

Prints a table and writes the samples to bench/results/<label>-<time>.json (git-ignored).
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import io
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "py"), str(ROOT / "tests")]
import sitebuild  # noqa: E402  (the build package, sitebuild/)
import seed_program  # noqa: E402

CHROMIUM = os.environ.get("LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
RESULTS = ROOT / "bench" / "results"
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
          if (m.type === 'log' && /^compiled Python cached/.test(m.text || '')) window.__bench.pycAt = performance.now();
        });
      }
    };
  }
  document.addEventListener('DOMContentLoaded', () => {
    const s = document.querySelector('[data-status]');
    if (!s) return;
    const seen = () => { if (s.dataset.status === 'ready' && window.__bench.ready === undefined) window.__bench.ready = performance.now(); };
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


# ── the server: the build, plus bench/ under /__bench__/, counting bytes ─────
class Counter:
    def __init__(self):
        self.lock = threading.Lock()
        self.bytes = 0
        self.requests = 0
        self.by_path: dict[str, int] = {}

    def add(self, n: int, path: str = "?"):
        with self.lock:
            self.bytes += n
            self.by_path[path] = self.by_path.get(path, 0) + n

    def reset(self):
        with self.lock:
            self.bytes, self.requests, self.by_path = 0, 0, {}


class _CountingWriter:
    def __init__(self, raw, counter: Counter, handler):
        self._raw, self._counter, self._handler = raw, counter, handler

    def write(self, data):
        self._counter.add(len(data), str(getattr(self._handler, "path", "?")).split("?", 1)[0])
        return self._raw.write(data)

    def __getattr__(self, name):
        return getattr(self._raw, name)


def bench_file(name: str) -> Path | None:
    """The file behind /__bench__/<name>: bench/<name>, or the official pyodide-lock.json for the bare
    page (dist/ holds only the lab's cut-down lock, sitebuild.LAB_LOCK)."""
    if name == "pyodide-lock.json":
        return sitebuild.locate_pyodide_file(name)
    local = ROOT / "bench" / name
    return local if "/" not in name and local.is_file() else None


def make_bench_server(dist: Path, counter: Counter):

    class Handler(sitebuild.SiteHandler):
        def setup(self):
            super().setup()
            self.wfile = _CountingWriter(self.wfile, counter, self)

        def translate_path(self, path):
            if path.startswith("/__bench__/"):
                local = bench_file(path.split("?", 1)[0][len("/__bench__/"):])
                if local:
                    return str(local)
            name = path.split("?", 1)[0][len("/pyodide/"):] if path.startswith("/pyodide/") else None
            if name in sitebuild.PYODIDE_PINS and not (dist / "pyodide" / name).is_file():
                # the bare page loads Pyodide's own files, which a bytecode build replaced in dist/
                return str(sitebuild.locate_pyodide_file(name))
            return super().translate_path(path)

        def handle_one_request(self):
            with counter.lock:
                counter.requests += 1
            return super().handle_one_request()

        def log_message(self, *args):
            pass

    server = sitebuild.make_server(dist, 0, handler=Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


# ── statistics ───────────────────────────────────────────────────────────────
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


# ── browser measurements ─────────────────────────────────────────────────────
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
    counter.reset()
    page.goto(url)
    cold = wait_ready(page, "lab cold")
    out["bytes_until_ready"].append(counter.bytes)
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
    out["warmup_done_after_ready_ms"].append(page.evaluate("() => (window.__bench.warmedAt || NaN) - window.__bench.ready"))
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


TEXT_TYPES = (".js", ".mjs", ".css", ".html", ".json", ".txt", "/")


def gzip_estimate(by_path: dict, dist: Path) -> int | None:
    """The bytes of a first visit if text files were sent gzip'd (as GitHub Pages does); wheels, zip, wasm as sent."""
    import gzip
    if not by_path:
        return None
    total = 0
    for path, sent in by_path.items():
        if path.startswith("/__bench__/"):
            local = bench_file(path[len("/__bench__/"):]) or ROOT / "bench" / "missing"
        else:
            local = dist / (path.lstrip("/") or "index.html")
        if local.is_dir():
            local = local / "index.html"
        if path.endswith(TEXT_TYPES) and local.is_file() and sent >= local.stat().st_size:
            data = local.read_bytes()
            total += sent - len(data) + len(gzip.compress(data, 6))
        else:
            total += sent
    return total


# ── report ───────────────────────────────────────────────────────────────────
def summarize(lab, bare, cpy):
    seed_p50 = median(bare["seed_exec_ms"])
    rerun_p50, rerun_p95 = median(lab["rerun_ms"]), percentile(lab["rerun_ms"], 95)
    s = {
        "lab_cold_ready_ms": median(lab["cold_ready_ms"]), "bare_cold_ready_ms": median(bare["cold_ready_ms"]),
        "lab_warm_ready_ms": median(lab["warm_ready_ms"]), "bare_warm_ready_ms": median(bare["warm_ready_ms"]),
        "rerun_p50_ms": rerun_p50, "rerun_p95_ms": rerun_p95, "seed_exec_p50_ms": seed_p50,
        "first_run_ms": median(lab["first_run_ms"]), "first_run_warm_ms": median(lab["first_run_warm_ms"]),
        "lab_bytes_until_ready": median(lab["bytes_until_ready"]), "lab_bytes_first_visit": median(lab["bytes_first_visit"]),
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
    ("ready, cold: lab / bare (ms)", "lab_cold_ready_ms", "bare_cold_ready_ms", "ready_ratio_cold", "≤ 1.05"),
    ("ready, warm: lab / bare (ms)", "lab_warm_ready_ms", "bare_warm_ready_ms", "ready_ratio_warm", ""),
    ("re-run p50 / seed exec p50 (ms)", "rerun_p50_ms", "seed_exec_p50_ms", "rerun_ratio_p50", "≤ 0.5"),
    ("re-run p95 / seed exec p50 (ms)", "rerun_p95_ms", "seed_exec_p50_ms", "rerun_ratio_p95", ""),
    ("first run (cold load) / re-run p50", "first_run_ms", "rerun_p50_ms", "first_run_ratio", "≤ 1.5"),
    ("first run (warm load) / re-run p50", "first_run_warm_ms", "rerun_p50_ms", "first_run_ratio_warm", "≤ 1.5"),
    ("warm ready / cold ready, lab (ms)", "lab_warm_ready_ms", "lab_cold_ready_ms", "warm_ratio", "≤ 0.6"),
    ("warm ready / cold ready, bare (ms)", "bare_warm_ready_ms", "bare_cold_ready_ms", "bare_warm_ratio", ""),
    ("CPython: engine p50 / seed p50 (ms)", "cpython_engine_p50_ms", "cpython_seed_p50_ms", "cpython_engine_vs_seed", ""),
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
    line = (f"{'bytes, first visit: lab / bare (MB)':38} {mb(s.get('lab_bytes_first_visit')):>9} {mb(s.get('bare_bytes')):>9} "
            f"{(fmt(extra / 1e3, 0) + ' kB') if extra is not None else '—':>7} {'≤ +300kB':>7}")
    if old:
        line += f"   {mb(old.get('lab_bytes_first_visit'))} / {mb(old.get('bare_bytes'))}"
    lines.append(line)
    lines.append(f"{'bytes until ready, lab (MB)':38} {mb(s.get('lab_bytes_until_ready')):>9}")
    if s.get("lab_bytes_gzip_est") and s.get("bare_bytes_gzip_est"):
        extra_gz = s["lab_bytes_gzip_est"] - s["bare_bytes_gzip_est"]
        label = "  same, text gzip'd as on Pages (MB)"
        lines.append(f"{label:38} {mb(s['lab_bytes_gzip_est']):>9} {mb(s['bare_bytes_gzip_est']):>9} "
                     f"{fmt(extra_gz / 1e3, 0) + ' kB':>7}")
    if s.get("warmup_done_after_ready_ms") is not None:
        lines.append(f"idle warm-up run done {fmt(s['warmup_done_after_ready_ms'], 0)} ms after ready; compiled-Python cache "
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
        cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "")
    return {"cpu": cpu, "cores": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
            "chromium": browser_version, "load_average_at_end": os.getloadavg()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dist", type=Path, help="an existing vendored build to serve (default: build one into a temp folder)")
    parser.add_argument("--loads", type=int, default=5, help="cold and warm page loads of each page (default 5)")
    parser.add_argument("--runs", type=int, default=20, help="re-runs and seed execs (default 20)")
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
                version = browser.version
                browser.close()
        finally:
            server.shutdown()
            server.server_close()
        summary = summarize(lab, bare, cpy)
        summary["lab_bytes_gzip_est"] = gzip_estimate(lab.get("bytes_by_path"), dist_for_sizes)
        summary["bare_bytes_gzip_est"] = gzip_estimate(bare.get("bytes_by_path"), dist_for_sizes)

    old = json.loads(args.compare.read_text())["summary"] if args.compare else None
    print()
    print(table(summary, old))
    print("load average (1, 5, 15 min) at the end: " + ", ".join(f"{x:.2f}" for x in os.getloadavg()) +
          f" on {os.cpu_count()} cores (other processes make every figure noisier)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    out = RESULTS / f"{args.label}-{stamp}.json"
    out.write_text(json.dumps({
        "label": args.label, "when": stamp, "machine": machine_info(version), "service_worker": has_sw, "pyc_cache": has_pyc,
        "settings": {"loads": args.loads, "runs": args.runs, "pause_before_first_run_ms": PAUSE_BEFORE_FIRST_RUN_MS},
        "summary": summary, "lab": lab, "bare": bare, "cpython": cpy,
    }, indent=1))
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
