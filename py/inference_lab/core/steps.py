"""[3] The step record: the state and the decisions of every step of the main run, kept for scrubbing.

The engine of the run every block reads (continuous batching + chunked prefill) calls a
`StepRecorder` twice per step: `boundary()` once the gateway and the scheduler have run (the
queue and the slots as the step starts, who was just admitted and by which check) and
`step_done()` once the step's tasks ran (chunks, first tokens, finished and preempted sequences,
the KV pool after the step). Nothing is re-run later: the page and `--steps` read the record.

Each step is one small plain-JSON dict (`StepRecorder.to_dict()["items"][i]`):

    start, end      simulated µs
    waiting         [[id, why, preemptions]] in queue order; why = the check that keeps it waiting:
                    "preparing" (input preparation not done), "no_slot" (every slot runs),
                    "group_running" / "group_incomplete" (static batching; not in the main run),
                    "room_rule" (an edited scheduler.admission_room said 0 although a slot is free)
    running         [[id, phase, done, total, generated, preemptions]] as the step starts: phase
                    "prefill" | "decode", prompt tokens done / total (prompt + generated when
                    recomputing after a preemption)
    tasks           [[id, phase, n]] the tasks that ran (decodes first, then prompt chunks)
    budget          [used, cap]: tokens of the tasks that ran and TOKEN_BUDGET
    tables          {id: [physical block, ...]} every block table after the step
    free            the free blocks after the step (sorted) as inclusive ranges [[first, last], ...]
    cached_free     the free blocks that still hold a prefix-cache hash, as ranges (PREFIX_CACHE=on)
    alloc, freed    physical blocks taken / given back during the step
    reused          blocks taken back from the prefix cache at this step's boundary (not in alloc)
    events          [{"kind": ...}] in this order: "arrive" (gateway and input decisions),
                    "abort" (cancel_at passed: out of waiting or running), "admit",
                    "overtake" (SCHED_POLICY=priority admitted it before earlier ready requests),
                    "cache_hit" (prompt tokens whose K/V came from the prefix cache), "budget" (a
                    prompt got fewer tokens than it has left), "chunk", "preempt", "first" (first
                    token), "finish"

A block's owner is the id whose table holds it; with the prefix cache on, a full block can be in
several tables at once (shared). The record also names the run's `sched_policy` and, under
"priority", every request's `priority_key` [priority, arrival] (scheduler.priority_key). The record of a 1,000-step run stays small: per step
only ids, small ints and the tables (BLOCK_SIZE 1 makes them longest).

    >>> free_ranges([0, 1, 2, 5, 7, 8])
    [[0, 2], [5, 5], [7, 8]]
    >>> expand_ranges([[0, 2], [5, 5], [7, 8]])
    [0, 1, 2, 5, 7, 8]

Leaves out: the sentences (text_steps.py, text_steps_vi.py, text_steps_en.py), block [12]'s comparison runs (not recorded), the K/V
numbers themselves, the sampled tokens (block [8] shows them).
"""
from __future__ import annotations

import numpy as np


def free_ranges(free: list[int]) -> list[list[int]]:
    """Sorted block numbers as inclusive [first, last] runs."""
    if not free:
        return []
    a = np.asarray(free)                                  # (n,)
    cut = np.flatnonzero(np.diff(a) != 1)                 # last index of every run but the final one
    firsts, lasts = np.r_[a[0], a[cut + 1]], np.r_[a[cut], a[-1]]
    return [[int(lo), int(hi)] for lo, hi in zip(firsts, lasts)]


def expand_ranges(ranges: list) -> list[int]:
    return [b for lo, hi in ranges for b in range(lo, hi + 1)]


class StepRecorder:
    """Collects one dict per executed step; events between two steps belong to the next step."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.items = []
        self.after = []            # events after the last step (a late request refused 400)
        self.events = []           # events waiting for the next recorded step
        self.start = None          # the snapshot taken at the latest boundary
        self.owners = set()        # (id, physical block) held after the last recorded step
        self.seen = dict(decisions=0, preemptions=0, released=0, aborts=0, overtakes=0, hits=0)
        self.from_cache = {}       # id -> prompt tokens it took from the prefix cache when last admitted

    # ── engine hooks ───────────────────────────────────────────────────────
    def boundary(self, engine, admitted: list, room: int, check: str) -> None:
        """After the gateway and the scheduler ran; `room` and `check` as scheduler.admission_check said."""
        self.events += self.arrivals(engine) + self.aborts(engine)
        self.events += [dict(kind="admit", id=s.id, why=check, room=room) for s in admitted]
        self.events += self.overtakes(engine) + self.cache_hits(engine)
        after_room = "no_slot" if room else check
        self.start = dict(
            waiting=[[s.id, "preparing" if s.ready > engine.now else after_room, s.num_preemptions]
                     for s in engine.waiting],
            running=[[s.id, "prefill" if s.num_prefill_left else "decode", len(s.prefill_ids) - s.num_prefill_left,
                      len(s.prefill_ids), len(s.out), s.num_preemptions] for s in engine.running],
            seqs=list(engine.running))

    def step_done(self, engine, step, planned: list) -> None:
        """After the step's tasks ran; `planned` = scheduler.plan_tasks' [(phase, seq, n)]."""
        snap, cap = self.start, engine.budget_cap
        before = {r[0]: r for r in snap["running"]}
        events = self.events + self.budget_events(snap, planned, cap)
        redo = {r[0] for r in snap["running"] if r[5]}
        events += [dict(kind="chunk", id=rid, n=n, done=before[rid][2] + n, total=before[rid][3],
                        first=before[rid][2] == self.from_cache.get(rid, 0), recompute=rid in redo)
                   for rid, phase, n in step.tasks if phase == "prefill"]
        ran = {t[0] for t in step.tasks}
        events += [dict(e, dropped=next((n for _, s, n in planned if s.id == e["id"] and s.id not in ran), 0))
                   for e in self.preemptions(engine)]
        for e in events:
            if e["kind"] == "preempt":
                self.from_cache.pop(e["id"], None)
        events += [dict(kind="first", id=s.id, time=s.token_times[0]) for s in snap["seqs"]
                   if before[s.id][4] == 0 and s.out]
        events += self.finishes(engine)
        used = sum(1 if p == "decode" else n for _, p, n in step.tasks)
        self.items.append(dict(start=step.start, end=step.end, waiting=snap["waiting"], running=snap["running"],
                               tasks=[list(t) for t in step.tasks], budget=[used, cap], events=events,
                               **self.kv_state(engine, events)))
        self.events = []

    def close(self, engine) -> None:
        self.after = self.events + self.arrivals(engine) + self.aborts(engine)
        self.events = []

    # ── what happened ──────────────────────────────────────────────────────
    def arrivals(self, engine) -> list[dict]:
        """One "arrive" event per request the gateway looked at since the last call, with its decisions."""
        new = engine.decisions[self.seen["decisions"]:]
        self.seen["decisions"] = len(engine.decisions)
        arrival = {r["id"]: r["arrival"] for r in self.cfg.REQUESTS}
        out = {}
        for d in new:
            ev = out.setdefault(d.request, dict(kind="arrive", id=d.request, arrival=arrival[d.request], decisions=[]))
            ev["decisions"].append(dict(stage=d.stage, code=d.code, reason=d.reason, facts=dict(d.facts)))
        ready = {s.id: s.ready for s in engine.waiting + engine.running + engine.aborted}
        for ev in out.values():
            ev["code"] = ev["decisions"][-1]["code"]
            if ev["code"] == "OK":
                ev["ready"] = ready.get(ev["id"])
        return list(out.values())

    @staticmethod
    def budget_events(snap, planned, cap) -> list[dict]:
        """A prompt that got fewer tokens than it has left: the token budget decided it."""
        if cap is None:
            return []
        got = {s.id: n for p, s, n in planned if p == "prefill"}
        return [dict(kind="budget", id=rid, got=got.get(rid, 0), left=total - done, cap=cap)
                for rid, phase, done, total, *_ in snap["running"]
                if phase == "prefill" and got.get(rid, 0) < total - done]

    def preemptions(self, engine) -> list[dict]:
        new = engine.preemptions[self.seen["preemptions"]:]
        self.seen["preemptions"] = len(engine.preemptions)
        return [dict(kind="preempt", id=p.request, blocks=list(p.blocks), generated=p.generated,
                     recompute=p.recompute, needed_by=p.needed_by, need=p.need, free=p.free) for p in new]

    def finishes(self, engine) -> list[dict]:
        """Sequences that finished; an aborted one also gave its blocks back, but has its "abort" event."""
        new = engine.pool.released[self.seen["released"]:]
        self.seen["released"] = len(engine.pool.released)
        done = {s.id: s for s in engine.done}
        return [dict(kind="finish", id=rid, reason=done[rid].reason, n=len(done[rid].out), blocks=list(blocks))
                for rid, blocks in new if rid in done]

    def aborts(self, engine) -> list[dict]:
        """Requests removed because their cancel_at passed (engine.abort_due, before the scheduler)."""
        new = engine.aborts[self.seen["aborts"]:]
        self.seen["aborts"] = len(engine.aborts)
        return [dict(kind="abort", id=a.request, time=a.time, cancel_at=a.cancel_at, stage=a.stage,
                     blocks=list(a.blocks), generated=a.generated) for a in new]

    def overtakes(self, engine) -> list[dict]:
        new = engine.overtakes[self.seen["overtakes"]:]
        self.seen["overtakes"] = len(engine.overtakes)
        return [dict(kind="overtake", id=o.request, priority=o.priority, overtaken=[dict(w) for w in o.overtaken])
                for o in new]

    def cache_hits(self, engine) -> list[dict]:
        """Sequences just admitted that took cached full blocks of their prompt (prefix caching)."""
        new = engine.pool.hits[self.seen["hits"]:]
        self.seen["hits"] = len(engine.pool.hits)
        out = []
        for _, rid, blocks, recompute in new:
            tokens = len(blocks) * engine.pool.block_size
            self.from_cache[rid] = tokens
            out.append(dict(kind="cache_hit", id=rid, tokens=tokens, blocks=list(blocks), recompute=recompute))
        return out

    def kv_state(self, engine, events) -> dict:
        """Block tables (running order), free list, and the blocks taken / given back during the step
        (a block can be both: freed by a victim and taken by the task that needed it)."""
        pool = engine.pool
        running = [s.id for s in engine.running]
        order = [rid for rid in running if rid in pool.active] + [rid for rid in pool.active if rid not in running]
        tables = {rid: list(pool.active[rid].block_table) for rid in order}
        returned = [(e["id"], b) for e in events if e["kind"] in ("finish", "preempt", "abort") for b in e["blocks"]]
        reused = {(e["id"], b) for e in events if e["kind"] == "cache_hit" for b in e["blocks"]}
        held = [(rid, b) for rid, t in tables.items() for b in t]
        alloc = sorted({b for rid, b in held + returned if (rid, b) not in reused and (rid, b) not in self.owners})
        self.owners = set(held)
        cached_free = sorted(pool.cached_free()) if pool.enable_caching else []
        return dict(tables=tables, free=free_ranges(sorted(pool.free)), cached_free=free_ranges(cached_free), alloc=alloc,
                    freed=sorted({b for _, b in returned}), reused=sorted({b for _, b in reused}))

    def to_dict(self) -> dict:
        cfg = self.cfg
        priority_key = ({r["id"]: [r.get("priority") or 0, r["arrival"]] for r in cfg.REQUESTS}
                        if cfg.SCHED_POLICY == "priority" else {})
        return dict(count=len(self.items), slots=cfg.SLOTS, token_budget=cfg.TOKEN_BUDGET, block_size=cfg.BLOCK_SIZE,
                    pool_blocks=cfg.POOL_BLOCKS, prefix_cache=cfg.PREFIX_CACHE == "on", sched_policy=cfg.SCHED_POLICY,
                    priority_key=priority_key, items=self.items, after=self.after)
