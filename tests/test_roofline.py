"""The roofline clock (issue 22): its physics, its JSON, its bad inputs; CLOCK = seed stays the seed's.

The physics are the issue's "Done when" figures. Where the lab's small bounds (MAX_CONTEXT ≤ 128, prompts
of 6-9 tokens) cannot make a step of the needed shape, the formula module (core/roofline.py) is tested
with constructed steps; everything else comes from real runs of the CLI (cli_runner.run_cli).
"""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inference_lab.core.config import FIELD_BY_NAME, Config
from inference_lab.core.hardware import GPUS, MODELS
from inference_lab.core.roofline import Clock, step_cost
from cli_runner import run_cli
from inference_lab import run
from inference_lab.entrypoints.trace import trace_events
from test_engine import configs

H100, A100, LLAMA8 = "H100-SXM5-80GB", "A100-SXM4-80GB", "Llama-3.1-8B"
ROOF = ["--clock", "roofline", "--gpu", H100, "--shadow-model", LLAMA8]


def clock(**values) -> Clock:
    return Clock(Config.from_values(dict(CLOCK="roofline", **values)))


def micros(work, **values) -> int:
    c = clock(**values)
    return c.micros(c.cost(work))


def steps_of(argv) -> list[dict]:
    proc = run_cli(argv + ["--json"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)["steps"]["items"]


def floor_us(cost: dict, gpu: str, weight_bits: int = 16) -> float:
    g = GPUS[gpu]
    return max(cost["flops"] / g.peak(weight_bits), cost["bytes"] / g.bandwidth) * 1e6


# ── the tables ────────────────────────────────────────────────────────────────
def test_every_gpu_has_dense_figures_and_a_source():
    for g in GPUS.values():
        assert "datasheet" in g.source or "whitepaper" in g.source, g.name
        assert 0 < g.bf16 <= g.fp8 <= 2.01 * g.bf16 and g.bandwidth > 0 and g.hbm > 0
    assert (round(GPUS[H100].bf16 / 1e12), GPUS[H100].bandwidth, GPUS[H100].hbm) == (989, 3.35e12, 80e9)
    assert (GPUS[A100].bf16, GPUS[A100].bandwidth) == (312e12, 2.039e12)
    assert GPUS["H200-SXM-141GB"].bandwidth == 4.8e12 and GPUS["H200-SXM-141GB"].hbm == 141e9
    assert GPUS["L4"].hbm == 24e9


def test_model_shapes_match_their_configs():
    m = MODELS[LLAMA8]
    assert (m.layers, m.d_model, m.heads, m.kv_heads, m.head_dim, m.ffn, m.vocab) == (32, 4096, 32, 8, 128, 14336, 128256)
    assert 8.0e9 < m.params < 8.1e9                   # "8B": 8.03 B parameters
    assert 70e9 < MODELS["Llama-3.1-70B"].params < 71e9
    assert 1.2e9 < MODELS["Llama-3.2-1B"].params < 1.3e9
    assert all(s.source for s in MODELS.values())


def test_schema_gives_the_flags_and_defaults():
    assert FIELD_BY_NAME["CLOCK"].default == "seed" and FIELD_BY_NAME["CLOCK"].flag == "--clock"
    assert FIELD_BY_NAME["GPU"].default == H100 and FIELD_BY_NAME["SHADOW_MODEL"].default == LLAMA8
    assert FIELD_BY_NAME["WEIGHT_BITS"].choices == (16, 8, 4) and FIELD_BY_NAME["KV_BITS"].choices == (16, 8)


# ── the physics ───────────────────────────────────────────────────────────────
def test_batch_1_decode_is_memory_bound_near_weights_over_bandwidth():
    steps = [s for s in steps_of(ROOF) if len(s["tasks"]) == 1 and s["tasks"][0][1] == "decode"]
    assert steps, "the default trace has a decode-only step at batch 1"
    weights_s = MODELS[LLAMA8].weight_bytes(16) / 3.35e12
    for s in steps:
        assert s["cost"]["bound"] == "memory"
        assert 1.0 <= (s["end"] - s["start"]) / 1e6 / weights_s <= 1.6, s


@pytest.mark.parametrize("argv", [[], ["--slots", "4", "--token-budget", "32", "--queue-limit", "4"],
                                  ["--gpu", A100, "--weight-bits", "8"], ["--gpu", "L4", "--shadow-model", "Llama-3.2-1B"],
                                  ["--shadow-model", "lab", "--kv-bits", "8", "--weight-bits", "4"]])
def test_no_step_beats_the_physical_floor(argv):
    argv = ROOF + argv
    gpu = argv[argv.index("--gpu", 3) + 1] if "--gpu" in argv[3:] else H100
    bits = int(argv[argv.index("--weight-bits") + 1]) if "--weight-bits" in argv else 16
    for s in steps_of(argv):
        assert s["end"] - s["start"] >= floor_us(s["cost"], gpu, bits), s


def test_no_constructed_step_beats_the_floor():
    g = GPUS[H100]
    for work in ([(1, 0)], [(1, 4000)] * 64, [(2048, 0)], [(512, 1536), (1, 300)]):
        cost = clock().cost(work)
        assert micros(work) >= max(cost.flops / g.bf16, cost.bytes / g.bandwidth) * 1e6


def test_batching_decode_is_nearly_free():
    one, eight = micros([(1, 100)]), micros([(1, 100)] * 8)
    assert eight < 1.3 * one, (one, eight)


def test_h100_vs_a100_decode():
    h100, a100 = micros([(1, 100)], GPU=H100), micros([(1, 100)], GPU=A100)
    assert 0.5 <= h100 / a100 <= 0.75, (h100, a100)


def test_h100_vs_a100_in_a_real_run():
    def decode_steps(gpu):
        return [s["end"] - s["start"] for s in steps_of(ROOF + ["--gpu", gpu]) if all(t[1] == "decode" for t in s["tasks"])]
    h100, a100 = decode_steps(H100), decode_steps(A100)
    assert len(h100) == len(a100) > 0
    assert all(0.5 <= h / a <= 0.75 for h, a in zip(h100, a100))


def test_8_bit_weights_shorten_memory_bound_decode():
    for work in ([(1, 100)], [(1, 20)] * 4):
        assert clock(WEIGHT_BITS=8).cost(work).bound(GPUS[H100], 8) == "memory"
        ratio = micros(work, WEIGHT_BITS=8) / micros(work)
        assert 0.5 <= ratio <= 0.7, ratio


def test_long_prefill_is_compute_bound_on_a100():
    c = clock(GPU=A100)
    for n in (200, 256, 2048):
        cost = c.cost([(n, 0)])
        assert cost.bound(GPUS[A100], 16) == "compute", n                      # at the physical peaks
        assert c.report(cost)["bound"] == "compute", n                         # at the achievable ones


def test_mixed_step_reads_the_weights_once():
    shape = MODELS[LLAMA8]
    mixed = step_cost(shape, [(1, 50), (64, 0)], 16, 16)
    apart = [step_cost(shape, w, 16, 16) for w in ([(1, 50)], [(64, 0)])]
    assert mixed.bytes == pytest.approx(sum(c.bytes for c in apart) - shape.matmul_params * 2)


# ── JSON and the seed's clock ─────────────────────────────────────────────────
def test_seed_clock_reports_cost_without_driving_time():
    seed, roof = steps_of([]), steps_of(ROOF)
    assert [s["cost"] for s in seed][0].keys() == {"flops", "bytes", "bound", "intensity", "seconds"}
    assert [s["end"] - s["start"] for s in seed][:2] == [2900, 3600]        # the seed's COST_*: 500 + 400·6; 500 + 400·5 + 1000 + 100
    assert all(s["cost"]["intensity"] == pytest.approx(s["cost"]["flops"] / s["cost"]["bytes"], abs=1e-3) for s in roof)


def test_a_steps_seconds_are_its_duration_under_roofline_and_the_formulas_under_seed():
    """cost.seconds, what the roofline chart places a step at (static/charts/roofline.js reads it, never computes it)."""
    seed, roof = steps_of(["--gpu", H100, "--shadow-model", LLAMA8]), steps_of(ROOF)
    assert all(s["cost"]["seconds"] == (s["end"] - s["start"]) / 1e6 for s in roof if s["end"] > s["start"])
    assert all(s["cost"]["seconds"] >= floor_us(s["cost"], H100) / 1e6 for s in seed)      # achievable, not the peaks
    assert seed[0]["cost"]["flops"] == roof[0]["cost"]["flops"]                           # the same first step:
    assert math.ceil(seed[0]["cost"]["seconds"] * 1e6) == roof[0]["end"] - roof[0]["start"]  # what roofline charges


# ── bad inputs ────────────────────────────────────────────────────────────────
@pytest.mark.parametrize("flag,value,known", [("--gpu", "B200", GPUS), ("--shadow-model", "Llama-9B", MODELS)])
def test_unknown_name_is_exit_2_listing_the_known_names(flag, value, known):
    for lang in ("vi", "en"):
        proc = run_cli(["--clock", "roofline", flag, value, "--lang", lang])
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert flag in proc.stderr and all(name in proc.stderr for name in known), proc.stderr


def test_model_too_large_for_hbm_names_both_sizes():
    proc = run_cli(["--clock", "roofline", "--shadow-model", "Llama-3.1-70B", "--lang", "en"])
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--shadow-model" in proc.stderr and "141.1 GB" in proc.stderr and "80 GB" in proc.stderr, proc.stderr
    eight = run_cli(["--clock", "roofline", "--shadow-model", "Llama-3.1-70B", "--weight-bits", "8", "--lang", "en"])
    assert eight.returncode == 2 and "70.6 GB" in eight.stderr and "70.0 GB usable" in eight.stderr   # exercise 21
    assert run_cli(["--clock", "roofline", "--shadow-model", "Llama-3.1-70B", "--gpu", "H200-SXM-141GB",
                    "--weight-bits", "8"]).returncode in (0, 1)


def test_bits_outside_their_choices_are_exit_2():
    proc = run_cli(["--weight-bits", "12"])
    assert proc.returncode == 2 and "--weight-bits" in proc.stderr and "16, 8, 4" in proc.stderr


# ── words ─────────────────────────────────────────────────────────────────────
def test_steps_say_each_steps_bound_in_both_languages():
    for lang, head, bound in (("vi", "Chi phí trên H100-SXM5-80GB (Llama-3.1-8B)", "memory-bound"),
                              ("en", "Cost on H100-SXM5-80GB (Llama-3.1-8B)", "memory-bound")):
        proc = run_cli(ROOF + ["--steps", "--lang", lang])
        assert proc.returncode == 0, proc.stderr[-2000:]
        lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(head)]
        assert len(lines) == 12 and all(bound in ln and "÷ 3.35 TB/s" in ln for ln in lines), lines[:2]
    assert "Chi phí trên" not in run_cli(["--steps"]).stdout


def test_banner_names_the_clock():
    assert "CLOCK: roofline on H100-SXM5-80GB with the shapes of Llama-3.1-8B" in run_cli(ROOF + ["--lang", "en"]).stdout
    assert "ĐỒNG HỒ: roofline trên H100-SXM5-80GB" in run_cli(ROOF).stdout


def test_block_10_sizes_the_shadow_models_kv_as_vllm():
    out = run_cli(ROOF + ["--lang", "en", "--block-size", "16"]).stdout
    assert "Llama-3.1-8B's weights at WEIGHT_BITS=16 (not block 9's QUANT_BITS): 16.06 GB" in out
    assert "= 131072 bytes -> 411525 tokens of KV fit = 25720 blocks of 16 tokens" in out


# ── POOL_BLOCKS = auto ────────────────────────────────────────────────────────
def test_pool_blocks_auto_is_vllms_sizing_capped_by_what_the_trace_can_hold():
    from inference_lab.core.config import auto_pool_blocks
    from inference_lab.core.hardware import kv_budget
    cfg = Config.from_values(dict(CLOCK="roofline", BLOCK_SIZE=1, MAX_CONTEXT=128))      # auto: roofline's default
    vllm = kv_budget(GPUS[H100], MODELS[LLAMA8], 16, 16, 1)["blocks"]
    assert cfg.POOL_BLOCKS == auto_pool_blocks(cfg) == min(vllm, 5 * 128) == 640
    assert Config.from_values(dict(POOL_BLOCKS="auto")).POOL_BLOCKS == 5 * 6             # under seed too, when asked
    assert Config.from_values(dict(CLOCK="roofline", POOL_BLOCKS=7)).POOL_BLOCKS == 7     # a number stays a number
    assert Config.from_values({}).POOL_BLOCKS == 12                                       # the seed's default


def test_pool_blocks_auto_on_the_command_line():
    proc = run_cli(["--pool-blocks", "auto", "--json"])
    assert proc.returncode == 0 and json.loads(proc.stdout)["config"]["POOL_BLOCKS"] == 30
    bad = run_cli(["--pool-blocks", "automatic"])
    assert bad.returncode == 2 and "--pool-blocks" in bad.stderr
    too_big = run_cli(["--pool-blocks", "auto", "--shadow-model", "Llama-3.1-70B", "--lang", "en"])
    assert too_big.returncode == 2 and "141.1 GB" in too_big.stderr


def test_blocks_3_and_12_say_a_mixed_step_is_one_forward_pass_under_roofline():
    out = run_cli(ROOF + ["--lang", "en"]).stdout
    assert "under CLOCK=roofline they are ONE forward pass" in out
    assert "Conclusion: under CLOCK=roofline every step takes the time H100-SXM5-80GB needs for Llama-3.1-8B" in out
    assert "ONE forward pass" not in run_cli(["--lang", "en"]).stdout
    assert ("so the run time follows the number of steps: static (waits for a full batch): 14 steps (14 memory-bound), "
            "run time 80.04 ms; continuous, no prompt chunking: 10 steps (10 memory-bound), run time 57.23 ms") in out


def test_cpu_side_costs_under_roofline():
    cfg = Config.from_values(dict(CLOCK="roofline"))
    assert (cfg.COST_TOKENIZE_PER_TOKEN, cfg.COST_GATEWAY) == (1, 200)
    assert Config.from_values(dict(CLOCK="roofline", COST_TOKENIZE_PER_TOKEN=50)).COST_TOKENIZE_PER_TOKEN == 50
    assert "COST_TOKENIZE_PER_TOKEN 1 µs per token" in run_cli(ROOF + ["--lang", "en"]).stdout



# ── random configs: the floor holds, the checks pass, the trace follows the clock ──
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs(), st.sampled_from(sorted(GPUS)), st.sampled_from(["lab", "Llama-3.2-1B", LLAMA8]),
       st.sampled_from([16, 8, 4]), st.sampled_from([16, 8]))
def test_random_roofline_runs_respect_the_floor(values, gpu, model, weight_bits, kv_bits):
    r = run(dict(values, CLOCK="roofline", GPU=gpu, SHADOW_MODEL=model, WEIGHT_BITS=weight_bits, KV_BITS=kv_bits))
    assert not [c.name for c in r.checks if not c.ok]
    for it in r.steps["items"]:
        assert it["end"] - it["start"] >= floor_us(it["cost"], gpu, weight_bits)
    slices = [e for e in trace_events(r)["traceEvents"] if e.get("ph") == "X"]
    assert {e["ts"] for e in slices} <= {it["start"] for it in r.steps["items"]}
