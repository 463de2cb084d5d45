"""The page's capacity tools in the worker (issue 42): web.sweep and web.search, what the sweep and search tools
(static/tools/sweep.js, sweep-search.js) send and show. Their lines are the command line's (one source of the
words), their errors name the tool's field ("sweep", "search", "search-attainment") in both languages, each point
is heard with the answer so far, and a Stop (a KeyboardInterrupt, as Pyodide raises it) keeps the points done.
"""
from __future__ import annotations

import json

import pytest

from cli_runner import run_cli
from inference_lab.entrypoints import search as searches
from inference_lab.entrypoints import sweep as sweeps
from inference_lab.entrypoints import web

SMALL = dict(WORKLOAD_REQUESTS=24, WORKLOAD_PROMPT=16, WORKLOAD_OUTPUT=8)
SMALL_FLAGS = ["--workload-requests", "24", "--workload-prompt", "16", "--workload-output", "8"]
# tests/test_search.py's grid: the one H100 at 16 bits is the answer (the L4's prefill is too slow for 20 ms)
GRID = dict(CLOCK="roofline", WORKLOAD_REQUESTS=16, WORKLOAD_PROMPT=64, WORKLOAD_OUTPUT=16, WORKLOAD_RATE=50.0,
            MAX_CONTEXT=128, QUEUE_LIMIT=16, TOKEN_BUDGET=512, SLOTS=8, TTFT_SLO=20000)


def test_limits_name_the_page_points_and_the_search_axes():
    assert json.loads(web.limits()) == {"points": web.PAGE_POINTS, "axes": list(searches.AXES)}


def test_a_sweep_answers_rows_knee_and_the_command_lines_own_lines():
    heard = []
    out = json.loads(web.sweep(json.dumps(SMALL), "WORKLOAD_RATE=10,40,160", "en",
                               progress=lambda i, n, partial: heard.append((i, n, json.loads(partial)))))
    assert out["ok"]
    result = out["sweep"]
    assert [p["value"] for p in result["points"]] == [10.0, 40.0, 160.0]
    assert result["knee"] == 1 and not result["stopped"]     # 44.6 → 177 tokens/s follows ×4; 177 → 366 does not
    assert [(i, n, len(p["points"])) for i, n, p in heard] == [(1, 3, 1), (2, 3, 2), (3, 3, 3)]
    assert heard[-1][2] == result                            # the last point's answer so far is the answer
    for row in result["points"]:
        assert row["little"]["gap"] < 1e-3                   # Little's law on each run
    cli = run_cli([*SMALL_FLAGS, "--sweep", "WORKLOAD_RATE=10,40,160", "--lang", "en"])
    assert cli.stdout.rstrip("\n").split("\n") == out["lines"]


@pytest.mark.parametrize("axis,said", [("WORKLOAD_RATE", "Expected NAME=V1,V2"), ("", "Type one axis"),
                                       ("CLOCK=seed,roofline", "CLOCK is not a numeric constant"),
                                       ("SLOTS=1,2\nSEED=1,2", "The sweep tool runs one axis (got 2)"),
                                       ("SLOTS=" + ",".join(map(str, range(1, 14))),
                                        "The page runs at most 12 points in its worker (got 13)")])
def test_a_bad_sweep_axis_is_said_beside_the_sweep_field(axis, said):
    out = json.loads(web.sweep(json.dumps(SMALL), axis))
    assert not out["ok"]
    (error,) = out["errors"]
    assert error["field"] == "sweep" and error["message_en"].startswith(said)
    assert error["message"] and error["message"] != error["message_en"]      # Vietnamese first


def test_a_sweep_point_that_is_no_config_names_the_value_and_a_bad_constant_its_field():
    out = json.loads(web.sweep(json.dumps(SMALL), "SLOTS=0,2"))
    assert [e["field"] for e in out["errors"]] == ["sweep"]
    assert out["errors"][0]["message_en"].startswith("SLOTS=0: ")
    out = json.loads(web.sweep(json.dumps(dict(SMALL, SLOTS=0)), "WORKLOAD_RATE=1,2"))
    assert [e["field"] for e in out["errors"]] == ["SLOTS"]               # beside the constant's own control


def test_a_stopped_sweep_keeps_the_points_done(monkeypatch):
    real, calls, seen = sweeps.run_point, [], []

    def second_stops(values):
        calls.append(values)
        if len(calls) == 2:
            raise KeyboardInterrupt                      # the page's Stop, as Pyodide raises it in a line
        return real(values)
    monkeypatch.setattr(sweeps, "run_point", second_stops)
    out = json.loads(web.sweep(json.dumps(SMALL), "WORKLOAD_RATE=10,40,160", "en", stop_seen=lambda: seen.append(1)))
    assert out["ok"] and out["sweep"]["stopped"] and seen == [1]
    assert [p["value"] for p in out["sweep"]["points"]] == [10.0]
    assert out["sweep"]["knee"] is None and len(calls) == 2


def test_a_search_answers_the_cheapest_meeting_config_the_front_and_the_command_lines_lines():
    heard = []
    out = json.loads(web.search(json.dumps(GRID), "GPU=L4,H100-SXM5-80GB", "0.9", "en",
                                progress=lambda i, n, partial: heard.append((i, n))))
    assert out["ok"] and heard == [(0, 2), (1, 2), (2, 2)]   # (0, n): the grid's size first
    result = out["search"]
    assert result["backend"] == "page" and not result["stopped"]
    assert result["points"][result["answer"]]["point"] == {"GPU": "H100-SXM5-80GB"}
    assert result["pareto"] and all(result["points"][i]["ok"] for i in result["pareto"])
    flags = ["--clock", "roofline", "--workload-requests", "16", "--workload-prompt", "64", "--workload-output", "16",
             "--workload-rate", "50", "--max-context", "128", "--queue-limit", "16", "--token-budget", "512",
             "--slots", "8", "--ttft-slo", "20000", "--search", "GPU=L4,H100-SXM5-80GB", "--lang", "en"]
    cli = run_cli(flags)
    assert cli.stdout.rstrip("\n").split("\n") == out["lines"]
    assert any(line.startswith("  #1 GPU=L4: TTFT met by only") for line in out["lines"])   # the rejected's reason


def test_bad_search_input_is_said_beside_its_field():
    out = json.loads(web.search(json.dumps(dict(SMALL)), "REPLICAS=1,2\nSEED=1\nREPLICAS=3", "1.5"))
    assert [e["field"] for e in out["errors"]] == ["search", "search", "search-attainment", "search"]
    assert [e["message_en"].split(" ")[0] for e in out["errors"]] == ["SEED", "The", "The", "The"]
    big = json.loads(web.search(json.dumps(GRID), "REPLICAS=1,2,3,4\nSLOTS=1,2,4,8", None, "en"))
    assert big["errors"][0]["message_en"].startswith("The page runs at most 12 points")
    assert "--search" in big["errors"][0]["message_en"]


def test_a_stopped_search_answers_with_the_points_done(monkeypatch):
    real, calls = searches.evaluate, []

    def second_stops(*args):
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args)
    monkeypatch.setattr(searches, "evaluate", second_stops)
    out = json.loads(web.search(json.dumps(GRID), "GPU=L4,H100-SXM5-80GB", None, "en"))
    result = out["search"]
    assert result["stopped"] and [p["point"] for p in result["points"]] == [{"GPU": "L4"}]
    assert result["answer"] is None                      # the L4 misses the 20 ms TTFT_SLO
