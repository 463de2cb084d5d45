#!/usr/bin/env python3
"""Issue 22's scale target, timed (a command, not a test): `python -m inference_lab` in a new interpreter.

    python3 bench/workload_scale.py              # the scale command under both clocks + the --json sizes
    python3 bench/workload_scale.py --repeat 3   # each command 3 times (the best wall time is printed)

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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=1)
    args = p.parse_args()
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
