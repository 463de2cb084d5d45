"""Helpers shared by the vLLM-features test modules (tests/test_vllm_features_*.py): the seed's trace with
extra columns, a report's block by number, the golden default output, and a hand-driven block pool
(fake K/V that depends on the whole prefix, a bare sequence, one computing step).
Leaves out: any test; the engine itself (py/inference_lab/core/)."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace as NS

import numpy as np

from inference_lab.core.inputs.config import DEFAULT_REQUESTS

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT.parent / "shared" / "golden" / "default.txt"
if not GOLDEN.exists():
    GOLDEN = ROOT / "tests" / "golden" / "default.txt"


def trace(**columns) -> list[dict]:
    """The seed's five requests with extra columns, e.g. trace(priority={"C": 0}, cancel_at={"A": 8000})."""
    reqs = [dict(r) for r in DEFAULT_REQUESTS]
    for name, per_id in columns.items():
        for r in reqs:
            if r["id"] in per_id:
                r[name] = per_id[r["id"]]
    return reqs


def block(report, n):
    return report.blocks[n - 1]


def fake_kv(tokens, lo, n):
    """K/V a 'model' would compute for positions lo..lo+n: each depends on the whole prefix. (2, n, 4)"""
    vals = [float(sum((i + 1) * t for i, t in enumerate(tokens[:p + 1])) + p) for p in range(lo, lo + n)]
    return np.broadcast_to(np.array(vals)[None, :, None], (2, n, 4)).copy()


def seq(rid, tokens):
    return NS(id=rid, cached=0, block_table=[], history=[], prefill_ids=list(tokens), tokens=list(tokens))


def feed(pool, s, n):
    """Compute n more positions of s (what prefill/decode do): history first, then write."""
    lo = s.cached
    s.history = s.tokens[:lo + n]
    pool.write(s, fake_kv(s.tokens, lo, n), fake_kv(s.tokens, lo, n))


def play(pool, live: dict, i: int, op: str, slot: int, tokens: list[int]):
    """One step of a random block-pool script (the property tests' shared driver): `start` a sequence in an
    empty slot (taking its cached prefix), `feed` one more token of it when the pool has room, `finish`
    (release) or `preempt` (evict) it. `live` maps slot -> sequence and is changed in place."""
    s = live.get(slot)
    if op == "start" and s is None:
        s = live[slot] = seq(f"S{i}", [0] + tokens)
        s.history = s.tokens[:pool.take_cached_prefix(s, s.tokens)]
    elif op == "feed" and s is not None and s.cached < len(s.tokens) and pool.can_append(s, 1):
        feed(pool, s, 1)
    elif op in ("finish", "preempt") and s is not None:
        (pool.release if op == "finish" else pool.evict)(s)
        del live[slot]
