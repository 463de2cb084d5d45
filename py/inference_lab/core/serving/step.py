"""[3] One step's scratch: what the engine learns between a step boundary and the step's end, in one object.

`Engine.schedule` (engine.py) opens a `StepScratch` at every boundary where something runs: the newcomers it
admitted, the waiting queue as it found it and what each newcomer took from the prefix cache. The step then
fills in who ran, who was preempted or sent back for KV blocks (kv_room.py), the tokens it emitted, the
proposals it verifies (speculative.py) and the tasks' work for the roofline clock. Nothing of it outlives the
step: the run log (run_log.py) keeps what a reader may need, as events and facts.

    >>> s = StepScratch(room=1, check="free_slot")
    >>> s.newcomers, s.preempted, s.ran
    ([], [], set())

Leaves out: the decisions themselves (kv_room.py, scheduler.py), the record of the step (run_log.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class StepScratch:
    room: int                                          # slots the admission check gave (scheduler.admission_check)
    check: str                                         # the check that decided `room`
    newcomers: list = field(default_factory=list)      # sequences admitted at this boundary, in admission order
    queue_before: list = field(default_factory=list)   # `waiting` as the boundary found it (send_back's old places)
    before_admit: dict = field(default_factory=dict)   # id -> (num_cached_tokens before, tokens taken from the cache)
    end: int = 0                                       # µs the step ends (before a preemption retimes it)
    work: dict = field(default_factory=dict)           # id -> (new tokens, cached) of the planned tasks (roofline)
    ran: set = field(default_factory=set)              # ids whose task ran
    preempted: list = field(default_factory=list)      # ids preempted in this step (their tasks do not run)
    waited: list = field(default_factory=list)         # newcomers sent back to waiting (no KV blocks)
    emitted: list = field(default_factory=list)        # (sequence, index in token_times) emitted during this step
    proposals: dict = field(default_factory=dict)      # id -> (tokens, qs) proposed, not verified yet
    spec: dict = field(default_factory=dict)           # id -> {"proposed", "accepted", "token"}: the step's fact
