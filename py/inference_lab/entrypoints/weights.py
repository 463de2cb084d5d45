"""What every run reuses: the tokenizer, the weights, the quantized weights and the quality gate's references,
each cached across runs (lru caches keyed by seed, merges, bits and byte fallback), and `Lab`, one run's handle on them.

entrypoints/patch.py gives a patched run fresh, empty copies of these caches when a patch could change
what they hold. Leaves out: the engine runs (lab.py) and the blocks' facts (block_data.py).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from ..core.inputs.config import Config
from ..core.model.model import ForwardCache, forward, make_weights
from ..core.model.quantization import (compare_to_reference, greedy_reference, kv_cache_error, quantize_weights,
                                        with_fp8_kv_cache)
from ..core.model.tokenizer import CORPUS, BPETokenizer

GATE_STEPS = 8
GATE_PROMPTS = 64      # a generated workload's quality gate looks at its first 64 prompts (block_data.gate_result)


@functools.lru_cache(maxsize=8)
def tokenizer_for(n_merges: int, byte_fallback: bool = False) -> BPETokenizer:
    return BPETokenizer.train(CORPUS, n_merges, byte_fallback)


@functools.lru_cache(maxsize=8)
def weights_for(seed: int, vocab: int, extra: int = 0) -> dict:
    W = make_weights(seed, vocab, extra)
    for w in W.values():
        w.setflags(write=False)           # cached across runs: nobody may change them
    return W


def model_for(seed: int, n_merges: int, byte_fallback: bool = False) -> dict:
    """The weights for the tokenizer's vocabulary: the seed's rows, then one per byte token (byte fallback)."""
    tok = tokenizer_for(n_merges, byte_fallback)
    return weights_for(seed, tok.vocab_size - tok.n_byte_tokens, tok.n_byte_tokens)


@functools.lru_cache(maxsize=8)
def quantized_for(seed: int, n_merges: int, bits: int, byte_fallback: bool = False):
    W = model_for(seed, n_merges, byte_fallback)
    Wq, info = quantize_weights(W, bits)
    for w in Wq.values():
        w.setflags(write=False)
    return Wq, info


@functools.lru_cache(maxsize=8)
def fp8_kv_model_for(seed: int, n_merges: int, byte_fallback: bool = False) -> dict:
    """The model with an FP8 KV cache (KV_BITS = 8): the weights of model_for and their per-head KV scales."""
    Wkv = with_fp8_kv_cache(model_for(seed, n_merges, byte_fallback))
    for w in Wkv.values():
        w.setflags(write=False)
    return Wkv


def serving_model_for(cfg: Config, byte_fallback: bool) -> dict:
    """What the engine runs: the float model, or at KV_BITS = 8 the one whose KV cache is FP8."""
    if cfg.KV_BITS == 8:
        return fp8_kv_model_for(cfg.SEED, cfg.N_MERGES, byte_fallback)
    return model_for(cfg.SEED, cfg.N_MERGES, byte_fallback)


@functools.lru_cache(maxsize=64)
def reference_for(seed: int, n_merges: int, ids: tuple, byte_fallback: bool = False) -> dict:
    """The original model's greedy decode of one prompt: the same for every QUANT_BITS, so computed once."""
    return greedy_reference(model_for(seed, n_merges, byte_fallback), list(ids), GATE_STEPS)


@functools.lru_cache(maxsize=256)
def teacher_forced_for(seed: int, n_merges: int, bits: int, ids: tuple, byte_fallback: bool = False) -> tuple:
    """The quality gate's decisions for one prompt; cached because re-runs rarely change its inputs."""
    return tuple(compare_to_reference(reference_for(seed, n_merges, ids, byte_fallback),
                                      quantized_for(seed, n_merges, bits, byte_fallback)[0], list(ids)))


@functools.lru_cache(maxsize=256)
def kv_teacher_forced_for(seed: int, n_merges: int, ids: tuple, byte_fallback: bool = False) -> tuple:
    """The quality gate's decisions for one prompt with the FP8 KV cache (KV_BITS = 8) against the original model."""
    return tuple(compare_to_reference(reference_for(seed, n_merges, ids, byte_fallback),
                                      fp8_kv_model_for(seed, n_merges, byte_fallback), list(ids)))


@functools.lru_cache(maxsize=64)
def kv_error_for(seed: int, n_merges: int, ids: tuple, byte_fallback: bool = False) -> dict:
    """Block [9]'s KV probe on one prompt (quantization.kv_cache_error); cached like the weights' probe."""
    return kv_cache_error(model_for(seed, n_merges, byte_fallback), fp8_kv_model_for(seed, n_merges, byte_fallback),
                          list(ids))


@functools.lru_cache(maxsize=256)
def quantized_logit_err(seed: int, n_merges: int, bits: int, ids: tuple, byte_fallback: bool = False) -> float:
    """Block [9]'s probe: the largest logit change (without <bos>) quantization makes on one prompt; cached likewise."""
    lg_fp = reference_for(seed, n_merges, ids, byte_fallback)["prompt_logits"]
    if len(lg_fp) != len(ids):                   # a long prompt's reference kept only its last row
        lg_fp = forward(model_for(seed, n_merges, byte_fallback), list(ids), 0)[0]
    lg_q = forward(quantized_for(seed, n_merges, bits, byte_fallback)[0], list(ids), 0)[0]
    return float(np.max(np.abs(lg_fp[:, 1:] - lg_q[:, 1:])))


@dataclass(slots=True)
class Lab:
    """Everything one run needs: the config, the tokenizer, the weights and the run's forward()."""
    cfg: Config
    tokenizer: BPETokenizer
    W: dict
    forward: ForwardCache  # shared by the three engine runs of block [12], new for every run (a plain forward
                           # for a generated workload)
    progress: object = None  # (steps, settled, requests) after each engine step, or None (lab.run's `progress`)

    @classmethod
    def build(cls, cfg: Config) -> "Lab":
        tok = tokenizer_for(cfg.N_MERGES, cfg.BYTE_FALLBACK == "on")
        W = serving_model_for(cfg, tok.byte_fallback)
        return cls.serving(cfg, tok, W)

    @classmethod
    def serving(cls, cfg: Config, tok: BPETokenizer, W: dict) -> "Lab":
        # a generated workload's other runs replay tokens (core/serving/replay.py): caching its forwards would only keep
        # every decode's K/V bytes alive (gigabytes at 64 × 2,048 tokens)
        return cls(cfg, tok, W, functools.partial(forward, W) if cfg.WORKLOAD_REQUESTS else ForwardCache(W))

    def with_float_kv_cache(self) -> "Lab":
        """The same run with the 16-bit (float) KV cache: the same config, pool and clock, only the K/V values
        differ (block [13] compares the tokens a KV_BITS = 8 run serves with these)."""
        return Lab.serving(self.cfg, self.tokenizer, model_for(self.cfg.SEED, self.cfg.N_MERGES,
                                                               self.tokenizer.byte_fallback))
