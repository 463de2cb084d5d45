"""A generated workload: N requests with prompts of exactly WORKLOAD_PROMPT tokens, for long, realistic runs.

The seed's five prompts are 6–9 tokens long: far too short to ever make a step compute-bound. With
WORKLOAD_REQUESTS = N > 0 the engine plays `generate(...)`'s trace instead of REQUESTS:

- requests named R1 … RN (R1 first), each asking for WORKLOAD_OUTPUT tokens (max_new);
- every prompt is EXACTLY WORKLOAD_PROMPT tokens for the lab's tokenizer, `<bos>` included: its text is made
  of words the tokenizer knows (the corpus' words and letters), drawn at random, and the last few are chosen
  so that the token count comes out exact (`fill`); `generate` checks every prompt by tokenizing it;
- arrivals: WORKLOAD_RATE = 0 sends all at time 0; a rate λ > 0 (requests per simulated second) makes a
  Poisson process: R1 at 0, then gaps drawn from an exponential distribution of mean 1/λ s, as vLLM's
  `benchmarks/benchmark_serving.py --request-rate` does (its first request leaves at once);
- WORKLOAD_PREFIXES = P > 0 shared prefixes (system prompts): request i (0-based) starts with prefix i mod P,
  the same WORKLOAD_SHARED tokens (`<bos>` included) for every request that uses it; they count inside
  WORKLOAD_PROMPT, the rest of the prompt is the request's own. With PREFIX_CACHE = on, their full KV blocks
  are shared;
- sampling: greedy (temperature 0, top_k 0, top_p 1) with its own seed WORKLOAD_SEED + i, so a run is
  deterministic and the token choices do not depend on the schedule. Everything is drawn from one NumPy
  generator seeded with WORKLOAD_SEED: the prefixes first, then for each request its gap and its words.

Worked example (N_MERGES = 10: "model" and "xin" are one token each, "ban" three: b a n</w>):

    >>> from inference_lab.core.model.tokenizer import CORPUS, BPETokenizer
    >>> tok = BPETokenizer.train(CORPUS, 10)
    >>> trace = generate(tok, requests=3, prompt=12, output=4, rate=100.0, seed=1, prefixes=1, shared=5)
    >>> for r in trace:
    ...     print(r["id"], r["arrival"], repr(r["text"]), r["max_new"], r["seed"])
    R1 0 'ban model token a' 4 1
    R2 53754 'ban model chao model model a' 4 2
    R3 57419 'ban model hoc xin a' 4 3
    >>> [len(tok.encode(r["text"])[1]) for r in trace]
    [12, 12, 12]

By hand: "ban model" is the shared prefix: <bos> + b a n</w> + model</w> = 5 tokens; R1's own part "token a" is
t o k e n</w> + a </w> = 7 tokens, 5 + 7 = 12 ("a" is a letter the exact tail added: the random corpus words
stopped where the rest could still be made exactly). At 100 requests/s the mean gap is 10,000 µs; R2 came
53.8 ms after R1, R3 3.7 ms after R2.

Leaves out: prompt and output lengths that vary between requests (real traces such as ShareGPT's have
long-tailed lengths; here every prompt has the same length, so a figure's cause is easy to see), bursty or
diurnal arrivals (only a homogeneous Poisson process), multi-turn conversations, and meaning: the words are
random, like the lab's model. The EOS token may still end a request before WORKLOAD_OUTPUT tokens (the
engine's stop check is unchanged; vLLM's benchmarks would pass ignore_eos).
"""
from __future__ import annotations

import functools

import numpy as np

from ..model.tokenizer import CORPUS, BPETokenizer

NAME = "R{}"                          # R1 … RN


def words_of(tok) -> tuple[list[str], list[int]]:
    """The words a prompt is made of: the corpus' words and its letters (as one-letter words), with their cost
    in tokens (a word's BPE pieces, "</w>" included); cheapest first. They are all known to the tokenizer."""
    known = "".join(t for t in tok.id_to_token[2:tok.vocab_size - tok.n_byte_tokens]).replace("</w>", "")
    corpus_words = sorted({w for w in _corpus() if all(c in known for c in w)})
    letters = sorted(set(known))
    words = corpus_words + [c for c in letters if c not in corpus_words]
    costs = [len(tok.bpe_word(w)) for w in words]
    order = sorted(range(len(words)), key=lambda i: (costs[i], words[i]))
    return [words[i] for i in order], [costs[i] for i in order]


def _corpus():
    return " ".join(CORPUS).split()


@functools.lru_cache(maxsize=64)
def _exact_fill(costs: tuple, n: int) -> tuple | None:
    """Indexes into `costs` whose costs add up to exactly n (fewest words, cheapest-first ties), or None."""
    best = [()] + [None] * n                      # best[m]: a fill of m tokens
    for m in range(1, n + 1):
        options = [best[m - c] + (i,) for i, c in enumerate(costs) if c <= m and best[m - c] is not None]
        best[m] = min(options, key=len) if options else None
    return best[n]


def fill(rng, words: list[str], costs: list[int], n: int) -> list[str]:
    """Random words whose token costs add up to exactly n: random corpus words as long as what is left can still
    be made exactly, then the exact rest (`_exact_fill`: the fewest words, letters allowed; a small change-making
    problem). Raises ValueError when n cannot be reached."""
    if n == 0:
        return []
    cost = np.asarray(costs)                                    # (W,)
    pool = np.flatnonzero([len(w) > 1 for w in words]) if any(len(w) > 1 for w in words) else np.arange(len(words))
    picks = pool[rng.integers(0, len(pool), size=n)]            # (n,) corpus words; more than enough (costs >= 1)
    left = n - np.concatenate([[0], np.cumsum(cost[picks])])    # (n + 1,) tokens left after 0, 1, … picks
    keep = int(np.searchsorted(-left, 0, side="right")) - 1     # most picks that leave >= 0 tokens
    while keep >= 0 and _exact_fill(tuple(costs), int(left[keep])) is None:
        keep -= 1
    if keep < 0:
        raise ValueError(f"no words of the tokenizer add up to {n} tokens")
    return [words[i] for i in picks[:keep]] + [words[i] for i in _exact_fill(tuple(costs), int(left[keep]))]


def arrivals(rng, requests: int, rate: float) -> np.ndarray:
    """The arrival times (N,) in simulated µs: R1 at 0, then exponential gaps of mean 1/rate s (a Poisson process;
    all at 0 when rate is 0), drawn from `rng` (trace_workload.distributions draws the same for its comparison)."""
    gaps = rng.exponential(1.0 / rate, size=requests) if rate > 0 else np.zeros(requests)   # (N,) seconds
    if requests:
        gaps[0] = 0.0                                           # the first request leaves at once
    return np.rint(np.cumsum(gaps) * 1e6).astype(np.int64)


def generate(tok, requests: int, prompt: int, output: int, rate: float, seed: int, prefixes: int = 0,
             shared: int = 0) -> tuple[dict, ...]:
    """The trace: `requests` request dicts (REQUESTS' columns) named R1 …, each prompt exactly `prompt` tokens."""
    rng = np.random.default_rng(seed)
    words, costs = words_of(tok)
    shared = min(shared, prompt) if prefixes else 1            # <bos> is every prompt's first token
    heads = [fill(rng, words, costs, shared - 1) for _ in range(max(prefixes, 1))]
    at = arrivals(rng, requests, rate)                          # (N,) simulated µs
    trace = []
    for i in range(requests):
        text = " ".join(heads[i % len(heads)] + fill(rng, words, costs, prompt - shared))
        trace.append(dict(id=NAME.format(i + 1), arrival=int(at[i]), text=text, max_new=output,
                          temperature=0.0, top_k=0, top_p=1.0, seed=seed + i))
    check(tok, trace, prompt)
    return tuple(trace)


def check(tok, trace, prompt: int) -> None:
    """Every prompt tokenizes to exactly `prompt` tokens, none unknown (the generator's promise)."""
    for r in trace:
        pieces = tok.pieces(r["text"])
        assert len(pieces) == prompt and all(p in tok.token_to_id for p in pieces), (r["id"], len(pieces))


def trace_for(v: dict) -> tuple[dict, ...]:
    """The generated trace for a config's values (its WORKLOAD_* constants and N_MERGES); cached, so the same
    constants give the same trace (the same objects: callers copy before changing one)."""
    return _cached(v["N_MERGES"], v["WORKLOAD_REQUESTS"], v["WORKLOAD_PROMPT"], v["WORKLOAD_OUTPUT"],
                   float(v["WORKLOAD_RATE"]), v["WORKLOAD_SEED"], v["WORKLOAD_PREFIXES"], v["WORKLOAD_SHARED"])


@functools.lru_cache(maxsize=8)
def tokenizer(n_merges: int):
    """The lab's tokenizer for N_MERGES (the words' costs do not depend on BYTE_FALLBACK: all are known)."""
    return BPETokenizer.train(CORPUS, n_merges)


@functools.lru_cache(maxsize=8)
def _cached(n_merges: int, *args) -> tuple[dict, ...]:
    return generate(tokenizer(n_merges), *args)


def reachable(n_merges: int, prompt: int, prefixes: int, shared: int) -> bool:
    """Whether the tokenizer's words can make prompts of exactly these lengths: with N_MERGES < 3 no word is
    one token long, so a part of exactly 1 token (or 3, with none) cannot be made."""
    _, costs = words_of(tokenizer(n_merges))
    shared = min(shared, prompt) if prefixes else 1
    return all(n == 0 or n > 2 * max(costs) or _exact_fill(tuple(costs), n) is not None
               for n in (shared - 1, prompt - shared))
