"""Test helpers shared by several test modules (test modules never import each other).

- configs(): a hypothesis strategy of random valid engine configs (a trace of 1-6 requests, FOLLOW one
  of them, some constants changed within their bounds); test_engine.py and test_steps.py draw from it.
- vllm_request(max_new, cancel_by): a request with the vLLM columns (priority, cancel_at) for the property
  tests of test_vllm_features_properties.py and test_vllm_rules.py (known words only).
- printed(number, text): whether a number is printed in a text as that number (not inside another).

Leaves out: the browser helpers (lab_browser.py), the site helpers (lab_site.py) and the vLLM-features
helpers (vllm_helpers.py: the hand-driven block pool).
"""
from __future__ import annotations

import re

from hypothesis import strategies as st

WORDS = ["xin", "chao", "model", "hoc", "token", "ban", "xyz", "chào"]


request = st.fixed_dictionaries(dict(
    arrival=st.integers(0, 20_000),
    text=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
    max_new=st.integers(1, 20),
    temperature=st.sampled_from([0.0, 0.5, 0.8, 1.0, 2.0]),
    top_k=st.integers(0, 25),
    top_p=st.sampled_from([0.05, 0.5, 0.9, 1.0]),
    seed=st.integers(0, 2**31 - 1),
))


def vllm_request(max_new: int, cancel_by: int):
    """A known-words request, sometimes with a priority (-3..3) and a cancel_at (0..cancel_by µs)."""
    return st.fixed_dictionaries(dict(
        arrival=st.integers(0, 8_000),
        text=st.lists(st.sampled_from(WORDS[:6]), min_size=1, max_size=4).map(" ".join),
        max_new=st.integers(1, max_new),
        temperature=st.sampled_from([0.0, 0.8]),
        top_k=st.integers(0, 6),
        top_p=st.sampled_from([0.5, 1.0]),
        seed=st.integers(0, 1000),
    ), optional=dict(priority=st.integers(-3, 3), cancel_at=st.integers(0, cancel_by)))


@st.composite
def configs(draw):
    reqs = draw(st.lists(request, min_size=1, max_size=6))
    for i, r in enumerate(reqs):
        r["id"] = "ABCDEFGH"[i]
    values = dict(REQUESTS=reqs, FOLLOW=draw(st.sampled_from([r["id"] for r in reqs])))
    ints = dict(SLOTS=(1, 6), QUEUE_LIMIT=(0, 4), TOKEN_BUDGET=(1, 20), BLOCK_SIZE=(1, 8), POOL_BLOCKS=(1, 30),
                QUANT_BITS=(2, 8), MAX_CONTEXT=(2, 48), SEED=(0, 10_000), N_MERGES=(0, 30))
    for name, (lo, hi) in ints.items():
        if draw(st.booleans()):
            values[name] = draw(st.integers(lo, hi))
    return values


def printed(number: str, text: str) -> bool:
    """`number` occurs in `text` not glued to other digits (22.0 is not in 22.00, 10 is not in 10.60)."""
    return re.search(rf"(?<!\d)(?<!\d\.){re.escape(number)}(?!\d)(?!\.\d)", text) is not None
