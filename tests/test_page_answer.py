"""What the worker sends for a long run (issue 39; entrypoints/web.py): the steps titled, not narrated, without what
only the step view reads (web.DETAIL_KEYS, events that are no landmark), with the run log kept in Python until the
next run, and each step whole on request (web.step_detail): the very item, title and lines the step would carry in
a short run, in the run's language; a short run's answer is unchanged (narrated as lab.run narrates it); `--json`
of a long run is compact (report.to_compact_dict) and holds the whole log, of a short one what it was.
report.COMPACT_STEPS is lowered here so that the default run (a few dozen steps) counts as long."""
from __future__ import annotations

import json

import pytest

from inference_lab.entrypoints import report, web
from inference_lab.entrypoints.lab import run as run_lab
from inference_lab.entrypoints.trace import trace_events


@pytest.fixture()
def long_runs(monkeypatch):
    monkeypatch.setattr(report, "COMPACT_STEPS", 0)
    yield
    web.release()


def test_a_short_run_is_narrated_as_lab_run_narrates_it():
    out = json.loads(web.run("{}"))
    assert out["report"]["steps"] == json.loads(json.dumps(run_lab().steps))
    assert "narration" not in out["report"]["steps"]
    assert json.loads(web.step_detail(1)) == {"ok": False, "n": 1}        # nothing kept for a short run
    assert out["trace"] == json.loads(json.dumps(trace_events(run_lab()))) and web.trace_json() == "null"


@pytest.mark.parametrize("lang", ["vi", "en"])
def test_a_long_run_sends_titles_and_words_each_step_on_request(long_runs, lang):
    full_run = run_lab(lang=lang)
    out = json.loads(web.run('{"SLOTS": 2}' if lang == "vi" else "{}", lang=lang))
    if lang == "vi":                                       # another run: the kept log follows the last one
        full_run = run_lab({"SLOTS": 2}, lang=lang)
    full = full_run.steps
    steps = out["report"]["steps"]
    assert steps["narration"] == "on_request"
    assert all("text" not in it and "running" not in it and "waiting" not in it for it in steps["items"])
    assert [it["title"] for it in steps["items"]] == [it["title"] for it in full["items"]]
    assert [[e for e in it["events"] if e["kind"] in full["landmarks"]] for it in full["items"]] == [
        it["events"] for it in steps["items"]]
    assert steps["after_text"] == full["after_text"] and steps["wait_labels"] == full["wait_labels"]
    for n, it in enumerate(full["items"], 1):
        assert json.loads(web.step_detail(n)) == {"ok": True, "n": n, "item": json.loads(json.dumps(it))}
    assert out["trace"] is None and json.loads(web.trace_json()) == json.loads(json.dumps(trace_events(full_run)))
    assert json.loads(web.step_detail(len(full["items"]) + 1))["ok"] is False
    assert json.loads(web.step_detail("x"))["ok"] is False


def test_the_language_switch_keeps_the_log_and_words_it_again(long_runs):
    out = json.loads(web.run("{}", lang="vi"))
    full = run_lab(lang="en")
    for _ in range(2):                                    # the kept log; then (a restarted worker) the run again
        again = json.loads(web.render(json.dumps(out["report"]), "en"))
        assert again["report"]["lang"] == "en" and again["report"]["steps"]["narration"] == "on_request"
        assert json.loads(web.step_detail(3))["item"]["text"] == full.steps["items"][2]["text"]
        assert again["report"]["blocks"] == json.loads(json.dumps(full.to_dict()["blocks"]))
        web.release()


def test_a_new_run_releases_the_kept_log(long_runs):
    web.run("{}")
    assert web._kept is not None
    json.loads(web.run('{"SLOTS": 0}'))                   # refused before running: still nothing kept
    assert web._kept is None


def test_json_of_a_short_run_is_what_it_was():
    from inference_lab.entrypoints.cli import json_text
    assert json_text(run_lab(narrate=False)) == run_lab().to_json(indent=1)


def test_json_of_a_long_run_is_compact_and_holds_the_whole_log(long_runs):
    from inference_lab.entrypoints.cli import json_text
    full = run_lab()
    d = json.loads(json_text(run_lab(narrate=False)))
    assert d["form"] == "compact" and d["steps"]["form"] == "columns" and "items" not in d["steps"]
    assert "kv_waits" in d["blocks"][2]["data"] and "kv_waits" not in d["blocks"][5]["data"]
    columns, events = d["steps"]["columns"], d["steps"]["events"]
    items = full.steps["items"]
    for n, it in enumerate(items, 1):                      # every step's record back from the columns
        back = {}
        for key, column in columns.items():
            value = ({sub: values[n - 1] for sub, values in column.items()} if isinstance(column, dict)
                     else column[n - 1])
            if key in it or value is not None:
                back[key] = value
        assert back == json.loads(json.dumps({k: v for k, v in it.items() if k not in ("title", "text", "events")}))
    bare = lambda e: {k: v for k, v in e.items() if k != "kind" and v is not None}   # noqa: E731
    want = {}
    for n, it in enumerate(items, 1):                      # each kind's events, in step order
        for e in it["events"]:
            want.setdefault(e["kind"], []).append((n, bare(e)))
    got = {kind: [(s, bare({f: v[i] for f, v in table.items() if f != "step"})) for i, s in enumerate(table["step"])]
           for kind, table in events.items()}
    assert got == {kind: [tuple(row) for row in rows] for kind, rows in json.loads(json.dumps(want)).items()}
    assert {k: v for k, v in d.items() if k not in ("form", "steps", "blocks")} == json.loads(json.dumps(
        {k: v for k, v in full.to_dict().items() if k not in ("steps", "blocks")}))
