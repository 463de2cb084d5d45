"""Engine behaviour beyond byte-fidelity: invariants on random configs, validation, preemption, JSON."""
from __future__ import annotations

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings

from helpers import configs
from inference_lab import Config, ConfigError, run
from inference_lab.entrypoints import cli, web
from inference_lab.words import text_vi
from inference_lab.words.text_schema import problem_text
from inference_lab.core.inputs.config import DEFAULT_REQUESTS, FIELDS, validate
from inference_lab.core.serving.run_log import step_rows
from inference_lab.entrypoints.lab import bare_record, tokenizer_for, worded_data
from inference_lab.words.limits import run_facts, seed_identical
from inference_lab.entrypoints.report import Report

BLOCK_HEADERS = [f"[{i} · " for i in range(1, 14)]


# ── a hand-checkable reference case ─────────────────────────────────────────
def test_default_run_reference_numbers():
    r = run()
    text = r.to_text()
    assert r.passed and text.rstrip().endswith("lập lịch không đổi nội dung).")
    assert "D (đến 1.50 ms): TỪ CHỐI 429" in text
    assert "Bị chặn: E - prompt 8 token + max_new 30 = 38 > MAX_CONTEXT 24." in text
    assert "  C:   650 + 14550 +  6800 = 22000" in text
    b6 = r.block(6).data
    assert b6["peak"]["used"] == 7 and b6["free"] == 12


def test_tokenizer_reference_case():
    tok = tokenizer_for(10)
    assert tok.vocab_size == 22
    assert tok.encode("ban hoc model")[1] == [0, 4, 3, 16, 8, 17, 5, 2, 14]
    assert tok.unknown("xin chào ông") == ["à", "ô", "g"]      # 'n' is known, 'g' never appears in the corpus
    assert tok.unknown("xin chao") == []


# ── random valid configs (helpers.configs): always completes, invariants hold ─
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_random_valid_configs_complete_with_invariants(values):
    r = run(values)
    text = r.to_text()
    for h in BLOCK_HEADERS:
        assert h in text
    assert "TỔNG KẾT" in text
    failed = [c.name for c in r.checks if not c.ok]
    assert not failed, failed
    assert text.splitlines()[-1].startswith("PASS:")
    b1 = r.block(1).data
    assert b1["offered"] == b1["served"] + b1["n_429"] + b1["n_400"]
    json.dumps(r.to_dict())                       # plain JSON


# ── preemption keeps tokens identical ──────────────────────────────────────
@pytest.mark.parametrize("slots,pool", [(3, 6), (3, 7), (4, 7), (4, 8), (4, 9)])
def test_preemption_keeps_generated_tokens(slots, pool):
    small = run(dict(SLOTS=slots, POOL_BLOCKS=pool, QUEUE_LIMIT=2))
    big = run(dict(SLOTS=slots, POOL_BLOCKS=500, QUEUE_LIMIT=2))
    assert small.block(3).data["preemptions"], "this config is meant to preempt"
    assert not big.block(3).data["preemptions"]
    def stops(r):
        return {s["id"]: (s["text"], s["n"], s["reason"]) for s in r.block(8).data["stops"]}
    assert stops(small) == stops(big)
    assert small.passed
    text = small.to_text()
    for block in ("[3 · ", "[6 · ", "[11 · "):
        section = text.split(block, 1)[1].split("\n\n", 1)[0]
        assert "preempt" in section.lower()


def test_preempted_ttft_parts_add_up():
    r = run(dict(SLOTS=3, POOL_BLOCKS=7, QUEUE_LIMIT=2))
    for m in r.block(11).data["requests"]:
        assert m["prep"] + m["queue"] + m["prefill"] == m["ttft"]


def test_request_that_never_fits_the_pool_gets_400():
    r = run(dict(POOL_BLOCKS=2, BLOCK_SIZE=4))
    text = r.to_text()
    assert "không bao giờ vừa bể KV" in text and r.passed


def test_unknown_characters_get_400_naming_them():
    reqs = [dict(r) for r in DEFAULT_REQUESTS]
    reqs[0]["text"] = "xin chào"
    r = run(dict(REQUESTS=reqs, FOLLOW="A"))
    text = r.to_text()
    assert "A (đến 0.00 ms): nhận" in text
    assert "mã 400: văn bản có ký tự tokenizer chưa từng thấy: 'à'" in text
    assert r.passed


@pytest.mark.parametrize("values", [dict(SLOTS=1), dict(QUEUE_LIMIT=0), dict(MAX_CONTEXT=16), dict(FOLLOW="D"),
                                    dict(FOLLOW="E")])
def test_followed_request_refused_still_prints_everything(values):
    r = run(values)
    text = r.to_text()
    assert r.passed
    assert all(h in text for h in BLOCK_HEADERS)
    assert "Yêu cầu theo dõi" in text and "bị TỪ CHỐI" in text
    assert "chọn FOLLOW (--follow) là một yêu cầu được phục vụ" in text
    assert "thay cho" in text


def test_nobody_served_is_degenerate_but_passes():
    reqs = [dict(DEFAULT_REQUESTS[0], max_new=30)]
    r = run(dict(REQUESTS=reqs, FOLLOW="A"))
    assert r.passed and r.block(1).data["served"] == 0
    assert "Không có bước nào" in r.to_text()


# ── validation: all problems at once, Vietnamese, naming the field ─────────
def test_invalid_config_lists_every_problem():
    problems = validate(dict(SLOTS=0, QUEUE_LIMIT=10**9, QUANT_BITS="x", FOLLOW="Z", NOPE=1, QUALITY_GATE=2.0))
    fields = {p.field for p in problems}
    assert {"SLOTS", "QUEUE_LIMIT", "QUANT_BITS", "FOLLOW", "NOPE", "QUALITY_GATE"} <= fields
    assert all(problem_text(p) for p in problems)
    with pytest.raises(ConfigError) as exc:
        Config.from_values(dict(SLOTS=0, POOL_BLOCKS=10**9))
    assert len(exc.value.problems) == 2


@pytest.mark.parametrize("bad", [
    [],                                            # empty trace
    [dict(DEFAULT_REQUESTS[0], text="   ")],       # empty text
    [dict(DEFAULT_REQUESTS[0], top_p=0.0)],        # top_p must be > 0
    [{"id": "A"}],                                 # missing keys
    [dict(DEFAULT_REQUESTS[0]), dict(DEFAULT_REQUESTS[0])],   # duplicate ids
    "not a list",
])
def test_malformed_trace_is_an_invalid_config(bad):
    assert any(p.field.startswith("REQUESTS") for p in validate(dict(REQUESTS=bad, FOLLOW="A")))
    with pytest.raises(ConfigError) as exc:
        Config.from_values(dict(REQUESTS=bad, FOLLOW="A"))
    assert exc.value.problems == validate(dict(REQUESTS=bad, FOLLOW="A"))


# "auto" defaults take ENGINE_PROFILE's figures (vllm, 16-bit: core/clock/profiles.py) when the config is built
AUTO_DEFAULTS = {"MAX_CONTEXT": 24,                       # the seed's, without a recorded trace (context.py)
                 "FLOPS_FRACTION": 0.6, "BANDWIDTH_FRACTION": 0.8, "STEP_OVERHEAD": 100, "GPU_PRICE_PER_HOUR": 3.348}


def test_config_defaults_are_the_schema_defaults():
    cfg = Config()
    assert [name for name in cfg.to_values()] == [f.name for f in FIELDS]
    assert {f.name for f in FIELDS if f.default == "auto"} == set(AUTO_DEFAULTS)
    for f in FIELDS:
        want = [dict(r) for r in f.default] if f.type == "requests" else AUTO_DEFAULTS.get(f.name, f.default)
        assert cfg.to_dict()[f.name] == want, f.name
    assert not hasattr(cfg, "__dict__")                      # slots: a typo cannot add a constant
    with pytest.raises(ConfigError) as exc:
        Config.from_values(dict(NOPE=1, SLOTS=0, QUEUE_LIMIT="x"))
    assert [p.field for p in exc.value.problems] == ["NOPE", "SLOTS", "QUEUE_LIMIT"]
    assert Config.from_values({}) == Config() and Config.from_values({"SLOTS": 3}).SLOTS == 3


def count_validations(monkeypatch) -> list:
    """Counts every validation of a whole config (Config.__post_init__ and validate() both use
    problems.value_problems)."""
    from inference_lab.core.inputs import problems
    calls = []
    real = problems.value_problems
    monkeypatch.setattr(problems, "value_problems", lambda values: calls.append(1) or real(values))
    return calls


@pytest.mark.parametrize("entry", ["lab.run", "web.run", "cli.main"])
def test_a_run_validates_its_config_once(entry, monkeypatch, capsys):
    calls = count_validations(monkeypatch)
    if entry == "lab.run":
        assert run({"QUEUE_LIMIT": 2}).passed
    elif entry == "web.run":
        assert json.loads(web.run(json.dumps({"QUEUE_LIMIT": 2})))["ok"]
    else:
        assert cli.main(["--queue-limit", "2"]) == 0 and "PASS:" in capsys.readouterr().out
    assert len(calls) == 1


# ── formatting never changes the report's data ─────────────────────────────
@pytest.mark.parametrize("values",
                         [{}, dict(SLOTS=1), dict(SLOTS=3, POOL_BLOCKS=7, QUEUE_LIMIT=2), dict(SLOTS=3, FOLLOW="A")])
def test_text_vi_never_mutates_what_it_formats(values):
    r = run(values)
    before, checks = copy.deepcopy(r.to_dict()), copy.deepcopy(r.checks)
    timeline = {m["id"]: m for m in r.block(11).data["requests"]}
    parts = {b.number: b.data for b in r.blocks}
    seed = seed_identical(r.config, run_facts(parts, r.follow, r.checks))
    ctx = text_vi.Context(cfg=r.config, follow=r.follow, follow_metrics=timeline.get(r.follow["id"]),
                          seed=seed, record=bare_record(r.steps))
    rows = step_rows(r.steps)
    for b in r.blocks:                                        # formatting again gives the same lines ...
        assert text_vi.BLOCKS[b.number](worded_data(b, rows, parts[3]["mixed"]), ctx) == (b.title, b.lines)
    assert text_vi.summary_lines(ctx, r.checks) == r.summary
    assert r.to_dict() == before and r.checks == checks       # ... and changes nothing it was given


# ── the page's entry points ────────────────────────────────────────────────
def test_web_run_round_trip():
    out = json.loads(web.run(json.dumps({"QUEUE_LIMIT": 2})))
    assert out["ok"] and out["report"]["passed"]
    assert "text" not in out["report"]                       # every line once: in header, blocks and summary
    assert Report.from_dict(out["report"]).to_text() == run({"QUEUE_LIMIT": 2}).to_text()
    blocks = out["report"]["blocks"]
    assert [b["number"] for b in blocks] == list(range(1, 14))
    assert "D (đến 1.50 ms): nhận" in "\n".join(next(b for b in blocks if b["number"] == 1)["lines"])
    bad = json.loads(web.run(json.dumps({"SLOTS": "abc", "TOKEN_BUDGET": -1})))
    assert not bad["ok"] and {e["field"] for e in bad["errors"]} == {"SLOTS", "TOKEN_BUDGET"}
    assert not json.loads(web.run("{nope"))["ok"]


def test_schema_is_json():
    schema = json.loads(web.describe())
    names = [d["name"] for d in schema]
    assert "FOLLOW" in names and "REQUESTS" in names
    follow = next(d for d in schema if d["name"] == "FOLLOW")
    assert follow["choices"] == ["A", "B", "E", "C", "D"] and follow["flag"] == "--follow"
