"""A recorded workload (issue 42 §Real traffic, core/inputs/trace_workload.py): the shipped samples are the trace's
first rows with their attribution beside them, arrivals and lengths are the trace's, the window and time scale,
clipping to MAX_CONTEXT, the full file on the command line, and clear errors for bad input.

Hand-checkable reference: the conversation trace's first rows are
18:15:46.6805900,374,44 / 18:15:50.9951690,396,109 / 18:15:51.2224770,879,55, so R2 arrives 4,314,579 µs after R1.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from cli_runner import run_cli
from inference_lab.core.inputs import trace_workload, workload
from inference_lab.core.inputs.config import Config, ConfigError

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "traces" / "azure-llm-inference-2023"
FULL_CONV = SHARED / "AzureLLMInferenceTrace_conv.csv"
TOK = workload.tokenizer(10)
BASE = dict(CLOCK="roofline", MAX_CONTEXT=8192, SLOTS=32, TOKEN_BUDGET=8192)


def values(**kw) -> dict:
    return Config.from_values({**BASE, **kw}).to_values()


def test_samples_are_the_first_rows_with_attribution():
    for name, kind in (("azure-conv", "conv"), ("azure-code", "code")):
        sample = trace_workload.path_of(name).read_text(encoding="utf-8").splitlines()
        full = f"AzureLLMInferenceTrace_{kind}.csv"
        assert len(sample) == 1001 and sample[0] == "TIMESTAMP,ContextTokens,GeneratedTokens"
        assert sample == (SHARED / full).read_text(encoding="utf-8").splitlines()[:1001]
    readme = (trace_workload.HERE / "README.md").read_text(encoding="utf-8")
    assert "Splitwise" in readme and "Creative Commons Attribution 4.0" in readme
    assert "sample" in readme and (trace_workload.HERE / "LICENSE").exists()


def test_reference_arrivals_and_lengths():
    rows = trace_workload.read_rows("azure-conv")
    assert rows[:3].tolist() == [[0, 374, 44], [4_314_579, 396, 109], [4_541_877, 879, 55]]
    cfg = Config.from_values({**BASE, "WORKLOAD_TRACE": "azure-conv", "WORKLOAD_REQUESTS": 50})
    assert [r["id"] for r in cfg.REQUESTS[:3]] == ["R1", "R2", "R3"]
    assert [r["arrival"] for r in cfg.REQUESTS] == rows[:50, 0].tolist()
    assert [r["max_new"] for r in cfg.REQUESTS] == rows[:50, 2].tolist()
    assert [len(TOK.encode(r["text"])[1]) for r in cfg.REQUESTS] == rows[:50, 1].tolist()   # <bos> included
    assert cfg.FOLLOW == "R1"


def test_window_and_time_scale():
    rows = trace_workload.read_rows("azure-code")
    v = values(WORKLOAD_TRACE="azure-code", WORKLOAD_REQUESTS=20, WORKLOAD_TRACE_START=210.0,
               WORKLOAD_TRACE_DURATION=30.0, WORKLOAD_TIME_SCALE=2.0)
    inside = rows[(rows[:, 0] >= 210_000_000) & (rows[:, 0] < 240_000_000)][:20]
    got = trace_workload.window(v)
    assert got[:, 1:].tolist() == inside[:, 1:].tolist()
    assert got[:, 0].tolist() == np.rint((inside[:, 0] - inside[0, 0]) / 2).astype(int).tolist()
    short = trace_workload.window({**v, "WORKLOAD_TRACE_START": 213.7, "WORKLOAD_TRACE_DURATION": 0.5})
    assert len(short) == 8 and (short[:, 0] <= 250_000).all()                   # 8 arrivals in 0.5 s, halved
    with pytest.raises(ConfigError, match="trace_window_empty"):                   # the code trace's quiet half-minute
        Config.from_values({**BASE, "WORKLOAD_TRACE": "azure-code", "WORKLOAD_REQUESTS": 3,
                            "WORKLOAD_TRACE_START": 60.0, "WORKLOAD_TRACE_DURATION": 30.0})


def test_clipped_to_max_context():
    v = values(WORKLOAD_TRACE="azure-conv", WORKLOAD_REQUESTS=200, MAX_CONTEXT=512)
    rows = trace_workload.window(v)
    cfg = Config.from_values({**BASE, **{k: v[k] for k in ("WORKLOAD_TRACE", "WORKLOAD_REQUESTS", "MAX_CONTEXT")}})
    for r, (prompt, output) in zip(cfg.REQUESTS, rows[:, 1:]):
        n = len(TOK.encode(r["text"])[1])
        assert n + r["max_new"] <= 512
        assert (n, r["max_new"]) == (prompt, output) or prompt + output > 512
    assert trace_workload.clipped(v) == int(((rows[:, 1] + rows[:, 2]) > 512).sum()) > 0


def test_errors_name_the_flag():
    for argv, flag in ((["--workload-trace", "nope.csv", "--workload-requests", "3"], "--workload-trace"),
                       (["--workload-trace", "azure-conv"], "--workload-requests"),
                       (["--workload-trace", "azure-conv", "--workload-requests", "3", "--workload-trace-start",
                         "99999"], "--workload-trace-start")):
        out = run_cli([*argv, "--lang", "en"])
        assert out.returncode == 2 and flag in out.stderr and "Traceback" not in out.stderr
    with pytest.raises(ConfigError):
        Config.from_values(dict(WORKLOAD_TRACE="bogus", WORKLOAD_REQUESTS=3))


def test_bad_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b,c\n1,2,3\n")
    out = run_cli(["--workload-trace", str(bad), "--workload-requests", "3", "--lang", "en"])
    assert out.returncode == 2 and "TIMESTAMP,ContextTokens,GeneratedTokens" in out.stderr


def test_cli_runs_the_sample_both_languages():
    argv = ["--clock", "roofline", "--workload-trace", "azure-conv", "--workload-requests", "12", "--max-context",
            "8192", "--slots", "16", "--token-budget", "8192", "--json"]
    for lang, words in (("vi", "trace thật"), ("en", "recorded trace")):
        out = run_cli([*argv, "--lang", lang])
        assert out.returncode == 0, out.stderr
        report = json.loads(out.stdout)
        assert words in "\n".join(report["header"]) and report["config"]["WORKLOAD_TRACE"] == "azure-conv"


def test_cli_reads_the_full_file_past_the_sample():
    with FULL_CONV.open(encoding="utf-8") as fh:
        total = sum(1 for _ in csv.reader(fh)) - 1
    rows = trace_workload.read_rows(str(FULL_CONV))
    assert len(rows) == total == 19366 and rows[-1, 0] > 50 * 60 * 1_000_000    # 58 minutes
    cfg = Config.from_values({**BASE, "WORKLOAD_TRACE": str(FULL_CONV), "WORKLOAD_REQUESTS": 5,
                              "WORKLOAD_TRACE_START": 3000.0})
    start = int(np.searchsorted(rows[:, 0], 3_000_000_000))
    assert [r["max_new"] for r in cfg.REQUESTS] == rows[start:start + 5, 2].tolist()


def test_seed_runs_untouched():
    assert Config().WORKLOAD_TRACE == "off" and [r["id"] for r in Config().REQUESTS] == ["A", "B", "E", "C", "D"]
