"""The step record (steps.py), its narration (text_steps_vi.py) and `python -m inference_lab --steps`.

The record is the main run's (the one block [3] prints): one item per "bước N:" line of block [3],
its KV state conserves blocks at every step and matches the engine's own owner map, and the
default run's steps are checked by hand below (see block [3]'s lines in tests/golden/default.txt).
"""
from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings

from inference_lab import run
from inference_lab.entrypoints import cli
from inference_lab.core.inputs.config import DEFAULT_REQUESTS
from inference_lab.core.serving.run_log import EVENT_ORDER, expand_ranges, step_rows
from inference_lab.words.limits import STEP_LINES, run_facts, seed_identical
from helpers import configs

STEP_LINE = re.compile(r"^ *bước +\d+: ", re.M)


@pytest.fixture(scope="module")
def default():
    return run()


def block3_lines(report) -> list[str]:
    return STEP_LINE.findall(report.blocks[2].to_text())


def by_kind(item, kind) -> list[dict]:
    return [e for e in item["events"] if e["kind"] == kind]


def assert_kv_consistent(report):
    """Blocks conserved at every step: owned + free = POOL_BLOCKS, none twice; block [3]'s line per step agrees (its
    first STEP_LINES steps outside a seed-identical run)."""
    rec, steps, pool = report.steps, step_rows(report.steps), report.config["POOL_BLOCKS"]
    assert "steps" not in report.block(3).data and "steps" not in report.block(11).data   # the log is the one record
    seed = seed_identical(report.config,
                          run_facts({b.number: b.data for b in report.blocks}, report.follow, report.checks))
    shown = len(steps) if seed else min(len(steps), STEP_LINES)      # outside the seed's bytes a long list is cut
    assert rec["count"] == len(rec["items"]) == len(steps) and len(block3_lines(report)) == shown
    for n, (it, st) in enumerate(zip(rec["items"], steps), 1):
        owned = [b for t in it["tables"].values() for b in t]
        free = expand_ranges(it["free"])
        assert len(owned) == len(set(owned)), f"step {n}: a block has two owners"
        assert not set(owned) & set(free), f"step {n}: a block is both owned and free"
        assert sorted(owned + free) == list(range(pool)), f"step {n}: blocks not conserved"
        assert len(owned) == st["kv_used"]
        assert it["decodes_first"] is True                     # the seed's plan_tasks: decodes, then prompt chunks
        assert it["tasks"] == st["tasks"] and (it["start"], it["end"]) == (st["start"], st["end"])
        assert (len(it["waiting"]), len(it["running"])) == (st["waiting"], st["running"])   # a wait_kv newcomer waits
        sent_back = {e["id"] for e in by_kind(it, "wait_kv")}
        assert sent_back <= {x[0] for x in it["waiting"] if x[1] == "no_kv"}
        assert not sent_back & {r[0] for r in it["running"]}
        assert it["budget"][0] == st["decode"] + st["prefill"] <= (it["budget"][1] or 10**9)
        assert it["text"][0].startswith(f"Bước {n}/{rec['count']} ")


def test_the_record_names_the_kinds_that_make_a_step_worth_stopping_at(default):
    """report.steps.landmarks: the page's step navigator (PageUp / PageDown, its ticks) reads them, never its
    own list."""
    kinds = default.steps["landmarks"]
    assert {"arrive", "abort", "admit", "overtake", "cache_hit", "wait_kv", "preempt", "first", "finish"} == set(kinds)
    assert not {"budget", "chunk", "evict", "rollback"} & set(kinds)     # what happens in most steps stands out not
    assert set(kinds) <= set(EVENT_ORDER)


# ── the default run, by hand ──────────────────────────────────────────────
def test_default_run_has_one_item_per_block3_line(default):
    assert default.steps["count"] == 12 == len(block3_lines(default))
    assert_kv_consistent(default)


def test_default_step_1(default):
    it = default.steps["items"][0]
    assert (it["start"], it["end"]) == (500, 3400)
    assert it["running"] == [["A", "prefill", 0, 6, 0, 0]]
    assert it["waiting"] == [["B", "preparing", 0]]            # B is ready at 0.75 ms, the step starts at 0.50
    assert it["tasks"] == [["A", "prefill", 6]] and it["budget"] == [6, 6]
    assert it["tables"] == {"A": [0, 1]} and it["alloc"] == [0, 1] and it["free"] == [[2, 11]]
    codes = {e["id"]: e["code"] for e in by_kind(it, "arrive")}
    assert codes == {"A": "OK", "B": "OK", "E": "400"}
    assert by_kind(it, "first") == [dict(kind="first", id="A", time=3400)]
    text = "\n".join(it["text"])
    assert "Chờ vì còn chuẩn bị đầu vào: B (sẵn sàng lúc 0.75 ms)." in text
    assert "E (đến 0.50 ms) qua cổng nhưng bị TỪ CHỐI 400" in text and "MAX_CONTEXT 24" in text


def test_default_steps_2_to_7_keep_c_waiting_for_a_slot(default):
    items = default.steps["items"]
    d = by_kind(items[1], "arrive")
    assert [(e["id"], e["code"]) for e in d] == [("C", "OK"), ("D", "429")]
    assert d[1]["decisions"][0]["reason"] == "capacity"
    assert "D (đến 1.50 ms) bị TỪ CHỐI 429" in "\n".join(items[1]["text"])
    for it in items[1:7]:
        assert it["waiting"] == [["C", "no_slot", 0]]
        assert [r[0] for r in it["running"]] == ["A", "B"]
        assert "Chờ vì hết chỗ chạy (2/2 chỗ đang bận): C." in it["text"]
    assert by_kind(items[1], "budget") == [dict(kind="budget", id="B", got=5, left=11, cap=6)]
    assert by_kind(items[6], "finish") == [dict(kind="finish", id="B", reason="eos", n=4, blocks=[2, 3, 4, 6])]
    assert items[6]["freed"] == [2, 3, 4, 6] and items[6]["free"] == [[2, 4], [6, 11]]


def test_default_step_8_c_starts_prefill(default):
    it = default.steps["items"][7]
    assert it["title"] == "C bắt đầu prefill 5 token"
    assert by_kind(it, "admit") == [dict(kind="admit", id="C", why="free_slot", room=1)]
    assert it["waiting"] == [] and it["running"] == [["A", "decode", 6, 6, 7, 0], ["C", "prefill", 0, 9, 0, 0]]
    assert it["tasks"] == [["A", "decode", 1], ["C", "prefill", 5]] and it["budget"] == [6, 6]
    assert by_kind(it, "budget") == [dict(kind="budget", id="C", got=5, left=9, cap=6)]
    assert it["tables"] == {"A": [0, 1, 5, 2], "C": [3, 4]} and it["alloc"] == [2, 3, 4]
    assert it["text"][:2] == ["Bước 8/12 (16.20 ms -> 19.80 ms): C bắt đầu prefill 5 token",
                              "C vào chạy: lúc xét còn 1/2 chỗ trống."]
    assert "Ngân sách 6 token: decode trước: A 1; còn 5 cho prompt: C 5 -> dùng 6/6, còn 0." in it["text"]
    assert it["text"][-1] == "KV sau bước: A→[0, 1, 5, 2]; C→[3, 4]. Vừa cấp [2, 3, 4]. Trống 6/12: 6–11."


def test_default_last_step_returns_every_block(default):
    it = default.steps["items"][-1]
    assert it["tables"] == {} and it["free"] == [[0, 11]] and it["freed"] == [3, 4, 6]
    assert default.steps["after"] == []


# ── preemption, refusals, 12 requests, a long run ──────────────────────────
def test_preemption_is_narrated_with_victim_and_recompute():
    r = run(dict(SLOTS=3, POOL_BLOCKS=8))                      # exercise 5: C preempted in step 6
    assert_kv_consistent(r)
    it = r.steps["items"][5]
    [p] = by_kind(it, "preempt")
    assert p == dict(kind="preempt", id="C", blocks=[6, 7], generated=0, recompute=9, needed_by="B", need=1, free=0,
                     dropped=1)
    assert it["freed"] == [6, 7] and 6 in it["alloc"] and it["tables"]["B"] == [2, 3, 4, 6]
    assert it["title"] == "preempt C"
    assert ("PREEMPT: B cần 1 block KV mới nhưng bể chỉ còn 0/8 block trống -> preempt C (chuỗi vào chạy gần nhất): "
            "trả block [6, 7], quay lại đầu hàng đợi; khi chạy lại phải prefill lại 9 token (prompt + 0 token đã "
            "sinh). "
            "Phần việc 1 token của C ở bước này không chạy.") in it["text"]
    nxt = r.steps["items"][6]
    assert nxt["running"][2] == ["C", "prefill", 0, 9, 0, 1]
    assert "C bắt đầu prefill lại 4 token (prompt 4/9)." in nxt["text"]
    steps = r.blocks[2].data["preemptions"]
    assert len(steps) == sum(len(by_kind(it, "preempt")) for it in r.steps["items"])


def test_newcomer_without_blocks_waits_instead_of_preempting():
    """Issue 21: at step 6 C, admitted again after its preemption, finds no free block for its chunk: it waits
    for KV blocks (vLLM: a waiting request never causes a preemption) instead of preempting itself. D, admitted
    at step 8 with no token budget left (the seed's rule), is a running request at step 9: it preempts itself."""
    r = run(dict(SLOTS=3, POOL_BLOCKS=7))
    assert_kv_consistent(r)
    s6 = r.steps["items"][5]
    assert [(e["id"], e["why"], e["need"], e["free"]) for e in by_kind(s6, "wait_kv")] == [("C", "short", 1, 0)]
    assert by_kind(s6, "preempt") == [] and "C chờ block KV" in s6["title"]
    assert "CHỜ BLOCK KV: C vừa vào chạy nhưng đoạn prompt của nó cần 1 block KV mới" in "\n".join(s6["text"])
    assert [(e["id"], e["needed_by"]) for it in r.steps["items"] for e in by_kind(it, "preempt")] == [("C", "C"),
                                                                                                      ("D", "D")]
    assert "D là chuỗi vào chạy gần nhất nên chính nó bị preempt: chưa giữ block nào" in r.steps_text()


def test_refused_followed_request_run():
    r = run(dict(FOLLOW="D"))                                  # D is refused 429 at step 2
    assert_kv_consistent(r)
    assert r.steps["count"] == 12
    assert "D bị từ chối 429" in r.steps["items"][1]["title"]


def test_nobody_served_has_no_steps_but_says_why():
    r = run(dict(REQUESTS=[dict(DEFAULT_REQUESTS[0], max_new=30)], FOLLOW="A"))
    assert r.steps["count"] == 0 and r.steps["items"] == []
    assert [e["code"] for e in r.steps["after"]] == ["400"]
    assert r.steps_text().startswith("Không có bước nào (không yêu cầu nào được chạy):\nCổng: A (đến 0.00 ms) qua cổng")


def test_late_refusal_after_the_last_step():
    reqs = [dict(r) for r in DEFAULT_REQUESTS] + [dict(DEFAULT_REQUESTS[0], id="Z", arrival=90_000, max_new=30)]
    r = run(dict(REQUESTS=reqs, QUEUE_LIMIT=3))
    assert [(e["id"], e["code"]) for e in r.steps["after"]] == [("Z", "400")]
    assert f"Sau bước {r.steps['count']}:\nCổng: Z (đến 90.00 ms)" in r.steps_text()


def test_twelve_requests():
    texts = ["xin chao model", "model hoc token", "xin chao ban", "ban hoc model"]
    reqs = [dict(DEFAULT_REQUESTS[0], id=f"R{i}", arrival=300 * i, text=texts[i % 4], max_new=4) for i in range(12)]
    r = run(dict(REQUESTS=reqs, FOLLOW="R0", SLOTS=3, QUEUE_LIMIT=4, POOL_BLOCKS=9))
    assert_kv_consistent(r)
    arrived = [e["id"] for it in r.steps["items"] for e in by_kind(it, "arrive")] + [e["id"] for e in r.steps["after"]]
    assert sorted(arrived) == sorted(q["id"] for q in reqs)
    served = {s["id"] for s in r.blocks[7].data["stops"]}
    assert sorted(e["id"] for it in r.steps["items"] for e in by_kind(it, "finish")) == sorted(served)
    assert sorted(e["id"] for it in r.steps["items"] for e in by_kind(it, "first")) == sorted(served)


def long_run_config() -> dict:
    """1,422 steps: one token per step (TOKEN_BUDGET 1), one block per token (BLOCK_SIZE 1), 12 requests × 110
    tokens."""
    texts = ["xin chao model", "model hoc token", "xin chao ban", "ban hoc model", "xin chao token", "ban hoc token"]
    reqs = [dict(id=chr(65 + i), arrival=100 * i, text=texts[i % 6], max_new=110, temperature=0.0, top_k=0, top_p=1.0,
                 seed=i + 1) for i in range(12)]
    return dict(REQUESTS=reqs, FOLLOW="A", SLOTS=2, QUEUE_LIMIT=16, SEED=4, TOKEN_BUDGET=1, BLOCK_SIZE=1,
                POOL_BLOCKS=1024, MAX_CONTEXT=128)


def test_thousand_step_run_stays_small():
    r = run(long_run_config())
    assert r.steps["count"] == 1422 == len(block3_lines(r))
    assert_kv_consistent(r)
    size = len(json.dumps(r.to_dict()["steps"], ensure_ascii=False).encode())
    # ≈ 1.4 kB per step, tables and the ~85-byte `cost` included
    assert size < 2_150_000, f"{size} bytes"
    assert r.steps["items"][-1]["text"][0].startswith("Bước 1422/1422 ")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_random_configs_record_consistent_steps(values):
    r = run(values)
    assert_kv_consistent(r)
    items = r.steps["items"]
    served = {s["id"] for s in r.blocks[7].data["stops"]}
    assert sorted(e["id"] for it in items for e in by_kind(it, "finish")) == sorted(served)
    assert len(r.blocks[2].data["preemptions"]) == sum(len(by_kind(it, "preempt")) for it in items)


# ── the command line ───────────────────────────────────────────────────────
def test_cli_steps_prints_one_block_per_step(capsys):
    assert cli.main(["--steps"]) == 0
    out = capsys.readouterr().out
    blocks = out.rstrip("\n").split("\n\n")
    assert [b.split(" ", 2)[:2] for b in blocks] == [["Bước", f"{n}/12"] for n in range(1, 13)]
    assert "[3 · Iteration scheduler]" not in out


def test_cli_steps_with_preemption(capsys):
    assert cli.main(["--steps", "--slots", "3", "--pool-blocks", "8"]) == 0
    out = capsys.readouterr().out
    assert len(re.findall(r"^Bước \d+/15 ", out, re.M)) == 15
    assert "PREEMPT: B cần 1 block KV mới" in out and "prefill lại 9 token" in out


def test_default_output_unchanged_without_steps(capsys, default):
    assert cli.main([]) == 0
    assert capsys.readouterr().out == default.to_text()


# ── the vLLM behaviours (PREFIX_CACHE, cancel_at, SCHED_POLICY=priority) in the record ──
PREFIX_RUN = {"QUEUE_LIMIT": 2, "PREFIX_CACHE": "on", "FOLLOW": "D"}     # exercise 17


def prio_trace(**priority) -> list[dict]:
    return [dict(r, priority=priority[r["id"]]) if r["id"] in priority else dict(r) for r in DEFAULT_REQUESTS]


def assert_blocks_conserved(report):
    """With the prefix cache a full block can sit in several tables; it is still never both owned and free."""
    rec, pool = report.steps, report.config["POOL_BLOCKS"]
    for n, it in enumerate(rec["items"], 1):
        owned, free = {b for t in it["tables"].values() for b in t}, expand_ranges(it["free"])
        assert len(free) == len(set(free)) and not owned & set(free), f"step {n}"
        assert sorted(owned | set(free)) == list(range(pool)), f"step {n}"
        assert set(expand_ranges(it["cached_free"])) <= set(free), f"step {n}"


def test_prefix_cache_hit_step():
    r = run(PREFIX_RUN)
    assert r.config["PREFIX_CACHE"] == "on" and r.config["SCHED_POLICY"] == "fcfs"
    it = r.steps["items"][10]                                  # step 11: D admitted, A's block 0 is still cached
    assert by_kind(it, "cache_hit") == [dict(kind="cache_hit", id="D", tokens=4, blocks=[0], recompute=False)]
    assert it["running"][1] == ["D", "prefill", 4, 10, 0, 0]
    [chunk] = by_kind(it, "chunk")
    assert chunk["first"] and (chunk["n"], chunk["done"]) == (5, 9)    # its first chunk starts after the cached 4
    assert it["reused"] == [0] and it["alloc"] == [6, 11] and it["tables"]["D"] == [0, 11, 6]
    assert it["cached_free"] == [[1, 5]]
    assert it["title"] == "D lấy 4 token từ prefix cache, D bắt đầu prefill 5 token"
    assert ("Prefix cache: D lấy lại block [0] (block đầy cùng hash của một prompt trước): 4 token đầu của prompt "
            "đã có K/V, không tính lại, chỉ phải prefill 6/10 token còn lại.") in it["text"]
    assert "Lấy lại từ prefix cache [0]." in it["text"][-1]
    assert sum(len(by_kind(i, "cache_hit")) for i in r.steps["items"]) == 1
    assert_blocks_conserved(r)


def test_shared_block_step():
    r = run(dict(PREFIX_RUN, SLOTS=3))
    it = r.steps["items"][7]                                   # step 8: A still runs and D shares its block 0
    assert it["tables"] == {"A": [0, 1, 5, 10], "C": [6, 7, 9], "D": [0, 11]}
    assert it["reused"] == [0] and it["alloc"] == [10, 11]
    assert "Dùng chung: 0 (A, D)." in it["text"][-1]
    assert_blocks_conserved(r)


def test_cancelled_running_request_step():
    reqs = [dict(r, cancel_at=8000) if r["id"] == "A" else dict(r) for r in DEFAULT_REQUESTS]
    r = run({"REQUESTS": reqs})                                # exercise 18
    it = r.steps["items"][3]
    assert by_kind(it, "abort") == [dict(kind="abort", id="A", time=10600, cancel_at=8000, stage="running",
                                         blocks=[0, 1], generated=3)]
    assert it["freed"] == [0, 1] and it["title"].startswith("A bị hủy")
    assert ('HỦY: client của A hủy lúc 8.00 ms -> engine bỏ A ở ranh giới bước lúc 10.60 ms (đang chạy, đã sinh '
            '3 token, trả block [0, 1]); trạng thái "aborted", không chạy tiếp (như finish_requests của '
            'vLLM).') in it["text"]
    finished = [e["id"] for i in r.steps["items"] for e in by_kind(i, "finish")]
    assert "A" not in finished and sorted(finished) == ["B", "C"]
    assert_kv_consistent(r)


def test_cancelled_waiting_request_and_a_cancel_after_the_last_step():
    late = dict(id="F", arrival=100_000, text="xin chao", max_new=2, temperature=0.0, top_k=0, top_p=1.0, seed=6,
                cancel_at=100_001)                             # cancelled while its input is still being prepared
    reqs = [dict(r, cancel_at=5000) if r["id"] == "C" else dict(r) for r in DEFAULT_REQUESTS] + [late]
    r = run({"REQUESTS": reqs})
    [(n, e)] = [(n, e) for n, i in enumerate(r.steps["items"], 1) for e in by_kind(i, "abort")]
    assert n == 3 and e == dict(kind="abort", id="C", time=7000, cancel_at=5000, stage="waiting", blocks=[],
                                generated=0)
    assert [e["kind"] for e in r.steps["after"]] == ["arrive", "abort"]
    assert r.steps["after_text"][-1].startswith("HỦY: client của F hủy lúc 100.00 ms")
    assert "chưa sinh token nào, chưa giữ block nào" in r.steps["after_text"][-1]
    assert_kv_consistent(r)


def test_priority_victim_and_overtake_steps():
    r = run({"SLOTS": 3, "POOL_BLOCKS": 7, "QUEUE_LIMIT": 2, "SCHED_POLICY": "priority", "REQUESTS": prio_trace(A=5)})
    assert r.steps["priority_key"] == {"A": [5, 0], "B": [0, 0], "E": [0, 500], "C": [0, 1000], "D": [0, 1500]}
    s5, s6 = r.steps["items"][4], r.steps["items"][5]
    [p] = by_kind(s5, "preempt")
    assert (p["id"], p["needed_by"], p["blocks"]) == ("A", "C", [0, 1, 5])
    assert ("PREEMPT: C cần 1 block KV mới nhưng bể chỉ còn 0/7 block trống -> preempt A: nó có (priority, lúc đến) "
            "= (5, 0.00 ms) lớn nhất trong các chuỗi đang chạy (SCHED_POLICY=priority)") in "\n".join(s5["text"])
    assert by_kind(s6, "overtake") == [dict(kind="overtake", id="D", priority=0,
                                            overtaken=[dict(id="A", priority=5, arrival=0)])]
    assert "D (priority 0) vào chạy trước A (priority 5, đến 0.00 ms) dù sẵn sàng sau" in "\n".join(s6["text"])
    assert "Hàng đợi (theo thứ tự; vào chạy theo priority rồi lúc đến): A (priority 5)." in s6["text"]
    assert_kv_consistent(r)


def test_fcfs_record_has_no_priority_key(default):
    assert default.config["SCHED_POLICY"] == "fcfs" and default.steps["priority_key"] == {}
    assert default.config["PREFIX_CACHE"] == "off"
    assert all(it["reused"] == [] and it["cached_free"] == [] for it in default.steps["items"])
