"""What the worker sends for a long run (issue 39; entrypoints/web.py): the steps titled, not narrated, without what
only the step view reads (web.DETAIL_KEYS, events that are no landmark), with the run log kept in Python until the
next run, and each step whole on request (web.step_detail): the very item, title and lines the step would carry in
a short run, in the run's language; the KV chart's pools come as web.kv_strip (no block table per step: a long-context
run's tables were most of its message); a short run's answer is unchanged (narrated as lab.run narrates it); `--json`
of a long run is compact (report.to_compact_dict: the steps' state as changes, compact.expand_steps gives the record
back on runs with preemption, cancels, the prefix cache, speculation, priorities, replicas and disaggregation), of a
short one what it was.
compact.COMPACT_STEPS is lowered here so that the default run (a few dozen steps) counts as long."""
from __future__ import annotations

import json

import pytest

from inference_lab.core.inputs.config import DEFAULT_REQUESTS
from inference_lab.entrypoints import compact, web
from inference_lab.entrypoints.lab import run as run_lab
from inference_lab.entrypoints.trace import trace_events


@pytest.fixture()
def long_runs(monkeypatch):
    monkeypatch.setattr(compact, "COMPACT_STEPS", 0)
    yield
    web.release()


def test_a_short_run_is_narrated_as_lab_run_narrates_it():
    out = json.loads(web.run("{}"))
    assert out["report"]["steps"] == json.loads(json.dumps(run_lab().steps))
    assert "narration" not in out["report"]["steps"]
    assert json.loads(web.step_detail(1)) == {"ok": False, "n": 1}        # nothing kept for a short run
    assert out["trace"] == json.loads(json.dumps(trace_events(run_lab()))) and web.trace_json() == "null"


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_a_long_run_sends_titles_and_words_each_step_on_request(long_runs, lang):
    full_run = run_lab(lang=lang)
    out = json.loads(web.run('{"SLOTS": 2}' if lang == "vi" else "{}", lang=lang))
    if lang == "vi":                                       # another run: the kept log follows the last one
        full_run = run_lab({"SLOTS": 2}, lang=lang)
    full = full_run.steps
    steps = out["report"]["steps"]
    assert steps["narration"] == "on_request"
    assert all(not set(it) & {"text", *web.DETAIL_KEYS} for it in steps["items"])
    assert [it["title"] for it in steps["items"]] == [it["title"] for it in full["items"]]
    assert [[{k: v for k, v in e.items() if k != "blocks"} for e in it["events"] if e["kind"] in full["landmarks"]]
            for it in full["items"]] == [it["events"] for it in steps["items"]]
    strip = steps["kv_strip"]                              # the KV chart's pools: every step of a short run's length
    assert strip["steps"] == list(range(1, len(full["items"]) + 1))
    for n, tables in zip(strip["steps"], strip["tables"]):
        want = {rid: sorted(t) for rid, t in full["items"][n - 1]["tables"].items() if t}
        assert list(want) == [t[0] for t in tables]
        assert {t[0]: [b for lo, hi in zip(t[1::2], t[2::2]) for b in range(lo, hi + 1)] for t in tables} == want
    assert strip["max_block"] == max(b for it in full["items"] for t in it["tables"].values() for b in t)
    assert steps["after_text"] == full["after_text"] and steps["wait_labels"] == full["wait_labels"]
    for n, it in enumerate(full["items"], 1):
        assert json.loads(web.step_detail(n)) == {"ok": True, "n": n, "item": json.loads(json.dumps(it))}
    assert out["trace"] is None and json.loads(web.trace_json()) == json.loads(json.dumps(trace_events(full_run)))
    assert json.loads(web.step_detail(len(full["items"]) + 1))["ok"] is False
    assert json.loads(web.step_detail("x"))["ok"] is False


def test_the_language_switch_keeps_the_log_and_words_it_again(long_runs):
    out = json.loads(web.run("{}", lang="vi"))
    full = run_lab(lang="en")
    for _ in range(2):                                    # the kept log; then (a restarted worker) the run again
        again = json.loads(web.render(json.dumps(out["report"]), "en"))
        assert again["report"]["lang"] == "en" and again["report"]["steps"]["narration"] == "on_request"
        assert json.loads(web.step_detail(3))["item"]["text"] == full.steps["items"][2]["text"]
        assert again["report"]["blocks"] == json.loads(json.dumps(full.to_dict()["blocks"]))
        web.release()


def test_a_new_run_releases_the_kept_log(long_runs):
    web.run("{}")
    assert web._kept is not None
    json.loads(web.run('{"SLOTS": 0}'))                   # refused before running: still nothing kept
    assert web._kept is None


def test_json_of_a_short_run_is_what_it_was():
    from inference_lab.entrypoints.cli import json_text
    assert json_text(run_lab(narrate=False)) == run_lab().to_json(indent=1)


def test_json_of_a_long_run_is_compact_and_holds_the_whole_log(long_runs):
    from inference_lab.entrypoints.cli import json_text
    full = run_lab()
    d = json.loads(json_text(run_lab(narrate=False)))
    assert d["form"] == "compact" and d["steps"]["form"] == "columns" and "items" not in d["steps"]
    assert "kv_waits" in d["blocks"][2]["data"] and "kv_waits" not in d["blocks"][5]["data"]
    assert set(d["steps"]["changes"]) == set(compact.CHANGE_KEYS) and not set(compact.CHANGE_KEYS) & set(
        d["steps"]["columns"])
    assert compact.expand_steps(d["steps"]) == json.loads(json.dumps(
        [{k: v for k, v in it.items() if k not in ("title", "text")} for it in full.steps["items"]]))
    assert {k: v for k, v in d.items() if k not in ("form", "steps", "blocks")} == json.loads(json.dumps(
        {k: v for k, v in full.to_dict().items() if k not in ("steps", "blocks")}))


# Runs whose step state changes in every way the record knows: preemptions and sent-back newcomers (a small pool),
# prefix-cache hits and evictions (shared blocks, cached-free lists), speculative rollbacks (tables cut short),
# replicas (each replica's steps a chain of its own) and disaggregated prefill (KV sent and received).
ROUND_TRIPS = {
    "preemption": {"SLOTS": 5, "POOL_BLOCKS": 6},
    "cancel": {"QUEUE_LIMIT": 2, "REQUESTS": [dict(r, cancel_at={"A": 8000, "D": 2000}.get(r["id"]))
                                              for r in DEFAULT_REQUESTS]},
    "prefix_cache": {"PREFIX_CACHE": "on", "WORKLOAD_REQUESTS": 40, "WORKLOAD_PREFIXES": 3, "WORKLOAD_SHARED": 8,
                     "POOL_BLOCKS": 48, "SLOTS": 6},
    "spec": {"SPEC_METHOD": "draft", "QUANT_BITS": 4},
    "priority": {"SCHED_POLICY": "priority", "SLOTS": 4, "POOL_BLOCKS": 7},
    "cluster": {"REPLICAS": 3, "WORKLOAD_REQUESTS": 40, "PREFIX_CACHE": "on", "ROUTER": "prefix_aware"},
    "disagg": {"REPLICAS": 3, "DISAGG": "on", "PREFILL_REPLICAS": 1, "WORKLOAD_REQUESTS": 30},
}


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_the_compact_steps_expand_to_the_full_record(name):
    """compact.expand_steps(compact_steps(record)), through JSON, is the record step by step: every key, every
    event in its place, each replica's state followed from its own step before."""
    record = run_lab(ROUND_TRIPS[name], narrate=False).steps
    items = json.loads(json.dumps(record["items"]))
    kinds = {e["kind"] for it in items for e in it["events"]}
    assert {"preemption": "wait_kv", "cancel": "abort", "prefix_cache": "cache_hit", "spec": "rollback",
            "priority": "preempt", "cluster": "evict", "disagg": "kv_recv"}[name] in kinds
    packed = json.loads(json.dumps(compact.compact_steps(record)))
    assert compact.expand_steps(packed) == items
    whole = len(json.dumps(items))
    assert len(json.dumps(packed)) < whole


def test_the_changes_name_only_what_changed():
    """A step whose state is its replica's step before (advanced by that step's tasks) is written as null."""
    a = {"running": [["A", "prefill", 0, 9, 0, 0], ["B", "decode", 5, 5, 1, 0]], "tasks": [["B", "decode", 1],
         ["A", "prefill", 9]], "waiting": [["C", "no_slot", 0]], "tables": {"A": [0, 1], "B": [2]},
         "free": [[3, 7]], "cached_free": []}
    b = dict(a, running=[["A", "decode", 9, 9, 1, 0], ["B", "decode", 5, 5, 2, 0]], tasks=[])
    assert [compact.CHANGES[k][0](a, b) for k in compact.CHANGE_KEYS] == [None] * 5
    c = dict(b, waiting=[], running=b["running"] + [["C", "prefill", 0, 4, 0, 0]], tables=dict(b["tables"], C=[3]),
             free=[[4, 7]])
    assert compact.CHANGES["running"][0](b, c) == {"rows": [["C", "prefill", 0, 4, 0, 0]],
                                                   "ids": {"drop": [], "add": [[2, "C"]]}}
    assert compact.CHANGES["waiting"][0](b, c) == {"rows": [], "ids": {"drop": ["C"], "add": []}}
    for k in compact.CHANGE_KEYS:
        assert compact.CHANGES[k][1](b, compact.CHANGES[k][0](b, c)) == c[k]


def test_a_long_context_run_is_sent_without_a_block_table_per_step(long_runs):
    """Issue 40's long context: 8 × 32,768-token prompts hold ~2,048 blocks each, so a block table per step was most
    of the page's message (the full 64-request run: ~113 of its ~124 MB). The page gets no table in its steps: the
    KV chart's pools as runs of blocks (a table of 2,048 blocks is a few numbers), the step view's on request."""
    from test_long_context import LONG
    out = web.run(json.dumps(LONG))
    steps = json.loads(out)["report"]["steps"]
    assert not any({"tables", "free", "cached_free"} & set(it) for it in steps["items"])
    strip = steps["kv_strip"]
    assert strip["steps"] == list(range(1, steps["count"] + 1)) and strip["max_block"] >= 2048
    assert max(len(t) for tables in strip["tables"] for t in tables) <= 1 + 2 * 8      # [id, first, last, ...]
    assert len(json.dumps(steps)) <= 100_000 and len(out.encode()) <= 2_000_000
    whole = json.loads(web.step_detail(steps["count"] // 2))["item"]                  # the step view's, whole
    assert max(len(t) for t in whole["tables"].values()) >= 2048
