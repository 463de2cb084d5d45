"""Every sentence of the step narration, in English: the sibling of text_steps_vi.py, with the same keys.

text_steps.py fills these templates exactly as it fills the Vietnamese ones: `narrate(record, cfg)` gives
one (title, lines) per step, the first line starting with "Step N/M"; `after_lines` and
`WAIT_WHY` likewise. Each line prints the same numbers in the same order as its Vietnamese twin.

Leaves out: which sentence is said when, and all computation (text_steps.py decides, run_log.py records).
"""
from __future__ import annotations

from . import text, text_en, text_steps

SAY = {
    "wait.preparing": "input preparation not done",
    "wait.no_slot": "no free slot",
    "wait.room_rule": "admission_room (edited code) gives 0 slots although a slot is free",
    "wait.group_running": "static: the previous batch is still running",
    "wait.group_incomplete": "static: not yet a full batch of SLOTS ready requests",
    "wait.no_kv": "no KV blocks: admitted at this boundary, then back to the queue",
    "stop.eos": "hit <eos>",
    "stop.max_new_tokens": "reached max_new",
    "freed.blocks": "frees blocks {blocks}",
    "freed.none": "held no block yet",
    # ── one line per kind of event ─────────────────────────────────────────
    "gate.head": "Gateway: {e[id]} (arrives {e[arrival]:ms}) ",
    "gate.429": "is REJECTED 429 because the queue is full - {why} (SLOTS + QUEUE_LIMIT).",
    "gate.400": "passes the gateway but is REJECTED 400 during input preparation - {why}.",
    "gate.ok": "is admitted - {why}; joins the waiting queue, ready at {e[ready]:ms}.",
    "admit.full_group": "{e[id]} starts running: static has a full batch and takes all {slots} slots.",
    "admit.room": "{e[id]} starts running: {e[room]}/{slots} slots were free when checked.",
    "abort.running": "running",
    "abort.waiting": "waiting",
    "abort.gateway": "at the gateway, before it even arrived: never admitted, takes no place",
    "abort.made": "{e[generated]:pl token} generated",
    "abort.none_made": "no token generated yet",
    "abort.line": "CANCEL: {e[id]}'s client cancels at {e[cancel_at]:ms} -> the engine drops {e[id]} at the step boundary at "
                  "{e[time]:ms} ({where}, {made}, {freed}); status \"aborted\", "
                  "it runs no further (like vLLM's finish_requests).",
    "overtake.behind": "{x[id]} (priority {x[priority]}, arrived {x[arrival]:ms})",
    "overtake.line": "{e[id]} (priority {e[priority]}) starts running before {behind} although it was ready later: SCHED_POLICY=priority "
                     "orders the waiting queue by (priority, arrival), lower first.",
    "hit.own": "its own blocks, still cached from before its preemption",
    "hit.earlier": "full blocks with the same hash from an earlier prompt",
    "hit.rest": ", so it only prefills the remaining {left}/{total} tokens",
    "hit.line": "Prefix cache: {e[id]} takes back blocks {blocks} ({whose}): the first {e[tokens]} tokens "
                "of its prompt already have K/V and are not recomputed{rest}.",
    "running.decode": "{rid} decode (generated {gen})",
    "running.redo": ", recompute after preemption: prompt + {gen} generated",
    "running.prefill": "{rid} prefill (prompt {done}/{total}{redo})",
    "waiting.empty": "Waiting queue: empty.",
    "waiting.priority_of": "{id} (priority {p})",
    "waiting.by_priority": "Waiting queue (in order; admitted by priority, then arrival): {queue}.",
    "waiting.in_order": "Waiting queue (in order): {queue}.",
    "waiting.ready_at": "{id} (ready at {t:ms})",
    "waiting.busy": " ({n}/{slots} slots busy)",
    "waiting.because": "Waiting because {label}{busy}: {names}.",
    "waiting.preempted": "Preempted, waiting to recompute: {back}.",
    "waiting.more": " … and {n} more",
    "budget.cap": "Budget of {cap:pl token}: ",
    "budget.no_cap": "No token limit: ",
    "budget.decodes": "decodes first: {ids}",
    "budget.no_decode": "no decode",
    "budget.left": "{left} left for prompts: ",
    "budget.prompts": "prompts: ",
    "budget.used": " -> used {used}/{cap}, {left} left.",
    "budget.got_none": "gets no token",
    "budget.got_some": "gets only {e[got]}",
    "budget.event": "{e[id]} has {e[left]:pl prompt token} left but {got}: the step's budget of {e[cap]} tokens is used up "
                    "(decodes go first, then prompt chunks in admission order).",
    "budget.event_in_order": "{e[id]} has {e[left]:pl prompt token} left but {got}: the step's budget of {e[cap]} tokens is used up "
                             "(in the order the edited plan_tasks returned).",
    "budget.in_order": "in the order the edited plan_tasks returned (not decodes first): {order}",
    "budget.task_decode": "{id} decode {n}",
    "budget.decode_spec": "{id} 1 + {k:pl proposal}",
    "budget.task_decode_spec": "{id} verify 1 + {k:pl proposal}",
    "budget.task_prefill": "{id} prompt {n}",
    "budget.no_decode_for": "; no decode this step for {ids}",
    "spec.verify": "{rid} verifies {k} proposals [{proposed}] in one forward pass ({k1} tokens through the KV cache): {n} accepted{tail}{gone}",
    "spec.recovered": ", recovered token #{t}",
    "spec.bonus": ", bonus token #{t}",
    "spec.stop": ", stopped at eos",
    "spec.rollback": "; {e[rejected]} positions left the KV cache (blocks back to the pool: {blocks})",
    "chunk.reprefill": "re-prefill",
    "chunk.prefill": "prefill",
    "chunk.starts": "starts ",
    "chunk.done": ", prompt done",
    "chunk.line": "{e[id]} {start}{what} of {e[n]:pl token} (prompt {e[done]}/{e[total]}{end}).",
    "preempt.need": "{e[needed_by]} needs {e[need]:pl new KV block} but the pool has only {e[free]}/{pool} free blocks",
    "preempt.rule": "has the largest (priority, arrival) = ({p}, {t:ms}) of the running sequences (SCHED_POLICY=priority)",
    "preempt.self_priority": "{e[id]} {rule}, so it preempts itself",
    "preempt.other_priority": "preempt {e[id]}: it {rule}",
    "preempt.self": "{e[id]} is the most recently admitted sequence, so it preempts itself",
    "preempt.other": "preempt {e[id]} (the most recently admitted sequence)",
    "preempt.line": "PREEMPT: {need} -> {victim}: {freed}, back to the front of the waiting queue; when it runs again it must prefill "
                    "{e[recompute]:pl token} again (prompt + {e[generated]} generated).",
    "preempt.dropped": " The {e[dropped]:pl token} of work of {e[id]} in this step do not run.",
    "wait_kv.short": "WAITING FOR KV BLOCKS: {e[id]} was just admitted but its prompt chunk needs {e[need]:pl new KV block} "
                     "and the pool has only {e[free]}/{pool} free blocks -> {e[id]} goes back to its old place in the waiting "
                     "queue ({freed}) and preempts nobody: as in vLLM, a waiting request never causes a preemption.",
    "wait_kv.gives_way": "WAITING FOR KV BLOCKS: {e[by]} needs {e[need]:pl new KV block} and the pool has only {e[free]}/{pool} "
                         "free blocks -> {e[id]} (the last one admitted at this boundary) gives way first: {freed}, back to "
                         "its old place in the waiting queue.",
    "wait_kv.behind": "WAITING FOR KV BLOCKS: {e[id]} was admitted after {e[by]} at this boundary, and {e[by]} got no KV "
                      "blocks -> {e[id]} goes back to its old place in the waiting queue too ({freed}): vLLM stops taking "
                      "requests at the first one short of blocks.",
    "wait_kv.preempted": "WAITING FOR KV BLOCKS: this step preempted a running sequence -> {e[id]} (just admitted) goes back "
                         "to its old place in the waiting queue ({freed}): as in vLLM, a step that preempts takes no request "
                         "from the waiting queue.",
    "first": "{e[id]} gets its first token at {e[time]:ms} (TTFT ends here).",
    "kv_send": "{e[id]} finished its prefill on this replica: its KV of {e[positions]} positions ({e[bytes]} bytes) "
               "leaves for decode replica {e[to]}, arriving at {e[arrive]:ms}; frees blocks {blocks}.",
    "kv_recv": "{e[id]} receives its KV from prefill replica {e[source]} ({e[positions]} positions, {e[bytes]} bytes, "
               "arrived at {e[arrived]:ms}, waited {e[waited]} µs for blocks), written into blocks {blocks}; it decodes "
               "on from its second token.",
    "title.kv_send": "{e[id]} ships its KV to replica {e[to]}",
    "title.kv_recv": "{e[id]} receives its KV from replica {e[source]}",
    "step.replica": "replica {r}: {title}",
    "finish": "{e[id]} finishes ({why}, {e[n]:pl token}), frees blocks {blocks}, gives up its slot.",
    "kv.after": "KV after the step: {tables}.",
    "kv.no_tables": "no sequence holds a block",
    "kv.alloc": " Just allocated {blocks}.",
    "kv.reused": " Taken back from the prefix cache {blocks}.",
    "kv.freed": " Just freed {blocks}.",
    "kv.shared": " Shared: {shared}.",
    "kv.free": " Free {n}/{pool}: {ranges}",
    "kv.cached": "; of these, still holding a prefix-cache hash (reusable until taken for new data): {ranges}",
    "kv.none_left": "none left",
    # ── CLOCK = roofline: the step's cost (roofline.py) ────────────────────
    "cost.decode": "decode {n:pl token}",
    "cost.prefill": "prefill {n:pl token}",
    "cost.line": "Cost on {gpu} ({model}): {what}: {gb} GB read, {gflop} GFLOP -> {bound}: {floor_ms} ≈ {term} at the full peak; {tail}.",
    "cost.line_tp": "Cost on each GPU of {tp} x {gpu} ({model}, TENSOR_PARALLEL={tp}): {what}: each GPU reads {gb} GB, {gflop} GFLOP -> {bound}: {floor_ms} ≈ {term} at the full peak; plus {comm_ms} of communication (2 ring all-reduces per layer over a {link} GB/s-per-direction link); {tail}.",
    "cost.took": "at BANDWIDTH_FRACTION {bwf} and FLOPS_FRACTION {ff} of the peaks, plus STEP_OVERHEAD {overhead} µs, the step takes {took:ms}",
    "cost.took_draft": "at BANDWIDTH_FRACTION {bwf} and FLOPS_FRACTION {ff} of the peaks, plus STEP_OVERHEAD {overhead} µs, the target model's pass takes {target:ms}; the draft model's passes add {extra:ms} (passes: {n}, one per proposed position of the longest proposal; weights of QUANT_BITS {bits} bits): the step takes {took:ms}",
    "cost.decode_spec": "decode {n:pl token} + {k:pl proposal} verified",
    "cost.memory": "memory-bound",
    "cost.compute": "compute-bound",
    "cost.by_bytes": "{gb} GB ÷ {tbs} TB/s",
    "cost.by_flops": "{gflop} GFLOP ÷ {tflops} TFLOP/s",
    # ── one step ───────────────────────────────────────────────────────────
    "title.preempt": "preempt {e[id]}",
    "title.wait_kv": "{e[id]} waits for KV blocks",
    "title.cancelled": "{e[id]} cancelled",
    "title.cache_hit": "{e[id]} takes {e[tokens]:pl token} from the prefix cache",
    "title.overtake": "{e[id]} overtakes {ids} by priority",
    "title.reprefill": "{e[id]} starts re-prefill {e[n]:pl token}",
    "title.prefill": "{e[id]} starts prefill {e[n]:pl token}",
    "title.finish": "{e[id]} finishes",
    "title.first": "{e[id]} first token",
    "title.rejected": "{e[id]} rejected {e[code]}",
    "title.decode": "{rid} decode",
    "title.prefill_task": "{rid} prefill {n:pl token}",
    "step.head": "Step {n}/{m} ({it[start]:ms} -> {it[end]:ms}): {title}",
    "step.running": "Running {n}/{slots} slots: {parts}.",
    "step.after": "After step {count}:",
    "step.none": "No steps (no request ran):",
    "step.empty": "No task ran in this step: every sequence with work was preempted or sent back to the waiting queue, "
                  "so the step takes no time (as a vLLM schedule() call that scheduled no token); a preempted sequence "
                  "runs again from the next step on.",
}

WORDS = text.Words({**text_en.SAY, **SAY})     # with the blocks' templates, which word the refusal reasons
WAIT_WHY = text_steps.wait_labels(SAY)                # the page's labels of why a request waits
narrate, after_lines = text_steps.bind(WORDS)
