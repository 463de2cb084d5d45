"""The cluster's sentences in English (text_cluster.py says which, when); cluster_vi.py has the same keys.

Leaves out: which sentence is said when, and every number.
"""
SAY = {
    "c.router": "Router {cfg[ROUTER]} in front of {n} engine replicas; each replica has its own gateway (SLOTS "
                "{cfg[SLOTS]} + QUEUE_LIMIT {cfg[QUEUE_LIMIT]}): the router does not know the queue limit, so a 429 "
                "comes from the queue of the replica the router chose, even when another replica has room.",
    "c.disagg_roles": "Prefill/decode disaggregation: replica(s) {p} only prefill, replica(s) {dec} only decode; the "
                      "router chooses among the prefill replicas, the decode replica is chosen when the KV transfer "
                      "starts ({how}).",
    "c.decode_rr": "in turn",
    "c.decode_ll": "the one with the fewest tokens still to compute",
    "c.route_rr": "{x[request]} → replica {x[replica]}: its turn (round robin; {x[outstanding]:pl token} still to compute there).",
    "c.route_ll": "{x[request]} → replica {x[replica]}: fewest tokens still to compute (per replica: {loads}).",
    "c.route_pa": "{x[request]} → replica {x[replica]}: {x[cached]}/{x[blocks]} prompt blocks cached there, load "
                  "{x[load]}; score 3 × {frac} − 2 × {x[load]} = {score} (the highest).",
    "c.more": "… and {n} more decisions (--json: cluster.router.decisions).",
    "c.refused": "429s by the replica that refused them: {parts}.",
    "c.refused_part": "replica {i}: {n}",
    "c.goodput": "Goodput: {g[met]}/{g[served]} served requests meet both TTFT <= {g[ttft_slo]:ms} and TPOT <= "
                 "{g[tpot_slo]:ms} ({pct}%), i.e. {per_s} requests/s within the SLOs.",
    "c.percentiles": "Whole cluster: TTFT p50/p90/p99 = {ttft}; TPOT p50/p90/p99 = {tpot}.",
    "c.replica": "Replica {r[id]} ({role}): served {r[served]}, busy {r[busy_us]:ms} ({util}% of the time), KV peak "
                 "{r[kv_peak]}/{pool} blocks, prefix hits {r[prefix_hits]} tokens; TTFT {ttft}; TPOT {tpot}.",
    "c.role_both": "prefill + decode",
    "c.role_prefill": "prefill",
    "c.role_decode": "decode",
    "c.transfers": "KV transfers: {n}, each {dg[latency_us]} µs + bytes ÷ {dg[link_gbps]} GB/s ({dg[kv_bytes_per_position]} "
                   "bytes per position); {dg[shipped]} bytes shipped, {dg[received]} bytes received ({ok}); longest "
                   "{longest:ms}, longest wait for blocks on a decode replica {wait:ms}.",
    "c.equal": "equal",
    "c.differ": "DIFFERENT",
    "c.versus": "The same {n} replicas without disaggregation (DISAGG = off) → with it: TTFT p99 {bttft} → {attft}; "
                "TPOT p99 {btpot} → {atpot}; largest ITL gap {bgap} → {agap}; throughput {bt} → {at} tokens/s.",
    "c.vllm_says": "vLLM's documentation (Disaggregated Prefilling): disaggregation tunes TTFT and tail ITL separately "
                   "(no prefill cuts into a decode), it does NOT raise throughput; the figures above are this run's own.",
}
