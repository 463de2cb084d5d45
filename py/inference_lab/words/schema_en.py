"""The constants' and the request columns' words in English (`--lang en`, `?lang=en`): schema_vi.py's keys.

Leaves out: names, defaults and bounds (the schema), which problem is found when (config.py).
"""
from __future__ import annotations

FIELDS = {
    'SLOTS': ('Running slots (SLOTS)',
         'How many sequences run together in one step.'),
    'QUEUE_LIMIT': ('Waiting places (QUEUE_LIMIT)',
         'How many requests may wait in the queue beyond SLOTS; when full the gateway returns 429.'),
    'TOKEN_BUDGET': ('Token budget per step (TOKEN_BUDGET)',
         'Most tokens processed in one step; long prompts are split into chunks (chunked prefill).'),
    'BLOCK_SIZE': ('Tokens per KV block (BLOCK_SIZE)',
         'Tokens in one block of the paged KV cache.'),
    'POOL_BLOCKS': ('Physical KV blocks (POOL_BLOCKS)',
         'Physical blocks in the simulated KV pool ("HBM"); when they run out the engine must preempt. auto = sized '
         "as vLLM does from the GPU's HBM and SHADOW_MODEL (the default under CLOCK = roofline; see block 10)."),
    'QUANT_BITS': ('Quantization bits (QUANT_BITS)',
         'Bit width of the symmetric weight quantization (8 = INT8; try 4).'),
    'FOLLOW': ('Followed request (FOLLOW)',
         'The request followed in detail through every block.'),
    'REQUESTS': ('Requests (REQUESTS)',
         'The request trace: arrival time, text, generation limit, sampling settings, own seed.'),
    'MAX_CONTEXT': ('Max context (MAX_CONTEXT)',
         'Most tokens in one sequence (prompt + generated); beyond it the request gets 400. Under CLOCK = roofline '
         "at most SHADOW_MODEL's context (Llama 3.1: 131072, Mistral-7B-v0.3: 32768, Llama-2-7B: 4096). auto "
         "(the default): the seed's 24; with WORKLOAD_TRACE the window's longest request, within SHADOW_MODEL's "
         "context (roofline) and the tokens the KV pool holds."),
    'TTFT_SLO': ('Assumed TTFT target (TTFT_SLO, µs)',
         'An ASSUMED TTFT target to illustrate the warning (simulated µs). Under CLOCK = roofline the default '
         "is 250 ms, DistServe's chatbot SLO (OSDI 2024)."),
    'QUALITY_GATE': ('Quality gate threshold (QUALITY_GATE)',
         'Share of top-1 decisions that must stay the same after quantization (0..1).'),
    'SEED': ('Weight seed (SEED)',
         'Seed of the random model weights.'),
    'N_MERGES': ('BPE merges (N_MERGES)',
         'BPE merges learned from the 5 sample sentences; fewer merges make prompts longer.'),
    'COST_GATEWAY': ('Gateway cost (COST_GATEWAY, µs)',
         'Gateway: authentication + quota check (simulated µs, assumed).'),
    'COST_TOKENIZE_PER_TOKEN': ('Tokenize cost per token (COST_TOKENIZE_PER_TOKEN, µs)',
         'CPU input preparation, per prompt token.'),
    'COST_DECODE_FIXED': ('Fixed cost of a decode step (COST_DECODE_FIXED, µs)',
         'Reading the weights once for the whole decode step (bandwidth-bound).'),
    'COST_DECODE_PER_SEQ': ('Decode cost per sequence (COST_DECODE_PER_SEQ, µs)',
         'Added for each sequence decoding in the step.'),
    'COST_PREFILL_FIXED': ('Fixed cost of a prefill step (COST_PREFILL_FIXED, µs)',
         'Fixed cost when the step has prefill.'),
    'COST_PREFILL_PER_TOKEN': ('Prefill cost per token (COST_PREFILL_PER_TOKEN, µs)',
         'Prefill computes many tokens at once (compute-bound).'),
    'PREFIX_CACHE': ('Automatic prefix caching (PREFIX_CACHE)',
         'on = keep the full KV blocks of prompts already computed (hashed by their tokens, chained to the parent '
         "block) so a later request with the same prompt prefix reuses them instead of recomputing, like vLLM's "
         'Automatic Prefix Caching; off = as in the seed.'),
    'SCHED_POLICY': ('Scheduling policy (SCHED_POLICY)',
         'fcfs = first come, first served (as in the seed); priority = the waiting queue is ordered by (priority, '
         'arrival), lower numbers first, and when KV blocks run out the sequence with the largest (priority, '
         'arrival) is preempted, like vLLM.'),
    'BYTE_FALLBACK': ('Tokenizer byte fallback (BYTE_FALLBACK)',
         'on = a character the tokenizer never saw (an accented letter such as U+00E0, a with a grave accent) '
         "becomes UTF-8 byte tokens <0xC3> <0xA0>, as SentencePiece's byte fallback and byte-level BPE (GPT-2, Llama "
         '3) do: the request is served, it only costs more tokens; the vocabulary gains 256 byte tokens. off = as in '
         'the seed: unknown characters are refused with 400.'),
    'CLOCK': ('Simulated clock (CLOCK)',
         "seed = time from the seed's assumed COST_* constants (as in the seed); roofline = every step takes the "
         "time the named GPU needs for it with SHADOW_MODEL's shapes: max(FLOPs ÷ achievable FLOP/s, bytes ÷ "
         'achievable bandwidth) + STEP_OVERHEAD.'),
    'GPU': ('GPU (GPU)',
         'The GPU the roofline clock charges: dense peak FLOP/s (no sparsity), HBM bandwidth and capacity from its '
         'datasheet.'),
    'SHADOW_MODEL': ('Shadow model (SHADOW_MODEL)',
         "The model whose shapes the clock charges; the lab's small NumPy model still computes every token. lab = "
         "the lab's own small model."),
    'WEIGHT_BITS': ('Serving weight bits (WEIGHT_BITS)',
         'The weight width the roofline clock charges (16 = bf16, 8 = FP8/INT8, 4); not QUANT_BITS, which is block '
         "9's quantization experiment on the lab's own weights."),
    'KV_BITS': ('KV cache bits (KV_BITS)',
         'The K/V width in the KV cache: 16 = bf16 (the lab keeps float64); 8 = FP8 E4M3 with per-head scales (as '
         "vLLM's --kv-cache-dtype fp8): the lab's own cache stores K and V rounded to FP8 under either clock, and "
         'blocks 9 and 13 report the error and the flipped decisions; the roofline clock also counts 1 byte per '
         'value. The seed program has no quantized cache, so KV_BITS = 8 always gets the lab\'s own words.'),
    'ACT_BITS': ('Activation bits (ACT_BITS)',
         'The precision GEMMs and attention compute at: 16 = bf16 (also when WEIGHT_BITS is 8 or 4: weight-only '
         'quantization such as GPTQ/AWQ reads fewer bytes but still multiplies at the 16-bit peak); 8 = W8A8 (FP8), '
         'which uses the 8-bit peak and needs WEIGHT_BITS 8 or 4.'),
    'TENSOR_PARALLEL': ('Tensor-parallel GPUs (TENSOR_PARALLEL)',
         "How many GPUs of the chosen kind split one model (1, 2, 4, 8; like vLLM's --tensor-parallel-size): each "
         'holds 1/TP of the weights and KV heads, and every layer sums its results twice over NVLink/PCIe '
         '(all-reduce), time added to each step. A replica (REPLICAS) is one TP group: GPUs = REPLICAS × '
         'TENSOR_PARALLEL.'),
    'GPU_MEMORY_UTILIZATION': ('Share of GPU memory the engine may use (GPU_MEMORY_UTILIZATION)',
         "The share of the GPU's memory the engine may use for weights, the activation workspace and the KV cache, "
         "like vLLM's --gpu-memory-utilization (default 0.9); POOL_BLOCKS = auto gives the rest to KV."),
    'ENGINE_PROFILE': ('Engine profile (ENGINE_PROFILE)',
         'The engine the roofline clock stands for: each profile sets FLOPS_FRACTION and BANDWIDTH_FRACTION per '
         'precision and STEP_OVERHEAD from published measurements (ideal = the datasheet roofs, no overhead); a '
         'value you type into those three still wins.'),
    'FLOPS_FRACTION': ('Achievable share of FLOP/s (FLOPS_FRACTION)',
         'The share of peak FLOP/s real GEMMs reach (MFU); auto = from ENGINE_PROFILE (vllm at 16 bits: 0.6).'),
    'BANDWIDTH_FRACTION': ('Achievable share of bandwidth (BANDWIDTH_FRACTION)',
         'The share of HBM bandwidth real kernels reach (MBU); auto = from ENGINE_PROFILE (vllm at 16 bits: 0.8).'),
    'STEP_OVERHEAD': ('Fixed cost per step (STEP_OVERHEAD, µs)',
         'Fixed time of every step under CLOCK = roofline: CPU scheduling, kernel launches, sampling; auto = from '
         'ENGINE_PROFILE (vllm: 100).'),
    'GPU_PRICE_PER_HOUR': ('Price per GPU-hour (GPU_PRICE_PER_HOUR, US$)',
         "What one GPU costs per hour, for the cost lines under CLOCK = roofline (US$ per million tokens); auto = "
         "the chosen GPU's list price (README: source and date read). GPUs = REPLICAS × TENSOR_PARALLEL."),
    'SPEC_METHOD': ('Speculative decoding (SPEC_METHOD)',
         'off = one token per step (as in the seed); ngram = propose tokens by finding the last n tokens earlier in '
         "the sequence itself (vLLM's prompt lookup); draft = a cheaper draft model (the lab's own model with its "
         'weights quantized to QUANT_BITS bits) proposes K tokens. The target model checks all K in one pass; the '
         'acceptance rule keeps the output distribution unchanged.'),
    'SPEC_TOKENS': ('Proposed tokens per step (SPEC_TOKENS, K)',
         'K: the most tokens the proposer offers per sequence in one step (cut near max_new, MAX_CONTEXT and when '
         'the token budget has less than K + 1 room).'),
    'WORKLOAD_REQUESTS': ('Generated requests (WORKLOAD_REQUESTS)',
         '0 = use the REQUESTS trace; N > 0 = the engine plays N generated requests R1 … RN instead of REQUESTS '
         '(greedy, seed WORKLOAD_SEED + i), every prompt exactly WORKLOAD_PROMPT tokens.'),
    'WORKLOAD_PROMPT': ('Tokens per generated prompt (WORKLOAD_PROMPT)',
         "Every generated prompt's length in the tokenizer's tokens (<bos> included)."),
    'WORKLOAD_OUTPUT': ('Output tokens per generated request (WORKLOAD_OUTPUT)',
         'max_new of every generated request (EOS may still stop it earlier, unless IGNORE_EOS = on).'),
    'IGNORE_EOS': ('Ignore EOS (IGNORE_EOS)',
         "on = do not stop at <eos>: every request generates its full max_new tokens, like the ignore_eos vLLM's "
         'benchmarks use to measure a fixed output length; off = as in the seed: <eos> ends the request.'),
    'WORKLOAD_RATE': ('Arrival rate (WORKLOAD_RATE, requests/s)',
         'Requests per simulated second, arriving as a Poisson process (R1 at 0); 0 = all at once.'),
    'WORKLOAD_SEED': ('Workload seed (WORKLOAD_SEED)',
         'Seed of the texts, arrivals and prefixes; request i samples with seed WORKLOAD_SEED + i.'),
    'WORKLOAD_PREFIXES': ('Shared prefixes (WORKLOAD_PREFIXES)',
         'Distinct shared prefixes (like system prompts); request i starts with prefix i mod WORKLOAD_PREFIXES; 0 = '
         'none.'),
    'WORKLOAD_SHARED': ('Tokens per shared prefix (WORKLOAD_SHARED)',
         'Tokens of each shared prefix (<bos> included), counted inside WORKLOAD_PROMPT.'),
    'WORKLOAD_TRACE': ('Recorded traffic (WORKLOAD_TRACE)',
         'off = the generated workload; azure-conv / azure-code = a sample of the first 1,000 requests of the Azure '
         'LLM inference trace 2023 (conversation / code service, CC-BY 4.0): real arrival times, prompt and output '
         'lengths. The command line also takes a file FILE.csv. Needs WORKLOAD_REQUESTS > 0 (the first N requests '
         'of the window).'),
    'WORKLOAD_TRACE_START': ('Trace window start (WORKLOAD_TRACE_START, s)',
         'The window starts this many seconds after the trace\'s first request.'),
    'WORKLOAD_TRACE_DURATION': ('Trace window length (WORKLOAD_TRACE_DURATION, s)',
         'The window\'s length in seconds; 0 = to the end of the trace.'),
    'WORKLOAD_TIME_SCALE': ('Trace time scale (WORKLOAD_TIME_SCALE)',
         'Divides every gap between arrivals: 2 = the same requests replayed at twice the rate.'),
    'REPLICAS': ('Engine replicas (REPLICAS)',
         'Engines running side by side behind one router, each with its own SLOTS, QUEUE_LIMIT, POOL_BLOCKS KV pool '
         'and scheduler; 1 = one engine as in the seed.'),
    'ROUTER': ('Router policy (ROUTER)',
         'round_robin = each replica in turn; least_loaded = the replica with the fewest tokens still to compute; '
         "prefix_aware = score 3 × (share of the prompt's blocks already on that replica) − 2 × (relative load), "
         "llm-d's default weights."),
    'DISAGG': ('Prefill/decode disaggregation (DISAGG)',
         "on = the first PREFILL_REPLICAS replicas only prefill, the others only decode; each request's KV is "
         "shipped over a KV_LINK_GBPS link (as vLLM's disaggregated prefill, DistServe); off = as in the seed."),
    'PREFILL_REPLICAS': ('Prefill replicas (PREFILL_REPLICAS)',
         'With DISAGG = on: how many replicas prefill, 1 to REPLICAS − 1; the others decode.'),
    'KV_LINK_GBPS': ('KV link bandwidth (KV_LINK_GBPS, GB/s)',
         'Gigabytes per second between a prefill and a decode replica; 50 GB/s = one 400 Gb/s InfiniBand NDR port.'),
    'KV_LINK_LATENCY_US': ('KV link latency (KV_LINK_LATENCY_US, µs)',
         'Fixed time of every KV transfer (handshake, RDMA setup); assumed.'),
    'TPOT_SLO': ('Assumed TPOT target (TPOT_SLO, µs)',
         'An ASSUMED target for the mean time between tokens; goodput counts the requests that meet both TTFT_SLO '
         'and TPOT_SLO.'),
}
COLUMNS = {
    'id': ('ID',
         'Short name of the request (letters/digits, at most 8 characters, unique).'),
    'arrival': ('Arrives (µs)',
         'Arrival time on the simulated clock (µs).'),
    'text': ('Text',
         'The prompt; characters the tokenizer does not know are rejected with 400 (BYTE_FALLBACK = on: they become '
         'byte tokens).'),
    'max_new': ('max_new',
         'Most tokens to generate.'),
    'temperature': ('T',
         'Temperature; 0 = greedy.'),
    'top_k': ('top_k',
         'Keep the k most likely tokens; 0 = off.'),
    'top_p': ('top_p',
         'Keep the smallest set of tokens whose probabilities add up to top_p (0 < top_p <= 1).'),
    'seed': ('seed',
         "The request's own seed (repeatable sampling)."),
    'priority': ('priority',
         'Priority when SCHED_POLICY = priority: lower numbers run first, negative ones too (as in vLLM); empty = 0.'),
    'cancel_at': ('Cancel at (µs)',
         'The client cancels the request at this time (simulated µs); the engine drops it at the first step boundary '
         'from then on; empty = never cancelled.'),
}

DIGITS = "digits"
PROBLEMS = {
    # ── the mapping itself ────────────────────────────────────────────────
    "bad_json": "The config is not valid JSON ({detail}).",
    "not_a_mapping": "The config must be a NAME → value mapping.",
    "unknown_constant": "There is no constant named {name}.",
    # ── one value ─────────────────────────────────────────────────────────
    "not_an_integer": "{name} must be an integer (got {got!r}).",
    "not_a_number": "{name} must be a number (got {got!r}).",
    "out_of_range": "{name} must be in the range {lo}..{hi} (got {got}).",
    "not_one_of": "{name} must be one of: {allowed} (got {got!r}).",
    "not_in_trace": "{name} must be the ID of a request in the trace ({ids}); got {got!r}.",
    # ── the request trace ─────────────────────────────────────────────────
    "requests_not_a_list": "REQUESTS must be a list of requests.",
    "requests_count": "REQUESTS must hold 1 to {limit} requests (got {got}).",
    "duplicate_ids": "Duplicate request IDs: {ids}.",
    "request_not_a_mapping": "Request {n} must be a key → value mapping.",
    "missing_keys": "Request {n} lacks keys: {keys}.",
    "unknown_keys": "Request {n} has unknown keys: {keys}.",
    "in_request": "Request {n}: {problem}",
    "not_a_string": "{name} must be a string.",
    "bad_id": "id must be 1..8 letters or digits (ASCII).",
    "empty_text": "text must not be empty.",
    "text_too_long": "text is at most {limit} characters long (got {got}).",
    # ── constants that must agree ─────────────────────────────────────────
    "costs_both_zero": "{fixed} and {per} must not both be 0: every step must take simulated time.",
    "weights_do_not_fit": "{model} at {bits} bits needs {need:.1f} GB for its weights, but {gpu} has only {have:.1f} GB "
                          "of HBM ({usable:.1f} GB usable after GPU_MEMORY_UTILIZATION {utilization:g} and the "
                          "activation reserve): change SHADOW_MODEL, GPU, WEIGHT_BITS or GPU_MEMORY_UTILIZATION.",
    "weights_need_tp": "{model} at {bits} bits needs {need:.1f} GB for its weights, but one {gpu} has {have:.1f} GB of "
                       "HBM, only {usable:.1f} GB usable (after GPU_MEMORY_UTILIZATION {utilization:g} and the activation reserve): "
                       "it needs TENSOR_PARALLEL ≥ {tp} (the weights split over {tp} GPUs, {share:.1f} GB each), or "
                       "change SHADOW_MODEL, GPU or WEIGHT_BITS.",
    "weights_do_not_fit_tp": "{model} at {bits} bits split over {tp} GPUs still needs {share:.1f} GB of weights per "
                             "GPU, but each {gpu} can use only {usable:.1f} GB (after GPU_MEMORY_UTILIZATION "
                             "{utilization:g} and the activation reserve): raise TENSOR_PARALLEL{more}, or change "
                             "GPU or WEIGHT_BITS.",
    "tp_heads": "{model} has {heads} attention heads and {kv} KV heads: TENSOR_PARALLEL = {tp} does not split them "
                "evenly (vLLM needs the heads divisible by the GPUs); choose TENSOR_PARALLEL among {ok}.",
    "context_exceeds_model": "MAX_CONTEXT ({got}) exceeds {model}'s context ({limit} tokens, max_position_embeddings "
                             "in its config.json): set MAX_CONTEXT <= {limit} or change SHADOW_MODEL.",
    "act_bits_needs_low_weights": "ACT_BITS = 8 (W8A8, FP8) needs 8- or 4-bit weights: set WEIGHT_BITS = 8 (FP8 W8A8 = "
                                  "WEIGHT_BITS 8 and ACT_BITS 8) or keep ACT_BITS = 16.",
    "shared_exceeds_prompt": "WORKLOAD_SHARED ({shared}) must not exceed WORKLOAD_PROMPT ({prompt}): the shared prefix "
                             "is part of the prompt.",
    "prompt_unreachable": "With N_MERGES = {merges} no word is one token long, so no prompt of exactly {prompt} tokens "
                          "can be made: change WORKLOAD_PROMPT, WORKLOAD_SHARED or set N_MERGES >= 3.",
    "shared_prompt_unreachable": "With N_MERGES = {merges} no word is one token long, so no prompt of exactly {prompt} "
                                 "tokens (shared prefix {shared}) can be made: change WORKLOAD_PROMPT, WORKLOAD_SHARED "
                                 "or set N_MERGES >= 3.",
    "trace_needs_requests": "WORKLOAD_TRACE = {trace} needs WORKLOAD_REQUESTS > 0: how many requests to take from the "
                            "start of the trace's window.",
    "trace_unreadable": "The trace cannot be read: {why}.",
    "trace_window_empty": "The window from second {start:g} ({duration:g} s long; 0 = to the end) holds no request "
                          "of the trace (its last at {length:.1f} s): change WORKLOAD_TRACE_START or "
                          "WORKLOAD_TRACE_DURATION.",
    "trace_prompt_unreachable": "With N_MERGES = {merges} no word is one token long, so the trace's prompt of exactly "
                                "{prompt} tokens cannot be made: set N_MERGES >= 3.",
    "disagg_needs_two": "DISAGG = on needs at least 2 replicas (one prefill, one decode); REPLICAS = {replicas}.",
    "prefill_replicas": "PREFILL_REPLICAS must be in the range 1..{top} (REPLICAS − 1, leaving a decode replica); "
                        "got {got}.",
}
