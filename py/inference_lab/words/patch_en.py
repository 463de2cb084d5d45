"""Every sentence of the code editor's lessons, in English: patch_vi.py's keys, the same fields, English words.

`--lang en` and the English page (?lang=en) tell a patch's mistakes with these (lessons.say picks the
table by the run's language).

Leaves out: which sentence is said when, and every check (patch.py, contracts.py decide).
"""
from __future__ import annotations

from .templates import Words

SAY = {
    # ── a patch as given (patch.Unit, web.patch_units) ────────────────────
    "unit.no_module": "there is no module {module!r} to edit; pick one of: {modules}",
    "unit.not_text": "the edited code for {module} must be a string",
    "unit.first_line": "first_line of {module} must be an integer >= 1",
    "unit.not_json": "patches is not valid JSON ({msg})",
    "unit.not_patches": "patches must be {{module: source}} or a list of {{module, source}}",
    # ── loading: syntax, names, parameters ────────────────────────────────
    "load.line": "line {line}",
    "load.column": ", column {col}",
    "load.syntax": "{file}: syntax error at {where}: {msg}",
    "load.signature": "{file}: function {function} must take the original's parameters: {function}({wanted}).",
    "load.no_such_function": "{file}: module {module} has no function {function} to replace. Replaceable: {replaceable}. "
                             "Helper functions of your own: start their names with _ (for example _{function}).",
    "load.must_define": "{file}: this code must define the function {function} (def {function}(...):).",
    "load.defines_nothing": "{file}: defines no function of {module} (replaceable: {replaceable}).",
    # ── running: the student's lines, the engine's failure, a stop ────────
    "run.earlier_calls": "    ... ({n} earlier calls not shown)",
    "run.top_level": "the file's top level",
    "run.frame": "  {file}, line {line}, in {where}",
    "run.exception": "{file}: error while running your code (your lines only):",
    "run.engine": "The engine stopped with an error while running the edited code ({names}): {detail}. The error is not "
                  "in any of your lines: check the values your functions return and the arguments they change.",
    "run.stopped": "Stopped ({stopped}) while running the edited code.",
    "run.stopped_here": " When it stopped, your code was here (perhaps a loop that never ends):\n",
    "run.stopped_engine": "Stopped ({stopped}) while the engine was running.",
    "run.stopped_engine_here": " When it stopped, the engine was here:\n",
    "run.unsendable": "The result of the run with edited code cannot be sent to the page: {error}.",
    "run.printed_cut": "\n… ({cut} characters left out)",
    # ── return values: the lesson, then what each contract says ───────────
    "return.wrong": "{file}: {function} returned a wrong value: {error}\n{function} must return {must}",
    "value.array": "NumPy array of shape {shape}",
    "value.integer": "{what} must be an integer, got {value}.",
    "value.numeric_array": "{what} must be a numeric NumPy array, got {value}.",
    "value.shape": "{what} must have shape {shape}, got shape {got}.",
    "value.not_finite": "{what} has non-finite values (nan or inf).",
    "value.distribution": "{what} must be a probability distribution (non-negative, summing to 1), got a sum of {total:.6g}.",
    "value.result": "the result",
    "value.negative": "got {value}, a negative number.",
    "value.negative_us": "got {value} µs, a negative number.",
    "gateway.not_bool": "got {value}, not True/False.",
    "accepts.not_bool": "accepts must return True (keep the proposed token) or False (reject it); got {value}.",
    "room.what": "the number of requests to admit",
    "room.forever": "got 0 while no sequence is running, no request is about to arrive and every waiting request "
                    "({ready}) is ready: the engine would wait forever.",
    "plan.not_list": "got {value}, not a list.",
    "plan.not_triple": "task {i} is {value}, not a triple (phase, seq, n).",
    "plan.phase": "task {i}: phase must be \"prefill\" or \"decode\", got {phase!r}.",
    "plan.not_running": "task {i}: {value} is not a sequence in running.",
    "plan.twice": "sequence {seq} has two tasks in the same step.",
    "plan.n": "task {i}: the token count n",
    "plan.decode": "{seq}: decode is only for a sequence whose prefill is done ({left} "
                   "prompt tokens left) and exactly 1 token (got n = {n}).",
    "plan.prefill": "{seq}: prefill needs 1 ≤ n ≤ the prompt tokens left ({left}), got n = {n}.",
    "plan.over_budget": "the plan uses {total} tokens, over the budget budget_cap = {budget_cap}.",
    "plan.empty": "an empty list while {n} sequences are running: the engine would never finish.",
    "victim.not_running": "{value} is not a running sequence (running: {running}).",
    "duration.what": "the step's duration (µs)",
    "sample.not_pair": "got {value}, not a pair (token, info).",
    "sample.outside": "token {token} is outside the vocabulary (0..{last}).",
    "sample.missing": "info lacks the keys {keys}.",
    "sample.mode": "info['mode'] must be a string (\"greedy\" or \"sampling\"), got {value}.",
    "draw.outside": "token {token} is outside 0..{last}.",
    "quantize.not_pair": "got {value}, not a pair (Wq, info) of two dicts.",
    "quantize.missing": "Wq lacks the matrices {names}.",
    "quantize.no_entry": "info lacks the entry {name!r} (one dict per quantized matrix).",
    "quantize.entry_keys": "info[{name!r}] lacks the keys {keys}.",
    "quantize.numbers": "info[{name!r}] must have numbers for elements, scales, max_err, half_scale.",
    "quantize.finite": "info[{name!r}]: max_err and half_scale must be finite.",
    "attention.not_pair": "got {value}, not a pair (ctx, prob).",
    # ── what each function with a contract must return ────────────────────
    "returns.engine.gateway_admits": "True (admit the request) or False (reject it with 429).",
    "returns.scheduler.admission_room": "an integer ≥ 0: how many ready requests may start running now.",
    "returns.scheduler.plan_tasks": "a list [(phase, seq, n)]: phase is \"decode\" (n = 1, a sequence whose prefill is done) or "
                                    "\"prefill\" (1 ≤ n ≤ seq.num_prefill_left), every seq is a sequence in running and "
                                    "appears at most once, the sum of n ≤ budget_cap when there is a prefill, and at least one task when "
                                    "running is not empty.",
    "returns.scheduler.choose_victim": "a sequence in running (possibly seq itself): the sequence to preempt.",
    "returns.scheduler.step_duration": "an integer ≥ 0: the step's simulated duration in µs.",
    "returns.sampler.sample": "a pair (token, info): token is an integer in 0..vocab-1, info is a dict with probs and filtered "
                              "(arrays of length vocab) and mode (a string).",
    "returns.sampler.top_k_top_p": "an array of the same shape as probs: non-negative, summing to 1 (renormalized).",
    "returns.sampler.softmax": "an array of the same shape as z: non-negative, summing to 1.",
    "returns.sampler.draw": "an integer in 0..len(probs)-1: the token drawn.",
    "returns.quantization.quantize_weights": "a pair (Wq, info): Wq has every matrix of W with the same shape; info has, for every name "
                                             "in names, a dict of elements, scales, max_err, half_scale, within_half_scale.",
    "returns.rejection_sampler.accepts": "True (keep the proposed token x) or False (reject it); the correct rule: u < min(1, p(x)/q(x)).",
    "returns.model.attention": "a pair (ctx, prob): ctx of shape (T, H·d_head), prob of shape (H, T, source positions).",
}

WORDS = Words(SAY)
