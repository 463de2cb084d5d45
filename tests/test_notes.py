"""Notes beside the seed's lines (words/text_notes.py, issue 27 §1): every sentence true for the run it sits in.

For each case, the configuration where the seed's (or the lab's) line is false is run and the true sentence or
the note is asserted, in both languages; the seed's line itself stays (stdout byte for byte the seed's):
- the notes are in report.notes and in --json, never in stdout; the CLI prints them on stderr after the block
- the default run: stdout unchanged, the notes that hold for it (heads, pool limits, cancellation, ITL, batch
  invariance, the mixed step, vLLM's names) and none that does not (counts, budget wait)
- a 4-request trace: "5 yêu cầu" noted; 4 served (SLOTS=3): "cả 3 yêu cầu" noted in blocks 5, 7, 11, 12
- SLOTS=3 (exercise 01): C's wait called "chờ chỗ chạy" is a wait for the token budget
- PREFIX_CACHE=on / preemption / cancel_at: the lab's own lines are true, so the seed-line notes are gone
- the lab's own fixed sentences: English CONFIG plural, block 6's preemption limitation, one term for the queue
- page text: no "sáu bài", no "bài thứ bảy", no "cell L2·1"
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import seed_program
from make_golden import run_cli
from inference_lab.entrypoints.lab import run
from inference_lab.words import text_en, text_steps_vi, text_vi

ROOT = Path(__file__).resolve().parent.parent
LANGS = ("vi", "en")
TRACE4 = [dict(id=i, arrival=a, text=t, max_new=5, temperature=0.0, top_k=0, top_p=1.0, seed=s)
          for i, a, t, s in (("A", 0, "xin chao model", 1), ("B", 0, "model hoc token", 2),
                             ("C", 1000, "ban hoc model", 3), ("D", 1500, "xin chao token", 4))]


def notes(cfg=None, lang="vi") -> dict:
    return run(cfg or {}, lang=lang).notes


def said(table, key, **fields) -> str:
    """The note as printed: the language's mark + the template (fields filled)."""
    return table.WORDS("note.mark") + table.WORDS(key, **fields)


TABLES = {"vi": text_vi, "en": text_en}


@pytest.mark.parametrize("lang", LANGS)
def test_default_run_notes(lang):
    t, n = TABLES[lang], notes(lang=lang)
    assert said(t, "note.heads") in n["5"]
    assert said(t, "note.pool_limits") in n["6"]
    assert said(t, "note.cancel") in n["header"] and said(t, "note.diagram") in n["header"]
    assert said(t, "note.vllm_config") in n["header"] and said(t, "note.vllm_memory") in n["10"]
    assert said(t, "note.vllm_metrics") in n["11"]
    assert said(t, "note.itl") in n["12"] and said(t, "note.batch_invariance") in n["12"]
    assert said(t, "note.batch_invariance") in n["summary"]
    assert said(t, "note.mixed_step", steps="2, 3, 4, 8, 9", pre=500, dec=1000) in n["12"]
    # 3 served: the seed's "3" holds
    assert not [x for v in n.values() for x in v if x == said(t, "note.served_count", n=3)]
    assert "3" not in n and "7" not in n                                        # C waited for a slot; no count note


def test_default_stdout_is_the_seed_and_notes_go_to_stderr():
    proc = run_cli([])
    assert proc.stdout == seed_program.GOLDEN.read_text(encoding="utf-8")
    assert "Ghi chú: " not in proc.stdout
    assert said(text_vi, "note.heads") in proc.stderr and said(text_vi, "note.pool_limits") in proc.stderr
    assert proc.stderr.index(said(text_vi, "note.heads")) < proc.stderr.index(said(text_vi, "note.pool_limits"))


def test_json_carries_the_notes():
    d = json.loads(run_cli(["--json", "--lang", "en"]).stdout)
    assert said(text_en, "note.heads") in d["notes"]["5"]


@pytest.mark.parametrize("lang", LANGS)
def test_four_request_trace_notes_the_fixed_counts(lang, tmp_path):
    t = TABLES[lang]
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(TRACE4), encoding="utf-8")
    proc = run_cli(["--requests", str(path), "--queue-limit", "2", "--lang", lang])
    assert said(t, "note.request_count", n=4) in proc.stderr
    n = notes({"REQUESTS": TRACE4, "QUEUE_LIMIT": 2}, lang)
    assert said(t, "note.request_count", n=4) in n["header"]
    for part in ("5", "7", "11", "12"):
        assert said(t, "note.served_count", n=4) in n[part], part


@pytest.mark.parametrize("lang", LANGS)
def test_slots_3_wait_is_a_budget_wait(lang):
    """Exercise 01: with SLOTS=3, C holds a slot in steps 2 and 3 but gets no token: it waits for the token budget."""
    t = TABLES[lang]
    n = notes({"SLOTS": 3}, lang)
    wait = said(t, "note.wait_budget", who=t.WORDS("note.wait_steps", id="C", steps="2, 3"))
    assert wait in n["3"] and wait in n["summary"]
    opening = said(t, "note.wait_budget", who="\0").split("\0")[0]
    assert any(x.startswith(opening) and t.WORDS("note.wait_steps", id="C", steps="2, 3") in x for x in n["11"])
    assert said(t, "note.served_count", n=4) in n["11"]


@pytest.mark.parametrize("lang", LANGS)
def test_lab_only_runs_drop_the_seed_line_notes(lang):
    """Runs the seed cannot run (PREFIX_CACHE=on) or where it crashes (POOL_BLOCKS=6: "Hết block KV") have no notes:
    their blocks say the facts themselves."""
    t = TABLES[lang]
    assert notes({"PREFIX_CACHE": "on"}, lang) == {}
    pre = run({"POOL_BLOCKS": 6}, lang=lang)
    assert pre.block(6).data["any_preemption"] and pre.notes == {}
    assert t.SAY["b6.recompute"] in pre.block(6).lines and t.SAY["b6.limitation_preempt"] in pre.block(6).lines


@pytest.mark.parametrize("lang", LANGS)
def test_runs_outside_the_seed_say_each_notes_fact_in_its_block(lang):
    """CLOCK = roofline with SLOTS = 3: every note of the default run is a sentence of its block, and C's wait for the
    token budget is named in blocks [3] and [11] (the note.wait_budget of exercise 01's seed run)."""
    t = TABLES[lang]
    r = run({"CLOCK": "roofline", "SLOTS": 3}, lang=lang)
    assert r.notes == {}
    assert t.SAY["header.vllm_names"] in r.header and t.SAY["header.how_to_read_lab"] in r.header
    assert any(x.startswith(t.SAY["b5.how_to_read_lab"].split("{")[0]) for x in r.block(5).lines)
    assert t.SAY["b6.limitation_lab"] in r.block(6).lines and t.SAY["b10.vllm_memory"] in r.block(10).lines
    assert t.SAY["b11.vllm_metrics"] in r.block(11).lines and t.SAY["b12.batch_invariance"] in r.block(12).lines
    assert t.SAY["b12.legend_lab"] in r.block(12).lines
    steps = r.notes.get("3") or [t.WORDS("b3.why_budget", steps="2, 3")]
    assert any(steps[0] in x for x in r.block(3).lines), r.block(3).lines
    assert any(x.startswith(t.WORDS("b11.wait_budget", who="\0").split("\0")[0]) for x in r.block(11).lines)


def test_cancel_note_only_without_cancels():
    reqs = [dict(r) for r in run().config["REQUESTS"]]
    reqs[0]["cancel_at"] = 2000
    r = run({"REQUESTS": reqs})
    assert r.notes == {} and text_vi.WORDS("header.cancel_used") in r.header[-2]


def test_lab_own_sentences_are_true():
    assert "queue places" not in "".join(run({}, lang="en").header)
    assert any(line.startswith("CONFIG: 2 running slots + 1 waiting place;") for line in run({}, lang="en").header)
    assert "không mô phỏng prefix cache" not in text_vi.SAY["b6.limitation_preempt"]
    assert "no prefix caching" not in text_en.SAY["b6.limitation_preempt"]
    for table in (text_vi.SAY, text_steps_vi.SAY):
        assert not [k for k, v in table.items() if "hàng chờ" in v], ("one Vietnamese term for the request queue: "
                                                                      "hàng đợi")
    assert not [k for k, v in text_vi.SAY.items() if "hàng đợi block" in v or "hàng đợi trống" in v]
    assert not text_vi.SAY["b6.evicted"].startswith("Evict")


def test_page_text_counts_and_diagram():
    page = (ROOT / "index.html").read_text(encoding="utf-8")
    for wrong in ("sáu bài", "có sáu", "L2·1", "hàng chờ"):
        assert wrong not in page, wrong
    assert "bài thứ bảy" not in (ROOT / "exercises" / "README.md").read_text(encoding="utf-8")


def test_vllm_names_in_the_guide_in_both_languages():
    page = (ROOT / "index.html").read_text(encoding="utf-8")
    for name in ("max_num_seqs", "max_num_batched_tokens", "--block-size", "gpu_memory_utilization", "num_gpu_blocks",
                 "vllm:num_requests_waiting", "kv_cache_usage_perc", "num_preemptions", "ITL"):
        assert page.count(name) >= 2, name                      # the vi and the en paragraph
        for table in (text_vi.SAY, text_en.SAY):
            assert any(name in v for k, v in table.items() if k.startswith("note.")), name
