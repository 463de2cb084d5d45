#!/usr/bin/env python3
"""The command line's own time for issue 39's big run (a command that prints figures, not a test).

    python3 bench/cli_speed.py                          # the issue's run: 1,000 requests on 8 replicas, text output
    python3 bench/cli_speed.py --requests 300 --runs 3  # a smaller run, three times
    python3 bench/cli_speed.py --base /tmp/old          # A/B: /tmp/old/py/inference_lab (e.g. `git archive OLD py |
                                                        # tar -x -C /tmp/old`) against this checkout, interleaved

Each run is `python3 -m inference_lab` with the issue's flags (bench/cluster_bench.py's ISSUE constants, as
`--workload-requests 1000 … --replicas 8 --router prefix_aware`), its text output to /dev/null, in a fresh process:
the import, the main run, the replays of blocks [11] and [12], the blocks' data and the words, as a student's
`time python3 -m inference_lab …` sees them. Printed per run: wall-clock seconds, CPU seconds (user + system of
the child and of the replays it forks, the fairer figure on a shared machine), the main process's own CPU
seconds apart (on a quiet 2-core machine the wall time is about the main process's CPU time plus its waits
for its forked replays: entrypoints/forks.py) and the 1-minute load average before it; with --base, the
two outputs must be the same bytes (a speed-up changes no printed line), and the medians of both.

Issue 39's goal: the CLI's time for that run at most half of what it was (29–31 s here, 17.8 s on a quiet machine,
when the issue was written). README.en.md "Scale" has the figures measured with this command.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
from cluster_bench import ISSUE  # noqa: E402  (the issue's constants, one place)


def flags(requests: int, replicas: int) -> list[str]:
    values = dict(ISSUE, WORKLOAD_REQUESTS=requests, REPLICAS=replicas, ROUTER="prefix_aware")
    return [arg for name, value in values.items() for arg in ("--" + name.lower().replace("_", "-"), str(value))]


# `python3 -m inference_lab ARGS` that says at exit (on stderr) its own CPU seconds and its forked children's
# (entrypoints/forks.py: the replays of blocks [11] and [12] run beside the main process)
WRAPPER = ("import atexit, resource, runpy, sys\n"
           "def said():\n"
           "    me, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))\n"
           "    print('cli_speed cpu', me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime, file=sys.stderr)\n"
           "atexit.register(said)\n"
           "sys.argv[0] = 'inference_lab'\n"
           "runpy.run_module('inference_lab', run_name='__main__', alter_sys=True)\n")


def one_run(py_dir: Path, args: list[str]) -> tuple[float, float, float, str]:
    """(wall s, CPU s of every process, CPU s of the main process alone, sha256 of stdout) of one
    `python3 -m inference_lab ARGS` with `py_dir` on the path."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", WRAPPER, *args], cwd=py_dir, check=True, capture_output=True,
                          env=dict(os.environ, PYTHONPATH=str(py_dir)))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    said = [line.split() for line in done.stderr.decode().splitlines() if line.startswith("cli_speed cpu ")]
    main_cpu = float(said[-1][2]) if said else cpu
    return wall, cpu, main_cpu, hashlib.sha256(done.stdout).hexdigest()[:12]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--replicas", type=int, default=8)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--base", type=Path, help="a folder holding py/inference_lab of the version to compare with")
    a = ap.parse_args()
    args = flags(a.requests, a.replicas)
    dirs = ([("base", a.base / "py")] if a.base else []) + [("this", ROOT / "py")]
    print(f"python3 -m inference_lab {' '.join(args)}")
    cpus, walls, outs = {name: [] for name, _ in dirs}, {name: [] for name, _ in dirs}, set()
    for _ in range(a.runs):
        for name, py_dir in dirs:
            load = os.getloadavg()[0]
            wall, cpu, main_cpu, out = one_run(py_dir, args)
            cpus[name].append(cpu)
            walls[name].append(wall)
            outs.add(out)
            print(f"{name:5s} wall {wall:6.1f} s   CPU {cpu:6.1f} s = main process {main_cpu:6.1f} s + forked "
                  f"{cpu - main_cpu:5.1f} s   (load {load:.1f} before; stdout {out})", flush=True)
    for name in cpus:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        print(f"{name:5s} median wall {wall:6.1f} s, CPU {cpu:6.1f} s over {len(cpus[name])} run(s)")
    if len(outs) > 1:
        sys.exit("the outputs differ: a speed-up must not change a printed line")


if __name__ == "__main__":
    main()
