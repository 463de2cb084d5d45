"""The roofline clock (issue 22): its physics, its JSON, its bad inputs; CLOCK = seed stays the seed's.

The physics are the issue's "Done when" figures. Where the lab's small bounds (MAX_CONTEXT ≤ 128, prompts
of 6-9 tokens) cannot make a step of the needed shape, the formula module (core/clock/roofline.py) is tested
with constructed steps; everything else comes from real runs of the CLI (cli_runner.run_cli).
"""
from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inference_lab.core.inputs.config import FIELD_BY_NAME, Config
from inference_lab.core.clock.hardware import GPUS, MODELS
from inference_lab.core.clock.roofline import Clock, step_cost
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
    assert (round(GPUS[H100].bf16 / 1e12), GPUS[H100].bandwidth) == (989, 3.35e12)
    assert (GPUS[A100].bf16, GPUS[A100].bandwidth) == (312e12, 2.039e12)
    assert GPUS["H200-SXM-141GB"].bandwidth == 4.8e12


def test_capacity_is_what_the_device_exposes_in_mib():
    """nvidia-smi's totals: A100 80GB 81,920 MiB (= 85.90 GB, not 80), H100 SXM 81,559 MiB (85.52 GB),
    H200 143,771 MiB (150.75 GB), L4 23,034 MiB, RTX 4090 24,564 MiB; each cited in its source."""
    mib = {name: g.hbm / 2**20 for name, g in GPUS.items()}
    assert mib == {A100: 81920, H100: 81559, "H200-SXM-141GB": 143771, "L4": 23034, "RTX-4090": 24564}
    assert all(f"{round(m):,} MiB" in GPUS[name].source for name, m in mib.items())
    assert round(GPUS[H100].hbm / 1e9, 2) == 85.52 and round(GPUS[A100].hbm / 1e9, 2) == 85.9


def test_model_shapes_match_their_configs():
    m = MODELS[LLAMA8]
    assert (m.layers, m.d_model, m.heads, m.kv_heads, m.head_dim, m.ffn, m.vocab) == (32, 4096, 32, 8, 128, 14336,
                                                                                      128256)
    assert 8.0e9 < m.params < 8.1e9                   # "8B": 8.03 B parameters
    assert 70e9 < MODELS["Llama-3.1-70B"].params < 71e9
    assert 1.2e9 < MODELS["Llama-3.2-1B"].params < 1.3e9
    assert all(s.source for s in MODELS.values())


# ── attention shapes and long context (issue 40): MHA, GQA and each model's own context ──
def test_mha_and_gqa_shapes_match_their_configs():
    """Llama-2-7B is MHA (32 KV heads for 32 query heads): KV per token 2·32·32·128·2 B = 524,288 B at 16 bits;
    Mistral-7B-v0.3 and Llama-3.1-8B share 8 KV heads among 32 (GQA): 2·32·8·128·2 B = 131,072 B, a quarter.
    Contexts are max_position_embeddings: 4,096 (Llama 2), 32,768 (Mistral v0.3), 131,072 (Llama 3.1)."""
    l2, mi = MODELS["Llama-2-7B"], MODELS["Mistral-7B-v0.3"]
    assert (l2.layers, l2.d_model, l2.heads, l2.kv_heads, l2.head_dim, l2.ffn, l2.vocab) == (32, 4096, 32, 32, 128,
                                                                                         11008, 32000)
    assert (mi.layers, mi.d_model, mi.heads, mi.kv_heads, mi.head_dim, mi.ffn, mi.vocab) == (32, 4096, 32, 8, 128,
                                                                                         14336, 32768)
    assert 6.7e9 < l2.params < 6.8e9 and 7.2e9 < mi.params < 7.3e9           # "7B": 6.74 B and 7.25 B
    assert l2.kv_bytes_per_token(16) == 2 * 32 * 32 * 128 * 2 == 524288
    assert mi.kv_bytes_per_token(16) == MODELS[LLAMA8].kv_bytes_per_token(16) == 131072
    assert l2.kv_bytes_per_token(8) == 262144                                    # an FP8 KV cache halves it
    assert (l2.context, mi.context, MODELS[LLAMA8].context, MODELS["Llama-3.1-70B"].context) == (4096, 32768,
                                                                                                 131072, 131072)
    assert FIELD_BY_NAME["MAX_CONTEXT"].max == 131072
    assert {"Llama-2-7B", "Mistral-7B-v0.3"} <= set(FIELD_BY_NAME["SHADOW_MODEL"].choices)


def test_max_context_beyond_the_shadow_models_is_a_clear_error():
    proc = run_cli(ROOF[:4] + ["--shadow-model", "Llama-2-7B", "--max-context", "8192"])
    assert proc.returncode == 2 and "Llama-2-7B" in proc.stderr and "4096" in proc.stderr
    proc = run_cli(["--lang", "en"] + ROOF[:4] + ["--shadow-model", "Mistral-7B-v0.3", "--max-context", "40000"])
    assert proc.returncode == 2 and "exceeds Mistral-7B-v0.3's context (32768 tokens" in proc.stderr
    proc = run_cli(["--max-context", "131073"])
    assert proc.returncode == 2 and "--max-context" in proc.stderr
    # the seed clock charges no shadow model: a long MAX_CONTEXT only admits; Llama 3.1 serves 131,072
    assert run_cli(["--max-context", "131072"]).returncode == 0
    assert run_cli(ROOF + ["--max-context", "131072"]).returncode == 0


def test_mha_decode_reads_four_times_the_kv_of_gqa():
    """Same layers and widths, 32 vs 8 KV heads: a batch-1 decode over 4,000 tokens of context reads
    4,000 × (524,288 − 131,072) B = 1.57 GB more KV on Llama-2-7B than on Mistral-7B-v0.3."""
    mha, gqa = (step_cost(MODELS[m], [(1, 4000)], 16, 16) for m in ("Llama-2-7B", "Mistral-7B-v0.3"))
    weights = MODELS["Llama-2-7B"].matmul_params * 2 - MODELS["Mistral-7B-v0.3"].matmul_params * 2
    assert math.isclose(mha.bytes - gqa.bytes - weights, 4000 * (524288 - 131072), rel_tol=0.01)


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
                                  ["--gpu", A100, "--weight-bits", "8"],
                                  ["--gpu", "L4", "--shadow-model", "Llama-3.2-1B"],
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
        return [s["end"] - s["start"] for s in steps_of(ROOF + ["--gpu",
                                                                gpu]) if all(t[1] == "decode" for t in s["tasks"])]
    h100, a100 = decode_steps(H100), decode_steps(A100)
    assert len(h100) == len(a100) > 0
    assert all(0.5 <= h / a <= 0.75 for h, a in zip(h100, a100))


def test_logits_only_where_a_token_is_sampled():
    """Llama-3.1-8B: LM head 4096 × 128,256 = 525,336,576 parameters, the rest 6,979,588,096. A 2,048-token
    prompt in one chunk: 2 · 6,979,588,096 · 2048 + 2 · 525,336,576 · 1 + 4 · 32 · 32 · 128 · (2048 · 2049 / 2)
    = 28.588 T + 0.001 T + 1.100 T = 29.689 TFLOP (the head at every position would add 2.15 T: ×1.07);
    a non-final chunk samples nothing; a decode samples its one token; a verify pass of k + 1 = 4 samples 4."""
    m = MODELS[LLAMA8]
    body, head = m.matmul_params - m.head_params, m.head_params
    assert (body, head) == (6_979_588_096, 525_336_576)
    attention = 4 * 32 * 32 * 128 * (2048 * 2049 // 2)
    assert step_cost(m, [(2048, 0, 1)], 16, 16).flops == 2 * body * 2048 + 2 * head + attention
    assert round(step_cost(m, [(2048, 0, 1)], 16, 16).flops / 1e12, 3) == 29.689
    assert step_cost(m, [(2048, 0, 0)], 16, 16).flops == 2 * body * 2048 + attention
    assert step_cost(m, [(2048, 0)], 16, 16).flops == step_cost(m, [(2048, 0, 1)], 16, 16).flops   # (n, p): samples 1
    assert step_cost(m, [(4, 10, 4)], 16, 16).flops - step_cost(m, [(4, 10, 1)], 16, 16).flops == 2 * head * 3
    one_b = MODELS["Llama-3.2-1B"]
    every = step_cost(one_b, [(2048, 0, 2048)], 16, 16).flops / step_cost(one_b, [(2048, 0, 1)], 16, 16).flops
    assert round(every, 2) == 1.25                                   # the over-charge for 1B


def test_a_chunked_prompt_samples_only_in_its_final_chunk():
    """--token-budget 4 splits the 6-token prompts: the steps' FLOPs count the LM head once per prompt."""
    shape, runs = MODELS[LLAMA8], steps_of(ROOF + ["--token-budget", "4", "--slots", "1", "--queue-limit", "4"])
    first = runs[0]                                  # A's first chunk: 4 of its prompt tokens, nothing sampled
    assert first["tasks"][0][1] == "prefill" and first["tasks"][0][2] == 4
    body = shape.matmul_params - shape.head_params
    assert first["cost"]["flops"] == 2 * body * 4 + 4 * 32 * 32 * 128 * (4 * 5 // 2)


def test_weight_only_quantization_computes_at_the_16_bit_peak():
    """ACT_BITS = 16 (the default): an 8-bit-weight prefill on H100 divides by 989.4 TFLOP/s, not 1,979;
    --act-bits 8 (W8A8, FP8) halves the compute term. Memory-bound decode is the same either way."""
    prefill = [(2048, 0)]
    w8a16, w8a8 = clock(WEIGHT_BITS=8), clock(WEIGHT_BITS=8, ACT_BITS=8, FLOPS_FRACTION=0.6)
    assert w8a16.cost(prefill).terms(GPUS[H100], 16)[0] == pytest.approx(w8a16.cost(prefill).flops / 989.4e12)
    assert micros(prefill, WEIGHT_BITS=8) == pytest.approx(micros(prefill), rel=0.01)  # compute-bound: no gain
    c16, c8 = w8a16.cost(prefill), w8a8.cost(prefill)
    half = c8.terms(GPUS[H100], 8, 0.6, 0.8)[0]
    assert c16.terms(GPUS[H100], 16, 0.6, 0.8)[0] == pytest.approx(2 * half, rel=1e-3)
    assert micros([(1, 100)], WEIGHT_BITS=8, ACT_BITS=8, BANDWIDTH_FRACTION=0.8) == micros([(1, 100)], WEIGHT_BITS=8,
                                                                                           BANDWIDTH_FRACTION=0.8)


def test_act_bits_8_needs_8_or_4_bit_weights():
    proc = run_cli(ROOF + ["--act-bits", "8", "--lang", "en"])
    assert proc.returncode == 2 and "--act-bits" in proc.stderr and "WEIGHT_BITS = 8" in proc.stderr, proc.stderr
    assert run_cli(ROOF + ["--act-bits", "8", "--weight-bits", "8"]).returncode == 0
    assert run_cli(["--act-bits", "12"]).returncode == 2


def test_engine_profile_sets_the_efficiencies_and_explicit_values_win():
    """vllm (default) at 16 bits keeps 0.6 / 0.8 / 100 µs; gpt-fast bf16 is its measured 0.69 of bandwidth and no
    overhead; ideal is the datasheet floor; a typed FLOPS_FRACTION wins over the profile."""
    def figures(**v):
        c = Config.from_values(dict(CLOCK="roofline", **v))
        return c.FLOPS_FRACTION, c.BANDWIDTH_FRACTION, c.STEP_OVERHEAD
    assert figures() == (0.6, 0.8, 100) and Config().FLOPS_FRACTION == 0.6
    assert figures(ENGINE_PROFILE="gpt-fast") == (0.6, 0.69, 0)
    assert figures(ENGINE_PROFILE="ideal", WEIGHT_BITS=8, ACT_BITS=8) == (1.0, 1.0, 0)
    assert figures(WEIGHT_BITS=8, ACT_BITS=8) == (0.45, 0.8, 100)
    assert figures(WEIGHT_BITS=4) == (0.6, 0.55, 100)
    assert figures(ENGINE_PROFILE="gpt-fast", FLOPS_FRACTION=0.3, STEP_OVERHEAD=7) == (0.3, 0.69, 7)
    g, work = GPUS[H100], [(1, 100)]
    cost = clock().cost(work)
    assert micros(work, ENGINE_PROFILE="ideal") == math.ceil(cost.bytes / g.bandwidth * 1e6)   # the physical floor
    proc = run_cli(ROOF + ["--engine-profile", "tensorrt-llm", "--json"])
    assert proc.returncode == 0 and json.loads(proc.stdout)["config"]["STEP_OVERHEAD"] == 50
    bad = run_cli(ROOF + ["--engine-profile", "sglang"])
    assert bad.returncode == 2 and "--engine-profile" in bad.stderr and "gpt-fast" in bad.stderr


def test_ignore_eos_generates_the_full_output_length():
    """A generated workload where R3 meets <eos> after 5 tokens: with --ignore-eos every request gets its 40."""
    argv = ROOF + ["--workload-requests", "6", "--workload-prompt", "64", "--workload-output", "40",
                   "--max-context", "128"]

    def generated(extra):
        proc = run_cli(argv + extra + ["--json"])
        assert proc.returncode == 0, proc.stderr[-2000:]
        report = json.loads(proc.stdout)
        assert report["passed"], [c for c in report["checks"] if not c["ok"]]
        block = next(b for b in report["blocks"] if b["number"] == 11)
        return {r["id"]: r["n"] for r in block["data"]["requests"]}
    assert generated([]) == {"R1": 40, "R2": 40, "R3": 5}
    assert generated(["--ignore-eos"]) == {"R1": 40, "R2": 40, "R3": 40}


def test_8_bit_weights_shorten_memory_bound_decode():
    """Half the bytes: at the same BANDWIDTH_FRACTION about half the time (plus the fixed 100 µs); under the
    vllm profile weight-only kernels reach 0.55 of bandwidth, not 0.8, so the saving is 0.5 × 0.8 / 0.55 ≈ 0.73."""
    for work in ([(1, 100)], [(1, 20)] * 4):
        assert clock(WEIGHT_BITS=8).cost(work).bound(GPUS[H100], 16) == "memory"
        ratio = micros(work, WEIGHT_BITS=8, BANDWIDTH_FRACTION=0.8) / micros(work)
        assert 0.5 <= ratio <= 0.55, ratio
        assert 0.7 <= micros(work, WEIGHT_BITS=8) / micros(work) <= 0.75


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
    # the seed's COST_*: 500 + 400·6; 500 + 400·5 + 1000 + 100
    assert [s["end"] - s["start"] for s in seed][:2] == [2900, 3600]
    assert all(s["cost"]["intensity"] == pytest.approx(s["cost"]["flops"] / s["cost"]["bytes"], abs=1e-3) for s in roof)


def test_a_steps_seconds_are_its_duration_under_roofline_and_the_formulas_under_seed():
    """cost.seconds, what the roofline chart places a step at (static/charts/roofline.js reads it, never
    computes it)."""
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
    """70B at 16 bits: 141.1 GB of weights against H100's 85.5 GB (75.0 GB usable: 0.9 × 85.52 − 2). At 8 bits it
    fits (exercise 21): 0.9 × 85.52 − 70.55 − 2 = 4.42 GB of KV = 13,473 tokens; at GPU_MEMORY_UTILIZATION 0.8 not."""
    proc = run_cli(["--clock", "roofline", "--shadow-model", "Llama-3.1-70B", "--lang", "en"])
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--shadow-model" in proc.stderr and "141.1 GB" in proc.stderr and "85.5 GB" in proc.stderr, proc.stderr
    assert "75.0 GB usable" in proc.stderr
    eight = ["--clock", "roofline", "--shadow-model", "Llama-3.1-70B", "--weight-bits", "8", "--lang", "en"]
    fits = run_cli(eight + ["--block-size", "16"])
    assert fits.returncode in (0, 1) and "13473 tokens of KV fit" in fits.stdout, fits.stderr[-2000:]
    tight = run_cli(eight + ["--gpu-memory-utilization", "0.8"])
    assert tight.returncode == 2 and "70.6 GB" in tight.stderr and "66.4 GB usable" in tight.stderr, tight.stderr
    assert "--gpu-memory-utilization" in tight.stderr or "GPU_MEMORY_UTILIZATION" in tight.stderr


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
    assert "CLOCK: roofline on H100-SXM5-80GB with the shapes of Llama-3.1-8B" in run_cli(ROOF + ["--lang",
                                                                                                  "en"]).stdout
    assert "ĐỒNG HỒ: roofline trên H100-SXM5-80GB" in run_cli(ROOF).stdout


def test_block_10_sizes_the_shadow_models_kv_as_vllm():
    out = run_cli(ROOF + ["--lang", "en", "--block-size", "16"]).stdout
    assert "H100-SXM5-80GB exposes 81,559 MiB = 85.52 GB of HBM" in out
    assert "Llama-3.1-8B's weights at WEIGHT_BITS=16 (not block 9's QUANT_BITS): 16.06 GB" in out
    assert "= 131072 bytes -> 449433 tokens of KV fit = 28089 blocks of 16 tokens" in out


# ── POOL_BLOCKS = auto ────────────────────────────────────────────────────────
def test_pool_blocks_auto_is_vllms_sizing_capped_by_what_the_trace_can_hold():
    from inference_lab.core.inputs.config import auto_pool_blocks
    from inference_lab.core.clock.hardware import kv_budget
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
    smaller = Config.from_values(dict(CLOCK="roofline", BLOCK_SIZE=16, MAX_CONTEXT=8192, WORKLOAD_REQUESTS=1000,
                                      WORKLOAD_PROMPT=16, GPU_MEMORY_UTILIZATION=0.5))
    from inference_lab.core.clock.hardware import kv_budget
    assert smaller.POOL_BLOCKS == kv_budget(GPUS[H100], MODELS[LLAMA8], 16, 16, 16, 0.5)["blocks"] == 11777


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
