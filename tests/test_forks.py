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


def test_a_fed_child_that_dies_breaks_nothing():
    """The main run goes on feeding a replay child that died (its pipe is broken); its work is done here."""
    job = Forked(lambda feed: os.kill(os.getpid(), 9), feed=True)
    assert os.read(job.fd, 1) == b""                       # the child is gone (its end of the answer pipe closed)
    for _ in range(50):
        job.send(("tokens", {"R1": list(range(4096))}))     # more than a pipe holds: a broken pipe, not an error
    assert job.result(lambda: "here") == "here"


def test_stop_kills_a_child_that_has_not_answered():
    import time
    job = Forked(lambda: time.sleep(600))
    pid = job.pid
    job.stop()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, 0)


def streamed(*messages) -> forks.StreamedTokens:
    """A StreamedTokens reading `messages` as the parent's Feeder would send them (all written up front)."""
    import pickle
    read, write = os.pipe()
    with os.fdopen(write, "wb") as pipe:
        for m in messages:
            pickle.dump(m, pipe)
    return forks.StreamedTokens(os.fdopen(read, "rb"))


def test_streamed_tokens_answer_as_the_final_dict():
    """Sent early or at the end, a request's tokens read the same; one the main run never served is missing (the
    replay's own, solo), and what the replay writes it reads back."""
    t = streamed(("tokens", {"R1": [5, 6]}), ("tokens", {"R2": [7]}), ("end", {"R1": [5, 6], "R2": [7], "R3": [8]}))
    assert "R1" in t and t["R1"] == [5, 6]
    assert t.final is None                     # R1 came early: the main run's end was not waited for
    assert "R3" in t and t["R3"] == [8] and t.final is not None
    assert "R4" not in t
    t["R4"] = [1]
    assert t["R4"] == [1] and t.copy() is t and t.consistent()


def test_streamed_tokens_that_changed_are_not_consistent():
    t = streamed(("tokens", {"R1": [5, 6]}), ("end", {"R1": [5, 9]}))
    assert t["R1"] == [5, 6] and not t.consistent() and t.ended() == {"R1": [5, 9]}
