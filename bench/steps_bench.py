#!/usr/bin/env python3
"""Scrubbing cost of the step navigator (static/tools/steps.js), a command, not a test: how long one step
change takes in Chromium on a 1,422-step run (TOKEN_BUDGET 1, BLOCK_SIZE 1, POOL_BLOCKS 1024, 12
requests of 110 tokens; tests/test_steps.py long_run_config), and how big the run's step record is.

    python3 bench/steps_bench.py                    # build into a temp folder, 400 step changes
    python3 bench/steps_bench.py --dist /tmp/d --changes 1000

The run happens once (in Pyodide, about a minute here); then every step change is a key press on
the slider, timed from the keydown to a forced layout of the page (the view rewritten, the chart
marks moved, style and layout done), and, separately, as frames: one step change per
requestAnimationFrame, the time between frames (paint included), next to the same loop at the last
step where a key changes nothing (the page's own frame cost). The goal is one frame (16.7 ms).
Home/End jumps (the whole KV map changes) are timed apart. Scrubbing never calls Python; the
number of messages posted to the worker while scrubbing is printed (0).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "py"), str(ROOT / "tests")]
import sitebuild  # noqa: E402  (the build package, sitebuild/)
from test_steps import long_run_config  # noqa: E402
sys.path.insert(0, str(ROOT / "bench"))
from render_profile import serve  # noqa: E402  (a quiet sitebuild.SiteHandler server on a free port)

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
COLUMNS = ["id", "arrival", "text", "max_new", "temperature", "top_k", "top_p", "seed"]

COUNT_POSTS = """
(() => {
  const post = Worker.prototype.postMessage;
  window.__posts = 0;
  Worker.prototype.postMessage = function (...args) { window.__posts += 1; return post.apply(this, args); };
})();
"""

KEYS = """
async ([n, keys]) => {
  const slider = document.querySelector('[data-step-slider]');
  slider.focus();
  const out = [];
  for (let i = 0; i < n; i++) {
    const key = keys[i % keys.length];
    const t0 = performance.now();
    slider.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true }));
    document.body.getBoundingClientRect();            // style + layout of what changed
    void document.querySelector('[data-step-view]').offsetHeight;
    out.push(performance.now() - t0);
  }
  return out;
}
"""

FRAMES = """
async ([n, from]) => {
  const slider = document.querySelector('[data-step-slider]');
  slider.dispatchEvent(new KeyboardEvent('keydown', { key: from, bubbles: true, cancelable: true }));
  const gaps = [];
  let last = null;
  await new Promise((resolve) => {
    const tick = (t) => {
      if (last !== null) gaps.push(t - last);
      last = t;
      if (gaps.length >= n) { resolve(); return; }
      slider.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true, cancelable: true }));
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  return gaps;
}
"""


def address(config: dict) -> str:
    from base64 import urlsafe_b64encode
    values = {k: v for k, v in config.items() if k != "REQUESTS"}
    rows = [[r[c] for c in COLUMNS] for r in config["REQUESTS"]]
    blob = urlsafe_b64encode(json.dumps(rows, separators=(",", ":")).encode()).decode().rstrip("=")
    return "?" + "&".join(f"{k}={v}" for k, v in values.items()) + f"&REQUESTS={blob}"


def record_size(config: dict) -> tuple[int, int, int]:
    from inference_lab.entrypoints import web
    out = json.loads(web.run(json.dumps(config)))
    report = out["report"]
    steps = len(json.dumps(report["steps"], ensure_ascii=False).encode())
    return report["steps"]["count"], steps, len(json.dumps(out, ensure_ascii=False).encode())


def stats(name: str, xs: list[float]) -> str:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(0.95 * len(xs)))]
    return f"{name:<34} n={len(xs):>4}  median {statistics.median(xs):6.2f} ms  p95 {p95:6.2f} ms  max {xs[-1]:6.2f} ms"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dist", type=Path, help="use this built site instead of building into a temp folder")
    ap.add_argument("--changes", type=int, default=400, help="step changes per measurement (default 400)")
    ap.add_argument("--chromium", default="/usr/bin/chromium")
    args = ap.parse_args()

    config = long_run_config()
    count, steps_bytes, result_bytes = record_size(config)
    print(f"run: {count} steps; report['steps'] {steps_bytes / 1e6:.2f} MB of a {result_bytes / 1e6:.2f} MB result "
          f"({steps_bytes / count:.0f} bytes per step)")

    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory() as tmp:
        dist = args.dist or sitebuild.build(Path(tmp) / "dist")
        server, url = serve(dist)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1440, "height": 900})
            page.add_init_script(COUNT_POSTS)
            page.goto(url + address(config))
            page.wait_for_selector('[data-status="done"]', timeout=900_000)
            page.evaluate("document.querySelector('[data-block=\"3\"]').open = true")
            page.locator("[data-step-nav]").scroll_into_view_if_needed()
            assert page.get_attribute("[data-step-slider]", "aria-valuemax") == str(count)
            posts = page.evaluate("window.__posts")
            page.evaluate(KEYS, [20, ["ArrowRight"]])             # warm-up
            arrows = page.evaluate(KEYS, [args.changes, ["ArrowRight"]])
            pages = page.evaluate(KEYS, [min(args.changes, 200), ["PageDown"]])
            jumps = page.evaluate(KEYS, [40, ["End", "Home"]])
            frames = page.evaluate(FRAMES, [args.changes, "Home"])
            idle = page.evaluate(FRAMES, [min(args.changes, 200), "End"])   # at the last step: no change
            print(stats("arrow key (keydown -> layout)", arrows))
            print(stats("PageDown (next step with event)", pages))
            print(stats("Home/End (whole KV map changes)", jumps))
            print(stats("one change per frame (frame gap)", frames))
            print(stats("no change per frame (frame gap)", idle))
            print(f"messages to the Python worker while scrubbing: {page.evaluate('window.__posts') - posts}")
            browser.close()
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
