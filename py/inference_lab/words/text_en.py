"""Every sentence the lab prints, in English: the sibling of text_vi.py, with the same keys.

text.py fills these templates exactly as it fills the Vietnamese ones, so every line prints the
same numbers, in the same order, as the Vietnamese line in the same place (tests/test_english.py
compares them for every golden configuration): the two editions state the same facts in other
words. English plurals use the `{n:pl token}` spec ("1 token", "2 tokens").

The wording follows the vocabulary of the vLLM and SGLang docs (admission, waiting queue,
chunked prefill, block table, preemption by recompute, TTFT/TPOT/ITL).

Leaves out: which sentence is said when, and every number (text.py decides, lab.py computes).
"""
from __future__ import annotations

from functools import partial

from . import cluster_en, notes_en, own_en, spec_en, text
from .text import BLOCK_CODES, Context  # noqa: F401  (the same names as text_vi.py)

CHECK_LABELS = {
    "offered": "offered = served + rejected",
    "parity": "logits through the KV cache match a full recompute (<= 1e-9)",
    "gather": "K/V gathered from blocks match a recompute (<= 1e-9)",
    "blocks_returned": "every KV block is returned",
    "same_tokens": "same tokens under all 3 scheduling policies",
    "positions": "the cache never computes more positions than recomputing",
    "tokens_counted": "token total matches the tokens generated",
    "quantization_error": "reconstruction error <= half a scale",
    "probabilities": "probabilities before and after filtering sum to 1",
    "attention": "every attention row sums to 1",
    "pool_invariants": "block reference counts never negative, blocks conserved, no block both free and owned",
    "spec_greedy_text": "speculative decoding keeps greedy tokens unchanged",
    "spec_distribution": "speculative decoding's acceptance rule keeps the target model's distribution",
    "prefix_cache_same_text": "turning the prefix cache on does not change the generated tokens",
    "one_replica": "every request went to exactly one replica (or one prefill + one decode)",
    "replica_pools": "every replica's KV pool is returned and keeps its invariants",
    "kv_shipped": "KV bytes shipped = KV bytes received",
}

# The public vLLM documents each simulated behaviour follows (named in the text and on the page).
VLLM_DOCS = {
    "prefix_cache": "vLLM's design document \"Automatic Prefix Caching\"",
    "abort": "vLLM's request abort path (finish_requests, status FINISHED_ABORTED)",
    "priority": "vLLM's \"priority\" scheduling policy (SchedulerConfig.policy)",
    "spec": "vLLM's vllm/v1/spec_decode (NgramProposer) and RejectionSampler; Leviathan et al. 2023, Chen et al. 2023",
}

POLICY_NAMES = {"static": "static (waits for a full batch)", "nochunk": "continuous, no prompt chunking"}

TRACE = dict(process="Inference Lab (simulated clock, µs)", request="request {id}", arrive="arrive",
             ready="ready", first="first token", finish="finish", abort="cancelled", reject="rejected {code}")

SAY = {
    # ── why a request was refused, and the followed request's fate ─────────
    "why.gateway": "{f[in_system]:pl request} in the system, {state} {f[slots]}+{f[queue_limit]}",
    "why.at_limit": "at the limit",
    "why.below_limit": "below the limit",
    "why.pool": "prompt {f[prompt]:pl token} + max_new {f[max_new]} needs {f[blocks]:pl KV block} "
                "({positions} positions, {f[block_size]} tokens per block) > POOL_BLOCKS {f[pool_blocks]}: it can never fit in the KV pool",
    "why.context": "prompt {f[prompt]:pl token} + max_new {f[max_new]}{total} {sign} MAX_CONTEXT {f[max_context]}",
    "why.code_400": "code 400: ",
    "why.unknown_chars": "{code}the text has characters the tokenizer never saw: {chars} (the vocabulary is learned from 5 sample sentences only)",
    "why.unknown_pieces": "{code}BPE splits the text into pieces missing from the vocabulary: {pieces} "
                          "(intermediate pieces of a merge; the vocabulary is learned from 5 sample sentences only)",
    "refusal.cancelled": "The followed request {fl[id]} was CANCELLED at {f[time]:ms} {where} (the client cancelled at {f[cancel_at]:ms}), "
                         "after {f[generated]:pl token}",
    "refusal.running": "while running",
    "refusal.waiting": "while still waiting",
    "refusal.before_arrival": "before it even arrived, at the gateway",
    "refusal.rejected": "The followed request {fl[id]} was REJECTED {fl[code]} {where} ({why})",
    "refusal.gateway": "at the gateway",
    "refusal.input": "during input preparation",
    "follow.refused": "{refusal}, so this block has no numbers for {id}.",
    "follow.nobody": "No request was served: see why in blocks [1] and [2] (raise SLOTS, QUEUE_LIMIT, MAX_CONTEXT or POOL_BLOCKS) and run again.",
    "follow.pick": "To follow a request in detail, set FOLLOW (--follow) to a served request: {ids}.",
    # ── header ─────────────────────────────────────────────────────────────
    "header.greedy": "greedy",
    "header.sampling": "sampling T={r[temperature]} top_k={r[top_k]} top_p={r[top_p]}",
    "header.followed": "  <- followed request",
    "header.cancels": ", client cancels at {r[cancel_at]:ms}",
    "header.request": "  {r[id]}: arrives {r[arrival]:ms}, \"{r[text]}\", max_new={r[max_new]}, {mode}, seed {r[seed]}{extra}{mark}",
    "header.prefix_cache": "automatic prefix caching ON (PREFIX_CACHE=on, after {docs[prefix_cache]})",
    "header.priority": "priority scheduling (SCHED_POLICY=priority, after {docs[priority]})",
    "header.title": "=== END-TO-END LAB: ONE REQUEST THROUGH THE WHOLE LLM SERVING PIPELINE ===",
    "header.goal": "GOAL: follow one request with real numbers from the gateway to its stop, then read TTFT, TPOT and throughput.",
    "header.input": "INPUT: 5 requests reach one engine (arrival times on the simulated clock). You follow request {cfg[FOLLOW]} through every block.",
    "header.input_trace_to": "INPUT: {n} requests of a recorded trace (WORKLOAD_TRACE, WORKLOAD_REQUESTS) reach {dest} (arrival times on the simulated clock). You follow request {cfg[FOLLOW]} through every block.",
    "header.input_workload_to": "INPUT: {n} generated requests (WORKLOAD_REQUESTS) reach {dest} (arrival times on the simulated clock). You follow request {cfg[FOLLOW]} through every block.",
    "header.input_to": "INPUT: {n:pl request} reach {dest} (arrival times on the simulated clock). You follow request {cfg[FOLLOW]} through every block.",
    "header.one_engine": "one engine",
    "header.to_cluster": "a router (ROUTER={cfg[ROUTER]}) in front of {cfg[REPLICAS]} engine replicas",
    "header.cluster": "CLUSTER: {cfg[REPLICAS]} replicas behind the router, each with the CONFIG above of its own (its slots, waiting places and KV pool){roles}; block [1] says where each request went, blocks [6] and [10] show the followed request's replica.",
    "header.disagg": "; prefill/decode disaggregation (DISAGG=on): {cfg[PREFILL_REPLICAS]} prefill, {decode} decode, the KV shipped between them",
    "header.simulated": "Authentication is not simulated; {routing}; {cancel}.",
    "header.routing_simulated": "routing is (ROUTER={cfg[ROUTER]}, block [1])",
    "header.no_routing": "there is no router (one engine)",
    "header.cancel_used": "request cancellation is simulated, from the cancel_at column",
    "header.cancel_unused": "request cancellation is simulated (a request with cancel_at), but no request of this trace is cancelled",
    "header.workload": "  {first} … {last}: prompts of exactly {cfg[WORKLOAD_PROMPT]} tokens, max_new={cfg[WORKLOAD_OUTPUT]}, greedy, seed {cfg[WORKLOAD_SEED]} + i; {arrivals}{prefixes}",
    "header.workload_trace": "  {first} … {last}: arrival times, prompt and output lengths from the trace {cfg[WORKLOAD_TRACE]} (window from second {cfg[WORKLOAD_TRACE_START]:g}, rate ×{cfg[WORKLOAD_TIME_SCALE]:g}), the last at {last_arrival:ms}; greedy, seed {cfg[WORKLOAD_SEED]} + i",
    "header.trace_clipped": " (lengths clipped to fit MAX_CONTEXT {cfg[MAX_CONTEXT]} for {n} of the {of} requests: prompt at most {longest} tokens, output what is left; vLLM would refuse such a prompt with a 400, the lab keeps it so the arrivals stay the trace's)",
    "header.workload_at_once": "all arrive at 0.00 ms",
    "header.workload_poisson": "Poisson arrivals at {cfg[WORKLOAD_RATE]:g} requests/s, the last at {last_arrival:ms}",
    "header.workload_prefixes": "; {cfg[WORKLOAD_PREFIXES]} shared prefixes of {cfg[WORKLOAD_SHARED]} tokens (request i uses prefix i mod {cfg[WORKLOAD_PREFIXES]})",
    "header.config": "CONFIG: {cfg[SLOTS]:pl running slot} + {cfg[QUEUE_LIMIT]:pl waiting place}; at most {cfg[TOKEN_BUDGET]} tokens per step; "
                     "KV blocks of {cfg[BLOCK_SIZE]} tokens x {cfg[POOL_BLOCKS]} blocks; max context {cfg[MAX_CONTEXT]}{auto}.",
    # MAX_CONTEXT = auto with a recorded trace (core/inputs/context.py): what set the number, by `by`
    "header.context_auto.trace": " (auto: the window's longest request, prompt + output = {longest} tokens)",
    "header.context_auto.model": " (auto: {cfg[SHADOW_MODEL]}'s context; the window's longest request needs {longest} tokens)",
    "header.context_auto.pool": " (auto: the most the KV pool holds, POOL_BLOCKS {blocks} x BLOCK_SIZE {cfg[BLOCK_SIZE]} + 1, as the last token's KV is never written; the window's longest request needs {longest} tokens: raise POOL_BLOCKS or set POOL_BLOCKS=auto)",
    "header.context_auto.gpu": " (auto: the most the GPU's KV room holds, vLLM's {blocks} blocks x BLOCK_SIZE {cfg[BLOCK_SIZE]} + 1, as the last token's KV is never written, as vLLM will not start when one max_model_len sequence does not fit its KV cache; the window's longest request needs {longest} tokens)",
    "header.context_auto.bound": " (auto: the lab's bound; the window's longest request needs {longest} tokens)",
    "header.model": "MODEL: 1 decoder layer (MHA {d[n_heads]} heads, RoPE, SwiGLU), d_model={d[d_model]}, vocabulary of {d[vocab]} tokens, random weights seed {cfg[SEED]}.",
    "header.clock": "CLOCK: simulated with assumed cost formulas (see COST_* at the top of the file). Every 'ms' below is SIMULATED, not measured on a GPU.",
    "header.clock_tp": "TENSOR PARALLEL: each replica is {cfg[TENSOR_PARALLEL]} {cfg[GPU]} GPUs (TENSOR_PARALLEL={cfg[TENSOR_PARALLEL]}; the whole run {gpus} GPUs = REPLICAS x TENSOR_PARALLEL); each GPU holds 1/{cfg[TENSOR_PARALLEL]} of the weights and KV heads, and a step takes max(compute, memory) on one GPU + communication (2 ring all-reduces per layer) + STEP_OVERHEAD.",
    "header.clock_roofline": "CLOCK: roofline on {cfg[GPU]} with the shapes of {cfg[SHADOW_MODEL]} ({cfg[WEIGHT_BITS]}-bit weights{act}, {cfg[KV_BITS]}-bit KV; "
                             "CLOCK=roofline): every step is one forward pass and takes max(FLOPs ÷ achievable FLOP/s, bytes ÷ achievable bandwidth) + STEP_OVERHEAD. "
                             "Every 'ms' below is still SIMULATED, computed from datasheets, not measured on a GPU; the gateway and tokenizing still cost COST_GATEWAY {cfg[COST_GATEWAY]} µs and COST_TOKENIZE_PER_TOKEN {cfg[COST_TOKENIZE_PER_TOKEN]} µs per token (1 µs by default under roofline).",
    "header.act_bits": " and {cfg[ACT_BITS]}-bit activations (W{cfg[WEIGHT_BITS]}A{cfg[ACT_BITS]}: the matmuls run at the GPU's 8-bit tensor-core peak)",
    "header.how_to_read": "HOW TO READ: each block [n · Name] carries the name of its box on the Tab 01 diagram. Read the Observation, look at the numbers, then state the Conclusion yourself.",
    "header.note": "NOTE: the engine runs ONCE; the blocks print back what the engine recorded. ",
    "header.nothing_simulated": "Routing, authentication and request cancellation are not simulated.",
    # ── [1] ────────────────────────────────────────────────────────────────
    "b1.title": "Gateway and admission control",
    "b1.observe": "Observation: the gateway looks at requests in arrival order; the system holds at most {d[capacity]} requests (running + waiting).",
    "b1.admitted": "admitted",
    "b1.rejected": "REJECTED {code}",
    "b1.decision": "{x[request]} (arrives {x[arrival]:ms}): {verdict} - {why}",
    "b1.counts_aborted": "Counts: offered={d[offered]}; rejected 429 at the gateway={d[n_429]}; rejected 400 during input preparation={d[n_400]}; "
                         "cancelled={n}; served={d[served]}.",
    "b1.check_aborted": "Check: offered = served + rejected + aborted -> {d[offered]} = {d[served]} + {rejected} + {n} -> {ok}.",
    "b1.counts": "Counts: offered={d[offered]}; rejected 429 at the gateway={d[n_429]}; rejected 400 during input preparation={d[n_400]}; served={d[served]}.",
    "b1.check": "Check: offered = served + rejected -> {d[offered]} = {d[served]} + {rejected} -> {ok}.",
    "b1.conclusion_429": "Conclusion: rejecting early keeps the queue bounded, so a request that arrives when the system is full gets 429 instead of waiting long and missing its deadline anyway.",
    "b1.conclusion_no_429": "Conclusion: with the current limits the queue never fills, so no request gets 429; lower QUEUE_LIMIT to see rejections.",
    "b1.limitation": "Limitation: the gateway only decides between two steps, so a request arriving mid-step is considered when that step ends (its arrival time is kept).",
    "b1.abort_running": "running, {a[generated]:pl token} generated, frees blocks {a[blocks]}",
    "b1.abort_waiting": "still waiting, {a[generated]:pl token} generated",
    "b1.abort_frees": ", frees blocks {a[blocks]}",
    "b1.abort_gateway": "cancelled before it even arrived: never admitted, takes no place at the gateway",
    "b1.abort": "{a[request]}: the client CANCELS at {a[cancel_at]:ms} -> the engine drops it at the step boundary at {a[time]:ms} "
                "({where}); it leaves the system and frees its place, as in {docs[abort]}.",
    # ── [2] ────────────────────────────────────────────────────────────────
    "b2.title": "Chat template, BPE and the token budget",
    "b2.request": "Request {f[id]}: \"{f[text]}\" -> {f[tokens]}",
    "b2.shown": "Prompt {f[id]} is {f[prompt_len]} tokens long: this block prints and draws only its first {s[words]} words (its first {s[tokens]} tokens, <bos> included), a screen's worth; the lengths below are the whole prompt's.",
    "b2.ids": "Token IDs: {f[ids]}  (an ID is only a row number in the vocabulary; the meaning lives in the embedding vector the model looks up by ID).",
    "b2.budget": "Budget: prompt {f[prompt_len]:pl token} + max_new {f[max_new]} = {total} <= MAX_CONTEXT {cfg[MAX_CONTEXT]}.",
    "b2.prefix_hit": "Prefix cache: the first {n}/{f[prompt_len]} tokens of prompt {f[id]} were already cached (full blocks of an earlier "
                     "request with the same prefix, same hash), so the engine only prefills {rest:pl token}.",
    "b2.prefix_miss": "Prefix cache: no full block at the start of prompt {f[id]} was cached when it started running, so all {f[prompt_len]} tokens are prefilled.",
    "b2.bpe": "BPE learns {d[n_merges]} merges from {d[n_corpus]} sample sentences; the final vocabulary has {d[vocab]} tokens (including <bos>, <eos>).",
    "b2.merges": "First merges: {d[first_merges]} ... ('</w>' marks the end of a word).",
    "b2.lengths": "Prompt lengths: {lens} tokens (including <bos>).",
    "b2.lengths_cut": "Prompt lengths in tokens (including <bos>): {lens}.",
    "b2.no_lengths": "Prompt lengths: no request was served.",
    "b2.blocked": "Blocked: {x[request]} - {why}.",
    "b2.ready": "{d[follow][id]} is ready after {d[prep]:ms}.",
    "b2.ready_fine": "{d[follow][id]} is ready after {d[prep]:ms3}.",
    "b2.never_queued": "{d[follow][id]} never entered the queue, so it has no preparation time.",
    "b2.prep_cost": "Preparation cost (assumed): gateway {cfg[COST_GATEWAY]:ms} + {per_token:.2f} ms per token -> {prep}",
    "b2.prep_cost_fine": "Preparation cost (assumed): gateway {cfg[COST_GATEWAY]:ms3} + {cfg[COST_TOKENIZE_PER_TOKEN]} µs per token -> {prep}",
    "b2.conclusion": "Conclusion: the same text must give the same token IDs on every replica; a wrong tokenizer or chat template changes how the model behaves.",
    # BYTE_FALLBACK=on only (the seed has no byte fallback, so these lines never meet its bytes)
    "b2.bytes": "Byte fallback ON (BYTE_FALLBACK=on): vocabulary = {d[base_vocab]} BPE tokens + {d[n_bytes]} byte tokens <0x00>..<0xFF>; "
                "a character the tokenizer never saw becomes its UTF-8 bytes, as SentencePiece's byte fallback does (the byte-level BPE "
                "of GPT-2 and Llama 3 always works on bytes): no more 400 for unknown characters, accented text just costs more tokens.",
    "b2.real_tokenizers": "Real tokenizers do not answer 400 to an unknown character: byte-level BPE (GPT-2, Llama 3) and SentencePiece with "
                          "byte fallback (Llama 2) fall back to UTF-8 bytes, and accented text just costs more tokens; try BYTE_FALLBACK=on (--byte-fallback).",
    "b2.byte_chars": "{r[id]}: {chars}.",
    "b2.byte_char": "'{c}' = {pieces}",
    "b2.byte_cost": "{r[id]}: \"{r[text]}\" = {r[prompt]:pl token} ({r[byte_tokens]:pl byte token}; {per_word:.1f} tokens per word, <bos> left out); "
                    "without accents \"{r[plain]}\" = {r[plain_prompt]:pl token} ({plain_per_word:.1f} per word): {r[extra]:pl more token} -> the prompt takes "
                    "{r[blocks]:pl KV block} instead of {r[plain_blocks]} (BLOCK_SIZE {d[block_size]}), and the per-token costs alone add {r[extra_time]:ms} of preparation + prefill{ttft}.",
    "b2.byte_ttft": "; measured TTFT {r[ttft]:ms}, {r[plain_ttft]:ms} when the whole trace runs again without accents (the measured difference also counts whole steps: a longer prompt may need another prefill chunk, and preparation done while the request waits for a slot anyway adds nothing)",
    "b2.template": "The chat template here adds only <bos>; a real chat template (Llama 3, ChatML) also wraps the text in role tokens "
                   "(system / user / assistant headers, end of turn) and often a system prompt: tokens that are prefilled and kept in the KV cache too.",
    # ── [3] ────────────────────────────────────────────────────────────────
    "b3.title": "Iteration-level scheduling (continuous batching + chunked prefill)",
    "b3.preempt_at": "Preemption at step {p[step]} ({p[time]:ms}): ",
    "b3.who_fcfs": "the most recently admitted",
    "b3.who_priority": "priority {p[priority]}, arrived {p[arrival]:ms}: the largest (priority, arrival) of the running sequences",
    "b3.preempt_no_block": "no free KV block for {p[request]} ({who}, holding no block yet), so it "
                           "gives up its slot and goes back to the front of the waiting queue; no work is lost.",
    "b3.preempt": "out of free KV blocks, so {p[request]} ({who}) is preempted, "
                  "frees blocks {p[blocks]} and goes back to the front of the waiting queue; when it runs again it must prefill {p[recompute]:pl token} again "
                  "(prompt + {p[generated]} generated).",
    "b3.legend": "Each line: step (start -> end), number of waiting/running requests, then [request:phase:tokens] with p = prefill (a prompt chunk), d = decode (1 new token).",
    "b3.step": "step {i:>2}: {st[start]:ms} -> {st[end]:ms} | waiting={st[waiting]} running={st[running]} | {work}",
    "b3.no_steps": "No steps: no request was served.",
    "b3.late": "{r[id]} has arrived but is still in input preparation, ready at {r[ready]:ms}",
    "b3.late_fine": "{r[id]} has arrived but is still in input preparation, ready at {r[ready]:ms3}",
    "b3.observe": "Observation: step 1 starts at {start:ms} with {lone} only; {late}. The scheduler does not wait.",
    "b3.observe_fine": "Observation: step 1 starts at {start:ms3} with {lone} only; {late}. The scheduler does not wait.",
    "b3.observe_all": "Observation: step 1 starts at {start:ms} with {ids}: every request that had arrived by then was ready, so none waits for input preparation.",
    "b3.observe_all_fine": "Observation: step 1 starts at {start:ms3} with {ids}: every request that had arrived by then was ready, so none waits for input preparation.",
    "b3.observe_some": "Observation: step 1 starts at {start:ms} with {ids}; {late}. The scheduler does not wait.",
    "b3.observe_some_fine": "Observation: step 1 starts at {start:ms3} with {ids}; {late}. The scheduler does not wait.",
    "b3.mixed_roofline": "Steps {mixed} decode for running requests and prefill for new ones at once: under CLOCK=roofline they are ONE forward pass that reads the weights once for the whole step (the point of chunked prefill, Sarathi), but decode still waits for the whole step to finish.",
    "b3.mixed": "Steps {mixed} decode for running requests and prefill for new ones at once: they share one step and (under the assumed cost formula) the two phases run back to back, so decode waits for the prefill to finish.",
    "b3.not_mixed": "No step mixes decode and prefill.",
    "b3.abort": "Cancelled at the step boundary at {a[time]:ms}: {a[request]} (the client cancelled at {a[cancel_at]:ms}) leaves "
                "{left}; the scheduler no longer puts it in any step.",
    "b3.left_running": "the running batch",
    "b3.left_waiting": "the waiting queue",
    "b3.left_gateway": "the gateway (it never entered the system and takes no place)",
    "b3.wait_kv_at": "Waiting for KV blocks at step {k[step]} ({k[time]:ms}): ",
    "b3.wait_kv_short": "{k[request]} was just admitted but its prompt chunk needs {k[need]:pl new KV block} and the pool "
                        "has only {k[free]} free -> it goes back to its old place in the waiting queue and preempts "
                        "nobody (vLLM's v1 scheduler: a waiting request never causes a preemption; the admission loop "
                        "stops at the first request that cannot get blocks).",
    "b3.wait_kv_gives_way": "{k[by]} needs {k[need]:pl new KV block} and the pool has only {k[free]} free -> {k[request]} "
                            "(the last one admitted at this boundary) gives back blocks {k[blocks]} and goes back to its "
                            "old place in the waiting queue, before any running sequence is preempted.",
    "b3.wait_kv_behind": "{k[request]} was admitted after {k[by]} at this boundary, and {k[by]} got no KV blocks -> "
                         "{k[request]} goes back to its old place in the waiting queue too (vLLM stops taking requests "
                         "at the first one short of blocks).",
    "b3.wait_kv_preempted": "this step preempted a running sequence, so {k[request]} (just admitted) goes back to its old "
                            "place in the waiting queue: as in vLLM, a step that preempts takes no request from the "
                            "waiting queue.",
    "b3.chunks": "Chunked prefill: the prompt of {fid}, {f[prompt_len]} tokens long, is processed in chunks {d[chunks]} (budget {cfg[TOKEN_BUDGET]} tokens per step).",
    "b3.chunks_redo": "These chunks include what {fid} had to prefill again after being preempted {f[preempted]:pl time}.",
    "b3.follow_wait": "{fid}: ready at {f[ready]:ms}, but its first step starts at {f[start]:ms} -> waited {f[queue]:ms} for a slot.",
    "b3.follow_wait_fine": "{fid}: ready at {f[ready]:ms3}, but its first step starts at {f[start]:ms3} -> waited {f[queue]:ms3} for a slot.",
    "b3.conclusion": "Conclusion: continuous batching admits new requests at every step boundary as soon as a slot frees up, without waiting for the previous batch to finish.",
    "b3.overtaken": "{x[id]} (priority {x[priority]}, arrived {x[arrival]:ms})",
    "b3.overtake": "Priority at step {o[step]} ({o[time]:ms}): {o[request]} (priority {o[priority]}) starts running before {behind} "
                   "although it arrived later, because SCHED_POLICY=priority orders the waiting queue by (priority, arrival), lower first.",
    # ── [4] ────────────────────────────────────────────────────────────────
    "b4.title": "Processing the prompt, writing KV and producing the first logits",
    "b4.conclusion": "Conclusion: prefill ends with the first token, so prefill plus the wait decides TTFT. Logits are scores, not yet probabilities.",
    "b4.again": " (including the prefill redone after {d[preempted]:pl preemption})",
    "b4.prompt_cached": "Prompt {fid} has {d[prompt_len]:pl token}: the first {n} come from the prefix cache (K/V already there, not recomputed), "
                        "the remaining {rest} -> chunks {d[chunks]}{again} run through the model; every token writes its K and V into the cache.",
    "b4.prompt": "Prompt {fid} has {d[prompt_len]:pl token} -> chunks {d[chunks]}{again} run through the model; every token writes its K and V into the cache.",
    "b4.stand_in": "Prompt {fid} has {d[prompt_len]} tokens -> chunks {d[chunks]}{again}. A long prompt: more than the {s[long]} tokens the lab's NumPy model computes whole (model.LONG_PROMPT). The scheduler, the block tables and the roofline clock count all {d[prompt_len]} positions (the prefill chunks above, {s[blocks]} blocks of {s[block_size]} tokens, the KV each decode step reads); the model computes only the LAST {s[keep]} tokens as a stand-in prompt, at its own positions 0..{last}, then the tokens generated after them: each stand-in token writes K and V into the cache at the last {s[keep]} positions, the first {s[skip]} positions hold blocks but no numbers. Positions in blocks [5] and [7] are the model's.",
    "b4.cache_shape": "After prefill, the cache of {fid} holds K of shape {shape} = (heads, tokens, head dim); V has the same shape.",
    "b4.last_row": "Only the LAST row of the logits picks the first token: {row:vec2}",
    "b4.how_to_read": "How to read it: {n} columns = {n} tokens in the vocabulary; the three highest scores are at IDs {d[top3]} = {d[top3_tokens]} (scores {d[top3_scores]:vec2}).",
    "b4.how_to_read_bytes": "How to read it: {n} columns = the {n} BPE tokens the LM head scores (the 256 byte tokens are input-only in this lab: read through their embedding rows, never generated, so a prompt without accents gets the same logits as with BYTE_FALLBACK=off); the three highest scores are at IDs {d[top3]} = {d[top3_tokens]} (scores {d[top3_scores]:vec2}).",
    "b4.first_token": "The first token of {fid} appears at {d[first_time]:ms} -> TTFT = {d[first_time]:ms} - {d[arrival]:ms} = {d[ttft]:ms}.",
    # ── [5] ────────────────────────────────────────────────────────────────
    "b5.title": "Attention weights and logits are two different distributions",
    "b5.parity": "largest difference <= 1e-9: {ok} (what is left is float64 rounding only).",
    "b5.parity_fail": "largest difference <= 1e-9: False (the largest difference is {x:.2e}, far beyond float64 rounding: the cached path and the full recompute computed different things).",
    "b5.rows_fail": "Each row is a softmax over source POSITIONS and sums to 1. The causal mask should give every future position probability 0, but the check at the end of this block fails: a position's logits depend on which positions were in the same pass, which is what happens when a row reads positions after it (no causal mask) or when the cached K/V differ from recomputed ones.",
    "b5.rows": "Each row is a softmax over source POSITIONS and sums to 1; future positions are blocked by the causal mask (probability 0).",
    "b5.heads": "The two heads are concatenated, go through W_O, the residual, SwiGLU, then the LM head gives {d[vocab]} scores over candidate TOKENS (the logits row of block [4]).",
    "b5.difference": "The difference: attention weights say 'which positions to read from'; logits say 'which token comes next'. Probabilities over the vocabulary only appear in block [8].",
    "b5.check_served": "Numerical check: logits through the KV cache match recomputing the whole sequence at EVERY step ({n} requests served), {parity}",
    "b5.last_row": "Last row of the prefill: token '{d[token_text]}' (ID {d[token]}) at position {d[position]} looks back at {n} source positions 0..{d[position]}.",
    "b5.head": "Attention weights head {h}: {a:vec} sum = {total:.6f}",
    "b5.how_to_read": "How to read it: each head has its own K/V (MHA), so each gives a different distribution; head 0 looks most at position {d[argmax][0]}, head 1 looks most at position {d[argmax][1]}.",
    "b5.how_to_read_lab": "How to read it: attention weights depend on Q and K only (softmax of Q·Kᵀ); each head has its own W_Q and W_K (MHA), so its own Q and K and a different distribution; head 0 looks most at position {d[argmax][0]}, head 1 looks most at position {d[argmax][1]}. Under GQA, heads that share one K still give different rows because their Q differs.",
    "b5.check_all": "Numerical check: logits through the KV cache match recomputing the whole sequence at EVERY step (prefill + decode, all 3 requests), {parity}",
    # ── [6] ────────────────────────────────────────────────────────────────
    "b6.title": "Physical blocks, block tables and freeing blocks",
    "b6.peak": "Each block holds {bs} tokens. At the moment of peak block use, the block table (logical -> physical) of each sequence is: {tables}.",
    "b6.how_to_read": "How to read it: logical blocks 0, 1, 2... of a sequence sit in physical blocks that need not be contiguous and may interleave across sequences; the block table is the lookup.",
    "b6.used": "Then {pk[used]}/{cfg[POOL_BLOCKS]} blocks are in use = {slots_used} token slots, holding {pk[tokens]} tokens -> {unused} slots unused in the last block of each sequence.",
    "b6.compare": "Compare: a contiguous array of {cfg[MAX_CONTEXT]} tokens for each running slot needs {contiguous} token slots; paging needs only {slots_used}.",
    "b6.freed": "Blocks freed in order of finishing: {freed}.",
    "b6.frees": "{rid} frees {blk}",
    "b6.none_served": "Each block holds {bs} tokens. No sequence was served, so no block was allocated.",
    "b6.kept_cached": "its full blocks keep their hash at the end of the free queue, so when it runs again it may hit them",
    "b6.kept_dropped": "its K/V are dropped and will be recomputed",
    "b6.preempt": "Preemption at step {p[step]}: {p[request]} is preempted for lack of free blocks and returns blocks {p[blocks]} to the pool ({kept}).",
    "b6.preempt_no_block": "Preemption at step {p[step]}: {p[request]} held no block yet and gives up its slot because the pool has no free block.",
    "b6.reuse": "block {b}: {owners}",
    "b6.reused": "Blocks reused: {reused}.",
    "b6.none_reused": "No block is reused in this trace.",
    "b6.free_at_end": "After every request finishes, {d[free]}/{cfg[POOL_BLOCKS]} blocks are free (no leak).",
    "b6.gather": "Numerical check: K/V gathered from scattered blocks match K/V recomputed from scratch for each sequence, largest difference <= 1e-9: {ok}.",
    "b6.pool_problems": "Block pool invariants broken: {found}.",
    "b6.pool_problem": "{what} (step {steps})",
    "b6.pool_problem_steps": "{what} (steps {steps})",
    "pool.negative_ref_cnt": "negative reference count",
    "pool.ref_cnt_mismatch": "a reference count differs from the number of block tables holding the block",
    "pool.not_conserved": "blocks not conserved (duplicated, lost, or both free and owned)",
    "pool.stale_hash": "the hash map points to a block carrying another hash",
    "b6.limitation_preempt": "Limitation: this run has the prefix cache off (PREFIX_CACHE=off), so no block is shared and every reference count stays <= 1; when blocks run out the engine preempts by recompute as vLLM does (no swapping to CPU).",
    "b6.limitation": "Limitation: no prefix caching, reference counting or preemption when blocks run out.",
    "b6.hit": "{h[request]} takes {h[tokens]:pl token} (blocks {h[blocks]}) at step {h[step]}",
    "b6.hit_recompute": " while recomputing after a preemption",
    "b6.wait_kv": "Waiting for KV blocks (back to the waiting queue, nobody preempted): {waits}.",
    "b6.wait_kv_short": "{k[request]} at step {k[step]} (needs {k[need]:pl block}, {k[free]} free)",
    "b6.wait_kv_gives_way": "{k[request]} at step {k[step]} (gives its blocks to {k[by]})",
    "b6.wait_kv_behind": "{k[request]} at step {k[step]} (queued behind {k[by]})",
    "b6.wait_kv_preempted": "{k[request]} at step {k[step]} (the step preempted)",
    "b6.prefix_cache": "Prefix cache (after {docs[prefix_cache]}): every FULL block carries hash = hash(its tokens, the parent block's hash); "
                       "a sequence that starts running takes back the full blocks matching the start of its prompt (reference count +1) and prefills only the rest, at least the last token.",
    "b6.hits": "Cache hits: {hits}.",
    "b6.no_hits": "Cache hits: none (no prompt's first full block matched a block already computed).",
    "b6.shared": "Shared blocks (reference count > 1, read by several running sequences): {d[shared_blocks]}; "
                 "at most {d[max_shared]} sequences held one block at once.",
    "b6.none_shared": "Shared blocks: no two running sequences ever held the same block (the reference count stays <= 1).",
    "b6.evicted_block": "block {e[block]} (step {e[step]})",
    "b6.evicted": "Evicted (the head of the free block queue, LRU, taken for new data so its hash is lost): {ev}.",
    "b6.none_evicted": "Evicted: no hashed block was taken back for new data.",
    "b6.cached_free": "A freed block goes to the END of the free queue (a sequence's last block first) and keeps its hash: at the end {n} free blocks "
                      "can still be reused by a later request with the same prefix.",
    "b6.prefix_limitation": "Limitation: only full blocks are shared and they are never written again (no copy-on-write needed); blocks with equal contents are not merged "
                            "(block tables only append, as in vLLM v1); no swapping to CPU, no cache_salt.",
    # ── [7] ────────────────────────────────────────────────────────────────
    "b7.title": "The autoregressive loop with a KV cache",
    "b7.no_decode": "{fid} stops right after its first token, so there is no decode step whose attention weights we could show.",
    "b7.first_decode": "First decode step of {fid}: feeds token '{fd[token_text]}' (position {fd[position]}); attention head 0 has {n} weights: {fd[position]} positions read from the cache + 1 position for the token itself.",
    "b7.weights": "Those weights: {fd[weights]:vec} sum = {fd[sum]:.6f}; the K/V of the {fd[position]} earlier positions are not recomputed.",
    "b7.counts": "with the cache = {d[positions_cached]}; recomputing the whole history every step = {d[positions_naive]}.",
    "b7.not_time": "These are positions to compute, counted during the run; the real time saved on a GPU depends on the hardware and is NOT measured here.",
    "b7.conclusion": "Conclusion: each decode step computes few tokens but must still read all the weights and the whole KV cache, so it is usually bound by memory bandwidth, not by the matrix multiplies.",
    "b7.positions_served": "Positions fed through the model (served requests): {counts}",
    "b7.generates": "{fid} generates {d[n_out]:pl token}: 1 token from prefill + {d[n_decode]:pl decode step}; each step feeds only 1 new token.",
    "b7.again": "; {recompute:pl token} from the prefill redone (prompt + generated tokens)",
    "b7.preempted": "{fid} was preempted {d[preempted]:pl time} (its KV dropped, to be recomputed){again}.",
    "b7.cache_len": "The cache of {fid} is {d[cache_len]} positions long at the end (the last token is sampled but never fed to the model).",
    "b7.positions_all": "Positions fed through the model (all 3 requests): {counts}",
    # ── [8] ────────────────────────────────────────────────────────────────
    "b8.title": "From logits to one token, then stop or continue",
    "b8.stop": "  {s[id]}: stopped on {s[reason]} after {s[n]}/{s[max_new]} tokens -> {s[text]!r}",
    "b8.cancelled": "  {s[id]}: CANCELLED at {s[time]:ms} (the client cancelled at {s[cancel_at]:ms})",
    "b8.cancelled_before": " before its first token: 0/{s[max_new]} tokens, the client received nothing",
    "b8.cancelled_after": " after {s[n]}/{s[max_new]} tokens -> {s[text]!r} (the client had received that many tokens by streaming)",
    "b8.observe": "Observation: the first token arrives exactly at TTFT, later tokens are spaced by TPOT; the engine does not wait for a whole sentence before sending.",
    "b8.warning": "Warning: the text is gibberish (or one word repeated) because the weights are random and untrained; only the mechanics of picking a token and stopping are real.",
    "b8.stop_check": "Stop check after every token: <eos> or max_new_tokens reached. Result:",
    "b8.sampling": "{fid}: temperature {d[temperature]}, top_k {d[top_k]}, top_p {d[top_p]}, seed {d[seed]}; applied to the logits row of block [4].",
    "b8.probs_greedy": "Greedy (temperature 0): the softmax of the logits as they are (no division by a temperature) -> PROBABILITIES over {d[vocab]} tokens, sum = {d[probs_sum]:.6f}. Top five tokens: ",
    "b8.kept_greedy": "No top-k/top-p filter and no random draw: greedy keeps only the highest score ({n:pl token}): ",
    "b8.draw_greedy": "The highest score is ID {d[token]} = '{d[token_text]}' (argmax; seed {d[seed]} is not used). Choosing a token is not yet processing it: it enters the cache at the next decode step.",
    "b8.probs": "Logits divided by the temperature, then softmax -> PROBABILITIES over {d[vocab]} tokens, sum = {d[probs_sum]:.6f}. Top five tokens: ",
    "b8.kept": "The top-k/top-p filter keeps {n:pl token}, renormalized to sum to 1: ",
    "b8.draw": "Random draw (seed {d[seed]}) gives ID {d[token]} = '{d[token_text]}'. Sampling a token is not yet processing it: it enters the cache at the next decode step.",
    "b8.stream": "Streaming of {fid} (simulated time, token): {stream}",
    # ── [9] ────────────────────────────────────────────────────────────────
    "b9.title": "Symmetric per-output-channel INT{d[bits]} weight quantization",
    "b9.quantize": "Quantize {d[n_linear]} linear matrices ({d[elements]} elements): scale = max|w| / {d[levels]} per column, w_int = round(w / scale).",
    "b9.size": "Storage format size: FP32 = {d[fp32_bytes]} bytes -> INT{d[bits]} + FP32 scales = {d[int_bytes]:.0f} bytes ({ratio:.2f} times smaller; computed from the format, not measured).",
    "b9.error": "Largest weight reconstruction error = {d[max_err]:.4f}; theoretical bound (half the largest scale) = {d[half_scale]:.4f}.",
    "b9.logit_error": "Logit error on prompt {fid} (original vs quantized model, <bos> left out), largest = {d[logit_err]:.4f}.",
    "b9.logit_error_other": "Logit error on prompt {d[probe]} (instead of {fid}, which has no token IDs; original vs quantized model, <bos> left out), largest = {d[logit_err]:.4f}.",
    "b9.conclusion": "Conclusion: a small numerical error only says the numbers are close; whether it changes which token is picked is checked in block [13].",
    "b9.limitation": "Limitation: the lab simulates 'store integers, dequantize to floats to multiply'; real integer kernels add their own error and run at other speeds. A quantized KV cache is not simulated.",
    "b9.kv_cache": "KV cache at KV_BITS=8: K and V are stored as FP8 E4M3 (3 mantissa bits, largest value 448) with one FP32 scale per head, as vLLM's kv_cache_dtype=\"fp8\" with per-attention-head scales: k_scale = {k}, v_scale = {v} (each head's largest |K| or |V| over every token of the vocabulary / 448). They are rounded when written into the paged cache; attention reads them back multiplied by the scale.",
    "b9.kv_error": "KV error on prompt {d[probe]} ({kv[tokens]} positions; weights kept float, to see the cache's share alone): K largest {kv[k_max]:.4f}, mean {kv[k_mean]:.4f}; V largest {kv[v_max]:.4f}, mean {kv[v_mean]:.4f}; every value within half an FP8 step (at most 1/16 of its size): {kv[within_half_step]}. The attention output changes by {attn:.2f}% (relative); largest logit error {kv[logit_err]:.4f}, next to {d[logit_err]:.4f} for the INT{d[bits]} weights.",
    "b9.limitation_kv8": "Limitation: the lab simulates 'store integers, dequantize to floats to multiply', and keeps the FP8 KV cache the same way (its NumPy pool holds float64 values, each an FP8 value times its head's scale, so block [10] still counts 8 bytes per value); real INT8/FP8 kernels add their own error and run at other speeds, and FlashAttention 3 also casts Q to FP8, which the lab does not.",
    "b9.kv_roofline": "The roofline clock counts the FP8 cache at 1 byte per value (block [10]: capacity, and the bytes each step reads).",
    # ── [10] ───────────────────────────────────────────────────────────────
    "b10.title": "Weights + KV + workspace",
    "b10.lab": "In the lab: float64 weights = {d[weight_bytes]} bytes; KV pool = {cfg[POOL_BLOCKS]} blocks x {cfg[BLOCK_SIZE]} tokens x {bpt} bytes/token = {d[pool_bytes]} bytes.",
    "b10.per_token": "One token needs K and V: 2 x {d[n_heads]} heads x {d[d_head]} dims x {d[itemsize]} bytes (NumPy float64) = {bpt} bytes for 1 layer.",
    "b10.peak": "The peak moment uses {d[peak_used]:pl block} = {kv} bytes of KV ({pct:.0f}% of the pool).",
    "b10.formula": "Formula: KV bytes = 2 x layers x tokens x KV heads x head dim x bytes per element.",
    "b10.example": "ASSUMED example (worked by hand, not measured; same setup as the HBM exercise): {x[layers]} layers, {x[ctx]} tokens, {x[kv_heads]} KV heads, head {x[head_dim]}, FP16 -> {real_seq} bytes = {gib:.2f} GiB for one sequence.",
    "b10.gpu": "Say a GPU of {hbm} GiB, FP16 weights of {weights} GiB: {left} GiB left for KV = at most {seqs} sequences of {x[ctx]} tokens (before the workspace).",
    "b10.half": "If the weights shrink to half ({half} GiB, assumed): {left} GiB left -> {seqs} sequences.",
    "b10.roof_gpu": "Under CLOCK=roofline: {s[gpu]} exposes {s[mib]:,} MiB = {hbm:.2f} GB of HBM (as nvidia-smi reports; the datasheet rounds); as in vLLM, the engine uses a {s[utilization]} share of it (GPU_MEMORY_UTILIZATION) = {usable:.1f} GB.",
    "b10.roof_weights": "{s[model]}'s weights at WEIGHT_BITS={cfg[WEIGHT_BITS]} (not block 9's QUANT_BITS): {weights:.2f} GB; an activation reserve (assumed) of {reserve:.0f} GB -> {left:.2f} GB left for KV.",
    "b10.roof_kv": "KV per token of {s[model]} at KV_BITS={cfg[KV_BITS]}: 2 x {s[layers]} layers x {s[kv_heads]} KV heads x {s[head_dim]} dims x {s[kv_bytes]} bytes = {s[per_token]} bytes -> {s[tokens]} tokens of KV fit = {s[blocks]} blocks of {cfg[BLOCK_SIZE]} tokens = {s[seqs]} sequences of {cfg[MAX_CONTEXT]} tokens (MAX_CONTEXT).",
    "b10.roof_weights_tp": "{s[model]}'s weights at WEIGHT_BITS={cfg[WEIGHT_BITS]}: {weights:.2f} GB, split over TENSOR_PARALLEL={s[tp]} GPUs = {share:.2f} GB each; an activation reserve (assumed) of {reserve:.0f} GB on each GPU -> {left_gpu:.2f} GB left for KV on each GPU, {left:.2f} GB on the group of {s[tp]} GPUs (the run uses {s[gpus]} GPUs = REPLICAS {cfg[REPLICAS]} x TENSOR_PARALLEL {s[tp]}).",
    "b10.roof_kv_tp": "KV per token of {s[model]} at KV_BITS={cfg[KV_BITS]}: 2 x {s[layers]} layers x {s[kv_heads]} KV heads x {s[head_dim]} dims x {s[kv_bytes]} bytes = {full} bytes; each GPU keeps {s[kv_heads_gpu]} KV heads = {s[per_token_gpu]} bytes a token -> {s[tokens]} tokens of KV fit = {s[blocks]} blocks of {cfg[BLOCK_SIZE]} tokens = {s[seqs]} sequences of {cfg[MAX_CONTEXT]} tokens (MAX_CONTEXT).",
    "b10.trust": "How far to trust these milliseconds: against {m[rows]} published measurements of real engines on one GPU or one tensor-parallel group (core/clock/calibration.py; each row with the ENGINE_PROFILE of its engine, every output token generated as the benchmarks do), the ratio lab ÷ published has a median of ×{m[median]:.2f} (goal: within ×{goal:.2f}) and its farthest at ×{m[worst]:.2f} (limit ×{tol:.2f}); the lab is optimistic on {m[optimistic]} of {m[rows]}. This run: ENGINE_PROFILE={cfg[ENGINE_PROFILE]}, FLOPS_FRACTION {cfg[FLOPS_FRACTION]}, BANDWIDTH_FRACTION {cfg[BANDWIDTH_FRACTION]}, STEP_OVERHEAD {cfg[STEP_OVERHEAD]} µs.",
    "b10.trust_row": "  {r[engine]} · {gpus} · {r[model]} W{r[weight_bits]}A{r[act_bits]} · {what} · batch {r[batch]} · ISL/OSL {r[isl]}/{r[osl]}: published {pub} {r[unit]}, lab {lab} {r[unit]} -> ×{ratio}",
    "b10.kind_decode": "decode, tok/s per user",
    "b10.kind_prefill": "prefill, tok/s",
    "b10.kind_ttft": "TTFT",
    "b10.kind_throughput": "output throughput",
    "b10.trust_limits": "Outside this table (tensor parallelism beyond its TP2 rows, long context, other GPUs and engines) the figure is a roofline estimate, not a measurement; each row's source is in the README and calibration.py.",
    "b10.roof_pool": "The lab's pool: POOL_BLOCKS = {cfg[POOL_BLOCKS]} blocks. POOL_BLOCKS=auto takes min(vLLM's blocks above, {n} requests x ⌈MAX_CONTEXT ÷ BLOCK_SIZE⌉ = {cap}): a pool bigger than all this trace can hold at once runs the same.",
    "b10.conclusion": "Conclusion: KV grows linearly with tokens and sequences; that is why KV memory, not just the weights, decides how many requests run at once.",
    # ── [11] ───────────────────────────────────────────────────────────────
    "b11.title": "Metrics on the simulated clock",
    "b11.prep": "input preparation",
    "b11.queue": "waiting for a slot",
    "b11.prefill": "prefill",
    "b11.misses": "MISSES",
    "b11.meets": "meets",
    "b11.ttft": "  {m[id]}: {m[prep]:>5} + {m[queue]:>5} + {m[prefill]:>5} = {m[ttft]:>5} | largest: {biggest} | {verdict} the assumed target {slo:ms}",
    "b11.preempted": " | preempted at step {lost} (time lost counts in prefill if before the first token)",
    "b11.cancelled_before": "  {m[id]}: cancelled at {m[finish]:ms} before its first token -> no TTFT; not counted in the served requests' metrics.",
    "b11.cancelled_after": "  {m[id]}: cancelled at {m[finish]:ms} after {m[n]:pl token} (first token at {m[first]:ms}, TTFT {m[ttft]:ms}); "
                           "not counted in the served requests' metrics.",
    "b11.unchanged": "Prefix cache: against a rerun of the same trace with the cache off, no request's TTFT changes (nobody hit the cache).",
    "b11.saved": "Prefix cache: TTFT with the cache on against a rerun of the same trace with it off: ",
    "b11.saved_row": "{r[id]} {r[ttft]:ms} instead of {r[ttft_nocache]:ms} ({saved}, {r[cached_tokens]} prompt tokens from the cache)",
    "b11.saves": "saves {t:ms}",
    "b11.slower": "slower by {t:ms}",
    "b11.legend": "Each step: duration, waiting/running requests, decode/prefill tokens, KV blocks in use (measured after finished sequences freed their blocks).",
    "b11.step": "step {i:>2}: {dur:>5} µs | waiting={st[waiting]} running={st[running]} decode={st[decode]} prefill={st[prefill]} "
                "| KV {st[kv_used]}/{cfg[POOL_BLOCKS]} ({pct:.0f}%){mark}",
    "b11.breakdown": "TTFT breakdown (simulated µs): input preparation + waiting for a slot + prefill = TTFT",
    "b11.none_served": "  (no request was served)",
    "b11.dist_head": "The trace against the generator (the same {d[requests]} requests, the same mean rate {d[rate]:.2f} requests/s and mean lengths; the trace's lengths as played, clipped to fit MAX_CONTEXT): p50 / p90 / p99 / max",
    "b11.dist_len": "  {what}: trace {t[p50]:g} / {t[p90]:g} / {t[p99]:g} / {t[max]:g} (mean {t[mean]:g}); generator {g[p50]:g} / {g[p90]:g} / {g[p99]:g} / {g[max]:g} (every request the same) → the trace's p99 is {ratio:.1f}× its mean",
    "b11.dist_prompt": "prompt tokens",
    "b11.dist_output": "output tokens",
    "b11.dist_gap": "  Gap between arrivals (ms): trace {t[p50]:g} / {t[p90]:g} / {t[p99]:g} / {t[max]:g}; generator (Poisson) {g[p50]:g} / {g[p90]:g} / {g[p99]:g} / {g[max]:g}; coefficient of variation (standard deviation ÷ mean) {t[cv]:.2f} against {g[cv]:.2f} (Poisson ≈ 1; above 1 arrivals come in bursts); busiest second: {t[peak_1s]} requests against {g[peak_1s]}",
    "b11.dist_lesson": "Why averages mislead: both have the same means, but planning on the means misses the long tail (a few long prompts hold slots and KV for long) and the bursts (the queue builds up in a busy second), and TTFT p99 comes from them. To compare, run the generator with the same means: WORKLOAD_TRACE=off WORKLOAD_PROMPT={g[prompt][mean]:g} WORKLOAD_OUTPUT={g[output][mean]:g} WORKLOAD_RATE={rate:g}.",
    "b11.conclusion": "Conclusion: don't look at total TTFT alone; find the largest part to know whether the bottleneck is queueing or prefill before fixing anything.",
    "b11.limitation": "Limitation: only 3 requests are served, so there is no trustworthy p95/p99; a real system needs thousands of samples.",
    # ── [12] ───────────────────────────────────────────────────────────────
    "b12.title": "TTFT, TPOT and throughput",
    "b12.chunked": "continuous + chunked ({cfg[TOKEN_BUDGET]} tokens/step)",
    "b12.policy_none": "  {name:<38}: no request was served",
    "b12.policy": "  {name:<38}: {p[span]:ms} | {p[throughput]:.1f} tokens/s simulated | {p[mean_ttft]:ms} / {p[max_ttft]:ms} | "
                  "{tpot} | {p[worst_gap]:ms}",
    "b12.preemptions": " | {p[preemptions]:pl preemption}",
    "b12.reading": "Reading: without prompt chunking the mean TTFT is lower ({nochunk[mean_ttft]:ms} vs {chunked[mean_ttft]:ms}) but a decoding request stalls "
                   "for up to {nochunk[worst_gap]:ms} (vs {chunked[worst_gap]:ms}). Chunking trades some TTFT for shorter stalls.",
    "b12.reading_other": "Reading: with the current config, chunking the prompt no longer gives the 'lower TTFT but longer stalls' trade-off; compare the two TTFT columns and the last column.",
    "b12.definitions": "Definitions: TTFT = time of the first token - arrival time; TPOT = mean gap between tokens after the first; throughput = total tokens / run time.",
    "b12.per_request": "Per request (continuous + chunked): TTFT | TPOT | E2E | tokens",
    "b12.request": "  {m[id]}: {m[ttft]:ms} | {tpot} | {m[e2e]:ms} | {m[n]}",
    "b12.same": "Correct first, fast second: does the scheduling policy change the generated tokens? Every request served under all 3 policies gives the same tokens: {d[same]}.",
    "b12.replayed": "With a generated workload (WORKLOAD_REQUESTS = {n}) the two other policies are replayed on the clock without the model: the gateway, scheduler, token budget, KV blocks, preemption and clock run for real, and each request's next token comes from the main run (every generated request is greedy with its own seed, so its tokens do not depend on the schedule; a request the main run did not serve is decoded alone by the model). So 'same tokens' holds here by construction, it is not a check; with the REQUESTS trace all 3 policies run the model.",
    "b12.baseline": "Baseline: same trace, same seeds, same cost formula; only the scheduling policy changes (static = wait for a full batch, run it to the end, then take the next).",
    "b12.legend": "Each line: run time | throughput | mean / max TTFT | mean TPOT | largest gap between two consecutive tokens of one request",
    "b12.roofline_policy": "{name}: {p[steps]:pl step} ({p[memory_bound]} memory-bound), run time {p[span]:ms}",
    "b12.roofline_steps": "Under roofline, a memory-bound step costs about the same however many tokens it holds (the weights are read once per step), so the run time follows the number of steps: {parts}.",
    "b12.roofline_steps_cluster": "Under roofline, a memory-bound step costs about the same however many tokens it holds (the weights are read once per step); on a cluster the replicas run their steps side by side, so the run time follows the steps of the replica that finishes last, not these totals over all replicas: {parts}.",
    "b12.roofline_steps_mixed": "Under roofline, a memory-bound step costs about the same however many tokens it holds, while a compute-bound step (enough tokens to pass the GPU's ridge point) costs in proportion to its tokens: {parts}.",
    "b12.roofline_mixed": "Why: a mixed step (decodes + a prompt chunk in ONE forward pass) takes {mixed_us:ms}, as long as a decode-only step ({decode_us:ms}): the {gb:.2f} GB of weights are read once for the whole step (Sarathi); static mixes no step ({static[steps]:pl step}), continuous without chunking mixes {nochunk[mixed]}/{nochunk[steps]} steps, continuous + chunked {chunked[mixed]}/{chunked[steps]}. The seed clock charges a mixed step both COST_DECODE_FIXED and COST_PREFILL_FIXED.",
    "b12.roofline_mixed_compute": "Why: a mixed step (decodes + a prompt chunk in ONE forward pass) still reads the {gb:.2f} GB of weights once for the whole step (Sarathi), but here it takes {mixed_us:ms} on average against {decode_us:ms} for a decode-only step: it holds enough prompt tokens to be compute-bound, and the decodes in it wait with it; static mixes no step ({static[steps]:pl step}), continuous without chunking mixes {nochunk[mixed]}/{nochunk[steps]} steps, continuous + chunked {chunked[mixed]}/{chunked[steps]}.",
    "b12.roofline_best_chunked": "Fastest: continuous + chunked ({chunked[span]:ms}): prompt chunks ride on decode steps that read the weights anyway, so there are fewer steps ({chunked[steps]} against {other[steps]} for {other_name}).",
    "b12.roofline_best_chunked_bound": "Fastest: continuous + chunked ({chunked[span]:ms}): {chunked[steps]:pl step} (against {other[steps]} for {other_name}), but {chunked[memory_bound]}/{chunked[steps]} of them memory-bound (against {other[memory_bound]}/{other[steps]}): TOKEN_BUDGET {budget} keeps every step below the ridge point, so prompt chunks ride on decode steps at almost no extra time.",
    "b12.roofline_best_tie": "Fastest: both continuous policies, tied ({chunked[span]:ms}, {chunked[steps]:pl step}): TOKEN_BUDGET {budget} holds every prompt, so no prompt is split.",
    "b12.roofline_best_tie_split": "Fastest: both continuous policies, tied ({chunked[span]:ms}; {chunked[steps]:pl step} with chunking, {nochunk[steps]:pl step} without): chunking split the prompts longer than TOKEN_BUDGET {budget}, yet the run ends at the same time.",
    "b12.roofline_best_nochunk": "Fastest: continuous without chunking ({nochunk[span]:ms}, {nochunk[steps]:pl step}): splitting prompts at TOKEN_BUDGET {budget} adds {extra:pl step}, and every step reads all the weights again. Chunking pays off when prompts are long enough for a whole prefill to be compute-bound and to stall the other decodes (exercise 22).",
    "b12.roofline_best_static": "Fastest: static ({static[span]:ms}, {static[steps]:pl step}): for this trace, waiting for a full batch needs the fewest steps.",
    "b12.roofline_best_cluster": "Fastest: {name} ({p[span]:ms}). On a cluster the run ends with the last step of the replica that finishes last, so the total of steps over all replicas does not rank the policies.",
    "b12.conclusion_roofline": "Conclusion: under CLOCK=roofline every step takes the time {gpu} needs for {model} (one forward pass, the weights read once), so a mixed decode + prefill step is not charged twice; this is still an estimate from datasheets over {n:pl request}, not a measurement.",
    "b12.one_gpu": "{cfg[GPU]}",
    "b12.gpu_group": "a group of {cfg[TENSOR_PARALLEL]} {cfg[GPU]} GPUs (TENSOR_PARALLEL={cfg[TENSOR_PARALLEL]}, its all-reduces included)",
    "b12.conclusion": "Conclusion: these differences follow from an assumed cost model over 3 requests, NOT from real GPU speed; another trace or other COST_* can change the ranking.",
    "b12.cost": "Cost (main run): {e[gpus]:pl GPU} ({gpu}; REPLICAS × TENSOR_PARALLEL) × {e[price_per_hour]:g} US$/hour (GPU_PRICE_PER_HOUR) × {span:.3f} s from the first arrival to the last finish = {e[dollars]:.6f} US$, i.e. {e[usd_per_m_output]:.2f} US$ per million output tokens ({e[output_tokens]:,} tokens) and {e[usd_per_m_tokens]:.2f} US$ per million tokens in + out ({total:,} tokens).",
    "b12.energy": "Energy (linear model P = P_idle + (TDP − P_idle) × utilisation; TDP {e[tdp]:.0f} W, idle {e[idle_watts]:.0f} W per GPU): the GPUs run at {busy:.0f}% of their peak during steps, {util:.0f}% over the whole span, {e[mean_watts]:.0f} W per GPU on average → {e[joules]:,.1f} J, {e[joules_per_output_token]:.3f} J per output token, {e[output_tokens_per_kwh]:,} output tokens per kWh.",
    "b12.benchmark": "A real benchmark needs: warm-up, many repetitions, p50/p95/p99, the same hardware and the same load pattern. One run is not enough.",
    # ── [13] ───────────────────────────────────────────────────────────────
    "b13.title": "Quality gate: do the original and the INT{d[bits]} model pick the same tokens?",
    "b13.method": "Method: for each prompt the original model decodes greedily for {d[steps]} steps; at each step the quantized model gets the SAME context and we compare the top-1 tokens (teacher forcing).",
    "b13.last_row": "Prompts longer than {long} tokens (a generated workload): the prompt pass computes only the last row of logits (model.logits_at: every position's K/V, attention for the last row only). The lab's model has 1 layer, so the other rows do not change the last one; the result is that of a full forward, only cheaper (O(T) instead of O(T²)).",
    "b13.sample": "The generated workload has {n} requests: the gate looks at the first {k} prompts (R1 … R{k}); every prompt is generated the same way, so they are a sample, and the run stays fast.",
    "b13.row": "  {r[id]}: {r[agree]}/{r[n]} top-1 decisions agree; largest logit error {r[max_err]:.4f}",
    "b13.skipped": "  {s[id]}: skipped: {why}",
    "b13.total": "Total: {same}/{d[decisions]} decisions unchanged = {pct:.1f}%; assumed gate threshold {gate:.0f}% -> {verdict}.",
    "b13.pass": "PASS",
    "b13.fail": "FAIL",
    "b13.closest": "Closest decision: prompt {t[id]}, step {step}: the original leads the runner-up by {t[margin]:.4f}; the quantized model leads by {t[margin_q]:.4f} "
                   "-> the chosen token {kept}.",
    "b13.kept": "is kept",
    "b13.changed": "HAS CHANGED",
    "b13.kv_method": "FP8 KV cache (KV_BITS=8), the same probe: the original model against the model whose KV cache is FP8 (weights kept float), the SAME context at every step:",
    "b13.kv_total": "Total with the FP8 KV cache: {same}/{d[decisions]} decisions unchanged = {pct:.1f}%, {d[flips]} flipped (a token the 16-bit KV cache would not pick there); assumed gate threshold {gate:.0f}% -> {verdict}.",
    "b13.kv_flip": "  Flipped: prompt {t[id]}, step {step}: the original picks '{t[text]}' (ahead of the runner-up by {t[margin]:.4f}); with the FP8 KV cache '{t[text_q]}' comes first.",
    "b13.kv_served_same": "Served run: the {d[compared]} finished requests got exactly the tokens the same run gives with a 16-bit KV cache (same constants, pool and clock).",
    "b13.kv_served": "Served run: {n} of {d[compared]} finished requests got other tokens than the same run with a 16-bit KV cache (same constants, pool and clock):",
    "b13.kv_served_row": "  {c[id]}: from token {at} on: '{c[text]}' ({c[n]} tokens) instead of '{c[text16]}' ({c[n16]} tokens)",
    "b13.kv_served_skipped": "Served run: a generated workload's tokens are not compared with a run on a 16-bit KV cache (the model would compute every token twice); the gate's flipped decisions above measure the FP8 cache.",
    "b13.no_decisions": "Total: no prompt could be tokenized, so the quality gate has no decision to compare.",
    "b13.reading": "Reading: a top-1 token only changes when the error swaps the order of two scores; the largest logit error (lines above) is only an upper bound and does not by itself mean a token changed.",
    "b13.conclusion": "Conclusion: this gate is a regression check on a toy model, {d[decisions]:pl decision}. It does NOT measure language quality; a real one needs task-based evals.",
    # ── SUMMARY ────────────────────────────────────────────────────────────
    "summary.cancelled": "was cancelled",
    "summary.rejected": "was rejected",
    "summary.note_nobody": "Note: {fl[id]} {fate} and no request was served, so the probability and attention checks are skipped.",
    "summary.note_stand_in": "Note: {fl[id]} {fate}, so the probability/attention checks use the served request {used} instead of {fl[id]}.",
    "summary.followed": "1. Request {fl[id]} went through the 13 blocks; TTFT {fm[ttft]:ms} = preparation {fm[prep]:ms} + waiting for a slot {fm[queue]:ms} + prefill {fm[prefill]:ms}.",
    "summary.not_followed": "1. {refusal}; the followed blocks said so. {how}",
    "summary.title": "SUMMARY: What did you just observe?",
    "summary.tokens": "2. Changing the scheduling or storing KV in blocks does not change the generated tokens (tokens and logits compared); they only change time and memory.",
    "summary.distributions": "3. Attention weights (over positions) and vocabulary probabilities (over tokens) are two different distributions, each summing to 1.",
    "summary.simulated": "4. The ms figures are simulated from assumptions; the bytes, positions, tokens and errors are real results computed in this lab.",
    "summary.fail": "FAIL: invariant checks failed: {labels}.",
    "summary.pass": "PASS: the miniature LLM serving pipeline runs correctly (cache matches recompute, all blocks returned, scheduling does not change content).",
    # ── notes beside the seed's lines (text_notes.py: said when the line above is false or incomplete for the run) ──
}

SAY.update(notes_en.SAY)          # the notes beside the seed's lines (notes_en.py), same keys
SAY.update(spec_en.SAY)           # speculative decoding's sentences (spec_en.py), same keys
SAY.update(own_en.SAY)            # the lab's own sentences where the seed's would be false (own_en.py)
SAY.update(cluster_en.SAY)        # the cluster's sentences (cluster_en.py, text_cluster.py), same keys
WORDS = text.Words(SAY, checks=CHECK_LABELS, docs=VLLM_DOCS, policies=POLICY_NAMES)
BLOCKS, header_lines, summary_lines = text.bind(WORDS)
notes = partial(text.notes, WORDS)   # {part: [note]} beside the seed's lines (text_notes.py)

