"""Every sentence the lab prints, in English, one function per block: the sibling of text_vi.py.

Same shape as text_vi.py: each `blockN(data, ctx)` receives the block's facts (plain data
gathered by lab.py) and returns (title, lines); `header_lines`, `summary_lines`,
`CHECK_LABELS` and `TRACE` likewise. Every line prints the same numbers, in the same order,
as the Vietnamese line in the same place (tests/test_english.py compares them for every
golden configuration), so the two editions state the same facts in other words.

The wording follows the vocabulary of the vLLM and SGLang docs (admission, waiting queue,
chunked prefill, block table, preemption by recompute, TTFT/TPOT/ITL).

Formatting is pure: no function here changes the data, context or checks it is given.

Leaves out: all computation — only formatting happens here; the helpers that carry no words
(ms, vec, Context, BLOCK_CODES) are text_vi.py's, imported.
"""
from __future__ import annotations

from .text_vi import BLOCK_CODES, Context, ms, steps_by_problem, vec  # noqa: F401  (BLOCK_CODES, Context re-exported)

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
    "prefix_cache_same_text": "turning the prefix cache on does not change the generated tokens",
}

# The pool's invariant violations (block_manager.BlockManager.audit's codes), printed in block [6] when a run breaks one.
POOL_PROBLEMS = {
    "negative_ref_cnt": "negative reference count",
    "ref_cnt_mismatch": "a reference count differs from the number of block tables holding the block",
    "not_conserved": "blocks not conserved (duplicated, lost, or both free and owned)",
    "stale_hash": "the hash map points to a block carrying another hash",
}

# The public vLLM documents each simulated behaviour follows (named in the text and on the page).
VLLM_DOCS = {
    "prefix_cache": "vLLM's design document \"Automatic Prefix Caching\"",
    "abort": "vLLM's request abort path (finish_requests, status FINISHED_ABORTED)",
    "priority": "vLLM's \"priority\" scheduling policy (SchedulerConfig.policy)",
}

POLICY_NAMES = {"static": "static (waits for a full batch)", "nochunk": "continuous, no prompt chunking"}

TRACE = dict(process="Inference Lab (simulated clock, µs)", request="request {id}", arrive="arrive",
             ready="ready", first="first token", finish="finish", abort="cancelled", reject="rejected {code}")


def pl(n, word: str) -> str:
    """'1 token', '2 tokens': English plurals (the number is printed as is)."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def policy_name(name, cfg):
    return POLICY_NAMES.get(name, f"continuous + chunked ({cfg['TOKEN_BUDGET']} tokens/step)")


def why(d) -> str:
    """The reason of a gateway / input decision."""
    f, reason = d["facts"], d["reason"]
    if d["stage"] == "gateway":
        state = "at the limit" if d["code"] == "429" else "below the limit"
        return f"{pl(f['in_system'], 'request')} in the system, {state} {f['slots']}+{f['queue_limit']}"
    if reason == "unknown":
        return unknown_text(f["chars"], f["pieces"])
    if reason == "pool":
        return (f"prompt {pl(f['prompt'], 'token')} + max_new {f['max_new']} needs {pl(f['blocks'], 'KV block')} "
                f"({f['total'] - 1} positions, {f['block_size']} tokens per block) > POOL_BLOCKS {f['pool_blocks']}: it can never fit in the KV pool")
    sign = ">" if d["code"] == "400" else "<="
    total = f" = {f['total']}" if d["code"] == "400" else ""
    return f"prompt {pl(f['prompt'], 'token')} + max_new {f['max_new']}{total} {sign} MAX_CONTEXT {f['max_context']}"


def unknown_text(chars, pieces, code="code 400: ") -> str:
    """400 because the tokenizer cannot encode the text: name the characters (or the BPE pieces)."""
    if chars:
        return f"{code}the text has characters the tokenizer never saw: {', '.join(repr(c) for c in chars)} (the vocabulary is learned from 5 sample sentences only)"
    return (f"{code}BPE splits the text into pieces missing from the vocabulary: {', '.join(repr(p) for p in pieces)} "
            "(intermediate pieces of a merge; the vocabulary is learned from 5 sample sentences only)")


def refusal(ctx) -> str:
    """The followed request was refused (or aborted): where and why (no full stop)."""
    fl = ctx.follow
    if fl["stage"] == "cancel":
        f = fl["facts"]
        where = "while running" if f["stage"] == "running" else "while still waiting"
        return (f"The followed request {fl['id']} was CANCELLED at {ms(f['time'])} {where} (the client cancelled at {ms(f['cancel_at'])}), "
                f"after {pl(f['generated'], 'token')}")
    where = "at the gateway" if fl["stage"] == "gateway" else "during input preparation"
    d = dict(stage=fl["stage"], code=fl["code"], reason=fl["reason"], facts=fl["facts"])
    return f"The followed request {fl['id']} was REJECTED {fl['code']} {where} ({why(d)})"


def refused(ctx) -> str:
    return f"{refusal(ctx)}, so this block has no numbers for {ctx.follow['id']}."


def how_to_follow(ctx) -> str:
    ids = ctx.follow["served_ids"]
    if not ids:
        return "No request was served: see why in blocks [1] and [2] (raise SLOTS, QUEUE_LIMIT, MAX_CONTEXT or POOL_BLOCKS) and run again."
    return f"To follow a request in detail, set FOLLOW (--follow) to a served request: {', '.join(ids)}."


def not_followed(ctx) -> list[str]:
    return [refused(ctx), how_to_follow(ctx)]


# ── header ─────────────────────────────────────────────────────────────────
def request_line(r, follow) -> str:
    mode = "greedy" if r["temperature"] == 0 else f"sampling T={r['temperature']} top_k={r['top_k']} top_p={r['top_p']}"
    mark = "  <- followed request" if r["id"] == follow else ""
    extra = f", priority {r['priority']}" if r.get("priority") is not None else ""
    extra += f", client cancels at {ms(r['cancel_at'])}" if r.get("cancel_at") is not None else ""
    return f"  {r['id']}: arrives {ms(r['arrival'])}, \"{r['text']}\", max_new={r['max_new']}, {mode}, seed {r['seed']}{extra}{mark}"


def vllm_line(d) -> list[str]:
    """The header's line about the vLLM behaviours switched on (none by default)."""
    parts = []
    if d["prefix_cache"]:
        parts.append(f"automatic prefix caching ON (PREFIX_CACHE=on, after {VLLM_DOCS['prefix_cache']})")
    if d["sched_policy"] == "priority":
        parts.append(f"priority scheduling (SCHED_POLICY=priority, after {VLLM_DOCS['priority']})")
    return [f"VLLM: {'; '.join(parts)}."] if parts else []


def header_lines(d) -> list[str]:
    return [
        "=== END-TO-END LAB: ONE REQUEST THROUGH THE WHOLE LLM SERVING PIPELINE ===",
        "GOAL: follow one request with real numbers from the gateway to its stop, then read TTFT, TPOT and throughput.",
        f"INPUT: 5 requests reach one engine (arrival times on the simulated clock). You follow request {d['follow']} through every block.",
        *[request_line(r, d["follow"]) for r in d["requests"]],
        f"CONFIG: {d['slots']} running slots + {d['queue_limit']} queue places; at most {d['token_budget']} tokens per step; "
        f"KV blocks of {d['block_size']} tokens x {d['pool_blocks']} blocks; max context {d['max_context']}.",
        *vllm_line(d),
        f"MODEL: 1 decoder layer (MHA {d['n_heads']} heads, RoPE, SwiGLU), d_model={d['d_model']}, vocabulary of {d['vocab']} tokens, random weights seed {d['seed']}.",
        "CLOCK: simulated with assumed cost formulas (see COST_* at the top of the file). Every 'ms' below is SIMULATED, not measured on a GPU.",
        "HOW TO READ: each block [n · Name] carries the name of its box on the Tab 01 diagram. Read the Observation, look at the numbers, then state the Conclusion yourself.",
        "NOTE: the engine runs ONCE; the blocks print back what the engine recorded. "
        + ("Routing and authentication are not simulated; request cancellation is, from the cancel_at column." if d["cancels"]
           else "Routing, authentication and request cancellation are not simulated."),
        "",
    ]


# ── [1] ────────────────────────────────────────────────────────────────────
def block1(d, ctx):
    lines = [f"Observation: the gateway looks at requests in arrival order; the system holds at most {d['capacity']} requests (running + waiting)."]
    for x in d["decisions"]:
        verdict = "admitted" if x["code"] == "OK" else "REJECTED " + x["code"]
        lines.append(f"{x['request']} (arrives {ms(x['arrival'])}): {verdict} - {why(x)}")
    lines += [abort_line(a) for a in d["aborts"]]
    rejected = d["n_429"] + d["n_400"]
    if d["n_aborted"]:
        n = d["n_aborted"]
        lines.append(f"Counts: offered={d['offered']}; rejected 429 at the gateway={d['n_429']}; rejected 400 during input preparation={d['n_400']}; "
                     f"cancelled={n}; served={d['served']}.")
        lines.append(f"Check: offered = served + rejected + aborted -> {d['offered']} = {d['served']} + {rejected} + {n} "
                     f"-> {d['offered'] == d['served'] + rejected + n}.")
    else:
        lines.append(f"Counts: offered={d['offered']}; rejected 429 at the gateway={d['n_429']}; rejected 400 during input preparation={d['n_400']}; served={d['served']}.")
        lines.append(f"Check: offered = served + rejected -> {d['offered']} = {d['served']} + {rejected} -> {d['offered'] == d['served'] + rejected}.")
    lines.append("Conclusion: rejecting early keeps the queue bounded, so a request that arrives when the system is full gets 429 instead of waiting long and missing its deadline anyway." if d["n_429"]
                 else "Conclusion: with the current limits the queue never fills, so no request gets 429; lower QUEUE_LIMIT to see rejections.")
    lines.append("Limitation: the gateway only decides between two steps, so a request arriving mid-step is considered when that step ends (its arrival time is kept).")
    return "Gateway and admission control", lines


def abort_line(a) -> str:
    """A cancelled request, as block [1] tells it (who, when, why, what it had)."""
    where = (f"running, {pl(a['generated'], 'token')} generated, frees blocks {a['blocks']}" if a["stage"] == "running"
             else f"still waiting, {pl(a['generated'], 'token')} generated" + (f", frees blocks {a['blocks']}" if a["blocks"] else ""))
    return (f"{a['request']}: the client CANCELS at {ms(a['cancel_at'])} -> the engine drops it at the step boundary at {ms(a['time'])} "
            f"({where}); it leaves the system and frees its place, as in {VLLM_DOCS['abort']}.")


# ── [2] ────────────────────────────────────────────────────────────────────
def block2_follow(d, ctx) -> list[str]:
    f, fl = d["follow"], ctx.follow
    lines = []
    if f["ids"]:
        lines += [f"Request {f['id']}: \"{f['text']}\" -> {f['tokens']}",
                  f"Token IDs: {f['ids']}  (an ID is only a row number in the vocabulary; the meaning lives in the embedding vector the model looks up by ID)."]
    if fl["served"]:
        return lines + [f"Budget: prompt {pl(f['prompt_len'], 'token')} + max_new {f['max_new']} = {f['prompt_len'] + f['max_new']} <= MAX_CONTEXT {d['max_context']}.",
                        *prefix_line(d)]
    return lines + not_followed(ctx)


def prefix_line(d) -> list[str]:
    """Block [2]: how much of the followed prompt the prefix cache already held (only when it is on)."""
    if not d["prefix_cache"]:
        return []
    f, n = d["follow"], d["cached_tokens"]
    if n:
        return [f"Prefix cache: the first {n}/{f['prompt_len']} tokens of prompt {f['id']} were already cached (full blocks of an earlier "
                f"request with the same prefix, same hash), so the engine only prefills {pl(f['prompt_len'] - n, 'token')}."]
    return [f"Prefix cache: no full block at the start of prompt {f['id']} was cached when it started running, so all {f['prompt_len']} tokens are prefilled."]


def block2(d, ctx):
    lens = d["prompt_lens"]
    lines = [
        f"BPE learns {d['n_merges']} merges from {d['n_corpus']} sample sentences; the final vocabulary has {d['vocab']} tokens (including <bos>, <eos>).",
        f"First merges: {d['first_merges']} ... ('</w>' marks the end of a word).",
        *block2_follow(d, ctx),
        ("Prompt lengths: " + ", ".join(f"{rid}={n}" for rid, n in lens) + " tokens (including <bos>).") if lens
        else "Prompt lengths: no request was served.",
        *[f"Blocked: {x['request']} - {why(x)}." for x in d["blocked"]],
    ]
    prep = (f"{d['follow']['id']} is ready after {ms(d['prep'])}." if d["prep"] is not None
            else f"{d['follow']['id']} never entered the queue, so it has no preparation time.")
    lines.append(f"Preparation cost (assumed): gateway {ms(d['cost_gateway'])} + {d['cost_tokenize'] / 1000:.2f} ms per token -> {prep}")
    lines.append("Conclusion: the same text must give the same token IDs on every replica; a wrong tokenizer or chat template changes how the model behaves.")
    return "Chat template, BPE and the token budget", lines


# ── [3] ────────────────────────────────────────────────────────────────────
def preemption_line(p, policy="fcfs") -> str:
    at = f"Preemption at step {p['step']} ({ms(p['time'])}): "
    who = ("the most recently admitted" if policy != "priority"
           else f"priority {p['priority']}, arrived {ms(p['arrival'])}: the largest (priority, arrival) of the running sequences")
    if not p["blocks"]:
        return (at + f"no free KV block for {p['request']} ({who}, holding no block yet), so it "
                f"gives up its slot and goes back to the front of the waiting queue; no work is lost.")
    return (at + f"out of free KV blocks, so {p['request']} ({who}) is preempted, "
            f"frees blocks {p['blocks']} and goes back to the front of the waiting queue; when it runs again it must prefill {pl(p['recompute'], 'token')} again "
            f"(prompt + {p['generated']} generated).")


def block3(d, ctx):
    fid = ctx.follow["id"]
    lines = ["Each line: step (start -> end), number of waiting/running requests, then [request:phase:tokens] with p = prefill (a prompt chunk), d = decode (1 new token)."]
    for i, st in enumerate(d["steps"]):
        work = " ".join(f"{rid}:{p[0]}:{n}" for rid, p, n in st["tasks"])
        lines.append(f"step {i + 1:>2}: {ms(st['start'])} -> {ms(st['end'])} | waiting={st['waiting']} running={st['running']} | {work}")
    if not d["steps"]:
        lines.append("No steps: no request was served.")
    else:
        lines.append(f"Observation: step 1 starts at {ms(d['steps'][0]['start'])} with {d['lone']} only; "
                     + ", ".join(f"{r['id']} has arrived but is still in input preparation, ready at {ms(r['ready'])}" for r in d["late"])
                     + ". The scheduler does not wait.")
    mixed = d["mixed"]
    lines.append(f"Steps {mixed} decode for running requests and prefill for new ones at once: they share one step and (under the assumed cost formula) the two phases run back to back, so decode waits for the prefill to finish." if mixed
                 else "No step mixes decode and prefill.")
    lines += [preemption_line(p, d["sched_policy"]) for p in d["preemptions"]]
    lines += [overtake_line(o) for o in d["overtakes"]]
    lines += [f"Cancelled at the step boundary at {ms(a['time'])}: {a['request']} (the client cancelled at {ms(a['cancel_at'])}) leaves "
              f"{'the running batch' if a['stage'] == 'running' else 'the waiting queue'}; the scheduler no longer puts it in any step."
              for a in d["aborts"]]
    if "follow" in d:
        f = d["follow"]
        lines.append(f"Chunked prefill: the prompt of {fid}, {f['prompt_len']} tokens long, is processed in chunks {d['chunks']} (budget {d['token_budget']} tokens per step).")
        if f["preempted"]:
            lines.append(f"These chunks include what {fid} had to prefill again after being preempted {pl(f['preempted'], 'time')}.")
        lines.append(f"{fid}: ready at {ms(f['ready'])}, but its first step starts at {ms(f['start'])} -> waited {ms(f['queue'])} for a slot.")
    else:
        lines += not_followed(ctx)
    lines.append("Conclusion: continuous batching admits new requests at every step boundary as soon as a slot frees up, without waiting for the previous batch to finish.")
    return "Iteration-level scheduling (continuous batching + chunked prefill)", lines


def overtake_line(o) -> str:
    behind = ", ".join(f"{x['id']} (priority {x['priority']}, arrived {ms(x['arrival'])})" for x in o["overtaken"])
    return (f"Priority at step {o['step']} ({ms(o['time'])}): {o['request']} (priority {o['priority']}) starts running before {behind} "
            f"although it arrived later, because SCHED_POLICY=priority orders the waiting queue by (priority, arrival), lower first.")


# ── [4] ────────────────────────────────────────────────────────────────────
def block4(d, ctx):
    title = "Processing the prompt, writing KV and producing the first logits"
    fid = ctx.follow["id"]
    conclusion = "Conclusion: prefill ends with the first token, so prefill plus the wait decides TTFT. Logits are scores, not yet probabilities."
    if not ctx.follow["served"]:
        return title, not_followed(ctx) + [conclusion]
    row = d["logits"]
    again = f" (including the prefill redone after {pl(d['preempted'], 'preemption')})" if d["preempted"] else ""
    n = d.get("cached_tokens", 0)
    first = (f"Prompt {fid} has {pl(d['prompt_len'], 'token')}: the first {n} come from the prefix cache (K/V already there, not recomputed), "
             f"the remaining {d['prompt_len'] - n} -> chunks {d['chunks']}{again} run through the model; every token writes its K and V into the cache."
             if n else
             f"Prompt {fid} has {pl(d['prompt_len'], 'token')} -> chunks {d['chunks']}{again} run through the model; every token writes its K and V into the cache.")
    return title, [
        first,
        f"After prefill, the cache of {fid} holds K of shape {tuple(d['k_shape'])} = (heads, tokens, head dim); V has the same shape.",
        f"Only the LAST row of the logits picks the first token: {vec(row, 2)}",
        f"How to read it: {len(row)} columns = {len(row)} tokens in the vocabulary; the three highest scores are at IDs {d['top3']} = {d['top3_tokens']} (scores {vec(d['top3_scores'], 2)}).",
        f"The first token of {fid} appears at {ms(d['first_time'])} -> TTFT = {ms(d['first_time'])} - {ms(d['arrival'])} = {ms(d['ttft'])}.",
        conclusion,
    ]


# ── [5] ────────────────────────────────────────────────────────────────────
def block5(d, ctx):
    title = "Attention weights and logits are two different distributions"
    parity = f"largest difference <= 1e-9: {d['parity'] <= 1e-9} (what is left is float64 rounding only)."
    common = [
        "Each row is a softmax over source POSITIONS and sums to 1; future positions are blocked by the causal mask (probability 0).",
        f"The two heads are concatenated, go through W_O, the residual, SwiGLU, then the LM head gives {d['vocab']} scores over candidate TOKENS (the logits row of block [4]).",
        "The difference: attention weights say 'which positions to read from'; logits say 'which token comes next'. Probabilities over the vocabulary only appear in block [8].",
    ]
    if not ctx.follow["served"]:
        n = len(ctx.follow["served_ids"])
        return title, not_followed(ctx) + common + [
            f"Numerical check: logits through the KV cache match recomputing the whole sequence at EVERY step ({n} requests served), {parity}"]
    a0, a1 = d["heads"]
    return title, [
        f"Last row of the prefill: token '{d['token_text']}' (ID {d['token']}) at position {d['position']} looks back at {len(a0)} source positions 0..{d['position']}.",
        f"Attention weights head 0: {vec(a0)} sum = {d['sums'][0]:.6f}",
        f"Attention weights head 1: {vec(a1)} sum = {d['sums'][1]:.6f}",
        f"How to read it: each head has its own K/V (MHA), so each gives a different distribution; head 0 looks most at position {d['argmax'][0]}, head 1 looks most at position {d['argmax'][1]}.",
        *common,
        f"Numerical check: logits through the KV cache match recomputing the whole sequence at EVERY step (prefill + decode, all 3 requests), {parity}",
    ]


# ── [6] ────────────────────────────────────────────────────────────────────
def block6(d, ctx):
    pk, bs = d["peak"], d["block_size"]
    slots_used = pk["used"] * bs
    lines = []
    if d["served"]:
        lines += [f"Each block holds {bs} tokens. At the moment of peak block use, the block table (logical -> physical) of each sequence is: "
                  + "; ".join(f"{rid}→{blk}" for rid, blk in pk["tables"].items()) + ".",
                  "How to read it: logical blocks 0, 1, 2... of a sequence sit in physical blocks that need not be contiguous and may interleave across sequences; the block table is the lookup.",
                  f"Then {pk['used']}/{d['pool_blocks']} blocks are in use = {slots_used} token slots, holding {pk['tokens']} tokens -> {slots_used - pk['tokens']} slots unused in the last block of each sequence.",
                  f"Compare: a contiguous array of {d['max_context']} tokens for each running slot needs {d['slots'] * d['max_context']} token slots; paging needs only {slots_used}.",
                  "Blocks freed in order of finishing: " + "; ".join(f"{rid} frees {blk}" for rid, blk in d["released"]) + "."]
    else:
        lines.append(f"Each block holds {bs} tokens. No sequence was served, so no block was allocated.")
    kept = ("its full blocks keep their hash at the end of the free queue, so when it runs again it may hit them" if d["prefix_cache"]
            else "its K/V are dropped and will be recomputed")
    lines += [f"Preemption at step {p['step']}: {p['request']} is preempted for lack of free blocks and returns blocks {p['blocks']} to the pool ({kept})."
              if p["blocks"] else f"Preemption at step {p['step']}: {p['request']} held no block yet and gives up its slot because the pool has no free block."
              for p in d["preemptions"]]
    lines += [
        ("Blocks reused: " + "; ".join(f"block {b}: {' → '.join(o)}" for b, o in d["reused"]) + ".") if d["reused"]
        else "No block is reused in this trace.",
        f"After every request finishes, {d['free']}/{d['pool_blocks']} blocks are free (no leak).",
        f"Numerical check: K/V gathered from scattered blocks match K/V recomputed from scratch for each sequence, largest difference <= 1e-9: {d['gather'] <= 1e-9}.",
    ]
    lines += pool_problem_lines(d)
    if d["prefix_cache"]:
        lines += prefix_cache_lines(d)
    else:
        lines.append("Limitation: no prefix caching or reference counting; when blocks run out the engine preempts by recompute as vLLM does (no swapping to CPU)."
                     if d["any_preemption"] else "Limitation: no prefix caching, reference counting or preemption when blocks run out.")
    return "Physical blocks, block tables and freeing blocks", lines


def pool_problem_lines(d) -> list[str]:
    """Block [6]'s invariant violations (none in a correct run, so nothing is printed then)."""
    if not d["pool_problems"]:
        return []
    found = steps_by_problem(d["pool_problems"])
    return ["Block pool invariants broken: "
            + "; ".join(f"{POOL_PROBLEMS[code]} ({'step' if len(steps) == 1 else 'steps'} {', '.join(map(str, steps))})"
                        for code, steps in found.items()) + "."]


def prefix_cache_lines(d) -> list[str]:
    """Block [6] with PREFIX_CACHE=on: hits, shared blocks (ref count > 1), evictions, what stays cached."""
    hits = [f"{h['request']} takes {pl(h['tokens'], 'token')} (blocks {h['blocks']}) at step {h['step']}"
            + (" while recomputing after a preemption" if h["recompute"] else "") for h in d["hits"]]
    lines = [f"Prefix cache (after {VLLM_DOCS['prefix_cache']}): every FULL block carries hash = hash(its tokens, the parent block's hash); "
             "a sequence that starts running takes back the full blocks matching the start of its prompt (reference count +1) and prefills only the rest, at least the last token.",
             ("Cache hits: " + "; ".join(hits) + ".") if hits
             else "Cache hits: none (no prompt's first full block matched a block already computed)."]
    if d["shared_blocks"]:
        lines.append(f"Shared blocks (reference count > 1, read by several running sequences): {d['shared_blocks']}; "
                     f"at most {d['max_shared']} sequences held one block at once.")
    else:
        lines.append("Shared blocks: no two running sequences ever held the same block (the reference count stays <= 1).")
    ev = [f"block {e['block']} (step {e['step']})" for e in d["evictions"]]
    lines.append(("Evicted (the head of the free block queue, LRU, taken for new data so its hash is lost): " + ", ".join(ev) + ".") if ev
                 else "Evicted: no hashed block was taken back for new data.")
    lines.append(f"A freed block goes to the END of the free queue (a sequence's last block first) and keeps its hash: at the end {len(d['cached_free'])} free blocks "
                 "can still be reused by a later request with the same prefix.")
    lines.append("Limitation: only full blocks are shared and they are never written again (no copy-on-write needed); blocks with equal contents are not merged "
                 "(block tables only append, as in vLLM v1); no swapping to CPU, no cache_salt.")
    return lines


# ── [7] ────────────────────────────────────────────────────────────────────
def block7_decode(d, fid) -> list[str]:
    fd = d.get("first_decode")
    if fd is None:
        return [f"{fid} stops right after its first token, so there is no decode step whose attention weights we could show."]
    return [
        f"First decode step of {fid}: feeds token '{fd['token_text']}' (position {fd['position']}); attention head 0 has {len(fd['weights'])} weights: {fd['position']} positions read from the cache + 1 position for the token itself.",
        f"Those weights: {vec(fd['weights'])} sum = {fd['sum']:.6f}; the K/V of the {fd['position']} earlier positions are not recomputed.",
    ]


def block7(d, ctx):
    fid = ctx.follow["id"]
    counts = f"with the cache = {d['positions_cached']}; recomputing the whole history every step = {d['positions_naive']}."
    tail = [
        "These are positions to compute, counted during the run; the real time saved on a GPU depends on the hardware and is NOT measured here.",
        "Conclusion: each decode step computes few tokens but must still read all the weights and the whole KV cache, so it is usually bound by memory bandwidth, not by the matrix multiplies.",
    ]
    title = "The autoregressive loop with a KV cache"
    if not ctx.follow["served"]:
        return title, not_followed(ctx) + [f"Positions fed through the model (served requests): {counts}"] + tail
    recompute = d["n_out"] - 1 - d["n_decode"]
    lines = [f"{fid} generates {pl(d['n_out'], 'token')}: 1 token from prefill + {pl(d['n_decode'], 'decode step')}; each step feeds only 1 new token."]
    if d["preempted"]:
        again = f"; {pl(recompute, 'token')} from the prefill redone (prompt + generated tokens)" if recompute else ""
        lines.append(f"{fid} was preempted {pl(d['preempted'], 'time')} (its KV dropped, to be recomputed){again}.")
    lines += block7_decode(d, fid)
    lines.append(f"The cache of {fid} is {d['cache_len']} positions long at the end (the last token is sampled but never fed to the model).")
    lines.append(f"Positions fed through the model (all 3 requests): {counts}")
    return title, lines + tail


# ── [8] ────────────────────────────────────────────────────────────────────
def stop_lines(d) -> list[str]:
    return ([f"  {s['id']}: stopped on {s['reason']} after {s['n']}/{s['max_new']} tokens -> {s['text']!r}" for s in d["stops"]]
            + [aborted_stop_line(s) for s in d.get("aborted", [])])


def aborted_stop_line(s) -> str:
    head = f"  {s['id']}: CANCELLED at {ms(s['time'])} (the client cancelled at {ms(s['cancel_at'])})"
    if not s["n"]:
        return head + f" before its first token: 0/{s['max_new']} tokens, the client received nothing"
    return head + f" after {s['n']}/{s['max_new']} tokens -> {s['text']!r} (the client had received that many tokens by streaming)"


def block8(d, ctx):
    title = "From logits to one token, then stop or continue"
    tail = ["Observation: the first token arrives exactly at TTFT, later tokens are spaced by TPOT; the engine does not wait for a whole sentence before sending.",
            "Warning: the text is gibberish (or one word repeated) because the weights are random and untrained; only the mechanics of picking a token and stopping are real."]
    stop = "Stop check after every token: <eos> or max_new_tokens reached. Result:"
    if not ctx.follow["served"]:
        return title, not_followed(ctx) + [stop, *stop_lines(d)] + tail
    fid = ctx.follow["id"]
    stream = ", ".join(f"{ms(t)} '{tok}'" for t, tok in d["stream"])
    return title, [
        f"{fid}: temperature {d['temperature']}, top_k {d['top_k']}, top_p {d['top_p']}, seed {d['seed']}; applied to the logits row of block [4].",
        f"Logits divided by the temperature, then softmax -> PROBABILITIES over {d['vocab']} tokens, sum = {d['probs_sum']:.6f}. Top five tokens: "
        + ", ".join(f"{t}={p:.3f}" for t, p in d["top5"]),
        f"The top-k/top-p filter keeps {pl(len(d['kept']), 'token')}, renormalized to sum to 1: " + ", ".join(f"{t}={p:.3f}" for t, p in d["kept"]),
        f"Random draw (seed {d['seed']}) gives ID {d['token']} = '{d['token_text']}'. Sampling a token is not yet processing it: it enters the cache at the next decode step.",
        stop, *stop_lines(d),
        f"Streaming of {fid} (simulated time, token): {stream}",
        *tail,
    ]


# ── [9] ────────────────────────────────────────────────────────────────────
def block9(d, ctx):
    bits = d["bits"]
    fid = ctx.follow["id"]
    lines = [
        f"Quantize {d['n_linear']} linear matrices ({d['elements']} elements): scale = max|w| / {d['levels']} per column, w_int = round(w / scale).",
        f"Storage format size: FP32 = {d['fp32_bytes']} bytes -> INT{bits} + FP32 scales = {d['int_bytes']:.0f} bytes ({d['fp32_bytes'] / d['int_bytes']:.2f} times smaller; computed from the format, not measured).",
        f"Largest weight reconstruction error = {d['max_err']:.4f}; theoretical bound (half the largest scale) = {d['half_scale']:.4f}.",
    ]
    if d["probe"] == fid:
        lines.append(f"Logit error on prompt {fid} (original vs quantized model, <bos> left out), largest = {d['logit_err']:.4f}.")
    elif d["probe"] is not None:
        lines.append(f"Logit error on prompt {d['probe']} (instead of {fid}, which has no token IDs; original vs quantized model, <bos> left out), largest = {d['logit_err']:.4f}.")
    lines += [
        "Conclusion: a small numerical error only says the numbers are close; whether it changes which token is picked is checked in block [13].",
        "Limitation: the lab simulates 'store integers, dequantize to floats to multiply'; real integer kernels add their own error and run at other speeds. A quantized KV cache is not simulated.",
    ]
    return f"Symmetric per-output-channel INT{bits} weight quantization", lines


# ── [10] ───────────────────────────────────────────────────────────────────
def block10(d, ctx):
    x = d["example"]
    GiB = 1024 ** 3
    real_seq = 2 * x["layers"] * x["ctx"] * x["kv_heads"] * x["head_dim"] * x["bytes"]
    hbm, weights = x["hbm_gib"] * GiB, x["weights_gib"] * GiB
    bpt = d["bytes_per_token"]
    return "Weights + KV + workspace", [
        f"In the lab: float64 weights = {d['weight_bytes']} bytes; KV pool = {d['pool_blocks']} blocks x {d['block_size']} tokens x {bpt} bytes/token = {d['pool_bytes']} bytes.",
        f"One token needs K and V: 2 x {d['n_heads']} heads x {d['d_head']} dims x {d['itemsize']} bytes (NumPy float64) = {bpt} bytes for 1 layer.",
        f"The peak moment uses {pl(d['peak_used'], 'block')} = {d['peak_used'] * d['block_size'] * bpt} bytes of KV ({100 * d['peak_used'] / d['pool_blocks']:.0f}% of the pool).",
        "Formula: KV bytes = 2 x layers x tokens x KV heads x head dim x bytes per element.",
        f"ASSUMED example (worked by hand, not measured; same setup as the HBM exercise): {x['layers']} layers, {x['ctx']} tokens, {x['kv_heads']} KV heads, head {x['head_dim']}, FP16 -> {real_seq} bytes = {real_seq / GiB:.2f} GiB for one sequence.",
        f"Say a GPU of {hbm // GiB} GiB, FP16 weights of {weights // GiB} GiB: {(hbm - weights) // GiB} GiB left for KV = at most {(hbm - weights) // real_seq} sequences of {x['ctx']} tokens (before the workspace).",
        f"If the weights shrink to half ({weights // 2 // GiB} GiB, assumed): {(hbm - weights // 2) // GiB} GiB left -> {(hbm - weights // 2) // real_seq} sequences.",
        "Conclusion: KV grows linearly with tokens and sequences; that is why KV memory, not just the weights, decides how many requests run at once.",
    ]


# ── [11] ───────────────────────────────────────────────────────────────────
def ttft_line(m, slo, lost) -> str:
    parts = [("input preparation", m["prep"]), ("waiting for a slot", m["queue"]), ("prefill", m["prefill"])]
    biggest = max(parts, key=lambda x: x[1])
    verdict = "MISSES" if m["ttft"] > slo else "meets"
    line = (f"  {m['id']}: {m['prep']:>5} + {m['queue']:>5} + {m['prefill']:>5} = {m['ttft']:>5} | largest: {biggest[0]} | "
            f"{verdict} the assumed target {ms(slo)}")
    if lost:
        line += f" | preempted at step {lost} (time lost counts in prefill if before the first token)"
    return line


def aborted_metrics_line(m) -> str:
    if m["first"] is None:
        return f"  {m['id']}: cancelled at {ms(m['finish'])} before its first token -> no TTFT; not counted in the served requests' metrics."
    return (f"  {m['id']}: cancelled at {ms(m['finish'])} after {pl(m['n'], 'token')} (first token at {ms(m['first'])}, TTFT {ms(m['ttft'])}); "
            "not counted in the served requests' metrics.")


def ttft_saved_line(rows) -> str:
    changed = [r for r in rows if r["saved"] or r["cached_tokens"]]
    if not changed:
        return "Prefix cache: against a rerun of the same trace with the cache off, no request's TTFT changes (nobody hit the cache)."
    return ("Prefix cache: TTFT with the cache on against a rerun of the same trace with it off: "
            + "; ".join(f"{r['id']} {ms(r['ttft'])} instead of {ms(r['ttft_nocache'])} "
                        f"({'saves ' + ms(r['saved']) if r['saved'] >= 0 else 'slower by ' + ms(-r['saved'])}, "
                        f"{r['cached_tokens']} prompt tokens from the cache)" for r in changed) + ".")


def block11(d, ctx):
    lines = ["Each step: duration, waiting/running requests, decode/prefill tokens, KV blocks in use (measured after finished sequences freed their blocks)."]
    for i, st in enumerate(d["steps"]):
        mark = f" | preempt {', '.join(st['preempted'])}" if st["preempted"] else ""
        lines.append(f"step {i + 1:>2}: {st['end'] - st['start']:>5} µs | waiting={st['waiting']} running={st['running']} decode={st['decode']} prefill={st['prefill']} "
                     f"| KV {st['kv_used']}/{d['pool_blocks']} ({100 * st['kv_used'] / d['pool_blocks']:.0f}%){mark}")
    lines.append("TTFT breakdown (simulated µs): input preparation + waiting for a slot + prefill = TTFT")
    served = [m for m in d["requests"] if m["status"] == "finished"]
    lines += [ttft_line(m, d["ttft_slo"], d["preempted_at"].get(m["id"])) for m in served]
    if not served:
        lines.append("  (no request was served)")
    lines += [aborted_metrics_line(m) for m in d["requests"] if m["status"] == "aborted"]
    if "ttft_saved" in d:
        lines.append(ttft_saved_line(d["ttft_saved"]))
    lines.append("Conclusion: don't look at total TTFT alone; find the largest part to know whether the bottleneck is queueing or prefill before fixing anything.")
    lines.append("Limitation: only 3 requests are served, so there is no trustworthy p95/p99; a real system needs thousands of samples.")
    return "Metrics on the simulated clock", lines


# ── [12] ───────────────────────────────────────────────────────────────────
def opt_ms(v) -> str:
    return ms(v) if v is not None else "n/a"


def policy_line(p, cfg) -> str:
    name = policy_name(p["policy"], cfg)
    if not p["served"]:
        return f"  {name:<38}: no request was served"
    line = (f"  {name:<38}: {ms(p['span'])} | {p['throughput']:.1f} tokens/s simulated | {ms(p['mean_ttft'])} / {ms(p['max_ttft'])} | "
            f"{opt_ms(p['mean_tpot'])} | {ms(p['worst_gap'])}")
    return line + (f" | {pl(p['preemptions'], 'preemption')}" if p["preemptions"] else "")


def reading_line(policies) -> str:
    by = {p["policy"]: p for p in policies}
    nochunk, chunked = by["nochunk"], by["chunked"]
    if nochunk["served"] and chunked["served"] and nochunk["mean_ttft"] < chunked["mean_ttft"] and nochunk["worst_gap"] > chunked["worst_gap"]:
        return (f"Reading: without prompt chunking the mean TTFT is lower ({ms(nochunk['mean_ttft'])} vs {ms(chunked['mean_ttft'])}) but a decoding request stalls "
                f"for up to {ms(nochunk['worst_gap'])} (vs {ms(chunked['worst_gap'])}). Chunking trades some TTFT for shorter stalls.")
    return "Reading: with the current config, chunking the prompt no longer gives the 'lower TTFT but longer stalls' trade-off; compare the two TTFT columns and the last column."


def block12(d, ctx):
    lines = ["Definitions: TTFT = time of the first token - arrival time; TPOT = mean gap between tokens after the first; throughput = total tokens / run time.",
             "Per request (continuous + chunked): TTFT | TPOT | E2E | tokens"]
    lines += [f"  {m['id']}: {ms(m['ttft'])} | {opt_ms(m['tpot'])} | {ms(m['e2e'])} | {m['n']}" for m in d["per"]]
    lines.append(f"Correct first, fast second: does the scheduling policy change the generated tokens? Every request served under all 3 policies gives the same tokens: {d['same']}.")
    lines.append("Baseline: same trace, same seeds, same cost formula; only the scheduling policy changes (static = wait for a full batch, run it to the end, then take the next).")
    lines.append("Each line: run time | throughput | mean / max TTFT | mean TPOT | largest gap between two consecutive tokens of one request")
    lines += [policy_line(p, ctx.cfg) for p in d["policies"]]
    lines.append(reading_line(d["policies"]))
    lines.append("Conclusion: these differences follow from an assumed cost model over 3 requests, NOT from real GPU speed; another trace or other COST_* can change the ranking.")
    lines.append("A real benchmark needs: warm-up, many repetitions, p50/p95/p99, the same hardware and the same load pattern. One run is not enough.")
    return "TTFT, TPOT and throughput", lines


# ── [13] ───────────────────────────────────────────────────────────────────
def block13(d, ctx):
    bits = d["bits"]
    lines = [f"Method: for each prompt the original model decodes greedily for {d['steps']} steps; at each step the quantized model gets the SAME context and we compare the top-1 tokens (teacher forcing)."]
    lines += [f"  {r['id']}: {r['agree']}/{r['n']} top-1 decisions agree; largest logit error {r['max_err']:.4f}" for r in d["rows"]]
    lines += [f"  {s['id']}: skipped: {unknown_text(s['chars'], s['pieces'], code='')}" for s in d["skipped"]]
    if d["decisions"]:
        t = d["tight"]
        lines.append(f"Total: {d['decisions'] - d['flips']}/{d['decisions']} decisions unchanged = {100 * d['agreement']:.1f}%; assumed gate threshold {100 * d['gate']:.0f}% -> {'PASS' if d['passed'] else 'FAIL'}.")
        lines.append(f"Closest decision: prompt {t['id']}, step {t['step'] + 1}: the original leads the runner-up by {t['margin']:.4f}; the quantized model leads by {t['margin_q']:.4f} "
                     f"-> the chosen token {'is kept' if t['margin_q'] > 0 else 'HAS CHANGED'}.")
    else:
        lines.append("Total: no prompt could be tokenized, so the quality gate has no decision to compare.")
    lines.append("Reading: a top-1 token only changes when the error swaps the order of two scores; the largest logit error (lines above) is only an upper bound and does not by itself mean a token changed.")
    lines.append(f"Conclusion: this gate is a regression check on a toy model, {pl(d['decisions'], 'decision')}. It does NOT measure language quality; a real one needs task-based evals.")
    return f"Quality gate: do the original and the INT{bits} model pick the same tokens?", lines


BLOCKS = {1: block1, 2: block2, 3: block3, 4: block4, 5: block5, 6: block6, 7: block7, 8: block8, 9: block9,
          10: block10, 11: block11, 12: block12, 13: block13}


# ── SUMMARY ────────────────────────────────────────────────────────────────
def stand_in_note(ctx, checks) -> list[str]:
    fl = ctx.follow
    if fl["served"]:
        return []
    fate = "was cancelled" if fl.get("code") == "aborted" else "was rejected"
    used = sorted({c.detail for c in checks if c.detail and c.detail != "skipped"})
    if not used:
        return [f"Note: {fl['id']} {fate} and no request was served, so the probability and attention checks are skipped."]
    return [f"Note: {fl['id']} {fate}, so the probability/attention checks use the served request {', '.join(used)} instead of {fl['id']}."]


def summary_lines(ctx, checks) -> list[str]:
    fl, fm = ctx.follow, ctx.follow_metrics
    if fl["served"]:
        first = f"1. Request {fl['id']} went through the 13 blocks; TTFT {ms(fm['ttft'])} = preparation {ms(fm['prep'])} + waiting for a slot {ms(fm['queue'])} + prefill {ms(fm['prefill'])}."
    else:
        first = f"1. {refusal(ctx)}; the followed blocks said so. {how_to_follow(ctx)}"
    lines = [
        "SUMMARY: What did you just observe?",
        first,
        "2. Changing the scheduling or storing KV in blocks does not change the generated tokens (tokens and logits compared); they only change time and memory.",
        "3. Attention weights (over positions) and vocabulary probabilities (over tokens) are two different distributions, each summing to 1.",
        "4. The ms figures are simulated from assumptions; the bytes, positions, tokens and errors are real results computed in this lab.",
        *stand_in_note(ctx, checks),
    ]
    failed = [c for c in checks if not c.ok]
    if failed:
        lines.append("FAIL: invariant checks failed: " + "; ".join(CHECK_LABELS[c.name] for c in failed) + ".")
    else:
        lines.append("PASS: the miniature LLM serving pipeline runs correctly (cache matches recompute, all blocks returned, scheduling does not change content).")
    return lines
