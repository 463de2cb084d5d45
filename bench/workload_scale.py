#!/usr/bin/env python3
"""Issue 22's scale target, timed (a command, not a test): `python -m inference_lab` in a new interpreter.

    python3 bench/workload_scale.py              # the scale command under both clocks + the --json sizes
    python3 bench/workload_scale.py --repeat 3   # each command 3 times (the best wall time is printed)
    python3 bench/workload_scale.py --pyodide    # the scale run in Pyodide under node (as the page's worker runs it)

Prints, per command, the wall time and the CPU time of the child (user + system: on a machine shared with
other jobs the wall time can be several times the CPU time), then the size of `--json` for the default run and
for a run of 1,000 generated requests.

The scale command: 64 generated requests × 2,048-token prompts × 128 output tokens, 64 slots, BLOCK_SIZE 16,
POOL_BLOCKS auto, MAX_CONTEXT 4,096, TOKEN_BUDGET 8,192 (target: ≤ 10 s in CPython).
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCALE = ["--workload-requests", "64", "--workload-prompt", "2048", "--workload-output", "128", "--slots", "64",
         "--queue-limit", "64", "--block-size", "16", "--pool-blocks", "auto", "--max-context", "4096",
         "--token-budget", "8192"]
THOUSAND = ["--workload-requests", "1000", "--workload-rate", "200", "--slots", "64", "--queue-limit", "1024",
            "--pool-blocks", "auto", "--token-budget", "2048"]


def timed(args: list[str]) -> tuple[float, float, bytes]:
    """(wall s, child CPU s, stdout) of one `python -m inference_lab ARGS`."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "inference_lab", *args], cwd=ROOT, env=env, capture_output=True,
                         check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out.stdout


# Pyodide under node: the package's files written into its file system, then web.run of the scale config,
# timed with time.perf_counter inside Pyodide. Needs node and $LAB_PYODIDE_MIRROR (a Pyodide 0.27.7 folder).
NODE = """
const { loadPyodide } = require(process.argv[2] + '/pyodide.js');
const fs = require('fs'), path = require('path');
(async () => {
  const py = await loadPyodide({ indexURL: process.argv[2] + '/' });
  await py.loadPackage('numpy');
  const copy = (dir, to) => {
    py.FS.mkdirTree(to);
    for (const f of fs.readdirSync(dir, { withFileTypes: true })) {
      if (f.isDirectory() && f.name !== '__pycache__') copy(path.join(dir, f.name), to + '/' + f.name);
      else if (f.name.endsWith('.py')) py.FS.writeFile(to + '/' + f.name, fs.readFileSync(path.join(dir, f.name)));
    }
  };
  copy(process.argv[3], '/lab/inference_lab');
  py.setStdout({ batched: (s) => console.log(s) });
  py.runPython(process.argv[4]);
})();
"""
PYODIDE_RUN = """
import sys, json, time
sys.path.insert(0, "/lab")
from inference_lab.entrypoints import web
config = json.dumps(dict(WORKLOAD_REQUESTS=64, WORKLOAD_PROMPT=2048, WORKLOAD_OUTPUT=128, SLOTS=64, QUEUE_LIMIT=64,
                         BLOCK_SIZE=16, POOL_BLOCKS="auto", MAX_CONTEXT=4096, TOKEN_BUDGET=8192))
web.run("{}")
told = []
start = time.perf_counter()
out = json.loads(web.run(config, progress=lambda *a: told.append(a)))
print(f"scale, Pyodide           {time.perf_counter() - start:6.2f} s   ok={out['ok']}   progress messages={len(told)}")
"""


def pyodide() -> None:
    import tempfile
    mirror = Path(os.environ.get("LAB_PYODIDE_MIRROR") or ROOT.parent / "shared" / "pyodide-0.27.7").resolve()
    with tempfile.NamedTemporaryFile("w", suffix=".js", delete=False) as fh:
        fh.write(NODE)
    try:
        subprocess.run(["node", fh.name, str(mirror), str(ROOT / "py" / "inference_lab"), PYODIDE_RUN], check=True)
    finally:
        os.unlink(fh.name)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--pyodide", action="store_true", help="the scale run in Pyodide under node instead")
    args = p.parse_args()
    if args.pyodide:
        return pyodide()
    for name, cmd in (("scale, CLOCK=seed", SCALE), ("scale, CLOCK=roofline", SCALE + ["--clock", "roofline"]),
                      ("1000 requests", THOUSAND)):
        runs = [timed(cmd) for _ in range(args.repeat)]
        wall, cpu, _ = min(runs)
        print(f"{name:24s} wall {wall:6.2f} s   cpu {cpu:6.2f} s   (best of {args.repeat})")
    for name, cmd in (("default", []), ("1000 requests", THOUSAND)):
        size = len(timed(cmd + ["--json"])[2])
        print(f"--json {name:17s} {size / 1e6:8.2f} MB ({size:,} bytes)")


if __name__ == "__main__":
    main()
