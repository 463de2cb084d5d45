"""One request's life inside the engine: its prompt, its place in the KV pool and what it generated.

A `Sequence` is created when a request passes the gateway and input preparation.
`num_prefill_left` counts prompt tokens not yet in the cache; `pending_token` is the
last sampled token, which enters the cache at the next decode step (so the cache of a
finished sequence is one token shorter than prompt + output). After a preemption the
sequence must recompute `prefill_ids` = prompt + everything generated so far.

With the prefix cache on, a newly scheduled sequence may start with `cached` > 0: the
blocks of its prompt's prefix were found in the cache, `history` holds their token ids and
`num_prefill_left` counts only the rest (`skip_cached`).

A prompt of more than model.LONG_PROMPT tokens (a generated 32,768-token one) has a stand-in: `stand_in_skip` > 0
is how many of its first positions the lab's NumPy model does not compute (model.stand_in_skip). Everything that
serves it counts the whole prompt (`prompt_len`, `cached`, the block table, the clock's KV reads); the model computes
positions stand_in_skip.. at its own positions 0.., `model_position(p) = p − stand_in_skip`, and the pool keeps
K/V only there (block_manager.gather reads those). 0, the default, for every prompt the model computes whole.

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
    priority: int = 0                                 # SCHED_POLICY=priority: lower runs earlier
    cancel_at: int | None = None                      # simulated µs at which the client aborts it
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
    reason: str | None = None                         # "eos" | "max_new_tokens" | "aborted"
    history: list = field(default_factory=list)       # token ids fed through the model, in order
    finish: int | None = None
    num_preemptions: int = 0
    checked_rows: list = field(default_factory=list)  # (position, logits row) seen via the cache
    num_cached_tokens: int | None = None              # prompt tokens taken from the prefix cache, first admission
    stand_in_skip: int = 0                            # first prompt positions the lab's model does not compute
    rng: object = None

    @classmethod
    def from_request(cls, req: dict) -> "Sequence":
        keys = ("id", "arrival", "text", "max_new", "temperature", "top_k", "top_p", "seed")
        optional = {k: req[k] for k in ("priority", "cancel_at") if req.get(k) is not None}
        return cls(**{k: req[k] for k in keys}, **optional)

    @property
    def prompt_len(self) -> int:
        return len(self.ids)

    @property
    def stand_in_len(self) -> int:
        """Prompt tokens the lab's model computes: all of them, or the stand-in's (model.STAND_IN)."""
        return self.prompt_len - self.stand_in_skip

    def model_position(self, position: int) -> int:
        """The model's position of pool position `position` (the same without a stand-in)."""
        return position - self.stand_in_skip

    @property
    def sampling(self) -> dict:
        return dict(temperature=self.temperature, top_k=self.top_k, top_p=self.top_p)

    def admit(self, ready: int) -> None:
        """Passed input preparation: waits for a slot from `ready` on."""
        self.ready = ready
        self.prefill_ids = list(self.ids)
        self.num_prefill_left = len(self.ids)
        self.rng = np.random.default_rng(self.seed)

    def skip_cached(self, n: int) -> None:
        """n positions of prefill_ids were found in the prefix cache: they need no computing."""
        self.history = list(self.prefill_ids[:n])
        self.num_prefill_left = len(self.prefill_ids) - n
        if self.num_cached_tokens is None:      # like vLLM's request.num_cached_tokens: set once
            self.num_cached_tokens = n

    def reset_for_recompute(self) -> None:
        """After preemption: the cache is gone; prefill prompt + generated tokens again."""
        self.prefill_ids = list(self.ids) + list(self.out)
        self.num_prefill_left = len(self.prefill_ids)
        self.history = []
        self.pending_token = None
        self.num_preemptions += 1
