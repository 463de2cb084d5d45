"""Issue 21: three places where the lab's serving rules drifted from vLLM's, as regression traces and invariants.

1. Prefix cache: vLLM's BlockPool keeps, per hash, every block carrying it (cached_block_hash_to_block:
   hash -> {block_id: block}); evicting one copy removes only that block id.
2. KV admission (vLLM's v1 Scheduler.schedule): running requests first, only they preempt; a request just
   admitted whose chunk finds no free block goes back to the waiting queue ("wait_kv"), never preempts.
3. Cancellation: an abort is handled when it arrives, before the arrivals that come after it.

Each trace is the issue's, run through the CLI flags it names; then property tests (hypothesis) of the
invariants these bugs break, over random traces and configs (the seed's bytes: tests/test_golden.py).
"""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from inference_lab import run
from inference_lab.core.serving import engine as engine_module
from inference_lab.core.serving.block_manager import BlockManager
from inference_lab.core.inputs.config import validate
from inference_lab.core.serving.run_log import step_rows
from inference_lab.entrypoints import cli
from inference_lab.words.text_schema import problem_text
from helpers import vllm_request
from vllm_helpers import play

GREEDY = dict(temperature=0.0, top_k=0, top_p=1.0)
TRACE_CACHE = [dict(id="A", arrival=0, text="xin chao model", max_new=1, seed=1, **GREEDY),
               dict(id="B", arrival=0, text="xin chao model", max_new=1, seed=2, **GREEDY),
               dict(id="D", arrival=10000, text="ban hoc model", max_new=4, seed=3, **GREEDY),
               dict(id="C", arrival=40000, text="xin chao model", max_new=1, seed=4, **GREEDY)]
CACHE_FLAGS = dict(PREFIX_CACHE="on", BLOCK_SIZE=2, POOL_BLOCKS=9, TOKEN_BUDGET=12, FOLLOW="C")
TRACE_KV = [dict(id="R", arrival=0, text="xin chao model", max_new=3, seed=1, priority=5, **GREEDY),
            dict(id="H", arrival=1000, text="xin chao", max_new=1, seed=2, priority=0, **GREEDY)]
KV_FLAGS = dict(SCHED_POLICY="priority", BLOCK_SIZE=2, POOL_BLOCKS=4, TOKEN_BUDGET=16, SLOTS=2, FOLLOW="R")
TRACE_CANCEL = [dict(id="A", arrival=0, text="xin chao model", max_new=5, seed=1, cancel_at=1000, **GREEDY),
                dict(id="B", arrival=2000, text="xin chao", max_new=2, seed=2, **GREEDY)]
CANCEL_FLAGS = dict(SLOTS=1, QUEUE_LIMIT=0, FOLLOW="A")


def events(report, kind) -> list[tuple[int, dict]]:
    """(1-based step, event) of one kind, from the step record."""
    return [(i + 1, e) for i, it in enumerate(report.steps["items"]) for e in it["events"] if e["kind"] == kind]


def first_task_step(report, rid) -> int:
    return next(i + 1 for i, it in enumerate(report.steps["items"]) if any(t[0] == rid for t in it["tasks"]))


# ── 1. a duplicate cached block stays findable ─────────────────────────────
def test_trace_1_c_reuses_b_s_copies_after_a_s_are_evicted():
    r = run(dict(CACHE_FLAGS, REQUESTS=TRACE_CACHE))
    b6 = r.block(6).data
    assert r.passed
    assert {e["block"] for e in b6["evictions"]} >= {0, 1}               # D took A's copies (blocks 0, 1)
    assert [(h["request"], h["blocks"], h["tokens"]) for h in b6["hits"]] == [("C", [3, 4], 4)]   # B's copies
    assert r.steps["items"][-1]["tasks"] == [["C", "prefill", 2]]                              # only what is left


def test_pool_keeps_every_copy_of_a_hash():
    """Two tables compute the same full block; evicting the first copy leaves the second one findable."""
    from types import SimpleNamespace as NS
    import numpy as np
    pool = BlockManager(num_blocks=3, block_size=2, enable_caching=True)
    a, b = (NS(id=i, cached=0, block_table=[], history=[0, 5]) for i in "AB")
    for s in (a, b):
        pool.write(s, np.ones((2, 2, 4)), np.ones((2, 2, 4)))          # the same full block [0 5], twice
    assert (a.block_table, b.block_table) == ([0], [1]) and list(pool.cached.values()) == [{0: None, 1: None}]
    pool.release(a)
    pool.release(b)
    pool.free = [0] + [x for x in pool.free if x != 0]                  # A's copy is the LRU head
    c = NS(id="C", cached=0, block_table=[], history=[9])
    pool.write(c, np.ones((2, 1, 4)), np.ones((2, 1, 4)))               # evicts block 0 only
    assert pool.find_cached_prefix([0, 5, 6]) == [1]
    assert not pool.audit()


# ── 2. admission checks KV capacity; a waiting request never preempts ──────
def test_trace_2_h_waits_for_kv_and_r_is_never_preempted():
    r = run(dict(KV_FLAGS, REQUESTS=TRACE_KV))
    b3 = r.block(3).data
    assert r.passed and b3["preemptions"] == []
    assert [(k["step"], k["request"], k["why"], k["need"], k["free"]) for k in b3["kv_waits"]] == [(2, "H", "short",
                                                                                                    3, 0)]
    assert first_task_step(r, "H") == 3                                 # after R's blocks came back in step 3
    [(step, e)] = events(r, "wait_kv")
    assert step == 2 and (e["id"], e["why"], e["need"], e["free"], e["blocks"]) == ("H", "short", 3, 0, [])
    assert [it["tasks"] for it in r.steps["items"]] == [[["R", "prefill", 6]], [["R", "decode", 1]],
                                                       [["R", "decode", 1], ["H", "prefill", 5]]]
    row = step_rows(r.steps)[1]
    assert (row["waiting"], row["running"]) == (1, 1)                  # H waits in step 2
    assert "chờ block KV" in r.steps["items"][1]["title"]
    text = r.to_text()
    assert "Chờ block KV ở bước 2 (3.40 ms): H vừa vào chạy" in text and "Chờ block KV (quay lại hàng đợi" in text
    assert any("CHỜ BLOCK KV: H vừa vào chạy" in line for line in r.steps["items"][1]["text"])


def test_trace_2_in_english():
    r = run(dict(KV_FLAGS, REQUESTS=TRACE_KV), lang="en")
    text = r.to_text()
    assert "Waiting for KV blocks at step 2 (3.40 ms): H was just admitted" in text
    assert any("WAITING FOR KV BLOCKS: H was just admitted" in line for line in r.steps["items"][1]["text"])


def test_a_running_request_short_of_blocks_makes_the_newcomer_give_way_first():
    """Step 3: C (running) needs new blocks for its chunk; D, just admitted, holds cached blocks of B's prompt:
    D gives them back and waits before anyone is preempted. Nobody is preempted in the whole run."""
    reqs = [dict(id="A", arrival=6000, text="ban hoc model", max_new=2, seed=0, **GREEDY),
            dict(id="B", arrival=0, text="xin chao ban", max_new=1, seed=1, **GREEDY),
            dict(id="C", arrival=3000, text="ban hoc model", max_new=6, seed=2, **GREEDY),
            dict(id="D", arrival=6000, text="xin chao ban", max_new=3, seed=3, **GREEDY)]
    r = run(dict(PREFIX_CACHE="on", BLOCK_SIZE=2, POOL_BLOCKS=7, TOKEN_BUDGET=8, SLOTS=3, FOLLOW="A", REQUESTS=reqs))
    waits = [(k["step"], k["request"], k["why"], k["by"], k["blocks"]) for k in r.block(3).data["kv_waits"]]
    assert r.passed and r.block(3).data["preemptions"] == []
    assert waits[0] == (3, "D", "gives_way", "C", [0, 1, 2])
    assert "D ở bước 3 (nhường block cho C)" in r.to_text()


# ── 3. an abort is handled before the arrivals after it ────────────────────
def test_trace_3_b_takes_the_place_a_s_client_gave_up():
    r = run(dict(CANCEL_FLAGS, REQUESTS=TRACE_CANCEL))
    b1 = r.block(1).data
    assert r.passed
    assert (b1["served"], b1["n_429"], b1["n_aborted"]) == (1, 0, 1)
    gate = {d["request"]: d for d in b1["decisions"]}
    assert gate["B"]["code"] == "OK" and gate["B"]["facts"]["in_system"] == 0
    kinds = [e["kind"] for e in r.steps["items"][1]["events"]][:2]
    assert kinds == ["abort", "arrive"]                                 # told in time order


def test_cancelled_at_or_before_arrival_is_never_admitted():
    reqs = [dict(TRACE_CANCEL[0], cancel_at=0), dict(TRACE_CANCEL[1], arrival=0)]
    r = run(dict(CANCEL_FLAGS, REQUESTS=reqs))
    b1 = r.block(1).data
    assert r.passed and (b1["offered"], b1["served"], b1["n_429"], b1["n_aborted"]) == (2, 1, 0, 1)
    assert [(a["request"], a["stage"], a["blocks"]) for a in b1["aborts"]] == [("A", "gateway", [])]
    assert [d["request"] for d in b1["decisions"]] == ["B"]            # A never reached the gateway's count
    assert "hủy trước cả lúc đến: không được nhận vào, không chiếm chỗ ở cổng" in r.to_text()


# ── priority: any integer in -10^9..10^9 ───────────────────────────────────
def test_negative_priority_runs_first():
    reqs = [dict(TRACE_KV[1], id="A", arrival=0, priority=0), dict(TRACE_KV[1], id="B", arrival=0, priority=-10**9),
            dict(TRACE_KV[1], id="C", arrival=0, priority=10**9)]
    r = run(dict(SCHED_POLICY="priority", SLOTS=1, QUEUE_LIMIT=2, FOLLOW="A", REQUESTS=reqs))
    assert r.passed and [first_task_step(r, x) for x in "BAC"] == [1, 2, 3]


@pytest.mark.parametrize("value,ok", [(-10**9, True), (10**9, True), (-10**9 - 1, False), (10**9 + 1, False)])
def test_priority_range(value, ok):
    problems = [p for p in validate({"REQUESTS": [dict(TRACE_KV[0], priority=value)], "FOLLOW": "R"})]
    assert (not problems) == ok, problems
    if not ok:
        assert problems[0].field == "REQUESTS[0].priority" and "-1000000000..1000000000" in problem_text(problems[0],
                                                                                                         "en")


def test_cli_runs_the_three_traces(tmp_path, capsys):
    for reqs, flags in ((TRACE_CACHE, CACHE_FLAGS), (TRACE_KV, KV_FLAGS), (TRACE_CANCEL, CANCEL_FLAGS)):
        path = tmp_path / "trace.json"
        path.write_text(json.dumps(reqs), encoding="utf-8")
        args = [f"--{k.lower().replace('_', '-')}={v}" for k, v in flags.items()]
        code = cli.main(["--requests", str(path), "--json", *args])
        report = json.loads(capsys.readouterr().out)
        assert code == 0 and report["passed"]


# ── property tests: the invariants these bugs break ────────────────────────
request = vllm_request(10, 20_000)


@st.composite
def small_pools(draw):
    """Shared prefixes, cancellations, priorities and small pools: the scenarios where the rules matter."""
    reqs = draw(st.lists(request, min_size=2, max_size=6))
    for i, r in enumerate(reqs):
        r["id"] = "ABCDEFGH"[i]
    return dict(REQUESTS=reqs, FOLLOW=reqs[0]["id"], PREFIX_CACHE=draw(st.sampled_from(["off", "on"])),
                SCHED_POLICY=draw(st.sampled_from(["fcfs", "priority"])), SLOTS=draw(st.integers(1, 4)),
                QUEUE_LIMIT=draw(st.integers(0, 3)), TOKEN_BUDGET=draw(st.integers(1, 12)),
                BLOCK_SIZE=draw(st.integers(1, 3)), POOL_BLOCKS=draw(st.integers(4, 12)))


class GatewayWatch:
    """Wraps Engine.admit: records, per request the gateway looks at, who of the system was cancelled by then."""

    def __init__(self, monkeypatch):
        self.stale = []
        real = engine_module.Engine.admit

        def admit(engine, seq):
            self.stale += [(seq.id, s.id) for s in engine.waiting + engine.running
                           if s.cancel_at is not None and s.cancel_at <= seq.arrival]
            return real(engine, seq)

        monkeypatch.setattr(engine_module.Engine, "admit", admit)


def check_step_invariants(report) -> None:
    record = report.steps
    key = {rid: tuple(k) for rid, k in record["priority_key"].items()}
    for i, it in enumerate(record["items"]):
        admitted = [e["id"] for e in it["events"] if e["kind"] == "admit"]
        sent_back = {e["id"] for e in it["events"] if e["kind"] == "wait_kv"}
        for e in it["events"]:
            if e["kind"] == "preempt":
                assert e["id"] not in admitted, f"step {i + 1}: {e['id']} preempted in the step it was admitted"
                assert e["needed_by"] not in admitted, f"step {i + 1}: waiting {e['needed_by']} caused a preemption"
        if report.config["SCHED_POLICY"] == "priority" and admitted:
            kept = [a for a in admitted if a not in sent_back]
            ready = [w[0] for w in it["waiting"] if w[1] != "preparing"]    # a sent-back newcomer waits ("no_kv")
            for a in kept:
                for w in ready:
                    assert key[a] <= key[w], f"step {i + 1}: {a} {key[a]} overtook ready {w} {key[w]}"


# Falsifying examples hypothesis found (prefix cache, priority, small pools): tests below and @example.
SMALL = dict(temperature=0.0, top_k=0, seed=0, top_p=0.5)
FOUND_1 = dict(REQUESTS=[dict(id="A", arrival=2119, text="xin", max_new=1, **SMALL),
                         dict(SMALL, id="B", arrival=0, text="xin xin xin token", max_new=6, temperature=0.8),
                         dict(id="C", arrival=0, text="token token xin xin", max_new=1, **SMALL),
                         dict(id="D", arrival=8000, text="xin", max_new=1, **SMALL),
                         dict(id="E", arrival=1269, text="chao", max_new=2, priority=-2, **SMALL)],
               FOLLOW="A", PREFIX_CACHE="on", SCHED_POLICY="priority", SLOTS=3, QUEUE_LIMIT=1, TOKEN_BUDGET=4,
               BLOCK_SIZE=2, POOL_BLOCKS=8)
FOUND_2 = dict(REQUESTS=[dict(id="A", arrival=250, text="xin", max_new=1, **SMALL),
                         dict(id="B", arrival=0, text="xin xin hoc", max_new=3, **SMALL),
                         dict(id="C", arrival=0, text="chao chao", max_new=1, **SMALL)],
               FOLLOW="A", PREFIX_CACHE="on", SCHED_POLICY="priority", SLOTS=3, QUEUE_LIMIT=0, TOKEN_BUDGET=2,
               BLOCK_SIZE=2, POOL_BLOCKS=5)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(small_pools())
@example(FOUND_1)
@example(FOUND_2)
def test_random_small_pools_keep_vllm_s_rules(monkeypatch, values):
    watch = GatewayWatch(monkeypatch)
    r = run(values)
    failed = [(c.name, c.detail) for c in r.checks if not c.ok]
    assert not failed, failed                              # includes the pool audit: stale_hash = a hash lost
    check_step_invariants(r)
    assert not watch.stale, f"cancelled requests still took a gateway place: {watch.stale}"
    b1 = r.block(1).data
    assert b1["offered"] == b1["served"] + b1["n_429"] + b1["n_400"] + b1["n_aborted"]


# ── the falsifying examples, told step by step ──────────────────────────────
def test_found_1_a_step_where_nothing_ran_keeps_its_own_preemptions():
    """C (running) is short of blocks: A, then C itself are preempted and no task runs. That step is recorded
    (no tasks, no time: vLLM's schedule() scheduled nothing), so C and A are admitted only in the next step;
    there C gives its cached blocks to B (running) and A, admitted after C, waits again too."""
    r = run(FOUND_1)
    assert r.passed
    check_step_invariants(r)
    items = r.steps["items"]
    i = next(i for i, it in enumerate(items) if not it["tasks"])
    empty, after = items[i], items[i + 1]
    assert empty["start"] == empty["end"] == after["start"] and empty["budget"][0] == 0
    assert [(e["id"], e["needed_by"]) for e in empty["events"] if e["kind"] == "preempt"] == [("A", "C"), ("C", "C")]
    assert not [e for e in empty["events"] if e["kind"] == "admit"]
    assert [e["id"] for e in after["events"] if e["kind"] == "admit"] == ["C", "A"]
    assert [(e["id"], e["why"], e["by"]) for e in after["events"] if e["kind"] == "wait_kv"] == \
        [("C", "gives_way", "B"), ("A", "behind", "C")]
    assert after["tasks"] == [["B", "prefill", 4]]
    assert any(line.startswith("Không việc nào chạy ở bước này") for line in empty["text"])


def test_found_2_a_newcomer_after_one_that_gave_way_waits_too():
    """B (0, 0) and A (0, 250) are admitted; B gives its cached blocks to C (running): A must not start ahead
    of B (vLLM's waiting loop stops at the first request it cannot schedule)."""
    r = run(FOUND_2)
    assert r.passed
    check_step_invariants(r)
    waits = [(k["request"], k["why"], k["by"]) for k in r.block(3).data["kv_waits"]]
    assert ("B", "gives_way", "C") in waits and ("A", "behind", "B") in waits
    first = {rid: first_task_step(r, rid) for rid in "AB"}
    assert first["B"] <= first["A"]


ops = st.lists(st.tuples(st.sampled_from(["start", "feed", "finish", "preempt"]), st.integers(0, 3),
                         st.lists(st.integers(2, 3), min_size=1, max_size=7)), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(ops, st.integers(1, 2), st.integers(2, 6))
def test_a_cached_hash_stays_findable_while_any_block_carries_it(script, block_size, num_blocks):
    """Few token values and small pools: many identical blocks, evicted one copy at a time."""
    pool = BlockManager(num_blocks=num_blocks, block_size=block_size, enable_caching=True)
    live = {}
    for i, (op, slot, tokens) in enumerate(script):
        play(pool, live, i, op, slot, tokens)
        for b, h in enumerate(pool.block_hash):
            if h is not None:
                assert b in pool.cached.get(h, {}), f"block {b} carries {h} but the cache lost it"
        assert all(pool.block_hash[b] == h for h, copies in pool.cached.items() for b in copies)
