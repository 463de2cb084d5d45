"""What each test cost: CPU seconds (the pytest process and every process it started: Chromium, Firefox, WebKit,
the Node bridge, Xvfb, a build's compiler) and wall seconds, summed per xdist group, and when each pytest-xdist
worker started and ended its work. conftest.py prints it beside the cold boots and the slowest waits, e.g.

    ---------------- cost per group: CPU s (wall s), tests; the workers ----------------
      browser        412.3 s CPU (498.1 s wall), 702 tests
      browser-b      251.0 s CPU (289.5 s wall), 61 tests
      engine-webkit   88.2 s CPU (140.3 s wall), 11 tests
      …
      (no group)     401.7 s CPU (410.2 s wall), 1550 tests
      gw0: busy 688.0 s, first test at 3.1 s, last ended at 702.4 s
      gw1: busy 695.2 s, first test at 3.3 s, last ended at 699.9 s
      the 10 costliest tests (CPU s): …

CPU is load-independent where wall seconds are not: on a shared 2-core machine it is the figure to compare
between runs (a test's CPU is its own work, not its neighbours'). The two workers' end times say whether
--dist loadgroup kept both cores busy to the end (tests/run-all.sh): a worker that ends much earlier than the
other left a core idle.

How: Linux's /proc/<pid>/stat of this process and its descendants, each with the CPU of its children already
reaped (cutime, cstime: a closed renderer or a finished WebKit process still counts); where there is no /proc
(macOS), os.times() of this process and its reaped children. The walk (~1 ms) is made only around the tests
that use browsers (browser_test=True); the others count this process's own CPU and its reaped children's
(os.times(): a build's compiler, `python -m inference_lab`). Leaves out: the time between tests (fixture teardown of a
session fixture, collection).
"""
from __future__ import annotations

import os
import time

SHOWN = 10
_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_rows: list[tuple[str, str, float, float, float]] = []   # (test id, group, cpu s, start, end) (time.time())


_parent: dict[int, int] = {}    # pid -> ppid of every process seen so far (a process's parent never changes but
                                # to init when its parent dies, and this run's pids are not reused: pid_max is large)


def _stat(pid: int) -> list[str] | None:
    """/proc/<pid>/stat's fields after "pid (comm) ": state ppid … utime stime cutime cstime (None: it ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            stat = f.read()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2:].split()


def tree_cpu() -> float:
    """CPU seconds of this process and all its descendants (with their reaped children). A new pid's stat is read
    once to learn its parent; then only this process's descendants are read (~1 ms, not ~10 for all of /proc)."""
    if not os.path.isdir("/proc/self"):
        return own_cpu()
    me, live = os.getpid(), set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            pid = int(name)
            live.add(pid)
            if pid not in _parent:
                fields = _stat(pid)
                _parent[pid] = int(fields[1]) if fields else 0
    children: dict[int, list[int]] = {}
    for pid in live:
        children.setdefault(_parent[pid], []).append(pid)
    ticks, stack = 0, [me]
    while stack:
        pid = stack.pop()
        fields = _stat(pid)
        if fields:
            ticks += sum(int(x) for x in fields[11:15])
        stack.extend(children.get(pid, ()))
    return ticks / _TICK


def own_cpu() -> float:
    """CPU seconds of this process and its reaped children (no /proc walk)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class Meter:
    """Around one test: Meter(test id, group, browser_test) … .stop() notes its CPU and wall seconds."""

    def __init__(self, test: str, group: str, browser_test: bool):
        self.test, self.group, self.clock = test, group, tree_cpu if browser_test else own_cpu
        self.start, self.cpu = time.time(), self.clock()

    def stop(self):
        _rows.append((self.test, self.group, round(self.clock() - self.cpu, 2), self.start, time.time()))


def collected() -> list:
    """This process's rows (also what a pytest-xdist worker hands its controller)."""
    return list(_rows)


def summary_lines(by_worker: dict[str, list], started: float) -> tuple[str, list[str]]:
    """The heading and lines of the cost summary: per group, per worker (times from `started`, the run's start),
    then the costliest tests."""
    rows = [row for worker_rows in by_worker.values() for row in worker_rows]
    groups: dict[str, list[float]] = {}
    for _test, group, cpu, start, end in rows:
        g = groups.setdefault(group, [0.0, 0.0, 0])
        g[0] += cpu
        g[1] += end - start
        g[2] += 1
    width = max((len(g) for g in groups), default=0)
    lines = [f"  {group:<{width}}  {cpu:7.1f} s CPU ({wall:6.1f} s wall), {n} tests"
             for group, (cpu, wall, n) in sorted(groups.items(), key=lambda kv: -kv[1][0])]
    total_cpu = sum(g[0] for g in groups.values())
    lines.append(f"  {'all':<{width}}  {total_cpu:7.1f} s CPU, {len(rows)} tests")
    for worker, worker_rows in sorted(by_worker.items()):
        if worker_rows:
            busy = sum(end - start for *_, start, end in worker_rows)
            first = min(start for *_, start, _end in worker_rows) - started
            last = max(end for *_, end in worker_rows) - started
            lines.append(f"  {worker}: busy {busy:.1f} s, first test at {first:.1f} s, last ended at {last:.1f} s")
    lines.append(f"  the {SHOWN} costliest tests (CPU s, wall s):")
    for test, _group, cpu, start, end in sorted(rows, key=lambda r: -r[2])[:SHOWN]:
        lines.append(f"  {cpu:7.1f} {end - start:7.1f}  {test}")
    return "cost per group: CPU s (wall s), tests; the workers", lines
