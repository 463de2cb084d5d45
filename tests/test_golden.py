"""The engine CLI against the seed program, byte for byte.

- every configuration of tests/golden/configs.json: `python -m inference_lab <flags>` == tests/golden/<name>.txt
  (run in this process through cli.main, see cli_runner.run_cli)
- every configuration of golden_cases.LAB_CONFIGS (constants the seed does not have, CLOCK = roofline): the CLI ==
  tests/golden/lab/<name>.txt, the lab's own output kept byte for byte
- the default run == ../shared/golden/default.txt (in a new interpreter: the real `python -m inference_lab`)
- the goldens still reproduce from the seed (seed side only; catches a stale tests/golden)
- differential: random bounded configurations (hypothesis); where the seed completes the CLI must print the
  same bytes, where the seed crashes the CLI must still finish (exit 0/1, all 13 blocks, TỔNG KẾT, no traceback).

Regenerate the goldens with `python3 tests/make_golden.py`.
LAB_DIFF_EXAMPLES (default 40) sets the number of differential examples; LAB_DIFF_RANDOM=1 explores
new random examples instead of the fixed (derandomized) CI set.
"""
from __future__ import annotations

import json
import os
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import seed_program
from cli_runner import cli_args, missing_parts, run_cli, run_module
from golden_cases import GOLDEN_DIR, LAB_CONFIGS, LAB_DIR

CONFIGS = json.loads((GOLDEN_DIR / "configs.json").read_text(encoding="utf-8"))


def first_difference(got: str, want: str) -> str:
    g, w = got.splitlines(keepends=True), want.splitlines(keepends=True)
    for i, (a, b) in enumerate(zip(g, w)):
        if a != b:
            return f"line {i + 1}:\n  got:  {a!r}\n  want: {b!r}"
    return f"lengths differ: got {len(g)} lines, want {len(w)} lines"


def assert_same_output(proc, want: str, label: str) -> None:
    assert "Traceback" not in proc.stderr, f"{label}: traceback\n{proc.stderr[-2000:]}"
    assert proc.returncode == 0, f"{label}: exit {proc.returncode}\n{proc.stderr[-2000:]}"
    assert proc.stdout == want, f"{label}: output differs at {first_difference(proc.stdout, want)}"


def assert_finishes(proc, label: str) -> None:
    """What a degenerate (seed-crashing) run must still do."""
    assert "Traceback" not in proc.stderr, f"{label}: traceback\n{proc.stderr[-2000:]}"
    assert proc.returncode in (0, 1), f"{label}: exit {proc.returncode}\n{proc.stderr[-2000:]}"
    assert not missing_parts(proc.stdout), f"{label}: output lacks {missing_parts(proc.stdout)}"


def test_default_run_matches_shared_golden():
    """In a new interpreter, as a student types it: `python -m inference_lab`."""
    assert_same_output(run_module([]), seed_program.GOLDEN.read_text(encoding="utf-8"), "default")


@pytest.mark.parametrize("name", list(CONFIGS))
def test_golden(name, tmp_path):
    want = (GOLDEN_DIR / f"{name}.txt").read_text(encoding="utf-8")
    assert_same_output(run_cli(cli_args(CONFIGS[name], tmp_path)), want, name)


@pytest.mark.parametrize("name", list(LAB_CONFIGS))
def test_lab_golden(name, tmp_path):
    """Constants the seed does not have (CLOCK = roofline): the lab's own output, kept byte for byte."""
    spec = LAB_CONFIGS[name]
    want = (GOLDEN_DIR / LAB_DIR / f"{name}.txt").read_text(encoding="utf-8")
    assert_same_output(run_cli(cli_args(spec["overrides"], tmp_path) + spec["flags"]), want, name)


def test_goldens_reproduce_from_seed():
    stale = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, overrides in CONFIGS.items():
            out, err = seed_program.run(overrides)
            if err is not None or out != (GOLDEN_DIR / f"{name}.txt").read_text(encoding="utf-8"):
                stale.append((name, err))
    assert not stale, f"run python3 tests/make_golden.py; stale: {stale}"
    assert (GOLDEN_DIR / "default.txt").read_text(encoding="utf-8") == seed_program.GOLDEN.read_text(encoding="utf-8")


# ── Differential testing against the seed ───────────────────────────────────
def maybe(strategy):
    return st.one_of(st.none(), strategy)


@st.composite
def configurations(draw):
    ranges = dict(
        SLOTS=st.integers(1, 6), QUEUE_LIMIT=st.integers(0, 4), TOKEN_BUDGET=st.integers(1, 16),
        BLOCK_SIZE=st.integers(1, 8), POOL_BLOCKS=st.integers(4, 40), QUANT_BITS=st.integers(2, 8),
        MAX_CONTEXT=st.sampled_from(range(12, 49)), SEED=st.integers(0, 1000), N_MERGES=st.integers(0, 20),
        FOLLOW=st.sampled_from("ABCDE"),
        COST_GATEWAY=st.integers(0, 5000), COST_TOKENIZE_PER_TOKEN=st.integers(0, 5000),
        COST_DECODE_FIXED=st.integers(0, 5000), COST_DECODE_PER_SEQ=st.integers(0, 5000),
        COST_PREFILL_FIXED=st.integers(0, 5000), COST_PREFILL_PER_TOKEN=st.integers(0, 5000),
        TTFT_SLO=st.integers(0, 50000), QUALITY_GATE=st.integers(0, 100).map(lambda p: p / 100),
    )
    config = {}
    for name, strategy in ranges.items():
        value = draw(maybe(strategy))
        if value is not None:
            config[name] = value
    # a step must always take time: fixed + per-unit cost not both 0 (defaults are non-zero)
    for fixed, per in (("COST_PREFILL_FIXED", "COST_PREFILL_PER_TOKEN"), ("COST_DECODE_FIXED", "COST_DECODE_PER_SEQ")):
        if config.get(fixed, 1) == 0 and config.get(per, 1) == 0:
            config[per] = draw(st.integers(1, 5000))
    return config


@settings(max_examples=int(os.environ.get("LAB_DIFF_EXAMPLES", "40")), deadline=None, database=None,
          derandomize=not os.environ.get("LAB_DIFF_RANDOM"),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(config=configurations())
def test_differential_against_seed(config, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want, err = seed_program.run(config)
    proc = run_cli(cli_args(config, tmp_path))
    if err is None:
        assert_same_output(proc, want, f"config {config}")
    else:
        assert_finishes(proc, f"config {config} (seed: {err})")
