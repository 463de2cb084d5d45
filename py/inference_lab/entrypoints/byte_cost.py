"""What byte fallback costs (BYTE_FALLBACK=on): each request whose text needed byte tokens, against the same
text without accents, in tokens, prompt KV blocks, assumed preparation + prefill time and measured TTFT.

`byte_cost_data(lab, main, S)` → None when byte fallback is off or no text needed a byte token; else
rows like (default trace, C = "xin chào bạn", BLOCK_SIZE 4):

    C: 12 tokens (<bos> xin</w> c h <0xC3> <0xA0> o</w> b <0xE1> <0xBA> <0xA1> n</w>)
       vs "xin chao ban": 8 tokens (<bos> xin</w> c ha o</w> b a n</w>) → +4 tokens, 3 vs 2 prompt blocks

The TTFT without accents comes from a second engine run of the trace with every text stripped of its
accents (same tokenizer, same weights): the time a student would have seen had they typed no accents.

Leaves out: the words (words/text_intake.py, text_vi/en.py), the tokenizer itself (core/model/tokenizer.py).
"""
from __future__ import annotations

import unicodedata
from dataclasses import replace

from ..core.serving.engine import RunOptions, run_engine
from ..core.serving.metrics import summarize
from ..core.model.tokenizer import BYTE_TOKENS, byte_pieces

BYTES = frozenset(BYTE_TOKENS)


def strip_accents(text: str) -> str:
    """Vietnamese without its diacritics: 'xin chào bạn' -> 'xin chao ban' (đ -> d)."""
    plain = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    return plain.replace("đ", "d").replace("Đ", "D")


def blocks_for(tokens: int, block_size: int) -> int:
    return -(-tokens // block_size)


def byte_cost_data(lab, main, S) -> dict | None:
    tok, cfg = lab.tokenizer, lab.cfg
    if not tok.byte_fallback:
        return None
    costly = [r for r in cfg.REQUESTS if any(p in BYTES for p in tok.pieces(r["text"]))]
    if not costly:
        return None
    plain_run = plain_engine_run(lab)
    plain_ttft = {rid: m["ttft"] for rid, m in summarize(plain_run.done)["per"].items()}
    ttft = {rid: m["ttft"] for rid, m in S["per"].items()}
    rows = [cost_row(tok, cfg, r, ttft.get(r["id"]), plain_ttft.get(r["id"])) for r in costly]
    return dict(rows=rows, base_vocab=tok.vocab_size - tok.n_byte_tokens, n_bytes=tok.n_byte_tokens,
                block_size=cfg.BLOCK_SIZE, cost_prefill=cfg.COST_PREFILL_PER_TOKEN,
                cost_tokenize=cfg.COST_TOKENIZE_PER_TOKEN)


def cost_row(tok, cfg, r, ttft, plain_ttft) -> dict:
    """One request: its tokens and the accent-free text's, the characters spelled as bytes, blocks, time."""
    text, plain = r["text"], strip_accents(r["text"])
    tokens, plain_tokens = tok.pieces(text), tok.pieces(plain)
    extra = len(tokens) - len(plain_tokens)
    chars = [[c, byte_pieces(c)] for c in tok.unknown_chars(text)]
    return dict(id=r["id"], text=text, plain=plain, tokens=tokens, plain_tokens=plain_tokens,
                prompt=len(tokens), plain_prompt=len(plain_tokens), extra=extra, chars=chars,
                words=len(text.split()), byte_tokens=sum(p in BYTES for p in tokens),
                blocks=blocks_for(len(tokens), cfg.BLOCK_SIZE),
                plain_blocks=blocks_for(len(plain_tokens), cfg.BLOCK_SIZE),
                extra_time=extra * (cfg.COST_PREFILL_PER_TOKEN + cfg.COST_TOKENIZE_PER_TOKEN),
                ttft=ttft, plain_ttft=plain_ttft)


def plain_engine_run(lab):
    """The trace again with every text stripped of its accents (same tokenizer and weights), unchecked."""
    cfg = replace(lab.cfg, REQUESTS=tuple(dict(r, text=strip_accents(r["text"])) for r in lab.cfg.REQUESTS))
    return run_engine(replace(lab, cfg=cfg), RunOptions("continuous", cfg.TOKEN_BUDGET, check=False))
