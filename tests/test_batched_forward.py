"""Issue 39: the decodes and prompt chunks computed together (model.forward_stack, serving/decode_batch.py) are bit
for bit the ones computed one by one (model.forward), on random weights, tokens, positions and cached K/V, with the
float KV cache and the FP8 one (KV_BITS = 8: W[KV_SCALE]); whole runs print the same either way, and the goldens and
the differential tests check the seed's."""
from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st
import numpy as np
import pytest

from cli_runner import run_cli
from inference_lab.core.model import model
from inference_lab.core.model.model import KV_SCALE, N_HEADS, forward, forward_stack, make_weights
from inference_lab.core.serving import decode_batch
from inference_lab.core.serving.decode_batch import DecodeBatch, model_unpatched


def same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def case(seed: int, vocab: int, sizes: list, fp8: bool, T: int = 1):
    """Weights, and per chunk of T tokens (ids, position, K, V) with a random cache of `position` positions."""
    rng = np.random.default_rng(seed)
    W = make_weights(seed, vocab)
    if fp8:
        W[KV_SCALE] = rng.uniform(0.002, 0.05, (2, N_HEADS))
    toks = rng.integers(0, vocab, (len(sizes), T)).tolist()
    Ks = [rng.normal(0, 1, (N_HEADS, n, model.D_HEAD)) if n else None for n in sizes]
    Vs = [rng.normal(0, 1, (N_HEADS, n, model.D_HEAD)) if n else None for n in sizes]
    return W, toks, Ks, Vs


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(3, 400),
       st.lists(st.integers(0, 300), min_size=1, max_size=40), st.booleans(), st.sampled_from([1, 1, 2, 3, 5, 8, 40]))
def test_stacked_chunks_are_the_single_chunks_bit_for_bit(seed, vocab, sizes, fp8, T):
    # T = 1: decodes; positions up to 300 > model.LONG: the long ones take attention_blocked, as forward() does
    W, chunks, Ks, Vs = case(seed, vocab, sizes, fp8, T)
    rows = forward_stack(W, chunks, sizes, Ks, Vs)
    for i, row in enumerate(rows):
        alone = forward(W, chunks[i], sizes[i], Ks[i], Vs[i])     # (logits, K_new, V_new, prob)
        assert all(same_bits(a, b) for a, b in zip(row, alone)), i


def test_a_row_is_handed_out_only_while_its_inputs_hold():
    # a row computed ahead for B is used by B's own decode when token, position and K/V are the same; a changed
    # K (a preemption recomputed it) gets a fresh forward
    W, toks, Ks, Vs = case(7, 50, [5, 9], fp8=False)
    lab = SimpleNamespace(W=W)
    a = SimpleNamespace(id="A", num_prefill_left=0, pending_token=None, reason=None)   # decoded: no pending token
    b = SimpleNamespace(id="B", num_prefill_left=0, pending_token=toks[1][0], cached=9, stand_in_skip=0)
    b.model_position = lambda p: p
    pool = SimpleNamespace(gather=lambda seq: (Ks[1], Vs[1]))
    engine = SimpleNamespace(replaying=False, spec=SimpleNamespace(spec_method="off"), running=[a, b], pool=pool,
                             budget_cap=None)
    batch = DecodeBatch(lab, [engine])
    assert same_bits(batch.forward(a, toks[0], 5, Ks[0], Vs[0])[0], forward(W, toks[0], 5, Ks[0], Vs[0])[0])
    assert "B" in batch.rows
    kept = batch.rows["B"][3]
    assert batch.forward(b, toks[1], 9, Ks[1].copy(), Vs[1].copy()) is kept
    changed = Ks[1] + 1e-12
    again = batch.forward(b, toks[1], 9, changed, Vs[1])
    assert again is not kept and same_bits(again[0], forward(W, toks[1], 9, changed, Vs[1])[0])


def test_the_model_counts_as_unpatched_outside_a_patch():
    assert model_unpatched()


SMALL = ["--workload-prompt", "40", "--workload-output", "12", "--workload-rate", "400", "--workload-prefixes", "3",
         "--workload-shared", "16", "--slots", "6", "--block-size", "4", "--pool-blocks", "auto",
         "--prefix-cache", "on", "--max-context", "96", "--workload-requests", "30"]


@pytest.mark.parametrize("flags", [
    SMALL + ["--replicas", "3", "--router", "prefix_aware"],
    SMALL + ["--replicas", "4", "--disagg", "on", "--prefill-replicas", "2", "--kv-bits", "8",
             "--workload-output", "24"],
    ["--replicas", "2", "--router", "round_robin"],                 # the seed's five requests on two replicas
    [],                                                             # the seed's own run (one engine)
], ids=["workload-3-replicas", "disagg-fp8", "seed-2-replicas", "seed"])
def test_a_run_prints_the_same_with_decodes_one_by_one(flags, monkeypatch):
    # the whole output (every block, the main run and its replays) with the decodes computed together and with every
    # decode computed alone through lab.forward, as a patched model.py runs them; each of these runs stacks 2 to 6
    # decodes at a time, of one engine or of several replicas (with disaggregation: the decode replicas')
    together = run_cli(flags)
    assert together.returncode == 0, together.stderr
    monkeypatch.setattr(decode_batch, "model_unpatched", lambda: False)
    alone = run_cli(flags)
    assert (alone.returncode, alone.stdout, alone.stderr) == (0, together.stdout, together.stderr)
