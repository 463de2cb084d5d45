"""The lab's notes beside the seed's lines: what is true for the run where a line the seed prints is not.

The printed report keeps the seed program's lines byte for byte wherever the seed completes (Context.seed,
limits.seed_identical: so a fixed phrase like "5 yêu cầu" or "cả 3 yêu cầu" stays even for a 4-request trace the
seed runs). Where such a line is false or incomplete for the run, `notes(w, parts, ctx)` gives a note that says what
is true (at most three lines: long lists are cut as limits.listed cuts them, since notes are not the seed's bytes):
{part: [note]} with part "header", "1".."13" or "summary" (only the parts that have notes). The notes
are worded by the same language tables (keys "note.*", both languages, same condition), computed from
the run's data only, and never enter `Report.to_text()`: the page shows them beside the block, marked;
the CLI prints them on stderr after the block; `--json` carries them under "notes".

The cases: the request count and the served count where the seed prints 5 and 3; the diagram the
header points to; cancellation, the prefix cache, reference counts and preemption, which the seed says
are not simulated; why attention heads differ; a wait the seed calls "chờ chỗ chạy" that was a wait
for the token budget; ITL, the name of the largest gap between tokens; determinism on GPUs (batch
invariance); the seed clock's mixed step; vLLM's names for the lab's constants and metrics.

Every other run has no notes: its blocks say each note's fact as a sentence of their own (own_vi.py, own_en.py).

Leaves out: the sentences (text_vi.py, text_en.py), the lines themselves (text.py) and every computation
of the run (lab.py, block_data.py).
"""
from __future__ import annotations

from .limits import ITEMS, listed

SEED_REQUESTS = 5          # the seed's header says "5 yêu cầu" whatever the trace
SEED_SERVED = 3            # the seed's blocks [5] [7] [11] [12] say "3 yêu cầu" whatever is served


def budget_waits(record: dict, rid: str) -> list[int]:
    """The steps (1-based) in which `rid`, ready and before its first chunk, waited for something other than
    a free slot: it held a slot but got no token of the budget, or it waited for a reason other than no_slot.

    >>> rec = {"items": [dict(waiting=[], running=[["A"], ["C"]], tasks=[["A", "prefill", 6]]),
    ...                  dict(waiting=[], running=[["A"], ["C"]], tasks=[["C", "prefill", 5]])]}
    >>> budget_waits(rec, "C")
    [1]
    """
    return budget_waits_of(record, [rid])[rid]


def budget_waits_of(record: dict, ids) -> dict:
    """budget_waits for many requests in one pass over the steps: {id: [steps]}."""
    out, todo = {rid: [] for rid in ids}, set(ids)
    for i, it in enumerate(record.get("items", [])):
        todo -= {t[0] for t in it["tasks"]}          # from its first task on, a request no longer counts
        if not todo:
            break
        held = {r[0] for r in it["running"]} & todo
        first = {}
        for x in it["waiting"]:
            first.setdefault(x[0], x[1])
        late = {rid for rid, why in first.items() if rid in todo and why not in ("no_slot", "preparing")}
        for rid in held | late:
            out[rid].append(i + 1)
    return out


def count_notes(w, n_served: int) -> list[str]:
    """The seed's fixed "3 requests" beside another count."""
    return [w("note.served_count", n=n_served)] if n_served != SEED_SERVED else []


def header_notes(w, cfg) -> list[str]:
    """Notes beside the header, from the run's constants (report.config)."""
    out = []
    if len(cfg["REQUESTS"]) != SEED_REQUESTS:
        out.append(w("note.request_count", n=len(cfg["REQUESTS"])))
    out.append(w("note.vllm_config"))
    out.append(w("note.diagram"))
    if not any(r.get("cancel_at") is not None for r in cfg["REQUESTS"]):
        out.append(w("note.cancel"))
    return out


def wait_notes(w, record, ids) -> list[str]:
    """The requests whose wait the seed calls "chờ chỗ chạy" but that waited for the token budget."""
    who = budget_who(w, record, ids)
    return [w("note.wait_budget", who=who)] if who else []


def budget_who(w, record, ids) -> str:
    """"C got no token in step(s) 2, 3 although no running slot was missing; …" for the requests of `ids` that waited
    for the token budget ("" when none did), the lists cut to a line or so (limits.listed)."""
    waits = {rid: s for rid, s in budget_waits_of(record, list(ids)).items() if s}
    return listed(w, [w("note.wait_steps", id=rid, steps=steps_of(w, s)) for rid, s in waits.items()], 2, False, "; ")


def steps_of(w, steps: list[int]) -> str:
    """"2, 3, 4 … and 9 more": step numbers cut to ITEMS // 2."""
    return listed(w, list(map(str, steps)), ITEMS // 2, False)


def mixed_step_note(w, cfg, mixed) -> list[str]:
    if not mixed or cfg.get("CLOCK") == "roofline" or not (cfg["COST_PREFILL_FIXED"] and cfg["COST_DECODE_FIXED"]):
        return []
    return [w("note.mixed_step", steps=listed(w, list(map(str, mixed)), ITEMS // 2, False),
              pre=cfg["COST_PREFILL_FIXED"], dec=cfg["COST_DECODE_FIXED"])]


def memory_note(w, cfg, shadow) -> str:
    """How vLLM sizes its pool, and how this run's pool was sized: set directly, or what POOL_BLOCKS=auto gives
    (config.auto_pool_blocks: vLLM's sum from the datasheets, capped at what the trace can hold)."""
    if shadow:
        holders = len(cfg["REQUESTS"])
        if cfg.get("REPLICAS", 1) > 1 or cfg.get("DISAGG") == "on":
            holders = min(holders, cfg["SLOTS"])
        auto = max(1, min(shadow["blocks"], holders * -(-cfg["MAX_CONTEXT"] // cfg["BLOCK_SIZE"])))
        if cfg["POOL_BLOCKS"] == auto:
            return w("note.vllm_memory_auto", n=auto)
    return w("note.vllm_memory")


def notes(w, parts: dict, ctx, record: dict) -> dict:
    """{part: [note]} for the run: `parts` = {"header": header_data, 1..13: block data}, `record` = the run log.
    Only a seed-identical run (Context.seed) has notes."""
    if not ctx.seed:
        return {}
    d, fl = parts, ctx.follow
    served = d[1]["served"]
    served_ids = [m["id"] for m in d[11]["requests"] if m.get("status", "finished") == "finished"]
    cfg = ctx.cfg
    out = {"header": header_notes(w, cfg)}
    if fl["served"]:
        out["3"] = wait_notes(w, record, [fl["id"]])
        out["5"] = [w("note.heads")] + count_notes(w, served)
        out["7"] = count_notes(w, served)
    out["6"] = [w("note.pool_limits")]   # a seed-identical run has the prefix cache off and never runs out of blocks
    if fl["served"] and d[8].get("mode") == "greedy":    # the seed's line says "temperature"
        out["8"] = [w("note.greedy", fid=fl["id"], d=d[8])]
    out["10"] = [memory_note(w, cfg, d[10].get("shadow"))]
    out["11"] = [w("note.vllm_metrics")] + wait_notes(w, record, served_ids) + count_notes(w, served)
    out["12"] = ([w("note.itl"), w("note.batch_invariance")] + mixed_step_note(w, cfg, d[3]["mixed"])
                 + count_notes(w, served))
    out["summary"] = [w("note.batch_invariance")] + (wait_notes(w, record, [fl["id"]]) if fl["served"] else [])
    return {k: v for k, v in out.items() if v}
