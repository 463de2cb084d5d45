"""Blocks [1]-[3] in words: a request's way in (the gateway's admission, input preparation, the scheduler's steps).

Each `blockN(w, d, ctx)` takes one language's `Words`, the block's facts `d` (lab.py) and the run's
`Context` (text.py), and returns (title, lines); the helpers word one line each (a cancelled request,
a preemption, a request that overtook others).

Leaves out: the sentences (text_vi.py, text_en.py), every computation (lab.py) and the blocks after [3]
(text_compute.py, text_measure.py).
"""
from __future__ import annotations

from .limits import ITEMS, NUMBERS, ROW_LINES, STEP_LINES, capped, capped_lines, listed, vector
from .text_cluster import is_cluster, route_lines
from .reasons import not_followed, why
from .text_notes import budget_waits_of, steps_of


# ── [1] ────────────────────────────────────────────────────────────────────
def block1(w, d, ctx):
    cluster = bool(ctx.cluster) and is_cluster(ctx.cfg)
    lines = [observe_cluster(w, d, ctx) if cluster else w("b1.observe", d=d)]
    where = {x["request"]: x["replica"] for x in ctx.cluster["router"]["decisions"]} if cluster else {}
    rows = []
    for x in d["decisions"]:
        verdict = w("b1.admitted") if x["code"] == "OK" else w("b1.rejected", code=x["code"])
        if x["request"] in where:       # a cluster: the count is the chosen replica's, so name it
            r = where[x["request"]]
            rows.append(w("b1.decision_replica", x=x, r=r, verdict=verdict,
                          why=w("why.gateway_replica", f=x["facts"], r=r,
                                state=w("why.at_limit" if x["code"] == "429" else "why.below_limit"))))
        else:
            rows.append(w("b1.decision", x=x, verdict=verdict, why=why(w, x)))
    lines += capped(w, rows, ROW_LINES, "lim.more_decisions", ctx.seed)
    lines += capped(w, [abort_line(w, a) for a in d["aborts"]], ROW_LINES, "lim.more_aborts", ctx.seed)
    rejected = d["n_429"] + d["n_400"]
    if d["n_aborted"]:
        n = d["n_aborted"]
        lines.append(w("b1.counts_aborted", d=d, n=n))
        lines.append(w("b1.check_aborted", d=d, rejected=rejected, n=n, ok=d["offered"] == d["served"] + rejected + n))
    else:
        lines.append(w("b1.counts", d=d))
        lines.append(w("b1.check", d=d, rejected=rejected, ok=d["offered"] == d["served"] + rejected))
    if ctx.cluster and is_cluster(ctx.cfg):
        lines += route_lines(w, d, ctx)
    lines.append(w("b1.conclusion_429" if d["n_429"] else "b1.conclusion_no_429"))
    lines.append(w("b1.limitation"))
    return w("b1.title"), lines


def observe_cluster(w, d, ctx) -> str:
    """Block [1]'s first line on a cluster: the limit is each gateway's (SLOTS + QUEUE_LIMIT per replica; under
    DISAGG = on only the prefill replicas have a gateway, the decode replicas take KV transfers)."""
    cfg = ctx.cfg
    gateways = cfg["PREFILL_REPLICAS"] if cfg.get("DISAGG") == "on" else cfg["REPLICAS"]
    return w("b1.observe_cluster", d=d, gateways=gateways, total=gateways * d["capacity"])


def abort_line(w, a) -> str:
    """A cancelled request, as block [1] tells it (who, when, why, what it had)."""
    if a["stage"] == "running":
        where = w("b1.abort_running", a=a)
    elif a["stage"] == "gateway":
        where = w("b1.abort_gateway", a=a)
    else:
        where = w("b1.abort_waiting", a=a) + (w("b1.abort_frees", a=a) if a["blocks"] else "")
    return w("b1.abort", a=a, where=where, docs=w.docs)


# ── [2] ────────────────────────────────────────────────────────────────────
def fine_times(ctx) -> bool:
    """Preparation times to the µs: a run the seed cannot make whose gateway or per-token cost is not a multiple
    of 10 µs (the roofline clock's 1 µs per token), where 0.206 and 0.211 ms would both print as 0.21 ms."""
    cfg = ctx.cfg
    return not ctx.seed and (cfg["COST_TOKENIZE_PER_TOKEN"] % 10 != 0 or cfg["COST_GATEWAY"] % 10 != 0)


def block2_follow(w, d, ctx) -> list[str]:
    f, fl = d["follow"], ctx.follow
    lines = []
    if f["ids"]:
        shown = f if ctx.seed else cut_prompt(w, f)
        lines += [w("b2.request", f=shown), w("b2.ids", f=shown)]
        if d.get("shown"):               # a long prompt: block_data.SHOWN_WORDS words of it
            lines.append(w("b2.shown", f=f, s=d["shown"]))
    if fl["served"]:
        return lines + [w("b2.budget", f=f, cfg=ctx.cfg, total=f["prompt_len"] + f["max_new"]), *prefix_line(w, d, ctx)]
    return lines + not_followed(w, ctx)


def cut_prompt(w, f) -> dict:
    """The followed prompt's words, pieces and IDs cut to limits.NUMBERS each (a 2,000-token prompt under a long
    MAX_CONTEXT would print some 30 kB on two lines); `--json` (blocks[1].data.follow) keeps them whole."""
    words = f["text"].split(" ")
    text = f["text"] if len(words) <= NUMBERS else " ".join(words[:NUMBERS]) + " " + w("lim.more_words",
                                                                                     n=len(words) - NUMBERS)
    return dict(f, text=text, tokens=vector(w, f["tokens"], False, repr), ids=vector(w, f["ids"], False))


def prefix_line(w, d, ctx) -> list[str]:
    """Block [2]: how much of the followed prompt the prefix cache already held (only when it is on)."""
    if ctx.cfg["PREFIX_CACHE"] != "on":
        return []
    f, n = d["follow"], d["cached_tokens"]
    if n:
        return [w("b2.prefix_hit", f=f, n=n, rest=f["prompt_len"] - n)]
    return [w("b2.prefix_miss", f=f)]


def block2(w, d, ctx):
    lens = d["prompt_lens"]
    lines = [
        w("b2.bpe", d=d),
        w("b2.merges", d=d),
        *block2_follow(w, d, ctx),
        lengths_line(w, lens, ctx.seed) if lens else w("b2.no_lengths"),
        *[w("b2.blocked", x=x, why=why(w, x)) for x in d["blocked"]],
    ]
    if any(x["reason"] == "unknown" for x in d["blocked"]):     # the seed crashes on these: no seed bytes here
        lines.append(w("b2.real_tokenizers"))
    lines += byte_lines(w, d.get("byte_cost"), d.get("byte_fallback"))
    fine = "_fine" if fine_times(ctx) else ""
    prep = w("b2.ready" + fine, d=d) if d["prep"] is not None else w("b2.never_queued", d=d)
    lines.append(w("b2.prep_cost" + fine, cfg=ctx.cfg, per_token=ctx.cfg["COST_TOKENIZE_PER_TOKEN"] / 1000, prep=prep))
    lines.append(w("b2.conclusion"))
    return w("b2.title"), lines


def lengths_line(w, lens, seed: bool) -> str:
    """"Prompt lengths: A=6, B=11 tokens"; a cut list names what it leaves out: requests, not tokens."""
    if seed or len(lens) <= ITEMS:
        return w("b2.lengths", lens=listed(w, [f"{rid}={n}" for rid, n in lens], ITEMS, seed))
    return w("b2.lengths_cut", lens=listed(w, [f"{rid}={n}" for rid, n in lens], ITEMS, seed,
                                           key="lim.more_prompts"))


def byte_lines(w, bc, on) -> list[str]:
    """Block [2] with BYTE_FALLBACK=on: the byte vocabulary, what the chat template adds, and for every text that
    needed byte tokens its cost against the same text without accents (none of this exists in the seed)."""
    if not on:
        return []
    lines = [w("b2.bytes", d=bc or {"base_vocab": "?", "n_bytes": 256}), w("b2.template")]
    for r in (bc or {}).get("rows", []):
        chars = ", ".join(w("b2.byte_char", c=c, pieces=" ".join(p)) for c, p in r["chars"])
        ttft = w("b2.byte_ttft", r=r) if r["ttft"] is not None and r["plain_ttft"] is not None else ""
        lines += [w("b2.byte_chars", r=r, chars=chars),
                  w("b2.byte_cost", r=r, d=bc, per_word=(r["prompt"] - 1) / r["words"],   # <bos> left out
                    plain_per_word=(r["plain_prompt"] - 1) / r["words"], ttft=ttft)]
    return lines


# ── [3] ────────────────────────────────────────────────────────────────────
def preemption_line(w, p, policy="fcfs", seed=True) -> str:
    """One preemption; outside a seed-identical run its freed blocks are a vector of at most NUMBERS ids (a 32k-token
    prompt holds 2,048 blocks)."""
    at = w("b3.preempt_at", p=p)
    if not seed and p["blocks"]:
        p = dict(p, blocks=vector(w, p["blocks"], False))
    who = w("b3.who_fcfs") if policy != "priority" else w("b3.who_priority", p=p)
    if not p["blocks"]:
        return at + w("b3.preempt_no_block", p=p, who=who)
    return at + w("b3.preempt", p=p, who=who)


def task_word(rid, phase, n, proposed) -> str:
    """`A:p:6`, `A:d:1`, or under speculative decoding `A:v:1+3` (the pending token + 3 proposals in one pass)."""
    k = proposed.get(rid, 0) if phase == "decode" else 0
    return f"{rid}:v:{n}+{k}" if k else f"{rid}:{phase[0]}:{n}"


def block3(w, d, ctx):
    fid = ctx.follow["id"]
    cluster = is_cluster(ctx.cfg)
    spec_on = ctx.cfg.get("SPEC_METHOD", "off") != "off"
    lines = [w("b3.legend_spec_run") + w("b3.legend_spec") if spec_on else w("b3.legend")]
    if cluster:
        lines.append(w("b3.legend_replica"))

    def row(i, st):
        work = " ".join(task_word(rid, p, n, st.get("proposed", {})) for rid, p, n in st["tasks"])
        return w("b3.step_replica" if "replica" in st else "b3.step", i=i + 1, st=st, work=work)
    lines += capped_lines(w, d["steps"], row, STEP_LINES, "lim.more_steps", ctx.seed)
    if not d["steps"]:
        lines.append(w("b3.no_steps"))
    elif cluster:
        lines.append(observe_replica(w, d))
    else:
        lines.append(observe_line(w, d, ctx))
    mixed = d["mixed"] if ctx.seed else "[" + listed(w, list(map(str, d["mixed"])), ITEMS, False) + "]"
    mixed_key = "b3.mixed_roofline" if ctx.cfg.get("CLOCK") == "roofline" else "b3.mixed"
    lines.append(w(mixed_key, mixed=mixed) if d["mixed"] else w("b3.not_mixed"))
    rows = ROW_LINES // 2     # each kind of event: the first 8 outside a seed-identical run, then "… and N more"
    lines += capped_lines(w, d["preemptions"], lambda _, p: preemption_line(w, p, ctx.cfg["SCHED_POLICY"], ctx.seed),
                          rows, "lim.more_preemptions", ctx.seed)
    lines += capped_lines(w, d["overtakes"], lambda _, o: overtake_line(w, o), rows, "lim.more_overtakes", ctx.seed)
    lines += capped_lines(w, d.get("kv_waits", []),
                          lambda _, k: w("b3.wait_kv_at", k=k) + w("b3.wait_kv_" + k["why"], k=k),
                          rows, "lim.more_kv_waits", ctx.seed)
    lines += capped_lines(w, d["aborts"], lambda _, a: w("b3.abort", a=a, left=w(
        "b3.left_" + a["stage"] if a["stage"] in ("running", "gateway") else "b3.left_waiting")),
        rows, "lim.more_aborts", ctx.seed)
    if "follow" in d:
        f = d["follow"]
        chunks = d if ctx.seed else dict(d, chunks=vector(w, d["chunks"], False))
        lines.append(w("b3.chunks", fid=fid, f=f, d=chunks, cfg=ctx.cfg))
        if f["preempted"]:
            lines.append(w("b3.chunks_redo", fid=fid, f=f))
        lines.append(follow_wait_line(w, d, ctx, f))
    else:
        lines += not_followed(w, ctx)
    lines.append(w("b3.conclusion"))
    return w("b3.title"), lines


def observe_line(w, d, ctx) -> str:
    """Who step 1 starts with and who had arrived but was still being prepared. The seed names only the first
    task's request and calls every other arrival late; beyond the seed, every request of step 1 is named."""
    fine = "_fine" if fine_times(ctx) else ""
    start = d["steps"][0]["start"]
    first = list(dict.fromkeys(t[0] for t in d["steps"][0]["tasks"]))
    if ctx.seed or (len(first) == 1 and d["late"]):
        late = listed(w, [w("b3.late" + fine, r=r) for r in d["late"]], ITEMS, ctx.seed)
        return w("b3.observe" + fine, start=start, lone=d["lone"], late=late)
    late = [r for r in d["late"] if r["id"] not in first]
    if not late:
        return w("b3.observe_all" + fine, start=start, ids=", ".join(first))
    return w("b3.observe_some" + fine, start=start, ids=listed(w, first, ITEMS, False),
             late=listed(w, [w("b3.late" + fine, r=r) for r in late], ITEMS, False))


def follow_wait_line(w, d, ctx, f) -> str:
    """The followed request's wait before its first step: the seed's "waited … for a slot" in a seed-identical run
    (a note beside it names the steps where it waited for the token budget instead); elsewhere "waited … to be
    scheduled" and for what: the token budget (the steps), KV blocks, or a free slot."""
    fid = ctx.follow["id"]
    step_end = f["queue"] > 0 and ctx.record is not None and waited_for_step_end(ctx.record, f)
    if "replica" in f:
        return w("b3.follow_wait_replica_step" if step_end else "b3.follow_wait_replica", fid=fid, f=f)
    if ctx.seed:
        return w("b3.follow_wait", fid=fid, f=f)
    steps = budget_waits_of(ctx.record, [fid])[fid] if ctx.record else []
    if steps:
        why = w("b3.why_budget", steps=steps_of(w, steps))
    elif any(k.get("request", k.get("id")) == fid for k in d.get("kv_waits", [])):
        why = w("b3.why_kv")
    else:
        why = w("b3.why_step_end" if step_end else "b3.why_slot") if f["queue"] else ""
    return w("b3.follow_wait_lab" + ("_fine" if fine_times(ctx) else ""), fid=fid, f=f, why=why)


def waited_for_step_end(record, f) -> bool:
    """No step of the request's engine (or replica) started between its `ready` and its first step: it waited only
    for the step in progress to end (a request joins the batch at a step boundary), not for a free slot."""
    rep = f.get("replica")
    return not any(f["ready"] <= it["start"] < f["start"] for it in record["items"] if it.get("replica") == rep)


def observe_replica(w, d) -> str:
    """Block [3]'s observation on a cluster: the first step and what its own replica had (requests still in input
    preparation on another replica do not wait for it)."""
    st = d["steps"][0]
    late = [r for r in d["late"] if r.get("replica") == st.get("replica")]
    tail = w("b3.observe_late", late=", ".join(w("b3.late", r=r) for r in late)) if late else ""
    return w("b3.observe_replica", st=st, lone=d["lone"], late=tail)


def overtake_line(w, o) -> str:
    behind = ", ".join(w("b3.overtaken", x=x) for x in o["overtaken"])
    return w("b3.overtake", o=o, behind=behind)
