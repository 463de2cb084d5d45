"""One request's life inside the engine: its prompt, its place in the KV pool and what it generated.

A `Sequence` is created when a request passes the gateway and input preparation.
`num_prefill_left` counts prompt tokens not yet in the cache; `pending_token` is the
last sampled token, which enters the cache at the next decode step (so the cache of a
finished sequence is one token shorter than prompt + output). After a preemption the
sequence must recompute `prefill_ids` = prompt + everything generated so far.

Leaves out: beam groups, multimodal inputs, LoRA adapters.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(slots=True, eq=False)
class Sequence:
    id: str
    arrival: int
    text: str
    max_new: int
    temperature: float
    top_k: int
    top_p: float
    seed: int
    tokens: list = field(default_factory=list)        # prompt pieces, e.g. ['<bos>', 'b', ...]
    ids: list = field(default_factory=list)           # prompt token ids
    ready: int = 0                                    # arrival + gateway + tokenize cost
    cached: int = 0                                   # positions whose K/V are in the pool
    block_table: list = field(default_factory=list)   # logical block -> physical block
    prefill_ids: list = field(default_factory=list)   # what prefill must (re)compute
    num_prefill_left: int = 0
    pending_token: int | None = None
    start: int | None = None                          # first step that worked on it
    out: list = field(default_factory=list)           # generated token ids
    token_times: list = field(default_factory=list)   # simulated µs of each generated token
    reason: str | None = None                         # "eos" | "max_new_tokens"
    history: list = field(default_factory=list)       # token ids fed through the model, in order
    finish: int | None = None
    num_preemptions: int = 0
    checked_rows: list = field(default_factory=list)  # (position, logits row) seen via the cache
    rng: object = None

    @classmethod
    def from_request(cls, req: dict) -> "Sequence":
        keys = ("id", "arrival", "text", "max_new", "temperature", "top_k", "top_p", "seed")
        return cls(**{k: req[k] for k in keys})

    @property
    def prompt_len(self) -> int:
        return len(self.ids)

    @property
    def sampling(self) -> dict:
        return dict(temperature=self.temperature, top_k=self.top_k, top_p=self.top_p)

    def admit(self, ready: int) -> None:
        """Passed input preparation: waits for a slot from `ready` on."""
        self.ready = ready
        self.prefill_ids = list(self.ids)
        self.num_prefill_left = len(self.ids)
        self.rng = np.random.default_rng(self.seed)

    def reset_for_recompute(self) -> None:
        """After preemption: the cache is gone; prefill prompt + generated tokens again."""
        self.prefill_ids = list(self.ids) + list(self.out)
        self.num_prefill_left = len(self.prefill_ids)
        self.history = []
        self.pending_token = None
        self.num_preemptions += 1
