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
  tests/golden/lab/<name>.txt and tests/golden/en/lab/<name>.txt  the lab's own output (vi, en) for LAB_CONFIGS,
                              constants the seed does not have (CLOCK = roofline): reviewed once, then kept
  tests/golden/crashes.json   name -> {overrides, error, expect, ...}: configurations where the seed itself
                              crashes. expect "pass": the engine must still run to "PASS:" (exit 0);
                              expect "invalid": the input is outside the engine's domain, exit 2 naming
                              one of `flags`. Optional: follow_rejected ("429"/"400" for the followed
                              request), unknown_chars (request id -> characters missing from the vocabulary).

Deterministic: the seed is deterministic and the output files are written in a fixed order.
Leaves out: the configurations themselves (tests/golden_cases.py) and the helpers the CLI tests share
(tests/cli_runner.py: overrides -> flags, the 13 block headers, run_cli and run_module).
"""
from __future__ import annotations

import contextlib
import io
import json
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import seed_program  # noqa: E402
from cli_runner import cli_args, run_cli  # noqa: E402
from golden_cases import CONFIGS, CRASHES, GOLDEN_DIR, LAB_CONFIGS, LAB_DIR, PASS  # noqa: E402

ROOT = seed_program.ROOT


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
    files.update(build_lab())
    return files


def build_lab(lang: list[str] | None = None) -> dict[str, str]:
    """lab/<name>.txt -> the CLI's own output (in `lang` flags) for every configuration of LAB_CONFIGS."""
    import tempfile
    sys.path.insert(0, str(ROOT / "py"))
    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, spec in LAB_CONFIGS.items():
            proc = run_cli(cli_args(spec["overrides"], Path(tmp)) + spec["flags"] + (lang or []))
            if proc.returncode != 0:
                raise SystemExit(f"lab config {name}: exit {proc.returncode}\n{proc.stderr}")
            files[f"{LAB_DIR}/{name}.txt"] = proc.stdout
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
    files.update(build_lab(["--lang", "en"]))
    return files


def main_en(check: bool) -> int:
    sys.path.insert(0, str(ROOT / "py"))
    files, folder = build_en(), GOLDEN_DIR / "en"
    if check:
        bad = [n for n, c in files.items()
               if not (folder / n).exists() or (folder / n).read_text(encoding="utf-8") != c]
        for n in bad:
            print(f"out of date: tests/golden/en/{n}")
        return 1 if bad else 0
    for n, c in files.items():
        (folder / n).parent.mkdir(parents=True, exist_ok=True)
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
    stale = (sorted(p.name for p in GOLDEN_DIR.glob("*") if p.name not in files and p.is_file())
             if GOLDEN_DIR.exists() else [])
    if check:
        bad = [n for n, c in files.items()
               if not (GOLDEN_DIR / n).exists() or (GOLDEN_DIR / n).read_text(encoding="utf-8") != c]
        for n in bad + stale:
            print(f"out of date: tests/golden/{n}")
        return 1 if bad or stale else 0
    GOLDEN_DIR.mkdir(exist_ok=True)
    for n in stale:
        (GOLDEN_DIR / n).unlink()
    for n, c in files.items():
        (GOLDEN_DIR / n).parent.mkdir(parents=True, exist_ok=True)
        (GOLDEN_DIR / n).write_text(c, encoding="utf-8")
    print(f"wrote {len(CONFIGS)} golden outputs + configs.json, {len(CRASHES)} crash cases -> {GOLDEN_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
