#!/usr/bin/env python3
"""Engine-side cost of a re-run (a command, not a test): `web.run('{}')` after a warm-up run.

    python3 bench/engine_profile.py                       # CPython: median / min of 30 re-runs
    python3 bench/engine_profile.py --profile             # plus cProfile's top functions (cumulative)
    python3 bench/engine_profile.py --pyodide             # the same runs in Pyodide under node
    python3 bench/engine_profile.py --pyodide --base DIR  # A/B: DIR/inference_lab (e.g. a git archive of an
                                                          # older commit) against py/inference_lab, interleaved

--pyodide needs node and a Pyodide 0.27.7 folder with the numpy wheel ($LAB_PYODIDE_MIRROR, else
../shared/pyodide-0.27.7). The package's .py files are written into Pyodide's file system; the times
come from time.perf_counter inside Pyodide. On a busy machine compare medians of interleaved runs (--base).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = ROOT / "py"

# Times the packages named in PACKAGES (interleaved), prints one line each. Runs in CPython and in Pyodide.
TIMER = """
import importlib, statistics, time
mods = [importlib.import_module(name + ".web") for name in PACKAGES]
outs = {m.run("{}") for m in mods}
assert len(outs) == 1, "the packages disagree on web.run('{}')"
for m in mods:
    m.run("{}")
times = {name: [] for name in PACKAGES}
for _ in range(RUNS):
    for name, m in zip(PACKAGES, mods):
        t = time.perf_counter(); m.run("{}"); times[name].append((time.perf_counter() - t) * 1e3)
for name, ts in times.items():
    print(f"{name:20s} median {statistics.median(ts):6.1f} ms   min {min(ts):6.1f} ms   ({RUNS} re-runs)")
"""

NODE = """
const { loadPyodide } = require(process.argv[2] + '/pyodide.js');
const fs = require('fs');
(async () => {
  const py = await loadPyodide({ indexURL: process.argv[2] + '/' });
  await py.loadPackage('numpy');
  for (const [dir, name] of JSON.parse(process.argv[3])) {
    py.FS.mkdirTree('/lab/' + name);
    for (const f of fs.readdirSync(dir)) {
      if (f.endsWith('.py')) py.FS.writeFile('/lab/' + name + '/' + f, fs.readFileSync(dir + '/' + f));
    }
  }
  py.setStdout({ batched: (s) => console.log(s) });
  py.runPython('import sys; sys.path.insert(0, "/lab")\\n' + process.argv[4]);
})();
"""


def timer_code(packages: list[str], runs: int) -> str:
    return f"PACKAGES = {packages!r}\nRUNS = {runs}\n" + TIMER


def cpython(runs: int, profile: bool) -> None:
    sys.path.insert(0, str(PY))
    exec(timer_code(["inference_lab"], runs), {})
    if profile:
        import cProfile
        import pstats
        from inference_lab.entrypoints import web
        prof = cProfile.Profile()
        prof.runcall(lambda: [web.run("{}") for _ in range(runs)])
        pstats.Stats(prof).sort_stats("cumtime").print_stats(30)


def pyodide(runs: int, base: str | None) -> None:
    mirror = Path(os.environ.get("LAB_PYODIDE_MIRROR") or ROOT.parent / "shared" / "pyodide-0.27.7").resolve()
    dirs = [[str(PY / "inference_lab"), "inference_lab"]]
    if base:
        dirs.insert(0, [str(Path(base, "inference_lab").resolve()), "inference_lab_base"])
    with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False) as fh:
        fh.write(NODE)
    try:
        subprocess.run(["node", fh.name, str(mirror), json.dumps(dirs), timer_code([n for _, n in dirs], runs)],
                       check=True)
    finally:
        os.unlink(fh.name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--profile", action="store_true", help="CPython only: cProfile's top 30 (cumulative)")
    ap.add_argument("--pyodide", action="store_true", help="run in Pyodide under node instead of CPython")
    ap.add_argument("--base", help="with --pyodide: a folder holding an older inference_lab to compare with")
    args = ap.parse_args()
    start = time.perf_counter()
    if args.pyodide:
        pyodide(args.runs, args.base)
    else:
        cpython(args.runs, args.profile)
    print(f"(whole command {time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
