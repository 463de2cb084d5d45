"""Several engine replicas behind a router, and prefill/decode disaggregation with a KV transfer between them.

`run_cluster(lab, policy, budget_cap, check)` plays the trace on REPLICAS engines (1..8). Each replica is a full
`engine.Engine` with its own slots, KV pool, scheduler, run log and clock (`Replica`); the router (router.py)
sends each request to one of them when it arrives. The replicas run side by side on one simulated time line:
the loop always advances the replica whose clock is the earliest (ties: the lowest index) by one pass of the
engine's loop (gateway → scheduler → one step), and routes a request as soon as every busy replica's clock has
reached its arrival, so the router sees each replica as of its latest step boundary at or after the arrival
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
from dataclasses import dataclass, field

from ..serving.engine import MAX_ITERATIONS, Engine, EngineResult
from ..clock.hardware import shadow_model
from ..model.model import D_HEAD, N_HEADS
from ..serving.replay import ReplayEngine
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


class Role:
    """What makes an engine a replica of the cluster: its role ("both" without disaggregation, "prefill" or
    "decode"), its pending arrivals, its KV inbox and its pass-by-pass loop. Mixed into Engine (`Replica`) and into
    the clock-only ReplayEngine (`ReplayReplica`, the other policies of a generated workload: blocks, no K/V)."""

    def join(self, index: int, role: str, kv_bytes: int) -> None:
        self.index, self.role, self.kv_bytes = index, role, kv_bytes
        self.pending = []          # requests the router sent here, not looked at yet
        self.limits = ()           # times it must not idle past (the next arrival, the prefill replicas' clocks)
        self.inbox = []            # [Transfer] on the link or arrived, not admitted yet (decode role)
        self.sent = []             # [(seq, K, V, kv_send event)] handed off during the last step (prefill role)
        self.busy_us, self.shipped, self.received = 0, 0, 0

    @property
    def busy(self) -> bool:
        return bool(self.pending or self.waiting or self.running or self.inbox)

    def outstanding(self, prompt_len: dict) -> int:
        """Tokens still to compute here: prompt left + tokens still to generate (up to max_new), of every request."""
        seqs = self.pending + self.waiting + self.running + [t.seq for t in self.inbox]
        return sum((s.num_prefill_left if s.prefill_ids else prompt_len.get(s.id, 0)) + s.max_new - len(s.out)
                   for s in seqs)

    def iterate(self) -> None:
        """One pass of Engine.run's loop: arrivals, arrived KV, the scheduler, then one step (or idle time)."""
        self.pool.current_step = self.log.count + 1
        self.take_arrivals()
        self.take_transfers()
        _, room, check = self.schedule()
        if not self.running:
            self.skip_idle_time()
            return
        self.log.boundary(self, room, check)
        start = self.now
        self.run_step()
        self.busy_us += self.now - start

    def skip_idle_time(self) -> None:
        """Engine.skip_idle_time, with the arriving KV, and never past a limit the cluster set."""
        cancels = [w.cancel_at for w in self.waiting if w.cancel_at is not None]
        upcoming = [t for t in [r.arrival for r in self.pending] + [w.ready for w in self.waiting] + cancels
                    + [t.arrive for t in self.inbox] if t > self.now]
        if upcoming:
            self.now = min(upcoming + [t for t in self.limits if t is not None and t > self.now])

    # ── disaggregation ─────────────────────────────────────────────────────
    def take_token(self, seq, token: int, t: int) -> None:
        super().take_token(seq, token, t)
        if self.role == "prefill" and seq.reason is None:
            self.hand_off(seq)

    def hand_off(self, seq) -> None:
        """The prompt is done and the first token sampled: gather the KV, give the blocks back, leave."""
        K, V = (None, None) if self.replaying else self.pool.gather(seq)
        if self.check:
            self.check_against_recompute(seq)
        nbytes = seq.cached * self.kv_bytes
        self.log.event("kv_send", id=seq.id, blocks=list(seq.block_table), positions=seq.cached, bytes=nbytes)
        self.shipped += nbytes
        self.pool.release(seq)
        self.running.remove(seq)
        self.sent.append((seq, K, V, self.log.new[-1]))

    def take_transfers(self) -> None:
        """Admit arrived KV (oldest first) while a slot and blocks for all its positions are free."""
        bs = self.cfg.BLOCK_SIZE
        for tr in sorted((t for t in self.inbox if t.arrive <= self.now), key=lambda t: (t.arrive, t.seq.arrival)):
            if len(self.running) >= self.cfg.SLOTS or len(self.pool.free) < -(-tr.positions // bs):
                break
            seq = tr.seq
            self.inbox.remove(tr)
            seq.cached, seq.block_table = 0, []
            if self.replaying:
                self.pool.reserve(seq, tr.positions)
            else:
                self.pool.write(seq, tr.K, tr.V)
            self.running.append(seq)
            tr.admitted, self.received = self.now, self.received + tr.bytes
            self.log.event("kv_recv", id=seq.id, blocks=list(seq.block_table), positions=tr.positions, bytes=tr.bytes,
                           source=tr.source, sent=tr.start, arrived=tr.arrive, waited=self.now - tr.arrive)




class Replica(Role, Engine):
    replaying = False

    def __init__(self, lab, policy, budget_cap, check, prefix_cache, index: int, role: str, kv_bytes: int, tokens=None,
                 spec=None):
        Engine.__init__(self, lab, policy, budget_cap, check, prefix_cache, spec)
        self.join(index, role, kv_bytes)


class ReplayReplica(Role, ReplayEngine):
    replaying = True

    def __init__(self, lab, policy, budget_cap, check, prefix_cache, index: int, role: str, kv_bytes: int, tokens=None,
                 spec=None):
        ReplayEngine.__init__(self, lab, policy, budget_cap, tokens, prefix_cache)
        self.join(index, role, kv_bytes)


@dataclass(slots=True)
class ClusterResult(EngineResult):
    replicas: list = field(default_factory=list)      # the Replica engines, by index
    routes: list = field(default_factory=list)        # the router's decisions, in arrival order
    transfers: list = field(default_factory=list)     # [Transfer] in the order they started
    served_by: dict = field(default_factory=dict)     # request id -> {"replica"} or {"prefill_replica", "decode_replica"}


class Cluster:
    def __init__(self, lab, policy: str, budget_cap: int | None, check: bool = True, prefix_cache: bool | None = None,
                 tokens: dict | None = None, spec: str | None = None):
        cfg = self.cfg = lab.cfg
        self.lab = lab
        n = cfg.REPLICAS
        p = cfg.PREFILL_REPLICAS if cfg.DISAGG == "on" else 0
        roles = ["prefill"] * p + ["decode"] * (n - p) if p else ["both"] * n
        kv = kv_bytes_per_position(cfg, lab.tokenizer.vocab_size)
        kind = Replica if tokens is None else ReplayReplica         # replay: one token dict shared by the replicas
        self.replicas = [kind(lab, policy, budget_cap, check, prefix_cache, i, role, kv, tokens, spec)
                         for i, role in enumerate(roles)]
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
        self.replicas[d["replica"]].pending.append(seq)

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
            tell(sum(r.log.count for r in reps), sum(len(r.done) + len(r.rejected) + len(r.aborted) for r in reps),
                 len(self.cfg.REQUESTS))

    def run(self) -> ClusterResult:
        for _ in range(MAX_ITERATIONS * len(self.replicas)):
            nxt = self.unrouted[0].arrival if self.unrouted else None
            busy = [r for r in self.replicas if r.busy]
            if nxt is not None and (not busy or nxt <= min(r.now for r in busy)):
                self.route(self.unrouted.pop(0))
                continue
            if not busy:
                break
            r = min(busy, key=lambda x: (x.now, x.index))
            feeders = [x.now for x in busy if x.role == "prefill"] if r.role == "decode" else []
            r.limits = (nxt, *feeders)
            r.iterate()
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
        order = sorted(((it["start"], r.index, k) for r in reps for k, it in enumerate(r.log.items)))
        number = {(ri, k): n for n, (_, ri, k) in enumerate(order)}         # (replica, local step) -> global index
        log = RunLog(self.cfg)
        log.items = [dict(reps[ri].log.items[k], replica=ri) for _, ri, k in order]
        log.after = [dict(e, replica=r.index) for r in reps for e in r.log.after]
        follow = self.served_by.get(self.cfg.FOLLOW, {})
        shown = reps[follow.get("decode_replica", follow.get("replica", follow.get("prefill_replica", 0)))]
        renumber_pool(shown.pool, shown.index, shown.log.count, number, len(order))
        all_of = lambda name: [x for r in reps for x in getattr(r, name)]      # noqa: E731
        by_arrival = {s.id: i for i, s in enumerate(sorted(all_of("done") + all_of("aborted")
                                                          + [s for s, _ in all_of("rejected")], key=lambda s: s.arrival))}
        return ClusterResult(sorted(all_of("done"), key=lambda s: s.id),
                             sorted(all_of("rejected"), key=lambda x: by_arrival[x[0].id]),
                             sorted(all_of("decisions"), key=lambda d: by_arrival[d.request]),
                             merged_trace([r.trace for r in reps]), shown.pool, max(r.now for r in reps), log,
                             sorted(all_of("aborted"), key=lambda s: s.id), reps, self.routes, self.transfers,
                             self.served_by)


def renumber_pool(pool, index: int, count: int, number: dict, total: int) -> None:
    """The pool's 1-based local step numbers as the merged log's step numbers."""
    glob = lambda s: s if s is None else (number[(index, s - 1)] + 1 if s - 1 < count else total + 1)  # noqa: E731
    pool.peak["step"] = glob(pool.peak["step"])
    pool.hits = [(glob(st), *rest) for st, *rest in pool.hits]
    pool.evictions = [(glob(st), *rest) for st, *rest in pool.evictions]
    pool.problems = [(glob(st), code) for st, code in pool.problems]


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


def run_cluster(lab, policy: str, budget_cap: int | None, check: bool = True, prefix_cache: bool | None = None,
                tokens: dict | None = None, spec: str | None = None) -> ClusterResult:
    """One run of the trace on the cluster (REPLICAS, ROUTER, DISAGG); the EngineResult of all replicas together.
    With `tokens` (replay.recorded(main run)) every replica is a clock-only ReplayEngine taking its tokens from them;
    `spec` overrides SPEC_METHOD as in engine.run_engine."""
    return Cluster(lab, policy, budget_cap, check, prefix_cache, None if tokens is None else dict(tokens), spec).run()
