"""Every sentence of the step narration, in English: the sibling of text_steps_vi.py.

Same shape as text_steps_vi.py: `narrate(record)` gives one (title, lines) per step, the first
line starting with "Step N/M"; `after_lines`, `WAIT_WHY`, `STOP_WHY` likewise. Each line prints
the same numbers in the same order as its Vietnamese twin.

Leaves out: all computation (steps.py records, this module only formats); the word-free helpers
(blocks, ranges, count) are text_steps_vi.py's, imported.
"""
from __future__ import annotations

from .text_en import ms, pl, why
from .text_steps_vi import blocks, count

WAIT_WHY = {
    "preparing": "input preparation not done",
    "no_slot": "no free slot",
    "room_rule": "admission_room (edited code) gives 0 slots although a slot is free",
    "group_running": "static: the previous batch is still running",
    "group_incomplete": "static: not yet a full batch of SLOTS ready requests",
}
STOP_WHY = {"eos": "hit <eos>", "max_new_tokens": "reached max_new"}


def ranges(rs) -> str:
    return ", ".join(str(lo) if lo == hi else f"{lo}–{hi}" for lo, hi in rs) or "none left"


# ── one line per kind of event ─────────────────────────────────────────────
def arrive_line(e) -> str:
    d = e["decisions"][-1]
    head = f"Gateway: {e['id']} (arrives {ms(e['arrival'])}) "
    if d["code"] == "429":
        return head + f"is REJECTED 429 because the queue is full - {why(d)} (SLOTS + QUEUE_LIMIT)."
    if d["code"] == "400":
        return head + f"passes the gateway but is REJECTED 400 during input preparation - {why(d)}."
    gate = e["decisions"][0]
    return head + f"is admitted - {why(gate)}; joins the waiting queue, ready at {ms(e['ready'])}."


def admit_line(e, slots) -> str:
    if e["why"] == "full_group":
        return f"{e['id']} starts running: static has a full batch and takes all {slots} slots."
    return f"{e['id']} starts running: {e['room']}/{slots} slots were free when checked."


def abort_line(e) -> str:
    where = "running" if e["stage"] == "running" else "waiting"
    made = f"{pl(e['generated'], 'token')} generated" if e["generated"] else "no token generated yet"
    freed = f"frees blocks {blocks(e['blocks'])}" if e["blocks"] else "held no block yet"
    return (f"CANCEL: {e['id']}'s client cancels at {ms(e['cancel_at'])} -> the engine drops {e['id']} at the step boundary at "
            f"{ms(e['time'])} ({where}, {made}, {freed}); status \"aborted\", "
            f"it runs no further (like vLLM's finish_requests).")


def overtake_line(e) -> str:
    behind = ", ".join(f"{w['id']} (priority {w['priority']}, arrived {ms(w['arrival'])})" for w in e["overtaken"])
    return (f"{e['id']} (priority {e['priority']}) starts running before {behind} although it was ready later: SCHED_POLICY=priority "
            f"orders the waiting queue by (priority, arrival), lower first.")


def cache_hit_line(e, total) -> str:
    whose = "its own blocks, still cached from before its preemption" if e["recompute"] else "full blocks with the same hash from an earlier prompt"
    rest = f", so it only prefills the remaining {total - e['tokens']}/{total} tokens" if total is not None else ""
    return (f"Prefix cache: {e['id']} takes back blocks {blocks(e['blocks'])} ({whose}): the first {e['tokens']} tokens "
            f"of its prompt already have K/V and are not recomputed{rest}.")


def running_part(r) -> str:
    rid, phase, done, total, gen, preempted = r
    if phase == "decode":
        return f"{rid} decode (generated {gen})"
    redo = f", recompute after preemption: prompt + {gen} generated" if preempted else ""
    return f"{rid} prefill (prompt {done}/{total}{redo})"


def waiting_lines(it, slots, ready, priority_key=None) -> list[str]:
    """The queue in order, then who waits for which reason (the check that kept it waiting)."""
    if not it["waiting"]:
        return ["Waiting queue: empty."]
    if priority_key:
        lines = ["Waiting queue (in order; admitted by priority, then arrival): "
                 + ", ".join(f"{w[0]} (priority {priority_key.get(w[0], (0,))[0]})" for w in it["waiting"]) + "."]
    else:
        lines = ["Waiting queue (in order): " + ", ".join(w[0] for w in it["waiting"]) + "."]
    for reason, label in WAIT_WHY.items():
        who = [w for w in it["waiting"] if w[1] == reason]
        if not who:
            continue
        if reason == "preparing":
            names = ", ".join(f"{w[0]} (ready at {ms(ready[w[0]])})" if ready.get(w[0]) is not None else w[0] for w in who)
        else:
            names = ", ".join(w[0] for w in who)
        busy = f" ({len(it['running'])}/{slots} slots busy)" if reason == "no_slot" else ""
        lines.append(f"Waiting because {label}{busy}: {names}.")
    back = [w[0] for w in it["waiting"] if w[2]]
    if back:
        lines.append(f"Preempted, waiting to recompute: {', '.join(back)}.")
    return lines


def budget_lines(it) -> list[str]:
    used, cap = it["budget"]
    decodes = [t for t in it["tasks"] if t[1] == "decode"]
    chunks = [t for t in it["tasks"] if t[1] == "prefill"]
    head = f"Budget of {pl(cap, 'token')}: " if cap is not None else "No token limit: "
    parts = [("decodes first: " + ", ".join(f"{t[0]} 1" for t in decodes)) if decodes else "no decode"]
    if chunks:
        rest = f"{cap - len(decodes)} left for prompts: " if cap is not None else "prompts: "
        parts.append(rest + ", ".join(f"{t[0]} {t[2]}" for t in chunks))
    tail = f" -> used {used}/{cap}, {cap - used} left." if cap is not None else "."
    return [head + "; ".join(parts) + tail]


def budget_event_line(e) -> str:
    got = "gets no token" if e["got"] == 0 else f"gets only {e['got']}"
    return (f"{e['id']} has {pl(e['left'], 'prompt token')} left but {got}: the step's budget of {e['cap']} tokens is used up "
            f"(decodes go first, then prompt chunks in admission order).")


def chunk_line(e) -> str:
    what = "re-prefill" if e["recompute"] else "prefill"
    start = "starts " if e["first"] else ""
    end = ", prompt done" if e["done"] == e["total"] else ""
    return f"{e['id']} {start}{what} of {pl(e['n'], 'token')} (prompt {e['done']}/{e['total']}{end})."


def preempt_line(e, pool_blocks, priority_key=None) -> str:
    need = f"{e['needed_by']} needs {pl(e['need'], 'new KV block')} but the pool has only {e['free']}/{pool_blocks} free blocks"
    if priority_key:
        p, t = priority_key.get(e["id"], (0, 0))
        rule = f"has the largest (priority, arrival) = ({p}, {ms(t)}) of the running sequences (SCHED_POLICY=priority)"
        victim = f"{e['id']} {rule}, so it preempts itself" if e["id"] == e["needed_by"] else f"preempt {e['id']}: it {rule}"
    elif e["id"] == e["needed_by"]:
        victim = f"{e['id']} is the most recently admitted sequence, so it preempts itself"
    else:
        victim = f"preempt {e['id']} (the most recently admitted sequence)"
    freed = f"frees blocks {blocks(e['blocks'])}" if e["blocks"] else "held no block yet"
    line = (f"PREEMPT: {need} -> {victim}: {freed}, back to the front of the waiting queue; when it runs again it must prefill "
            f"{pl(e['recompute'], 'token')} again (prompt + {e['generated']} generated).")
    if e["dropped"]:
        line += f" The {pl(e['dropped'], 'token')} of work of {e['id']} in this step do not run."
    return line


def first_line(e) -> str:
    return f"{e['id']} gets its first token at {ms(e['time'])} (TTFT ends here)."


def finish_line(e) -> str:
    return f"{e['id']} finishes ({STOP_WHY.get(e['reason'], e['reason'])}, {pl(e['n'], 'token')}), frees blocks {blocks(e['blocks'])}, gives up its slot."


def kv_line(it, pool_blocks) -> str:
    tables = "; ".join(f"{rid}→{blocks(t)}" for rid, t in it["tables"].items()) or "no sequence holds a block"
    line = f"KV after the step: {tables}."
    if it["alloc"]:
        line += f" Just allocated {blocks(it['alloc'])}."
    if it.get("reused"):
        line += f" Taken back from the prefix cache {blocks(it['reused'])}."
    if it["freed"]:
        line += f" Just freed {blocks(it['freed'])}."
    holders = {}
    for rid, t in it["tables"].items():
        for b in t:
            holders.setdefault(b, []).append(rid)
    shared = [f"{b} ({', '.join(ids)})" for b, ids in sorted(holders.items()) if len(ids) > 1]
    if shared:
        line += f" Shared: {'; '.join(shared)}."
    line += f" Free {count(it['free'])}/{pool_blocks}: {ranges(it['free'])}"
    if it.get("cached_free"):
        line += f"; of these, still holding a prefix-cache hash (reusable until taken for new data): {ranges(it['cached_free'])}"
    return line + "."


# ── one step ───────────────────────────────────────────────────────────────
def title(it) -> str:
    """A few words for the step: its most telling events, else its tasks."""
    ev = it["events"]
    picks = [f"preempt {e['id']}" for e in ev if e["kind"] == "preempt"]
    picks += [f"{e['id']} cancelled" for e in ev if e["kind"] == "abort"]
    picks += [f"{e['id']} takes {pl(e['tokens'], 'token')} from the prefix cache" for e in ev if e["kind"] == "cache_hit"]
    picks += [f"{e['id']} overtakes {', '.join(w['id'] for w in e['overtaken'])} by priority" for e in ev if e["kind"] == "overtake"]
    picks += [f"{e['id']} {'starts re-prefill' if e['recompute'] else 'starts prefill'} {pl(e['n'], 'token')}"
              for e in ev if e["kind"] == "chunk" and e["first"]]
    picks += [f"{e['id']} finishes" for e in ev if e["kind"] == "finish"]
    picks += [f"{e['id']} first token" for e in ev if e["kind"] == "first"]
    picks += [f"{e['id']} rejected {e['code']}" for e in ev if e["kind"] == "arrive" and e["code"] != "OK"]
    if picks:
        return ", ".join(picks[:3])
    return ", ".join(f"{rid} {'decode' if p == 'decode' else 'prefill ' + pl(n, 'token')}" for rid, p, n in it["tasks"])


def step_lines(it, n, m, record, ready) -> list[str]:
    slots, pool, priority_key = record["slots"], record["pool_blocks"], record.get("priority_key")
    ev = it["events"]
    total = {r[0]: r[3] for r in it["running"]}
    lines = [f"Step {n}/{m} ({ms(it['start'])} -> {ms(it['end'])}): {title(it)}"]
    lines += [arrive_line(e) for e in ev if e["kind"] == "arrive"]
    lines += [abort_line(e) for e in ev if e["kind"] == "abort"]
    lines += [admit_line(e, slots) for e in ev if e["kind"] == "admit"]
    lines += [overtake_line(e) for e in ev if e["kind"] == "overtake"]
    lines += [cache_hit_line(e, total.get(e["id"])) for e in ev if e["kind"] == "cache_hit"]
    lines.append(f"Running {len(it['running'])}/{slots} slots: " + "; ".join(running_part(r) for r in it["running"]) + ".")
    lines += waiting_lines(it, slots, ready, priority_key)
    lines += budget_lines(it)
    lines += [budget_event_line(e) for e in ev if e["kind"] == "budget"]
    lines += [chunk_line(e) for e in ev if e["kind"] == "chunk"]
    lines += [preempt_line(e, pool, priority_key) for e in ev if e["kind"] == "preempt"]
    lines += [first_line(e) for e in ev if e["kind"] == "first"]
    lines += [finish_line(e) for e in ev if e["kind"] == "finish"]
    lines.append(kv_line(it, pool))
    return lines


def narrate(record) -> list[tuple[str, list[str]]]:
    """(title, lines) for every recorded step."""
    m = record["count"]
    ready = {e["id"]: e.get("ready") for it in record["items"] for e in it["events"] if e["kind"] == "arrive"}
    return [(title(it), step_lines(it, i + 1, m, record, ready)) for i, it in enumerate(record["items"])]


def after_lines(record) -> list[str]:
    """Requests the gateway looked at, or cancelled while waiting, after the last step (only refusals and
    cancellations can happen then)."""
    if not record["after"]:
        return []
    head = f"After step {record['count']}:" if record["count"] else "No steps (no request ran):"
    return [head] + [arrive_line(e) if e["kind"] == "arrive" else abort_line(e) for e in record["after"]
                     if e["kind"] in ("arrive", "abort")]
