"""Speculative decoding in the lab's report: --json's `spec` keys, block 7's lines in both languages, block 12's
greedy-only comparison, block 13's check of the acceptance rule (and a wrong rule caught by it), the default
trace still PASS, and the default output unchanged with speculation off.
Leaves out: the engine's mechanics (test_speculative.py) and the page (test_browser_speculation.py)."""
from __future__ import annotations

import json

import pytest

from inference_lab import run
from inference_lab.entrypoints import patch
from inference_lab.entrypoints.lab import render
from cli_runner import run_cli

ALWAYS = "def accepts(p_x, q_x, u):\n    return True\n"


def block(report, n):
    return next(b for b in report.blocks if b.number == n)


@pytest.fixture(scope="module", params=[dict(SPEC_METHOD="ngram", SPEC_TOKENS=4),
                                        dict(SPEC_METHOD="draft", QUANT_BITS=4, CLOCK="roofline")])
def report(request):
    return run(request.param)


def test_default_trace_with_speculation_passes(report):
    assert all(c.ok for c in report.checks), [c.name for c in report.checks if not c.ok]
    names = {c.name for c in report.checks}
    assert {"spec_greedy_text", "spec_distribution", "same_tokens"} <= names
    assert block(report, 12).data["same_scope"] == "greedy"
    assert report.summary[-1].startswith("PASS")


def test_json_spec_keys_are_the_issues_and_add_up(report):
    d = json.loads(json.dumps(report.to_dict()))
    b7 = next(b for b in d["blocks"] if b["number"] == 7)["data"]
    spec = b7["spec"]
    assert set(spec) == {"method", "k", "proposed", "accepted", "per_request"}
    assert all(set(r) == {"proposed", "accepted", "alpha"} for r in spec["per_request"].values())
    steps = [it["spec"] for it in d["steps"]["items"] if "spec" in it]
    assert steps and all(set(v) == {"proposed", "accepted", "token"} for s in steps for v in s.values())
    assert spec["proposed"] == sum(len(v["proposed"]) for s in steps for v in s.values())
    assert spec["accepted"] == sum(v["accepted"] for s in steps for v in s.values()) <= spec["proposed"]
    for rid, r in spec["per_request"].items():
        mine = [v for s in steps for k, v in s.items() if k == rid]
        assert r["accepted"] <= r["proposed"] and r["alpha"] == pytest.approx(r["accepted"] / r["proposed"])
        assert b7["spec_rates"][rid]["tokens"] == sum(v["accepted"] + (v["token"] is not None) for v in mine)


def test_block7_prints_every_verify_step_and_alpha_in_both_languages(report):
    for lang, words in (("vi", ("đề xuất", "α =", "(1 − α^(k+1)) / (1 − α)", "TPOT")),
                        ("en", ("proposed", "α =", "(1 − α^(k+1)) / (1 − α)", "TPOT"))):
        lines = block(render(report, lang), 7).lines
        text = "\n".join(lines)
        assert all(w in text for w in words), lang
        follow = block(report, 7).data["spec_follow"]
        assert sum(1 for line in lines if line.lstrip().startswith(("bước ", "step "))) == len(follow)


def test_roofline_batch_comparison_shows_the_crossover():
    r = run(dict(SPEC_METHOD="draft", QUANT_BITS=4, CLOCK="roofline"))
    b = block(r, 7).data["spec_batch"]
    rows = {x["batch"]: x["speedup"] for x in b["rows"]}
    assert rows[1] > 1 and rows[512] < rows[1] and rows[512] < 1 and b["crossover"] is not None
    text = "\n".join(block(render(r, "en"), 7).lines)
    assert f"From batch {b['crossover']} up speculation makes it SLOWER" in text


def test_always_accept_shows_up_in_the_quality_checks():
    units = [patch.Unit("rejection_sampler", ALWAYS, "always.py")]
    r = patch.run(units, run, dict(SPEC_METHOD="ngram"))[0]
    failed = {c.name for c in r.checks if not c.ok}
    assert "spec_distribution" in failed
    text = "\n".join(block(r, 13).lines)
    assert "Luật chấp nhận đã ĐỔI phân phối đầu ra" in text and "min(1, p(x)/q(x))" in text
    assert "CHANGED the output distribution" in "\n".join(block(render(r, "en"), 13).lines)


def test_cli_flags():
    res = run_cli(["--spec-method", "ngram", "--spec-tokens", "2"])
    assert res.returncode == 0 and "SPEC_METHOD=ngram" in res.stdout and "PASS" in res.stdout
    assert run_cli(["--spec-tokens", "9"]).returncode == 2
