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
                   "{longest:ms}; {wait}.",
    "c.equal": "equal",
    "c.differ": "DIFFERENT",
    "c.versus": "The same {n} replicas without disaggregation (DISAGG = off) → with it: TTFT p99 {bttft} → {attft}; "
                "TPOT p99 {btpot} → {atpot}; largest ITL gap {bgap} → {agap}; throughput {bt} → {at} tokens/s.",
    "c.vllm_says": "vLLM's documentation (Disaggregated Prefilling): disaggregation tunes TTFT and tail ITL separately "
                   "(no prefill cuts into a decode), it does NOT raise throughput; the figures above are this run's own.",
    "b1.observe_cluster": "Observation: the router sends each request, in arrival order, to one replica, whose gateway looks at it; each gateway ({gateways:pl gateway}) holds at most {d[capacity]} requests (running + waiting), {total} in all.",
    "b1.decision_replica": "{x[request]} (arrives {x[arrival]:ms}) → replica {r}: {verdict} - {why}",
    "why.gateway_replica": "{f[in_system]:pl request} on replica {r}, {state} {f[slots]}+{f[queue_limit]}",
    "b3.legend_replica": "On a cluster every replica runs its own steps on the same simulated clock, so steps overlap in time; [rN] names the replica that ran the step, and the steps are numbered in order of their start.",
    "b3.step_replica": "step {i:>2} [r{st[replica]}]: {st[start]:ms} -> {st[end]:ms} | waiting={st[waiting]} running={st[running]} | {work}",
    "b3.observe_replica": "Observation: step 1 runs on replica {st[replica]}, starts at {st[start]:ms} with {lone} only{late}. The scheduler does not wait.",
    "b3.observe_late": "; {late} on the same replica",
    "b3.follow_wait_replica": "{fid} (replica {f[replica]}): ready at {f[ready]:ms}, but its first step starts at {f[start]:ms} -> waited {f[queue]:ms} for a slot there.",
    "b3.follow_wait_replica_step": "{fid} (replica {f[replica]}): ready at {f[ready]:ms}, but its first step starts at {f[start]:ms} -> waited {f[queue]:ms} for the step in progress there to end (a request joins the batch at a step boundary).",
    "lim.more_steps": "… and {n:pl more step}: the step view and `--steps` show each.",
    "lim.more_decisions": "… and {n:pl more decision}: `--json` (blocks[0].data.decisions) has each.",
    "lim.more_aborts": "… and {n:pl more cancellation}: `--json` (blocks[0].data.aborts) has each.",
    "lim.more_rows": "… and {n:pl more request}: `--json` has each.",
    "lim.more_items": "… and {n} more",
    "lim.more_numbers": "… and {n} more",
    "lim.more_words": "… and {n} more words",
    "lim.more_prompts": "… and {n:pl more request}",
    "c.no_wait": "no transfer waited on its decode replica",
    "c.wait_slot": "the longest wait on a decode replica {us:ms} ({t[request]} on replica {t[to]}, for a free slot: it was running SLOTS sequences)",
    "c.wait_blocks": "the longest wait on a decode replica {us:ms} ({t[request]} on replica {t[to]}, for free KV blocks for all its positions)",
    "c.gap_handoff": "The largest ITL gap with disaggregation, {g[us]:ms}, is {g[request]}'s between its first token (prefill replica {t[from]}) and its second (decode replica {t[to]}): the KV transfer {link:ms}, {why}, then {rest:ms} until its first decode step ends.",
    "c.gap_why_slot": "a wait of {us:ms} for a free slot on replica {t[to]}",
    "c.gap_why_blocks": "a wait of {us:ms} for free KV blocks on replica {t[to]}",
    "c.gap_why_none": "no wait on replica {t[to]}",
    "c.gap_decode": "The largest ITL gap with disaggregation, {g[us]:ms}, is {g[request]}'s after its token {g[after]}, between two decode steps on its decode replica.",
    "b6.replica": "Replica {r} only, the one that holds the followed request {fid}'s KV at the end (each of the {n} replicas has its own pool; block [11] gives every replica's KV peak and prefix hits):",
    "b6.limitation_lab": "Limitation: this run has the prefix cache off (PREFIX_CACHE=off) and never runs out of blocks, so no block is shared and no sequence is preempted; the lab simulates both (PREFIX_CACHE=on, a smaller POOL_BLOCKS).",
    "lim.more_overtakes": "… and {n:pl more overtake}: `--json` (blocks[2].data.overtakes) and the step view have each.",
    "lim.more_kv_waits": "… and {n:pl more wait for KV blocks}: `--json` (blocks[2].data.kv_waits) and the step view have each.",
    "lim.more_preemptions": "… and {n:pl more preemption}: `--json` (blocks[5].data.preemptions) and the step view have each.",
    "b10.roof_pool_cluster": "The lab's pool: POOL_BLOCKS = {cfg[POOL_BLOCKS]} blocks on each replica. POOL_BLOCKS=auto takes min(vLLM's blocks above, min({n} requests, SLOTS {cfg[SLOTS]}) x ⌈MAX_CONTEXT ÷ BLOCK_SIZE⌉ = {cap}): one replica never runs more than SLOTS sequences at once, so a bigger pool runs the same.",
    "b11.step_replica": "step {i:>2} [r{st[replica]}]: {dur:>5} µs | waiting={st[waiting]} running={st[running]} decode={st[decode]} prefill={st[prefill]} | KV {st[kv_used]}/{cfg[POOL_BLOCKS]} ({pct:.0f}%){mark}",
    "b11.breakdown_replica": "TTFT breakdown (simulated µs) on the replica that prefilled the request: input preparation + waiting to be scheduled + prefill = TTFT",
    "b11.on_replica": " | replica {r}",
    "b11.on_replicas": " | prefill replica {m[prefill_replica]} → decode replica {m[decode_replica]}",
    "b11.limitation_n": "Limitation: only {n:pl request} are served, so every percentile rests on at most {n} samples (a p99 of fewer than 100 samples is simply the largest value); a trustworthy p95/p99 needs thousands of samples.",
    "b11.limitation_many": "Limitation: the percentiles rest on {n} served requests of one run of one trace on a simulated clock; a real benchmark warms up, repeats runs and reports how much they vary.",
    "b12.conclusion_n": "Conclusion: these differences follow from an assumed cost model over {n:pl request}, NOT from real GPU speed; another trace or other COST_* can change the ranking.",
    "summary.tokens_replayed": "2. Storing KV in blocks does not change the logits (the cache matched a recompute, block [5]); block [12] replays the other policies with this run's tokens, so here it compares no tokens across policies; scheduling changes only time and memory.",
    "b12.reading_disagg": "Reading: with disaggregation the decodes run on their own replica, where no prompt chunk shares their steps, so the last column is not a prompt's stall and chunking trades nothing against it; compare the TTFT columns.",
}
