"""Cost and energy of a run (issue 42 §Cost and energy, core/cluster/economics.py): hand-checked figures, the run's
own figures against the formulas, GPU_PRICE_PER_HOUR, the seed clock's silence, --json and block [12]'s lines.

Hand-checkable reference (economics.py's docstring): one H100 (700 W TDP, idle 0.15 × 700 = 105 W, 3.348 US$/h)
for 1 s with one 0.5 s step at u = 0.8 (1.34 TB streamed at 3.35 TB/s): 581 W × 0.5 s + 105 W × 0.5 s = 343 J;
100 output tokens: 3.43 J each, 1,049,563 per kWh; 3.348 US$/h × 1 s = 0.00093 US$ = 9.30 US$ per million output
tokens, 1.86 per million tokens with 400 prompt tokens.
"""
from __future__ import annotations

import json

import pytest

from cli_runner import run_cli
from inference_lab.core.clock.hardware import GPUS, IDLE_SHARE, POWER, PRICES
from inference_lab.core.cluster import economics as eco
from inference_lab.core.inputs.config import Config
from inference_lab.entrypoints.sweep import run_main


def test_hand_checked_figures():
    h100 = GPUS["H100-SXM5-80GB"]
    assert eco.watts(h100, 0.0) == pytest.approx(105.0) and eco.watts(h100, 1.0) == pytest.approx(700.0)
    assert eco.watts(h100, 0.8) == pytest.approx(581.0)
    e = eco.energy([(0, 500_000, 1e9, 1.34e12, 0)], 1_000_000, h100, 16, tp=1, replicas=1)
    assert e["joules"] == pytest.approx(343.0) and e["busy_utilisation"] == pytest.approx(0.8)
    c = eco.cost(1, 3.348, 1_000_000, 100, 400)
    assert (c["dollars"], c["usd_per_m_output"], c["usd_per_m_tokens"]) == (0.00093, 9.3, 1.86)
    # two GPUs of a TP group draw twice; a second, idle replica adds its idle draw for the whole span
    e2 = eco.energy([(0, 500_000, 1e9, 1.34e12 / 2, 0)], 1_000_000, h100, 16, tp=2, replicas=2)
    assert e2["joules"] == pytest.approx(2 * (eco.watts(h100, 0.4) * 0.5 + 105 * 0.5) + 2 * 105 * 1.0)


def test_every_gpu_has_a_price_and_a_board_power_with_sources():
    assert set(PRICES) == set(POWER) == set(GPUS)
    for name in GPUS:
        assert PRICES[name][0] > 0 and "read 2026-12-03" in PRICES[name][1]
        assert POWER[name][0] > 0 and "W" in POWER[name][1]
    assert 0 < IDLE_SHARE < 1


def run(**values):
    cfg, main = run_main(dict(CLOCK="roofline", **values))
    return cfg, main, eco.economics(cfg, main.done, main.log.items)


def test_a_run_matches_the_formulas_and_counts_replicas_times_tp():
    cfg, main, e = run(REPLICAS=2, TENSOR_PARALLEL=2)
    assert e["gpus"] == 4 and e["price_per_hour"] == PRICES["H100-SXM5-80GB"][0]
    span = max(r.finish for r in main.done) - min(r.arrival for r in main.done)
    assert e["span"] == span
    assert e["dollars"] == pytest.approx(4 * 3.348 * span / 1e6 / 3600, rel=1e-4)      # rounded to 1e-9 US$
    out = sum(len(r.out) for r in main.done)
    assert e["output_tokens"] == out and e["usd_per_m_output"] == pytest.approx(e["dollars"] / out * 1e6, rel=1e-3)
    assert e["joules_per_output_token"] == pytest.approx(e["joules"] / out, rel=1e-3)
    # never below every GPU idle for the span, never above every GPU at TDP
    assert 4 * 105 * span / 1e6 <= e["joules"] <= 4 * 700 * span / 1e6


def test_gpu_price_per_hour_overrides_the_list_price_not_the_energy():
    _, _, listed = run()
    _, _, mine = run(GPU_PRICE_PER_HOUR=6.696)
    assert mine["dollars"] == pytest.approx(2 * listed["dollars"], rel=1e-4)
    assert mine["joules"] == listed["joules"]
    assert Config(GPU="L4").GPU_PRICE_PER_HOUR == 0.468


def test_energy_per_token_falls_with_the_batch():
    # exercise 44's runs: 64 requests of 256 + 128 tokens, one at a time vs all 64 in each decode step
    base = dict(WORKLOAD_REQUESTS=64, WORKLOAD_PROMPT=256, WORKLOAD_OUTPUT=128, IGNORE_EOS="on", QUEUE_LIMIT=64,
                MAX_CONTEXT=512, TOKEN_BUDGET=16384)
    _, _, one = run(SLOTS=1, **base)
    _, _, many = run(SLOTS=64, **base)
    assert one["output_tokens"] == many["output_tokens"] == 64 * 128
    assert one["joules_per_output_token"] > 30 * many["joules_per_output_token"]
    assert one["usd_per_m_output"] > 30 * many["usd_per_m_output"]


def test_seed_clock_has_no_economics_and_roofline_json_has_it():
    cfg, main = run_main({})
    assert eco.economics(cfg, main.done, main.log.items) is None
    seed = json.loads(run_cli(["--json"]).stdout)
    assert "economics" not in seed["blocks"][11]["data"]
    out = run_cli(["--clock", "roofline", "--json"])
    data = json.loads(out.stdout)["blocks"][11]["data"]["economics"]
    assert {"gpus", "price_per_hour", "dollars", "usd_per_m_output", "usd_per_m_tokens", "joules",
            "joules_per_output_token", "output_tokens_per_kwh", "utilisation", "mean_watts"} <= set(data)


def test_block12_lines_both_languages():
    vi = run_cli(["--clock", "roofline"]).stdout
    en = run_cli(["--clock", "roofline", "--lang", "en"]).stdout
    assert "US$ mỗi triệu token sinh ra" in vi and "J mỗi token sinh ra" in vi
    assert "US$ per million output tokens" in en and "J per output token" in en
    assert "US$" not in run_cli([]).stdout
