"""Blocks [4]-[8] in words: the model's work on the followed request (prefill, attention, the paged KV
cache, decode, sampling and the stop check).

Each `blockN(w, d, ctx)` takes one language's `Words`, the block's facts `d` (lab.py) and the run's
`Context` (text.py), and returns (title, lines); a block about the followed request says
`not_followed` instead when it was not served.

Leaves out: the sentences (text_vi.py, text_en.py), every computation (lab.py) and the other blocks
(text_intake.py, text_measure.py).
"""
from __future__ import annotations

from .limits import ITEMS, NUMBERS, ROW_LINES, capped, is_cluster, listed, vector
from .reasons import not_followed
from .text_spec import block7_lines
from .templates import ms


# ── [4] ────────────────────────────────────────────────────────────────────
def block4(w, d, ctx):
    title = w("b4.title")
    fid = ctx.follow["id"]
    if not ctx.follow["served"]:
        return title, not_followed(w, ctx) + [w("b4.conclusion")]
    row = d["logits"]
    again = w("b4.again", d=d) if d["preempted"] else ""
    n = d.get("cached_tokens", 0)
    shown = d if ctx.seed else dict(d, chunks=vector(w, d["chunks"], False))
    first = (w("b4.prompt_cached", fid=fid, d=shown, n=n, rest=d["prompt_len"] - n, again=again) if n
             else w("b4.prompt", fid=fid, d=shown, again=again))
    if d.get("stand_in"):                  # a long prompt: the model computed its stand-in (model.stand_in_skip)
        first = w("b4.stand_in", fid=fid, d=shown, s=d["stand_in"], last=d["stand_in"]["keep"] - 1, again=again)
    return title, [
        first,
        w("b4.cache_shape", fid=fid, shape=tuple(d["k_shape"])),
        w("b4.last_row", row=row),
        w("b4.how_to_read_bytes" if ctx.cfg.get("BYTE_FALLBACK") == "on" else "b4.how_to_read", n=len(row), d=d),
        w("b4.first_token", fid=fid, d=d),
        w("b4.conclusion"),
    ]


def three(x) -> str:
    """One attention weight as templates.vec prints it (3 decimals)."""
    return f"{x:.3f}"


# ── [5] ────────────────────────────────────────────────────────────────────
def block5(w, d, ctx):
    title = w("b5.title")
    ok = d["parity"] <= 1e-9          # a failing check never happens in the seed: the lab words it (exercise 11)
    parity = w("b5.parity", ok=ok) if ok else w("b5.parity_fail", x=d["parity"])
    common = [w("b5.rows" if ok else "b5.rows_fail"), w("b5.heads", d=d), w("b5.difference")]
    if not ctx.follow["served"]:
        n = len(ctx.follow["served_ids"])
        return title, not_followed(w, ctx) + common + [w("b5.check_served", n=n, parity=parity)]
    a0, a1 = d["heads"]
    return title, [
        w("b5.last_row", d=d, n=len(a0)),
        w("b5.head", h=0, a=vector(w, a0, ctx.seed, three), total=d["sums"][0]),
        w("b5.head", h=1, a=vector(w, a1, ctx.seed, three), total=d["sums"][1]),
        w("b5.how_to_read" if ctx.seed else "b5.how_to_read_lab", d=d),
        *common,
        w("b5.check_all", parity=parity) if ctx.seed
        else w("b5.check_all_n", n=len(ctx.follow["served_ids"]), parity=parity),
    ]


# ── [6] ────────────────────────────────────────────────────────────────────
def freed_line(w, released: list, seed: bool) -> str:
    """Block [6]'s blocks freed in order of finishing: outside a seed-identical run the first ITEMS // 2 requests,
    each with its first NUMBERS // 2 block ids, so the line stays under ~800 characters even when a recorded
    trace's 1,000-token prompts hold 250 blocks each in a pool of 50,000 (5-digit ids)."""
    return listed(w, [w("b6.frees", rid=rid, blk=vector(w, blk, seed, limit=NUMBERS // 2)) for rid, blk in released],
                  ITEMS // 2, seed, "; ")


def block6(w, d, ctx):
    cfg = ctx.cfg
    pk, bs, seed = d["peak"], cfg["BLOCK_SIZE"], ctx.seed
    slots_used = pk["used"] * bs
    lines = shown_replica(w, ctx)
    if d["served"]:
        tables = listed(w, [f"{rid}→{vector(w, blk, seed)}" for rid, blk in pk["tables"].items()], ITEMS, seed, "; ")
        lines += [w("b6.peak", bs=bs, tables=tables),
                  w("b6.how_to_read"),
                  w("b6.used", pk=pk, cfg=cfg, slots_used=slots_used, unused=slots_used - pk["tokens"]),
                  w("b6.compare", cfg=cfg, contiguous=cfg["SLOTS"] * cfg["MAX_CONTEXT"], slots_used=slots_used),
                  w("b6.freed", freed=freed_line(w, d["released"], seed))]
    else:
        lines.append(w("b6.none_served", bs=bs))
    kept = w("b6.kept_cached" if cfg["PREFIX_CACHE"] == "on" else "b6.kept_dropped")
    lines += capped(w, [w("b6.preempt", p=p, kept=kept) if p["blocks"] else w("b6.preempt_no_block", p=p)
                        for p in d["preemptions"]], ROW_LINES // 2, "lim.more_preemptions", seed)
    reused = listed(w, [w("b6.reuse", b=b, owners=listed(w, o, ITEMS, seed, " → ")) for b, o in d["reused"]],
                    ITEMS // 2, seed, "; ")
    lines += [
        w("b6.reused", reused=reused) if d["reused"] else w("b6.none_reused"),
        w("b6.free_at_end", d=d, cfg=cfg),
        w("b6.gather", ok=d["gather"] <= 1e-9),
    ]
    lines += pool_problem_lines(w, d)
    if d.get("kv_waits"):
        lines.append(w("b6.wait_kv", waits=listed(w, [w("b6.wait_kv_" + k["why"], k=k) for k in d["kv_waits"]],
                                                  ITEMS, seed, "; ")))
    if d["preemptions"]:       # a preempted run is never seed-identical: the note's fact as a sentence
        lines.append(w("b6.recompute"))
    if cfg["PREFIX_CACHE"] == "on":
        lines += prefix_cache_lines(w, d, seed)
    elif seed:                 # the seed's sentence, false for the lab: a note beside it says what is simulated
        lines.append(w("b6.limitation"))
    elif d["any_preemption"] or d["kv_waits"] or d.get("any_kv_wait") or d.get("deferred"):   # deferred: true anyway
        lines.append(w("b6.limitation_preempt"))
    else:
        lines.append(w("b6.limitation_lab"))
    return w("b6.title"), lines


def shown_replica(w, ctx) -> list[str]:
    """Blocks [6] and [10] on a cluster: which replica's pool they show (the followed request's), and where the
    others are."""
    c = ctx.cluster
    if not (c and is_cluster(ctx.cfg)) or c.get("shown") is None:
        return []
    return [w("b6.replica", r=c["shown"], fid=ctx.cfg["FOLLOW"], n=len(c["replicas"]))]


def steps_by_problem(problems) -> dict:
    """{code: [steps]} in order of first appearance.

    >>> steps_by_problem([dict(step=7, code="a"), dict(step=7, code="b"), dict(step=8, code="a")])
    {'a': [7, 8], 'b': [7]}
    """
    out = {}
    for p in problems:
        out.setdefault(p["code"], []).append(p["step"])
    return out


def pool_problem_lines(w, d) -> list[str]:
    """Block [6]'s broken pool invariants (block_manager's audit codes); none in a correct run, so nothing then."""
    if not d["pool_problems"]:
        return []
    found = [w("b6.pool_problem" if len(steps) == 1 else "b6.pool_problem_steps",
               what=w("pool." + code), steps=", ".join(map(str, steps)))
             for code, steps in steps_by_problem(d["pool_problems"]).items()]
    return [w("b6.pool_problems", found="; ".join(found))]


def prefix_cache_lines(w, d, seed: bool) -> list[str]:
    """Block [6] with PREFIX_CACHE=on: hits, shared blocks (ref count > 1), evictions, what stays cached."""
    hits = [w("b6.hit", h=h) + (w("b6.hit_recompute") if h["recompute"] else "") for h in d["hits"]]
    lines = [w("b6.prefix_cache", docs=w.docs),
             w("b6.hits", hits=listed(w, hits, ITEMS, seed, "; ")) if hits else w("b6.no_hits")]
    lines.append(w("b6.shared", d=d) if d["shared_blocks"] else w("b6.none_shared"))
    ev = [w("b6.evicted_block", e=e) for e in d["evictions"]]
    lines.append(w("b6.evicted", ev=listed(w, ev, ITEMS, seed)) if ev else w("b6.none_evicted"))
    lines.append(w("b6.cached_free", n=len(d["cached_free"])))
    lines.append(w("b6.prefix_limitation"))
    return lines


# ── [7] ────────────────────────────────────────────────────────────────────
def block7_decode(w, d, fid, seed: bool = True) -> list[str]:
    fd = d.get("first_decode")
    if fd is None:
        return [w("b7.no_decode", fid=fid)]
    shown = fd if seed else dict(fd, weights=vector(w, fd["weights"], False, three))
    return [w("b7.first_decode", fid=fid, fd=fd, n=len(fd["weights"])), w("b7.weights", fd=shown)]


def block7(w, d, ctx):
    fid = ctx.follow["id"]
    counts = w("b7.counts", d=d)
    # with speculation the positions include every verified proposal, and the lines after them are about speed:
    # the "not measured" sentence stays beside the positions it is about
    positions_note = [w("b7.not_time_spec")] if "spec" in d else []
    tail = [w("b7.conclusion_spec")] if "spec" in d else [w("b7.not_time"), w("b7.conclusion")]
    if not ctx.follow["served"]:
        spec = block7_lines(w, d, ctx) if "spec" in d else []
        return w("b7.title"), (not_followed(w, ctx) + [w("b7.positions_served", counts=counts)] + positions_note
                               + spec + tail)
    spec = d.get("spec_rates", {}).get(fid)
    extra = spec["tokens"] - spec["verifies"] if spec else 0          # tokens a verify step gave beyond its first
    recompute = d["n_out"] - 1 - d["n_decode"] - extra
    lines = [w("b7.generates_spec", fid=fid, d=d, extra=extra) if spec else w("b7.generates", fid=fid, d=d)]
    if d["preempted"]:
        again = w("b7.again", recompute=recompute) if recompute else ""
        lines.append(w("b7.preempted", fid=fid, d=d, again=again))
    lines += block7_decode(w, d, fid, ctx.seed)
    lines.append(w("b7.cache_len", fid=fid, d=d))
    lines.append(w("b7.positions_all", counts=counts) if ctx.seed
                 else w("b7.positions_all_n", counts=counts, n=len(ctx.follow["served_ids"])))
    lines += positions_note
    return w("b7.title"), lines + (block7_lines(w, d, ctx) if "spec" in d else []) + tail


# ── [8] ────────────────────────────────────────────────────────────────────
def stop_lines(w, d, seed: bool) -> list[str]:
    return capped(w, [w("b8.stop", s=s) for s in d["stops"]] + [aborted_stop_line(w, s) for s in d.get("aborted", [])],
                  ROW_LINES, "lim.more_rows", seed)


def aborted_stop_line(w, s) -> str:
    return w("b8.cancelled", s=s) + (w("b8.cancelled_after", s=s) if s["n"] else w("b8.cancelled_before", s=s))


def block8(w, d, ctx):
    title = w("b8.title")
    tail = [w("b8.observe"), w("b8.warning")]
    stop = w("b8.stop_check")
    if not ctx.follow["served"]:
        return title, not_followed(w, ctx) + [stop, *stop_lines(w, d, ctx.seed)] + tail
    fid = ctx.follow["id"]
    stream = listed(w, [f"{ms(t)} '{tok}'" for t, tok in d["stream"]], NUMBERS, ctx.seed)    # a 400-token answer
    greedy = "_greedy" if d.get("mode") == "greedy" and not ctx.seed else ""    # the seed's runs: a note (text_notes)
    return title, [
        w("b8.sampling", fid=fid, d=d),
        w("b8.probs" + greedy, d=d) + ", ".join(f"{t}={p:.3f}" for t, p in d["top5"]),
        w("b8.kept" + greedy, n=len(d["kept"])) + ", ".join(f"{t}={p:.3f}" for t, p in d["kept"]),
        w("b8.draw" + greedy, d=d),
        stop, *stop_lines(w, d, ctx.seed),
        w("b8.stream", fid=fid, stream=stream),
        *tail,
    ]
