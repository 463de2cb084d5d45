"""The lab's printed text in any language: which sentences each block says, in which order, with which numbers.

Each `blockN(w, d, ctx)` takes one language's `Words` (text_vi.WORDS, text_en.WORDS), the block's
facts `d` (plain data gathered by lab.py) and the run's `Context`, and returns (title, lines);
`header_lines` and `summary_lines` likewise. Every sentence is a template of the language module,
looked up by key and filled with `w(key, **fields)`: str.format with three more format specs,
`{t:ms}` (simulated µs -> "1.23 ms"), `{a:vec}` / `{a:vec2}` (an array, 3 or 2 decimals) and
`{n:pl token}` ("1 token", "2 tokens"; only English uses it). So the two editions say the same
facts, in the same order, by construction; text_vi.py and text_en.py hold words only.

Formatting is pure: nothing here changes the data, context or checks it is given.

Leaves out: the words (text_vi.py, text_en.py), all computation of the facts (lab.py) and the step
narration (text_steps.py).
"""
from __future__ import annotations

import string
from dataclasses import dataclass
from functools import partial

import numpy as np

from .blocks import BLOCKS as BLOCK_TABLE

BLOCK_CODES = {b.number: b.code for b in BLOCK_TABLE}  # "1 · Gateway & admission", from blocks.py


@dataclass(slots=True)
class Context:
    cfg: dict
    follow: dict
    follow_metrics: dict | None


def ms(us):
    return f"{us / 1000:.2f} ms"


def vec(a, nd=3):
    return "[" + ", ".join(f"{x:.{nd}f}" for x in np.asarray(a, dtype=float).ravel()) + "]"


def pl(n, word: str) -> str:
    """'1 token', '2 tokens': English plurals (the number is printed as is)."""
    return f"{n} {word}" + ("" if n == 1 else "s")


class Format(string.Formatter):
    """str.format plus the specs ms, vec, vec2 and `pl WORD` (see the module docstring)."""

    def format_field(self, value, spec):
        if spec == "ms":
            return ms(value)
        if spec in ("vec", "vec2"):
            return vec(value, 2 if spec == "vec2" else 3)
        if spec.startswith("pl "):
            return pl(value, spec[3:])
        return super().format_field(value, spec)


FORMAT = Format()


@dataclass(frozen=True, slots=True)
class Words:
    """One language's words: `say` maps a key to a sentence template; the named phrase tables beside it."""
    say: dict
    checks: dict | None = None          # check name -> label (CHECK_LABELS)
    docs: dict | None = None            # vLLM behaviour -> the public document it follows (VLLM_DOCS)
    policies: dict | None = None        # scheduling policy -> its name in block [12] (POLICY_NAMES)

    def __post_init__(self):
        for key, template in self.say.items():
            try:
                list(FORMAT.parse(template))
            except ValueError as exc:                # a stray brace: say which sentence, at import time
                raise ValueError(f"template {key!r}: {exc}") from None

    def __call__(self, key: str, **fields) -> str:
        return FORMAT.vformat(self.say[key], (), fields)


def why(w, d) -> str:
    """The reason of a gateway / input decision."""
    f, reason = d["facts"], d["reason"]
    if d["stage"] == "gateway":
        return w("why.gateway", f=f, state=w("why.at_limit" if d["code"] == "429" else "why.below_limit"))
    if reason == "unknown":
        return unknown_text(w, f["chars"], f["pieces"])
    if reason == "pool":
        return w("why.pool", f=f, positions=f["total"] - 1)
    if d["code"] == "400":
        return w("why.context", f=f, total=f" = {f['total']}", sign=">")
    return w("why.context", f=f, total="", sign="<=")


def unknown_text(w, chars, pieces, code=None) -> str:
    """400 because the tokenizer cannot encode the text: name the characters (or the BPE pieces)."""
    code = w("why.code_400") if code is None else code
    if chars:
        return w("why.unknown_chars", code=code, chars=", ".join(repr(c) for c in chars))
    return w("why.unknown_pieces", code=code, pieces=", ".join(repr(p) for p in pieces))


def refusal(w, ctx) -> str:
    """The followed request was refused (or aborted): where and why (no full stop)."""
    fl = ctx.follow
    if fl["stage"] == "cancel":
        f = fl["facts"]
        where = w("refusal.running" if f["stage"] == "running" else "refusal.waiting")
        return w("refusal.cancelled", fl=fl, f=f, where=where)
    where = w("refusal.gateway" if fl["stage"] == "gateway" else "refusal.input")
    d = dict(stage=fl["stage"], code=fl["code"], reason=fl["reason"], facts=fl["facts"])
    return w("refusal.rejected", fl=fl, where=where, why=why(w, d))


def how_to_follow(w, ctx) -> str:
    ids = ctx.follow["served_ids"]
    if not ids:
        return w("follow.nobody")
    return w("follow.pick", ids=", ".join(ids))


def not_followed(w, ctx) -> list[str]:
    return [w("follow.refused", refusal=refusal(w, ctx), id=ctx.follow["id"]), how_to_follow(w, ctx)]


# ── header ─────────────────────────────────────────────────────────────────
def request_line(w, r, follow) -> str:
    mode = w("header.greedy") if r["temperature"] == 0 else w("header.sampling", r=r)
    mark = w("header.followed") if r["id"] == follow else ""
    extra = f", priority {r['priority']}" if r.get("priority") is not None else ""
    extra += w("header.cancels", r=r) if r.get("cancel_at") is not None else ""
    return w("header.request", r=r, mode=mode, extra=extra, mark=mark)


def vllm_line(w, d) -> list[str]:
    """The header's line about the vLLM behaviours switched on (none by default)."""
    parts = []
    if d["prefix_cache"]:
        parts.append(w("header.prefix_cache", docs=w.docs))
    if d["sched_policy"] == "priority":
        parts.append(w("header.priority", docs=w.docs))
    return [f"VLLM: {'; '.join(parts)}."] if parts else []


def header_lines(w, d) -> list[str]:
    return [
        w("header.title"),
        w("header.goal"),
        w("header.input", d=d),
        *[request_line(w, r, d["follow"]) for r in d["requests"]],
        w("header.config", d=d),
        *vllm_line(w, d),
        w("header.model", d=d),
        w("header.clock"),
        w("header.how_to_read"),
        w("header.note") + w("header.cancels_simulated" if d["cancels"] else "header.nothing_simulated"),
        "",
    ]


# ── [1] ────────────────────────────────────────────────────────────────────
def block1(w, d, ctx):
    lines = [w("b1.observe", d=d)]
    for x in d["decisions"]:
        verdict = w("b1.admitted") if x["code"] == "OK" else w("b1.rejected", code=x["code"])
        lines.append(w("b1.decision", x=x, verdict=verdict, why=why(w, x)))
    lines += [abort_line(w, a) for a in d["aborts"]]
    rejected = d["n_429"] + d["n_400"]
    if d["n_aborted"]:
        n = d["n_aborted"]
        lines.append(w("b1.counts_aborted", d=d, n=n))
        lines.append(w("b1.check_aborted", d=d, rejected=rejected, n=n, ok=d["offered"] == d["served"] + rejected + n))
    else:
        lines.append(w("b1.counts", d=d))
        lines.append(w("b1.check", d=d, rejected=rejected, ok=d["offered"] == d["served"] + rejected))
    lines.append(w("b1.conclusion_429" if d["n_429"] else "b1.conclusion_no_429"))
    lines.append(w("b1.limitation"))
    return w("b1.title"), lines


def abort_line(w, a) -> str:
    """A cancelled request, as block [1] tells it (who, when, why, what it had)."""
    if a["stage"] == "running":
        where = w("b1.abort_running", a=a)
    else:
        where = w("b1.abort_waiting", a=a) + (w("b1.abort_frees", a=a) if a["blocks"] else "")
    return w("b1.abort", a=a, where=where, docs=w.docs)


# ── [2] ────────────────────────────────────────────────────────────────────
def block2_follow(w, d, ctx) -> list[str]:
    f, fl = d["follow"], ctx.follow
    lines = []
    if f["ids"]:
        lines += [w("b2.request", f=f), w("b2.ids", f=f)]
    if fl["served"]:
        return lines + [w("b2.budget", f=f, d=d, total=f["prompt_len"] + f["max_new"]), *prefix_line(w, d)]
    return lines + not_followed(w, ctx)


def prefix_line(w, d) -> list[str]:
    """Block [2]: how much of the followed prompt the prefix cache already held (only when it is on)."""
    if not d["prefix_cache"]:
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
        w("b2.lengths", lens=", ".join(f"{rid}={n}" for rid, n in lens)) if lens else w("b2.no_lengths"),
        *[w("b2.blocked", x=x, why=why(w, x)) for x in d["blocked"]],
    ]
    prep = w("b2.ready", d=d) if d["prep"] is not None else w("b2.never_queued", d=d)
    lines.append(w("b2.prep_cost", d=d, per_token=d["cost_tokenize"] / 1000, prep=prep))
    lines.append(w("b2.conclusion"))
    return w("b2.title"), lines


# ── [3] ────────────────────────────────────────────────────────────────────
def preemption_line(w, p, policy="fcfs") -> str:
    at = w("b3.preempt_at", p=p)
    who = w("b3.who_fcfs") if policy != "priority" else w("b3.who_priority", p=p)
    if not p["blocks"]:
        return at + w("b3.preempt_no_block", p=p, who=who)
    return at + w("b3.preempt", p=p, who=who)


def block3(w, d, ctx):
    fid = ctx.follow["id"]
    lines = [w("b3.legend")]
    for i, st in enumerate(d["steps"]):
        work = " ".join(f"{rid}:{p[0]}:{n}" for rid, p, n in st["tasks"])
        lines.append(w("b3.step", i=i + 1, st=st, work=work))
    if not d["steps"]:
        lines.append(w("b3.no_steps"))
    else:
        late = ", ".join(w("b3.late", r=r) for r in d["late"])
        lines.append(w("b3.observe", start=d["steps"][0]["start"], lone=d["lone"], late=late))
    mixed = d["mixed"]
    lines.append(w("b3.mixed", mixed=mixed) if mixed else w("b3.not_mixed"))
    lines += [preemption_line(w, p, d["sched_policy"]) for p in d["preemptions"]]
    lines += [overtake_line(w, o) for o in d["overtakes"]]
    lines += [w("b3.abort", a=a, left=w("b3.left_running" if a["stage"] == "running" else "b3.left_waiting"))
              for a in d["aborts"]]
    if "follow" in d:
        f = d["follow"]
        lines.append(w("b3.chunks", fid=fid, f=f, d=d))
        if f["preempted"]:
            lines.append(w("b3.chunks_redo", fid=fid, f=f))
        lines.append(w("b3.follow_wait", fid=fid, f=f))
    else:
        lines += not_followed(w, ctx)
    lines.append(w("b3.conclusion"))
    return w("b3.title"), lines


def overtake_line(w, o) -> str:
    behind = ", ".join(w("b3.overtaken", x=x) for x in o["overtaken"])
    return w("b3.overtake", o=o, behind=behind)


# ── [4] ────────────────────────────────────────────────────────────────────
def block4(w, d, ctx):
    title = w("b4.title")
    fid = ctx.follow["id"]
    if not ctx.follow["served"]:
        return title, not_followed(w, ctx) + [w("b4.conclusion")]
    row = d["logits"]
    again = w("b4.again", d=d) if d["preempted"] else ""
    n = d.get("cached_tokens", 0)
    first = (w("b4.prompt_cached", fid=fid, d=d, n=n, rest=d["prompt_len"] - n, again=again) if n
             else w("b4.prompt", fid=fid, d=d, again=again))
    return title, [
        first,
        w("b4.cache_shape", fid=fid, shape=tuple(d["k_shape"])),
        w("b4.last_row", row=row),
        w("b4.how_to_read", n=len(row), d=d),
        w("b4.first_token", fid=fid, d=d),
        w("b4.conclusion"),
    ]


# ── [5] ────────────────────────────────────────────────────────────────────
def block5(w, d, ctx):
    title = w("b5.title")
    parity = w("b5.parity", ok=d["parity"] <= 1e-9)
    common = [w("b5.rows"), w("b5.heads", d=d), w("b5.difference")]
    if not ctx.follow["served"]:
        n = len(ctx.follow["served_ids"])
        return title, not_followed(w, ctx) + common + [w("b5.check_served", n=n, parity=parity)]
    a0, a1 = d["heads"]
    return title, [
        w("b5.last_row", d=d, n=len(a0)),
        w("b5.head", h=0, a=a0, total=d["sums"][0]),
        w("b5.head", h=1, a=a1, total=d["sums"][1]),
        w("b5.how_to_read", d=d),
        *common,
        w("b5.check_all", parity=parity),
    ]


# ── [6] ────────────────────────────────────────────────────────────────────
def block6(w, d, ctx):
    pk, bs = d["peak"], d["block_size"]
    slots_used = pk["used"] * bs
    lines = []
    if d["served"]:
        lines += [w("b6.peak", bs=bs, tables="; ".join(f"{rid}→{blk}" for rid, blk in pk["tables"].items())),
                  w("b6.how_to_read"),
                  w("b6.used", pk=pk, d=d, slots_used=slots_used, unused=slots_used - pk["tokens"]),
                  w("b6.compare", d=d, contiguous=d["slots"] * d["max_context"], slots_used=slots_used),
                  w("b6.freed", freed="; ".join(w("b6.frees", rid=rid, blk=blk) for rid, blk in d["released"]))]
    else:
        lines.append(w("b6.none_served", bs=bs))
    kept = w("b6.kept_cached" if d["prefix_cache"] else "b6.kept_dropped")
    lines += [w("b6.preempt", p=p, kept=kept) if p["blocks"] else w("b6.preempt_no_block", p=p)
              for p in d["preemptions"]]
    reused = "; ".join(w("b6.reuse", b=b, owners=" → ".join(o)) for b, o in d["reused"])
    lines += [
        w("b6.reused", reused=reused) if d["reused"] else w("b6.none_reused"),
        w("b6.free_at_end", d=d),
        w("b6.gather", ok=d["gather"] <= 1e-9),
    ]
    lines += pool_problem_lines(w, d)
    if d["prefix_cache"]:
        lines += prefix_cache_lines(w, d)
    else:
        lines.append(w("b6.limitation_preempt" if d["any_preemption"] else "b6.limitation"))
    return w("b6.title"), lines


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


def prefix_cache_lines(w, d) -> list[str]:
    """Block [6] with PREFIX_CACHE=on: hits, shared blocks (ref count > 1), evictions, what stays cached."""
    hits = [w("b6.hit", h=h) + (w("b6.hit_recompute") if h["recompute"] else "") for h in d["hits"]]
    lines = [w("b6.prefix_cache", docs=w.docs),
             w("b6.hits", hits="; ".join(hits)) if hits else w("b6.no_hits")]
    lines.append(w("b6.shared", d=d) if d["shared_blocks"] else w("b6.none_shared"))
    ev = [w("b6.evicted_block", e=e) for e in d["evictions"]]
    lines.append(w("b6.evicted", ev=", ".join(ev)) if ev else w("b6.none_evicted"))
    lines.append(w("b6.cached_free", n=len(d["cached_free"])))
    lines.append(w("b6.prefix_limitation"))
    return lines


# ── [7] ────────────────────────────────────────────────────────────────────
def block7_decode(w, d, fid) -> list[str]:
    fd = d.get("first_decode")
    if fd is None:
        return [w("b7.no_decode", fid=fid)]
    return [w("b7.first_decode", fid=fid, fd=fd, n=len(fd["weights"])), w("b7.weights", fd=fd)]


def block7(w, d, ctx):
    fid = ctx.follow["id"]
    counts = w("b7.counts", d=d)
    tail = [w("b7.not_time"), w("b7.conclusion")]
    if not ctx.follow["served"]:
        return w("b7.title"), not_followed(w, ctx) + [w("b7.positions_served", counts=counts)] + tail
    recompute = d["n_out"] - 1 - d["n_decode"]
    lines = [w("b7.generates", fid=fid, d=d)]
    if d["preempted"]:
        again = w("b7.again", recompute=recompute) if recompute else ""
        lines.append(w("b7.preempted", fid=fid, d=d, again=again))
    lines += block7_decode(w, d, fid)
    lines.append(w("b7.cache_len", fid=fid, d=d))
    lines.append(w("b7.positions_all", counts=counts))
    return w("b7.title"), lines + tail


# ── [8] ────────────────────────────────────────────────────────────────────
def stop_lines(w, d) -> list[str]:
    return ([w("b8.stop", s=s) for s in d["stops"]] + [aborted_stop_line(w, s) for s in d.get("aborted", [])])


def aborted_stop_line(w, s) -> str:
    return w("b8.cancelled", s=s) + (w("b8.cancelled_after", s=s) if s["n"] else w("b8.cancelled_before", s=s))


def block8(w, d, ctx):
    title = w("b8.title")
    tail = [w("b8.observe"), w("b8.warning")]
    stop = w("b8.stop_check")
    if not ctx.follow["served"]:
        return title, not_followed(w, ctx) + [stop, *stop_lines(w, d)] + tail
    fid = ctx.follow["id"]
    stream = ", ".join(f"{ms(t)} '{tok}'" for t, tok in d["stream"])
    return title, [
        w("b8.sampling", fid=fid, d=d),
        w("b8.probs", d=d) + ", ".join(f"{t}={p:.3f}" for t, p in d["top5"]),
        w("b8.kept", n=len(d["kept"])) + ", ".join(f"{t}={p:.3f}" for t, p in d["kept"]),
        w("b8.draw", d=d),
        stop, *stop_lines(w, d),
        w("b8.stream", fid=fid, stream=stream),
        *tail,
    ]


# ── [9] ────────────────────────────────────────────────────────────────────
def block9(w, d, ctx):
    fid = ctx.follow["id"]
    lines = [w("b9.quantize", d=d), w("b9.size", d=d, ratio=d["fp32_bytes"] / d["int_bytes"]), w("b9.error", d=d)]
    if d["probe"] == fid:
        lines.append(w("b9.logit_error", fid=fid, d=d))
    elif d["probe"] is not None:
        lines.append(w("b9.logit_error_other", fid=fid, d=d))
    lines += [w("b9.conclusion"), w("b9.limitation")]
    return w("b9.title", d=d), lines


# ── [10] ───────────────────────────────────────────────────────────────────
def block10(w, d, ctx):
    x = d["example"]
    GiB = 1024 ** 3
    real_seq = 2 * x["layers"] * x["ctx"] * x["kv_heads"] * x["head_dim"] * x["bytes"]
    hbm, weights = x["hbm_gib"] * GiB, x["weights_gib"] * GiB
    bpt = d["bytes_per_token"]
    return w("b10.title"), [
        w("b10.lab", d=d, bpt=bpt),
        w("b10.per_token", d=d, bpt=bpt),
        w("b10.peak", d=d, kv=d["peak_used"] * d["block_size"] * bpt, pct=100 * d["peak_used"] / d["pool_blocks"]),
        w("b10.formula"),
        w("b10.example", x=x, real_seq=real_seq, gib=real_seq / GiB),
        w("b10.gpu", x=x, hbm=hbm // GiB, weights=weights // GiB, left=(hbm - weights) // GiB, seqs=(hbm - weights) // real_seq),
        w("b10.half", half=weights // 2 // GiB, left=(hbm - weights // 2) // GiB, seqs=(hbm - weights // 2) // real_seq),
        w("b10.conclusion"),
    ]


# ── [11] ───────────────────────────────────────────────────────────────────
def ttft_line(w, m, slo, lost) -> str:
    parts = [("b11.prep", m["prep"]), ("b11.queue", m["queue"]), ("b11.prefill", m["prefill"])]
    biggest = max(parts, key=lambda x: x[1])
    verdict = w("b11.misses" if m["ttft"] > slo else "b11.meets")
    line = w("b11.ttft", m=m, biggest=w(biggest[0]), verdict=verdict, slo=slo)
    if lost:
        line += w("b11.preempted", lost=lost)
    return line


def aborted_metrics_line(w, m) -> str:
    return w("b11.cancelled_before" if m["first"] is None else "b11.cancelled_after", m=m)


def ttft_saved_line(w, rows) -> str:
    changed = [r for r in rows if r["saved"] or r["cached_tokens"]]
    if not changed:
        return w("b11.unchanged")
    parts = [w("b11.saved_row", r=r, saved=w("b11.saves", t=r["saved"]) if r["saved"] >= 0 else w("b11.slower", t=-r["saved"]))
             for r in changed]
    return w("b11.saved") + "; ".join(parts) + "."


def block11(w, d, ctx):
    lines = [w("b11.legend")]
    for i, st in enumerate(d["steps"]):
        mark = f" | preempt {', '.join(st['preempted'])}" if st["preempted"] else ""
        lines.append(w("b11.step", i=i + 1, st=st, d=d, dur=st["end"] - st["start"], pct=100 * st["kv_used"] / d["pool_blocks"], mark=mark))
    lines.append(w("b11.breakdown"))
    served = [m for m in d["requests"] if m["status"] == "finished"]
    lines += [ttft_line(w, m, d["ttft_slo"], d["preempted_at"].get(m["id"])) for m in served]
    if not served:
        lines.append(w("b11.none_served"))
    lines += [aborted_metrics_line(w, m) for m in d["requests"] if m["status"] == "aborted"]
    if "ttft_saved" in d:
        lines.append(ttft_saved_line(w, d["ttft_saved"]))
    lines.append(w("b11.conclusion"))
    lines.append(w("b11.limitation"))
    return w("b11.title"), lines


# ── [12] ───────────────────────────────────────────────────────────────────
def opt_ms(v) -> str:
    return ms(v) if v is not None else "n/a"


def policy_name(w, name, cfg):
    return w.policies.get(name) or w("b12.chunked", cfg=cfg)


def policy_line(w, p, cfg) -> str:
    name = policy_name(w, p["policy"], cfg)
    if not p["served"]:
        return w("b12.policy_none", name=name)
    line = w("b12.policy", name=name, p=p, tpot=opt_ms(p["mean_tpot"]))
    return line + (w("b12.preemptions", p=p) if p["preemptions"] else "")


def reading_line(w, policies) -> str:
    by = {p["policy"]: p for p in policies}
    nochunk, chunked = by["nochunk"], by["chunked"]
    if nochunk["served"] and chunked["served"] and nochunk["mean_ttft"] < chunked["mean_ttft"] and nochunk["worst_gap"] > chunked["worst_gap"]:
        return w("b12.reading", nochunk=nochunk, chunked=chunked)
    return w("b12.reading_other")


def block12(w, d, ctx):
    lines = [w("b12.definitions"), w("b12.per_request")]
    lines += [w("b12.request", m=m, tpot=opt_ms(m["tpot"])) for m in d["per"]]
    lines.append(w("b12.same", d=d))
    lines.append(w("b12.baseline"))
    lines.append(w("b12.legend"))
    lines += [policy_line(w, p, ctx.cfg) for p in d["policies"]]
    lines.append(reading_line(w, d["policies"]))
    lines.append(w("b12.conclusion"))
    lines.append(w("b12.benchmark"))
    return w("b12.title"), lines


# ── [13] ───────────────────────────────────────────────────────────────────
def block13(w, d, ctx):
    lines = [w("b13.method", d=d)]
    lines += [w("b13.row", r=r) for r in d["rows"]]
    lines += [w("b13.skipped", s=s, why=unknown_text(w, s["chars"], s["pieces"], code="")) for s in d["skipped"]]
    if d["decisions"]:
        t = d["tight"]
        lines.append(w("b13.total", d=d, same=d["decisions"] - d["flips"], pct=100 * d["agreement"], gate=100 * d["gate"],
                       verdict=w("b13.pass" if d["passed"] else "b13.fail")))
        lines.append(w("b13.closest", t=t, step=t["step"] + 1, kept=w("b13.kept" if t["margin_q"] > 0 else "b13.changed")))
    else:
        lines.append(w("b13.no_decisions"))
    lines.append(w("b13.reading"))
    lines.append(w("b13.conclusion", d=d))
    return w("b13.title", d=d), lines


BLOCKS = {1: block1, 2: block2, 3: block3, 4: block4, 5: block5, 6: block6, 7: block7, 8: block8, 9: block9,
          10: block10, 11: block11, 12: block12, 13: block13}


# ── summary ────────────────────────────────────────────────────────────────
def stand_in_note(w, ctx, checks) -> list[str]:
    fl = ctx.follow
    if fl["served"]:
        return []
    fate = w("summary.cancelled" if fl.get("code") == "aborted" else "summary.rejected")
    used = sorted({c.detail for c in checks if c.detail and c.detail != "skipped"})
    if not used:
        return [w("summary.note_nobody", fl=fl, fate=fate)]
    return [w("summary.note_stand_in", fl=fl, fate=fate, used=", ".join(used))]


def summary_lines(w, ctx, checks) -> list[str]:
    fl, fm = ctx.follow, ctx.follow_metrics
    if fl["served"]:
        first = w("summary.followed", fl=fl, fm=fm)
    else:
        first = w("summary.not_followed", refusal=refusal(w, ctx), how=how_to_follow(w, ctx))
    lines = [w("summary.title"), first, w("summary.tokens"), w("summary.distributions"), w("summary.simulated"),
             *stand_in_note(w, ctx, checks)]
    failed = [c for c in checks if not c.ok]
    if failed:
        lines.append(w("summary.fail", labels="; ".join(w.checks[c.name] for c in failed)))
    else:
        lines.append(w("summary.pass"))
    return lines


def bind(w: Words) -> tuple[dict, partial, partial]:
    """(BLOCKS, header_lines, summary_lines) worded by `w`: the names lab.render calls on a language module."""
    return {n: partial(f, w) for n, f in BLOCKS.items()}, partial(header_lines, w), partial(summary_lines, w)
