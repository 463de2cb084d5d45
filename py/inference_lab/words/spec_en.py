"""The sentences of speculative decoding (SPEC_METHOD != off), in English; the same keys as spec_vi.py.

Leaves out: which sentence is said when (text_spec.py) and the facts (entrypoints/spec_data.py).
"""
from __future__ import annotations

SAY = {
    "b7.generates_spec": "{fid} generates {d[n_out]} tokens: 1 token from prefill + {d[n_decode]} decode steps, where the verify steps gave {extra} more tokens thanks to accepted proposals.",
    "header.spec": "speculative decoding SPEC_METHOD={cfg[SPEC_METHOD]}, K = {cfg[SPEC_TOKENS]} (after {docs[spec]})",
    "spec.head_ngram": "Speculative decoding (SPEC_METHOD=ngram, K = {s[k]}): every step the n-gram proposer finds the last n tokens (n = 3, 2, 1) at their earliest place before in the sequence itself and proposes up to K tokens that followed; the target model checks the pending token + the proposals in ONE forward pass over the paged KV cache.",
    "spec.head_draft": "Speculative decoding (SPEC_METHOD=draft, K = {s[k]}): every step the draft model (the lab's own model with its weights quantized to QUANT_BITS bits) proposes up to K tokens one after the other; the target model checks the pending token + the proposals in ONE forward pass over the paged KV cache.",
    "spec.follow": "{fid}'s verify steps ({n}): proposed → how many accepted, the first rejected token, the recovered token (drawn from max(0, p − q)) or the bonus token (drawn from p when all are accepted):",
    "spec.follow_none": "{fid} has no verify step: the proposer offered it no token (or it has only one token).",
    "spec.step_rejected": "  step {r[step]}: proposed [{proposed}] → accepted {r[accepted]}, rejected '{r[rejected]}', recovered token '{r[token]}'",
    "spec.step_bonus": "  step {r[step]}: proposed [{proposed}] → all {r[accepted]} accepted, bonus token '{r[token]}'",
    "spec.step_stop": "  step {r[step]}: proposed [{proposed}] → accepted {r[accepted]}, stopped (eos) before a recovered/bonus token",
    "spec.alpha": "  {rid}: proposed {r[proposed]}, accepted {r[accepted]}, α = {r[alpha]:.2f}; {r[per_step]:.2f} tokens per verify step on average, the formula (1 − α^(k+1)) / (1 − α) with k = {k:.2f} gives {r[expected]:.2f}",
    "spec.total": "The whole run: {s[accepted]}/{s[proposed]} proposals accepted, α = {b[alpha]:.2f}; with K = {s[k]} the formula gives {b[expected]:.2f} tokens per step (K + 1 = {s[k]} + 1 if all are accepted).",
    "spec.compare": "Against the same trace with SPEC_METHOD=off: mean TPOT {c[tpot_on]:ms} against {c[tpot_off]:ms} ({speedup:.2f}x faster), throughput {c[tput_on]:.1f} against {c[tput_off]:.1f} simulated tokens/s, {c[steps_on]} against {c[steps_off]} steps.",
    "spec.compare_no_tpot": "Against the same trace with SPEC_METHOD=off: throughput {c[tput_on]:.1f} against {c[tput_off]:.1f} simulated tokens/s, {c[steps_on]} against {c[steps_off]} steps.",
    "spec.batch_seed": "The seed clock charges every verified position like a decoding sequence (COST_DECODE_PER_SEQ); see --clock roofline and the 'speculation' picture for when speculation stops paying as the batch grows.",
    "spec.batch": "On the roofline clock ({gpu}, {model}), a model by batch size with α = {s[alpha]:.2f} and a {s[context]}-token context: batch {small[batch]} is {small_speed} ({small[off_us]:.0f} → {small[on_us]:.0f} µs per step); batch {large[batch]} is {large_speed} ({large[off_us]:.0f} → {large[on_us]:.0f} µs, the verify step {large_bound}).",
    "spec.faster": "{x:.2f}x faster",
    "spec.slower": "SLOWER ({x:.2f}x the speed)",
    "spec.bound_memory": "bandwidth-bound",
    "spec.bound_compute": "compute-bound",
    "spec.crossover": "From batch {b} up speculation makes it SLOWER: K + 1 tokens per sequence make the step compute-bound, and the weight read is no longer its dearest part.",
    "spec.no_crossover": "Up to batch {last[batch]} speculation still pays ({last[speedup]:.2f}x) with these constants.",
    "spec.lossless": "Nothing is lost: the acceptance rule min(1, p(x)/q(x)) keeps the target model's distribution exactly; greedy requests give the same text as without speculation, only their TPOT changes.",
    "b12.same_greedy": "Correct first, fast second: with speculative decoding the token budget cuts the proposals differently under each policy, so SAMPLED tokens may differ (same distribution, other draws); so only the greedy requests are compared: every greedy request run under all 3 policies gets the same tokens: {d[same]}.",
    "spec.gate_greedy": "Speculative decoding check: {g[compared]} greedy requests get the same tokens as with SPEC_METHOD=off -> {verdict}.",
    "spec.gate_distribution": "The acceptance rule (rejection_sampler.accepts) drawn {g[draws]} times at the last prompt position of {g[probe]} (T = 1) with a uniform proposer (uniform q): chi-square {chi2} ({g[df]} degrees of freedom), threshold {g[critical]:.1f} at a false-alarm rate of {pct:.1f}% -> {verdict}.",
    "spec.gate_distribution_fail": "The acceptance rule has CHANGED the output distribution: token '{g[worst]}' came out {g[worst_seen]:.1%} of the time but the target model gives it {g[worst_p]:.1%}. The correct rule keeps token x with probability min(1, p(x)/q(x)) and, on a rejection, draws from max(0, p − q).",
    "spec.gate_greedy_fail": "Greedy tokens differ from the run without speculation: the acceptance rule kept a proposal the target model would not choose (the correct rule never accepts when p(x) = 0).",
    "spec.infinite": "infinite (a token p forbids came out)",
}
