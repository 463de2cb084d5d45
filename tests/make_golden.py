#!/usr/bin/env python3
"""Regenerate the golden files from the seed program (tests/seed_program.py).

    python3 tests/make_golden.py           # rewrite tests/golden/*
    python3 tests/make_golden.py --check   # only verify that the files are up to date
    python3 tests/make_golden.py --en      # rewrite tests/golden/en/* (the English edition, from the CLI)
    python3 tests/make_golden.py --check --en   # only verify tests/golden/en/*

Writes
  tests/golden/<name>.txt     what the seed prints for configuration <name> (it must complete)
  tests/golden/configs.json   name -> overrides (top-level constants of the seed; REQUESTS = list of dicts)
  tests/golden/en/<name>.txt  what `python -m inference_lab --lang en <flags>` prints for configuration <name>: the
                              English edition has no seed to copy, so these are the lab's own output, reviewed
                              once and then kept byte for byte (tests/test_english.py)
  tests/golden/crashes.json   name -> {overrides, error, expect, ...}: configurations where the seed itself
                              crashes. expect "pass": the engine must still run to "PASS:" (exit 0);
                              expect "invalid": the input is outside the engine's domain, exit 2 naming
                              one of `flags`. Optional: follow_rejected ("429"/"400" for the followed
                              request), unknown_chars (request id -> characters missing from the vocabulary).

Deterministic: the seed is deterministic and the output files are written in a fixed order.
Also home of the few helpers the CLI tests share (overrides -> flags, the 13 block headers, running the
CLI in this process with run_cli or in a new interpreter with run_module).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import seed_program  # noqa: E402

ROOT = seed_program.ROOT
GOLDEN_DIR = HERE / "golden"

# The seed's own REQUESTS (copied so that traces can be edited without parsing the seed).
BASE_REQUESTS = [
    dict(id="A", arrival=0, text="xin chao model", max_new=10, temperature=0.0, top_k=0, top_p=1.0, seed=1),
    dict(id="B", arrival=0, text="model hoc token", max_new=7, temperature=0.8, top_k=4, top_p=0.9, seed=2),
    dict(id="E", arrival=500, text="xin chao ban", max_new=30, temperature=0.0, top_k=0, top_p=1.0, seed=3),
    dict(id="C", arrival=1000, text="ban hoc model", max_new=8, temperature=0.8, top_k=5, top_p=0.9, seed=4),
    dict(id="D", arrival=1500, text="xin chao token", max_new=5, temperature=0.0, top_k=0, top_p=1.0, seed=5),
]


def edit(**changes) -> list[dict]:
    """BASE_REQUESTS with per-id field changes, e.g. edit(C=dict(max_new=1))."""
    out = [dict(r) for r in BASE_REQUESTS]
    for r in out:
        r.update(changes.get(r["id"], {}))
    return out


# ── Configurations for which the seed completes ─────────────────────────────
CONFIGS: dict[str, dict] = {
    "default": {},
    # admission / slots
    "slots_3": dict(SLOTS=3),
    "slots_1_queue_2": dict(SLOTS=1, QUEUE_LIMIT=2),
    "slots_1_queue_4": dict(SLOTS=1, QUEUE_LIMIT=4),
    "slots_3_queue_0": dict(SLOTS=3, QUEUE_LIMIT=0),
    "slots_4_pool_16": dict(SLOTS=4, POOL_BLOCKS=16),
    "slots_6_pool_40": dict(SLOTS=6, POOL_BLOCKS=40),
    "queue_limit_2": dict(QUEUE_LIMIT=2),
    "queue_limit_3": dict(QUEUE_LIMIT=3),
    # chunked prefill budget
    "token_budget_1": dict(TOKEN_BUDGET=1),
    "token_budget_2": dict(TOKEN_BUDGET=2),
    "token_budget_4": dict(TOKEN_BUDGET=4),
    "token_budget_12": dict(TOKEN_BUDGET=12),
    "token_budget_16": dict(TOKEN_BUDGET=16),
    "slots_3_budget_1": dict(SLOTS=3, TOKEN_BUDGET=1),
    # paged KV
    "block_size_3": dict(BLOCK_SIZE=3),
    "block_size_8": dict(BLOCK_SIZE=8),
    "block_size_8_pool_4": dict(BLOCK_SIZE=8, POOL_BLOCKS=4),
    "block_size_2_pool_24": dict(BLOCK_SIZE=2, POOL_BLOCKS=24),
    "block_size_1_pool_40": dict(BLOCK_SIZE=1, POOL_BLOCKS=40),
    "pool_blocks_7": dict(POOL_BLOCKS=7),
    "pool_blocks_40": dict(POOL_BLOCKS=40),
    # quantization and the quality gate
    "quant_bits_2": dict(QUANT_BITS=2),
    "quant_bits_3": dict(QUANT_BITS=3),
    "quant_bits_4": dict(QUANT_BITS=4),
    "quant_bits_5": dict(QUANT_BITS=5),
    "quant_bits_6": dict(QUANT_BITS=6),
    "quant_bits_7": dict(QUANT_BITS=7),
    "quant_bits_4_gate_80": dict(QUANT_BITS=4, QUALITY_GATE=0.8),
    "quant_bits_6_gate_90": dict(QUANT_BITS=6, QUALITY_GATE=0.9),
    "quality_gate_1": dict(QUALITY_GATE=1.0),
    "quality_gate_0": dict(QUALITY_GATE=0.0),
    "quality_gate_half": dict(QUALITY_GATE=0.5),
    # context limit
    "max_context_17": dict(MAX_CONTEXT=17),
    "max_context_20": dict(MAX_CONTEXT=20),
    "max_context_37": dict(MAX_CONTEXT=37),
    "max_context_38_queue_2_follow_E": dict(MAX_CONTEXT=38, QUEUE_LIMIT=2, FOLLOW="E"),
    "max_context_38_queue_3_follow_E": dict(MAX_CONTEXT=38, QUEUE_LIMIT=3, FOLLOW="E"),
    "max_context_48_queue_3_follow_D": dict(MAX_CONTEXT=48, QUEUE_LIMIT=3, FOLLOW="D"),
    # followed request
    "follow_A": dict(FOLLOW="A"),
    "follow_B": dict(FOLLOW="B"),
    "follow_D_queue_2": dict(FOLLOW="D", QUEUE_LIMIT=2),
    "follow_D_slots_3": dict(FOLLOW="D", SLOTS=3),
    "follow_E_max_context_38": dict(FOLLOW="E", MAX_CONTEXT=38),
    "follow_B_quant_4": dict(FOLLOW="B", QUANT_BITS=4),
    # model weights seed (SEED=3: the gate lands exactly on 38/40 = 95%)
    "seed_0": dict(SEED=0),
    "seed_1": dict(SEED=1),
    "seed_2": dict(SEED=2),
    "seed_3": dict(SEED=3),
    "seed_42": dict(SEED=42),
    "seed_1000": dict(SEED=1000),
    "seed_3_follow_A": dict(SEED=3, FOLLOW="A"),
    # tokenizer
    "n_merges_0": dict(N_MERGES=0),
    "n_merges_1": dict(N_MERGES=1),
    "n_merges_2": dict(N_MERGES=2),
    "n_merges_5": dict(N_MERGES=5),
    "n_merges_15": dict(N_MERGES=15),
    "n_merges_20": dict(N_MERGES=20),
    # simulated clock
    "cost_gateway_0": dict(COST_GATEWAY=0),
    "cost_gateway_5000": dict(COST_GATEWAY=5000),
    "cost_tokenize_0": dict(COST_TOKENIZE_PER_TOKEN=0),
    "cost_tokenize_1000": dict(COST_TOKENIZE_PER_TOKEN=1000),
    "cost_prep_zero": dict(COST_GATEWAY=0, COST_TOKENIZE_PER_TOKEN=0),
    "cost_decode_fixed_0": dict(COST_DECODE_FIXED=0),
    "cost_decode_fixed_5000": dict(COST_DECODE_FIXED=5000),
    "cost_decode_per_seq_0": dict(COST_DECODE_PER_SEQ=0),
    "cost_decode_per_seq_5000": dict(COST_DECODE_PER_SEQ=5000),
    "cost_prefill_fixed_0": dict(COST_PREFILL_FIXED=0),
    "cost_prefill_fixed_5000": dict(COST_PREFILL_FIXED=5000),
    "cost_prefill_per_token_0": dict(COST_PREFILL_PER_TOKEN=0),
    "cost_prefill_per_token_50": dict(COST_PREFILL_PER_TOKEN=50),
    "cost_prefill_per_token_5000": dict(COST_PREFILL_PER_TOKEN=5000),
    "costs_fixed_zero": dict(COST_DECODE_FIXED=0, COST_PREFILL_FIXED=0),
    "costs_per_unit_zero": dict(COST_DECODE_PER_SEQ=0, COST_PREFILL_PER_TOKEN=0),
    "costs_all_one": dict(COST_GATEWAY=1, COST_TOKENIZE_PER_TOKEN=1, COST_DECODE_FIXED=1, COST_DECODE_PER_SEQ=1,
                          COST_PREFILL_FIXED=1, COST_PREFILL_PER_TOKEN=1),
    # TTFT SLO (C's TTFT is exactly 22000 µs by default: the boundary is "not above")
    "ttft_slo_0": dict(TTFT_SLO=0),
    "ttft_slo_22000": dict(TTFT_SLO=22000),
    "ttft_slo_50000": dict(TTFT_SLO=50000),
    # combinations
    "combo_slots_3_block_2_pool_40_budget_3": dict(SLOTS=3, BLOCK_SIZE=2, POOL_BLOCKS=40, TOKEN_BUDGET=3),
    "combo_queue_2_quant_4_seed_5_merges_5": dict(QUEUE_LIMIT=2, QUANT_BITS=4, SEED=5, N_MERGES=5),
    "combo_slots_4_pool_20_follow_D_budget_8": dict(SLOTS=4, POOL_BLOCKS=20, FOLLOW="D", TOKEN_BUDGET=8),
    "combo_context_48_queue_3_slots_3_follow_E": dict(MAX_CONTEXT=48, QUEUE_LIMIT=3, SLOTS=3, POOL_BLOCKS=30, FOLLOW="E"),
    "combo_costs_slo_gate": dict(COST_PREFILL_PER_TOKEN=100, COST_DECODE_FIXED=2500, TTFT_SLO=4000, QUANT_BITS=5,
                                 QUALITY_GATE=0.85),
    "combo_merges_20_block_5_seed_11": dict(N_MERGES=20, BLOCK_SIZE=5, SEED=11, TOKEN_BUDGET=5),
    # edited REQUESTS traces (the seed still prints "5 yêu cầu" / "3 yêu cầu": those texts are hard-coded)
    "trace_three_requests": dict(REQUESTS=[r for r in BASE_REQUESTS if r["id"] in "ABC"]),
    "trace_single_request": dict(REQUESTS=[r for r in BASE_REQUESTS if r["id"] == "C"]),
    "trace_six_requests": dict(QUEUE_LIMIT=3, REQUESTS=BASE_REQUESTS + [
        dict(id="F", arrival=2000, text="token hoc ban", max_new=6, temperature=0.5, top_k=3, top_p=0.95, seed=6)]),
    "trace_reversed_order": dict(REQUESTS=list(reversed(BASE_REQUESTS))),
    "trace_c_arrives_late": dict(REQUESTS=edit(C=dict(arrival=60000))),
    "trace_all_greedy": dict(REQUESTS=[dict(r, temperature=0.0, top_k=0, top_p=1.0) for r in BASE_REQUESTS]),
    "trace_c_top_k_1": dict(REQUESTS=edit(C=dict(top_k=1))),
    "trace_c_top_p_small": dict(REQUESTS=edit(C=dict(top_k=0, top_p=0.01))),
    "trace_c_hot_sampling": dict(REQUESTS=edit(C=dict(temperature=2.5, top_k=0, top_p=0.5, seed=9))),
    "trace_c_int_sampling_params": dict(REQUESTS=edit(C=dict(temperature=1, top_k=0, top_p=1))),
    "trace_new_texts": dict(QUEUE_LIMIT=2, REQUESTS=edit(A=dict(text="token token token", max_new=4),
                                                           C=dict(text="hoc ban xin", max_new=12, seed=40),
                                                           D=dict(text="chao", arrival=900))),
}

# ── Configurations for which the seed crashes ────────────────────────────────
PASS, INVALID = "pass", "invalid"
CRASHES: dict[str, dict] = {
    # followed request rejected at the gateway (429) or at input preparation (400)
    "slots_1": dict(overrides=dict(SLOTS=1)),
    "queue_limit_0": dict(overrides=dict(QUEUE_LIMIT=0)),
    "max_context_16": dict(overrides=dict(MAX_CONTEXT=16)),
    "max_context_38": dict(overrides=dict(MAX_CONTEXT=38)),
    "follow_D": dict(overrides=dict(FOLLOW="D")),
    "follow_E": dict(overrides=dict(FOLLOW="E")),
    "follow_A_max_context_13": dict(overrides=dict(FOLLOW="A", MAX_CONTEXT=13, N_MERGES=17)),
    # KV pool exhausted (the seed does not simulate preemption)
    "slots_4": dict(overrides=dict(SLOTS=4)),
    "slots_5": dict(overrides=dict(SLOTS=5, QUEUE_LIMIT=0)),
    "pool_blocks_6": dict(overrides=dict(POOL_BLOCKS=6)),
    "pool_blocks_4": dict(overrides=dict(POOL_BLOCKS=4)),
    "block_size_1": dict(overrides=dict(BLOCK_SIZE=1)),
    "block_size_2": dict(overrides=dict(BLOCK_SIZE=2)),
    "pool_6_block_2_slots_4": dict(overrides=dict(POOL_BLOCKS=6, BLOCK_SIZE=2, SLOTS=4)),
    # no request served at all
    "max_context_12": dict(overrides=dict(MAX_CONTEXT=12)),
    "max_context_14_seed_9": dict(overrides=dict(MAX_CONTEXT=14, SEED=9)),
    # the followed request gets a single token (so it never decodes)
    "follow_one_token_eos_B_seed_0": dict(overrides=dict(FOLLOW="B", SEED=0)),
    "follow_one_token_eos_A_seed_55": dict(overrides=dict(FOLLOW="A", SEED=55)),
    "follow_one_token_max_new_1": dict(overrides=dict(REQUESTS=edit(C=dict(max_new=1)))),
    # no decode step anywhere (every served request stops after one token: no TPOT at all)
    "all_max_new_1": dict(overrides=dict(REQUESTS=[dict(r, max_new=1) for r in BASE_REQUESTS])),
    # characters outside the BPE vocabulary
    "unknown_chars_follow": dict(overrides=dict(REQUESTS=edit(C=dict(text="ban hoc wiz")))),
    "unknown_chars_other": dict(overrides=dict(REQUESTS=edit(B=dict(text="Model hoc token!")))),
    "unknown_diacritics_follow": dict(overrides=dict(REQUESTS=edit(C=dict(text="xin chào bạn")))),
    "unknown_chars_everywhere": dict(overrides=dict(REQUESTS=[dict(r, text=r["text"].upper()) for r in BASE_REQUESTS])),
    # only known characters, but BPE stops at an intermediate merge that is not in the final vocabulary
    # ("mod" -> 'm', 'od' -> KeyError 'od'; "xi" -> 'xi'): the seed's vocabulary keeps only final symbols
    "bpe_intermediate_follow": dict(overrides=dict(REQUESTS=edit(C=dict(text="mod hoc ban")))),
    "bpe_intermediate_other": dict(overrides=dict(REQUESTS=edit(A=dict(text="xi chao model")))),
    # outside the engine's input domain: exit 2 naming one of the flags
    "decode_costs_zero": dict(overrides=dict(COST_DECODE_FIXED=0, COST_DECODE_PER_SEQ=0), expect=INVALID,
                              flags=["--cost-decode-fixed", "--cost-decode-per-seq"]),
    "prefill_costs_zero": dict(overrides=dict(COST_PREFILL_FIXED=0, COST_PREFILL_PER_TOKEN=0), expect=INVALID,
                               flags=["--cost-prefill-fixed", "--cost-prefill-per-token"]),
    "quant_bits_1": dict(overrides=dict(QUANT_BITS=1), expect=INVALID, flags=["--quant-bits"]),
    "quant_bits_9": dict(overrides=dict(QUANT_BITS=9), expect=INVALID, flags=["--quant-bits"]),
    "follow_missing": dict(overrides=dict(FOLLOW="X"), expect=INVALID, flags=["--follow"]),
    "top_p_zero": dict(overrides=dict(REQUESTS=edit(C=dict(top_p=0.0))), expect=INVALID, flags=["--requests"]),
    "negative_temperature": dict(overrides=dict(REQUESTS=edit(C=dict(temperature=-1.0))), expect=INVALID,
                                 flags=["--requests"]),
    "empty_requests": dict(overrides=dict(REQUESTS=[]), expect=INVALID, flags=["--requests", "--follow"]),
}


# ── Seed facts for the crash cases ──────────────────────────────────────────
def _seed_prefix(overrides: dict, marker: str) -> dict:
    """Execute the patched seed up to (not including) the line starting with `marker`; return its globals."""
    src = seed_program.patched(overrides)
    cut = src.index("\n" + marker) + 1
    ns = {"__name__": "__seed_prefix__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(src[:cut], "inference-end-to-end.py", "exec"), ns)
    return ns


def crash_facts(overrides: dict) -> dict:
    """Facts about a crash case, from the seed's own tokenizer and admission:
    follow_rejected: "429"/"400" when the followed request is rejected;
    unknown_chars / unknown_pieces: request id -> characters / BPE pieces missing from the vocabulary."""
    facts: dict = {}
    ns = _seed_prefix(overrides, "W = make_weights()")
    requests, follow, vocab, bpe_word = ns["REQUESTS"], ns["FOLLOW"], ns["TOKEN_TO_ID"], ns["bpe_word"]
    chars, pieces = {}, {}
    for r in requests:
        missing = sorted({p for word in r["text"].split() for p in bpe_word(word) if p not in vocab})
        if missing:
            pieces[r["id"]] = missing
            chars[r["id"]] = sorted({c for c in r["text"] if not c.isspace() and c not in vocab})
    if pieces:
        facts["unknown_chars"], facts["unknown_pieces"] = chars, pieces
        if follow in pieces:
            facts["follow_rejected"] = "400"
        return facts
    try:
        ns = _seed_prefix(overrides, "RUNS = [")
    except Exception:  # the main engine run itself crashed (e.g. KV pool exhausted)
        return facts
    codes = {req["id"]: code for req, code in ns["main"]["rejected"]}
    if follow in codes:
        facts["follow_rejected"] = codes[follow]
    return facts


# ── Shared with the tests: overrides -> CLI flags ───────────────────────────
BLOCK_HEADERS = [
    "[1 · Gateway & admission]", "[2 · Input preparation]", "[3 · Iteration scheduler]", "[4 · Prefill]",
    "[5 · Transformer × N layers]", "[6 · KV state manager]", "[7 · Decode]", "[8 · Logits → sampling → stop check]",
    "[9 · KV / weight precision]", "[10 · HBM memory budget]", "[11 · Telemetry & capacity feedback]",
    "[12 · Benchmark & SLO methodology]", "[13 · Quality gates & rollout]",
]


def missing_parts(stdout: str) -> list[str]:
    """Which of the 13 block headers and the TỔNG KẾT line a run's output lacks."""
    lines = stdout.splitlines()
    missing = [h for h in BLOCK_HEADERS if not any(line.startswith(h) for line in lines)]
    return missing + ([] if any(line.startswith("TỔNG KẾT") for line in lines) else ["TỔNG KẾT"])


def flag_name(constant: str) -> str:
    return "--" + constant.lower().replace("_", "-")


def cli_args(overrides: dict, workdir: Path) -> list[str]:
    """Flags for `python -m inference_lab` equivalent to the seed overrides (REQUESTS -> a JSON file in workdir)."""
    args: list[str] = []
    for name, value in overrides.items():
        if name == "REQUESTS":
            path = Path(workdir) / "requests.json"
            path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
            args += ["--requests", str(path)]
        else:
            args += [flag_name(name), value if isinstance(value, str) else repr(value)]
    return args


def run_cli(args: list[str]) -> subprocess.CompletedProcess:
    """`python -m inference_lab ARGS` run in this process through cli.main: exit status, stdout and stderr
    as text (no interpreter start-up, and the engine's caches stay warm between tests)."""
    from inference_lab.entrypoints import cli
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(list(args))
        except SystemExit as exc:  # argparse's --help
            code = exc.code or 0
    return subprocess.CompletedProcess(["python", "-m", "inference_lab", *args], code, out.getvalue(), err.getvalue())


def run_module(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    """The same in a new interpreter, `python -m inference_lab ARGS`: for the few smoke tests of the real entry point."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"), PYTHONIOENCODING="utf-8")
    return subprocess.run([sys.executable, "-m", "inference_lab", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=timeout)


# ── Generation ──────────────────────────────────────────────────────────────
def build() -> dict[str, str]:
    """path (relative to tests/golden) -> content; raises if a config does not behave as listed."""
    files: dict[str, str] = {}
    problems = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, overrides in CONFIGS.items():
            out, err = seed_program.run(overrides)
            if err is not None:
                problems.append(f"config {name}: seed crashed: {err}")
            files[f"{name}.txt"] = out
        crashes = {}
        for name, spec in CRASHES.items():
            out, err = seed_program.run(spec["overrides"])
            if err is None:
                problems.append(f"crash {name}: seed completed")
            entry = dict(overrides=spec["overrides"], error=err, expect=spec.get("expect", PASS))
            if "flags" in spec:
                entry["flags"] = spec["flags"]
            if entry["expect"] == PASS:
                entry.update(crash_facts(spec["overrides"]))
            crashes[name] = entry
    if problems:
        raise SystemExit("\n".join(problems))
    dump = lambda obj: json.dumps(obj, ensure_ascii=False, indent=1) + "\n"  # noqa: E731
    files["configs.json"] = dump(CONFIGS)
    files["crashes.json"] = dump(crashes)
    return files


def build_en() -> dict[str, str]:
    """en/<name>.txt -> the CLI's English output for every configuration of CONFIGS."""
    import tempfile
    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, overrides in CONFIGS.items():
            proc = run_cli(cli_args(overrides, Path(tmp)) + ["--lang", "en"])
            if proc.returncode != 0:
                raise SystemExit(f"config {name}: exit {proc.returncode}\n{proc.stderr}")
            files[f"{name}.txt"] = proc.stdout
    return files


def main_en(check: bool) -> int:
    sys.path.insert(0, str(ROOT / "py"))
    files, folder = build_en(), GOLDEN_DIR / "en"
    if check:
        bad = [n for n, c in files.items() if not (folder / n).exists() or (folder / n).read_text(encoding="utf-8") != c]
        for n in bad:
            print(f"out of date: tests/golden/en/{n}")
        return 1 if bad else 0
    folder.mkdir(exist_ok=True)
    for n, c in files.items():
        (folder / n).write_text(c, encoding="utf-8")
    print(f"wrote {len(files)} English golden outputs -> {folder}")
    return 0


def main(argv: list[str]) -> int:
    unknown = [a for a in argv if a not in ("--check", "--en")]
    if unknown:  # e.g. --help: print the usage instead of rewriting the goldens
        print(__doc__.split("\n\nWrites")[0], file=sys.stderr)
        return 0 if set(unknown) <= {"-h", "--help"} else 2
    check = "--check" in argv
    if "--en" in argv:
        return main_en(check)
    files = build()
    stale = sorted(p.name for p in GOLDEN_DIR.glob("*") if p.name not in files and p.is_file()) if GOLDEN_DIR.exists() else []
    if check:
        bad = [n for n, c in files.items() if not (GOLDEN_DIR / n).exists() or (GOLDEN_DIR / n).read_text(encoding="utf-8") != c]
        for n in bad + stale:
            print(f"out of date: tests/golden/{n}")
        return 1 if bad or stale else 0
    GOLDEN_DIR.mkdir(exist_ok=True)
    for n in stale:
        (GOLDEN_DIR / n).unlink()
    for n, c in files.items():
        (GOLDEN_DIR / n).write_text(c, encoding="utf-8")
    print(f"wrote {len(CONFIGS)} golden outputs + configs.json, {len(CRASHES)} crash cases -> {GOLDEN_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
