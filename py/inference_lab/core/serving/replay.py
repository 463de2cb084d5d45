"""The clock-only replay: a run of the trace under another policy with the tokens a finished run chose.

Block [12] plays the trace again under "static" batching and under continuous batching without chunking
(and, with the prefix cache on, block [11] once more without it). With a generated workload
(WORKLOAD_REQUESTS > 0) those runs would cost as much as the main run: a 2,048-token prompt's attention alone
is millions of numbers. But every generated request is greedy with its own seed, and the lab's model gives a
request the same tokens whatever the schedule (the main run's check "same tokens" shows it on the seed's
trace; float64 rounding aside). So `replay_engine` runs the whole serving side for real (gateway, scheduler,
token budget, KV blocks, preemption, prefix cache, the clock) and takes each request's next token from
`tokens` instead of the model:

    >>> from types import SimpleNamespace as NS
    >>> done = [NS(id="R1", out=[5, 6, 1]), NS(id="R2", out=[7])]
    >>> recorded(NS(done=done))
    {'R1': [5, 6, 1], 'R2': [7]}

The same engine with placeholder tokens is the timing-only run of `--sweep` and `--search` points
(RunOptions(timing_only=True), issue 42): when no figure depends on the tokens' values (`tokens_matter` is empty:
IGNORE_EOS = on, no speculation, no prefix cache, a generated or recorded workload), every step's time, every
request's TTFT/TPOT and the goodput equal the full run's (tests/test_timing_only.py), at a fraction of its cost
(a 100-request conversation point on one H100: 12.2 s CPU full, 0.3 s timing-only, 2.11 ms against 0.05 ms per
step; bench/hour_search.py). `clock_only` is the one check of which engine plays a run.

A timing-only run takes two short cuts, each leaving the engine's very record (tests/test_timing_only_lean.py
compares every step's tally, the token times and the pool with the full run's):
- the lean step (`lean_step`): when the planned tasks' new KV blocks are all free, no task can preempt, send a
  newcomer back or fail, so the step runs in one pass over its tasks: the roofline's four sums taken on the way
  (roofline.cost_of_sums) and its terms once (Clock.timed), blocks taken only when a task crosses into a new block,
  the placeholder and the stop check inline; when blocks run short, the engine's own step (kv_room.py) decides;
- quiet runs (`iterate`, `quiet`): after a step, while no request arrives, none can be admitted, none is cancelled
  and no KV is on a link (a replica: before the next arrival its cluster must route), the next steps run back to
  back without passing through the gateway and the scheduler's admission, which would do nothing there.
Measured on the first 2,000 requests of the conversation hour, one H100, the same machine and load: 15.2 s CPU
before, 5.8 s after (2.6×; 0.25 against 0.10 ms per step); four replicas: 41.3 s against 18.1 s (2.3×). What is
left is the record itself (one dict per step), the pool's sorted free list (block_manager.py) and the requests'
admission.

A request the finished run did not serve (refused 429 there, admitted under this policy) gets its tokens from
`solo`: the model decodes it alone, prefill then one token at a time, as the engine would.

Leaves out: K/V numbers (the pool counts blocks only: block_manager.reserve), the cache check, the
first-token snapshots and the log's queue, tables and free lists (a tally: run_log.RunLog(detail=False); nobody reads
them in these runs), and traces with sampling or cancellations (the
explicit REQUESTS trace's other policies run the model in full, engine.run_engine).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..model.tokenizer import EOS
from .engine import Engine, EngineResult, RunOptions
from . import scheduler
from ..model.model import stand_in_ids
from ..model.sampler import sample
from .sequence import Sequence
from .step import StepScratch

ADMISSION_ROOM = scheduler.admission_room.__code__   # the lab's own rule (the page's editor can rewrite it)
PLACEHOLDER = 2       # a timing-only run's every generated token: the first id after BOS (0) and EOS (1)


def recorded(result) -> dict:
    """{request id: its generated token ids} of a finished run's served requests."""
    return {seq.id: list(seq.out) for seq in result.done}


def solo(lab, req: dict) -> list[int]:
    """The tokens the model generates for one request decoded alone (prefill, then one token per step)."""
    seq = Sequence.from_request(req)
    seq.tokens, seq.ids = lab.tokenizer.encode(seq.text)
    seq.admit(0)
    logits, K, V, _ = lab.forward(stand_in_ids(seq.ids), 0)                 # a long prompt: its stand-in (model.py)
    out = []
    while True:
        token, _ = sample(logits[-1], seq.sampling, seq.rng, len(logits[-1]))
        out.append(token)
        if (token == EOS and lab.cfg.IGNORE_EOS != "on") or len(out) >= seq.max_new:
            return out
        logits, kn, vn, _ = lab.forward([token], K.shape[1], K, V)
        K, V = np.concatenate([K, kn], axis=1), np.concatenate([V, vn], axis=1)   # (heads, positions, d_head)


def tokens_matter(cfg) -> list[str]:
    """Why a figure of the run could depend on the generated tokens' values ([] when none can): "requests" (a
    hand-written REQUESTS list: sampling, cancellations, the seed's trace), "eos" (IGNORE_EOS = off: an EOS ends a
    request early), "spec" (speculation's acceptance reads the tokens), "prefix" (PREFIX_CACHE = on: a preempted
    request's recompute can hit blocks holding its generated tokens).

    >>> from types import SimpleNamespace as NS
    >>> tokens_matter(NS(WORKLOAD_REQUESTS=8, IGNORE_EOS="on", SPEC_METHOD="off", PREFIX_CACHE="off"))
    []
    >>> tokens_matter(NS(WORKLOAD_REQUESTS=0, IGNORE_EOS="off", SPEC_METHOD="ngram", PREFIX_CACHE="on"))
    ['requests', 'eos', 'spec', 'prefix']
    """
    why = [("requests", cfg.WORKLOAD_REQUESTS == 0), ("eos", cfg.IGNORE_EOS != "on"),
           ("spec", cfg.SPEC_METHOD != "off"), ("prefix", cfg.PREFIX_CACHE == "on")]
    return [name for name, true in why if true]


def timing_only(cfg) -> bool:
    """True when no figure of the run depends on the generated tokens' values (tokens_matter is empty), so a
    timing-only run (RunOptions(timing_only=True): placeholder tokens, no model) gives the full run's clock exactly:
    a generated or recorded workload (greedy, no cancellations) with IGNORE_EOS = on, every request making exactly
    max_new tokens (a trace's output lengths), no speculation and no prefix cache."""
    return not tokens_matter(cfg)


class ReplayEngine(Engine):
    """Engine whose tasks take blocks and time but no model: each new token comes from `options.tokens`, or is
    PLACEHOLDER in a timing-only run (`options.timing_only`)."""
    replaying = True

    def __init__(self, lab, options: RunOptions, requests: list | None = None):
        super().__init__(lab, replace(options, check=False, spec="off"), requests)   # no model: no check, no proposals
        self.tokens = None if options.timing_only else options.tokens
        self.requests = {r["id"]: r for r in self.cfg.REQUESTS}
        self.lean = lean(self, options)
        if self.lean:                      # nobody reads the pool's notes (holds, releases, peaks) of these runs
            self.pool.note = _nobody
        self.last_tasks, self.last_rows = None, None     # lean_step's last planned tasks and their record's list
        self.steady = None         # the last lean step's tasks when the next step plans the same (`lean_step`)
        self.cancels = any(r.get("cancel_at") is not None for r in self.cfg.REQUESTS)

    def next_token(self, seq: Sequence) -> int:
        if self.tokens is None:
            return PLACEHOLDER
        if seq.id not in self.tokens:
            self.tokens[seq.id] = solo(self.lab, self.requests[seq.id])
        return self.tokens[seq.id][len(seq.out)]

    def decode(self, step: StepScratch, seq: Sequence) -> None:
        seq.history.append(seq.pending_token)
        self.pool.reserve(seq, 1)
        self.take_token(step, seq, self.next_token(seq))

    def prefill(self, step: StepScratch, seq: Sequence, n: int) -> None:
        if seq.start is None:
            seq.start = self.now
        lo = len(seq.prefill_ids) - seq.num_prefill_left
        seq.history += seq.prefill_ids[lo:lo + n]
        self.pool.reserve(seq, n)
        seq.num_prefill_left -= n
        if seq.num_prefill_left == 0:
            self.take_token(step, seq, self.next_token(seq))


    # ── the timing-only step: the same decisions, one pass over the tasks ──
    def abort_due(self, until: int) -> None:
        if self.cancels:                   # a trace without cancellations: no scan of running + waiting per step
            super().abort_due(until)

    def run_step(self, step: StepScratch) -> None:
        """Engine.run_step, in one pass over the planned tasks when nothing can go differently (`lean_step`);
        otherwise the engine's own step."""
        if not self.lean_step():
            self.steady = None
            Engine.run_step(self, step)

    def iterate(self) -> bool:
        """Engine.iterate; after a step of a lean run, the next steps while nothing can happen at their boundaries
        (`quiet`: no arrival, admission, cancellation nor KV transfer; a replica stops where its cluster routes the
        next request) run back to back, each with its own record, as the same passes of the loop would run them."""
        if not Engine.iterate(self):
            return False
        while self.lean and self.quiet() and self.lean_step(self.steady):
            pass
        return True

    def quiet(self) -> bool:
        """True when Engine.iterate's boundary would do nothing but run a step: no request arrives by now, none can
        be admitted (the waiting queue is empty, or every slot is taken under continuous batching and
        scheduler.admission_room is the lab's own rule), no cancellation, no KV on a link; a replica (colocated
        only) has not reached the next arrival its cluster must route first."""
        if self.cancels or (self.pending and self.pending[0].arrival <= self.now):
            return False
        if self.waiting and not (self.policy == "continuous" and len(self.running) >= self.cfg.SLOTS
                                 and scheduler.admission_room.__code__ is ADMISSION_ROOM):
            return False
        r = self.replica
        if r is None:
            return True
        nxt = r.limits[0] if r.limits else None
        return r.role == "both" and not r.inbox and (nxt is None or self.now < nxt)

    def lean_step(self, tasks: list | None = None) -> bool:
        """One step in one pass over its planned tasks, when `lean` and the step's KV blocks are all free (no
        preemption, no newcomer sent back, every task runs, no retiming): the same record, times, blocks and
        tokens as Engine.run_step, without a call per task into the KV-room check, the pool's block accounting for
        positions that take no new block, the roofline's list of work (its four sums are taken on the way:
        roofline.cost_of_sums) and the emitted list nobody retimes. False (nothing done) otherwise.
        `tasks`: the last lean step's (`steady`) when it was all decodes and finished nobody and no boundary came
        between: scheduler.plan_tasks would plan the same list again (decodes first, the running order)."""
        tasks = tasks or (scheduler.plan_tasks(self.running, self.budget_cap) if self.lean else None)
        if not tasks or blocks_needed(tasks, self.pool.block_size) > len(self.pool.free):
            return False
        tokens = past = attended = rows = 0
        steady = tasks
        for phase, seq, n in tasks:        # roofline.step_cost's sums over work_of(tasks)
            p = seq.cached
            tokens, past, attended = tokens + n, past + p, attended + n * p + n * (n + 1) // 2
            rows += 1 if phase == "decode" or n == seq.num_prefill_left else 0
        cost = self.clock.cost_of_sums((tokens, past, attended, rows))
        micros, report = self.clock.timed(cost)
        end = self.now + (micros if self.cfg.CLOCK == "roofline" else scheduler.step_duration(self.cfg, tasks))
        pool, bs, replica = self.pool, self.pool.block_size, self.replica
        for phase, seq, n in tasks:
            if seq.cached + n > len(seq.block_table) * bs:
                pool.reserve(seq, n)       # new blocks: the pool takes them (and tracks its peak)
            else:
                seq.cached += n            # room in its last block: BlockManager.advance without caching
            if phase != "decode":
                steady = None
                if seq.start is None:
                    seq.start = self.now
                seq.num_prefill_left -= n
                if seq.num_prefill_left:
                    continue
            out = seq.out                  # Engine.take_token of a placeholder (IGNORE_EOS = on: max_new ends it)
            out.append(PLACEHOLDER)
            seq.token_times.append(end)
            if len(out) >= seq.max_new:
                steady = None
                self.lean_finish(seq, end)
            else:
                seq.pending_token = PLACEHOLDER
                if replica is not None:
                    replica.took_token(seq)
        self.log.fact(cost=report)
        if tasks != self.last_tasks:       # the same tasks as the last lean step (a run of decodes): its record's
            self.last_tasks, self.last_rows = tasks, [[seq.id, phase, n] for phase, seq, n in tasks]   # list again
        self.log.tally(self.now, end, tasks, tasks, self.budget_cap, tokens, self.last_rows)   # budget used: tokens
        self.now, self.steady = end, steady
        return True

    def lean_finish(self, seq: Sequence, end: int) -> None:
        seq.reason = "max_new_tokens"
        self.log.event("finish", id=seq.id, reason=seq.reason, n=len(seq.out), blocks=list(seq.block_table))
        self.finish(seq, end)


def _nobody(*values) -> None:
    """A pool's `note` in a lean run: the notes are for blocks [6] and [10], which these runs never print."""


def lean(engine: ReplayEngine, options: RunOptions) -> bool:
    """True when the engine may take the timing-only step (ReplayEngine.run_step): placeholder tokens
    (`timing_only`: no token's value matters, IGNORE_EOS = on), a tally log, no prefix cache, no proposals (a
    ReplayEngine never speculates)."""
    return (options.timing_only and not engine.log.detail and not engine.pool.enable_caching
            and engine.cfg.IGNORE_EOS == "on")


def blocks_needed(tasks: list, block_size: int) -> int:
    """KV blocks the planned tasks take together (BlockManager.num_new_blocks summed): when the free list holds
    them all, no task preempts, sends a newcomer back or waits (kv_room.KVRoom.make_room never acts)."""
    need = 0
    for _, seq, n in tasks:
        more = -(-(seq.cached + n) // block_size) - len(seq.block_table)
        if more > 0:
            need += more
    return need


def clock_only(options: RunOptions) -> bool:
    """The one check of which engine plays a run: a ReplayEngine (recorded tokens, or timing-only) or the full one."""
    return options.tokens is not None or options.timing_only


def replay_engine(lab, options: RunOptions) -> EngineResult:
    """One clock-only run of the trace as `options` say, with the tokens of `options.tokens` (recorded(main_run))
    or placeholders (`options.timing_only`); its log is a tally (run_log.RunLog(detail=False)) unless
    `options.detail`."""
    tokens = options.tokens
    return ReplayEngine(lab, replace(options, tokens=None if tokens is None else tokens.copy())).run()
