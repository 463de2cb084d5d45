"""The cluster's router: which replica gets each request (ROUTER = round_robin | least_loaded | prefix_aware).

Three policies, each as a production router does it (the router looks only at what it can know when the request
arrives: the replicas' outstanding work and the prompts it already sent to each one):

- **round_robin**: the i-th request goes to replica i mod N (vLLM production stack's `RoundRobinRouter`,
  `routingLogic: roundrobin`; the SGLang router's `round_robin` policy).
- **least_loaded**: the replica with the fewest outstanding tokens (prompt tokens still to prefill + tokens still
  to generate, up to max_new, of every request routed there and not finished), ties to the lowest index. The
  SGLang router's load fallback routes to the worker with the fewest requests in flight, llm-d's queue scorer
  to the shortest waiting queue; tokens weigh a long prompt more than a short one.
- **prefix_aware**: score = W_PREFIX × (prompt blocks already on that replica ÷ prompt blocks)
  − W_LOAD × (relative load), the highest score wins, ties to the lowest index. The weights are llm-d's
  default scheduling profile (inference scheduler, "prefix-cache-scorer" weight 3, "queue-scorer" weight 2:
  cache reuse first, load second); relative load is llm-d's queue-scorer normalisation, min-max over the
  replicas: (load − min) ÷ (max − min), 0 when every replica carries the same load. vLLM production stack's
  load-aware routing scores the same way (matched tokens ÷ prompt tokens − β × relative load), the SGLang
  router's cache-aware policy uses the prefix match until the load is imbalanced.

"Already on that replica" is the router's own record, as the three routers keep one (SGLang's approximate radix
tree per worker, the production stack's hash trie, llm-d's prefix index): the chained hashes of the full
prompt blocks (block_manager.hash_block, the engine's own hash) it routed to each replica. The router never asks
the engine; the engine may have evicted a block the router still counts (a guess, like theirs).

    >>> r = Router("prefix_aware", 3, block_size=2)
    >>> r.remember(1, [0, 5, 6, 7, 8])
    >>> d = r.choose("B", [0, 5, 6, 7, 9], loads=[0, 10, 4])
    >>> d["replica"], d["cached"], d["blocks"], d["load"]
    (1, 2, 2, 1.0)

(replica 1: 2/2 blocks cached, load 1.0 → 3 × 1 − 2 × 1 = 1; replica 0: 0 − 0 = 0; replica 2: 0 − 2 × 0.4 = −0.8.)

The gateway's rule per replica: the router forwards every request (it does not know a replica's queue limit);
the chosen replica's own gateway refuses it with 429 when that replica already holds SLOTS + QUEUE_LIMIT
requests (engine.gateway_admits), so a 429 always comes from the queue of the replica the router chose, even when
another replica has room. Under DISAGG = on the router chooses among the prefill replicas, and a decode replica
when the prefill is done (cluster.py).

Leaves out: session affinity and consistent hashing, health checks and retries, KV-cache-utilisation scorers,
LRU eviction of the router's index, the SGLang router's thresholds (cache_threshold, balance_*_threshold).
"""
from __future__ import annotations

from ..serving.block_manager import hash_block

W_PREFIX, W_LOAD = 3, 2          # llm-d's default profile: prefix-cache-scorer 3, queue-scorer 2
POLICIES = ("round_robin", "least_loaded", "prefix_aware")


def relative_loads(loads: list[int]) -> list[float]:
    """Min-max normalised loads (llm-d's queue scorer): 0 for the least loaded, 1 for the most.

    >>> relative_loads([10, 20, 35]), relative_loads([4, 4])
    ([0.0, 0.4, 1.0], [0.0, 0.0])
    """
    lo, hi = min(loads), max(loads)
    return [0.0 if hi == lo else (x - lo) / (hi - lo) for x in loads]


def block_hashes(ids: list[int], block_size: int, servable: bool = True) -> list[str]:
    """Chained hashes of the prompt's full blocks: those a prefix cache can serve (`servable`: the last token is always
    computed, so at most (len − 1) // block_size), or all those the engine caches once the prompt is computed."""
    out, parent = [], None
    for i in range(((len(ids) - 1) if servable else len(ids)) // block_size if ids else 0):
        parent = hash_block(parent, ids[i * block_size:(i + 1) * block_size])
        out.append(parent)
    return out


class Router:
    """One routing policy over `n` replicas (their indices `ids`, default 0..n-1)."""

    def __init__(self, policy: str, n: int, block_size: int, ids: list[int] | None = None):
        assert policy in POLICIES, policy
        self.policy, self.block_size = policy, block_size
        self.ids = list(ids) if ids is not None else list(range(n))
        self.turn = 0
        self.index = {r: set() for r in self.ids}       # replica -> hashes of the prompt blocks routed there

    def remember(self, replica: int, ids: list[int], hashes: list[str] | None = None) -> None:
        """The prompt's blocks are cached on `replica` once computed (`hashes`: block_hashes(ids, servable=False))."""
        self.index[replica].update(block_hashes(ids, self.block_size, servable=False) if hashes is None else hashes)

    def cached_blocks(self, replica: int, hashes: list[str]) -> int:
        n = 0
        for h in hashes:
            if h not in self.index[replica]:
                break
            n += 1
        return n

    def choose(self, request: str, ids: list[int], loads: list[int]) -> dict:
        """The decision for one request: {request, replica, policy, why facts}; `loads` = outstanding tokens per replica
        (in the order of `ids`). The router then remembers the prompt's blocks on the chosen replica."""
        every = block_hashes(ids, self.block_size, servable=False)      # the servable ones are its first
        hashes = every[:(len(ids) - 1) // self.block_size] if ids else []   # (len − 1) // block_size (chained)
        rel = relative_loads(loads)
        cached = [self.cached_blocks(r, hashes) for r in self.ids]
        if self.policy == "round_robin":
            k = self.turn % len(self.ids)
            self.turn += 1
        elif self.policy == "least_loaded":
            k = min(range(len(self.ids)), key=lambda i: (loads[i], i))
        else:
            scores = [W_PREFIX * (c / len(hashes) if hashes else 0.0) - W_LOAD * x for c, x in zip(cached, rel)]
            k = max(range(len(self.ids)), key=lambda i: (scores[i], -i))
        replica = self.ids[k]
        self.remember(replica, ids, every)
        return dict(request=request, replica=replica, policy=self.policy, blocks=len(hashes), cached=cached[k],
                    load=round(rel[k], 2), outstanding=loads[k], loads=list(loads))
