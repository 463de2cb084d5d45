"""The simulated serving engine: gateway → input preparation → step loop (prefill / decode).

`run_engine(lab, RunOptions(policy, budget_cap, check=...))` plays the whole request trace once on the
simulated clock and returns an `EngineResult` with everything the 13 blocks print:
gateway decisions ([1], [2]), every step and its tasks ([3], [11]), the followed
request's prefill / decode / sampling snapshots ([4], [5], [7], [8]), the block pool
with its history ([6]) and the finished sequences with their token times ([8], [11], [12]).
With `check` each finished sequence's history is recomputed in one full forward to check the
cache ([5], [6]); the policy-comparison runs of block [12] pass check=False (nobody reads theirs), and their
log is a tally (run_log.RunLog(detail=False): times, tasks, events; no queue, tables nor free lists).

[1] Gateway: a request is refused with 429 when SLOTS + QUEUE_LIMIT requests are
already in the system (running + waiting) when it is looked at; requests are looked at
only at step boundaries, in arrival order, each after the cancellations due by its arrival.
[2] Input preparation refuses with 400 when the text has pieces the tokenizer does not
know, when prompt + max_new > MAX_CONTEXT, or when the request could never fit in the
whole KV pool: a sequence caches at most prompt + max_new − 1 positions (the last
sampled token is never fed), i.e. ceil((prompt + max_new − 1) / BLOCK_SIZE) blocks.

KV admission and preemption as vLLM's v1 scheduler: see kv_room.py (`KVRoom`, which `Engine` uses
when a task needs blocks); the seed program stops with an assertion there.

A step's duration is `step_time`: the seed's COST_* model (scheduler.step_duration) under CLOCK = seed, the
roofline of the step's tasks on the named GPU (roofline.py) under CLOCK = roofline; every step records its
roofline `cost` either way.

Every run keeps a `run_log.RunLog` (`Engine.log`): the engine tells it every decision as it makes
it (arrive, abort, admit, overtake, cache_hit, preempt, finish; the block pool tells it its evictions and its
history: blocks held and returned, the peak, audit problems) and hands it the state at every step
boundary and after every step; the blocks, `--steps`, the trace and the page read that log, so the
page scrubs the run without running it again.

Three behaviours of vLLM, each off (or unused) by default so the seed's output is unchanged:
- Automatic prefix caching (PREFIX_CACHE=on; vLLM design document "Automatic Prefix
  Caching"): when a sequence is scheduled with nothing cached, it takes the cached full
  blocks of what it must prefill (block_manager.take_cached_prefix) and prefills only the
  rest, at least its last token; a preempted request's recompute can hit its own blocks.
- Cancellation (request column `cancel_at`, vLLM's `finish_requests` with status
  FINISHED_ABORTED, as the engine's abort path): at the first step boundary at or after
  `cancel_at`, the request leaves `waiting` or `running`, its blocks go back to the pool and
  it is reported "aborted" with the tokens it had produced. Cancellations are handled in time
  order with the arrivals (a cancelled request takes no place from a later arrival); one whose
  `cancel_at` is at or before its own arrival is never admitted (stage "gateway", no place taken).
- Priority scheduling (SCHED_POLICY=priority, request column `priority`; vLLM's scheduler
  policy "priority"): ready requests are admitted in (priority, arrival) order, lower first,
  and the preemption victim is the running sequence with the largest (priority, arrival)
  instead of the most recently admitted one.

The engine is composed, not inherited: it holds its block pool (block_manager.py), its run log (run_log.py), its
KV-room decisions (`kv_room`, kv_room.KVRoom), its speculative decoder (`spec`, speculative.Speculation: it plans
the proposals' budget, verifies them in one pass and rolls the KV cache back; SPEC_METHOD = off proposes nothing)
and, in a cluster, its replica (`replica`, cluster.Replica: a role, an inbox of KV transfers, hand-offs). One
`iterate()` is one pass of the loop (gateway → scheduler → one step, or idle time); `run()` repeats it, a cluster
calls it replica by replica, and a replay (replay.ReplayEngine: blocks and time, no model) inherits it. The scratch
of one step (newcomers, who ran, preempted, sent back, emitted) is one object passed where needed (step.py).
Leaves out: swapping to CPU, routing, more than one engine, preempting a running request
only because a higher-priority one waits (vLLM v1 preempts only when KV blocks run out).
"""
from __future__ import annotations

import types
from dataclasses import dataclass, field

import numpy as np

from ..model.tokenizer import EOS
from .block_manager import BlockManager
from .decode_batch import DecodeBatch
from ..model import sampler
from ..model.sampler import greedy_token, sample
from .scheduler import admission_check, admission_order, plan_tasks, step_duration  # noqa: F401 (plan_tasks: speculative.plan)
from .kv_room import KVRoom
from ..model.model import logits_at, stand_in_skip
from ..clock.roofline import Clock, work_of
from .run_log import RunLog
from .sequence import Sequence
from .speculative import Speculation
from .step import StepScratch

# sampler.py's functions as imported: a patched run (entrypoints/patch.py) rebinds some of them, and then every token
# goes through its sample()
SAMPLER_FUNCTIONS = {name: f for name, f in vars(sampler).items() if isinstance(f, types.FunctionType)}


def own_sampler() -> bool:
    """sampler.py is the lab's own: no function of it patched (asked once per run, when its Engine is built; a patch
    is applied before the run and taken out after it: entrypoints/patch.py)."""
    return all(getattr(sampler, n) is f for n, f in SAMPLER_FUNCTIONS.items())

MAX_ITERATIONS = 200_000      # a guard: the bounds keep real runs far below it (a long trace: iteration_limit)
FULL_RECOMPUTE = 64           # the cache check recomputes longer histories at the checked rows only (logits_at)


def iteration_limit(requests) -> int:
    """The step loop's guard: MAX_ITERATIONS, plus room for a long trace (an hour of requests on the command line:
    schema.MAX_TRACE_REQUESTS), two passes per token each request could prefill (a chunk of ≥ 1) or generate."""
    return MAX_ITERATIONS + 2 * sum(len(r["text"]) + r["max_new"] for r in requests)


def gateway_admits(num_in_system: int, slots: int, queue_limit: int) -> bool:
    """[1] The gateway's decision: True lets the request in, False refuses it with 429.

    `num_in_system` counts the requests already running or waiting when this one is looked at."""
    return num_in_system < slots + queue_limit


@dataclass(slots=True)
class Decision:
    """One gateway or input-preparation decision: code "OK", "429" or "400" and its facts."""
    request: str
    stage: str                 # "gateway" | "input"
    code: str
    reason: str                # "capacity" | "unknown" | "context" | "pool" | "ok"
    facts: dict


@dataclass(slots=True)
class EngineResult:
    done: list
    rejected: list             # [(Sequence, "429"|"400")]
    decisions: list            # [Decision] in order
    trace: dict
    pool: BlockManager
    end: int
    log: RunLog                # every step and event (run_log.py)
    aborted: list = field(default_factory=list)      # aborted Sequences, by id
    shown: int | None = None   # a cluster: the replica whose `pool` this is (its notes in `log`); None: one engine

    @property
    def problems(self) -> list[tuple]:
        """The pool's audit violations as (step, code) (BlockManager.audit, noted in the run log)."""
        return self.log.noted("problem", self.shown)

    @property
    def preemptions(self) -> list[dict]:
        return self.log.happenings("preempt")

    @property
    def kv_waits(self) -> list[dict]:
        """Newcomers sent back to the waiting queue for lack of KV blocks (kv_room.KVRoom.send_back)."""
        return self.log.happenings("wait_kv")


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How one run plays the trace: `run_engine(lab, RunOptions("continuous", cfg.TOKEN_BUDGET, check=False))`.

    The same object drives a single engine (run_engine), a cluster (cluster.run_cluster) and a clock-only replay
    (replay.replay_engine, cluster.run_cluster with `tokens`)."""
    policy: str = "continuous"         # "continuous" or "static" (scheduler.admission_check)
    budget_cap: int | None = None      # the step's token budget (TOKEN_BUDGET; None: unlimited)
    check: bool = True                 # check every finished sequence against one full forward (blocks [5], [6])
    prefix_cache: bool | None = None   # None: as PREFIX_CACHE says
    spec: str | None = None            # SPEC_METHOD override (None: as configured)
    detail: bool | None = None         # the log's detail (None: a full log when checked, a tally otherwise)
    tokens: dict | None = None         # replay.recorded(a finished run): a clock-only replay takes its tokens here
    timing_only: bool = False          # a clock-only run with placeholder tokens (replay.timing_only says when)


class Engine:
    """One serving engine: its parts are the block pool, the run log, the KV-room decisions (kv_room.KVRoom), the
    speculative decoder (speculative.Speculation) and, in a cluster, its replica (cluster.Replica)."""
    replaying = False                  # replay.ReplayEngine: blocks and time, no model

    def __init__(self, lab, options: RunOptions, requests: list | None = None):
        cfg = self.cfg = lab.cfg
        self.lab, self.policy, self.budget_cap = lab, options.policy, options.budget_cap
        self.check = options.check
        self.log = RunLog(cfg, self.check if options.detail is None else options.detail)   # unchecked: a tally
        caching = cfg.PREFIX_CACHE == "on" if options.prefix_cache is None else options.prefix_cache
        self.pool = BlockManager(cfg.POOL_BLOCKS, cfg.BLOCK_SIZE, enable_caching=caching, event=self.log.event,
                                 note=self.log.note)
        self.sched_policy = cfg.SCHED_POLICY
        self.clock = Clock(cfg, lab.tokenizer.vocab_size)
        reqs = [Sequence.from_request(r) for r in (cfg.REQUESTS if requests is None else requests)]
        self.pending = sorted(reqs, key=lambda r: r.arrival)
        self.waiting, self.running, self.done, self.rejected = [], [], [], []
        self.decisions, self.aborted = [], []
        self.trace = dict(first_sample={}, last_prefill={}, first_decode={}, parity=0.0, gather=0.0,
                          positions_cached=0, positions_naive=0)
        self.now = 0
        self.kv_room = KVRoom(self.pool, self.log, self.waiting, self.running, self.sched_policy, self.trace)
        self.spec = Speculation(lab, options.spec or cfg.SPEC_METHOD, self.pool, self.log, self.trace, self.clock)
        self.replica = None        # cluster.Replica when this engine is one replica of a cluster
        self.batch = DecodeBatch(lab, [self])   # the decodes' forwards, computed together (a cluster: all replicas')
        self.own_sampler = own_sampler()        # greedy tokens after the first take greedy_token (emit)

    # ── [1] gateway and [2] input preparation ──────────────────────────────
    def decide(self, seq, stage, code, reason, **facts) -> None:
        self.decisions.append(Decision(seq.id, stage, code, reason, facts))
        if code != "OK":
            self.rejected.append((seq, code))

    def admit(self, seq: Sequence) -> None:
        cfg = self.cfg
        in_system = len(self.waiting) + len(self.running)
        facts = dict(in_system=in_system, slots=cfg.SLOTS, queue_limit=cfg.QUEUE_LIMIT)
        if not gateway_admits(in_system, cfg.SLOTS, cfg.QUEUE_LIMIT):
            return self.decide(seq, "gateway", "429", "capacity", **facts)
        self.decide(seq, "gateway", "OK", "ok", **facts)
        if self.input_rejected(seq):
            return
        seq.admit(seq.arrival + cfg.COST_GATEWAY + cfg.COST_TOKENIZE_PER_TOKEN * seq.prompt_len)
        self.waiting.append(seq)

    def input_rejected(self, seq: Sequence) -> bool:
        cfg, tok = self.cfg, self.lab.tokenizer
        unknown = tok.unknown(seq.text)
        if unknown:
            self.decide(seq, "input", "400", "unknown", pieces=unknown, chars=tok.unknown_chars(seq.text))
            return True
        seq.tokens, seq.ids = tok.encode(seq.text)
        seq.stand_in_skip = stand_in_skip(seq.prompt_len)          # > 0: a long prompt's stand-in (model.py)
        total = seq.prompt_len + seq.max_new
        facts = dict(prompt=seq.prompt_len, max_new=seq.max_new, total=total, max_context=cfg.MAX_CONTEXT)
        if total > cfg.MAX_CONTEXT:
            self.decide(seq, "input", "400", "context", **facts)
            return True
        blocks = -(-(total - 1) // cfg.BLOCK_SIZE)
        if blocks > cfg.POOL_BLOCKS:
            self.decide(seq, "input", "400", "pool", blocks=blocks, pool_blocks=cfg.POOL_BLOCKS,
                        block_size=cfg.BLOCK_SIZE, **facts)
            return True
        self.decide(seq, "input", "OK", "ok", **facts)
        return False

    # ── finishing, sampling and stop check ([8]) ───────────────────────────
    def finish(self, seq: Sequence, t: int) -> None:
        seq.finish = t
        if self.check:
            self.check_against_recompute(seq)
        self.pool.release(seq)
        self.running.remove(seq)
        self.done.append(seq)

    def check_against_recompute(self, seq: Sequence) -> None:
        """One full forward of the whole history checks every cached logits row and the gathered K/V.

        A request aborted while it recomputes after a preemption has rows past its history (from before the
        preemption): those are left out. A history of more than FULL_RECOMPUTE positions is recomputed at the
        checked rows only (model.logits_at: the same check, O(T) instead of O(T²); a 160-token history costs 0.3 ms
        instead of forward()'s 9 ms, whose (heads, T, T) einsum dominates)."""
        history = seq.history[seq.stand_in_skip:]                # what the model computed (a stand-in: its part)
        checked = [(pos, row) for pos, row in seq.checked_rows if pos < len(history)]
        if len(history) > FULL_RECOMPUTE:
            logits, Kf, Vf = logits_at(self.lab.W, history, [pos for pos, _ in checked])
            checked = [(i, row) for i, (_, row) in enumerate(checked)]
        else:
            logits, Kf, Vf, _ = self.lab.forward(history, 0)
        for pos, row in checked:
            self.trace["parity"] = max(self.trace["parity"], float(np.max(np.abs(logits[pos] - row))))
        K, V = self.pool.gather(seq)
        self.trace["gather"] = max(self.trace["gather"], float(np.max(np.abs(K - Kf))), float(np.max(np.abs(V - Vf))))

    def emit(self, step: StepScratch, seq: Sequence, logits_row) -> None:
        # the LM head's tokens (model.make_weights)
        greedy = seq.sampling["temperature"] == 0 and self.own_sampler
        if greedy and seq.id in self.trace["first_sample"]:          # block [8] shows the first token's info only:
            return self.take_token(step, seq, greedy_token(logits_row))     # sample()'s token without it
        token, info = sample(logits_row, seq.sampling, seq.rng, len(logits_row))
        if seq.id not in self.trace["first_sample"]:          # the snapshot block [8] shows: first token only
            self.trace["first_sample"][seq.id] = dict(info, logits=np.array(logits_row), request=seq.id)
        self.take_token(step, seq, token)

    def take_token(self, step: StepScratch, seq: Sequence, token: int) -> None:
        """Append a generated token at the step's end, then the stop check: eos (unless IGNORE_EOS = on) or max_new
        finishes the sequence."""
        seq.out.append(token)
        seq.token_times.append(step.end)
        step.emitted.append((seq, len(seq.token_times) - 1))
        if token == EOS and self.cfg.IGNORE_EOS != "on":
            seq.reason = "eos"
        elif len(seq.out) >= seq.max_new:
            seq.reason = "max_new_tokens"
        if seq.reason:
            self.log.event("finish", id=seq.id, reason=seq.reason, n=len(seq.out), blocks=list(seq.block_table))
            self.finish(seq, step.end)
        else:
            seq.pending_token = token
            if self.replica is not None:
                self.replica.took_token(seq)           # a prefill replica hands the request off (cluster.py)

    # ── [4] prefill and [7] decode ─────────────────────────────────────────
    def decode(self, step: StepScratch, seq: Sequence) -> None:
        tok = seq.pending_token
        seq.history.append(tok)
        K, V = self.pool.gather(seq)
        position = seq.model_position(seq.cached)                  # seq.cached but for a stand-in
        logits, kn, vn, prob = self.batch.forward(seq, [tok], position, K, V)   # decode_batch.py: = lab.forward
        if seq.id not in self.trace["first_decode"]:
            self.trace["first_decode"][seq.id] = dict(request=seq.id, token=tok, position=position,
                                                      prob=prob, logits=logits[0])
        seq.checked_rows.append((position, logits[0]))
        self.pool.write(seq, kn, vn)
        self.trace["positions_cached"] += 1
        self.trace["positions_naive"] += len(seq.history) - seq.stand_in_skip
        self.emit(step, seq, logits[0])

    def prefill(self, step: StepScratch, seq: Sequence, n: int) -> None:
        if seq.start is None:
            seq.start = self.now
        lo = len(seq.prefill_ids) - seq.num_prefill_left
        chunk = seq.prefill_ids[lo:lo + n]
        seq.history += chunk
        skip = min(max(seq.stand_in_skip - lo, 0), n)             # positions before a stand-in: blocks, no model
        if skip:
            self.pool.reserve(seq, skip)
        if skip < n:
            K, V = self.pool.gather(seq)
            logits, kn, vn, prob = self.batch.forward(seq, chunk[skip:], seq.model_position(lo + skip), K, V)
            self.pool.write(seq, kn, vn)
        seq.num_prefill_left -= n
        self.trace["positions_cached"] += n - skip                 # positions through the model
        self.trace["positions_naive"] += n - skip
        if seq.num_prefill_left == 0:           # the last chunk ends after the stand-in's start: logits exist
            seq.checked_rows.append((seq.model_position(lo + n - 1), logits[-1]))
            self.trace["last_prefill"].setdefault(seq.id, dict(
                token=chunk[-1], position=seq.model_position(lo + n - 1),
                prob=np.array(prob[:, -1, :])))   # a copy: not the chunk's matrix
            self.emit(step, seq, logits[-1])

    def verify(self, step: StepScratch, seq: Sequence) -> None:
        """Speculative decoding's decode: the proposals verified in one pass (speculative.Speculation.verify)."""
        for token in self.spec.verify(step, seq):
            self.take_token(step, seq, token)

    # ── the step loop ([3]) ────────────────────────────────────────────────
    def take_arrivals(self) -> None:
        """The arrivals due by now, in time order, each after the cancellations due by its arrival (a server
        handles an abort when it arrives); then every cancellation due by now."""
        while self.pending and self.pending[0].arrival <= self.now:
            seq, seen = self.pending.pop(0), len(self.decisions)
            self.abort_due(seq.arrival)
            if seq.cancel_at is not None and seq.cancel_at <= seq.arrival:
                self.abort(seq, "gateway")       # cancelled before it arrived: never admitted, takes no place
                continue
            self.admit(seq)
            self.log.arrive(seq, self.decisions[seen:])
        self.abort_due(self.now)

    def schedule(self) -> StepScratch:
        """Move ready requests into free slots; the step's scratch opens with them (its newcomers)."""
        ready = [w for w in self.waiting if w.ready <= self.now]
        room, check = admission_check(self.policy, self.cfg.SLOTS, self.running, self.waiting, ready, self.pending)
        chosen = admission_order(ready, self.sched_policy)[:room]
        for seq in chosen:
            self.log.event("admit", id=seq.id, why=check, room=room)
        if self.sched_policy == "priority":
            self.note_overtakes(chosen, ready)
        step = StepScratch(room, check, newcomers=list(chosen), queue_before=list(self.waiting))
        for seq in chosen:
            self.waiting.remove(seq)
            self.running.append(seq)
            cached_before = seq.num_cached_tokens
            step.before_admit[seq.id] = (cached_before, self.take_cached_prefix(seq))
        return step

    def note_overtakes(self, chosen: list, ready: list) -> None:
        """Record who was admitted ahead of earlier ready requests that keep waiting (priority only)."""
        left = [w for w in ready if w not in chosen]
        for seq in chosen:
            behind = [w for w in left if ready.index(w) < ready.index(seq)]
            if behind:
                self.log.event("overtake", id=seq.id, priority=seq.priority,
                               overtaken=[dict(id=w.id, priority=w.priority, arrival=w.arrival) for w in behind])

    def take_cached_prefix(self, seq: Sequence) -> int:
        """Prefix caching: a sequence with nothing cached starts from the cached full blocks of its prefill."""
        if not self.pool.enable_caching:
            return 0
        recompute = seq.num_cached_tokens is not None
        n = self.pool.take_cached_prefix(seq, seq.prefill_ids, recompute)
        if n:
            self.log.event("cache_hit", id=seq.id, tokens=n, blocks=list(seq.block_table), recompute=recompute)
        seq.skip_cached(n)
        self.trace["positions_naive"] += n
        return n

    # ── cancellation (vLLM's finish_requests → FINISHED_ABORTED) ───────────
    def abort_due(self, until: int) -> None:
        """Abort every request in the system whose client cancelled at or before `until`, in cancel order."""
        due = [s for s in self.running + self.waiting if s.cancel_at is not None and s.cancel_at <= until]
        for seq in sorted(due, key=lambda s: (s.cancel_at, s.arrival)):
            self.abort(seq)
        if due and self.check:
            self.pool.audit()

    def abort(self, seq: Sequence, stage: str | None = None) -> None:
        """Drop a cancelled request; stage "gateway" = cancelled at or before its arrival (never admitted)."""
        stage = stage or ("running" if seq in self.running else "waiting")
        if stage == "gateway":
            seq.ready = seq.arrival
        blocks = list(seq.block_table)
        if self.check and seq.history:
            self.check_against_recompute(seq)
        if blocks:
            self.pool.release(seq)
        if stage != "gateway":
            (self.running if stage == "running" else self.waiting).remove(seq)
        seq.finish, seq.reason = self.now, "aborted"
        self.aborted.append(seq)
        self.log.event("abort", id=seq.id, time=self.now, cancel_at=seq.cancel_at, stage=stage, blocks=blocks,
                       generated=len(seq.out))

    @property
    def busy(self) -> bool:
        """Requests still to arrive, wait, run (or, on a replica, KV still to come in)."""
        return bool(self.pending or self.waiting or self.running or (self.replica and self.replica.inbox))

    def skip_idle_time(self) -> None:
        """Nothing runs: the clock jumps to the next arrival, readiness or cancellation (a replica's arriving KV
        too), never past a limit its cluster set."""
        cancels = [w.cancel_at for w in self.waiting if w.cancel_at is not None]
        coming = [r.arrival for r in self.pending] + [w.ready for w in self.waiting] + cancels
        limits = ()
        if self.replica is not None:
            coming, limits = coming + self.replica.arriving(), self.replica.limits
        upcoming = [t for t in coming if t > self.now]
        if upcoming:              # none left: every remaining request was just refused
            self.now = min(upcoming + [t for t in limits if t is not None and t > self.now])

    def iterate(self) -> bool:
        """One pass of the loop: arrivals (and a replica's arrived KV), the scheduler, then one step (True) or
        idle time (False)."""
        self.take_arrivals()
        if self.replica is not None:
            self.replica.take_transfers()
        step = self.schedule()
        if not self.running:
            self.skip_idle_time()
            return False
        self.log.boundary(self.now, self.waiting, self.running, step.room, step.check)
        self.run_step(step)
        return True

    def run_step(self, step: StepScratch) -> None:
        """Run the planned tasks; a step where none ran (all preempted or sent back) is recorded too (kv_room.py)."""
        tasks = self.spec.plan(step, self.running, self.budget_cap)   # plan_tasks after the proposals' share
        step.work = self.spec.spec_work(step, work_of(tasks))
        step.end = self.now + self.step_time(step, tasks)
        ran = [(phase, seq, n) for phase, seq, n in tasks if self.run_task(step, phase, seq, n)]
        for seq in [s for s in step.newcomers if step.preempted and s.id not in step.ran]:
            self.kv_room.send_back(step, seq, "preempted", seq, 0)   # a step that preempted keeps no newcomer
        if step.preempted or step.waited:
            self.retime(step, ran)
        if not ran:                       # every task's sequence was preempted or sent back: no work, no time,
            step.end = self.now           # but a step of its own (vLLM: an empty SchedulerOutput)
        if self.check:
            self.pool.audit()
        self.log.fact(cost=self.clock.report(self.cost_of(step, ran)), **({"spec": step.spec} if step.spec else {}))
        firsts = [(seq.id, seq.token_times[0]) for seq, i in step.emitted if i == 0]
        self.log.step_done(self.now, step.end, tasks, ran, self.budget_cap, self.pool, self.waiting, self.running,
                           firsts)
        self.now = step.end

    def run_task(self, step: StepScratch, phase: str, seq: Sequence, n: int) -> bool:
        if seq.id in step.preempted or seq.id in step.waited:
            return False
        if step.preempted and seq in step.newcomers:              # vLLM: no waiting request after a preemption
            self.kv_room.send_back(step, seq, "preempted", seq, n)
            return False
        if not self.kv_room.make_room(step, seq, n + self.spec.proposed(step, seq)):
            return False
        step.ran.add(seq.id)
        if phase == "decode":
            self.verify(step, seq) if self.spec.proposed(step, seq) else self.decode(step, seq)
        else:
            self.prefill(step, seq, n)
        return True

    def retime(self, step: StepScratch, ran: list) -> None:
        """After a preemption only the tasks that ran take time: move this step's end and token times."""
        step.end = self.now + self.step_time(step, ran)
        for seq, i in step.emitted:
            seq.token_times[i] = step.end
            if seq.finish is not None and i == len(seq.token_times) - 1:
                seq.finish = step.end

    def tell_progress(self) -> None:
        """(steps, requests settled, requests) to `lab.progress`, if any (the page shows it: entrypoints/web.py)."""
        if getattr(self.lab, "progress", None) is not None:
            self.lab.progress(self.log.count, len(self.done) + len(self.rejected) + len(self.aborted),
                              len(self.cfg.REQUESTS))

    def cost_of(self, step: StepScratch, tasks):
        """The roofline cost (roofline.step_cost) of these tasks of the step being executed."""
        return self.clock.cost([step.work[seq.id] for _, seq, _ in tasks])

    def step_time(self, step: StepScratch, tasks) -> int:
        """µs of a step with these tasks: the seed's COST_* model (scheduler.step_duration) or the roofline."""
        if self.cfg.CLOCK == "roofline":
            return self.clock.micros(self.cost_of(step, tasks)) + self.spec.spec_micros(step, tasks)
        return step_duration(self.cfg, tasks) + self.spec.spec_micros(step, tasks)

    def run(self) -> EngineResult:
        for _ in range(iteration_limit(self.cfg.REQUESTS)):
            if not self.busy:
                break
            if self.iterate():
                self.tell_progress()
        else:
            raise RuntimeError("engine did not finish within MAX_ITERATIONS")
        self.log.close()
        return EngineResult(sorted(self.done, key=lambda r: r.id), self.rejected, self.decisions, self.trace, self.pool,
                            self.now, self.log, sorted(self.aborted, key=lambda r: r.id))


def run_engine(lab, options: RunOptions) -> EngineResult:
    """One run of the trace as `options` say (policy, token budget, check, prefix cache, SPEC_METHOD, log detail)."""
    return Engine(lab, options).run()
