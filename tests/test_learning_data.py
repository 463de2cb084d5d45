"""The data behind the three pictures of issue 16 (blocks [2], [9]/[13], [10]): BPE merge by merge, every
request against MAX_CONTEXT, QUANT_BITS and its neighbours, the HBM budget in bytes. Hand-checkable numbers
from the default run (the same the lab prints), plus degenerate runs (refused FOLLOW, QUANT_BITS 2).
"""
from __future__ import annotations

import pytest

from inference_lab import run
from inference_lab.entrypoints.block_data import sweep_bits
from inference_lab.entrypoints.weights import tokenizer_for
from inference_lab.core.model.model import make_weights
from inference_lab.core.model.quantization import greedy_teacher_forced, quantize_weights


def data(config: dict) -> dict:
    return {b.number: b.data for b in run(config).blocks}


@pytest.fixture(scope="module")
def default() -> dict:
    return data({})


def test_bpe_merge_steps_end_in_the_printed_pieces(default):
    b2 = default[2]
    steps = b2["merge_steps"]
    assert steps[0]["merge"] is None
    assert steps[0]["pieces"] == ["b", "a", "n", "</w>", "h", "o", "c", "</w>", "m", "o", "d", "e", "l", "</w>"]
    assert [s["merge"] for s in steps[1:]] == ["n</w>", "od", "ode", "odel", "odel</w>", "model</w>"]
    assert [s["rank"] for s in steps[1:]] == [0, 3, 4, 5, 6, 8]         # merges 1, 2, 7, 9 change nothing in C
    assert ["<bos>"] + steps[-1]["pieces"] == b2["follow"]["tokens"]
    assert b2["follow_ids"] == [[p, i] for p, i in zip(b2["follow"]["tokens"], [0, 4, 3, 16, 8, 17, 5, 2, 14])]


def test_every_request_against_max_context(default):
    rows = {r["id"]: r for r in default[2]["budget"]}
    assert list(rows) == ["A", "B", "E", "C", "D"]
    assert (rows["E"]["prompt"], rows["E"]["max_new"], rows["E"]["total"]) == (8, 30, 38)
    # config's
    assert (rows["E"]["code"], rows["E"]["reason"]) == ("400", "context") and "max_context" not in default[2]
    assert rows["D"]["code"] == "429" and rows["D"]["tokenized"] is False and rows["D"]["total"] == 15
    assert all(rows[i]["code"] == "OK" and rows[i]["total"] <= 24 for i in "ABC")
    # MAX_CONTEXT 38 lets E in
    assert {r["id"]: r["code"] for r in data({"MAX_CONTEXT": 38})[2]["budget"]}["E"] == "OK"


def test_refused_or_unknown_followed_request_still_has_its_pieces():
    b2 = data({"SLOTS": 1})[2]                     # C gets 429 at the gateway: never tokenized by the engine
    assert b2["follow"]["tokens"] == [] and b2["merge_steps"][-1]["pieces"][-1] == "model</w>"
    reqs = [dict(r) for r in run({}).config["REQUESTS"]]
    reqs[3]["text"] = "ban học model"
    b2 = data({"REQUESTS": reqs})[2]
    assert ["ọ", None] in b2["follow_ids"]
    assert {r["id"]: (r["prompt"], r["code"], r["reason"]) for r in b2["budget"]}["C"] == (None, "400", "unknown")


def test_memory_budget_parts_add_up(default):
    m = default[10]["budget"]
    assert (m["weights"], m["kv_pool"], m["per_token"], m["block_bytes"]) == (7936, 6144, 128, 512)
    assert (m["peak_blocks"], m["peak_tokens"], m["kv_in_use"], m["kv_stored"], m["kv_slack"], m["kv_free"]) == \
        (7, 24, 3584, 3072, 512, 2560)
    assert m["weights"] + m["kv_stored"] + m["kv_slack"] + m["kv_free"] == m["total"] == 14080
    m2 = data({"POOL_BLOCKS": 24, "BLOCK_SIZE": 8})[10]["budget"]
    assert m2["kv_pool"] == 24 * 8 * 128 and m2["weights"] == 7936


def test_sweep_bits_stays_in_bounds():
    assert sweep_bits(8) == [6, 7, 8] and sweep_bits(4) == [3, 4, 5] and sweep_bits(2) == [2, 3, 4]


def test_quantization_sweep_matches_blocks_9_and_13(default):
    b9, b13 = default[9], default[13]
    sweep = b13["sweep"]
    assert [(p["bits"], p["current"], p["kept"], p["decisions"], p["passed"]) for p in sweep] == \
        [(6, False, 37, 40, False), (7, False, 39, 40, True), (8, True, 40, 40, True)]
    cur = sweep[-1]
    assert (cur["int_bytes"], cur["fp32_bytes"], cur["logit_err"]) == (b9["int_bytes"], b9["fp32_bytes"],
                                                                       b9["logit_err"])
    assert cur["agreement"] == b13["agreement"] == 1.0 and b13["gate"] == 0.95 and b13["probe"] == "C"
    assert [p["int_bytes"] for p in sweep] == [988, 1090, 1192]          # 816 elements × bits / 8 + 4 × 92 scales
    assert sweep[0]["logit_err"] > sweep[1]["logit_err"] > sweep[2]["logit_err"]


def test_quantization_sweep_at_two_bits():
    b9, b13 = (lambda d: (d[9], d[13]))(data({"QUANT_BITS": 2}))
    sweep = b13["sweep"]
    assert [p["bits"] for p in sweep] == [2, 3, 4] and sweep[0]["current"] and sweep[0]["levels"] == 1
    assert sweep[0]["int_bytes"] == b9["int_bytes"] and sweep[0]["kept"] == 40 - b13["flips"]
    assert sweep[2]["kept"] == 33                   # QUANT_BITS 4: 33/40, as exercise 06 says


def test_split_gate_equals_one_pass():
    """greedy_teacher_forced = greedy_reference + compare_to_reference: the same decisions as one loop."""
    tok = tokenizer_for(10)
    W = make_weights(7, tok.vocab_size)
    ids = tok.encode("xin chao ban")[1]
    res = greedy_teacher_forced(W, quantize_weights(W, 4)[0], ids, 8)
    assert [r["step"] for r in res] == list(range(8))
    agree = {r["id"]: r["agree"] for r in data({"QUANT_BITS": 4})[13]["rows"]}
    assert sum(r["token"] == r["token_q"] for r in res) == agree["E"] == 6
