"""The top-level `cluster` of a report: replicas, router decisions, KV transfers and goodput (plain JSON).

    {"replicas": [{"id", "role", "served", "busy_us", "utilization", "kv_peak", "prefix_hits", "steps",
                   "ttft": {"p50", "p90", "p99"}, "tpot": {...}, "shipped", "received"}],
     "router":   {"policy", "w_prefix", "w_load", "decisions": [{request, replica, policy, blocks, cached, load,
                   outstanding, loads, arrival}]},
     "disagg":   null | {"prefill", "decode" (replica ids), "link_gbps", "latency_us", "kv_bytes_per_position",
                   "transfers": [{request, from, to, start, arrive, admitted, positions, bytes, waited_for ("slot" |
                   "blocks" | null: why it waited on the decode replica)}], "shipped", "received"},
     "goodput":  {"ttft_slo", "tpot_slo", "met", "served", "fraction", "per_s"},
     "ttft", "tpot": {"p50", "p90", "p99"} over the whole cluster,
     "span": µs from the first arrival to the last finish, "end": the last step's end,
     "shown": the replica whose pool blocks [6] and [10] show (the followed request's)}

`served` = finished requests the replica worked on (prefilled or decoded); `busy_us` = the sum of its steps'
durations, `utilization` = busy_us ÷ end; `kv_peak` = the most blocks in use at once; `prefix_hits` = prompt
tokens its served or cancelled requests took from its prefix cache when first admitted (vLLM's
request.num_cached_tokens: a recompute after a preemption does not count). A single engine (REPLICAS = 1, DISAGG =
off) reports itself as replica 0 with an empty decision list. Block [11]'s requests carry `replica` (or
`prefill_replica` and `decode_replica`) only when the run has a cluster (`placement`).

Leaves out: the words (words/text_cluster.py), the steps (report.steps carries `replica` per item).
"""
from __future__ import annotations

from dataclasses import replace

from ..core.cluster.cluster import run_cluster
from ..core.serving.engine import RunOptions
from ..core.cluster.goodput import goodput, percentile, spread
from ..core.serving.metrics import request_metrics, summarize
from ..core.serving.replay import recorded
from ..core.cluster.router import W_LOAD, W_PREFIX


def is_cluster(cfg) -> bool:
    """True when the run has more than one engine (REPLICAS > 1 or DISAGG = on): the cluster's view and keys."""
    return cfg.REPLICAS > 1 or cfg.DISAGG == "on"


def replica_rows(main, cfg) -> list[dict]:
    engines = getattr(main, "replicas", None) or [None]
    placed = getattr(main, "served_by", {})
    end = max(main.end, 1)
    rows = []
    for i, eng in enumerate(engines):
        pool, log = (eng.pool, eng.log) if eng else (main.pool, main.log)
        where = lambda r, *keys: not eng or any(placed.get(r.id, {}).get(k) == i for k in keys)   # noqa: E731
        mine = [r for r in main.done if where(r, "replica", "prefill_replica", "decode_replica")]
        first = [r for r in mine if where(r, "replica", "prefill_replica")]      # its TTFT was made here
        later = [r for r in mine if where(r, "replica", "decode_replica")]       # its TPOT was made here
        busy = sum(it["end"] - it["start"] for it in log.items)                    # the sum of its steps' durations
        hits = sum(r.num_cached_tokens or 0 for r in main.done + main.aborted if where(r, "replica", "prefill_replica"))
        rows.append(dict(id=i, role=eng.role if eng else "both", served=len(mine), busy_us=busy,
                         utilization=round(busy / end, 4), kv_peak=pool.peak_used, prefix_hits=hits,
                         steps=log.count, ttft=spread([request_metrics(r)["ttft"] for r in first]),
                         tpot=spread([t for r in later if (t := request_metrics(r)["tpot"]) is not None]),
                         shipped=eng.shipped if eng else 0, received=eng.received if eng else 0))
    return rows


def cluster_data(lab, main) -> dict:
    cfg = lab.cfg
    per = [request_metrics(r) for r in main.done]
    transfers = [dict(t.to_dict(), waited_for=waited_for(main, cfg, t)) for t in getattr(main, "transfers", [])]
    disagg = None
    if cfg.DISAGG == "on":
        roles = [r.role for r in main.replicas]
        disagg = dict(prefill=[i for i, r in enumerate(roles) if r == "prefill"],
                      decode=[i for i, r in enumerate(roles) if r == "decode"], link_gbps=cfg.KV_LINK_GBPS,
                      latency_us=cfg.KV_LINK_LATENCY_US, kv_bytes_per_position=main.replicas[0].kv_bytes,
                      transfers=transfers, shipped=sum(r.shipped for r in main.replicas),
                      received=sum(r.received for r in main.replicas))
    span = (max(r.finish for r in main.done) - min(r.arrival for r in main.done)) if main.done else 0
    return dict(replicas=replica_rows(main, cfg), shown=shown_replica(main, cfg),
                router=dict(policy=cfg.ROUTER, w_prefix=W_PREFIX, w_load=W_LOAD, decisions=getattr(main, "routes", [])),
                disagg=disagg, goodput=goodput(main.done, cfg.TTFT_SLO, cfg.TPOT_SLO),
                ttft=spread([m["ttft"] for m in per]), tpot=spread([m["tpot"] for m in per if m["tpot"] is not None]),
                span=span, end=main.end)


def shown_replica(main, cfg) -> int:
    """The replica whose pool blocks [6] and [10] show: the followed request's (its decode replica under DISAGG = on),
    as core/cluster.py's ClusterResult picks its `pool`; replica 0 when the followed request was not placed."""
    follow = getattr(main, "served_by", {}).get(cfg.FOLLOW, {})
    return follow.get("decode_replica", follow.get("replica", follow.get("prefill_replica", 0)))


def waited_for(main, cfg, t) -> str | None:
    """Why an arrived transfer waited on its decode replica: "slot" when some step of that replica in the wait ran
    SLOTS sequences (no free slot), else "blocks" (the pool had too few free blocks, or an older transfer did);
    None when it was admitted at once."""
    if t.admitted is None or t.admitted <= t.arrive:
        return None
    items = main.replicas[t.target].log.items
    full = any(t.arrive <= it["start"] < t.admitted and len(it["running"]) >= cfg.SLOTS for it in items)
    return "slot" if full else "blocks"


def largest_gap(done: list) -> dict | None:
    """The largest gap between two consecutive tokens of one request (the largest ITL): who, after which token,
    how long."""
    best = None
    for r in done:
        for i, (a, b) in enumerate(zip(r.token_times, r.token_times[1:])):
            if best is None or b - a > best["us"]:
                best = dict(request=r.id, after=i + 1, us=b - a, at=a)
    return best


def placement(main, requests: list[dict]) -> list[dict]:
    """Block [11]'s request rows with the replica(s) each request went to (cluster runs only)."""
    placed = main.served_by
    return [dict(r, **placed.get(r["id"], {})) for r in requests]


def cluster_checks(main) -> list:
    """The cluster's invariants: one replica (or one prefill + one decode) per request, every replica's pool returned
    and sound, KV shipped == KV received."""
    from .report import Check
    placed, reps = main.served_by, main.replicas
    ids = [r.id for r in main.done + main.aborted] + [s.id for s, _ in main.rejected]
    one = all(len(set(ids)) == len(ids) and set(placed.get(i, {})) in ({"replica"}, {"prefill_replica"},
                                                                        {"prefill_replica", "decode_replica"})
              for i in ids)
    pools = all(len(r.pool.free) == r.pool.num_blocks and not r.log.noted("problem") for r in reps)
    sent = sum(r.shipped for r in reps)
    return [Check("one_replica", one), Check("replica_pools", pools),
            Check("kv_shipped", sent == sum(r.received for r in reps) == sum(t.bytes for t in main.transfers))]


def headline(done: list) -> dict:
    """TTFT p99, TPOT p99, the largest gap between two tokens and the throughput of one run."""
    S = summarize(done)
    per = list(S["per"].values())
    return dict(ttft_p99=percentile([m["ttft"] for m in per], 99),
                tpot_p99=percentile([m["tpot"] for m in per if m["tpot"] is not None], 99),
                worst_gap=S["worst_gap"], throughput=S["throughput"], served=len(done))


def colocated(lab, main) -> dict:
    """Block [12] under DISAGG = on: this run against the same replicas with DISAGG = off (same router, same trace)."""
    cfg = replace(lab.cfg, DISAGG="off")
    tokens = recorded(main) if cfg.WORKLOAD_REQUESTS and cfg.SPEC_METHOD == "off" else None   # clock-only replay
    other = run_cluster(replace(lab, cfg=cfg), RunOptions("continuous", cfg.TOKEN_BUDGET, check=False, tokens=tokens))
    return dict(disagg=dict(headline(main.done), gap=largest_gap(main.done)), colocated=headline(other.done))
