"""[8] Logits → sampling: temperature, top-k, top-p, then a draw with the request's own RNG.

`sample(logits, params, rng, vocab)` returns the token and what the lab prints about it:
the probabilities before filtering (softmax of logits / T) and after top-k/top-p
(renormalised to sum 1). Greedy (T = 0) takes the argmax and uses no randomness.
The draw is inverse-CDF sampling, the same arithmetic as `rng.choice(vocab, p=filtered)`
(so the same token from the same RNG state) without its argument checks.
`<bos>` is never generated (its logit is set to -inf first).

    >>> import numpy as np
    >>> tok, info = sample(np.array([0.0, 1.0, 3.0, 2.0]), dict(temperature=0.0, top_k=0, top_p=1.0), None, 4)
    >>> tok, info["mode"]
    (2, 'greedy')

`greedy_token(logits)` is sample()'s greedy token alone: the engine takes it for a greedy request's later tokens
(the lab prints the info of a request's first token only), without the softmax and one-hot sample() returns with it.

Leaves out: repetition penalties, min-p, beam search, logit bias. The stop check
(eos / max_new) lives in the engine, right after the token is appended.
"""
from __future__ import annotations

import numpy as np

from .tokenizer import BOS


def softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def top_k_top_p(probs, top_k: int, top_p: float):
    """Zero all but the top_k most likely, then keep the smallest head of mass >= top_p; renormalise."""
    filtered = probs.copy()
    if top_k:
        filtered[np.argsort(filtered)[:-top_k]] = 0
    order = np.argsort(filtered)[::-1]
    norm = filtered / filtered.sum()
    filtered[order[np.cumsum(norm[order]) - norm[order] >= top_p]] = 0
    return filtered / filtered.sum()


def draw(probs, rng) -> int:
    """The first token whose cumulative probability exceeds u ~ U[0, 1): token i with probability probs[i]."""
    cdf = np.cumsum(probs)
    return int(np.searchsorted(cdf / cdf[-1], rng.random(), side="right"))


def sample(logits, params: dict, rng, vocab: int):
    """Choose one token; returns (token, info with probs/filtered/token/mode)."""
    z = np.array(logits, dtype=float)
    z[BOS] = -np.inf                                     # never generate <bos>
    if params["temperature"] == 0:
        token = int(np.argmax(z))
        return token, dict(probs=softmax(z), filtered=np.eye(vocab)[token], token=token, mode="greedy")
    probs = softmax(z / params["temperature"])
    filtered = top_k_top_p(probs, params["top_k"], params["top_p"])
    token = draw(filtered, rng)
    return token, dict(probs=probs, filtered=filtered, token=token, mode="sampling")


def greedy_token(logits) -> int:
    """sample()'s token at temperature 0 (the same masked argmax), without its info."""
    z = np.array(logits, dtype=float)
    z[BOS] = -np.inf
    return int(np.argmax(z))
