"""The timing-only replay's lean step (replay.ReplayEngine.lean_step) and its quiet runs (ReplayEngine.iterate):
a step whose KV blocks are all free runs in one pass over its tasks, and the steps after it run back to back while
nothing can happen at their boundaries. Both must leave the same record as the engine's own step: every step's
whole tally (times, tasks, budget, events, cost), not only the figures tests/test_timing_only.py compares, and the
pool's blocks at the end. The cases take both ways: lean steps, quiet runs, and (in a small pool) the engine's own
step where a preemption or a newcomer sent back for blocks can happen; one case is a cluster, whose replicas stop
their quiet runs at the next arrival the router must place.
"""
from __future__ import annotations

import json

import pytest

from inference_lab.core.cluster.cluster import run_cluster
from inference_lab.core.inputs.config import Config
from inference_lab.core.serving import replay
from inference_lab.core.serving.engine import Engine, RunOptions, run_engine
from inference_lab.entrypoints.cluster_data import is_cluster
from inference_lab.entrypoints.weights import Lab

BASE = dict(CLOCK="roofline", WORKLOAD_TRACE="azure-conv", WORKLOAD_REQUESTS=16, IGNORE_EOS="on", MAX_CONTEXT=4096,
            WORKLOAD_TIME_SCALE=20.0, SLOTS=8, TOKEN_BUDGET=512)
CASES = {
    "one engine": {},
    "preemption": dict(POOL_BLOCKS=120, BLOCK_SIZE=16),
    "replicas": dict(REPLICAS=2, ROUTER="least_loaded", POOL_BLOCKS=180, BLOCK_SIZE=16),
    "four replicas, tensor parallel": dict(REPLICAS=4, TENSOR_PARALLEL=2, WORKLOAD_TIME_SCALE=5.0),
    "slots full, queue waiting": dict(SLOTS=2, WORKLOAD_TIME_SCALE=100.0),
}


@pytest.fixture
def counted(monkeypatch):
    """Counts of the ways steps ran: lean steps, the engine's own steps, lean steps run in a quiet run."""
    n = dict(lean=0, engine=0, quiet=0)
    lean_step, engine_step, quiet = replay.ReplayEngine.lean_step, Engine.run_step, replay.ReplayEngine.quiet

    def count_lean(self, tasks=None):
        done = lean_step(self, tasks)
        n["lean"] += done
        return done

    def count_engine(self, step):
        n["engine"] += 1
        return engine_step(self, step)

    def count_quiet(self):
        yes = quiet(self)
        n["quiet"] += yes
        return yes

    monkeypatch.setattr(replay.ReplayEngine, "lean_step", count_lean)
    monkeypatch.setattr(Engine, "run_step", count_engine)
    monkeypatch.setattr(replay.ReplayEngine, "quiet", count_quiet)
    return n


def runs(values: dict):
    cfg = Config.from_values(values)
    lab = Lab.build(cfg)
    play = run_cluster if is_cluster(cfg) else None
    full = (play or run_engine)(lab, RunOptions("continuous", cfg.TOKEN_BUDGET, check=False))
    return cfg, full, lab, play or replay.replay_engine


@pytest.mark.parametrize("case", list(CASES))
def test_lean_steps_leave_the_engines_record(case, counted):
    cfg, full, lab, play = runs({**BASE, **CASES[case]})
    engine_steps = counted["engine"]                          # the full run's, all the engine's own
    fast = play(lab, RunOptions("continuous", cfg.TOKEN_BUDGET, check=False, timing_only=True))
    assert json.dumps(fast.log.items) == json.dumps(full.log.items)          # every key of every step's record
    assert json.dumps(fast.log.after) == json.dumps(full.log.after)
    assert [(s.id, s.token_times, s.finish) for s in fast.done] == [(s.id, s.token_times, s.finish) for s in full.done]
    assert fast.end == full.end and fast.pool.free == full.pool.free and fast.pool.peak_used == full.pool.peak_used
    assert counted["lean"] > 0 and counted["quiet"] > 0      # both ways of the lean step were taken
    if case == "preemption":                                  # KV short: the engine's own step decides
        assert full.log.happenings("preempt") and counted["engine"] > engine_steps


def test_no_lean_step_when_tokens_are_recorded(counted):
    """A replay of recorded tokens (block [12]'s other policies) keeps the engine's own step: only timing-only runs
    (placeholders, IGNORE_EOS = on) take the lean one."""
    cfg, full, lab, _ = runs(BASE)
    again = replay.replay_engine(lab, RunOptions("continuous", cfg.TOKEN_BUDGET, check=False,
                                                 tokens=replay.recorded(full)))
    assert counted["lean"] == 0 and [i["end"] for i in again.log.items] == [i["end"] for i in full.log.items]
