"""[6] KV state manager: a pool of physical KV blocks and one block table per sequence.

The pool holds POOL_BLOCKS blocks of BLOCK_SIZE token slots each (K and V arrays of
shape (blocks, heads, block_size, d_head)). A sequence's logical block i lives in
physical block `seq.block_table[i]`; position p sits in slot p % BLOCK_SIZE of logical
block p // BLOCK_SIZE. Blocks are allocated lazily while K/V are written, lowest free
index first (easy to read), and returned when the sequence finishes or is preempted.

    >>> from types import SimpleNamespace as NS
    >>> import numpy as np
    >>> pool = BlockManager(num_blocks=4, block_size=2)
    >>> seq = NS(id="A", cached=0, block_table=[])
    >>> pool.can_append(seq, 3), pool.num_new_blocks(seq, 3)
    (True, 2)
    >>> pool.write(seq, np.ones((2, 3, 4)), np.ones((2, 3, 4))); seq.block_table, pool.num_used
    ([0, 1], 2)

Leaves out: prefix caching and reference counts (a block has one owner at a time),
copy-on-write, swapping to CPU. When the pool is full the *engine* decides whom to
preempt (see engine.py); this class only answers `can_append()` and frees blocks.
"""
from __future__ import annotations

import numpy as np

from .model import D_HEAD, N_HEADS


class BlockManager:
    def __init__(self, num_blocks: int, block_size: int):
        self.num_blocks, self.block_size = num_blocks, block_size
        self.K = np.zeros((num_blocks, N_HEADS, block_size, D_HEAD))     # (blocks, heads, slots, d_head)
        self.V = np.zeros((num_blocks, N_HEADS, block_size, D_HEAD))
        self.free = list(range(num_blocks))      # lowest index first
        self.released = []                       # (request, blocks returned) in finishing order
        self.owners = {}                         # physical block -> requests that used it, in order
        self.active = {}                         # request id -> sequence holding blocks
        self.peak = dict(used=0, tables={}, tokens=0, step=None)
        self.current_step = None                 # set by the engine: the 1-based step being executed

    @property
    def num_used(self) -> int:
        return self.num_blocks - len(self.free)

    def num_new_blocks(self, seq, n: int) -> int:
        """Blocks `seq` must take to store n more positions."""
        needed = -(-(seq.cached + n) // self.block_size)
        return max(0, needed - len(seq.block_table))

    def can_append(self, seq, n: int) -> bool:
        return self.num_new_blocks(seq, n) <= len(self.free)

    def _allocate(self, seq) -> None:
        block = self.free.pop(0)
        seq.block_table.append(block)
        self.owners.setdefault(block, []).append(seq.id)
        self.active[seq.id] = seq

    def write(self, seq, k_new, v_new) -> None:
        """Store K/V (heads, n, d_head) at positions seq.cached.. ; call can_append() first."""
        for i in range(k_new.shape[1]):
            pos = seq.cached + i
            if pos // self.block_size == len(seq.block_table):
                self._allocate(seq)
            block, slot = seq.block_table[pos // self.block_size], pos % self.block_size
            self.K[block, :, slot] = k_new[:, i]
            self.V[block, :, slot] = v_new[:, i]
        seq.cached += k_new.shape[1]
        self._track_peak()

    def _track_peak(self) -> None:
        if self.num_used > self.peak["used"]:     # remember the moment with the most blocks in use
            self.peak = dict(used=self.num_used, tables={k: list(v.block_table) for k, v in self.active.items()},
                             tokens=sum(v.cached for v in self.active.values()), step=self.current_step)

    def owner_map(self) -> dict:
        """{physical block: request id} for every block in use now."""
        return {b: rid for rid, seq in self.active.items() for b in seq.block_table}

    def gather(self, seq):
        """K, V of the sequence's cached positions, read from its scattered blocks: (heads, cached, d_head)."""
        if seq.cached == 0:
            empty = np.zeros((N_HEADS, 0, D_HEAD))
            return empty, empty
        K = np.concatenate([self.K[b] for b in seq.block_table], axis=1)[:, :seq.cached]
        V = np.concatenate([self.V[b] for b in seq.block_table], axis=1)[:, :seq.cached]
        return K, V

    def _free(self, seq) -> list[int]:
        blocks = list(seq.block_table)
        self.free = sorted(self.free + seq.block_table)
        self.active.pop(seq.id, None)
        seq.block_table = []
        return blocks

    def release(self, seq) -> None:
        """The sequence finished: return its blocks."""
        self.released.append((seq.id, list(seq.block_table)))
        self._free(seq)

    def evict(self, seq) -> list[int]:
        """The sequence is preempted: return its blocks and forget its cache; returns the freed blocks."""
        seq.cached = 0
        return self._free(seq)
