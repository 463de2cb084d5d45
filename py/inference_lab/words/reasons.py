"""Why a request was refused, and what became of the followed request: the phrases several blocks share.

`why(w, d)` words a gateway / input decision (429 at the queue limit, 400 for an unknown character
or a context over MAX_CONTEXT), `refusal(w, ctx)` says where and why the followed request was refused
or cancelled, `not_followed(w, ctx)` is what a block about the followed request says instead when it
was not served. Blocks [1]-[8], the summary and the step narration (text_steps.py) say them.

Leaves out: the sentences (text_vi.py, text_en.py) and the decisions themselves (engine.py, lab.py).
"""
from __future__ import annotations


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
        where = w({"running": "refusal.running", "gateway": "refusal.before_arrival"}.get(f["stage"],
                                                                                          "refusal.waiting"))
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
