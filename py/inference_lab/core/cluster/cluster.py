"""Several engine replicas behind a router, and prefill/decode disaggregation with a KV transfer between them.

`run_cluster(lab, options)` plays the trace on REPLICAS engines (1..8). Each replica is a full `engine.Engine` with
its own slots, KV pool, scheduler, run log and clock, holding a `Replica` part (role, KV inbox); the router (router.py)
sends each request to one of them when it arrives. The replicas run side by side on one simulated time line:
the loop always advances the replica whose clock is the earliest (ties: the lowest index) by one pass of the
engine's loop (`Engine.iterate`: gateway → scheduler → one step), and routes a request as soon as every busy
replica's clock has reached its arrival, so the router sees each replica as of its latest step boundary at or
after the arrival
(a replica in the middle of a step reports when that step ends, as an engine's metrics do). A replica never
skips idle time past the next arrival, so REPLICAS = 1 plays exactly the single engine's steps.

Disaggregation (DISAGG = on; vLLM "Disaggregated Prefilling", DistServe, Splitwise, Mooncake): replicas
0 .. PREFILL_REPLICAS − 1 prefill, the rest decode. The router chooses among the prefill replicas. A prefill
replica computes the prompt and samples the first token (its TTFT, as in DistServe), then ships the request's
KV: it gathers the K/V of every cached position, gives its blocks back (event "kv_send") and the transfer takes

    KV_LINK_LATENCY_US + KV bytes ÷ KV_LINK_GBPS      KV bytes = positions × bytes per position

(bytes per position of SHADOW_MODEL at KV_BITS under CLOCK = roofline, of the lab's own float64 model
otherwise). The decode replica is chosen when the transfer starts: round robin over the decode replicas under
ROUTER = round_robin, the fewest outstanding tokens otherwise (the prompt's blocks are on no decode replica yet).
A decode replica admits an arrived transfer at a step boundary only when it has a free slot and free blocks for
all its positions (first come first served; the first that does not fit stops the others, as vLLM's waiting
loop), writes the K/V into its own blocks (event "kv_recv") and decodes from the next token on. A request whose
first token ends it (EOS or max_new = 1) never leaves its prefill replica.

Leaves out: the prefill instance holding its blocks until the decode instance has read them (vLLM's NIXL
connector frees them after the read; here they are freed when the transfer starts), layer-by-layer transfer
overlapped with prefill (Mooncake), link contention between transfers (each has the whole link), a cancel
during the transfer (it takes effect on the decode replica), replicas of different sizes or GPUs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from ..serving.decode_batch import DecodeBatch
from ..serving.engine import Engine, EngineResult, RunOptions, iteration_limit
from ..clock.hardware import shadow_model
from ..model.model import D_HEAD, N_HEADS
from ..serving.replay import ReplayEngine, clock_only
from .router import Router
from ..serving.run_log import RunLog
from ..serving.sequence import Sequence

LAB_KV_BYTES = 2 * N_HEADS * D_HEAD * 8          # K and V of one position of the lab's float64 model


def kv_bytes_per_position(cfg, vocab: int) -> int:
    """Bytes the link carries per cached position: the shadow model's under CLOCK = roofline, else the lab's."""
    if cfg.CLOCK == "roofline":
        return shadow_model(cfg.SHADOW_MODEL, vocab).kv_bytes_per_token(cfg.KV_BITS)
    return LAB_KV_BYTES


def transfer_micros(cfg, nbytes: int) -> int:
    """latency + bytes ÷ bandwidth in whole µs (GB/s = 10^3 bytes per µs), rounded up.

    >>> from types import SimpleNamespace as NS
    >>> transfer_micros(NS(KV_LINK_LATENCY_US=200, KV_LINK_GBPS=50.0), 131072 * 1000)
    2822
    """
    return cfg.KV_LINK_LATENCY_US + math.ceil(nbytes / (cfg.KV_LINK_GBPS * 1e3))


@dataclass(slots=True)
class Transfer:
    """One request's KV on the link from a prefill replica to a decode replica."""
    seq: Sequence
    K: object                    # (heads, positions, d_head)
    V: object
    source: int
    target: int
    start: int
    arrive: int
    positions: int
    bytes: int
    admitted: int | None = None

    def to_dict(self) -> dict:
        return {"request": self.seq.id, "from": self.source, "to": self.target, "start": self.start,
                "arrive": self.arrive, "admitted": self.admitted, "positions": self.positions, "bytes": self.bytes}


class Replica:
    """What makes an engine one replica of the cluster (the engine's `replica` part): its index, its role ("both"
    without disaggregation, "prefill" or "decode"), its KV inbox and its hand-offs. The engine is a full
    engine.Engine, or a clock-only replay.ReplayEngine (the other policies of a generated workload: blocks, no K/V);
    the router puts requests in its `pending`, the cluster calls its `iterate()`."""

    def __init__(self, engine, index: int, role: str, kv_bytes: int):
        self.engine, self.index, self.role, self.kv_bytes = engine, index, role, kv_bytes
        self.limits = ()           # times it must not idle past (the next arrival, the prefill replicas' clocks)
        self.inbox = []            # [Transfer] on the link or arrived, not admitted yet (decode role)
        self.sent = []             # [(seq, K, V, kv_send event)] handed off during the last step (prefill role)
        self.shipped, self.received = 0, 0
        engine.replica = self

    # the engine's parts, as a reader of the cluster names them
    pool = property(lambda self: self.engine.pool)
    log = property(lambda self: self.engine.log)
    now = property(lambda self: self.engine.now)
    busy = property(lambda self: self.engine.busy)

    def outstanding(self, prompt_len: dict) -> int:
        """Tokens still to compute here: prompt left + tokens still to generate (up to max_new), of every request."""
        e = self.engine
        seqs = e.pending + e.waiting + e.running + [t.seq for t in self.inbox]
        return sum((s.num_prefill_left if s.prefill_ids else prompt_len.get(s.id, 0)) + s.max_new - len(s.out)
                   for s in seqs)

    def arriving(self) -> list[int]:
        """When the KV on the link arrives (the engine does not idle past it: Engine.skip_idle_time)."""
        return [t.arrive for t in self.inbox]

    # ── disaggregation ─────────────────────────────────────────────────────
    def took_token(self, seq) -> None:
        """A token that did not end `seq` (Engine.take_token): on a prefill replica, the first one: hand off."""
        if self.role == "prefill":
            self.hand_off(seq)

    def hand_off(self, seq) -> None:
        """The prompt is done and the first token sampled: gather the KV, give the blocks back, leave."""
        e = self.engine
        K, V = (None, None) if e.replaying else e.pool.gather(seq)
        if e.check:
            e.check_against_recompute(seq)
        nbytes = seq.cached * self.kv_bytes
        e.log.event("kv_send", id=seq.id, blocks=list(seq.block_table), positions=seq.cached, bytes=nbytes)
        self.shipped += nbytes
        e.pool.release(seq)
        e.running.remove(seq)
        self.sent.append((seq, K, V, e.log.new[-1]))

    def take_transfers(self) -> None:
        """Admit arrived KV (oldest first) while a slot and blocks for all its positions are free."""
        if not self.inbox:                       # nothing on the link (every colocated replica, most steps)
            return
        e, bs = self.engine, self.engine.cfg.BLOCK_SIZE
        for tr in sorted((t for t in self.inbox if t.arrive <= e.now), key=lambda t: (t.arrive, t.seq.arrival)):
            if len(e.running) >= e.cfg.SLOTS or len(e.pool.free) < -(-tr.positions // bs):
                break
            seq = tr.seq
            self.inbox.remove(tr)
            seq.cached, seq.block_table = 0, []
            if e.replaying:
                e.pool.reserve(seq, tr.positions)
            else:
                if seq.stand_in_skip:            # a long prompt's stand-in: blocks first, then the model's K/V
                    e.pool.reserve(seq, seq.stand_in_skip)
                e.pool.write(seq, tr.K, tr.V)
            e.running.append(seq)
            tr.admitted, self.received = e.now, self.received + tr.bytes
            e.log.event("kv_recv", id=seq.id, blocks=list(seq.block_table), positions=tr.positions, bytes=tr.bytes,
                        source=tr.source, sent=tr.start, arrived=tr.arrive, waited=e.now - tr.arrive)


@dataclass(slots=True)
class ClusterResult(EngineResult):
    replicas: list = field(default_factory=list)      # the Replica engines, by index
    routes: list = field(default_factory=list)        # the router's decisions, in arrival order
    transfers: list = field(default_factory=list)     # [Transfer] in the order they started
    served_by: dict = field(default_factory=dict)     # request id -> {"replica"}
    #                                                   or {"prefill_replica", "decode_replica"}


class Cluster:
    def __init__(self, lab, options: RunOptions):
        cfg = self.cfg = lab.cfg
        self.lab = lab
        n = cfg.REPLICAS
        p = cfg.PREFILL_REPLICAS if cfg.DISAGG == "on" else 0
        roles = ["prefill"] * p + ["decode"] * (n - p) if p else ["both"] * n
        kv = kv_bytes_per_position(cfg, lab.tokenizer.vocab_size)
        kind = ReplayEngine if clock_only(options) else Engine      # replay: one token dict shared by the replicas
        self.replicas = [Replica(kind(lab, options, requests=[]), i, role, kv) for i, role in enumerate(roles)]
        batch = DecodeBatch(lab, [r.engine for r in self.replicas])   # every replica's decodes in one stacked pass
        for r in self.replicas:
            r.engine.batch = batch
        front = [r.index for r in self.replicas if r.role != "decode"]
        back = [r.index for r in self.replicas if r.role == "decode"]
        self.router = Router(cfg.ROUTER, len(front), cfg.BLOCK_SIZE, front)
        self.decode_router = (Router("round_robin" if cfg.ROUTER == "round_robin" else "least_loaded", len(back),
                                     cfg.BLOCK_SIZE, back) if back else None)
        self.unrouted = sorted([Sequence.from_request(r) for r in cfg.REQUESTS], key=lambda r: r.arrival)
        self.prompt_len, self.ids_of = {}, {}
        self.routes, self.transfers, self.served_by = [], [], {}

    def prompt_ids(self, text: str) -> list[int]:
        """The prompt's token ids as the router sees them ([] when the tokenizer refuses the text: 400 later)."""
        if text not in self.ids_of:
            tok = self.lab.tokenizer
            self.ids_of[text] = [] if tok.unknown(text) else tok.encode(text)[1]
        return self.ids_of[text]

    def route(self, seq: Sequence) -> None:
        ids = self.prompt_ids(seq.text)
        self.prompt_len[seq.id] = len(ids)
        loads = [self.replicas[i].outstanding(self.prompt_len) for i in self.router.ids]
        d = self.router.choose(seq.id, ids, loads)
        self.routes.append(dict(d, arrival=seq.arrival))
        key = "prefill_replica" if self.decode_router else "replica"
        self.served_by[seq.id] = {key: d["replica"]}
        self.replicas[d["replica"]].engine.pending.append(seq)

    def ship(self, replica: Replica) -> None:
        """The KV handed off during the replica's last step goes on the link to a decode replica."""
        for seq, K, V, event in replica.sent:
            loads = [self.replicas[i].outstanding(self.prompt_len) for i in self.decode_router.ids]
            target = self.decode_router.choose(seq.id, [], loads)["replica"]
            start = seq.token_times[0]
            tr = Transfer(seq, K, V, replica.index, target, start, start + transfer_micros(self.cfg, event["bytes"]),
                          event["positions"], event["bytes"])
            event.update(to=target, arrive=tr.arrive)
            self.transfers.append(tr)
            self.replicas[target].inbox.append(tr)
            self.served_by[seq.id]["decode_replica"] = target
        replica.sent = []

    def tell_progress(self) -> None:
        """(steps, requests settled, requests) of the whole cluster to `lab.progress`, as Engine.tell_progress."""
        tell = getattr(self.lab, "progress", None)
        if tell is not None:
            reps = self.replicas
            tell(sum(r.log.count for r in reps), sum(len(r.engine.done) + len(r.engine.rejected) + len(r.engine.aborted)
                                                     for r in reps), len(self.cfg.REQUESTS))

    def run(self) -> ClusterResult:
        for _ in range(iteration_limit(self.cfg.REQUESTS) * len(self.replicas)):
            nxt = self.unrouted[0].arrival if self.unrouted else None
            busy = [r for r in self.replicas if r.engine.busy]
            r = min(busy, key=lambda x: (x.engine.now, x.index)) if busy else None   # the earliest clock
            if nxt is not None and (r is None or nxt <= r.engine.now):
                self.route(self.unrouted.pop(0))
                continue
            if r is None:
                break
            feeders = [x.now for x in busy if x.role == "prefill"] if r.role == "decode" else []
            r.limits = (nxt, *feeders)
            r.engine.iterate()
            if r.sent:
                self.ship(r)
            self.tell_progress()
        else:
            raise RuntimeError("cluster did not finish within MAX_ITERATIONS")
        for r in self.replicas:
            r.log.close()
        return self.result()

    def result(self) -> ClusterResult:
        reps = self.replicas
        log = RunLog.merged(self.cfg, [r.log for r in reps])
        follow = self.served_by.get(self.cfg.FOLLOW, {})
        shown = reps[follow.get("decode_replica", follow.get("replica", follow.get("prefill_replica", 0)))]
        all_of = lambda name: [x for r in reps for x in getattr(r.engine, name)]      # noqa: E731
        by_arrival = {s.id: i for i, s in enumerate(sorted(
            all_of("done") + all_of("aborted") + [s for s, _ in all_of("rejected")], key=lambda s: s.arrival))}
        return ClusterResult(sorted(all_of("done"), key=lambda s: s.id),
                             sorted(all_of("rejected"), key=lambda x: by_arrival[x[0].id]),
                             sorted(all_of("decisions"), key=lambda d: by_arrival[d.request]),
                             merged_trace([r.engine.trace for r in reps]), shown.pool, max(r.now for r in reps), log,
                             sorted(all_of("aborted"), key=lambda s: s.id), shown.index, reps, self.routes,
                             self.transfers, self.served_by)


def merged_trace(traces: list[dict]) -> dict:
    out = dict(first_sample={}, last_prefill={}, first_decode={}, parity=0.0, gather=0.0, positions_cached=0,
               positions_naive=0)
    for tr in traces:
        for key in ("first_sample", "last_prefill", "first_decode"):
            for rid, v in tr[key].items():
                out[key].setdefault(rid, v)
        out["parity"], out["gather"] = max(out["parity"], tr["parity"]), max(out["gather"], tr["gather"])
        out["positions_cached"] += tr["positions_cached"]
        out["positions_naive"] += tr["positions_naive"]
    return out


def run_cluster(lab, options: RunOptions) -> ClusterResult:
    """One run of the trace on the cluster (REPLICAS, ROUTER, DISAGG) as `options` say (engine.RunOptions); the
    EngineResult of all replicas together. With `options.tokens` (replay.recorded(main run)) every replica is a
    clock-only ReplayEngine taking its tokens from them; with `options.timing_only`, placeholders."""
    tokens = options.tokens
    return Cluster(lab, options if tokens is None else replace(options, tokens=tokens.copy())).run()
