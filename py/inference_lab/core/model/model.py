"""[5] Transformer × N layers: one decoder layer (MHA + RoPE + SwiGLU) with random weights.

`forward(W, ids, start, K_past, V_past)` processes `len(ids)` tokens that sit at
absolute positions start..start+T-1, attending to the cached keys/values of positions
0..start-1 plus themselves (causal mask). It returns the logits, the new (RoPE-rotated)
K and new V to store in the cache, and the attention weights:

    logits (T, VOCAB), K_new (heads, T, d_head), V_new (heads, T, d_head), prob (heads, T, start+T)

The same function serves prefill (T = chunk length), decode (T = 1) and a full
recompute from position 0 (used to check that the cache gives the same logits).
`ForwardCache(W)` is forward() for one lab run that computes each distinct input once. A chunk of more
than LONG tokens (a generated long prompt) takes `attention_blocked`; `logits_at` recomputes only some rows. A
prompt of more than LONG_PROMPT tokens is computed as its stand-in (`stand_in_ids`: its last STAND_IN tokens).

KV_BITS = 8 (quantization.with_fp8_kv_cache): the weights carry per-head scales `W[KV_SCALE]` (2, heads) and every
K/V this model computes is stored as FP8 E4M3 (fp8.fake_quant) before attention reads it, the chunk's own positions
included: as vLLM v1's attention backends write the step's K/V into the (FP8) cache first and then attend over the
cache (vllm/v1/attention/backends/flash_attn.py: reshape_and_cache_flash, then flash_attn_varlen_func on the
cache). The K_new/V_new returned are those stored values, so a recompute from scratch gives the cached ones exactly.

Leaves out: more than one layer, grouped-query attention, biases, training — the
weights are random (seed SEED), so generated text is meaningless by design.
"""
from __future__ import annotations

import numpy as np

from .fp8 import fake_quant

# what np.einsum(..., optimize=False) calls, without its Python wrapper (same C loop, same bits)
try:
    from numpy._core.multiarray import c_einsum
except ImportError:      # a NumPy without that private name
    c_einsum = np.einsum

D_MODEL, N_HEADS, D_HEAD = 8, 2, 4          # MHA: every head has its own K/V
FFN_HIDDEN = 16
LINEAR = ("Wq", "Wk", "Wv", "Wo", "Wg", "Wz", "Wf", "U")
KV_SCALE = "kv_scale"      # W[KV_SCALE] (2, N_HEADS): FP8 KV cache scales, row 0 K, row 1 V (KV_BITS = 8 only)


def make_weights(seed: int, vocab: int, extra: int = 0) -> dict:
    """Random weights drawn in the seed's order (the order fixes every number); `extra` more embedding rows
    (BYTE_FALLBACK's 256 byte tokens) are drawn afterwards, so the seed's `vocab` rows keep their numbers.
    The byte tokens are input-only: the LM head U keeps the seed's `vocab` columns, so the logits, and every
    token drawn from them, of a prompt without byte tokens are exactly those of the run without byte fallback."""
    rng = np.random.default_rng(seed)
    W = _seed_weights(rng, vocab)
    if extra:
        W["E"] = np.concatenate([W["E"], rng.normal(0, 0.5, (extra, D_MODEL))])       # (vocab + extra, D_MODEL)
    return W


def _seed_weights(rng, vocab: int) -> dict:
    return {
        "E": rng.normal(0, 0.5, (vocab, D_MODEL)),
        "Wq": rng.normal(0, 0.4, (D_MODEL, N_HEADS * D_HEAD)),
        "Wk": rng.normal(0, 0.4, (D_MODEL, N_HEADS * D_HEAD)),
        "Wv": rng.normal(0, 0.4, (D_MODEL, N_HEADS * D_HEAD)),
        "Wo": rng.normal(0, 0.4, (N_HEADS * D_HEAD, D_MODEL)),
        "Wg": rng.normal(0, 0.4, (D_MODEL, FFN_HIDDEN)),
        "Wz": rng.normal(0, 0.4, (D_MODEL, FFN_HIDDEN)),
        "Wf": rng.normal(0, 0.3, (FFN_HIDDEN, D_MODEL)),
        "U": rng.normal(0, 0.6, (D_MODEL, vocab)),
    }


def rmsnorm(x):
    # np.add.reduce(...) / n is what np.mean computes (same sum, same division), without its Python overhead;
    # the same operations in the same order as x / sqrt(mean(x²) + 1e-6), in place on the (T, 1) sums
    ms = np.add.reduce(x * x, axis=-1, keepdims=True)                       # (T, 1)
    ms /= x.shape[-1]
    ms += 1e-6
    return x / np.sqrt(ms, out=ms)


# > LONG_PROMPT + WORKLOAD_OUTPUT (8,192 each, schema.py) + quality-gate steps: the lab's model never runs a
# longer sequence (MAX_CONTEXT may reach 131,072 for the shadow model's admission check, a prompt 32,768 tokens:
# the model computes a longer prompt's stand-in, below; the values of a position's cos/sin do not depend on the
# table's length)
MAX_POSITION = 2 * 8192 + 512

# A long prompt's stand-in. The serving side (scheduler, block tables, KV accounting, the roofline clock) always sees
# a prompt's FULL length, as vLLM does up to max_model_len (engine argument --max-model-len: prompt + output; its
# chunked prefill splits a prompt over steps of max_num_batched_tokens: vLLM docs/configuration/optimization.md,
# "Chunked Prefill"). The lab's NumPy model computes a prompt of at most LONG_PROMPT tokens whole; of a longer
# one only its last STAND_IN tokens, at the model's own positions 0 .. STAND_IN − 1 (as if the model attended
# through a window of STAND_IN tokens, like Mistral's sliding-window attention), and the generated tokens after
# them. Its K/V fill the prompt's last positions in the KV pool; the first `stand_in_skip` positions hold blocks
# but no numbers (no one reads them). A 32,768-token prompt's attention is 32,768² / 2 scores per head: 64 such
# prompts would keep the NumPy model busy for hours; their stand-ins take about a second.
LONG_PROMPT = 8192     # the longest prompt the lab's model computes whole (WORKLOAD_PROMPT's former bound)
STAND_IN = 1024        # the tokens a longer prompt's stand-in keeps: its last ones


def stand_in_skip(prompt_len: int) -> int:
    """The prompt positions the lab's model does not compute: 0 for a prompt of at most LONG_PROMPT tokens, else
    all but the last STAND_IN (the model position of pool position p is p − stand_in_skip).

    >>> stand_in_skip(8192), stand_in_skip(8193), stand_in_skip(32768)
    (0, 7169, 31744)
    """
    return prompt_len - STAND_IN if prompt_len > LONG_PROMPT else 0


def stand_in_ids(ids):
    """The prompt ids the lab's model computes: all of them, or a long prompt's last STAND_IN.

    >>> len(stand_in_ids(list(range(32768)))), stand_in_ids(list(range(32768)))[0], len(stand_in_ids([0, 5, 6]))
    (1024, 31744, 3)
    """
    return ids[stand_in_skip(len(ids)):]


def _rope_tables(n: int):
    """Every position's cos and signed sin, laid out like a row of Q or K (T, H*d): per head
    [cos θ0, cos θ1, cos θ0, cos θ1] and [−sin θ0, −sin θ1, sin θ0, sin θ1] (for d_head 4)."""
    half = D_HEAD // 2
    freqs = 10000.0 ** (-2.0 * np.arange(half) / D_HEAD)
    ang = np.arange(n, dtype=float)[:, None] * freqs[None, :]
    cos, sin = np.cos(ang), np.sin(ang)
    return np.tile(cos, 2 * N_HEADS), np.tile(np.concatenate([-sin, sin], axis=1), N_HEADS)


ROPE_COS, ROPE_SIN = _rope_tables(MAX_POSITION)
# Within each head, the index of the partner: i + d/2 for the first half, i - d/2 for the second.
HALF_SWAP = np.array([h * D_HEAD + (i + D_HEAD // 2) % D_HEAD for h in range(N_HEADS) for i in range(D_HEAD)])


def rope(x, start: int):
    """Rotate by ABSOLUTE position start, start+1, …; x: (T, H*d) — Q or K before the heads are split.

    In every head the pairs (x1, x2) = (x[i], x[i + d/2]) become (x1·cos − x2·sin, x2·cos + x1·sin)."""
    T = len(x)
    return x * ROPE_COS[start:start + T] + x[:, HALF_SWAP] * ROPE_SIN[start:start + T]


def split_heads(x):
    return x.reshape(len(x), N_HEADS, D_HEAD).transpose(1, 0, 2)          # (T, H*d) -> (H, T, d)


SCALE = np.sqrt(D_HEAD)


LONG = 256             # more queries or keys take attention_blocked (the seed's sizes never come near)
ROWS = 32              # queries per block of attention_blocked: its (H, 32, S) scores stay in the CPU cache
CAUSAL = np.triu(np.full((ROWS, ROWS), -np.inf), 1)   # (ROWS, ROWS): -inf above the diagonal (a later key)
CAUSAL_ALLOW = np.arange(LONG + 1)[None, :] <= np.arange(LONG + 1)[:, None]   # [q, k]: may query position q see k


def attention(Qr, K, V, start: int):
    """Causal softmax over source positions; the queries sit at start..; returns (context (T, H*d), prob (H, T, S)).
    More than LONG queries or keys (a long prompt, a decode in a long context) go to attention_blocked, whose
    prob holds only the last row when there are more than ROWS queries."""
    T = Qr.shape[1]
    if T > LONG or K.shape[1] > LONG:
        return attention_blocked(Qr, K, V, start)
    scores = c_einsum("htd,hkd->htk", Qr, K) / SCALE                      # (H, T, S)
    if T > 1:                                       # one new token sees every cached position: nothing to mask
        allow = CAUSAL_ALLOW[start:start + T, :K.shape[1]]                 # causal mask (T, S)
        scores = np.where(allow[None], scores, -np.inf)
    prob = np.exp(scores - np.maximum.reduce(scores, axis=-1, keepdims=True))   # = scores.max(...), as in rmsnorm
    prob /= np.add.reduce(prob, axis=-1, keepdims=True)
    ctx = c_einsum("htk,hkd->htd", prob, V).transpose(1, 0, 2).reshape(T, N_HEADS * D_HEAD)
    return ctx, prob


def attention_blocked(Qr, K, V, start: int):
    """attention() for a long chunk, ROWS queries at a time: each block's queries see only the keys up to their
    own positions (the causal half is never computed) and its (H, ROWS, S) scores stay small, so a 2,048-token
    prompt costs about a tenth of one big (H, T, S) matrix. Same numbers up to float64 rounding (~1e-15).
    Returns (context (T, H*d), prob (H, T, S) when T <= ROWS (a decode, a speculative verify), else of the LAST
    query only (H, 1, S): the whole matrix of a 2,048-token chunk would be 64 MB, and the engine keeps only the
    last row of a prefill chunk."""
    T = Qr.shape[1]
    ctx = np.empty((T, N_HEADS * D_HEAD))                                  # (T, H*d)
    for lo in range(0, T, ROWS):
        hi = min(T, lo + ROWS)
        S = start + hi                                                     # keys this block may see
        scores = np.matmul(Qr[:, lo:hi], K[:, :S].transpose(0, 2, 1))     # (H, r, S)
        scores /= SCALE
        if hi - lo > 1:                                                    # causal mask on the last r keys
            scores[:, :, S - (hi - lo):] += CAUSAL[:hi - lo, :hi - lo]
        scores -= np.maximum.reduce(scores, axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= np.add.reduce(scores, axis=-1, keepdims=True)            # prob (H, r, S)
        ctx[lo:hi] = np.matmul(scores, V[:, :S]).transpose(1, 0, 2).reshape(hi - lo, N_HEADS * D_HEAD)
    return ctx, scores if T <= ROWS else scores[:, -1:, :]      # one block (a decode, a verify): every row


def forward(W, ids, start, K_past=None, V_past=None):
    """Process `ids` at positions start.. with cached K_past/V_past (heads, start, d_head)."""
    X = W["E"][ids]                                                        # (T, D_MODEL)
    N = rmsnorm(X)
    Qr, Kr, Vn = split_heads(rope(N @ W["Wq"], start)), split_heads(rope(N @ W["Wk"], start)), split_heads(N @ W["Wv"])
    Kr, Vn = kv_cache_values(W, Kr, Vn)
    if K_past is None or K_past.shape[1] == 0:
        assert start == 0
        K, V = Kr, Vn
    else:
        assert K_past.shape[1] == start
        K, V = np.concatenate([K_past, Kr], axis=1), np.concatenate([V_past, Vn], axis=1)
    ctx, prob = attention(Qr, K, V, start)
    H = X + ctx @ W["Wo"]
    M = rmsnorm(H)
    gate = M @ W["Wg"]
    F = H + ((gate / (1.0 + np.exp(-gate))) * (M @ W["Wz"])) @ W["Wf"]    # SwiGLU
    return rmsnorm(F) @ W["U"], Kr, Vn, prob


def forward_stack(W, chunks, positions, Ks, Vs) -> list:
    """forward(W, ids, position, K, V) of B chunks of the same length T at once (T = 1: B decodes):
    [(logits (T, VOCAB), K_new (heads, T, d_head), V_new (heads, T, d_head), prob (heads, T, S))] per chunk, each
    the SAME bits as its own forward().

    Every chunk is one item of a (B, T, D_MODEL) stack that goes through the same NumPy operations, in the same
    order, as forward()'s (T, D_MODEL) matrix: a stacked matmul `(B, T, n) @ W` loops over the stack and calls, for
    each item, the routine the 2-D `(T, n) @ W` calls (NumPy's matmul gufunc, numpy/_core/src/umath/matmul.c.src
    `@TYPE@_matmul`: the choice of gemv / gemm / the loop without BLAS depends only on an item's dimensions and
    strides, then `for (iOuter = 0; iOuter < dOuter; iOuter++ ...)` runs it item by item; without BLAS, as in
    Pyodide, the plain loop per item); elementwise ufuncs round each element alone; the norms' sums reduce each
    row's own contiguous D_MODEL values. Attention runs per chunk, through attention() itself (each has its own
    keys). tests/test_batched_forward.py checks the bits on random weights and contexts (KV_BITS 16 and 8).
    Stacking rows of different chunks into one (B·T, n) @ W would NOT do: BLAS's gemm rounds a row differently
    with other rows around it (and a gemv for one row differently from a gemm)."""
    B, T = len(chunks), len(chunks[0])
    X = W["E"][np.asarray(chunks).reshape(-1)].reshape(B, T, D_MODEL)      # (B, T, D_MODEL)
    N = rmsnorm(X)
    at = (np.asarray(positions)[:, None] + np.arange(T)).reshape(-1)        # (B·T,) absolute positions
    cos, sin = ROPE_COS[at].reshape(B, T, -1), ROPE_SIN[at].reshape(B, T, -1)   # (B, T, H*d)
    q, k = N @ W["Wq"], N @ W["Wk"]
    Qr = _split_stack(q * cos + q[..., HALF_SWAP] * sin)                  # (B, H, T, d): rope, as rope()
    Kr, Vn = kv_cache_values(W, _split_stack(k * cos + k[..., HALF_SWAP] * sin), _split_stack(N @ W["Wv"]))
    ctx, probs = np.empty((B, T, N_HEADS * D_HEAD)), []
    for i in range(B):
        K, V = Ks[i], Vs[i]
        if K is not None and K.shape[1]:
            assert K.shape[1] == positions[i]
            K, V = np.concatenate([K, Kr[i]], axis=1), np.concatenate([V, Vn[i]], axis=1)
        else:
            assert positions[i] == 0
            K, V = Kr[i], Vn[i]
        ctx[i], prob = attention(Qr[i], K, V, positions[i])
        probs.append(prob)
    H = X + ctx @ W["Wo"]
    M = rmsnorm(H)
    gate = M @ W["Wg"]
    F = H + ((gate / (1.0 + np.exp(-gate))) * (M @ W["Wz"])) @ W["Wf"]    # SwiGLU
    logits = rmsnorm(F) @ W["U"]                                          # (B, T, VOCAB)
    return [(logits[i], Kr[i], Vn[i], probs[i]) for i in range(B)]


def _split_stack(x):
    return x.reshape(*x.shape[:2], N_HEADS, D_HEAD).transpose(0, 2, 1, 3)   # (B, T, H*d) -> (B, H, T, d)


def kv_cache_values(W, K, V):
    """What the KV cache holds of K, V (heads, T, d_head): themselves (KV_BITS = 16), or read back from FP8 with
    W[KV_SCALE]'s per-head scales (KV_BITS = 8)."""
    kv = W.get(KV_SCALE)
    if kv is None:
        return K, V
    return fake_quant(K, kv[0]), fake_quant(V, kv[1])


def logits_at(W, ids, rows):
    """A full recompute from position 0, without any cache, of the logits at positions `rows` only:
    (logits (len(rows), VOCAB), K (heads, T, d_head), V (heads, T, d_head)).

    In this ONE-layer model a position's K and V come from its own token alone (no attention before them), so
    the logits of a few rows need every position's K/V but attention only for those rows: O(T) instead of
    forward()'s O(T²). The engine's cache check and the quality gate use it for long sequences (more than
    LONG positions); with more layers every row of every layer would be needed.

        >>> W = make_weights(0, 10)
        >>> bool(np.allclose(logits_at(W, [3, 4, 5, 6], [1, 3])[0], forward(W, [3, 4, 5, 6], 0)[0][[1, 3]], atol=1e-12))
        True
    """
    rows = np.asarray(rows)                                                # (R,)
    X = W["E"][ids]                                                        # (T, D_MODEL)
    N = rmsnorm(X)
    K, V = kv_cache_values(W, split_heads(rope(N @ W["Wk"], 0)), split_heads(N @ W["Wv"]))   # (H, T, d) each
    Q = N[rows] @ W["Wq"]                                                  # (R, H*d)
    Qr = split_heads(Q * ROPE_COS[rows] + Q[:, HALF_SWAP] * ROPE_SIN[rows])   # rope at the rows' own positions
    scores = np.matmul(Qr, K.transpose(0, 2, 1)) / SCALE                   # (H, R, T)
    scores = np.where((np.arange(len(ids))[None, :] <= rows[:, None])[None], scores, -np.inf)
    prob = np.exp(scores - np.maximum.reduce(scores, axis=-1, keepdims=True))
    prob /= np.add.reduce(prob, axis=-1, keepdims=True)
    ctx = np.matmul(prob, V).transpose(1, 0, 2).reshape(len(rows), N_HEADS * D_HEAD)
    H = X[rows] + ctx @ W["Wo"]
    M = rmsnorm(H)
    gate = M @ W["Wg"]
    F = H + ((gate / (1.0 + np.exp(-gate))) * (M @ W["Wz"])) @ W["Wf"]
    return rmsnorm(F) @ W["U"], K, V


class ForwardCache:
    """forward(W, …) for one lab run, each distinct input computed once.

    Block [12] plays the trace again under two other policies, and most of their forward passes
    get exactly the inputs the main run's did (the same token ids at the same positions after the
    same cached K/V, bit for bit): 32 distinct inputs among the default run's 60 forward passes.
    Keyed by the inputs' exact bytes, a hit is the same result by construction. One per run (a
    re-run computes everything again); callers must not modify the arrays it returns.

        >>> W = make_weights(0, 10)
        >>> cached = ForwardCache(W)
        >>> cached([3, 4], 0) is cached([3, 4], 0), len(cached.results)
        (True, 1)
        >>> bool(np.array_equal(cached([3, 4], 0)[0], forward(W, [3, 4], 0)[0]))
        True
    """

    def __init__(self, W: dict):
        self.W = W
        self.results: dict = {}

    def __call__(self, ids, start: int, K_past=None, V_past=None):
        key = (tuple(map(int, ids)), start, _exact(K_past), _exact(V_past))
        if key not in self.results:
            self.results[key] = forward(self.W, ids, start, K_past, V_past)
        return self.results[key]


def _exact(a):
    return None if a is None else (a.shape, a.tobytes())
