"""[6] Making KV room inside a step: newcomers give blocks back, running requests preempt (vLLM's v1 rule).

`Engine` (engine.py) holds a `KVRoom` (`engine.kv_room`), built on the engine's pool, queues and run log: when a
task of the step needs KV positions that the pool cannot store, `make_room` decides who gives blocks back, exactly
once per shortage; the step's scratch (step.StepScratch: its newcomers, who ran, who was preempted) is passed in.

KV admission as vLLM's v1 scheduler (vllm/v1/core/sched/scheduler.py, `Scheduler.schedule`):
RUNNING requests are scheduled first and only they preempt; WAITING ones are taken only if the
step preempted nothing, and the loop stops (`break`) at the first one whose `allocate_slots`
fails. Here newcomers take free slots at the boundary (with their cached prefix) and each
newcomer's chunk is checked when the step allocates it, in the seed's order (blocks freed by a
request that finished earlier in the step count). A running request short of blocks first makes
the newcomers holding blocks give them back (the last first); a newcomer short of blocks, or one that
gave its blocks away, goes back to `waiting` at its old place with every newcomer after it (`send_back`,
event "wait_kv": vLLM's waiting loop `break`s at the first request it cannot schedule, so no request
after it in the queue's order — arrival, or (priority, arrival) — starts in that step); a step
that preempted keeps no newcomer. Left out on purpose: vLLM's `token_budget == 0 -> break` (a
newcomer with no budget still counts as running, as in the seed, whose bytes must hold).

Preemption (vLLM's "recompute" mode) — the seed program stops with an assertion here:
when a running sequence's task needs a KV block and none is free, the most recently admitted
running sequence (vLLM: `self.running.pop()`) is preempted: its blocks are freed, it goes back to
the FRONT of `waiting`,
and when it runs again it prefills its prompt plus every token it already generated,
then continues; its per-request RNG is untouched, so its tokens are the same as in a
run without preemption. A task whose sequence is preempted in this step does not run,
and the step's duration counts only the tasks that ran. A step where none ran (every task's sequence
preempted or sent back) is still a step of the record, with no tasks and no time (engine.Engine.run_step):
vLLM's schedule() then returns nothing scheduled (a running request that preempts itself `break`s the
running loop; a step that preempted takes no waiting request), and the requests it preempted are admitted
again at the next boundary, in the next step, never "preempted in the step they were admitted". TTFT parts of a
preempted request: `start` stays the first step that worked on it, so queue = start − ready and
prefill = first token − start, which includes any time lost to a preemption before the
first token (reported separately as `lost`).

Leaves out: swapping to CPU (vLLM's old "swap" mode), preempting only because a higher-priority
request waits (vLLM v1 preempts only when KV blocks run out) and the step loop itself (engine.py).
"""
from __future__ import annotations

from .scheduler import preemption_victim
from .sequence import Sequence
from .step import StepScratch


class KVRoom:
    """The engine's KV decisions over its pool, queues (the engine's own lists), run log and trace."""

    def __init__(self, pool, log, waiting: list, running: list, sched_policy: str, trace: dict):
        self.pool, self.log, self.waiting, self.running = pool, log, waiting, running
        self.sched_policy, self.trace = sched_policy, trace

    def make_room(self, step: StepScratch, seq: Sequence, n: int) -> bool:
        """Free KV blocks until `seq` can store n positions; False when `seq` did not get them.

        As vLLM's schedule(): the newcomers admitted after `seq` (all of them when `seq` was already
        running) that hold blocks give them back first, the last one first, and wait again with every
        newcomer after them; a newcomer still short waits again with every newcomer after it (`send_back`:
        a waiting request never preempts, and vLLM's waiting loop stops at the first one it cannot take); a
        running request then preempts victims (scheduler.preemption_victim) among the requests that
        ran before this boundary."""
        newcomers = step.newcomers
        while not self.pool.can_append(seq, n):
            later = newcomers[newcomers.index(seq) + 1:] if seq in newcomers else newcomers
            later = [s for s in later if s.id not in step.ran]
            holders = [s for s in later if s.block_table]
            if holders:
                giver = holders[-1]
                self.send_back(step, giver, "gives_way", seq, n)
                for s in later[later.index(giver) + 1:]:  # no blocks, but after `giver` in the queue's order
                    self.send_back(step, s, "behind", seq, n, by=giver)
            elif seq in newcomers:
                self.send_back(step, seq, "short", seq, n)
                for s in later:                   # vLLM's waiting loop stops at the first request short of blocks
                    self.send_back(step, s, "behind", seq, n)
                return False
            else:
                victim = preemption_victim([s for s in self.running if s not in newcomers], self.sched_policy, seq)
                self.preempt(step, victim, seq, n)
                if victim is seq:
                    return False
        return True

    def send_back(self, step: StepScratch, seq: Sequence, why: str, needy: Sequence, n: int,
                  by: Sequence | None = None) -> None:
        """A newcomer waits again at its old place in `waiting`, giving back the cached blocks it took (vLLM:
        allocate_slots failed, it never left the waiting queue). why: "short" (its own chunk), "gives_way"
        (its blocks go to `needy`), "behind" (admitted after `by`, default `needy`, which was short or gave way),
        "preempted". `need` and `free` are said for `needy`'s n positions."""
        need, free = self.pool.num_new_blocks(needy, n), len(self.pool.free)
        by = by or needy
        blocks = self.pool.evict(seq)
        cached_before, skipped = step.before_admit.pop(seq.id)
        seq.history, seq.num_prefill_left, seq.num_cached_tokens = [], len(seq.prefill_ids), cached_before
        self.trace["positions_naive"] -= skipped
        self.running.remove(seq)
        step.newcomers.remove(seq)
        later = set(step.queue_before[step.queue_before.index(seq) + 1:])
        self.waiting.insert(next((i for i, w in enumerate(self.waiting) if w in later), len(self.waiting)), seq)
        self.log.event("wait_kv", id=seq.id, why=why, by=by.id, need=need, free=free, blocks=list(blocks))
        step.waited.append(seq.id)

    def preempt(self, step: StepScratch, seq: Sequence, needy: Sequence, n: int) -> None:
        """Preempt `seq` because `needy` must store n more positions and no block is free."""
        need, free = self.pool.num_new_blocks(needy, n), len(self.pool.free)
        blocks = self.pool.evict(seq)
        self.log.event("preempt", id=seq.id, blocks=list(blocks), generated=len(seq.out),
                       recompute=len(seq.ids) + len(seq.out), needed_by=needy.id, need=need, free=free)
        seq.reset_for_recompute()
        self.running.remove(seq)
        self.waiting.insert(0, seq)
        step.preempted.append(seq.id)
