"""The exercises in exercises/*.md: every file parses (and has its English edition, checked the same way:
`expect_en` / `expect_steps_en` in the English output, the numbers of `## Answer` printed), the six headline
constants are covered, every `expect` string is in the lab's output under the exercise's constants (every `expect_steps`
string in its step narration, `--steps`), every number quoted in an answer is one the lab prints
(the 13 blocks or the step narration), and `python -m inference_lab --exercise N` runs them.

An exercise with a `[patch]` (engine functions rewritten, see py/inference_lab/entrypoints/patch.py) is checked
the same way under its patch; its `compare` runs are unpatched. Each patched function is one the page
offers in its editor (patch.EDITABLE) and loads without a lesson.

A number "quoted in an answer" is, in the `## Đáp án` section: a number with a decimal point
(22.00, 0.0304, 82.5), a fraction (33/40, 7/12: the whole fraction is looked for), or an integer
≥ 10 (8950, 127). Block references ("[6 · KV state manager]", "khối [12]", "[13]", "khối 6") are
not numbers. Each must occur, bounded by non-digits, in the output under the exercise's constants or
under one of its optional `compare` runs (a TOML array of constant tables; `{}` = the defaults;
see exercises/README.md).
"""
from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

from helpers import printed
from inference_lab import run
from inference_lab.entrypoints import patch
from inference_lab.entrypoints.exercises import load_all, split_front_matter
from cli_runner import cli_args, run_cli

ROOT = Path(__file__).resolve().parents[1]
EXERCISES = ROOT / "exercises"
HEADLINE = ("SLOTS", "QUEUE_LIMIT", "TOKEN_BUDGET", "BLOCK_SIZE", "POOL_BLOCKS", "QUANT_BITS")

ALL = load_all(EXERCISES)
IDS = [f"{e.number:02d}-{e.slug}" for e in ALL]


@functools.lru_cache(maxsize=None)
def _report(frozen: str, frozen_patch: str = "{}"):
    functions = json.loads(frozen_patch)
    if not functions:
        return run(json.loads(frozen))
    return patch.run(patch.units_of(functions), run, json.loads(frozen))[0]


@functools.lru_cache(maxsize=None)
def _report_en(frozen: str, frozen_patch: str = "{}"):
    from inference_lab.entrypoints.lab import render
    return render(_report(frozen, frozen_patch), "en")


def _key(constants: dict, functions: dict | None) -> tuple[str, str]:
    return json.dumps(constants, sort_keys=True), json.dumps(functions or {}, sort_keys=True)


def output(constants: dict, functions: dict | None = None, lang: str = "vi") -> str:
    """The lab's text under these constants and patched functions (cached: several tests share a run)."""
    key = _key(constants, functions)
    return (_report_en(*key) if lang == "en" else _report(*key)).to_text()


def steps_output(constants: dict, functions: dict | None = None, lang: str = "vi") -> str:
    """The step narration (`--steps`) under these constants and patched functions."""
    key = _key(constants, functions)
    return (_report_en(*key) if lang == "en" else _report(*key)).steps_text()


def compare_runs(ex) -> list[dict]:
    """The exercise's optional `compare` key: constant tables whose output the answer may quote."""
    meta, _ = split_front_matter((EXERCISES / f"{ex.number:02d}-{ex.slug}.md").read_text(encoding="utf-8"))
    compare = meta.get("compare", [])
    assert isinstance(compare, list) and all(isinstance(c, dict) for c in compare), \
        f"{ex.slug}: compare must be an array of tables, e.g. compare = [{{}}, {{ SLOTS = 3 }}]"
    return compare


def tool_flags(ex) -> list[str]:
    """A capacity-planning exercise's tool: its --sweep, or its --search axes ([] for any other exercise)."""
    if ex.sweep:
        return ["--sweep", ex.sweep]
    return [flag for axis in ex.search for flag in ("--search", axis)]


@functools.lru_cache(maxsize=None)
def _tool_output(args: tuple) -> str:
    proc = run_cli(list(args))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def tool_outputs(ex, lang: str = "vi") -> list[str]:
    """The tool's output with `--exercise N` (the constants), then with each `compare` table's constants."""
    flags = tool_flags(ex)
    if not flags:
        return []
    outs = [_tool_output(("--exercise", str(ex.number), *flags, "--lang", lang))]
    for c in compare_runs(ex):
        outs.append(_tool_output((*cli_args(c, Path(".")), *flags, "--lang", lang)))
    return outs


# ── numbers in an answer ───────────────────────────────────────────────────
BLOCK_REF = re.compile(r"\[\d+\s*·[^\]]*\]|\b[Kk]hối\s+\[?\d+\]?|\[(?:[1-9]|1[0-3])\]")
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:/\d+(?:\.\d+)?)*")


def quoted_numbers(markdown: str) -> list[str]:
    """Numbers the answer quotes: decimals, fractions, and integers >= 10 (block references removed).

    >>> quoted_numbers("C: 22.00 ms, 33/40 = 82.5%, bước 4, 8950 µs, INT8, khối [9] và [13], [6 · KV], [6, 7]")
    ['22.00', '33/40', '82.5', '8950']
    """
    text = BLOCK_REF.sub(" ", markdown)
    return [m for m in NUMBER.findall(text) if "." in m or "/" in m or int(m) >= 10]


# ── (a) discovery and coverage ─────────────────────────────────────────────
def test_at_least_six_exercises():
    assert len(ALL) >= 6, f"only {len(ALL)} exercises in {EXERCISES}"
    assert len({e.number for e in ALL}) == len(ALL), "two exercises share a number"


def test_headline_constants_covered():
    covered = {name for e in ALL for name in e.constants}
    missing = [c for c in HEADLINE if c not in covered]
    assert not missing, f"no exercise changes {missing}"


@pytest.mark.parametrize("ex", ALL, ids=IDS)
def test_exercise_is_well_formed(ex):
    assert ex.title.strip()
    assert ex.constants or ex.patch, "an exercise changes at least one constant or one function"
    assert 3 <= len(ex.expect) <= 8, f"{len(ex.expect)} expect strings; want 3-8"
    for name in ("Câu hỏi", "Dự đoán", "Đáp án"):
        assert ex.sections[name].strip(), f"section ## {name} is empty"
    assert re.search(r"\[\d+ · [^\]]+\]",
                     ex.sections["Dự đoán"]), "Dự đoán names no block like [1 · Gateway & admission]"


# ── (b) expect strings ─────────────────────────────────────────────────────
@pytest.mark.parametrize("ex", ALL, ids=IDS)
def test_expect_strings_in_output(ex):
    text = output(ex.constants, ex.patch)
    missing = [s for s in ex.expect if s not in text]
    assert not missing, f"not in the output under {ex.constants}: {missing}"
    steps = steps_output(ex.constants, ex.patch)
    missing = [s for s in ex.expect_steps if s not in steps]
    assert not missing, f"not in the step narration (--steps) under {ex.constants}: {missing}"


# ── (c0) numbers worked out by hand (exercise 13's capacity plan) ──────────
def arithmetic(expr: str):
    """Evaluate + - * / // ** and parentheses on number literals only."""
    import ast
    import operator
    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow}

    def ev(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](ev(node.left), ev(node.right))
        raise ValueError(f"not plain arithmetic: {ast.dump(node)}")
    return ev(ast.parse(expr, mode="eval").body)


def hand_numbers(ex) -> set[str]:
    """The front matter's `given` numbers (stated facts, e.g. a model's parameter count) and `computed`
    [number, formula] pairs: numbers an answer may quote that the lab does not print (checked below)."""
    meta, _ = split_front_matter((EXERCISES / f"{ex.number:02d}-{ex.slug}.md").read_text(encoding="utf-8"))
    return set(meta.get("given", [])) | {n for n, _ in meta.get("computed", [])}


@pytest.mark.parametrize("ex", ALL, ids=IDS)
def test_computed_numbers_are_right(ex):
    meta, _ = split_front_matter((EXERCISES / f"{ex.number:02d}-{ex.slug}.md").read_text(encoding="utf-8"))
    wrong = [(n, f, arithmetic(f)) for n, f in meta.get("computed", []) if arithmetic(f) != float(n)]
    assert not wrong, f"computed numbers that their formula does not give: {wrong}"


def test_capacity_plan_by_hand():
    """Exercise 13's plan, worked out again in words: 80 GiB x 0.9 minus bf16 weights, blocks of 16 tokens."""
    budget = 80 * 2**30 * 9 // 10
    plan = {}
    for model, params, kv_heads in (("llama2", 6_738_415_616, 32), ("llama3", 8_030_261_248, 8)):
        for kv_bytes in (2, 1):
            block = 2 * 32 * kv_heads * 128 * kv_bytes * 16
            blocks = (budget - 2 * params) // block
            plan[model, kv_bytes] = (blocks, blocks // (2048 // 16))
    assert plan == {("llama2", 2): (7609, 59), ("llama2", 1): (15218, 118),
                    ("llama3", 2): (29205, 228), ("llama3", 1): (58411, 456)}
    ex = next(e for e in ALL if e.number == 13)
    for n in ("7609", "59", "29205", "228", "15218", "118", "58411", "456"):
        assert n in ex.sections["Đáp án"] and n in ex.sections["Answer"]


# ── (c) every quoted number is printed ─────────────────────────────────────
@pytest.mark.parametrize("ex", ALL, ids=IDS)
def test_answer_numbers_are_printed(ex):
    texts = [output(ex.constants, ex.patch), steps_output(ex.constants, ex.patch)]
    texts += [t for c in compare_runs(ex) for t in (output(c), steps_output(c))] + tool_outputs(ex)
    numbers = quoted_numbers(ex.sections["Đáp án"])
    assert numbers, "the answer quotes no number from the lab"
    unprinted = sorted({n for n in numbers if not any(printed(n, t) for t in texts)} - hand_numbers(ex))
    assert not unprinted, (f"numbers in ## Đáp án that the lab does not print under {ex.constants}"
                           f" or compare {compare_runs(ex)}: {unprinted}")


EDITABLE = {name for names in patch.EDITABLE.values() for name in names}


def test_some_exercises_need_the_code():
    assert sum(1 for e in ALL if e.patch) >= 2, "at least two exercises rewrite an engine function ([patch])"


@pytest.mark.parametrize("ex", [e for e in ALL if e.patch], ids=[i for e, i in zip(ALL, IDS) if e.patch])
def test_patch_is_editable_and_changes_the_output(ex):
    assert set(ex.patch) <= EDITABLE, f"[patch] keys the page's editor does not offer: {set(ex.patch) - EDITABLE}"
    with patch.patched(patch.units_of(ex.patch)) as names:     # loads without a lesson
        assert names == sorted(ex.patch)
    assert output(ex.constants, ex.patch) != output(ex.constants), "the patch changes nothing"


def test_number_matching_is_strict():
    text = "TTFT 22.00 ms | bước 10: 10.60 ms | 33/40 | KV 7/12"
    assert printed("22.00", text) and printed("33/40", text) and printed("7/12", text)
    assert not printed("2.00", text) and not printed("22.0", text) and not printed("3/40", text)
    assert printed("10", text) and not printed("60", text)


# ── (c') the English edition, checked like the Vietnamese one ─────────────
VIETNAMESE = re.compile(r"[\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u1E00-\u1EFF]")


@pytest.mark.parametrize("ex", ALL, ids=IDS)
def test_english_edition(ex):
    assert ex.has_english, f"{ex.slug}: needs title_en and ## Question / ## Prediction / ## Answer"
    assert len(ex.expect_en) == len(ex.expect) and len(ex.expect_steps_en) == len(ex.expect_steps)
    text = "\n".join([ex.title_en, *ex.expect_en, *ex.expect_steps_en,
                      *(ex.sections[n] for n in ("Question", "Prediction", "Answer"))])
    assert not VIETNAMESE.search(text), (f"{ex.slug}: Vietnamese letters in the English edition: "
                                         f"{VIETNAMESE.findall(text)[:5]}")
    assert re.search(r"\[\d+ · [^\]]+\]",
                     ex.sections["Prediction"]), "Prediction names no block like [1 · Gateway & admission]"
    missing = [s for s in ex.expect_en if s not in output(ex.constants, ex.patch, "en")]
    assert not missing, f"not in the English output under {ex.constants}: {missing}"
    missing = [s for s in ex.expect_steps_en if s not in steps_output(ex.constants, ex.patch, "en")]
    assert not missing, f"not in the English step narration under {ex.constants}: {missing}"


@pytest.mark.parametrize("ex", ALL, ids=IDS)
def test_english_answer_numbers_are_printed(ex):
    runs = [ex.constants, *compare_runs(ex)]
    texts = [output(ex.constants, ex.patch, "en"), steps_output(ex.constants, ex.patch, "en")]
    texts += [t for c in runs for t in (output(c, None, "en"), steps_output(c, None, "en"))] + tool_outputs(ex, "en")
    numbers = quoted_numbers(re.sub(r"\b[Bb]locks?\s+\[?\d+\]?", " ", ex.sections["Answer"]))
    assert numbers, "the answer quotes no number from the lab"
    unprinted = sorted({n for n in numbers if not any(printed(n, t) for t in texts)} - hand_numbers(ex))
    assert not unprinted, f"numbers in ## Answer that the lab does not print under {runs}: {unprinted}"
    assert sorted(set(numbers)) == sorted(set(quoted_numbers(ex.sections["Đáp án"]))), ("the two answers quote "
                                                                                        "different numbers")


# ── (c'') a capacity-planning tool (--sweep / --search) run with the constants ──
TOOLS = [e for e in ALL if e.sweep or e.search]


def test_some_exercises_run_a_sweep_or_a_search():
    assert any(e.sweep for e in TOOLS) and any(e.search for e in TOOLS)


@pytest.mark.parametrize("ex", TOOLS, ids=[f"{e.number:02d}-{e.slug}" for e in TOOLS])
def test_tool_expect_strings(ex):
    assert 3 <= len(ex.expect_tool) <= 8 and len(ex.expect_tool_en) == len(ex.expect_tool)
    for lang, expect in (("vi", ex.expect_tool), ("en", ex.expect_tool_en)):
        text = "\n".join(tool_outputs(ex, lang))
        missing = [s for s in expect if s not in text]
        assert not missing, f"not in --exercise {ex.number} {' '.join(tool_flags(ex))} --lang {lang}: {missing}"
    assert "--exercise " + str(ex.number) in ex.sections["Câu hỏi"] and "--exercise " + str(ex.number) in \
        ex.sections["Question"], "the question says how to run the tool"


# ── (d) the command line ───────────────────────────────────────────────────
@pytest.fixture
def cli(monkeypatch):
    """`python -m inference_lab ARGS` in this process, reading the repository's exercises/."""
    monkeypatch.delenv("LAB_EXERCISES", raising=False)
    return lambda *args: run_cli(list(args))


@pytest.mark.parametrize("ex", ALL, ids=IDS)
def test_cli_exercise(ex, cli):
    proc = cli("--exercise", str(ex.number))
    failing = any(s.startswith("FAIL:") for s in ex.expect)     # an exercise about a check that fails (11): exit 1
    assert proc.returncode == (1 if failing else 0), proc.stderr[-2000:]
    missing = [s for s in ex.expect if s not in proc.stdout]
    assert not missing, f"--exercise {ex.number}: not in stdout: {missing}"
    if ex.expect_steps:
        proc = cli("--exercise", str(ex.number), "--steps")
        assert proc.returncode == 0, proc.stderr[-2000:]
        missing = [s for s in ex.expect_steps if s not in proc.stdout]
        assert not missing, f"--exercise {ex.number} --steps: not in stdout: {missing}"


def test_cli_unknown_exercise(cli):
    proc = cli("--exercise", "99")
    assert proc.returncode == 2
    assert "99" in proc.stderr and "--exercise" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
