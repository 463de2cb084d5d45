"""The replays of blocks [11] and [12] in forked children (entrypoints/forks.py) give the very Report of the
sequential path: on a cluster workload with the prefix cache on (three replays: static, nochunk, nocache), on one
engine, and on the seed's trace (the full model replays); a child's error reaches the parent; LAB_PROCESSES=1 and a
progress callback keep the sequential path."""
from __future__ import annotations

import os

import pytest

from inference_lab.entrypoints import forks, lab
from inference_lab.entrypoints.forks import Forked

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork: CPython on Linux or macOS")

CLUSTER = dict(WORKLOAD_REQUESTS=40, WORKLOAD_PROMPT=48, WORKLOAD_OUTPUT=8, WORKLOAD_RATE=400.0,
               WORKLOAD_PREFIXES=3, WORKLOAD_SHARED=32, SLOTS=4, BLOCK_SIZE=8, POOL_BLOCKS=24, PREFIX_CACHE="on",
               REPLICAS=3, ROUTER="prefix_aware")


def both(values: dict, **kw) -> tuple[str, str]:
    return (lab.run(values, fork=True, **kw).to_json(), lab.run(values, fork=False, **kw).to_json())


@pytest.mark.parametrize("values", [CLUSTER, dict(CLUSTER, REPLICAS=1), dict(CLUSTER, PREFIX_CACHE="off"), {}],
                         ids=["cluster", "one-engine", "no-cache", "seed"])
def test_forked_replays_give_the_sequential_report(values, monkeypatch):
    monkeypatch.delenv(forks.ENV, raising=False)
    assert forks.can_fork()
    forked, sequential = both(values, narrate=False)
    assert forked == sequential


def test_the_forked_path_really_forks(monkeypatch):
    """The replays run in other processes: each job's result comes from a child whose pid is not ours."""
    monkeypatch.delenv(forks.ENV, raising=False)
    seen = []
    real = forks.Forked

    class Spy(real):
        def __init__(self, fn, feed=False):
            super().__init__((lambda f: (os.getpid(), fn(f))) if feed else (lambda: (os.getpid(), fn())), feed)

        def result(self, fallback=None):
            pid, value = super().result(fallback)
            seen.append(pid)
            return value

    monkeypatch.setattr(lab, "Forked", Spy)
    report = lab.run(CLUSTER, narrate=False)
    assert len(seen) == 4 and os.getpid() not in seen and len(set(seen)) == 4    # 3 replays, block [13]'s gates
    assert report.passed


def test_sequential_when_asked_or_heard(monkeypatch):
    monkeypatch.setenv(forks.ENV, "1")
    assert not forks.can_fork()
    monkeypatch.delenv(forks.ENV)
    assert not forks.can_fork(progress=print)


def test_a_childs_error_reaches_the_parent():
    def broken():
        raise ValueError("replay broke")

    job = Forked(broken)
    with pytest.raises(ValueError, match="replay broke"):
        job.result()


def test_a_child_that_dies_is_replayed_here():
    """A child killed before it answers (out of memory, a signal): the parent computes the value itself."""
    job = Forked(lambda: os.kill(os.getpid(), 9))
    assert job.result(lambda: "here") == "here"          # what the parent computes in its place


def test_stop_kills_a_child_that_has_not_answered():
    import time
    job = Forked(lambda: time.sleep(600))
    pid = job.pid
    job.stop()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, 0)
