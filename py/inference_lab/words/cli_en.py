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
    "sweep_row": "  {value:g}: throughput {tput:.1f} tokens/s; TTFT p50/p90/p99 {ttft[p50]:ms}/{ttft[p90]:ms}/{ttft[p99]:ms}; TPOT p50/p90/p99 {tpot}; goodput {good:g} requests/s ({frac:.0f}% within the SLO){knee}",
    "sweep_none": "  {value:g}: no request finished.",
    "sweep_little": "      Little: measured L {L:g} requests in the system; λ·W = {lam:g}/s × {W:g} s = {lam_W:g} (off by {gap:.2%})",
    "sweep_knee_mark": "  ← knee",
    "sweep_knee": "KNEE: {name} = {value:g}, the last point where throughput still followed the load (growing by less than half the load's growth means it has bent); beyond it more load only adds waiting.",
    "sweep_no_knee": "KNEE: not reached, throughput still follows the load at the last point.",
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
