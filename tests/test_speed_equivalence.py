"""Issue 39's speed-ups keep every result: each faster form against the plain form it replaced, on random inputs.

- scheduler.plan_tasks stops at a spent token budget (a later chunk would get n <= 0 and be skipped anyway);
- roofline.step_cost sums its tasks in one loop instead of four sum() passes (integers: the same totals);
- BlockManager._hashes_disagree compares two flat lists instead of any() over the pairs.
"""
from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np

from inference_lab.core.clock.hardware import MODELS
from inference_lab.core.clock.roofline import StepCost, sampled, step_cost
from inference_lab.core.serving.block_manager import BlockManager
from inference_lab.core.serving.scheduler import plan_tasks


def plan_tasks_plain(running, budget_cap):
    """plan_tasks as it was before issue 39 (no early stop)."""
    decode = [r for r in running if r.num_prefill_left == 0]
    tasks = [("decode", r, 1) for r in decode]
    budget = None if budget_cap is None else budget_cap - len(decode)
    for r in running:
        if r.num_prefill_left:
            n = r.num_prefill_left if budget is None else min(r.num_prefill_left, budget)
            if n > 0:
                tasks.append(("prefill", r, n))
                budget = None if budget is None else budget - n
    return tasks


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 40), max_size=40), st.one_of(st.none(), st.integers(1, 64)))
def test_plan_tasks_early_stop_plans_the_same_tasks(lefts, cap):
    running = [SimpleNamespace(num_prefill_left=n) for n in lefts]
    assert plan_tasks(running, cap) == plan_tasks_plain(running, cap)


def step_cost_plain(shape, work, weight_bits, kv_bits):
    """roofline.step_cost as it was before issue 39 (four passes)."""
    tokens = sum(w[0] for w in work)
    attended = sum(n * p + n * (n + 1) // 2 for n, p, *_ in work)
    past = sum(w[1] for w in work)
    body = shape.matmul_params - shape.head_params
    flops = (2 * body * tokens + 2 * shape.head_params * sum(sampled(w) for w in work)
             + 4 * shape.layers * shape.heads * shape.head_dim * attended)
    kv = shape.kv_bytes_per_token(kv_bits)
    weights = shape.matmul_params * weight_bits / 8 if work else 0
    return StepCost(float(flops), float(weights + kv * past + kv * tokens), tokens)


task = st.one_of(st.tuples(st.integers(1, 4096), st.integers(0, 8192)),
                 st.tuples(st.integers(1, 4096), st.integers(0, 8192), st.integers(0, 8)))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(MODELS)), st.lists(task, max_size=64), st.sampled_from([4, 8, 16]),
       st.sampled_from([4, 8, 16]))
def test_step_cost_one_pass_is_the_same_cost(model, work, weight_bits, kv_bits):
    shape = MODELS[model]
    assert step_cost(shape, work, weight_bits, kv_bits) == step_cost_plain(shape, work, weight_bits, kv_bits)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 24), st.data())
def test_hash_map_check_agrees_with_the_pairwise_form(num_blocks, data):
    pool = BlockManager(num_blocks, 4, enable_caching=True)
    hashes = [data.draw(st.one_of(st.none(), st.sampled_from("abcd"))) for _ in range(num_blocks)]
    pool.block_hash = hashes
    cached = {}
    for _ in range(data.draw(st.integers(0, num_blocks))):
        cached.setdefault(data.draw(st.sampled_from("abcde")), {})[data.draw(st.integers(0, num_blocks - 1))] = None
    pool.cached = cached
    plain = (sum(map(len, cached.values())) != len(hashes) - hashes.count(None)
             or any(hashes[b] != h for h, copies in cached.items() for b in copies))
    assert pool._hashes_disagree() == plain


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_incremental_hash_check_agrees_with_the_whole_check(data):
    """BlockManager._stale_hash looks only at the blocks whose hash came or went since a look that found the map
    agreeing: after every operation (writes, finishes, preemptions, prefix hits, and a few broken ones that move
    a hash or an entry through the pool's own bookkeeping) it says what the whole check says."""
    pool = BlockManager(data.draw(st.integers(2, 12)), 2, enable_caching=True)
    seqs = []
    for _ in range(data.draw(st.integers(1, 40))):
        op = data.draw(st.sampled_from(["new", "write", "release", "evict", "break_entry", "break_hash"]))
        live = [s for s in seqs if s.block_table]
        if op == "new":
            ids = data.draw(st.lists(st.integers(0, 2), min_size=1, max_size=7))
            s = SimpleNamespace(id=len(seqs), cached=0, block_table=[], history=[], prefill_ids=ids)
            pool.take_cached_prefix(s, ids)
            s.history = ids[:s.cached]
            seqs.append(s)
        elif op == "write" and seqs:
            s = data.draw(st.sampled_from(seqs))
            n = data.draw(st.integers(1, 3))
            if pool.can_append(s, n):
                s.history += data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
                pool.write(s, np.zeros((2, n, 4)), np.zeros((2, n, 4)))
        elif op in ("release", "evict") and live:
            getattr(pool, op)(data.draw(st.sampled_from(live)))
        elif op == "break_entry" and pool.cached:        # an entry left behind for a block that lost its hash
            h = data.draw(st.sampled_from(sorted(pool.cached)))
            b = next(iter(pool.cached[h]))
            pool.block_hash[b] = None
            pool.versions.hash_changed(b)
        elif op == "break_hash":                         # a hash given to a block without its entry
            b = data.draw(st.integers(0, pool.num_blocks - 1))
            pool.block_hash[b] = data.draw(st.sampled_from(["x", pool.block_hash[b]]))
            pool.versions.hash_changed(b)
        assert pool._stale_hash() == pool._hashes_disagree(), op
