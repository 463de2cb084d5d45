"""[4]/[5]/[7] The forwards computed together: every sequence's next decode, or next prompt chunk, in stacked passes.

A running sequence whose prompt is done next decodes its pending token at model position `cached` over its own
cached K/V; one still prefilling next computes its next chunk (as long as its engine's next plan gives it:
scheduler.plan_tasks) at `cached`. Nothing but that task changes those inputs (a preemption or an abort changes
them, a newcomer can shorten a chunk: then the row is simply not used), so when the engine needs ONE task's forward,
`DecodeBatch` computes it for every sequence of its engines (the engine alone, or every replica of a cluster:
cluster.Cluster) whose next task it knows, chunks of one length in one model.forward_stack call, keeps the other
rows, and hands each out when its sequence runs that task, after checking that the inputs it was computed from
(token ids, position, K and V, bit for bit) are still the task's. forward_stack gives every row the same bits as
forward() of that task alone, so the run is the same run, with about 50 NumPy calls per stack instead of 50 per
task (what the lab's tiny model costs is call overhead). vLLM runs every scheduled request's decode and prompt chunk
in one forward pass per step for the same reason on a GPU (the weights are read once).

    >>> import numpy as np
    >>> from types import SimpleNamespace as NS
    >>> from inference_lab.core.model.model import make_weights, forward
    >>> lab = NS(W=make_weights(0, 10))
    >>> batch = DecodeBatch(lab, [])
    >>> seq = NS(id="A")
    >>> bool(np.array_equal(batch.forward(seq, [3, 4], 0, None, None)[0], forward(lab.W, [3, 4], 0)[0]))
    True

A student's patch of any function of model.py (entrypoints/patch.py: `--patch model=…`, the page's editor) turns
the batching off for that run: every task then calls `lab.forward` alone, through the patched functions.

Leaves out: speculative verifies (k + 1 tokens after the proposals: speculative.py; an engine that speculates
computes its own tasks one by one), the positions before a long prompt's stand-in (engine.prefill) and replays (no
model: replay.ReplayEngine).
"""
from __future__ import annotations

import types

from ..model import model
from ..model.model import forward_stack
from .scheduler import plan_tasks

# model.py's functions as imported: a patched run rebinds some of them (entrypoints/patch.py), and then runs its
# tasks one by one through them. PLAN is the scheduler's own plan, whatever a patch rebinds: a guess, checked at use.
MODEL_FUNCTIONS = {name: f for name, f in vars(model).items() if isinstance(f, types.FunctionType)}
PLAN = {"plan_tasks": plan_tasks}


def model_unpatched() -> bool:
    return all(getattr(model, name) is f for name, f in MODEL_FUNCTIONS.items())


class DecodeBatch:
    """The rows computed ahead for the sequences of `engines`, by id: ((ids, position), K, V, result)."""

    def __init__(self, lab, engines: list):
        self.lab, self.engines = lab, engines
        self.rows: dict = {}
        self.on = None                       # None until the first task: are model.py's functions the lab's own?

    def forward(self, seq, ids, position: int, K, V):
        """forward(W, ids, position, K, V) of `seq`'s task: its row computed ahead if the inputs are the same, else
        computed now with the next task of every other sequence whose chunk has the same length."""
        if self.on is None:                  # a run is patched from before its engines start to after they end
            self.on = model_unpatched()
        if not self.on:
            return self.lab.forward(ids, position, K, V)
        ids = tuple(ids)
        row = self.rows.pop(seq.id, None)
        if row is not None and row[0] == (ids, position) and _same(row[1], K) and _same(row[2], V):
            return row[3]
        items = [(seq, ids, position, K, V), *self.ahead(seq, len(ids))]
        outs = forward_stack(self.lab.W, [i[1] for i in items], [i[2] for i in items], [i[3] for i in items],
                             [i[4] for i in items])
        for (other, chunk, pos, k, v), out in zip(items[1:], outs[1:]):
            self.rows[other.id] = ((chunk, pos), k, v, out)
        return outs[0]

    def ahead(self, seq, length: int):
        """(sequence, ids, position, K, V) of every other sequence's next task of `length` tokens (a stack holds
        chunks of one length), where no row holds it yet; a task of another length gathers no K/V here."""
        for e in self.engines:
            if e.replaying or e.spec.spec_method != "off":   # no model / verifies of k + 1 tokens
                continue
            for phase, s, n in PLAN["plan_tasks"](e.running, e.budget_cap):
                if s is seq or (phase == "decode" and (s.pending_token is None or length != 1)):
                    continue
                if phase == "decode":
                    key = ((s.pending_token,), s.model_position(s.cached))
                else:
                    lo = len(s.prefill_ids) - s.num_prefill_left
                    if lo < s.stand_in_skip:             # a stand-in's first positions: blocks, no model
                        continue
                    key = (tuple(s.prefill_ids[lo:lo + n]), s.model_position(lo))
                    if len(key[0]) != length:
                        continue
                row = self.rows.get(s.id)
                if row is None or row[0] != key:
                    K, V = e.pool.gather(s)
                    if K.shape[1] == key[1]:                  # the cache ends where the task starts
                        yield s, *key, K, V


def _same(a, b) -> bool:
    """The same K (or V) bit for bit (None and an empty cache alike: forward() treats them alike)."""
    if a is None or b is None or a.shape[1] == 0 or b.shape[1] == 0:
        return (a is None or a.shape[1] == 0) and (b is None or b.shape[1] == 0)
    return a.shape == b.shape and a.tobytes() == b.tobytes()
