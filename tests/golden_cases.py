"""The golden configurations: CONFIGS (seed overrides for which the seed completes; tests/golden/<name>.txt
holds what it prints), CRASHES (overrides for which the seed itself crashes, with what the engine must
do instead), built from the seed's own trace with edit(), and LAB_CONFIGS (constants the seed does not
have, such as CLOCK = roofline: the lab's own output, tests/golden/lab/<name>.txt and
tests/golden/en/lab/<name>.txt). GOLDEN_DIR is where their outputs live.
Leaves out: running the seed or the CLI and writing the files (tests/make_golden.py)."""
from __future__ import annotations

from pathlib import Path

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"

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
    "combo_context_48_queue_3_slots_3_follow_E": dict(MAX_CONTEXT=48, QUEUE_LIMIT=3, SLOTS=3, POOL_BLOCKS=30,
                                                      FOLLOW="E"),
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


# ── Configurations beyond the seed (no seed program to copy) ─────────────────
# The lab's own output for constants the seed does not have, reviewed once and then kept byte for byte:
# tests/golden/lab/<name>.txt (Vietnamese) and tests/golden/en/lab/<name>.txt (--lang en), from
# `python -m inference_lab <flags of overrides> <flags>`.
LAB_DIR = "lab"
LAB_CONFIGS: dict[str, dict] = {
    "clock_roofline": dict(overrides=dict(CLOCK="roofline"), flags=[]),
    "clock_roofline_steps": dict(overrides=dict(CLOCK="roofline"), flags=["--steps"]),
    "clock_roofline_a100_weights_8": dict(overrides=dict(CLOCK="roofline", GPU="A100-SXM4-80GB", WEIGHT_BITS=8),
                                          flags=[]),
}
