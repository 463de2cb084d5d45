"""[3] The run log: one record per executed step and the typed events of the run, in one schema.

Every engine run keeps a `RunLog` (engine.Engine.log). The engine tells it what happens when it
happens — `event(kind, **fields)` for a decision, `fact(**fields)` for a per-step number — and hands it
what it needs, never itself: `boundary()` gets the queue and the slots once the gateway and the scheduler
have run, `step_done()` the step's tasks, first tokens and the pool as the step leaves it. The block pool
tells it its history as it happens (`event("evict")` and `note()`: blocks held and returned, the peak,
audit problems), so the log is the run's only history; a cluster's replicas' logs become one (`merged`).
Everything that reads a run reads this log:
the blocks' data (entrypoints/blocks_data.py), the narration (words/text_steps.py, `--steps`), the
Chrome trace (entrypoints/trace.py), the page's step view and charts (report.steps in `--json`).

One step is one plain-JSON dict (`RunLog.to_dict()["items"][i]`, the frozen format of `--json`'s
top-level `steps`: new facts are new keys, no key changes):

    start, end      simulated µs
    waiting         [[id, why, preemptions]] in queue order; why = the check that keeps it waiting:
                    "preparing" (input preparation not done), "no_slot" (every slot runs),
                    "group_running" / "group_incomplete" (static batching; not in the main run),
                    "room_rule" (an edited scheduler.admission_room said 0 although a slot is free),
                    "no_kv" (admitted at this boundary, sent back during the step for lack of KV blocks: event
                    "wait_kv"; vLLM: it never left the waiting queue), at its place in the queue
    running         [[id, phase, done, total, generated, preemptions]] as the step starts (a newcomer sent back
                    for KV blocks is not among them: its "wait_kv" event keeps its row, `at_boundary`): phase
                    "prefill" | "decode", prompt tokens done / total (prompt + generated when
                    recomputing after a preemption)
    tasks           [[id, phase, n]] the tasks that ran (the seed's order: decodes first, then prompt chunks); [] in a
                    step where every planned task's sequence was preempted or sent back (start == end)
    decodes_first   the tasks follow that order (an edited plan_tasks may put chunks first or leave a decode out)
    budget          [used, cap]: tokens of the tasks that ran and TOKEN_BUDGET
    tables          {id: [physical block, ...]} every block table after the step
    free            the free blocks after the step (sorted) as inclusive ranges [[first, last], ...]
    cached_free     the free blocks that still hold a prefix-cache hash, as ranges (PREFIX_CACHE=on)
    alloc, freed    physical blocks taken / given back during the step
    reused          blocks taken back from the prefix cache at this step's boundary (not in alloc)
    events          [{"kind": ...}] in EVENT_ORDER (below); events between two steps belong to the next
    kv_used         the KV blocks in use after the step (POOL_BLOCKS minus the free ones; set by `to_dict`)
    + every `fact()` the engine gave during the step (one key each): `cost` (roofline.Clock.report; its
                    `seconds` under CLOCK=roofline the step's own duration, set by `to_dict`) and, for a
                    step that verified proposals (SPEC_METHOD != off), `spec` {id: {"proposed": [token ids],
                    "accepted": n, "token": the recovered or bonus token, or None when a stop came first}}

The record names no constant of the run (SLOTS, POOL_BLOCKS, ...: `--json`'s `config` is their one place);
under SCHED_POLICY=priority it gives every request's `priority_key` [priority, arrival]
(scheduler.priority_key); `landmarks` the event kinds that make a step worth stopping at (LANDMARKS); `after` holds
the events after the last step (a late request refused 400, a cancel after the end). A block's owner is the id whose
table holds it; with the prefix cache on, a full block can be in several tables at once (shared).

Compact: a 1,000-step run keeps per step only ids and small ints; a block table that did not change
is the previous step's list (one object, not a copy), so tables cost memory only when they change; the same
holds for `free` and `cached_free` (their ranges are computed again only when the free blocks changed).

    >>> free_ranges([0, 1, 2, 5, 7, 8])
    [[0, 2], [5, 5], [7, 8]]
    >>> expand_ranges([[0, 2], [5, 5], [7, 8]])
    [0, 1, 2, 5, 7, 8]

A what-if run (block [12]'s other policies, block [11]'s run without the prefix cache: `RunLog(cfg, detail=False)`,
the engine's unchecked runs) keeps per step only `start`, `end`, `tasks`, `budget`, the events the engine told and the
facts: the blocks read their times, tasks, costs and preemptions, never their queue, block tables or free lists, which
cost most of a 1,000-request run's log (`boundary` and `kv_state` copy the queue and the pool every step).

Leaves out: the sentences (words/text_steps*.py), the K/V numbers themselves, the sampled tokens
(block [8] shows them), the run's constants (report.config).
"""
from __future__ import annotations

from itertools import islice

from .speculative import verify_tokens

# Every event kind, in the order a step lists them; a new kind is one line here plus its `event()` call.
EVENT_ORDER = (
    "arrive",      # {id, arrival, decisions: [{stage, code, reason, facts}], code, ready?} gateway + input
    "abort",       # {id, time, cancel_at, stage, blocks, generated} cancel_at passed (stage waiting or running,
                   # or "gateway": cancelled at or before its arrival, never admitted); told in time order with
                   # the arrivals (same rank)
    "admit",       # {id, why, room} a slot was given (why: the scheduler's admission check)
    "overtake",    # {id, priority, overtaken: [{id, priority, arrival}]} SCHED_POLICY=priority
    "cache_hit",   # {id, tokens, blocks, recompute} prompt tokens whose K/V came from the prefix cache
    "kv_recv",     # {id, blocks, positions, bytes, source, sent, arrived, waited} DISAGG=on, a decode replica: a
                   # request's KV arrived from prefill replica `source` and was written into these blocks (cluster.py)
    "budget",      # {id, got, left, cap} a prompt got fewer tokens than it has left
    "chunk",       # {id, n, done, total, first, recompute} a prompt chunk ran
    "wait_kv",     # {id, why, by, need, free, blocks, row} admitted at this boundary, back to waiting: no KV blocks
                   # for its chunk ("short"), its blocks went to `by` ("gives_way"), it was admitted after `by`
                   # which was short or gave way ("behind"), or the step preempted ("preempted"); kv_room.send_back;
                   # `row` = its running row at the boundary (a full log only; it waits in the record: "no_kv")
    "preempt",     # {id, blocks, generated, recompute, needed_by, need, free, dropped} no free KV block
    "rollback",    # {id, rejected, blocks} speculative decoding: the verified positions after the kept ones left the
                   # cache (rejected proposals, or tokens after a stop); `blocks` = the blocks left empty, back to
                   # the pool
    "evict",       # {id, block, hash} PREFIX_CACHE=on: a free block still holding `hash` was given to `id` for new
                   # data, so its hash left the cache (block_manager's evictions; not narrated)
    "first",       # {id, time} first token
    "kv_send",     # {id, blocks, positions, bytes, to, arrive} DISAGG=on, a prefill replica: the prompt is done, its KV
                   # leaves for decode replica `to` (arriving at `arrive` µs) and its blocks go back (cluster.py)
    "finish",      # {id, reason, n, blocks}
)
# The kinds that make a step worth stopping at (the page's step navigator: PageUp / PageDown, its ticks); in the record.
LANDMARKS = ("arrive", "abort", "admit", "overtake", "cache_hit", "wait_kv", "preempt", "first", "finish")
RANK = dict({kind: i for i, kind in enumerate(EVENT_ORDER)}, abort=0)   # arrive / abort: in the order they happened
AT_BOUNDARY = set(EVENT_ORDER[:EVENT_ORDER.index("budget")])    # before the step runs; the rest during it
# the events whose "blocks" went back to the pool
GIVES_BACK = ("finish", "preempt", "abort", "wait_kv", "kv_send", "rollback")


def free_ranges(free: list[int]) -> list[list[int]]:
    """Sorted block numbers as inclusive [first, last] runs: one pass in plain Python (NumPy's diff and tolist cost
    twice as much for a 512-block pool's free list, and about as much for 8,000 blocks)."""
    if not free:
        return []
    out, lo, prev = [], free[0], free[0]
    for b in islice(free, 1, None):
        if b != prev + 1:
            out.append([lo, prev])
            lo = b
        prev = b
    out.append([lo, prev])
    return out


def expand_ranges(ranges: list) -> list[int]:
    return [b for lo, hi in ranges for b in range(lo, hi + 1)]


def undecoded(it) -> list:
    """Ids decoding as the step starts that got no decode task (preempted or cancelled ones aside)."""
    gone = {e["id"] for e in it["events"] if e["kind"] in ("preempt", "abort", "wait_kv")}
    decoded = {t[0] for t in it["tasks"] if t[1] == "decode"}
    return [r[0] for r in it["running"] if r[1] == "decode" and r[0] not in gone and r[0] not in decoded]


def decodes_first(it) -> bool:
    """True when the step's tasks follow the seed's plan_tasks order: every decoding sequence got its token
    before any prompt chunk. An edited plan_tasks may put chunks first, or leave a decode out for them.

    >>> A, B = ["A", "decode", 4, 4, 1, 0], ["B", "prefill", 0, 11, 0, 0]
    >>> decodes_first(dict(running=[A, B], tasks=[["A", "decode", 1], ["B", "prefill", 5]], events=[]))
    True
    >>> decodes_first(dict(running=[A, B], tasks=[["B", "prefill", 5], ["A", "decode", 1]], events=[]))
    False
    >>> decodes_first(dict(running=[A, B], tasks=[["B", "prefill", 6]], events=[]))
    False
    """
    phases = [t[1] for t in it["tasks"]]
    if "prefill" not in phases:
        return True
    return "decode" not in phases[phases.index("prefill"):] and not undecoded(it)


def in_order(events: list) -> list:
    return sorted(events, key=lambda e: RANK[e["kind"]])   # stable: within a kind, as they happened


class RunLog:
    """The steps and events of one engine run."""

    def __init__(self, cfg, detail: bool = True):
        self.cfg = cfg
        self.detail = detail       # False: a what-if run's tally (no queue, tables, free lists nor derived events)
        self.items = []            # one dict per executed step
        self.after = []            # events after the last step
        self.new = []              # events since the last boundary / step
        self.ahead = []            # boundary events waiting for the next executed step
        self.facts = {}            # fact() of the step being executed
        self.start = None          # the snapshot of the latest boundary
        self.tables = {}           # id -> its block table after the last executed step
        self.from_cache = {}       # id -> prompt tokens it took from the prefix cache when last admitted
        self.last_ranges = {}      # "free" / "cached_free" -> (block list, its ranges) of the last executed step
        self.pool_seen, self.free_seen = None, None   # the pool's `free_changes` and (free, cached_free)
        self.notes = []            # the pool's facts (kind, step, replica, *values), `note`; not in to_dict
        self.by_kind = None        # a closed log's events by kind (happenings' index), per replica; None while open

    @property
    def count(self) -> int:
        return len(self.items)

    # ── what the engine tells ──────────────────────────────────────────────
    def event(self, kind: str, **fields) -> None:
        """One thing that happened, of a kind in EVENT_ORDER, e.g. event("admit", id="C", why="ok", room=1)."""
        assert kind in RANK, kind
        if kind == "cache_hit":
            self.from_cache[fields["id"]] = fields["tokens"]
        elif kind in ("preempt", "wait_kv"):
            self.from_cache.pop(fields["id"], None)
        self.new.append(dict(kind=kind, **fields))

    def note(self, kind: str, *values) -> None:
        """A fact of the block pool (block_manager.BlockManager tells it) at the step being executed (count + 1):
        "hold" (id, block, ref_cnt after), "release" (id, blocks), "peak" (used, {id: table}, tokens stored),
        "problem" (audit code). Blocks [6] and [10] read them (`noted`); the record (`to_dict`) leaves them out."""
        self.notes.append((kind, self.count + 1, None, *values))

    def fact(self, **fields) -> None:
        """A per-step fact of the step being executed (one key of its record), e.g. fact(cost=…)."""
        self.facts.update(fields)

    def arrive(self, seq, decisions: list) -> None:
        """The gateway and input preparation looked at `seq` ([Decision] in order)."""
        rows = [dict(stage=d.stage, code=d.code, reason=d.reason, facts=dict(d.facts)) for d in decisions]
        extra = dict(ready=seq.ready) if rows[-1]["code"] == "OK" else {}
        self.event("arrive", id=seq.id, arrival=seq.arrival, decisions=rows, code=rows[-1]["code"], **extra)

    def boundary(self, now: int, waiting: list, running: list, room: int, check: str) -> None:
        """The step about to run at `now`: the queue (and why each one waits) and the slots as it starts;
        `room` and `check` as scheduler.admission_check said."""
        self.take_boundary_events()
        if not self.detail:
            return
        after_room = "no_slot" if room else check
        self.start = dict(
            waiting=[[s.id, "preparing" if s.ready > now else after_room, s.num_preemptions] for s in waiting],
            running=[[s.id, "prefill" if s.num_prefill_left else "decode", len(s.prefill_ids) - s.num_prefill_left,
                      len(s.prefill_ids), len(s.out), s.num_preemptions] for s in running])

    def take_boundary_events(self) -> None:
        if not self.new:           # most boundaries of a long run: nothing happened since the last step
            return
        self.ahead += in_order([e for e in self.new if e["kind"] in AT_BOUNDARY])
        self.new = [e for e in self.new if e["kind"] not in AT_BOUNDARY]

    def step_done(self, start: int, end: int, planned: list, ran: list, cap: int | None, pool, waiting: list,
                  running: list, firsts: list) -> None:
        """The step ran: `planned` = scheduler.plan_tasks' [(phase, seq, n)], `ran` = those whose task ran, `cap` the
        token budget; `pool` (block_manager.BlockManager), `waiting` and `running` as the step leaves them;
        `firsts` = [(id, time)] of the first tokens it sampled."""
        if not self.detail:
            return self.tally(start, end, ran, planned, cap)
        snap = self.start
        before = {r[0]: r for r in snap["running"]}
        tasks = [[seq.id, phase, n] for phase, seq, n in ran]
        redo = {r[0] for r in snap["running"] if r[5]}
        ran_ids = {t[0] for t in tasks}
        during = self.budget_events(snap, planned, cap) + [
            dict(kind="chunk", id=rid, n=n, done=before[rid][2] + n, total=before[rid][3],
                 first=before[rid][2] == self.from_cache.get(rid, 0), recompute=rid in redo)
            for rid, phase, n in tasks if phase == "prefill"]
        self.mark_dropped(planned, ran_ids)
        order = {r[0]: i for i, r in enumerate(snap["running"])}
        during += [dict(kind="first", id=rid, time=t) for rid, t in sorted(firsts, key=lambda f: order[f[0]])]
        events = self.ahead + in_order(self.new + during)
        queue, slots = self.sent_back(snap, events, waiting)
        item = dict(start=start, end=end, waiting=queue, running=slots, tasks=tasks,
                    budget=[self.budget_used(tasks), cap], events=events, **self.kv_state(pool, running, events))
        item["decodes_first"] = decodes_first(item)
        item.update(self.facts)                        # the facts after the record's keys, as dict(item, **facts)
        self.items.append(item)
        self.new, self.ahead, self.facts = [], [], {}

    @staticmethod
    def sent_back(snap: dict, events: list, waiting: list) -> tuple[list, list]:
        """The record's (waiting, running): a newcomer sent back for KV blocks during the step (event "wait_kv") is
        a waiting request (why "no_kv"; vLLM: it never left the waiting queue), at its place in `waiting` (the
        queue the step leaves); its event keeps the slot row it had at the boundary (`row`, read by `at_boundary`)."""
        back = {e["id"]: e for e in events if e["kind"] == "wait_kv"}
        if not back:
            return snap["waiting"], snap["running"]
        rows = {r[0]: r for r in snap["waiting"]}
        for r in snap["running"]:
            if r[0] in back:
                back[r[0]]["row"] = r
                rows[r[0]] = [r[0], "no_kv", r[5]]
        return [rows[s.id] for s in waiting if s.id in rows], [r for r in snap["running"] if r[0] not in back]

    def tally(self, start: int, end: int, ran: list, planned: list, cap, used: int | None = None,
              tasks: list | None = None) -> None:
        """step_done of a what-if run: the step's times, tasks, budget, the engine's events and facts; `used` and
        `tasks`: the budget the tasks used (budget_used's value) and the record's [[id, phase, n]] of `ran`, when
        the caller has them already (a timing-only replay's run of equal steps shares one list)."""
        tasks = [[seq.id, phase, n] for phase, seq, n in ran] if tasks is None else tasks
        if self.new:               # a preemption is an event of the step
            self.mark_dropped(planned, {t[0] for t in tasks})
        used = self.budget_used(tasks) if used is None else used
        self.items.append(dict(start=start, end=end, tasks=tasks, budget=[used, cap],
                               events=self.ahead + in_order(self.new), **self.facts))
        self.new, self.ahead, self.facts = [], [], {}

    def mark_dropped(self, planned: list, ran_ids: set) -> None:
        """A preempted sequence's planned task that did not run: its tokens are the event's `dropped`."""
        for e in self.new:
            if e["kind"] == "preempt":
                e["dropped"] = next((n for _, s, n in planned if s.id == e["id"] and s.id not in ran_ids), 0)

    def budget_used(self, tasks: list) -> int:
        """Budget tokens of the tasks that ran: a chunk's n, a decode's speculative.verify_tokens(k) (k = 0 when it
        verified no proposal)."""
        spec = self.facts.get("spec", {})
        return sum(verify_tokens(len(spec.get(rid, {}).get("proposed", ()))) if phase == "decode" else n
                   for rid, phase, n in tasks)

    def close(self) -> None:
        """The run ended: what happened after the last step goes to `after`."""
        self.take_boundary_events()
        self.after, self.ahead = self.ahead + in_order(self.new), []
        self.new = []
        self.by_kind = {}                              # closed: nothing is appended any more (happenings' index)

    @staticmethod
    def budget_events(snap, planned, cap) -> list[dict]:
        """A prompt that got fewer tokens than it has left: the token budget decided it."""
        if cap is None:
            return []
        got = {s.id: n for p, s, n in planned if p == "prefill"}
        # [id, phase, done, total, generated, preemptions]
        prefilling = [r for r in snap["running"] if r[1] == "prefill"]
        return [dict(kind="budget", id=rid, got=got.get(rid, 0), left=total - done, cap=cap)
                for rid, _, done, total, *_ in prefilling if got.get(rid, 0) < total - done]

    def kv_state(self, pool, running_seqs, events) -> dict:
        """Block tables (running order), free list, and the blocks taken / given back during the step
        (a block can be both: freed by a victim and taken by the task that needed it)."""
        active = pool.active
        running = [s.id for s in running_seqs]
        running_set = set(running)
        order = [rid for rid in running if rid in active] + [rid for rid in active if rid not in running_set]
        before, self.tables = self.tables, {}
        for rid in order:                            # an unchanged table: the previous step's list (stored once)
            table, old = active[rid].block_table, before.get(rid)
            self.tables[rid] = old if old == table else list(table)
        returned = [(e["id"], b) for e in events if e["kind"] in GIVES_BACK for b in e["blocks"]]
        reused = {(e["id"], b) for e in events if e["kind"] == "cache_hit" for b in e["blocks"]}
        # a block is allocated when its holder did not hold it after the last step (nor took it from the cache);
        # an unchanged table is the same list as before: nothing of it is new (a step touches few tables)
        held = ([(rid, t) for rid, t in self.tables.items() if t is not before.get(rid)]
                + [(rid, [b]) for rid, b in returned])
        alloc = sorted(self.taken(held, before, reused))
        free, cached_free = self.free_lists(pool)
        return dict(tables=self.tables, free=free, cached_free=cached_free, alloc=alloc,
                    freed=sorted({b for _, b in returned}), reused=sorted({b for _, b in reused}))

    @staticmethod
    def taken(held: list, before: dict, reused: set) -> set:
        """The blocks of `held` [(request id, blocks)] that their holder did not hold after the last step (`before`)
        nor took from the cache (`reused`). Each holder's old table is made a set once: a finished 32,768-token
        prompt gives back 2,048 blocks, each a `held` entry of its own."""
        old, out = {}, set()
        for rid, blocks in held:
            had = old.get(rid)
            if had is None:
                had = old[rid] = set(before.get(rid, ()))
            out.update(b for b in blocks if b not in had and (rid, b) not in reused)
        return out

    def free_lists(self, pool) -> tuple:
        """(free, cached_free) ranges after the step; the last step's objects when the pool made no change since
        (BlockManager.free_changes), without sorting its free queue again."""
        if self.pool_seen != (id(pool), pool.free_changes):
            free, cached_free = pool.sorted_free()
            self.free_seen = (self.ranges("free", free), self.ranges("cached_free", cached_free))
            self.pool_seen = (id(pool), pool.free_changes)
        return self.free_seen

    def ranges(self, name: str, blocks: list) -> list:
        """free_ranges(blocks), the previous step's list (one object) when `blocks` did not change since then."""
        last = self.last_ranges.get(name)
        if last is None or last[0] != blocks:
            last = self.last_ranges[name] = (list(blocks), free_ranges(blocks))
        return last[1]

    # ── reading the log ────────────────────────────────────────────────────
    def happenings(self, kind: str, replica: int | None = None) -> list[dict]:
        """Every event of `kind` as {step, time, request, ...its fields}: step = the 1-based step it belongs to
        (count + 1 after the last one), time = its own "time" or its step's start (None after the last step).
        `replica`: of that replica only (a cluster's merged log, `merged`)."""
        if self.by_kind is not None:                   # a closed log: one pass over its events for every kind
            if replica not in self.by_kind:
                self.by_kind[replica] = self.index(replica)
            found = self.by_kind[replica].get(kind, ())
        else:
            found = [(n, e, start) for n, events, start in self.stepped(replica) for e in events if e["kind"] == kind]
        return [dict({k: v for k, v in e.items() if k not in ("kind", "id")}, step=n, time=e.get("time", start),
                     request=e["id"]) for n, e, start in found]

    def stepped(self, replica: int | None) -> list[tuple]:
        """(step, its events, its start) of every step (of `replica`), then (count + 1, the events after, None)."""
        return [(i + 1, it["events"], it["start"]) for i, it in enumerate(self.items)
                if replica is None or it.get("replica") == replica] + \
            [(self.count + 1, [e for e in self.after if replica is None or e.get("replica") == replica], None)]

    def index(self, replica: int | None) -> dict:
        """{kind: [(step, event, step start)]} in happenings' order: a closed log's events read once for all the
        kinds the blocks ask for (block data asks for "preempt", "wait_kv", "abort"… a dozen times)."""
        out = {}
        for n, events, start in self.stepped(replica):
            for e in events:
                out.setdefault(e["kind"], []).append((n, e, start))
        return out

    def noted(self, kind: str, replica: int | None = None) -> list[tuple]:
        """The pool's notes of `kind` as (step, *values) (`note`), of one replica in a cluster's merged log."""
        return [(step, *values) for k, step, rep, *values in self.notes if k == kind and rep == replica]

    @classmethod
    def merged(cls, cfg, logs: list) -> RunLog:
        """The replicas' logs (by index) as one: every step by start time (ties: the lower index) with its
        `replica`, the events after the last steps, and the pool's notes with their steps numbered anew."""
        order = sorted((it["start"], ri, k) for ri, log in enumerate(logs) for k, it in enumerate(log.items))
        noted = any(log.notes for log in logs)            # a timing-only run notes nothing: no numbering
        number = {(ri, k): n + 1 for n, (_, ri, k) in enumerate(order)} if noted else {}   # (replica, index) -> step
        out = cls(cfg)
        for ri, log in enumerate(logs):            # each replica's records get their `replica` in place (no copy):
            for it in log.items:                   # a replica's log and the merged one share them
                it["replica"] = ri
        out.items = [logs[ri].items[k] for _, ri, k in order]
        out.after = [dict(e, replica=ri) for ri, log in enumerate(logs) for e in log.after]
        out.notes = [(kind, number.get((ri, step - 1), len(order) + 1), ri, *values)
                     for ri, log in enumerate(logs) for kind, step, _, *values in log.notes]
        out.by_kind = {} if all(log.by_kind is not None for log in logs) else None    # closed when they all are
        return out

    def to_dict(self) -> dict:
        cfg = self.cfg
        priority_key = ({r["id"]: [r.get("priority") or 0, r["arrival"]] for r in cfg.REQUESTS}
                        if cfg.SCHED_POLICY == "priority" else {})
        return dict(count=self.count, priority_key=priority_key, items=page_keys(self.items, cfg), after=self.after,
                    landmarks=list(LANDMARKS))


def page_keys(items: list[dict], cfg) -> list[dict]:
    """The items with what readers (blocks [3], [11], the page's charts) would otherwise compute again, each rule
    in one home: `kv_used` after the step, and `cost.seconds` = the step's own duration under CLOCK=roofline
    (under seed it stays the formula's time on this GPU, roofline.Clock.report). Idempotent."""
    for it in items:
        if "free" in it:
            it["kv_used"] = cfg.POOL_BLOCKS - sum(hi - lo + 1 for lo, hi in it["free"])
        if "cost" in it and cfg.CLOCK == "roofline" and it["end"] > it["start"]:
            it["cost"]["seconds"] = (it["end"] - it["start"]) / 1e6
    return items


def at_boundary(it) -> tuple[list, list]:
    """A step's (waiting, running) rows as the boundary left them, before the step ran: the newcomers it sent back
    for KV blocks (their "wait_kv" event's `row`) still hold their slots there, after the other running requests,
    in admission order. The step narration (words/text_steps.py) tells the step this way: admitted, then sent back.

    >>> it = dict(waiting=[["D", "no_slot", 0], ["C", "no_kv", 1]], running=[["A", "decode", 6, 6, 4, 0]],
    ...           events=[dict(kind="admit", id="C"), dict(kind="wait_kv", id="C", row=["C", "prefill", 0, 9, 0, 1])])
    >>> at_boundary(it)
    ([['D', 'no_slot', 0]], [['A', 'decode', 6, 6, 4, 0], ['C', 'prefill', 0, 9, 0, 1]])
    """
    rows = {e["id"]: e["row"] for e in it["events"] if e["kind"] == "wait_kv" and "row" in e}
    if not rows:
        return it["waiting"], it["running"]
    admitted = [e["id"] for e in it["events"] if e["kind"] == "admit"]
    held = {r[0]: r for r in it["running"]} | rows
    running = [r for r in it["running"] if r[0] not in admitted] + [held[i] for i in admitted if i in held]
    return [x for x in it["waiting"] if x[0] not in rows], running


def step_rows(record: dict) -> list[dict]:
    """Blocks [3] and [11]'s one line per step, from the record: counts as the step starts (a newcomer sent back
    for KV blocks is a waiting request), the work done, the KV blocks in use after it and who was preempted; under
    speculative decoding also `proposed` {id: proposals verified this step}."""
    return [dict(start=it["start"], end=it["end"], waiting=len(it["waiting"]), running=len(it["running"]),
                 tasks=it["tasks"], decode=sum(1 for t in it["tasks"] if t[1] == "decode"),
                 prefill=sum(t[2] for t in it["tasks"] if t[1] == "prefill"),
                 kv_used=it["kv_used"],
                 preempted=[e["id"] for e in it["events"] if e["kind"] == "preempt"],
                 **({"proposed": {rid: len(v["proposed"]) for rid, v in it["spec"].items()}} if it.get("spec") else {}))
            for it in record["items"]]
