"""`--json`'s `config` is the one place of the run's constants, and the run log's "evict" event.

- No other part of a report repeats a constant: not `header_data`, not the top of `steps`, not a block's data
  (issue 20: "the constants repeated in five places of the report" are gone); a report read back from
  JSON still prints every line (the words read `report.config`).
- PREFIX_CACHE=on: every eviction of block [6] (a cached free block given a new owner, which drops its
  hash) is one "evict" event {id, block, hash} of the step that allocated the block, recorded through
  the run log's `event()`; the narration (`--steps`) never says it.

Leaves out: the format of `steps.items` (tests/run_log_format.py), the words (the goldens).
"""
from __future__ import annotations

import json

import numpy as np
import pytest
from types import SimpleNamespace as NS

from inference_lab import run
from inference_lab.core.serving.block_manager import BlockManager, hash_block
from inference_lab.core.serving.run_log import EVENT_ORDER
from inference_lab.entrypoints.lab import render
from inference_lab.entrypoints.report import Report

COPIES = {                          # a key that would repeat a constant -> that constant's value in report.config
    "slots": lambda c: c["SLOTS"], "queue_limit": lambda c: c["QUEUE_LIMIT"],
    "token_budget": lambda c: c["TOKEN_BUDGET"],
    "block_size": lambda c: c["BLOCK_SIZE"], "pool_blocks": lambda c: c["POOL_BLOCKS"],
    "max_context": lambda c: c["MAX_CONTEXT"], "ttft_slo": lambda c: c["TTFT_SLO"], "seed": lambda c: c["SEED"],
    "cost_gateway": lambda c: c["COST_GATEWAY"], "cost_tokenize": lambda c: c["COST_TOKENIZE_PER_TOKEN"],
    "prefix_cache": lambda c: c["PREFIX_CACHE"] == "on", "sched_policy": lambda c: c["SCHED_POLICY"],
    "requests": lambda c: c["REQUESTS"], "follow": lambda c: c["FOLLOW"],
}
EVICTING = {"SLOTS": 3, "POOL_BLOCKS": 7, "QUEUE_LIMIT": 2, "PREFIX_CACHE": "on"}     # six evictions


@pytest.fixture(scope="module")
def evicting():
    return run(EVICTING)


@pytest.mark.parametrize("values", [{}, EVICTING, {"SCHED_POLICY": "priority", "TTFT_SLO": 100, "MAX_CONTEXT": 40}])
def test_config_is_the_one_place_of_the_constants(values):
    r = run(values)
    d = json.loads(r.to_json())
    assert set(d["header_data"]) == {"n_heads", "d_model", "vocab"}
    assert set(d["steps"]) == {"count", "priority_key", "items", "after", "landmarks", "after_text", "wait_labels"}
    for b in d["blocks"]:                      # block [8]'s seed is the request's, blocks' follow their facts
        copies = [k for k, v in b["data"].items() if k in COPIES and v == COPIES[k](d["config"]) and k != "seed"]
        assert not copies, f"block {b['number']} repeats {copies}"
    again = render(Report.from_dict(d), "en")                 # the words read the constants from config alone
    assert again.to_text() == run(values, lang="en").to_text()
    assert again.steps_text() == run(values, lang="en").steps_text()


def test_evict_is_a_kind_of_the_run_log():
    assert EVENT_ORDER.index("preempt") < EVENT_ORDER.index("evict") < EVENT_ORDER.index("first")


def test_every_eviction_is_an_evict_event_of_its_step(evicting):
    items = evicting.steps["items"]
    events = [(n, e) for n, it in enumerate(items, 1) for e in it["events"] if e["kind"] == "evict"]
    evictions = evicting.block(6).data["evictions"]
    assert len(events) == len(evictions) == 6
    assert [dict(step=n, block=e["block"], hash=e["hash"]) for n, e in events] == evictions
    for n, e in events:
        it = items[n - 1]
        assert set(e) == {"kind", "id", "block", "hash"}
        assert e["block"] in it["alloc"] and e["block"] in it["tables"].get(e["id"], [e["block"]])
        assert e["block"] not in {b for lo, hi in it["cached_free"] for b in range(lo, hi + 1)}   # its hash is gone
    assert not any(e["kind"] == "evict" for e in evicting.steps["after"])


def test_evict_is_not_narrated(evicting):
    items = evicting.steps["items"]
    only = next(it for it in items if {e["kind"] for e in it["events"]} == {"evict"})   # step 14: D's decode evicts
    assert "evict" not in " ".join(only["text"]).lower()
    assert "evict" not in evicting.steps_text().lower()


def test_default_run_evicts_nothing():
    r = run()
    assert not any(e["kind"] == "evict" for it in r.steps["items"] for e in it["events"])


def test_the_pool_tells_its_evictions_to_the_event_it_was_given():
    told = []
    pool = BlockManager(num_blocks=2, block_size=2, enable_caching=True,
                        event=lambda kind, **fields: told.append(dict(kind=kind, **fields)))
    a = NS(id="A", cached=0, block_table=[], history=[0, 5, 6])
    pool.write(a, np.ones((2, 3, 4)), np.ones((2, 3, 4)))       # A fills block 0 (hashed) and starts block 1
    pool.release(a)
    b = NS(id="B", cached=0, block_table=[], history=[0, 7, 8, 9])
    pool.write(b, np.ones((2, 4, 4)), np.ones((2, 4, 4)))       # B takes both free blocks: block 0 loses its hash
    evicted = dict(kind="evict", id="B", block=0, hash=hash_block(None, [0, 5]))     # A's full block [0 5]
    assert [e for e in told if e["kind"] == "evict"] == [evicted]
    assert BlockManager(num_blocks=1, block_size=2).event("evict", id="X", block=0, hash="h") is None   # no log: no-op
