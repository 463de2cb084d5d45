"""[3] Iteration scheduler: at every step boundary, who runs and how many tokens each gets.

Two admission policies decide how many ready requests move from `waiting` to `running`
(`admission_room`; `admission_check` adds which check decided it, for the step narration):
- "continuous": take ready requests as soon as a slot is free (continuous batching, Orca);
- "static": form a new group only when the previous group has finished and either
  SLOTS requests are ready or nothing more can arrive.

Then `plan_tasks` builds the step: every running sequence whose prompt is done decodes
1 token (decode first), and the rest of the token budget is handed, in running order, to
prompt chunks (chunked prefill, Sarathi-Serve). `budget_cap=None` means "no chunking":
a prompt is prefilled whole in one step.

    >>> from types import SimpleNamespace as NS
    >>> a, c = NS(id="A", num_prefill_left=0), NS(id="C", num_prefill_left=9)
    >>> [(p, s.id, n) for p, s, n in plan_tasks([a, c], 6)]
    [('decode', 'A', 1), ('prefill', 'C', 5)]

Who may get KV blocks follows vLLM's v1 scheduler (vllm/v1/core/sched/scheduler.py,
`Scheduler.schedule`): requests already running are served first and only they preempt; a
request admitted at this boundary whose chunk finds no free block goes back to the waiting
queue (engine.send_back, event "wait_kv"): it never causes a preemption.
`choose_victim` picks the running sequence to preempt when a running sequence's task needs a
KV block and none is free (after this boundary's newcomers gave theirs back): the most
recently admitted one (vLLM: `self.running.pop()`; it has the least work to lose).

Who goes first (SCHED_POLICY): "fcfs" admits ready requests in arrival order and, when KV
blocks run out, preempts the most recently admitted running sequence; "priority" (vLLM's
scheduler policy "priority") admits in (priority, arrival) order, lower first, and preempts
the running sequence with the largest (priority, arrival).

    >>> w = [NS(id="B", priority=1, arrival=0), NS(id="C", priority=0, arrival=1000)]
    >>> [s.id for s in admission_order(w, "priority")], preemption_victim(w, "priority", w[0]).id
    (['C', 'B'], 'B')

`step_duration` is the seed's simulated clock (CLOCK = seed): prefill costs COST_PREFILL_FIXED +
COST_PREFILL_PER_TOKEN × tokens, decode COST_DECODE_FIXED + COST_DECODE_PER_SEQ × seqs,
and the two phases of a mixed step run one after the other. Assumed costs, not measured.
Under CLOCK = roofline the engine charges roofline.py's formula instead (engine.Engine.step_time).

Leaves out: fairness between tenants, the proposals' share of the budget under speculative decoding
(speculative.split_budget, before plan_tasks), prefix-aware scheduling,
preempting a running request only because a higher-priority one waits (vLLM v1 does not
either), and vLLM's `token_budget == 0 -> break` in its waiting loop: here a request admitted
with no token budget left still takes its slot, as the seed does.
"""
from __future__ import annotations


def admission_room(policy: str, slots: int, running: list, waiting: list, ready: list, pending: list) -> int:
    """How many ready requests may start running now (the rule the page's editor lets a student rewrite)."""
    if policy == "continuous":
        return slots - len(running)
    full_group = len(ready) >= slots or (not pending and len(ready) == len(waiting))
    return slots if (not running and full_group) else 0


def admission_check(policy: str, slots: int, running: list, waiting: list, ready: list,
                    pending: list) -> tuple[int, str]:
    """(admission_room(...), the check that decided it): said from the state, for the step narration.

    The check is "free_slot" / "no_slot" (continuous), "full_group" / "group_running" /
    "group_incomplete" (static: the previous group still runs, or fewer than SLOTS are ready
    while more may still arrive), or "room_rule" when the state would admit but admission_room
    said 0 (only an edited admission_room does that)."""
    room = admission_room(policy, slots, running, waiting, ready, pending)
    if policy == "continuous":
        check = "free_slot" if slots > len(running) else "no_slot"
    elif running:
        check = "group_running"
    else:
        full_group = len(ready) >= slots or (not pending and len(ready) == len(waiting))
        check = "full_group" if full_group else "group_incomplete"
    return room, "room_rule" if room <= 0 and check in ("free_slot", "full_group") else check


def priority_key(seq) -> tuple:
    return (seq.priority, seq.arrival)


def admission_order(ready: list, sched_policy: str) -> list:
    """Ready requests in the order they may start: arrival order, or (priority, arrival) (a stable sort)."""
    return sorted(ready, key=priority_key) if sched_policy == "priority" else ready


def choose_victim(running: list, seq) -> object:
    """The running sequence to preempt so that `seq` can get a KV block: the last one admitted (maybe `seq`).

    `running` holds the sequences running before this step's boundary (the engine never preempts a
    newcomer: it sends it back to the waiting queue instead)."""
    return running[-1]


def preemption_victim(running: list, sched_policy: str, seq):
    """Whom to preempt when KV blocks run out (vLLM: running.pop() / max by (priority, arrival)).

    Under "fcfs" the rule is `choose_victim`, looked up in this module when called."""
    if sched_policy == "priority":
        return max(running, key=priority_key)
    return choose_victim(running, seq)


def plan_tasks(running: list, budget_cap: int | None) -> list[tuple[str, object, int]]:
    """[(phase, sequence, n_tokens)]: decodes first, then prompt chunks within the budget."""
    decode = [r for r in running if r.num_prefill_left == 0]
    tasks = [("decode", r, 1) for r in decode]
    budget = None if budget_cap is None else budget_cap - len(decode)
    for r in running:
        if budget is not None and budget <= 0:      # the budget is spent: every later chunk would get n <= 0
            break
        if r.num_prefill_left:
            n = r.num_prefill_left if budget is None else min(r.num_prefill_left, budget)
            if n > 0:
                tasks.append(("prefill", r, n))
                budget = None if budget is None else budget - n
    return tasks


def step_duration(cfg, tasks) -> int:
    """Simulated µs of one step with these tasks (assumed cost model)."""
    prefill_tokens = sum(n for p, _, n in tasks if p == "prefill")
    num_decode = sum(1 for p, _, _ in tasks if p == "decode")
    duration = 0
    if prefill_tokens:
        duration += cfg.COST_PREFILL_FIXED + cfg.COST_PREFILL_PER_TOKEN * prefill_tokens
    if num_decode:
        duration += cfg.COST_DECODE_FIXED + cfg.COST_DECODE_PER_SEQ * num_decode
    return duration
