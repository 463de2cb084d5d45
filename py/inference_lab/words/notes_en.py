"""The notes beside the seed's lines, in English: where a line the seed prints is false or incomplete for
this run, text_notes.py picks one of these and the page (and the CLI, on stderr) shows it after the block.

Same keys in notes_vi.py and notes_en.py (tests/test_text.py checks); text_en.py adds them to its table.
Leaves out: when a note is said (text_notes.py) and the seed's own lines (text_en.py).
"""
from __future__ import annotations

SAY = {
    "note.mark": "Note: ",
    "note.request_count": "this trace has {n:pl request}; \"5 requests\" in the INPUT line is the original program's fixed phrase.",
    "note.served_count": "this run serves {n:pl request}; the 3 in this block is the original program's fixed phrase.",
    "note.vllm_config": "vLLM's names: SLOTS is max_num_seqs (sequences running at once), TOKEN_BUDGET is max_num_batched_tokens "
                        "(tokens per step), BLOCK_SIZE is --block-size, POOL_BLOCKS is num_gpu_blocks (vLLM computes it from "
                        "gpu_memory_utilization, see block [10]); QUEUE_LIMIT and the 429 belong to the gateway in front of the engine.",
    "note.diagram": "this page does not have the Tab 01 diagram (it is on the original lesson page); [n · Name] is the name of a cell of "
                    "that diagram, and the page's mapping table says where each block lives in the code.",
    "note.cancel": "this lab DOES simulate request cancellation when a request has cancel_at (like vLLM's abort path); no request of this trace is cancelled.",
    "note.greedy": "{fid} is greedy (temperature 0): its logits are not divided by a temperature and nothing is drawn at random; the token is the argmax of the logits, ID {d[token]} = '{d[token_text]}', and the probabilities above are the softmax of the logits as they are.",
    "note.heads": "attention weights depend on Q and K only (softmax of Q·Kᵀ; V is mixed in after): here (MHA) each head has its own "
                  "W_Q and W_K, so its own Q and K and its own row; under GQA, heads that share one K still give different rows because their Q differs.",
    "note.pool_limits": "this lab DOES simulate the prefix cache with reference counts (PREFIX_CACHE=on) and recompute preemption when "
                        "blocks run out; this run has the prefix cache off and never runs out of blocks.",
    "note.recompute": "the K/V recomputed after a preemption match the old ones because the lab computes in NumPy float64; on GPUs a "
                      "different batch changes the kernels and the order of sums, so K/V and greedy tokens can differ (batch invariance).",
    "note.vllm_memory_auto": "vLLM is not given a number of blocks: it takes gpu_memory_utilization (0.9 by default) x HBM, subtracts the weights and the working memory measured at start-up, and divides the rest by the bytes of one block (--block-size tokens) to get num_gpu_blocks; this run's POOL_BLOCKS = {n} is what POOL_BLOCKS=auto gives: the same sum from the datasheets (block [10]), capped at what this trace can hold at once.",
    "note.vllm_memory": "vLLM is not given a number of blocks: it takes gpu_memory_utilization (0.9 by default) x HBM, subtracts the "
                        "weights and the working memory measured at start-up, and divides the rest by the bytes of one block "
                        "(--block-size tokens) to get num_gpu_blocks; the lab's POOL_BLOCKS sets that number directly.",
    "note.vllm_metrics": "vLLM's metric names: waiting= is vllm:num_requests_waiting, running= is vllm:num_requests_running, KV x/y (%) is "
                         "vllm:kv_cache_usage_perc, the preemption count is vllm:num_preemptions; TTFT and ITL are the histograms "
                         "vllm:time_to_first_token_seconds and vllm:inter_token_latency_seconds.",
    "note.wait_steps": "{id} got no token in step(s) {steps} with no slot missing",
    "note.wait_budget": "'waiting for a slot' is here a wait to be scheduled: {who}; that is a turn in the per-step token budget "
                        "(TOKEN_BUDGET, vLLM's max_num_batched_tokens).",
    "note.itl": "the largest gap between two consecutive tokens (the last column, the 'stall' of the Reading line) is the largest ITL; "
                "ITL (inter-token latency) is this metric's name in model serving, like vLLM's vllm:inter_token_latency_seconds.",
    "note.batch_invariance": "'the same tokens' holds here because the lab computes in NumPy float64; on GPUs the batch shape changes "
                             "the kernels and the order of sums, so the same greedy prompt can give other tokens under another schedule "
                             "(batch invariance).",
    "note.mixed_step": "the seed's clock charges a mixed decode + prefill step (step {steps}) both COST_PREFILL_FIXED {pre} µs and "
                       "COST_DECODE_FIXED {dec} µs, as if it read the weights twice; a GPU runs one forward pass per step, so "
                       "continuous + chunked is overcharged here and can lose to static (--clock roofline charges each step once).",
}
