#!/usr/bin/env python3
"""First visit of a clean browser: what the lab fetches until it is ready, against a bare Pyodide page.

    python3 bench/first_visit.py                   # build a vendored site into a temp folder, 3 rounds
    python3 bench/first_visit.py --dist dist -n 5  # an existing vendored build, 5 rounds
    python3 bench/first_visit.py --no-slow         # only the local link

Each round opens the lab and the bare page (bench/bare.html: Pyodide 0.27.7 + numpy from the same
server, `import numpy`, nothing else) in fresh browser contexts (empty HTTP cache, no service worker),
alternating which goes first, once over the local link and once over an emulated classroom link
(20 Mbit/s both ways, 40 ms latency: CDP Network.emulateNetworkConditions, which Chromium applies to
the page's dedicated workers too). Ready: the lab's data-status says "ready" / the bare page imported
numpy, in ms since navigation started.
It prints, as medians over the rounds: ready times and the lab/bare ratio (the issue's goals: <= 0.6 on
the local link, <= 0.8 on the slow one), bytes until ready twice (the bodies of the GET requests the
server received before ready, each file as it is and gzip -6, as the issue counted; headers and the
HEAD requests' few hundred bytes each are left out), and the requests until ready that the
first visit should not make: a URL asked for twice, python_stdlib.zip, codemirror.js, exercises.json,
code.json. The machine's load changes the times: run it several rounds and read the medians.
Leaves out: warm visits, runs, Stop (browser_bench.py).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]
import sitebuild  # noqa: E402
from bench_report import machine_info, median  # noqa: E402
from bench_server import Counter, bench_file, make_bench_server  # noqa: E402

CHROMIUM = os.environ.get("LAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
READY_MS = 300_000
# A classroom link: 20 Mbit/s, 40 ms (CDP's throughput is in bytes per second).
SLOW = {"offline": False, "latency": 40, "downloadThroughput": 20e6 / 8, "uploadThroughput": 20e6 / 8}
# Not before ready (issue 39): the official stdlib zip, the editor, the exercises, the code views.
LATER = ("/pyodide/python_stdlib.zip", "/static/vendor/codemirror.js", "/exercises.json", "/code.json")
# ...and NumPy's part that `import numpy` does not read (loaded right after ready: sitebuild/pyodide.py split_numpy)
LATER_PREFIXES = ("/pyodide/numpy-rest-",)

# window.__ready: when [data-status] first says ready, as ms since navigation and as wall-clock ms (the
# server's clock: the same machine), so that requests sent after it are not counted.
PROBE = """
document.addEventListener('DOMContentLoaded', () => {
  const s = document.querySelector('[data-status]');
  if (!s) return;
  const seen = () => {
    if (s.dataset.status !== 'ready' || window.__ready !== undefined) return;
    window.__ready = performance.now();
    window.__readyEpoch = performance.timeOrigin + window.__ready;
  };
  new MutationObserver(seen).observe(s, { attributes: true, attributeFilter: ['data-status'] });
  seen();
});
"""


def visit(browser, url, counter, slow):
    """One first visit: (ready ms since navigation, [(method, path)] the server received until ready)."""
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.add_init_script(PROBE)
    page = context.new_page()
    if slow:
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.emulateNetworkConditions", SLOW)
    counter.reset()
    page.goto(url)
    page.wait_for_function("() => window.__ready !== undefined", timeout=READY_MS)
    ready, epoch = page.evaluate("() => [window.__ready, window.__readyEpoch]")
    context.close()
    return ready, [(method, path) for at, method, path in list(counter.hits) if at * 1000 <= epoch]


_sizes: dict[Path, tuple[int, int]] = {}


def local_file(path, dist):
    if path.startswith("/__bench__/"):
        return bench_file(path[len("/__bench__/"):])
    if path.startswith("/pyodide/") and not (dist / path.lstrip("/")).is_file():
        return sitebuild.locate_pyodide_file(path[len("/pyodide/"):])  # the bare page's own files
    local = dist / (path.lstrip("/") or "index.html")
    return local / "index.html" if local.is_dir() else local


def body_bytes(hits, dist):
    """(bytes, bytes gzip -6) of the bodies of the GETs in hits: each file as it is, and gzip'd (as the issue
    counted)."""
    import gzip
    raw = packed = 0
    for method, path in hits:
        local = local_file(path, dist)
        if method != "GET" or not local or not local.is_file():
            continue
        if local not in _sizes:
            data = local.read_bytes()
            _sizes[local] = (len(data), len(gzip.compress(data, 6)))
        raw += _sizes[local][0]
        packed += _sizes[local][1]
    return raw, packed


def unwanted(hits):
    """Requests until ready that a first visit should not make: repeats and LATER files."""
    seen, out = set(), []
    for method, path in hits:
        if (method, path) in seen:
            out.append(f"{method} {path} again")
        seen.add((method, path))
        if method == "GET" and (path in LATER or path.startswith(LATER_PREFIXES)):
            out.append(f"{method} {path}")
    return sorted(set(out))


def measure(browser, url, dist, rounds, slow, log):
    bare_url = url + "__bench__/bare.html"
    rows = {"lab": [], "bare": []}
    for i in range(rounds):
        order = [("lab", url), ("bare", bare_url)]
        for name, where in (order if i % 2 == 0 else order[::-1]):
            ready, hits = visit(browser, where, counter_of(browser), slow)
            sent, gz = body_bytes(hits, dist)
            rows[name].append({"ready": ready, "sent": sent, "gzip": gz, "unwanted": unwanted(hits)})
            log(f"  {'slow' if slow else 'local'} round {i + 1} {name}: ready {ready:.0f} ms, "
                f"{sent / 1e6:.2f} MB, {gz / 1e6:.2f} MB gzip -6, {len(hits)} requests")
    return rows


_counters = {}


def counter_of(browser):
    return _counters[id(browser)]


def summary(rows):
    lab, bare = rows["lab"], rows["bare"]
    ratios = [a["ready"] / b["ready"] for a, b in zip(lab, bare)]
    return {
        "lab_ready_ms": median([r["ready"] for r in lab]), "bare_ready_ms": median([r["ready"] for r in bare]),
        "ratio": median(ratios), "ratios": ratios,
        "lab_sent": median([r["sent"] for r in lab]), "bare_sent": median([r["sent"] for r in bare]),
        "lab_gzip": median([r["gzip"] for r in lab]), "bare_gzip": median([r["gzip"] for r in bare]),
        "unwanted": sorted({u for r in lab for u in r["unwanted"]}),
    }


def report(name, s, goal):
    print(f"{name}: ready lab {s['lab_ready_ms']:.0f} ms, bare {s['bare_ready_ms']:.0f} ms, ratio {s['ratio']:.2f} "
          f"(goal <= {goal}; rounds: {', '.join(f'{r:.2f}' for r in s['ratios'])})")
    print(f"{name}: bytes until ready (response bodies), as files: lab {s['lab_sent'] / 1e6:.2f} MB, "
          f"bare {s['bare_sent'] / 1e6:.2f} MB; "
          f"gzip -6: lab {s['lab_gzip'] / 1e6:.2f} MB, bare {s['bare_gzip'] / 1e6:.2f} MB (goal: lab <= bare)")
    print(f"{name}: requests until ready that should wait: {', '.join(s['unwanted']) or 'none'}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--dist", type=Path, help="a vendored build (default: build one into a temp folder)")
    parser.add_argument("-n", "--rounds", type=int, default=3)
    parser.add_argument("--no-slow", dest="slow", action="store_false", help="skip the emulated classroom link")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory() as tmp:
        mirror = ROOT.parent / "shared" / f"pyodide-{sitebuild.PYODIDE_VERSION}"
        os.environ.setdefault(sitebuild.MIRROR_ENV, str(mirror))
        dist = args.dist.resolve() if args.dist else sitebuild.build(Path(tmp) / "dist", "vendor", ROOT / "py", True)
        counter = Counter()
        server, url = make_bench_server(dist, counter)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                print(f"first visit, {args.rounds} rounds, load average {os.getloadavg()[0]:.1f}, "
                      f"{machine_info(browser.version)}", flush=True)
                _counters[id(browser)] = counter
                log = lambda text: print(text, flush=True)  # noqa: E731
                local = summary(measure(browser, url, dist, args.rounds, False, log))
                slow = summary(measure(browser, url, dist, args.rounds, True, log)) if args.slow else None
                browser.close()
        finally:
            server.shutdown()
        report("local link", local, 0.6)
        if slow:
            report("20 Mbit/s, 40 ms", slow, 0.8)
    return 0


if __name__ == "__main__":
    sys.exit(main())
