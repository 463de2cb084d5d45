"""[5]/[7] The decodes computed together: the forwards of every sequence about to decode, in one stacked pass.

A running sequence whose prompt is done next decodes its pending token at model position `cached` over its own
cached K/V. Nothing but that decode changes those inputs (a preemption or an abort changes them, and then its row
is simply not used), so when the engine needs ONE decode's forward, `DecodeBatch` computes it for every sequence
ready to decode in its engines (the engine alone, or every replica of a cluster: cluster.Cluster) in one
model.forward_decodes call, keeps the other rows, and hands each out when its sequence decodes, after checking that
the inputs it was computed from (token, position, K and V, bit for bit) are still the sequence's. forward_decodes
gives every row the same bits as forward() of that decode alone, so the run is the same run, with about 50 NumPy
calls per pass instead of 50 per decode (what the lab's tiny model costs is call overhead). vLLM batches every
running request's decode into one forward pass per step for the same reason on a GPU (the weights are read once).

    >>> import numpy as np
    >>> from types import SimpleNamespace as NS
    >>> from inference_lab.core.model.model import make_weights, forward
    >>> lab = NS(W=make_weights(0, 10))
    >>> batch = DecodeBatch(lab, [])
    >>> seq = NS(id="A")
    >>> bool(np.array_equal(batch.forward(seq, 3, 0, None, None)[0], forward(lab.W, [3], 0)[0]))
    True

A student's patch of any function of model.py (entrypoints/patch.py: `--patch model=…`, the page's editor) turns
the batching off for that run: every decode then calls `lab.forward` alone, through the patched functions.

Leaves out: prefill chunks (their length is the step's budget, known only when the step plans), speculative
verifies (k + 1 tokens: speculative.py) and replays (no model: replay.ReplayEngine).
"""
from __future__ import annotations

import types

from ..model import model
from ..model.model import forward_decodes

# model.py's functions as imported: a patched run rebinds some of them (entrypoints/patch.py), and then decodes one
# by one through them
MODEL_FUNCTIONS = {name: f for name, f in vars(model).items() if isinstance(f, types.FunctionType)}


def model_unpatched() -> bool:
    return all(getattr(model, name) is f for name, f in MODEL_FUNCTIONS.items())


class DecodeBatch:
    """The decode rows computed ahead for the sequences of `engines`, by id: ((token, position), K, V, result)."""

    def __init__(self, lab, engines: list):
        self.lab, self.engines = lab, engines
        self.rows: dict = {}
        self.on = None                       # None until the first decode: are model.py's functions the lab's own?

    def forward(self, seq, token: int, position: int, K, V):
        """forward(W, [token], position, K, V) of `seq`'s decode: its row computed ahead if the inputs are the same,
        else computed now with every other sequence ready to decode."""
        if self.on is None:                  # a run is patched from before its engines start to after they end
            self.on = model_unpatched()
        if not self.on:
            return self.lab.forward([token], position, K, V)
        row = self.rows.pop(seq.id, None)
        if row is not None and row[0] == (token, position) and _same(row[1], K) and _same(row[2], V):
            return row[3]
        items = [(seq, token, position, K, V), *self.ready(seq)]
        outs = forward_decodes(self.lab.W, [i[1] for i in items], [i[2] for i in items], [i[3] for i in items],
                               [i[4] for i in items])
        for (other, tok, pos, k, v), out in zip(items[1:], outs[1:]):
            self.rows[other.id] = ((tok, pos), k, v, out)
        return outs[0]

    def ready(self, seq):
        """(sequence, token, position, K, V) of every other sequence whose next task is a decode without a row."""
        for e in self.engines:
            if e.replaying or e.spec.spec_method != "off":   # no model / verifies of k + 1 tokens
                continue
            for s in e.running:
                if s is seq or s.num_prefill_left or s.pending_token is None or s.reason:
                    continue
                key = (s.pending_token, s.model_position(s.cached))
                row = self.rows.get(s.id)
                if row is None or row[0] != key:
                    yield (s, *key, *e.pool.gather(s))


def _same(a, b) -> bool:
    """The same K (or V) bit for bit (None and an empty cache alike: forward() treats them alike)."""
    if a is None or b is None or a.shape[1] == 0 or b.shape[1] == 0:
        return (a is None or a.shape[1] == 0) and (b is None or b.shape[1] == 0)
    return a.shape == b.shape and a.tobytes() == b.tobytes()
