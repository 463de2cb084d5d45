"""The lab's own sentences where the seed's would be false, in English: said in every run that is not seed-identical
(limits.seed_identical), in the place of a seed line and its note (text_notes.py): each carries the fact its note
gives beside a seed-identical run, as a sentence of its block.

Same keys in own_vi.py and own_en.py (tests/test_text.py checks); text_en.py adds them to its table.
Leaves out: when a sentence is said (text.py, text_compute.py, text_intake.py, text_measure.py).
"""
from __future__ import annotations

SAY = {
    "header.how_to_read_lab": "HOW TO READ: each block [n · Name] is one stage of the serving pipeline (the page's mapping table says where each lives in the code). Read the Observation, look at the numbers, then state the Conclusion yourself.",
    "header.vllm_names": "VLLM NAMES: SLOTS is max_num_seqs (sequences running at once), TOKEN_BUDGET is max_num_batched_tokens (tokens per step), BLOCK_SIZE is --block-size, POOL_BLOCKS is num_gpu_blocks (vLLM computes it from gpu_memory_utilization, see block [10]); QUEUE_LIMIT and the 429 belong to the gateway in front of the engine.",
    "b3.follow_wait_lab": "{fid}: ready at {f[ready]:ms}, but its first step starts at {f[start]:ms} -> waited {f[queue]:ms} to be scheduled{why}.",
    "b3.follow_wait_lab_fine": "{fid}: ready at {f[ready]:ms3}, but its first step starts at {f[start]:ms3} -> waited {f[queue]:ms3} to be scheduled{why}.",
    "b3.why_slot": " (for a free slot)",
    "b3.why_step_end": " (for the step in progress to end: a request joins the batch at a step boundary)",
    "b3.why_kv": " (sent back to the queue for lack of KV blocks, see below)",
    "b3.why_budget": ": in step(s) {steps} it got no share of the per-step token budget (TOKEN_BUDGET, vLLM's max_num_batched_tokens) although no running slot was missing",
    "b5.how_to_read_lab": "How to read it: the two heads give different distributions because their Q and K projections (W_Q, W_K) differ (under GQA, heads sharing one K/V still differ because their Q differs); head 0 looks most at position {d[argmax][0]}, head 1 looks most at position {d[argmax][1]}.",
    "b5.check_all_n": "Numerical check: logits through the KV cache match recomputing the whole sequence at EVERY step (prefill + decode, all {n:pl served request}), {parity}",
    "b6.recompute": "The K/V recomputed after a preemption match the old ones because the lab computes in NumPy float64; on GPUs a different batch changes the kernels and the order of sums, so K/V and greedy tokens can differ (batch invariance).",
    "b7.positions_all_n": "Positions fed through the model (all {n:pl served request}): {counts}",
    "b10.vllm_memory": "vLLM is not given a number of blocks: it takes gpu_memory_utilization (0.9 by default) x HBM, subtracts the weights and the working memory measured at start-up, and divides the rest by the bytes of one block (--block-size tokens) to get num_gpu_blocks; POOL_BLOCKS is the lab's num_gpu_blocks.",
    "b11.breakdown_lab": "TTFT breakdown (simulated µs): input preparation + waiting to be scheduled (for a slot, KV blocks or a share of the token budget) + prefill = TTFT",
    "b11.queue_lab": "waiting to be scheduled",
    "b11.wait_budget": "Waiting to be scheduled is not only waiting for a slot: {who}; that is a wait for a turn in the per-step token budget (TOKEN_BUDGET, vLLM's max_num_batched_tokens).",
    "b11.vllm_metrics": "vLLM's metric names: waiting= is vllm:num_requests_waiting, running= is vllm:num_requests_running, KV x/y (%) is vllm:kv_cache_usage_perc, the preemption count is vllm:num_preemptions; TTFT and ITL are the histograms vllm:time_to_first_token_seconds and vllm:inter_token_latency_seconds.",
    "b12.legend_lab": "Each line: run time | throughput | mean / max TTFT | mean TPOT | largest ITL (inter-token latency: the largest gap between two consecutive tokens of one request, vLLM's vllm:inter_token_latency_seconds)",
    "b12.batch_invariance_greedy": "The greedy requests' same tokens under every policy hold here because the lab computes in NumPy float64; on GPUs the batch shape changes the kernels and the order of sums, so the same greedy prompt can give other tokens under another schedule (batch invariance).",
    "b12.batch_invariance": "The same tokens under every policy hold here because the lab computes in NumPy float64; on GPUs the batch shape changes the kernels and the order of sums, so the same greedy prompt can give other tokens under another schedule (batch invariance).",
    "b12.batch_invariance_replayed": "Here the other policies reuse this run's tokens, so their tokens cannot differ; on GPUs the batch shape changes the kernels and the order of sums, so the same greedy prompt can give other tokens under another schedule (batch invariance).",
    "b12.mixed_step": "The seed clock charges a mixed decode + prefill step (step {steps}) both COST_PREFILL_FIXED {pre} µs and COST_DECODE_FIXED {dec} µs, as if it read the weights twice; a real GPU runs one forward pass per step and reads the weights once, so here continuous + chunked is charged more than it would cost and can lose to static (--clock roofline charges each step once).",
    "summary.followed_lab": "1. Request {fl[id]} went through the 13 blocks; TTFT {fm[ttft]:ms} = preparation {fm[prep]:ms} + waiting to be scheduled {fm[queue]:ms} + prefill {fm[prefill]:ms}.",
    "summary.tokens_lab": "2. Changing the scheduling or storing KV in blocks does not change the generated tokens here (tokens and logits compared, in NumPy float64; on GPUs batch shapes can change them: batch invariance); they only change time and memory.",
    "summary.pass_replayed": "PASS: the miniature LLM serving pipeline runs correctly (cache matches recompute, all blocks returned; the other policies replayed this run's tokens, block [12]).",
    "later.b6": "Whether the replays under the other policies ({runs}) ran out of blocks or preempted: the page has not computed it for this big run; press “Compute the comparison” to compute it (the command line always does).",
    "later.b11": "The TTFT the prefix cache saves (against the replay without it): the page has not computed it for this big run; press “Compute the comparison” to compute it (the command line always does).",
    "later.b12": "This block compares the main run with its replays under other policies ({runs}); for this big run the page has not computed them yet: press “Compute the comparison” to compute them; the command line always does.",
    "later.checks": "WAITING: {n:pl check} need the replays of blocks [11]/[12] and have not run ({labels}); press “Compute the comparison” to run them.",
}
