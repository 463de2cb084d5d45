"""The vLLM features (PREFIX_CACHE, SCHED_POLICY, the priority and cancel_at columns) in the schema, the
validation messages, the defaults (byte-identical to the seed) and the command line (in process).
Leaves out: what the features do (test_vllm_features_prefix_cache.py, test_vllm_features_scheduling.py,
test_vllm_features_properties.py)."""
from __future__ import annotations

import json

import pytest

from inference_lab import run
from inference_lab.core.inputs.config import DEFAULT_REQUESTS, FIELD_BY_NAME, describe, validate
from inference_lab.entrypoints import cli
from vllm_helpers import GOLDEN, trace


# ── schema, validation, defaults ───────────────────────────────────────────


def test_schema_has_the_new_constant_and_columns():
    by_name = {d["name"]: d for d in describe()}
    assert by_name["PREFIX_CACHE"]["choices"] == ["off", "on"] and by_name["PREFIX_CACHE"]["default"] == "off"
    assert by_name["SCHED_POLICY"]["choices"] == ["fcfs", "priority"] and by_name["PREFIX_CACHE"]["switch"]
    cols = {c["name"]: c for c in by_name["REQUESTS"]["columns"]}
    assert cols["priority"]["optional"] and cols["cancel_at"]["optional"] and not cols["id"]["optional"]
    assert (cols["priority"]["min"], cols["priority"]["max"]) == (-10**9, 10**9)          # vLLM's: negative too
    assert FIELD_BY_NAME["PREFIX_CACHE"].flag == "--prefix-cache"


@pytest.mark.parametrize("values,field", [
    ({"PREFIX_CACHE": "yes"}, "PREFIX_CACHE"),
    ({"SCHED_POLICY": "lifo"}, "SCHED_POLICY"),
    ({"REQUESTS": trace(priority={"A": -10**9 - 1})}, "REQUESTS[0].priority"),
    ({"REQUESTS": trace(priority={"E": 10**9 + 1})}, "REQUESTS[2].priority"),
    ({"REQUESTS": trace(priority={"B": "high"})}, "REQUESTS[1].priority"),
    ({"REQUESTS": trace(cancel_at={"C": -5})}, "REQUESTS[3].cancel_at"),
    ({"REQUESTS": trace(cancel_at={"D": 1.5})}, "REQUESTS[4].cancel_at"),
])
def test_validation_names_the_field(values, field):
    assert field in [p.field for p in validate(values)]


def test_defaults_are_byte_identical():
    want = GOLDEN.read_text(encoding="utf-8")
    assert run().to_text() == want
    assert run({"PREFIX_CACHE": "off", "SCHED_POLICY": "fcfs"}).to_text() == want
    assert run({"REQUESTS": trace(priority={}, cancel_at={})}).to_text() == want
    explicit_none = [dict(r, priority=None, cancel_at=None) for r in DEFAULT_REQUESTS]
    assert run({"REQUESTS": explicit_none}).to_text() == want


# ── command line (in process) ──────────────────────────────────────────────
def cli_run(capsys, *args):
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_prefix_cache_flag(capsys):
    code, bare, _ = cli_run(capsys, "--queue-limit", "2", "--prefix-cache")
    code_on, on, _ = cli_run(capsys, "--queue-limit", "2", "--prefix-cache", "on")
    assert code == code_on == 0 and bare == on and "Trúng cache: D lấy 4 token" in on
    code, off, _ = cli_run(capsys, "--prefix-cache", "off")
    assert code == 0 and off == GOLDEN.read_text(encoding="utf-8")


def test_cli_sched_policy_and_requests_columns(capsys, tmp_path):
    path = tmp_path / "reqs.json"
    path.write_text(json.dumps(trace(priority={"A": 1, "B": 1, "E": 1}, cancel_at={"D": 2000})), encoding="utf-8")
    code, out, _ = cli_run(capsys, "--requests", str(path), "--queue-limit", "2", "--sched-policy", "priority",
                           "--json")
    report = json.loads(out)
    assert code == 0 and report["passed"]
    assert report["blocks"][0]["data"]["n_aborted"] == 1
    assert report["blocks"][2]["data"]["overtakes"][0]["request"] == "C"


@pytest.mark.parametrize("args,flag", [
    (["--sched-policy", "lifo"], "--sched-policy"),
    (["--prefix-cache", "maybe"], "--prefix-cache"),
])
def test_cli_bad_values_name_the_flag(capsys, args, flag):
    code, _, err = cli_run(capsys, *args)
    assert code == 2 and flag in err and "Traceback" not in err


def test_cli_bad_request_column_names_requests(capsys, tmp_path):
    path = tmp_path / "reqs.json"
    path.write_text(json.dumps(trace(cancel_at={"A": -1})), encoding="utf-8")
    code, _, err = cli_run(capsys, "--requests", str(path))
    assert code == 2 and "--requests" in err and "cancel_at" in err
