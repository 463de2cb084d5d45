"""Every sentence of the command line itself, in English (`--lang en`): cli_vi.py's keys, the same fields.

`ARGPARSE` keeps argparse's own English messages, only clearer where the lab's words help.

Leaves out: which sentence is said when (cli.py) and the lab's output (text_en.py).
"""
from __future__ import annotations

from .templates import Words

ARGPARSE = (   # argparse's own error messages (the English ones are argparse's, kept)
    (r"^unrecognized arguments: (.*)$", r"no such flag (or argument): \1"),
    (r"^argument (\S+): expected one argument$", r"\1: a value must follow the flag"),
    (r"^argument (\S+): (.*)$", r"\1: \2"),
)
SAY = {
    # ── --help ────────────────────────────────────────────────────────────
    "description": "Inference Engineering end-to-end lab: run a miniature LLM serving pipeline and print its 13 blocks.",
    "default": "Default {default}{bounds}.",
    "switch": "The bare flag means on. Default {default}.",
    "requests": "Replace the REQUESTS trace with the list of requests in a JSON file.",
    "json": "Print the report as JSON instead of text.",
    "exercise": "Run with the constants of exercise N (the exercises/ folder).",
    "trace": "Write the timeline to a Chrome trace-event JSON file (open it in Perfetto).",
    "steps": "Print the scheduler's steps (block [3]) one by one: who runs, who waits and why, the token budget, KV blocks.",
    "lang": "Language of the output: vi (default, byte for byte the seed program's) or en (English).",
    "patch": "Run with the functions in FILE.py in place of the functions of the same names in the engine module "
             "MODULE (engine, scheduler, sampler, quantization, model, metrics); repeatable.",
    "seconds": "SECONDS",
    "sweep": "Run again at each value of one constant (e.g. WORKLOAD_RATE=1,2,4,8,16): each point prints throughput, "
             "TTFT/TPOT p50/p90/p99 and goodput; then the knee and Little's law L = λ·W checked.",
    "sweep_syntax": "--sweep: expected NAME=V1,V2,… with NAME a constant (got {raw!r}).",
    "sweep_progress": "sweep: point {i}/{n} done",
    "sweep_head": "SWEEP {name}: one run per line (simulated ms).",
    "points_timing_only": "Each point is timing-only: the same scheduler, KV blocks and clock, without the model's forward (the tokens are placeholders), because here no token's value changes a figure: IGNORE_EOS = on (every request makes exactly max_new tokens), no speculation, no prefix cache. Every step's time, every request's TTFT/TPOT and the goodput equal the full run's.",
    "points_full": "Each point is a full run (the model computes every token), because here the tokens' values can change the result: {why}.",
    "why_eos": "IGNORE_EOS = off (the EOS token decides when a request stops)",
    "why_spec": "SPEC_METHOD = {spec} (acceptance reads the tokens)",
    "why_prefix": "PREFIX_CACHE = on (the cache compares the blocks' contents)",
    "why_requests": "a hand-written REQUESTS list (not a generated or recorded workload)",
    "long_workload": "--workload-requests {n}: more than {max} requests run only with --sweep or --search, on a trace file (.csv), when the points are timing-only (--ignore-eos on, no speculation, no prefix cache); a 13-block run or a full point with that many requests would take hours.",
    "sweep_row": "  {value:g}: throughput {tput:.1f} tokens/s; TTFT p50/p90/p99 {ttft[p50]:ms}/{ttft[p90]:ms}/{ttft[p99]:ms}; TPOT p50/p90/p99 {tpot}; goodput {good:g} requests/s ({frac:.0f}% within the SLO){knee}",
    "sweep_none": "  {value:g}: no request finished.",
    "sweep_little": "      Little: measured L {L:g} requests in the system; λ·W = {lam:g}/s × {W:g} s = {lam_W:g} (off by {gap:.2%})",
    "sweep_money": "      Cost: GPUs {e[gpus]} × {e[price_per_hour]:g} US$/hour → {e[usd_per_m_output]:.2f} US$ per million output tokens, {e[usd_per_m_tokens]:.2f} US$ per million tokens in + out; energy {e[joules_per_output_token]:.3f} J per output token, {e[output_tokens_per_kwh]:,} output tokens per kWh",
    "sweep_clipped": "      Lengths clipped to fit MAX_CONTEXT {max_context} for {n} of the trace's {of} requests (prompt at most MAX_CONTEXT − 1 tokens, output what is left): the figures above are the clipped requests'; raise --max-context to run the trace's own lengths (its default, auto, fits them as far as SHADOW_MODEL's context and the KV pool allow).",
    "sweep_knee_mark": "  ← knee",
    "sweep_knee": "KNEE: {name} = {value:g}, the last point where throughput still followed the load (growing by less than half the load's growth means it has bent); beyond it more load only adds waiting.",
    "sweep_no_knee": "KNEE: not reached, throughput still follows the load at the last point.",
    "search": "Find the cheapest configuration within the SLO: each --search NAME=V1,… is one axis of a grid (GPU, "
              "TENSOR_PARALLEL, REPLICAS, DISAGG, PREFILL_REPLICAS, SLOTS, TOKEN_BUDGET, WEIGHT_BITS, ACT_BITS, "
              "KV_BITS), each point a run on the same workload; needs --clock roofline; repeatable.",
    "slo_attainment": "With --search: the least share of requests that must meet both TTFT_SLO and TPOT_SLO (default 0.9).",
    "search_backend": "With --search: run the points on this machine's processes (local, the default) or as Ray tasks "
                      "(ray; needs pip install \"inference_lab[ray]\").",
    "ray_address": "With --search-backend ray: the address of an existing Ray cluster (none: a local Ray).",
    "search_syntax": "--search: expected NAME=V1,V2,… with NAME a constant (got {raw!r}).",
    "search_axis": "--search: {name} is not a search axis; choose among: {axes}.",
    "search_twice": "--search: the axis {name} is given twice.",
    "search_clock": "--search: needs --clock roofline (only the roofline clock has GPUs, prices and power).",
    "search_sweep": "--search and --sweep: one at a time.",
    "search_attainment": "--slo-attainment: must be a number in (0, 1] (got {raw!r}).",
    "search_alone": "{flag}: only with --search.",
    "search_no_ray": "--search-backend ray: Ray is not installed (pip install \"inference_lab[ray]\").",
    "search_start": "search: {n} points on {backend}",
    "search_head": "SEARCH: {n} points ({axes}), each a run on the same {requests} requests; target: at least {target:.0%} of the requests meet both TTFT ≤ {ttft:ms} (TTFT_SLO) and TPOT ≤ {tpot:ms} (TPOT_SLO).",
    "search_columns": "   #  configuration | GPUs | US$/hour | US$/million output tokens | goodput (requests/s) | within TTFT / TPOT / both | J/output token",
    "search_row": "  {i:>2}  {config} | {gpus} | {cost:.2f} | {usd} | {good:g} | {ttft:.0%} / {tpot:.0%} / {both:.0%} | {jpt}{mark}",
    "search_row_invalid": "  {i:>2}  {config} | cannot run (see REJECTED)",
    "search_mark_answer": "  ← answer",
    "search_answer": "ANSWER: the cheapest point meeting the target is #{i} {config}: GPUs {gpus}, {cost:.2f} US$/hour, {both:.0%} of the requests within both SLOs, {usd} US$ per million output tokens.",
    "search_no_answer": "ANSWER: no point meets the target; see the reasons below (more GPUs or replicas, or looser SLOs).",
    "search_pareto": "PARETO FRONT (cost per hour against goodput: no other point is both cheaper and higher in goodput), cheapest first: # | configuration | US$/hour | goodput (requests/s) | within both SLOs",
    "search_pareto_row": "  #{i} | {config} | {cost:.2f} | {good:g} | {both:.0%}",
    "search_rejected": "REJECTED:",
    "search_reject_slo": "  #{i} {config}: {slo} met by only {share:.0%} of the requests (need {need:.0%}); the request at p{p} {at}",
    "search_reject_at": "has {slo} {value:ms}, {ratio:.1f}× {slo}_SLO {limit:ms}",
    "search_reject_unserved": "was not served ({n} requests refused or unfinished)",
    "search_reject_both": "  #{i} {config}: each SLO alone passes, but only {share:.0%} of the requests meet both (need {need:.0%}).",
    "search_reject_invalid": "  #{i} {config}: not a valid configuration: {problem}",
    # ── the page's sweep and search tools (web.sweep, web.search): errors beside the tool's input ──
    "page_empty": "Type one axis as NAME=V1,V2,… (e.g. WORKLOAD_RATE=1,2,4).",
    "page_syntax": "Expected NAME=V1,V2,… with NAME a constant (got {raw!r}).",
    "page_numeric": "{name} is not a numeric constant: the sweep tool runs one numeric constant (e.g. WORKLOAD_RATE, SLOTS).",
    "page_one_axis": "The sweep tool runs one axis (got {n}); several axes are the configuration search's job.",
    "page_points": "The page runs at most {max} points in its worker (got {n}); for a larger grid use the command line: python -m inference_lab {flag} ….",
    "page_point": "{name}={value}: {problem}",
    "page_axis": "{name} is not a search axis; choose among: {axes}.",
    "page_twice": "The axis {name} is given twice.",
    "page_clock": "The configuration search needs CLOCK = roofline (only the roofline clock has GPUs, prices and power): set CLOCK and search again.",
    "page_attainment": "The SLO attainment must be a number in (0, 1] (got {raw!r}).",
    "search_none": "none",
    "timeout": "With --patch: stop the run after this many seconds (edited code may loop forever; Ctrl-C stops it too).",
    # ── a patched run ─────────────────────────────────────────────────────
    "patched": "note: this run used edited code: {names}.",
    "seconds_word": "seconds",
    "exercise_label": "exercise {n}:",
    # ── bad input, by flag ────────────────────────────────────────────────
    "integer": "an integer",
    "number": "a number",
    "not_a": "{name} must be {what} (got {raw!r}).",
    "unreadable": "--requests: cannot read the file {path!r} ({error}).",
    "bad_json": "--requests: the file {path!r} is not valid JSON (line {line}: {msg}).",
    "timeout_alone": "--timeout: only with --patch (or an exercise with a [patch]).",
    "timeout_positive": "--timeout: must be a number of seconds > 0 (got {raw!r}).",
    "patch_form": "--patch: write MODULE=FILE.py, for example --patch scheduler=plan.py (got {raw!r}).",
    "patch_module": "--patch: there is no module {module!r} to edit; pick one of: {modules}.",
    "patch_unreadable": "--patch: cannot read the file {path!r} ({error}).",
    "patch_not_utf8": "--patch: the file {path!r} is not UTF-8 text.",
    # ── how an error is printed ───────────────────────────────────────────
    "error": "error: {message}",
    "see": "See: python -m inference_lab --lang en --help",
    "internal": "internal error: {kind}: {error}",
}

WORDS = Words(SAY)
