"""The step narration in any language: which sentence each recorded event gets, and in which order.

`narrate(w, record, cfg)` turns the step record (run_log.RunLog.to_dict()) and the run's constants
(report.config) into one (title, lines) per step; `after_lines(w, record)` tells what happened after the last
step. `w` is one language's `text.Words` (text_steps_vi.WORDS, text_steps_en.WORDS): the step templates plus the
blocks' ones, which word the refusal reasons (text.why). The record is read, never changed.

Leaves out: the words (text_steps_vi.py, text_steps_en.py), all computation (run_log.py records);
block [12]'s comparison runs, which are not recorded.
"""
from __future__ import annotations

import functools
import math
from collections import Counter
from functools import partial
from itertools import chain

from ..core.clock.hardware import GPUS
from ..core.serving.run_log import at_boundary, undecoded
from .text import why

# The reasons a request waits, in the order the narration names them (template "wait.<reason>").
WAIT_REASONS = ("preparing", "no_slot", "room_rule", "group_running", "group_incomplete", "no_kv")


def blocks(bs) -> str:
    """[0, 1, 5, 2]; runs of four or more consecutive blocks shortened: [0–9, 12]."""
    return _blocks(tuple(bs))


@functools.lru_cache(maxsize=4096)
def _blocks(bs: tuple) -> str:             # a long run's unchanged tables come back step after step
    parts, i = [], 0
    while i < len(bs):
        j = i
        while j + 1 < len(bs) and bs[j + 1] == bs[j] + 1:
            j += 1
        parts += [f"{bs[i]}–{bs[j]}"] if j - i >= 3 else [str(b) for b in bs[i:j + 1]]
        i = j + 1
    return "[" + ", ".join(parts) + "]"


def ranges(w, rs) -> str:
    """The ranges as "0–9, 12"; the run log gives an unchanged free list as the previous step's list (one
    object, run_log.RunLog.ranges), so the last lists' words are kept (the lists are held: same object,
    same words)."""
    for held, words, text in _RANGES:
        if held is rs and words is w:
            return text
    text = ", ".join(str(lo) if lo == hi else f"{lo}–{hi}" for lo, hi in rs) or w("kv.none_left")
    _RANGES.insert(0, (rs, w, text))
    del _RANGES[32:]
    return text


_RANGES: list = []         # [(ranges list, words, text)], most recent first (8 replicas interleave their steps)


def count(rs) -> int:
    return sum(hi - lo + 1 for lo, hi in rs)


def freed(w, bs) -> str:
    return w("freed.blocks", blocks=blocks(bs)) if bs else w("freed.none")


# ── one line per kind of event ─────────────────────────────────────────────
def arrive_line(w, e) -> str:
    d = e["decisions"][-1]
    head = w("gate.head", e=e)
    if d["code"] in ("429", "400"):
        return head + w("gate." + d["code"], why=why(w, d))
    return head + w("gate.ok", e=e, why=why(w, e["decisions"][0]))


def admit_line(w, e, slots) -> str:
    """One admission; `e["room"]` is the room left when this request was admitted (the step's room less the
    requests admitted before it in the same step)."""
    return w("admit.full_group" if e["why"] == "full_group" else "admit.room", e=e, slots=slots)


def abort_line(w, e) -> str:
    where = w("abort." + e["stage"]) if e["stage"] in ("running", "gateway") else w("abort.waiting")
    made = w("abort.made", e=e) if e["generated"] else w("abort.none_made")
    return w("abort.line", e=e, where=where, made=made, freed=freed(w, e["blocks"]))


def overtake_line(w, e) -> str:
    behind = ", ".join(w("overtake.behind", x=x) for x in e["overtaken"])
    return w("overtake.line", e=e, behind=behind)


def cache_hit_line(w, e, total) -> str:
    whose = w("hit.own" if e["recompute"] else "hit.earlier")
    rest = w("hit.rest", left=total - e["tokens"], total=total) if total is not None else ""
    return w("hit.line", e=e, blocks=blocks(e["blocks"]), whose=whose, rest=rest)


def running_part(w, r) -> str:
    rid, phase, done, total, gen, preempted = r
    if phase == "decode":
        return w("running.decode", rid=rid, gen=gen)
    redo = w("running.redo", gen=gen) if preempted else ""
    return w("running.prefill", rid=rid, done=done, total=total, redo=redo)


NAMED = 24                 # a queue longer than this (a generated workload's) is named in part: "… and 976 more"


def listed(w, items: list, name=lambda x: x[0]) -> str:
    """name(item) of every item joined; of a longer list than NAMED, the first NAMED and how many more."""
    shown = ", ".join(name(x) for x in items[:NAMED])
    return shown + w("waiting.more", n=len(items) - NAMED) if len(items) > NAMED else shown


def waiting_lines(w, it, slots, ready, priority_key=None) -> list[str]:
    """The queue in order, then who waits for which reason (the check that kept it waiting)."""
    if not it["waiting"]:
        return [w("waiting.empty")]
    if priority_key:
        queue = listed(w, it["waiting"], lambda x: w("waiting.priority_of", id=x[0], p=priority_key.get(x[0], (0,))[0]))
        lines = [w("waiting.by_priority", queue=queue)]
    else:
        lines = [w("waiting.in_order", queue=listed(w, it["waiting"]))]
    for reason in WAIT_REASONS:
        who = [x for x in it["waiting"] if x[1] == reason]
        if not who:
            continue
        if reason == "preparing":
            names = listed(w, who, lambda x: w("waiting.ready_at", id=x[0], t=ready[x[0]])
                           if ready.get(x[0]) is not None else x[0])
        else:
            names = listed(w, who)
        busy = w("waiting.busy", n=len(it["running"]), slots=slots) if reason == "no_slot" else ""
        lines.append(w("waiting.because", label=w("wait." + reason), busy=busy, names=names))
    back = [x for x in it["waiting"] if x[2]]
    if back:
        lines.append(w("waiting.preempted", back=listed(w, back)))
    return lines


def budget_frame(w, used, cap) -> tuple[str, str]:
    """The budget line's head ("Ngân sách 6 token: ") and tail (" -> dùng 6/6, còn 0.")."""
    head = w("budget.cap", cap=cap) if cap is not None else w("budget.no_cap")
    tail = w("budget.used", used=used, cap=cap, left=cap - used) if cap is not None else "."
    return head, tail


def budget_lines(w, it) -> list[str]:
    used, cap = it["budget"]
    head, tail = budget_frame(w, used, cap)
    if not it["decodes_first"]:
        return [head + budget_in_order(w, it) + tail]
    decodes = [t for t in it["tasks"] if t[1] == "decode"]
    chunks = [t for t in it["tasks"] if t[1] == "prefill"]
    parts = [w("budget.decodes", ids=", ".join(decode_share(w, t[0], it) for t in decodes)) if decodes
             else w("budget.no_decode")]
    if chunks:
        taken = sum(1 + proposals(it, t[0]) for t in decodes)
        rest = w("budget.left", left=cap - taken) if cap is not None else w("budget.prompts")
        parts.append(rest + ", ".join(f"{t[0]} {t[2]}" for t in chunks))
    return [head + "; ".join(parts) + tail]


def proposals(it, rid) -> int:
    """How many proposals `rid` verified this step (speculative decoding; 0 without)."""
    return len(it.get("spec", {}).get(rid, {}).get("proposed", []))


def decode_share(w, rid, it) -> str:
    """A decode's share of the budget: "A 1", or "A 1 + 3 proposals" when it verifies proposals."""
    k = proposals(it, rid)
    return w("budget.decode_spec", id=rid, k=k) if k else f"{rid} 1"


def budget_in_order(w, it) -> str:
    """The tasks of a step an edited plan_tasks ordered otherwise, in that order, and who got no decode."""
    order = ", ".join(w("budget.task_decode_spec", id=t[0], k=proposals(it, t[0]))
                      if t[1] == "decode" and proposals(it, t[0])
                      else w("budget.task_" + t[1], id=t[0], n=1 if t[1] == "decode" else t[2]) for t in it["tasks"])
    skipped = undecoded(it)
    return w("budget.in_order", order=order) + (w("budget.no_decode_for", ids=", ".join(skipped)) if skipped else "")


def budget_event_line(w, e, it) -> str:
    got = w("budget.got_none") if e["got"] == 0 else w("budget.got_some", e=e)
    return w("budget.event" if it["decodes_first"] else "budget.event_in_order", e=e, got=got)


def chunk_line(w, e) -> str:
    what = w("chunk.reprefill" if e["recompute"] else "chunk.prefill")
    start = w("chunk.starts") if e["first"] else ""
    end = w("chunk.done") if e["done"] == e["total"] else ""
    return w("chunk.line", e=e, start=start, what=what, end=end)


def spec_lines(w, it) -> list[str]:
    """Speculative decoding: each verify (the step's `spec` fact) and what its rollback gave back."""
    back = {e["id"]: e for e in it["events"] if e["kind"] == "rollback"}
    lines = []
    for rid, v in it.get("spec", {}).items():
        n, t = v["accepted"], v["token"]
        tail = (w("spec.stop") if t is None else
                w("spec.bonus" if n == len(v["proposed"]) else "spec.recovered", t=t))
        e = back.get(rid)
        gone = w("spec.rollback", e=e, blocks=", ".join(map(str, e["blocks"])) if e["blocks"] else "-") if e else ""
        lines.append(w("spec.verify", rid=rid, k=len(v["proposed"]), k1=len(v["proposed"]) + 1, n=n,
                       proposed=" ".join(f"#{x}" for x in v["proposed"]), tail=tail, gone=gone))
    return lines


def wait_kv_line(w, e, pool_blocks) -> str:
    """A newcomer back to the waiting queue: its chunk got no KV blocks, it gave way, or the step preempted."""
    return w("wait_kv." + e["why"], e=e, pool=pool_blocks, freed=freed(w, e["blocks"]))


def preempt_line(w, e, pool_blocks, priority_key=None) -> str:
    need = w("preempt.need", e=e, pool=pool_blocks)
    itself = e["id"] == e["needed_by"]
    if priority_key:
        p, t = priority_key.get(e["id"], (0, 0))
        rule = w("preempt.rule", p=p, t=t)
        victim = w("preempt.self_priority" if itself else "preempt.other_priority", e=e, rule=rule)
    else:
        victim = w("preempt.self" if itself else "preempt.other", e=e)
    line = w("preempt.line", e=e, need=need, victim=victim, freed=freed(w, e["blocks"]))
    if e["dropped"]:
        line += w("preempt.dropped", e=e)
    return line


def kv_send_line(w, e) -> str:
    """DISAGG = on, a prefill replica: the request's KV leaves for a decode replica (cluster.py)."""
    return w("kv_send", e=e, blocks=blocks(e["blocks"]))


def kv_recv_line(w, e) -> str:
    """DISAGG = on, a decode replica: arrived KV written into its own blocks."""
    return w("kv_recv", e=e, blocks=blocks(e["blocks"]))


def first_line(w, e) -> str:
    return w("first", e=e)


def finish_line(w, e) -> str:
    why_stop = w("stop." + e["reason"]) if "stop." + e["reason"] in w.say else e["reason"]
    return w("finish", e=e, why=why_stop, blocks=blocks(e["blocks"]))


def kv_line(w, it, pool_blocks) -> str:
    tables = "; ".join(f"{rid}→{blocks(t)}" for rid, t in it["tables"].items()) or w("kv.no_tables")
    line = w("kv.after", tables=tables)
    if it["alloc"]:
        line += w("kv.alloc", blocks=blocks(it["alloc"]))
    if it.get("reused"):
        line += w("kv.reused", blocks=blocks(it["reused"]))
    if it["freed"]:
        line += w("kv.freed", blocks=blocks(it["freed"]))
    shared = {b for b, k in Counter(chain.from_iterable(it["tables"].values())).items() if k > 1}   # C-level count
    holders = {}
    for rid, t in it["tables"].items() if shared else ():
        for b in shared.intersection(t) if len(set(t)) == len(t) else [b for b in t if b in shared]:
            holders.setdefault(b, []).append(rid)
    shared = [f"{b} ({', '.join(ids)})" for b, ids in sorted(holders.items())]
    if shared:
        line += w("kv.shared", shared="; ".join(shared))
    line += w("kv.free", n=count(it["free"]), pool=pool_blocks, ranges=ranges(w, it["free"]))
    if it.get("cached_free"):
        line += w("kv.cached", ranges=ranges(w, it["cached_free"]))
    return line + "."


def cost_line(w, it, cfg) -> str:
    """CLOCK = roofline: the step's bound in words and numbers, the physical floor at the full peak, then the time
    at the configured efficiencies (roofline.py's formula; the GPU's peak and bandwidth from hardware.py) and,
    with a draft model, its passes (speculative.py: the step's duration minus the target's pass). Under
    TENSOR_PARALLEL > 1 the figures are one GPU's share and the all-reduces are their own term (parallel.py)."""
    gpu, cost, bits = GPUS[cfg["GPU"]], it["cost"], cfg["ACT_BITS"]
    decodes = [t[0] for t in it["tasks"] if t[1] == "decode"]
    verified = sum(proposals(it, rid) for rid in decodes)
    prefill = sum(t[2] for t in it["tasks"] if t[1] == "prefill")
    what = [w("cost.decode_spec", n=len(decodes), k=verified) if verified else w("cost.decode", n=len(decodes))
            ] if decodes else []
    what = ", ".join(what + ([w("cost.prefill", n=prefill)] if prefill else []))
    gb, gflop = f"{cost['bytes'] / 1e9:.2f}", f"{cost['flops'] / 1e9:.0f}"
    if cost["bound"] == "memory":
        floor, term = cost["bytes"] / gpu.bandwidth, w("cost.by_bytes", gb=gb, tbs=f"{gpu.bandwidth / 1e12:g}")
    else:
        floor, term = (cost["flops"] / gpu.peak(bits),
                       w("cost.by_flops", gflop=gflop, tflops=f"{gpu.peak(bits) / 1e12:g}"))
    took = it["end"] - it["start"]
    comm = cost.get("communication", 0.0)
    target = math.ceil((max(cost["flops"] / (gpu.peak(bits) * cfg["FLOPS_FRACTION"]),
                            cost["bytes"] / (gpu.bandwidth * cfg["BANDWIDTH_FRACTION"])) + comm
                        + cfg["STEP_OVERHEAD"] / 1e6) * 1e6)
    passes = max((proposals(it, rid) for rid in decodes), default=0) if cfg.get("SPEC_METHOD") == "draft" else 0
    fractions = dict(bwf=cfg["BANDWIDTH_FRACTION"], ff=cfg["FLOPS_FRACTION"], overhead=cfg["STEP_OVERHEAD"], took=took)
    tail = (w("cost.took_draft", n=passes, bits=cfg["QUANT_BITS"], target=target, extra=took - target, **fractions)
            if passes and took > target else w("cost.took", **fractions))
    tp = cfg.get("TENSOR_PARALLEL", 1)
    if tp > 1:
        return w("cost.line_tp", gpu=gpu.name, model=cfg["SHADOW_MODEL"], what=what, gb=gb, gflop=gflop, tp=tp,
                 bound=w("cost." + cost["bound"]), floor_ms=f"{floor * 1e3:.2f} ms", term=term, tail=tail,
                 comm_ms=f"{comm * 1e3:.2f} ms", link=f"{gpu.link / 1e9:g}")
    return w("cost.line", gpu=gpu.name, model=cfg["SHADOW_MODEL"], what=what, gb=gb, gflop=gflop,
             bound=w("cost." + cost["bound"]), floor_ms=f"{floor * 1e3:.2f} ms", term=term, tail=tail)


# ── one step ───────────────────────────────────────────────────────────────
def title(w, it) -> str:
    """A few words for the step: its most telling events, else its tasks."""
    ev = it["events"]
    picks = [w("title.preempt", e=e) for e in ev if e["kind"] == "preempt"]
    picks += [w("title.wait_kv", e=e) for e in ev if e["kind"] == "wait_kv"]
    picks += [w("title.cancelled", e=e) for e in ev if e["kind"] == "abort"]
    picks += [w("title.cache_hit", e=e) for e in ev if e["kind"] == "cache_hit"]
    picks += [w("title.kv_recv", e=e) for e in ev if e["kind"] == "kv_recv"]
    picks += [w("title.kv_send", e=e) for e in ev if e["kind"] == "kv_send"]
    picks += [w("title.overtake", e=e, ids=", ".join(x["id"] for x in e["overtaken"]))
              for e in ev if e["kind"] == "overtake"]
    picks += [w("title.reprefill" if e["recompute"] else "title.prefill", e=e)
              for e in ev if e["kind"] == "chunk" and e["first"]]
    picks += [w("title.finish", e=e) for e in ev if e["kind"] == "finish"]
    picks += [w("title.first", e=e) for e in ev if e["kind"] == "first"]
    picks += [w("title.rejected", e=e) for e in ev if e["kind"] == "arrive" and e["code"] != "OK"]
    if picks:
        return ", ".join(picks[:3])
    return ", ".join(w("title.decode" if p == "decode" else "title.prefill_task", rid=rid, n=n)
                     for rid, p, n in it["tasks"])


def step_lines(w, it, n, m, record, cfg, ready, name: str) -> list[str]:
    """The step's lines; `name` = its title(w, it)."""
    slots, pool, priority_key = cfg["SLOTS"], cfg["POOL_BLOCKS"], record.get("priority_key")
    ev = it["events"]
    waiting, running = at_boundary(it)            # told as the boundary left them: admitted, then sent back
    total = {r[0]: r[3] for r in running}
    head = name if "replica" not in it else w("step.replica", r=it["replica"], title=name)
    lines = [w("step.head", n=n, m=m, it=it, title=head)]
    lines += [arrive_line(w, e) if e["kind"] == "arrive" else abort_line(w, e) for e in ev   # in time order
              if e["kind"] in ("arrive", "abort")]
    admits = [e for e in ev if e["kind"] == "admit"]
    lines += [admit_line(w, dict(e, room=e["room"] - i), slots) for i, e in enumerate(admits)]   # each takes one
    lines += [overtake_line(w, e) for e in ev if e["kind"] == "overtake"]
    lines += [cache_hit_line(w, e, total.get(e["id"])) for e in ev if e["kind"] == "cache_hit"]
    lines += [kv_recv_line(w, e) for e in ev if e["kind"] == "kv_recv"]
    lines.append(w("step.running", n=len(running), slots=slots, parts="; ".join(running_part(w, r) for r in running)))
    lines += waiting_lines(w, dict(it, waiting=waiting, running=running), slots, ready, priority_key)
    lines += budget_lines(w, it)
    lines += [budget_event_line(w, e, it) for e in ev if e["kind"] == "budget"]
    lines += [chunk_line(w, e) for e in ev if e["kind"] == "chunk"]
    lines += spec_lines(w, it)
    if not it["tasks"]:                     # engine.Engine.run_step: every task's sequence preempted or sent back
        lines.append(w("step.empty"))
    elif cfg.get("CLOCK") == "roofline" and "cost" in it:
        lines.append(cost_line(w, it, cfg))
    lines += [wait_kv_line(w, e, pool) for e in ev if e["kind"] == "wait_kv"]
    lines += [preempt_line(w, e, pool, priority_key) for e in ev if e["kind"] == "preempt"]
    lines += [first_line(w, e) for e in ev if e["kind"] == "first"]
    lines += [kv_send_line(w, e) for e in ev if e["kind"] == "kv_send"]
    lines += [finish_line(w, e) for e in ev if e["kind"] == "finish"]
    lines.append(kv_line(w, it, pool))
    return lines


def ready_times(record) -> dict:
    """{request: when its input was ready} from the record's arrive events (the narration's queue sentences)."""
    return {e["id"]: e.get("ready") for it in record["items"] for e in it["events"] if e["kind"] == "arrive"}


def narrate(w, record, cfg) -> list[tuple[str, list[str]]]:
    """(title, lines) for every recorded step; `cfg` is report.config (SLOTS, POOL_BLOCKS)."""
    m = record["count"]
    ready = ready_times(record)
    return [(name, step_lines(w, it, i + 1, m, record, cfg, ready, name))
            for i, it in enumerate(record["items"]) for name in [title(w, it)]]


def narrate_step(w, record, cfg, n: int, ready: dict) -> tuple[str, list[str]]:
    """(title, lines) of step n (1-based) alone, as narrate() words it; `ready` = ready_times(record)."""
    it = record["items"][n - 1]
    name = title(w, it)
    return name, step_lines(w, it, n, record["count"], record, cfg, ready, name)


def wait_labels(say: dict) -> dict:
    """{reason: label} in WAIT_REASONS order, from a language's step templates ("wait.<reason>")."""
    return {r: say["wait." + r] for r in WAIT_REASONS}


def bind(w) -> tuple[partial, partial]:
    """(narrate, after_lines) worded by `w`: the names lab.narrated calls on a language module."""
    return partial(narrate, w), partial(after_lines, w)


def after_lines(w, record) -> list[str]:
    """Requests the gateway looked at, or cancelled while waiting, after the last step (only refusals and
    cancellations can happen then)."""
    if not record["after"]:
        return []
    head = w("step.after", count=record["count"]) if record["count"] else w("step.none")
    return [head] + [arrive_line(w, e) if e["kind"] == "arrive" else abort_line(w, e) for e in record["after"]
                     if e["kind"] in ("arrive", "abort")]
