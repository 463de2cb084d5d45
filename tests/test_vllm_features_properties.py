"""Property tests (hypothesis) of the vLLM features (prefix caching, cancellation, priority): every
invariant holds over random traces and configs, the prefix cache never changes the generated text, and the
block pool stays consistent under random operations.
Leaves out: the hand-checkable cases (test_vllm_features_prefix_cache.py, test_vllm_features_scheduling.py)
and the schema and command line (test_vllm_features_schema_cli.py)."""
from __future__ import annotations

import json

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from inference_lab import run
from inference_lab.core.serving.block_manager import BlockManager
from inference_lab.core.inputs.config import Config
from inference_lab.core.serving.engine import RunOptions, run_engine
from inference_lab.entrypoints.lab import Lab
from helpers import vllm_request
from vllm_helpers import block, fake_kv, play


request = vllm_request(12, 40_000)


@st.composite
def configs(draw):
    reqs = draw(st.lists(request, min_size=1, max_size=6))
    for i, r in enumerate(reqs):
        r["id"] = "ABCDEFGH"[i]
    values = dict(REQUESTS=reqs, FOLLOW=draw(st.sampled_from([r["id"] for r in reqs])),
                  PREFIX_CACHE=draw(st.sampled_from(["off", "on"])),
                  SCHED_POLICY=draw(st.sampled_from(["fcfs", "priority"])))
    for name, (lo, hi) in dict(SLOTS=(1, 4), QUEUE_LIMIT=(0, 4), TOKEN_BUDGET=(1, 12), BLOCK_SIZE=(1, 4),
                               POOL_BLOCKS=(2, 20), MAX_CONTEXT=(8, 40)).items():
        if draw(st.booleans()):
            values[name] = draw(st.integers(lo, hi))
    return values


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_random_configs_keep_every_invariant(values):
    r = run(values)
    failed = [(c.name, c.detail) for c in r.checks if not c.ok]
    assert not failed, failed                      # parity, gather (cached K/V), pool_invariants, blocks_returned...
    b1 = block(r, 1).data
    assert b1["offered"] == b1["served"] + b1["n_429"] + b1["n_400"] + b1["n_aborted"]
    for m in block(r, 11).data["requests"]:
        assert m["status"] in ("finished", "aborted")
        assert (m["ttft"] is None) == (m["first"] is None)
    json.dumps(r.to_dict())


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_prefix_cache_never_changes_the_generated_text(values):
    values = {k: v for k, v in values.items() if k != "PREFIX_CACHE"}
    for r in values["REQUESTS"]:
        r.pop("cancel_at", None)                   # without aborts every served request must match exactly
    lab = Lab.build(Config.from_values(values))
    on = run_engine(lab, RunOptions("continuous", lab.cfg.TOKEN_BUDGET, prefix_cache=True))
    off = run_engine(lab, RunOptions("continuous", lab.cfg.TOKEN_BUDGET, prefix_cache=False))
    # Cached prefixes make steps shorter, so the gateway (429) may look at a different system and serve a
    # different set (e.g. QUEUE_LIMIT=0): every request served in both runs has the same tokens.
    on_out, off_out = {r.id: r.out for r in on.done}, {r.id: r.out for r in off.done}
    both = on_out.keys() & off_out.keys()
    assert {i: on_out[i] for i in both} == {i: off_out[i] for i in both}
    refused_429 = {seq.id for seq, code in on.rejected + off.rejected if code == "429"}
    assert (on_out.keys() ^ off_out.keys()) <= refused_429
    assert on.trace["gather"] <= 1e-9 and on.trace["parity"] <= 1e-9 and not on.problems
    assert sorted(on.pool.free) == list(range(lab.cfg.POOL_BLOCKS)) and not any(on.pool.ref_cnt)


ops = st.lists(st.tuples(st.sampled_from(["start", "feed", "finish", "preempt"]), st.integers(0, 3),
                         st.lists(st.integers(2, 4), min_size=1, max_size=9)), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(ops, st.integers(1, 3), st.integers(2, 8))
def test_block_pool_under_random_operations(script, block_size, num_blocks):
    """Random admissions/computations/finishes/preemptions: the invariants hold after every operation,
    and every sequence's gathered K/V equals what recomputing its tokens gives (shared blocks included)."""
    pool = BlockManager(num_blocks=num_blocks, block_size=block_size, enable_caching=True)
    live = {}
    for i, (op, slot, tokens) in enumerate(script):
        play(pool, live, i, op, slot, tokens)
        problems = pool.audit()
        assert not problems, problems
        assert all(r >= 0 for r in pool.ref_cnt)
        for s in live.values():
            K, _ = pool.gather(s)
            assert np.array_equal(K, fake_kv(s.tokens, 0, s.cached))
