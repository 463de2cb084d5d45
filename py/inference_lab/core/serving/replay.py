"""The clock-only replay: a run of the trace under another policy with the tokens a finished run chose.

Block [12] plays the trace again under "static" batching and under continuous batching without chunking
(and, with the prefix cache on, block [11] once more without it). With a generated workload
(WORKLOAD_REQUESTS > 0) those runs would cost as much as the main run: a 2,048-token prompt's attention alone
is millions of numbers. But every generated request is greedy with its own seed, and the lab's model gives a
request the same tokens whatever the schedule (the main run's check "same tokens" shows it on the seed's
trace; float64 rounding aside). So `replay_engine` runs the whole serving side for real (gateway, scheduler,
token budget, KV blocks, preemption, prefix cache, the clock) and takes each request's next token from
`tokens` instead of the model:

    >>> from types import SimpleNamespace as NS
    >>> done = [NS(id="R1", out=[5, 6, 1]), NS(id="R2", out=[7])]
    >>> recorded(NS(done=done))
    {'R1': [5, 6, 1], 'R2': [7]}

A request the finished run did not serve (refused 429 there, admitted under this policy) gets its tokens from
`solo`: the model decodes it alone, prefill then one token at a time, as the engine would.

Leaves out: K/V numbers (the pool counts blocks only: block_manager.reserve), the cache check, the
first-token snapshots and the log's queue, tables and free lists (a tally: run_log.RunLog(detail=False); nobody reads
them in these runs), and traces with sampling or cancellations (the
explicit REQUESTS trace's other policies run the model in full, engine.run_engine).
"""
from __future__ import annotations

import numpy as np

from ..model.tokenizer import EOS
from .engine import Engine, EngineResult
from ..model.sampler import sample
from .sequence import Sequence


def recorded(result) -> dict:
    """{request id: its generated token ids} of a finished run's served requests."""
    return {seq.id: list(seq.out) for seq in result.done}


def solo(lab, req: dict) -> list[int]:
    """The tokens the model generates for one request decoded alone (prefill, then one token per step)."""
    seq = Sequence.from_request(req)
    seq.tokens, seq.ids = lab.tokenizer.encode(seq.text)
    seq.admit(0)
    logits, K, V, _ = lab.forward(seq.ids, 0)
    out = []
    while True:
        token, _ = sample(logits[-1], seq.sampling, seq.rng, len(logits[-1]))
        out.append(token)
        if (token == EOS and lab.cfg.IGNORE_EOS != "on") or len(out) >= seq.max_new:
            return out
        logits, kn, vn, _ = lab.forward([token], K.shape[1], K, V)
        K, V = np.concatenate([K, kn], axis=1), np.concatenate([V, vn], axis=1)   # (heads, positions, d_head)


class ReplayEngine(Engine):
    """Engine whose tasks take blocks and time but no model: each new token comes from `tokens`."""

    def __init__(self, lab, policy: str, budget_cap: int | None, tokens: dict, prefix_cache: bool | None = None,
                 detail: bool = False):
        super().__init__(lab, policy, budget_cap, check=False, prefix_cache=prefix_cache, spec="off",   # no model: no proposals
                         detail=detail)
        self.tokens = tokens
        self.requests = {r["id"]: r for r in self.cfg.REQUESTS}

    def next_token(self, seq: Sequence) -> int:
        if seq.id not in self.tokens:
            self.tokens[seq.id] = solo(self.lab, self.requests[seq.id])
        return self.tokens[seq.id][len(seq.out)]

    def decode(self, seq: Sequence, end: int) -> None:
        seq.history.append(seq.pending_token)
        self.pool.reserve(seq, 1)
        self.take_token(seq, self.next_token(seq), end)

    def prefill(self, seq: Sequence, n: int, end: int) -> None:
        if seq.start is None:
            seq.start = self.now
        lo = len(seq.prefill_ids) - seq.num_prefill_left
        seq.history += seq.prefill_ids[lo:lo + n]
        self.pool.reserve(seq, n)
        seq.num_prefill_left -= n
        if seq.num_prefill_left == 0:
            self.take_token(seq, self.next_token(seq), end)


def replay_engine(lab, policy: str, budget_cap: int | None, tokens: dict,
                  prefix_cache: bool | None = None, detail: bool = False) -> EngineResult:
    """One clock-only run of the trace under `policy`, with the tokens of `tokens` (recorded(main_run));
    its log is a tally (run_log.RunLog(detail=False)) unless `detail`."""
    return ReplayEngine(lab, policy, budget_cap, dict(tokens), prefix_cache, detail).run()
