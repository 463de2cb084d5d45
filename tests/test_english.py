"""The English edition (issue 14): same facts, other words, and not a byte of the Vietnamese changed.

- every golden configuration: `python -m inference_lab --lang en <flags>` == tests/golden/en/<name>.txt
  (regenerate with `python3 tests/make_golden.py --en` after a deliberate wording change)
- same numbers: line by line, the English output prints the same numbers in the same order as the Vietnamese
  golden, for every golden configuration, the crash configurations and the step narration (`--steps`)
- no Vietnamese letter (a letter with a Vietnamese diacritic, đ, ơ, ư, ă, â, ê, ô) in any English output,
  --help, error message, control label or validation message
- re-rendering: a report's JSON words the same run in the other language exactly like a new run (the page's
  language switch), and back to Vietnamese byte for byte
"""
from __future__ import annotations

import json
import re

import pytest

from cli_runner import cli_args, run_cli
from golden_cases import GOLDEN_DIR, LAB_CONFIGS, LAB_DIR

from inference_lab.core.inputs import config
from inference_lab.entrypoints import lab, web
from inference_lab.entrypoints.report import Report
from inference_lab.words.text_schema import problem_text

CONFIGS = json.loads((GOLDEN_DIR / "configs.json").read_text(encoding="utf-8"))
CRASHES = json.loads((GOLDEN_DIR / "crashes.json").read_text(encoding="utf-8"))
PASSING_CRASHES = {n: c["overrides"] for n, c in CRASHES.items() if c["expect"] == "pass"}
EN_DIR = GOLDEN_DIR / "en"

NUMBER = re.compile(r"\d+(?:\.\d+)?")
# Latin letters with diacritics (À..ỹ) except × and ÷: English text never needs one; Vietnamese always does
VIETNAMESE = re.compile(r"[\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u1E00-\u1EFF]")


def numbers(line: str) -> list[str]:
    return NUMBER.findall(line)


def assert_same_numbers(vi: str, en: str, label: str) -> None:
    v, e = vi.splitlines(), en.splitlines()
    assert len(v) == len(e), f"{label}: {len(v)} Vietnamese lines, {len(e)} English lines"
    for i, (a, b) in enumerate(zip(v, e)):
        assert numbers(a) == numbers(b), f"{label} line {i + 1}:\n  vi: {a}\n  en: {b}"


def assert_english(text: str, label: str, overrides: dict | None = None) -> None:
    """No Vietnamese letter, except those the user typed into a request's text (echoed back as data)."""
    typed = {c for r in (overrides or {}).get("REQUESTS", []) for c in r.get("text", "")}
    bad = [(i + 1, line) for i, line in enumerate(text.splitlines())
           if any(VIETNAMESE.match(c) and c not in typed for c in line)]
    assert not bad, f"{label}: Vietnamese letters in English output, first at line {bad[0][0]}: {bad[0][1]}"


def test_vietnamese_letters_are_caught():
    assert VIETNAMESE.search("Bước 1") and VIETNAMESE.search("đ") and not VIETNAMESE.search("2 x 3 × 4 µs → é"[:-1])


@pytest.mark.parametrize("name", list(CONFIGS))
def test_english_golden(name, tmp_path):
    proc = run_cli(cli_args(CONFIGS[name], tmp_path) + ["--lang", "en"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (EN_DIR / f"{name}.txt").read_text(encoding="utf-8"), ("run python3 tests/make_golden.py "
                                                                                 f"--en ({name})")


@pytest.mark.parametrize("name", list(CONFIGS))
def test_golden_same_numbers_no_vietnamese(name):
    vi = (GOLDEN_DIR / f"{name}.txt").read_text(encoding="utf-8")
    en = (EN_DIR / f"{name}.txt").read_text(encoding="utf-8")
    assert_same_numbers(vi, en, name)
    assert_english(en, name, CONFIGS[name])


@pytest.mark.parametrize("name", list(LAB_CONFIGS))
def test_lab_english_golden(name, tmp_path):
    """Constants the seed does not have (CLOCK = roofline): the English edition of the lab's own golden, with
    the Vietnamese one's numbers and no Vietnamese letters."""
    spec = LAB_CONFIGS[name]
    proc = run_cli(cli_args(spec["overrides"], tmp_path) + spec["flags"] + ["--lang", "en"])
    assert proc.returncode == 0, proc.stderr
    en = (EN_DIR / LAB_DIR / f"{name}.txt").read_text(encoding="utf-8")
    assert proc.stdout == en, f"run python3 tests/make_golden.py --en ({name})"
    assert_same_numbers((GOLDEN_DIR / LAB_DIR / f"{name}.txt").read_text(encoding="utf-8"), en, name)
    assert_english(en, name, spec["overrides"])


@pytest.mark.parametrize("name", list(PASSING_CRASHES))
def test_crash_configs_same_numbers(name):
    """Where the seed crashes the lab words its own lines (refused FOLLOW, preemption, unknown characters)."""
    vi, en = lab.run(PASSING_CRASHES[name]), lab.run(PASSING_CRASHES[name], lang="en")
    assert_same_numbers(vi.to_text(), en.to_text(), name)
    assert_english(en.to_text(), name, PASSING_CRASHES[name])
    assert_same_numbers(vi.steps_text(), en.steps_text(), f"{name} --steps")
    assert_english(en.steps_text(), f"{name} --steps", PASSING_CRASHES[name])


def _trace(**changes):
    """The default trace with per-request column changes, e.g. _trace(A=dict(cancel_at=8000))."""
    return [dict(r, **changes.get(r["id"], {})) for r in config.DEFAULT_REQUESTS]


# vLLM behaviours off by default (issue 13): prefix caching, cancellation, priority scheduling
FEATURES = {
    "prefix_cache": dict(PREFIX_CACHE="on"),
    "prefix_cache_queue_2_follow_D": dict(PREFIX_CACHE="on", QUEUE_LIMIT=2, FOLLOW="D"),
    "prefix_cache_small_pool": dict(PREFIX_CACHE="on", SLOTS=3, POOL_BLOCKS=8, QUEUE_LIMIT=2),
    "cancel_running": dict(REQUESTS=_trace(A=dict(cancel_at=8000))),
    "cancel_followed_waiting": dict(REQUESTS=_trace(C=dict(cancel_at=2000))),
    "cancel_after_last_step": dict(QUEUE_LIMIT=2, REQUESTS=_trace(D=dict(cancel_at=20000))),
    "priority": dict(SCHED_POLICY="priority", QUEUE_LIMIT=2,
                     REQUESTS=_trace(D=dict(priority=0), C=dict(priority=2), A=dict(priority=1))),
    "priority_preempt": dict(SCHED_POLICY="priority", SLOTS=3, POOL_BLOCKS=8,
                             REQUESTS=_trace(A=dict(priority=3), B=dict(priority=0), C=dict(priority=1))),
}


@pytest.mark.parametrize("name", list(FEATURES))
def test_vllm_features_same_numbers(name):
    vi = lab.run(FEATURES[name])
    en = lab.render(vi, "en")
    assert_same_numbers(vi.to_text(), en.to_text(), name)
    assert_english(en.to_text(), name)
    assert_same_numbers(vi.steps_text(), en.steps_text(), f"{name} --steps")
    assert_english(en.steps_text(), f"{name} --steps")
    assert en.to_text() == lab.run(FEATURES[name], lang="en").to_text()


@pytest.mark.parametrize("name", list(CONFIGS))
def test_steps_same_numbers(name):
    vi = lab.run(CONFIGS[name])
    en = lab.render(vi, "en")
    assert_same_numbers(vi.steps_text(), en.steps_text(), f"{name} --steps")
    assert_english(en.steps_text() + "\n".join(en.steps["wait_labels"].values()), f"{name} --steps", CONFIGS[name])
    assert [c.label for c in en.checks] and all(not VIETNAMESE.search(c.label) for c in en.checks)


@pytest.mark.parametrize("name", ["default", "pool_blocks_7", "follow_D_queue_2", "n_merges_0"])
def test_render_from_json_is_a_new_run(name):
    """The page's language switch: the last run's JSON worded again equals running in that language."""
    overrides = CONFIGS.get(name) or PASSING_CRASHES.get(name, {})
    vi = lab.run(overrides)
    again = Report.from_dict(json.loads(vi.to_json()))
    en = lab.render(again, "en")
    assert en.to_text() == lab.run(overrides, lang="en").to_text() and en.lang == "en"
    assert en.steps_text() == lab.run(overrides, lang="en").steps_text()
    back = lab.render(Report.from_dict(json.loads(en.to_json())), "vi")
    assert back.to_text() == vi.to_text() and back.steps_text() == vi.steps_text()
    assert json.loads(back.to_json()) == json.loads(vi.to_json())


def test_web_render_answers_like_run():
    first = json.loads(web.run("{}"))
    assert first["report"]["lang"] == "vi"
    assert web.render(json.dumps(first["report"]), "en") == web.run("{}", lang="en")
    trace = json.loads(web.run("{}", lang="en"))["trace"]
    assert trace["traceEvents"][0]["args"]["name"].startswith("Inference Lab (simulated")


def test_english_default_has_its_own_golden():
    assert (EN_DIR / "default.txt").read_text(encoding="utf-8").startswith("=== END-TO-END LAB")


def test_schema_has_english_labels_and_help():
    for d in json.loads(web.describe()):
        assert d["label_en"] and d["help_en"], d["name"]
        assert d["name"] in d["label_en"] or d["type"] == "choice" and "FOLLOW" in d["label_en"]
        assert_english(d["label_en"] + "\n" + d["help_en"], d["name"])
        for c in d.get("columns", []):
            assert c["label_en"] and c["help_en"] and not VIETNAMESE.search(c["label_en"] + c["help_en"]), c


@pytest.mark.parametrize("values", [
    {"SLOTS": 0, "QUANT_BITS": "x", "QUALITY_GATE": 2.0, "NOPE": 1, "FOLLOW": "Z"},
    {"COST_PREFILL_FIXED": 0, "COST_PREFILL_PER_TOKEN": 0, "SEED": 10 ** 30},
    {"REQUESTS": "x"}, {"REQUESTS": []}, {"REQUESTS": [1, {"id": "é", "text": " ", "extra": 1}]},
    {"REQUESTS": [dict(r, text="x" * 200) for r in config.DEFAULT_REQUESTS] + [dict(config.DEFAULT_REQUESTS[0])]},
])
def test_every_validation_message_has_english(values):
    problems = config.validate(values)
    assert problems
    for p in problems:
        vi, en = problem_text(p, "vi"), problem_text(p, "en")
        assert en and en != vi, p
        assert not VIETNAMESE.search(en.replace("é", "")), en


def test_cli_help_and_errors_in_english():
    helped = run_cli(["--lang", "en", "--help"])
    assert helped.returncode == 0 and "--lang" in helped.stdout
    assert_english(helped.stdout, "--help")
    for args in (["--slots", "abc", "--block-size", "0"], ["--nope"], ["--slots"], ["--exercise", "99"],
                 ["--requests", "/no/such/file.json"], ["--follow", "Z"]):
        proc = run_cli(["--lang=en", *args])
        assert proc.returncode == 2 and proc.stderr.startswith("error: "), proc.stderr
        assert_english(proc.stderr, " ".join(args))


def test_cli_lang_vi_is_the_default_and_unchanged():
    assert run_cli(["--lang",
                    "vi"]).stdout == run_cli([]).stdout == (GOLDEN_DIR / "default.txt").read_text(encoding="utf-8")


def test_cli_steps_in_english():
    proc = run_cli(["--lang", "en", "--steps", "--pool-blocks", "6"])
    assert proc.stdout.startswith("Step 1/") and "PREEMPT:" in proc.stdout
    assert_english(proc.stdout, "--steps")


@pytest.mark.parametrize("source", [
    "def plan_tasks(running, budget_cap)\n    return []",                 # syntax
    "def plan_tasks(running, budget_cap):\n    return 5",                 # wrong return value
    "def plan_tasks(running, budget_cap):\n    return 1 / 0",             # exception in the student's lines
    "def plan_task(running, budget_cap):\n    return []",                 # no such function
    "def plan_tasks(running):\n    return []",                            # wrong parameters
])
def test_patch_lessons_in_english(source):
    """Issue 11's lessons about edited code come in the run's language (Vietnamese by default)."""
    en = json.loads(web.run("{}", {"scheduler": source}, lang="en"))
    vi = json.loads(web.run("{}", {"scheduler": source}))
    assert not en["ok"] and not vi["ok"]
    for lesson in en["errors"]:
        assert not VIETNAMESE.search(lesson["message"]), lesson["message"]
    assert any(VIETNAMESE.search(lesson["message"]) for lesson in vi["errors"])
