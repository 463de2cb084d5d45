"""[7] Speculative decoding's acceptance rule: which proposed tokens the target model keeps.

The rule of Leviathan et al. 2023 ("Fast Inference from Transformers via Speculative Decoding") and
Chen et al. 2023 ("Accelerating Large Language Model Decoding with Speculative Sampling"), as vLLM's
`RejectionSampler` (vllm/v1/sample/rejection_sampler.py: "accepted", "recovered" and "bonus" tokens):
for the proposed tokens x_1..x_K, with the target's probabilities p_i and the proposer's q_i at each
position,

    accept x_i  with probability min(1, p_i(x_i) / q_i(x_i))      (u ~ U[0, 1) from the request's own RNG)
    at the first rejection: sample the "recovered" token from normalize(max(0, p_i − q_i)), stop
    all K accepted: sample one "bonus" token from p_{K+1}

so every emitted token is distributed exactly as the target's sampler would draw it (lossless). p and q are
what `sampler.sample` would draw from: softmax(logits / T) filtered by top-k / top-p (`sample_probs`). A
greedy request (T = 0) has one-hot p and q: a proposal is kept when it is the target's argmax, the
correction is that argmax, and no random number is used, so its text is the one of SPEC_METHOD = off.
The n-gram proposer has no q: q = one-hot at the proposal (vLLM's IS_NGRAM), so x_i is kept with
probability p_i(x_i), and the residual is p_i with x_i taken out.

`accepts(p_x, q_x, u)` is the rule itself, the function the page lets a student edit (block [7]); block [13]'s
speculation check samples it many times (`rule_histogram`) and compares with the target's p.

    >>> import numpy as np
    >>> p, q = np.array([0.0, 0.5, 0.5]), np.array([0.0, 1.0, 0.0])
    >>> accepts(0.5, 1.0, 0.4), accepts(0.5, 1.0, 0.6)
    (True, False)
    >>> residual(p, q).tolist()
    [0.0, 0.0, 1.0]

Leaves out: tree attention (EAGLE/Medusa token trees: one chain of proposals here), typical acceptance,
batching the rule over requests (one request at a time, in NumPy).
"""
from __future__ import annotations

import numpy as np

from .tokenizer import BOS
from .sampler import draw, softmax, top_k_top_p


def accepts(p_x: float, q_x: float, u: float) -> bool:
    """Keep the proposed token x when u < min(1, p(x) / q(x)); u ~ U[0, 1) (0 for a greedy request)."""
    return q_x > 0 and u * q_x < p_x


def sample_probs(logits, params: dict) -> np.ndarray:
    """The distribution sampler.sample draws from: one-hot argmax (T = 0), else softmax(z / T) after top-k/top-p."""
    z = np.array(logits, dtype=float)
    z[BOS] = -np.inf
    if params["temperature"] == 0:
        return np.eye(len(z))[int(np.argmax(z))]
    return top_k_top_p(softmax(z / params["temperature"]), params["top_k"], params["top_p"])


def residual(p, q) -> np.ndarray:
    """normalize(max(0, p − q)): where the recovered token comes from after a rejection (p when p − q has no mass)."""
    r = np.maximum(p - q, 0.0)
    total = r.sum()
    return r / total if total > 0 else p


def verify(rows, proposed: list, qs: list, params: dict, rng) -> tuple[int, int]:
    """The rule over one request's proposals: (accepted count n, the recovered or bonus token).

    rows: the target's logits (K + 1, vocab) at the pending token and the K proposals, from one forward pass;
    qs: the proposer's distribution for each proposal (None = one-hot, the n-gram proposer)."""
    greedy = params["temperature"] == 0
    for i, x in enumerate(proposed):
        p = sample_probs(rows[i], params)
        q = np.eye(len(p))[x] if qs[i] is None else qs[i]
        u = 0.0 if greedy else rng.random()
        if not accepts(float(p[x]), float(q[x]), u):
            return i, pick(residual(p, q), greedy, rng)
    return len(proposed), pick(sample_probs(rows[len(proposed)], params), greedy, rng)


def pick(probs, greedy: bool, rng) -> int:
    return int(np.argmax(probs)) if greedy else draw(probs, rng)


def rule_histogram(p, q, draws: int, seed: int) -> np.ndarray:
    """Counts of the first emitted token over `draws` runs of the rule with one proposal x ~ q against the target p:
    what block [13] compares with p (a correct rule gives counts ∝ p whatever q is)."""
    rng, counts = np.random.default_rng(seed), np.zeros(len(p))
    for _ in range(draws):
        x = draw(q, rng)
        token = x if accepts(float(p[x]), float(q[x]), rng.random()) else draw(residual(p, q), rng)
        counts[token] += 1
    return counts


FALSE_ALARM = 0.001             # the chance that a correct rule fails the test with an unlucky seed
Z_FALSE_ALARM = 3.090232306167813   # the standard normal's upper 0.1 % point


def chi_square_critical(df: int, z: float = Z_FALSE_ALARM) -> float:
    """The chi-square value exceeded with probability FALSE_ALARM at df degrees of freedom, by Wilson and
    Hilferty's cube-root approximation (1931; within 1 % of the exact quantile for df >= 3)."""
    if df <= 0:
        return 0.0
    a = 2.0 / (9.0 * df)
    return df * (1.0 - a + z * np.sqrt(a)) ** 3


def chi_square(counts, p, least: float = 5.0) -> tuple[float, int]:
    """Pearson's statistic of `counts` against probabilities p and its degrees of freedom, over the tokens p allows;
    tokens expected fewer than `least` times are pooled into one bin (the usual rule for the test to hold).
    A count on a token p forbids makes the statistic infinite."""
    n, keep = counts.sum(), p > 0
    if np.any(counts[~keep] > 0):
        return float("inf"), int(keep.sum()) - 1
    expected, seen = n * p[keep], counts[keep]             # (allowed tokens,)
    small = expected < least
    if small.any() and (~small).any():
        expected = np.r_[expected[~small], expected[small].sum()]
        seen = np.r_[seen[~small], seen[small].sum()]
    return float(np.sum((seen - expected) ** 2 / expected)), len(expected) - 1
