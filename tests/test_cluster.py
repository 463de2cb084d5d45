"""Replicas behind a router, prefill/decode disaggregation and goodput (issue 24): hand-checkable traces for the
three routers and for disaggregation, and the cluster's invariants as property tests.

Invariants: routing never changes a request's generated text (against one replica, over the requests served in
both); every request goes to exactly one replica (or one prefill and one decode replica); every replica's block
invariants hold and its pool is returned; KV shipped == KV received; the merged steps are ordered by (start,
replica); REPLICAS = 1 through the cluster plays exactly the single engine's steps.
"""
from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import vllm_request
from inference_lab.core.cluster.cluster import LAB_KV_BYTES, run_cluster, transfer_micros
from inference_lab.core.inputs.config import Config, ConfigError
from inference_lab.core.serving.engine import RunOptions, run_engine
from inference_lab.core.cluster.goodput import goodput, percentile
from inference_lab.entrypoints.lab import run, same_text
from inference_lab.entrypoints.weights import Lab


def req(rid, text, arrival=0, max_new=4, **extra):
    return dict(id=rid, arrival=arrival, text=text, max_new=max_new, temperature=0.0, top_k=0, top_p=1.0, seed=1,
                **extra)


def cluster(**values):
    cfg = Config.from_values(values)
    lab = Lab.build(cfg)
    return lab, run_cluster(lab, RunOptions("continuous", cfg.TOKEN_BUDGET))


# ── REPLICAS = 1 and the defaults ───────────────────────────────────────────
def test_one_replica_through_the_cluster_plays_the_engine_exactly():
    cfg = Config()
    lab = Lab.build(cfg)
    options = RunOptions("continuous", cfg.TOKEN_BUDGET)
    one, many = run_engine(lab, options), run_cluster(lab, options)
    assert [{k: v for k, v in it.items() if k != "replica"} for it in many.log.items] == one.log.items
    assert [(r.id, r.out, r.token_times) for r in many.done] == [(r.id, r.out, r.token_times) for r in one.done]


def test_default_json_has_no_replica_keys_but_a_cluster():
    d = run().to_dict()
    assert all("replica" not in it for it in d["steps"]["items"])
    assert all("replica" not in r for r in d["blocks"][10]["data"]["requests"])
    assert set(d["cluster"]) >= {"replicas", "router", "disagg", "goodput"}
    assert [set(r) >= {"id", "served", "busy_us", "kv_peak", "prefix_hits"} for r in d["cluster"]["replicas"]] == [True]
    assert set(d["cluster"]["goodput"]) == {"ttft_slo", "tpot_slo", "met", "served", "fraction", "per_s"}
    assert d["cluster"]["disagg"] is None and d["cluster"]["router"]["decisions"] == []


def test_disagg_needs_a_decode_replica():
    for values, field in (({"DISAGG": "on"}, "REPLICAS"),
                          ({"DISAGG": "on", "REPLICAS": 3, "PREFILL_REPLICAS": 3}, "PREFILL_REPLICAS")):
        try:
            Config.from_values(values)
        except ConfigError as exc:
            assert [p.field for p in exc.problems] == [field]
        else:
            raise AssertionError(values)


# ── hand-checkable traces: the three routers ────────────────────────────────
def test_round_robin_takes_turns():
    reqs = [req(x, "xin chao model") for x in "ABCDE"]
    _, res = cluster(REQUESTS=reqs, FOLLOW="A", REPLICAS=2, ROUTER="round_robin", QUEUE_LIMIT=4)
    assert [(d["request"], d["replica"]) for d in res.routes] == [("A", 0), ("B", 1), ("C", 0), ("D", 1), ("E", 0)]


def test_least_loaded_counts_outstanding_tokens_and_ties_go_low():
    # A (prompt 6 + 8 new = 14 tokens) goes to replica 0 (tie, lowest index); B to replica 1 (0 < 14);
    # C arrives with A's 14 and B's 5 + 2 = 7 outstanding: replica 1.
    reqs = [req("A", "xin chao model", max_new=8), req("B", "ban", max_new=2), req("C", "xin", arrival=0, max_new=2)]
    _, res = cluster(REQUESTS=reqs, FOLLOW="A", REPLICAS=2, ROUTER="least_loaded", MAX_CONTEXT=48, POOL_BLOCKS=40)
    got = [(d["request"], d["replica"], d["loads"]) for d in res.routes]
    lens = {r.id: len(r.ids) for r in res.done}
    assert got == [("A", 0, [0, 0]), ("B", 1, [lens["A"] + 8, 0]), ("C", 1, [lens["A"] + 8, lens["B"] + 2])]


def test_prefix_aware_follows_the_cached_blocks_until_the_load_outweighs_them():
    # BLOCK_SIZE 2: "xin chao model hoc" and "xin chao model ban" share their first full blocks.
    reqs = [req("A", "xin chao model hoc", max_new=2), req("B", "token ban", arrival=0, max_new=2),
            req("C", "xin chao model ban", arrival=20_000, max_new=2)]
    _, res = cluster(REQUESTS=reqs, FOLLOW="A", REPLICAS=2, ROUTER="prefix_aware", BLOCK_SIZE=2, POOL_BLOCKS=40,
                     PREFIX_CACHE="on", MAX_CONTEXT=48)
    a, b, c = res.routes
    assert (a["replica"], b["replica"]) == (0, 1)              # tie on an idle cluster: lowest index, then load
    assert c["replica"] == 0 and c["cached"] > 0 and c["cached"] <= c["blocks"]
    assert c["load"] == 0.0                                   # both idle again at 20 ms
    hits = {r["id"]: r["prefix_hits"] for r in run(Config.from_values(dict(
        REQUESTS=reqs, FOLLOW="A", REPLICAS=2, ROUTER="prefix_aware", BLOCK_SIZE=2, POOL_BLOCKS=40, PREFIX_CACHE="on",
        MAX_CONTEXT=48))).cluster["replicas"]}
    assert hits[0] == 2 * c["cached"] and hits[1] == 0        # the engine found what the router expected


def test_prefix_aware_score_by_hand():
    from inference_lab.core.cluster.router import Router
    r = Router("prefix_aware", 3, block_size=2)
    r.remember(2, [0, 5, 6, 7, 8, 9])
    d = r.choose("X", [0, 5, 6, 7, 8, 9, 3], loads=[10, 20, 30])       # replica 2: 3/3 cached, load 1.0 → 3 − 2 = 1
    assert (d["replica"], d["cached"], d["blocks"], d["load"]) == (2, 3, 3, 1.0)
    # 2/3 cached: 2 − 2 = 0 = replica 0's score: lowest index
    d = r.choose("Y", [0, 5, 6, 7, 4, 4, 3], loads=[10, 20, 30])
    assert d["replica"] == 0


def test_a_429_comes_from_the_chosen_replicas_queue():
    reqs = [req(x, "xin chao model") for x in "ABCD"]
    rep = run(Config.from_values(dict(REQUESTS=reqs, FOLLOW="A", REPLICAS=2, ROUTER="round_robin", SLOTS=1,
                                      QUEUE_LIMIT=0)))
    b1 = rep.block(1)
    assert b1.data["n_429"] == 2                               # C and D: replica 0 and 1 each hold one already
    assert any("429" in line and "0: 1" in line for line in b1.lines)


# ── hand-checkable traces: disaggregation ───────────────────────────────────
def test_disagg_ships_the_kv_and_times_the_link():
    reqs = [req("A", "xin chao model", max_new=5)]
    lab, res = cluster(REQUESTS=reqs, FOLLOW="A", REPLICAS=2, DISAGG="on", KV_LINK_GBPS=0.1, KV_LINK_LATENCY_US=300)
    (tr,) = res.transfers
    a = res.done[0]
    assert (tr.source, tr.target, tr.positions) == (0, 1, len(a.ids))
    assert tr.bytes == tr.positions * LAB_KV_BYTES
    # 0.1 GB/s = 100 B/µs
    assert tr.arrive - tr.start == 300 + math.ceil(tr.bytes / 100) == transfer_micros(lab.cfg, tr.bytes)
    assert tr.start == a.token_times[0] and a.token_times[1] > tr.arrive
    assert res.served_by["A"] == {"prefill_replica": 0, "decode_replica": 1}
    kinds = [(it["replica"], e["kind"]) for it in res.log.items for e in it["events"] if e["kind"].startswith("kv_")]
    assert kinds == [(0, "kv_send"), (1, "kv_recv")]


def test_decode_replica_admits_only_when_it_can_take_the_blocks():
    # Pools of 6 blocks of 4: each request's KV takes 3 blocks; the first one decodes long enough to hold 4 or more
    # when the second arrives, so the second waits on the decode replica (a free slot, too few free blocks) until the
    # first finishes and gives its blocks back.
    reqs = [req("B", "model hoc token", max_new=12), req("A", "xin chao token", arrival=100, max_new=4)]
    _, res = cluster(REQUESTS=reqs, FOLLOW="A", REPLICAS=2, DISAGG="on", POOL_BLOCKS=6, SLOTS=2, MAX_CONTEXT=48)
    first, second = sorted(res.transfers, key=lambda t: t.admitted)
    assert first.positions > 8 and second.positions > 8          # 3 blocks each
    assert second.admitted >= first.seq.finish > second.arrive   # it waited for the first one's blocks
    waited = [e for it in res.log.items for e in it["events"] if e["kind"] == "kv_recv" and e["id"] == second.seq.id]
    assert waited[0]["waited"] == second.admitted - second.arrive > 0
    assert not res.replicas[1].log.noted("problem") and len(res.replicas[1].pool.free) == 6


def test_roofline_transfer_bytes_are_the_shadow_models():
    reqs = [req("A", "xin chao model", max_new=3)]
    _, res = cluster(REQUESTS=reqs, FOLLOW="A", REPLICAS=2, DISAGG="on", CLOCK="roofline")
    (tr,) = res.transfers
    assert tr.bytes == tr.positions * 131072                  # Llama-3.1-8B at 16 bits: 128 KiB per position


def test_disagg_text_says_what_vllm_says_with_the_runs_numbers():
    rep = run(Config.from_values(dict(REPLICAS=3, DISAGG="on", PREFILL_REPLICAS=1)), lang="en")
    co = rep.block(12).data["colocated"]
    lines = " ".join(rep.block(12).lines)
    assert "does NOT raise throughput" in lines and f"{co['disagg']['throughput']:.0f}" in lines
    assert rep.passed


# ── goodput ─────────────────────────────────────────────────────────────────
def test_goodput_counts_requests_meeting_both_slos():
    rep = run(Config.from_values(dict(REPLICAS=2, TTFT_SLO=10_000, TPOT_SLO=1_300)))
    g = rep.cluster["goodput"]
    rows = [m for m in rep.block(11).data["requests"] if m["status"] == "finished"]
    met = [m for m in rows if m["ttft"] <= 10_000 and (m["tpot"] is None or m["tpot"] <= 1_300)]
    assert (g["met"], g["served"]) == (len(met), len(rows)) and g["fraction"] == round(len(met) / len(rows), 4)
    assert percentile(list(range(1, 101)), 99) == 99 and goodput([], 1, 1)["fraction"] is None


# ── invariants, as properties ───────────────────────────────────────────────
@st.composite
def cluster_configs(draw):
    reqs = draw(st.lists(vllm_request(8, 20_000), min_size=1, max_size=6))
    for i, r in enumerate(reqs):
        r["id"] = "ABCDEF"[i]
        r.pop("priority", None)
    n = draw(st.integers(1, 4))
    values = dict(REQUESTS=reqs, FOLLOW=reqs[0]["id"], REPLICAS=n, ROUTER=draw(st.sampled_from(
        ["round_robin", "least_loaded", "prefix_aware"])), SLOTS=draw(st.integers(1, 3)),
        QUEUE_LIMIT=draw(st.integers(0, 3)), BLOCK_SIZE=draw(st.integers(1, 4)), POOL_BLOCKS=draw(st.integers(6, 20)),
        MAX_CONTEXT=48, PREFIX_CACHE=draw(st.sampled_from(["off", "on"])), TOKEN_BUDGET=draw(st.integers(2, 12)))
    if n > 1 and draw(st.booleans()):
        values.update(DISAGG="on", PREFILL_REPLICAS=draw(st.integers(1, n - 1)),
                      KV_LINK_LATENCY_US=draw(st.integers(0, 3000)))
    return values


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cluster_configs())
def test_cluster_invariants(values):
    cfg = Config.from_values(values)
    lab = Lab.build(cfg)
    res = run_cluster(lab, RunOptions("continuous", cfg.TOKEN_BUDGET))
    one = run_engine(Lab.build(Config.from_values(dict(values, REPLICAS=1, DISAGG="off"))),
                     RunOptions("continuous", cfg.TOKEN_BUDGET))
    assert same_text(res, one)                                          # routing never changes the text
    ids = [r.id for r in res.done + res.aborted] + [s.id for s, _ in res.rejected]
    assert sorted(ids) == sorted(r["id"] for r in values["REQUESTS"])   # each request ends exactly once
    for rid in ids:
        where = res.served_by[rid]
        assert set(where) in ({"replica"}, {"prefill_replica"}, {"prefill_replica", "decode_replica"})
        assert "decode_replica" not in where or res.replicas[where["decode_replica"]].role == "decode"
    for r in res.replicas:                                              # block invariants per replica
        assert not r.log.noted("problem") and sorted(r.pool.free) == list(range(cfg.POOL_BLOCKS))
    shipped, received = sum(r.shipped for r in res.replicas), sum(r.received for r in res.replicas)
    assert shipped == received == sum(t.bytes for t in res.transfers)   # KV shipped == received
    keys = [(it["start"], it["replica"]) for it in res.log.items]
    assert keys == sorted(keys)
    assert res.trace["parity"] <= 1e-9 and res.trace["gather"] <= 1e-9
