"""Where each module of the package lives: one table for everything that names a module by its short name.

The package is in three sub-packages, like nano-vllm's `engine/`, `layers/`, `models/`:

- `core/`: the serving core, mechanics only, no sentence a student reads, in five folders from the ground up:
  `clock/` (the GPUs' and model shapes' figures: hardware; what a step costs: roofline; how close each engine gets
  to the roofs: profiles; tensor parallelism's split and all-reduces: parallel; the clock against published
  measurements: calibration), `model/` (tokenizer with the seed's BOS, EOS and CORPUS, fp8: the FP8 E4M3 format
  of KV_BITS = 8, model, sampler, rejection_sampler: speculation's acceptance rule, quantization),
  `serving/` (sequence, block_manager, scheduler, kv_room, decode_batch: the decodes' forwards in one stack, engine
  and its clock-only replay, speculative: proposers and the engine's verify, the run log, metrics), `inputs/` (the
  constants' schema, MAX_CONTEXT = auto: context, the constants' problems, the validated config, the workload
  generator and the recorded traces' replay: trace_workload)
  and `cluster/` (router, replicas with disaggregation: cluster, goodput; cost and energy: economics). A folder
  imports only folders listed before it (inputs/ reads model/'s tokenizer, cluster/ runs serving/'s engines).
- `words/`: what a student reads: the sentence tables' mechanism (templates.py), the 13 blocks' sentences
  (text.py and its text_intake / text_compute / text_measure fill the vi/en tables), the step narration,
  the mapping table (blocks.py), the command line's and the code editor's messages, the constants' labels and
  the config problems' sentences (text_schema.py with schema_vi / schema_en).
- `entrypoints/`: how the lab is driven: lab.py (one run, its 13 blocks), report.py (compact.py: a long run's
  steps), web.py (the page's worker; page_tools.py its sweep and search tools), cli.py (`python -m inference_lab`),
  trace.py, patch.py (students' edits, with lessons.py and contracts.py; sandbox.py puts back what edited code
  changed), exercises.py, sweep.py (`--sweep`), search.py (`--search`), tables.py (their answers as lines); lab.py's
  13 blocks' facts are built in block_data.py (byte fallback's cost in byte_cost.py), its cached tokenizer and weights
  kept in weights.py, its replays run beside the main run by forks.py (CPython).

Short names ("engine", "scheduler", …) are what the mapping table (words/blocks.py), `--patch MODULE=`,
the page's `PATCH=` and the code views use; `dotted()` and `path()` turn them into the real location.

    >>> dotted("scheduler"), path("text_vi")
    ('inference_lab.core.serving.scheduler', 'inference_lab/words/text_vi.py')

Standard library only, no imports of the package: build.py loads this file on its own.
Leaves out: the sub-packages' own `__init__` (empty) and `__main__.py` (top level, `python -m inference_lab`).
"""
from __future__ import annotations

PACKAGE = "inference_lab"
LAYOUT = {
    "core.clock": ("hardware", "roofline", "parallel", "profiles", "calibration"),
    "core.model": ("tokenizer", "fp8", "model", "sampler", "rejection_sampler", "quantization"),
    "core.serving": ("sequence", "block_manager", "scheduler", "step", "kv_room", "decode_batch", "engine", "replay",
                     "speculative", "run_log", "metrics"),
    "core.inputs": ("schema", "context", "problems", "config", "workload", "trace_workload"),
    "core.cluster": ("router", "cluster", "goodput", "economics"),
    "words": ("templates", "reasons", "text", "text_intake", "text_compute", "text_measure", "text_vi", "text_en",
              "text_notes", "notes_vi", "notes_en", "text_spec", "spec_vi", "spec_en", "text_cluster", "cluster_vi",
              "cluster_en", "text_steps", "text_steps_vi", "text_steps_en", "patch_vi", "patch_en", "cli_vi", "cli_en",
              "text_schema", "schema_vi", "schema_en", "limits", "own_vi", "own_en", "blocks"),
    "entrypoints": ("lab", "block_data", "byte_cost", "cluster_data", "weights", "forks", "report", "compact", "web",
                    "page_tools", "cli", "trace", "patch", "lessons", "contracts", "sandbox", "exercises", "spec_data",
                    "sweep", "search", "tables"),
}
SUBPACKAGE = {name: sub for sub, names in LAYOUT.items() for name in names}


def dotted(name: str) -> str:
    """The importable name of a module given by its short name ("engine" -> "inference_lab.core.serving.engine")."""
    if name not in SUBPACKAGE:
        raise KeyError(f"{PACKAGE} has no module {name!r}")
    return f"{PACKAGE}.{SUBPACKAGE[name]}.{name}"


def path(name: str) -> str:
    """The module's file inside the wheel / py/ folder ("inference_lab/core/serving/engine.py")."""
    return dotted(name).replace(".", "/") + ".py"


def short(module_name: str) -> str:
    """The short name of an importable name ("inference_lab.core.serving.engine" -> "engine"); others unchanged."""
    last = module_name.rsplit(".", 1)[-1]
    return last if module_name.startswith(PACKAGE + ".") and last in SUBPACKAGE else module_name
