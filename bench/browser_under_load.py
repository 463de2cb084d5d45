#!/usr/bin/env python3
"""Issue 41's check before a stop: the browser suite, several times back to back, beside busy processes.

    python3 bench/browser_under_load.py                 # 5 runs of `pytest -m browser`, 2 busy processes
    python3 bench/browser_under_load.py --runs 1 --hogs 0   # one run on a quiet machine (the suite's own time)
    python3 bench/browser_under_load.py -- -k offline   # extra pytest arguments after --

A busy process is a Python loop that never sleeps (`while True: pass`, nice 0, like a student's other program or
a second CI job on the 2-core machine); `--hogs 2` keeps both cores busy for the whole check. Each run is
`python3 -m pytest -n 2 --dist loadgroup -m browser -q` as tests/run-all.sh starts it (the browser
tests only: Chromium's shared-page and own-context groups and the cross-browser module's Firefox and WebKit groups),
with LAB_REQUIRE_BROWSER=1 (a missing browser fails, never skips), no retry of any kind. Its whole output goes to
`--logs` (one file per run); this command prints per run: wall seconds, the pytest summary line, the failed tests, the
Pyodide cold boots and the run's slowest state waits (tests/lab_waits.py's lines: what a test waited for, how long,
against which timeout); then whether every run passed. Exit 0 only if all did.

Leaves out: the engine/golden/build tests (`-m "not browser"`; they wait on nothing) and the JavaScript unit tests.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = re.compile(r"^=* ?(\d+ (passed|failed|errors?)\b.* in [\d.]+s.*?) ?=*$")
SECTIONS = ("Pyodide cold boots", "slowest", "wait")     # the heads of conftest.py's summary sections


def busy() -> None:
    """A CPU hog: one core, for ever (until terminated)."""
    while True:
        pass


def run_once(i: int, logs: Path, extra: list[str]) -> tuple[bool, float, list[str]]:
    """(passed, wall seconds, the lines worth printing) of one run of the browser suite."""
    env = dict(os.environ, LAB_REQUIRE_BROWSER="1")
    cmd = [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-m", "browser", "-q", *extra]
    log = logs / f"run{i}.log"
    t = time.perf_counter()
    with log.open("w") as out:
        rc = subprocess.call(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - t
    return rc == 0, wall, notable(log.read_text(errors="replace").splitlines())


def notable(lines: list[str]) -> list[str]:
    """The summary line, the failures, the cold boots' head and the slowest waits' section."""
    keep, section = [], None
    for line in lines:
        if line.startswith(("FAILED ", "ERROR ")):
            keep.append("  " + line)
        elif SUMMARY.match(line):
            keep.append("  " + SUMMARY.match(line).group(1))
        elif line.startswith("---"):
            section = line.strip("- ")
            if section.startswith(SECTIONS[0]) or "wait" in section:
                keep.append("  " + section)
        elif section and "wait" in section and line.strip():
            keep.append("    " + line.strip())
    return keep


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--hogs", type=int, default=2, help="busy processes beside the suite")
    ap.add_argument("--logs", type=Path, default=Path("/tmp/browser-under-load"))
    ap.add_argument("pytest_args", nargs="*", help="after --: extra pytest arguments")
    args = ap.parse_args()
    args.logs.mkdir(parents=True, exist_ok=True)
    hogs = [multiprocessing.Process(target=busy, daemon=True) for _ in range(args.hogs)]
    for h in hogs:
        h.start()
    results = []
    try:
        print(f"{args.runs} run(s) of the browser suite beside {args.hogs} busy process(es); "
              f"load {os.getloadavg()[0]:.1f}; logs in {args.logs}", flush=True)
        for i in range(1, args.runs + 1):
            ok, wall, lines = run_once(i, args.logs, args.pytest_args)
            results.append((ok, wall))
            print(f"run {i}: {'passed' if ok else 'FAILED'} in {wall:.0f} s (load {os.getloadavg()[0]:.1f})",
                  flush=True)
            print("\n".join(lines), flush=True)
    finally:
        for h in hogs:
            h.terminate()
    passed = sum(ok for ok, _ in results)
    walls = ", ".join(f"{w:.0f}" for _, w in results)
    print(f"{passed}/{len(results)} runs passed with no retry; wall seconds: {walls}")
    return 0 if passed == len(results) == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
