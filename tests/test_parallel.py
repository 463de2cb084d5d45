"""TENSOR_PARALLEL (core/clock/parallel.py): the ring all-reduce, the per-GPU step, the KV room of all GPUs, the
"needs TENSOR_PARALLEL >= N" problem and the words of a TP run, with numbers checkable by hand.

Llama-3.1-8B on 2 x H100 (NVLink 4: 450 GB/s per direction, 1.9 us per ring step), one decode token:
message = 1 x 4096 x 2 bytes = 8,192; one all-reduce = 2(2-1)/2 x 8192 / 450e9 + 2(2-1) x 1.9 us = 0.0182 + 3.8
= 3.818 us; 2 per layer x 32 layers = 64 of them = 244.4 us.
"""
from __future__ import annotations

import json

import pytest

from cli_runner import run_cli
from inference_lab import run
from inference_lab.core.clock.hardware import GPUS, MODELS, kv_budget
from inference_lab.core.clock.parallel import allreduce_seconds, communication_seconds, kv_heads_per_gpu, \
    message_bytes
from inference_lab.core.clock.roofline import step_cost
from inference_lab.core.inputs.config import Config, validate

H100, L4 = GPUS["H100-SXM5-80GB"], GPUS["L4"]
M8, M70 = MODELS["Llama-3.1-8B"], MODELS["Llama-3.1-70B"]


def test_ring_allreduce_8b_on_two_h100():
    """8,192 bytes: 3.818 us per all-reduce, 244.4 us per step (see the module docstring)."""
    assert message_bytes(M8, 1) == 8192
    assert allreduce_seconds(8192, 2, H100) == pytest.approx(8192 / 450e9 + 3.8e-6)
    assert communication_seconds(M8, 1, 2, H100) * 1e6 == pytest.approx(244.4, abs=0.05)


def test_ring_allreduce_grows_with_tp_and_pcie_is_slower():
    """TP 4 on H100, batch 256 (2 MiB): 6/4 x 2097152 / 450e9 + 6 x 1.9 us = 6.99 + 11.4 = 18.39 us. On L4 over
    PCIe (32 GB/s, 2.5 us): 6/4 x 2097152 / 32e9 + 6 x 2.5 us = 98.3 + 15 = 113.3 us."""
    assert allreduce_seconds(2 * 2**20, 4, H100) * 1e6 == pytest.approx(18.39, abs=0.01)
    assert allreduce_seconds(2 * 2**20, 4, L4) * 1e6 == pytest.approx(113.3, abs=0.05)
    assert allreduce_seconds(2 * 2**20, 1, H100) == 0.0


def test_kv_heads_split_then_replicated():
    """8 KV heads: 8, 4, 2, 1 per GPU; the lab model's 2 KV heads on 4 GPUs: 1 each (replicated, vLLM)."""
    assert [kv_heads_per_gpu(M70, tp) for tp in (1, 2, 4, 8)] == [8, 4, 2, 1]
    assert kv_heads_per_gpu(MODELS["lab"], 4) == 1


def test_step_cost_per_gpu_is_the_share_plus_communication():
    """At tp = 2 each GPU reads half the weights and half the KV, computes half the FLOPs; tp = 1 has no comm."""
    work = [(1, 100)] * 8
    one, two = step_cost(M8, work, 16, 16), step_cost(M8, work, 16, 16, 2, H100)
    assert one.comm == 0.0
    assert two.flops == pytest.approx(one.flops / 2)
    assert two.bytes == pytest.approx(one.bytes / 2)
    assert two.comm == pytest.approx(communication_seconds(M8, 8, 2, H100))
    # the step: max(compute, memory) on one GPU + communication + overhead
    s = two.seconds(H100, 16, 0.6, 0.8, 100e-6)
    assert s == pytest.approx(two.bytes / (3350e9 * 0.8) + two.comm + 100e-6)


def test_70b_fits_from_tp2_and_kv_room_counts_every_gpu():
    """70B at 16 bits: 141.1 GB. One H100 uses 85.52 x 0.9 = 76.97 GB: no. On 2 each holds 70.55 GB, 4.42 GB
    left for 4 KV heads (163,840 bytes a token): 26,947 tokens; on 4: 39.70 GB / 81,920 = 484,519 tokens."""
    tokens = [kv_budget(H100, M70, 16, 16, tp=tp)["tokens"] for tp in (1, 2, 4)]
    assert tokens == [0, 26947, 484519]
    b = kv_budget(H100, M70, 16, 16, tp=4)
    assert b["room"] == pytest.approx(4 * b["room_gpu"])
    cfg = Config(CLOCK="roofline", SHADOW_MODEL="Llama-3.1-70B", TENSOR_PARALLEL=4, POOL_BLOCKS="auto",
                 MAX_CONTEXT=8192)
    assert cfg.POOL_BLOCKS == min(484519 // cfg.BLOCK_SIZE, len(cfg.REQUESTS) * -(-8192 // cfg.BLOCK_SIZE))


def test_70b_on_one_gpu_says_how_many_gpus_it_needs():
    """The problem names TENSOR_PARALLEL >= 2 where the model was chosen; at TP 2 it runs."""
    problems = validate({"CLOCK": "roofline", "SHADOW_MODEL": "Llama-3.1-70B"})
    assert [(p.field, p.key, p.args["tp"]) for p in problems] == [("SHADOW_MODEL", "weights_need_tp", 2)]
    assert validate({"CLOCK": "roofline", "SHADOW_MODEL": "Llama-3.1-70B", "TENSOR_PARALLEL": 2}) == []
    # on L4 (22.6 GB usable - 2 GB reserve) 16-bit 70B needs 8 GPUs (17.6 GB each)
    problems = validate({"CLOCK": "roofline", "SHADOW_MODEL": "Llama-3.1-70B", "GPU": "L4", "TENSOR_PARALLEL": 2})
    assert [(p.field, p.key, p.args["more"]) for p in problems] == [("TENSOR_PARALLEL", "weights_do_not_fit_tp",
                                                                      " (≥ 8)")]


@pytest.mark.parametrize("lang, words", [("vi", "cần TENSOR_PARALLEL ≥ 2"), ("en", "needs TENSOR_PARALLEL ≥ 2")])
def test_cli_names_the_gpus_needed(lang, words):
    proc = run_cli(["--clock", "roofline", "--shadow-model", "Llama-3.1-70B", "--lang", lang])
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--shadow-model" in proc.stderr and words in proc.stderr, proc.stderr


def test_heads_must_split_evenly():
    """The lab's own model has 2 heads: TP 4 cannot split them (vLLM refuses too)."""
    problems = validate({"CLOCK": "roofline", "SHADOW_MODEL": "lab", "TENSOR_PARALLEL": 4})
    assert [(p.field, p.key, p.args["ok"]) for p in problems] == [("TENSOR_PARALLEL", "tp_heads", "1, 2")]


def test_json_cost_has_communication_and_words_are_true():
    """--json cost carries the communication term; the step's duration is max(compute, memory) + comm + overhead
    rounded up to the us; the step view and block 10 name the TP split (both languages)."""
    values = dict(CLOCK="roofline", SHADOW_MODEL="Llama-3.1-70B", TENSOR_PARALLEL=4, POOL_BLOCKS="auto")
    report = run(values)
    items = report.to_dict()["steps"]["items"]
    for it in items:
        c = it["cost"]
        assert c["communication"] > 0
        assert it["end"] - it["start"] >= c["communication"] * 1e6
    first = items[0]["cost"]
    assert first["communication"] == pytest.approx(communication_seconds(M70, 6, 4, H100))
    from inference_lab.entrypoints.lab import render
    vi, en = render(report, "vi").to_text(), render(report, "en").to_text()
    assert "= 35.28 GB mỗi GPU" in vi and "= 35.28 GB each" in en
    assert "484519 token KV vừa" in vi and "484519 tokens of KV fit" in en
    proc = run_cli(["--clock", "roofline", "--shadow-model", "Llama-3.1-70B", "--tensor-parallel", "4", "--steps",
                    "--lang", "en"])
    assert proc.returncode == 0 and "Cost on each GPU of 4 x H100-SXM5-80GB" in proc.stdout
    assert "of communication (2 ring all-reduces per layer" in proc.stdout


def test_tp1_runs_unchanged_json_has_no_communication_key():
    """TENSOR_PARALLEL = 1 (the default) adds nothing: no communication key, the same durations."""
    a = run(dict(CLOCK="roofline"))
    b = run(dict(CLOCK="roofline", TENSOR_PARALLEL=1))
    a, b = a.to_dict()["steps"]["items"], b.to_dict()["steps"]["items"]
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert all("communication" not in it["cost"] for it in a)


def test_replicas_times_tp_words():
    """A replica is a TP group: 2 replicas x TP 4 = 8 GPUs, said in the header."""
    from inference_lab.entrypoints.lab import render
    report = run(dict(CLOCK="roofline", SHADOW_MODEL="Llama-3.1-70B", TENSOR_PARALLEL=4, REPLICAS=2))
    assert "the whole run 8 GPUs = REPLICAS x TENSOR_PARALLEL" in render(report, "en").to_text()
    assert "cả lần chạy 8 GPU = REPLICAS x TENSOR_PARALLEL" in render(report, "vi").to_text()
