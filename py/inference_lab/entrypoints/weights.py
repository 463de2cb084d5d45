"""What every run reuses: the tokenizer, the weights, the quantized weights and the quality gate's references,
each cached across runs (lru caches keyed by seed, merges, bits), and `Lab`, one run's handle on them.

entrypoints/patch.py gives a patched run fresh, empty copies of these caches when a patch could change
what they hold. Leaves out: the engine runs (lab.py) and the blocks' facts (block_data.py).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..core.config import CORPUS, Config
from ..core.model import ForwardCache, forward, make_weights
from ..core.quantization import compare_to_reference, greedy_reference, quantize_weights
from ..core.tokenizer import BPETokenizer

GATE_STEPS = 8


@functools.lru_cache(maxsize=8)
def tokenizer_for(n_merges: int) -> BPETokenizer:
    return BPETokenizer.train(CORPUS, n_merges)


@functools.lru_cache(maxsize=8)
def weights_for(seed: int, vocab: int) -> dict:
    W = make_weights(seed, vocab)
    for w in W.values():
        w.setflags(write=False)           # cached across runs: nobody may change them
    return W


@functools.lru_cache(maxsize=8)
def quantized_for(seed: int, n_merges: int, bits: int):
    W = weights_for(seed, tokenizer_for(n_merges).vocab_size)
    Wq, info = quantize_weights(W, bits)
    for w in Wq.values():
        w.setflags(write=False)
    return Wq, info


@functools.lru_cache(maxsize=64)
def reference_for(seed: int, n_merges: int, ids: tuple) -> dict:
    """The original model's greedy decode of one prompt: the same for every QUANT_BITS, so computed once."""
    return greedy_reference(weights_for(seed, tokenizer_for(n_merges).vocab_size), list(ids), GATE_STEPS)


@functools.lru_cache(maxsize=256)
def teacher_forced_for(seed: int, n_merges: int, bits: int, ids: tuple) -> tuple:
    """The quality gate's decisions for one prompt; cached because re-runs rarely change its inputs."""
    return tuple(compare_to_reference(reference_for(seed, n_merges, ids), quantized_for(seed, n_merges, bits)[0], list(ids)))


@functools.lru_cache(maxsize=256)
def quantized_logit_err(seed: int, n_merges: int, bits: int, ids: tuple) -> float:
    """Block [9]'s probe: the largest logit change (without <bos>) quantization makes on one prompt; cached likewise."""
    lg_fp, lg_q = reference_for(seed, n_merges, ids)["prompt_logits"], forward(quantized_for(seed, n_merges, bits)[0], list(ids), 0)[0]
    return float(np.max(np.abs(lg_fp[:, 1:] - lg_q[:, 1:])))


@dataclass(slots=True)
class Lab:
    """Everything one run needs: the config, the tokenizer, the weights and the run's forward()."""
    cfg: Config
    tokenizer: BPETokenizer
    W: dict
    forward: ForwardCache  # shared by the three engine runs of block [12], new for every run

    @classmethod
    def build(cls, cfg: Config) -> "Lab":
        tok = tokenizer_for(cfg.N_MERGES)
        W = weights_for(cfg.SEED, tok.vocab_size)
        return cls(cfg, tok, W, ForwardCache(W))
