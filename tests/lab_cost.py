"""What each test cost: CPU seconds (the pytest process and every process it started: Chromium, Firefox, WebKit,
the Node bridge, Xvfb, a build's compiler) and wall seconds, summed per xdist group, and when each pytest-xdist
worker started and ended its work. conftest.py prints it beside the cold boots and the slowest waits, e.g.

    ------------- cost per group: CPU s (wall s), tests; the workers -------------
      browser         560.2 s CPU (1799.9 s wall), 142 tests
      browser-b       338.9 s CPU ( 758.6 s wall), 38 tests
      engine-webkit   110.4 s CPU ( 727.1 s wall), 11 tests
      …
      all             … s CPU, 2339 tests
      gw0: busy … s, first test at … s, last ended at … s
      gw1: busy … s, first test at … s, last ended at … s
      the 10 costliest tests (CPU s, wall s):
         102.2   409.8  tests/test_browser_exercises.py::test_every_exercise_button_gives_its_expected_output@browser
      …
(the figures measured on a 2-core machine that other jobs kept ~8 times over-busy: there a test's wall seconds
were ~2-7 times its CPU seconds).

With LAB_COST_FILE=path, every test's row is also written there as JSON lines (write_rows), to compare two runs
test by test.

CPU is load-independent where wall seconds are not: on a shared 2-core machine it is the figure to compare
between runs (a test's CPU is its own work, not its neighbours'). The two workers' end times say whether
--dist loadgroup kept both cores busy to the end (tests/run-all.sh): a worker that ends much earlier than the
other left a core idle.

How: Linux's /proc/<pid>/stat of this process and its descendants, each with the CPU of its children already
reaped (a closed renderer or a finished WebKit process still counts), walked before and after each test (~0.5 ms a
walk); where there is no /proc (macOS), os.times() of this process and its reaped children. Leaves out: the time
between tests (collection), which the next test's first walk then counts.
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


_seen: dict[int, tuple[int, int]] = {}   # descendant pid -> (its ticks, its reaped children's) at the last walk
_ticks = [0]                             # the descendants' ticks counted so far: never goes down


def tree_cpu() -> float:
    """CPU seconds of this process and its descendants so far (a counter: take differences). Each walk adds what
    each of them used since the last one; descendants that ended and were reaped inside the tree count in the
    nearest live ancestor's reaped children's ticks, less what was counted of them already (a browser closing
    with its renderers); one reaped elsewhere (its parent ended first, as when a
    driver is killed) keeps what was counted. A new pid's stat is read once to learn its parent; then only the
    descendants are read (~1 ms, not ~10 for all of /proc on a busy machine)."""
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
    now, stack = {}, [me]
    while stack:
        pid = stack.pop()
        fields = _stat(pid)
        if fields:
            now[pid] = (int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14]))
        stack.extend(children.get(pid, ()))
    counted_of_gone: dict[int, int] = {}     # live process -> what was counted of its descendants now gone
    gone = {pid for pid in _seen if pid not in now}
    for pid in gone:
        own, reaped = _seen.pop(pid)
        reaper = _parent.get(pid, 0)
        while reaper in gone:                # a gone subtree lands in its nearest live ancestor's reaped ticks
            reaper = _parent.get(reaper, 0)
        counted_of_gone[reaper] = counted_of_gone.get(reaper, 0) + own + reaped
    for pid, (own, reaped) in now.items():
        own0, reaped0 = _seen.get(pid, (0, 0))
        _ticks[0] += max(0, own - own0) + max(0, reaped - reaped0 - counted_of_gone.get(pid, 0))
        _seen[pid] = (own, reaped)
    return _ticks[0] / _TICK


def own_cpu() -> float:
    """CPU seconds of this process and its reaped children (no /proc walk)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class Meter:
    """Around one test: Meter(test id, group) … .stop() notes its CPU and wall seconds."""

    def __init__(self, test: str, group: str):
        self.test, self.group, self.clock = test, group, tree_cpu if os.path.isdir("/proc/self") else own_cpu
        self.start, self.cpu = time.time(), self.clock()

    def stop(self):
        _rows.append((self.test, self.group, round(self.clock() - self.cpu, 2), self.start, time.time()))


def collected() -> list:
    """This process's rows (also what a pytest-xdist worker hands its controller)."""
    return list(_rows)


def write_rows(by_worker: dict[str, list], path: str) -> None:
    """Every test's row (worker, test id, group, CPU s, wall s) as JSON lines into `path` ($LAB_COST_FILE): the whole
    table behind the summary's ten costliest, for comparing two runs test by test."""
    import json
    with open(path, "w", encoding="utf-8") as f:
        for worker, worker_rows in sorted(by_worker.items()):
            for test, group, cpu, start, end in worker_rows:
                f.write(json.dumps(dict(worker=worker, test=test, group=group, cpu=cpu, wall=round(end - start, 2),
                                        start=round(start, 2))) + "\n")


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
