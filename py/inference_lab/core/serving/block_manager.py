"""[6] KV state manager: a pool of physical KV blocks, one block table per sequence, optional prefix cache.

The pool holds POOL_BLOCKS blocks of BLOCK_SIZE token slots each (K and V arrays of
shape (heads, blocks, block_size, d_head): heads first, so a sequence's blocks read in table order are already its
positions in order, (heads, blocks × block_size, d_head), without a transpose). A sequence's logical block i lives in
physical block `seq.block_table[i]`; position p sits in slot p % BLOCK_SIZE of logical
block p // BLOCK_SIZE. Blocks are allocated lazily while K/V are written and returned
when the sequence finishes, is preempted or is aborted. Every block has a reference
count (`ref_cnt`: how many block tables hold it).

Without prefix caching (PREFIX_CACHE=off, the seed's behaviour) a block has one owner at
a time and the free list is kept sorted: lowest free index first (easy to read).

    >>> from types import SimpleNamespace as NS
    >>> import numpy as np
    >>> pool = BlockManager(num_blocks=4, block_size=2)
    >>> seq = NS(id="A", cached=0, block_table=[], history=[0, 5, 6])
    >>> pool.can_append(seq, 3), pool.num_new_blocks(seq, 3)
    (True, 2)
    >>> pool.write(seq, np.ones((2, 3, 4)), np.ones((2, 3, 4))); seq.block_table, pool.num_used
    ([0, 1], 2)

With prefix caching (PREFIX_CACHE=on) the pool follows vLLM's design document "Automatic
Prefix Caching" (docs/design/prefix_caching.md, the v1 KVCacheManager / BlockPool):
- a block that becomes FULL gets a hash of its tokens chained with its parent block's hash
  (`hash_block`), and the hash map remembers it; partial blocks are never cached. Like vLLM's
  `BlockPool.cached_block_hash_to_block` (vllm/v1/core/block_pool.py: hash -> {block_id: block})
  the map keeps, per hash, EVERY block carrying it (two requests that computed the same block
  each have a copy); a lookup returns the first one (`get_cached_block`) and evicting a block
  removes only that block id (`_maybe_evict_cached_block`), so the hash stays findable while any
  block still carries it;
- `take_cached_prefix` (vLLM's get_computed_blocks + "touch") gives a newly scheduled
  sequence the cached full blocks of what it must prefill: ref_cnt + 1, out of the free
  queue; at most (tokens − 1) // BLOCK_SIZE blocks, so the last prompt token is always
  computed (its logits pick the first token);
- the free list becomes vLLM's `free_block_queue`: freed blocks go to its TAIL, a
  sequence's blocks in reverse order (its last block hashes the most tokens, so it should
  be evicted first), and keep their hash; allocation pops the HEAD (least recently used)
  and, when that block still has a hash, evicts it from the cache;
- blocks of running sequences can be shared (ref_cnt > 1); a preempted request's
  recompute can hit its own blocks while they are still cached.

    >>> pool = BlockManager(num_blocks=4, block_size=2, enable_caching=True)
    >>> a = NS(id="A", cached=0, block_table=[], history=[0, 5, 6])
    >>> pool.write(a, np.ones((2, 3, 4)), np.ones((2, 3, 4)))
    >>> pool.release(a); pool.free                      # reverse order to the tail; block 0 keeps its hash
    [2, 3, 1, 0]
    >>> d = NS(id="D", cached=0, block_table=[], history=[], prefill_ids=[0, 5, 7])
    >>> pool.take_cached_prefix(d, d.prefill_ids), d.block_table, pool.ref_cnt[0]
    (2, [0], 1)

`audit()` checks the pool's invariants (reference counts never negative and equal to the
number of tables holding the block, every block either free or owned and never both) and
returns the codes of any violation, no words (text_vi.py / text_en.py word them in the run's
language); the engine calls it after every step of a checked run.

The pool keeps no history: it tells its run log (run_log.RunLog) what happens as it happens, `event` for
what the record shows ("evict") and `note` for the pool's facts ("hold" a block taken, "release" a
sequence's blocks returned, "peak" a new high of blocks in use, "problem" an audit violation); blocks
[6] and [10] read them there (run_log.RunLog.noted), stamped with the step they belong to.

Leaves out: copy-on-write (only full blocks are shared and a sequence writes only into its
own last block), swapping to CPU, cache salts and LoRA/multimodal extra hashes, the
de-duplication of identical blocks (vLLM v1 keeps block tables append-only and so do we).
When the pool is full the *engine* decides whom to preempt (see engine.py); this class
only answers `can_append()` and frees blocks.
"""
from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from itertools import chain, compress

import numpy as np

from ..model.model import D_HEAD, N_HEADS


def hash_block(parent: str | None, tokens) -> str:
    """A full block's hash: its token ids chained with the parent block's hash (16 hex digits of SHA-256).

    >>> hash_block(None, [0, 21, 5, 9]) == hash_block(None, [0, 21, 5, 9]) != hash_block("x", [0, 21, 5, 9])
    True
    """
    return _hash_block(parent, tuple(map(int, tokens)))


@functools.lru_cache(maxsize=1 << 16)
def _hash_block(parent: str | None, tokens: tuple) -> str:
    """hash_block's arithmetic, remembered: a run hashes the same blocks again and again (every replica's pool, the
    router's index, block [12]'s replays), and a lookup costs a fraction of a SHA-256 of the ids' text."""
    text = f"{parent or ''}|{','.join(map(str, tokens))}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _ignore(kind, *values, **fields) -> None:
    """A pool without a run log (the doctests, a bare pool in a test): nothing is told."""


@dataclass
class Versions:
    """How many times the pool changed, and the audit's last verdicts with the counts they were read at.

    The audit's scratch, not history (nothing here is reported): the checks read the whole pool, so
    BlockManager.audit runs them again only when a count moved since its last verdict."""
    pool: int = 0                        # mutations of the tables, counts, free queue or hashes so far
    hashes: int = 0                      # mutations of the hashes (block_hash, cached) so far
    free: int = 0                        # changes of the free queue, or of a free block's hash, so far
    pool_verdict: tuple = (-1, [])       # (pool, codes) of the last audit
    hash_verdict: tuple = (-1, False)    # (hashes, stale?) of the last hash check
    touched: set = field(default_factory=set)   # blocks whose hash came or went since the last hash check
    entries: int = 0                     # the hash map's entries (block ids) now, counted as they come and go

    def bump(self, hashes: bool = False) -> None:
        self.pool += 1
        self.hashes += hashes

    def hash_changed(self, block: int) -> None:
        """A hash came to `block` or left it (and its map entry with it)."""
        self.bump(hashes=True)
        self.touched.add(block)


class BlockManager:
    """The pool and the tables, and nothing of their history: what happened to them is told to the run log."""

    def __init__(self, num_blocks: int, block_size: int, enable_caching: bool = False, event=None, note=None):
        self.num_blocks, self.block_size, self.enable_caching = num_blocks, block_size, enable_caching
        self.event = event or _ignore            # the run log's event(): "evict" (run_log.EVENT_ORDER)
        self.note = note or _ignore              # the run log's note(): "hold", "release", "peak", "problem"
        self.K = np.zeros((N_HEADS, num_blocks, block_size, D_HEAD))     # (heads, blocks, slots, d_head)
        self.V = np.zeros((N_HEADS, num_blocks, block_size, D_HEAD))
        self.free = list(range(num_blocks))      # sorted (no caching) or the LRU free queue, head first
        self.ref_cnt = [0] * num_blocks          # block tables holding each block
        self.block_hash = [None] * num_blocks    # set when a block becomes full (caching only)
        self.cached = {}                         # hash -> {physical block: None}, first cached first
                                                 # (vLLM's cached_block_hash_to_block)
        self.active = {}                         # request id -> sequence holding blocks
        self.peak_used = 0                       # the most blocks in use at once so far (a new high is noted)
        self.versions = Versions()               # change counts and the audit's verdicts at them (audit's scratch)

    @property
    def changes(self) -> int:
        """Mutations of the tables, counts, free queue or hashes so far."""
        return self.versions.pool

    @property
    def free_changes(self) -> int:
        """Changes of what `sorted_free` reads (the free queue, a free block's hash) so far: the run log computes
        a step's free lists again only when it moved (run_log.RunLog.free_lists)."""
        return self.versions.free

    def sorted_free(self) -> tuple[list[int], list[int]]:
        """(the free blocks, those of them still holding a cached hash), each sorted."""
        free = sorted(self.free) if self.enable_caching else list(self.free)   # without the cache it stays sorted
        # a hash is 16 hex digits (hash_block) or None: compress keeps the blocks with one, in C
        return free, list(compress(free, map(self.block_hash.__getitem__, free))) if self.enable_caching else []

    @property
    def num_used(self) -> int:
        return self.num_blocks - len(self.free)

    def num_new_blocks(self, seq, n: int) -> int:
        """Blocks `seq` must take to store n more positions."""
        needed = -(-(seq.cached + n) // self.block_size)
        return max(0, needed - len(seq.block_table))

    def can_append(self, seq, n: int) -> bool:
        return self.num_new_blocks(seq, n) <= len(self.free)

    def _hold(self, seq, block: int) -> None:
        self.versions.bump()
        self.ref_cnt[block] += 1
        seq.block_table.append(block)
        self.note("hold", seq.id, block, self.ref_cnt[block])
        self.active[seq.id] = seq

    def _evict_cached(self, block: int, seq) -> None:
        """Forget this block's hash; other blocks carrying the same hash stay cached
        (vLLM: del cached_blocks[block_id])."""
        self.versions.hash_changed(block)
        h = self.block_hash[block]
        copies = self.cached.get(h, {})
        if block in copies:
            del copies[block]
            self.versions.entries -= 1
        if not copies:
            self.cached.pop(h, None)
        self.block_hash[block] = None
        self.event("evict", id=seq.id, block=block, hash=h)

    def write(self, seq, k_new, v_new, hash_now: bool = True) -> None:
        """Store K/V (heads, n, d_head) at positions seq.cached.. ; call can_append() first.

        hash_now=False (a speculative verify): the full blocks are hashed by `rollback`, after the rejected
        positions are gone, so no rejected token enters a cached block's hash."""
        n, bs = k_new.shape[1], self.block_size
        self.reserve(seq, n, advance=False)
        i = 0
        while i < n:                        # block by block (a chunk touches one or two): slices, no index arrays
            pos = seq.cached + i
            block, slot = seq.block_table[pos // bs], pos % bs
            j = min(n, i + bs - slot)                                         # positions i..j-1 go to this block
            self.K[:, block, slot:slot + j - i] = k_new[:, i:j]               # (heads, j − i, d_head)
            self.V[:, block, slot:slot + j - i] = v_new[:, i:j]
            i = j
        self.advance(seq, n, hash_now)

    def reserve(self, seq, n: int, advance: bool = True) -> None:
        """Take the blocks for n more positions (lowest free first, in position order), as write() does but
        without K/V: the replay of block [12]'s other policies (core/serving/replay.py) counts blocks only.
        The blocks leave the free list in one cut (a 32,768-token prompt takes 2,048 of them: popping the list's
        head one by one would move the whole list every time)."""
        need = self.num_new_blocks(seq, n)
        taken, self.free[:need] = self.free[:need], []
        ref, hashes, note, table = self.ref_cnt, self.block_hash, self.note, seq.block_table
        for block in taken:                          # _hold, block by block, without a call per block
            if hashes[block] is not None:            # the LRU head still held a cached block: evict it
                self._evict_cached(block, seq)
            ref[block] += 1
            table.append(block)
            note("hold", seq.id, block, ref[block])
        if taken:
            self.versions.pool += len(taken)
            self.versions.free += 1
            self.active[seq.id] = seq
        if advance:
            self.advance(seq, n)

    def advance(self, seq, n: int, hash_now: bool = True) -> None:
        first_block = seq.cached // self.block_size
        seq.cached += n
        if self.enable_caching and hash_now:
            self._cache_full_blocks(seq, first_block)
        self._track_peak()

    def rollback(self, seq, keep: int) -> list[int]:
        """Speculative decoding's rollback: keep positions 0..keep−1 of `seq`, free the slots after them; a block
        left empty goes back to the pool (it was written in this step, so nobody shares it). Then hash the blocks
        that are full (PREFIX_CACHE=on). Returns the blocks given back."""
        seq.cached = keep
        self.versions.bump()
        self.versions.free += 1
        needed = -(-keep // self.block_size)
        gone = seq.block_table[needed:]
        del seq.block_table[needed:]
        for b in gone:
            self.ref_cnt[b] -= 1
        if self.enable_caching:
            self.free += list(reversed(gone))
            self._cache_full_blocks(seq, 0)
        else:
            self.free = sorted(self.free + gone)
        return gone

    def _cache_full_blocks(self, seq, first: int) -> None:
        """Hash the blocks of `seq` that are now full (vLLM caches a block as soon as it is full)."""
        bs = self.block_size
        for i in range(first, seq.cached // bs):
            block = seq.block_table[i]
            if self.block_hash[block] is not None:
                continue
            parent = self.block_hash[seq.block_table[i - 1]] if i else None
            h = hash_block(parent, seq.history[i * bs:(i + 1) * bs])
            self.versions.hash_changed(block)
            if self.ref_cnt[block] == 0 or block in self.free:   # only in a broken pool: a free block gets a hash
                self.versions.free += 1
            self.block_hash[block] = h
            copies = self.cached.setdefault(h, {})
            self.versions.entries += block not in copies
            copies[block] = None                          # a copy: the first one cached stays the one found

    def find_cached_prefix(self, token_ids) -> list[int]:
        """The cached blocks of the longest prefix of full blocks of `token_ids`, leaving at least the last token."""
        blocks, parent, bs = [], None, self.block_size
        for i in range((len(token_ids) - 1) // bs):
            h = hash_block(parent, token_ids[i * bs:(i + 1) * bs])
            if h not in self.cached:
                break
            blocks.append(next(iter(self.cached[h])))   # vLLM's get_cached_block: the first copy
            parent = h
        return blocks

    def take_cached_prefix(self, seq, token_ids, recompute: bool = False) -> int:
        """A sequence with nothing cached takes the cached blocks of its prefix; returns the tokens it may skip."""
        if not self.enable_caching or seq.cached or seq.block_table:
            return 0
        blocks = self.find_cached_prefix(token_ids)
        for b in blocks:
            if self.ref_cnt[b] == 0:
                self.free.remove(b)              # "touch": out of the free queue, so it cannot be evicted
                self.versions.free += 1
            self._hold(seq, b)
        seq.cached = len(blocks) * self.block_size
        if blocks:                               # the engine tells the hit (event "cache_hit")
            self._track_peak()
        return seq.cached

    def _stored_tokens(self) -> int:
        """Token positions held in used blocks; a shared block counts once."""
        if not self.enable_caching:             # no block is shared: every sequence's cached positions
            return sum(min(s.cached, len(s.block_table) * self.block_size) for s in self.active.values())
        fill = {}
        for seq in self.active.values():
            for i, b in enumerate(seq.block_table):
                fill[b] = max(fill.get(b, 0), min(self.block_size, seq.cached - i * self.block_size))
        return sum(fill.values())

    def _track_peak(self) -> None:
        if self.num_used > self.peak_used:        # tell the moment with the most blocks in use
            self.peak_used = self.num_used
            self.note("peak", self.num_used, {k: list(v.block_table) for k, v in self.active.items()},
                      self._stored_tokens())

    def owner_map(self) -> dict:
        """{physical block: request id} for every block in use now (a shared block: its first holder)."""
        out = {}
        for rid, seq in self.active.items():
            for b in seq.block_table:
                out.setdefault(b, rid)
        return out

    def shared_map(self) -> dict:
        """{physical block: [request ids]} for the blocks held by more than one table now."""
        out = {}
        for rid, seq in self.active.items():
            for b in seq.block_table:
                if self.ref_cnt[b] > 1:
                    out.setdefault(b, []).append(rid)
        return out

    def cached_free(self) -> list[int]:
        """Free blocks that still hold a cached hash (reusable by a prefix hit until evicted), head first."""
        bh = self.block_hash
        return [b for b in self.free if bh[b] is not None]

    def gather(self, seq):
        """K, V of the sequence's cached positions, read from its scattered blocks: (heads, cached, d_head).

        A long prompt's stand-in (seq.stand_in_skip = s > 0, model.stand_in_skip): only positions s .. cached − 1
        hold K/V (the model's positions 0 ..), so only they are read: (heads, cached − s, d_head)."""
        skip = getattr(seq, "stand_in_skip", 0)
        if seq.cached <= skip:
            empty = np.zeros((N_HEADS, 0, D_HEAD))
            return empty, empty
        bs = self.block_size
        first = skip // bs                                     # the first block holding a computed position
        table = seq.block_table[first:]
        shape, lo, hi = (N_HEADS, len(table) * bs, D_HEAD), skip - first * bs, seq.cached - first * bs
        K = self.K.take(table, axis=1).reshape(shape)[:, lo:hi]   # (H, blocks, bs, d) -> (H, cached − s, d)
        V = self.V.take(table, axis=1).reshape(shape)[:, lo:hi]
        return K, V

    def _free(self, seq) -> list[int]:
        self.versions.bump()
        self.versions.free += 1
        blocks = list(seq.block_table)
        for b in blocks:
            self.ref_cnt[b] -= 1
        if self.enable_caching:                  # reverse order to the tail of the free queue, hashes kept
            self.free += [b for b in reversed(blocks) if self.ref_cnt[b] == 0]
        else:                                    # in place: the sorted free list and the blocks merge in one
            self.free += blocks                  # sort (a TP 2 pool's 64k blocks: a third of sorted(free + blocks))
            self.free.sort()
        self.active.pop(seq.id, None)
        seq.block_table = []
        return blocks

    def release(self, seq) -> None:
        """The sequence finished (or was aborted, or left for a decode replica): return its blocks."""
        self.note("release", seq.id, list(seq.block_table))
        self._free(seq)

    def evict(self, seq) -> list[int]:
        """The sequence is preempted: return its blocks and forget its cache; returns the freed blocks."""
        seq.cached = 0
        return self._free(seq)

    def audit(self) -> list[str]:
        """Check the pool's invariants now; returns the codes of the violations and notes each ("problem").

        The codes (the "pool.*" sentences of text_vi.py / text_en.py word them): "negative_ref_cnt",
        "ref_cnt_mismatch" (a count differs from the tables holding the block), "not_conserved" (a block
        twice in the free list, lost, or both free and owned), "stale_hash" (the hash map lists a
        block carrying another hash, or a block carrying a hash is missing from the map).

        The checks read the whole pool (O(blocks)); a step that changed nothing they read (no block taken, given
        back, hashed or evicted: `changes` counts every such mutation this class makes, and nothing outside it
        writes the tables, counts, free queue or hashes) keeps the last verdict, so a 1,000-request run does not
        re-read an unchanged 512-block pool at every one of its thousands of steps.
        """
        v = self.versions
        if v.pool_verdict[0] != v.pool:
            v.pool_verdict = (v.pool, self._broken())
        codes = v.pool_verdict[1]
        for code in codes:
            self.note("problem", code)
        return list(codes)

    def _broken(self) -> list[str]:
        """The codes of the invariants broken now (audit), each read in one C-level pass over the pool."""
        n, ref, free = self.num_blocks, self.ref_cnt, self.free
        held = np.bincount(np.fromiter(chain.from_iterable(s.block_table for s in self.active.values()), np.intp),
                           minlength=n).tolist()                     # tables holding each block (intp: bincount's
        in_free = set(free)                                          # index type, 32-bit in Pyodide)
        mismatch = held != ref                                       # equal: every count is a number of tables
        broken = dict(
            negative_ref_cnt=mismatch and min(ref, default=0) < 0,
            ref_cnt_mismatch=mismatch,
            not_conserved=len(in_free) != len(free) or any(map(held.__getitem__, in_free))
            or len(in_free) + n - held.count(0) != n,
            stale_hash=self.enable_caching and self._stale_hash(),    # without the cache no block ever has a hash
        )
        return [code for code, bad in broken.items() if bad]

    def _stale_hash(self) -> bool:
        """The hash map and the blocks' hashes disagree: read as sorted (block, hash) pairs, the map's entries
        are not exactly the blocks carrying a hash with their hashes (an entry naming a block that carries
        another hash or none, a block listed twice, a hashed block missing from the map). Looked at again only
        when a hash came or went since the last look (`versions.hashes`), and then, after a look that found them
        agreeing, at the blocks whose hash came or went since (`_touched_disagree`): the others' entries are as
        they were."""
        v = self.versions
        if v.hash_verdict[0] != v.hashes:
            touched, v.touched = v.touched, set()
            agreed = v.hash_verdict[0] >= 0 and not v.hash_verdict[1]
            v.hash_verdict = (v.hashes, self._touched_disagree(touched) if agreed else self._hashes_disagree())
        return v.hash_verdict[1]

    def _touched_disagree(self, touched: set) -> bool:
        """_hashes_disagree's verdict when the map agreed with the blocks before `touched` changed: every touched
        block that carries a hash is listed under it, and the map has as many entries as blocks carrying a hash.
        Only _evict_cached and _cache_full_blocks change a hash or an entry, and both touch the block, so the
        untouched blocks still carry hashes with their entries; with the touched ones, every hashed block has
        its entry, and equal counts leave no room for any other entry (a stale one, a block listed twice). The
        entries are those two functions' count (`versions.entries`, counted afresh by every full look): reading
        every hash's copies again cost a 1,000-request run ~4% of its time."""
        bh, cached = self.block_hash, self.cached
        if self.versions.entries != len(bh) - bh.count(None):
            return True
        return any(bh[b] is not None and b not in cached.get(bh[b], ()) for b in touched)

    def _hashes_disagree(self) -> bool:
        """As many map entries as blocks carrying a hash, and every entry's block carries its hash: then the entries
        are exactly those blocks (a block carries one hash, so it cannot be listed twice)."""
        bh = self.block_hash
        self.versions.entries = sum(map(len, self.cached.values()))
        if self.versions.entries != len(bh) - bh.count(None):
            return True
        # two flat lists compared at C speed (a violation is rare, so any()'s early exit saves nothing): the map's
        # hashes, and the hashes its blocks carry, in the same order
        told = [h for h, copies in self.cached.items() for _ in copies]
        carried = [bh[b] for copies in self.cached.values() for b in copies]
        return told != carried
