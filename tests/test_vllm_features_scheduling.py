"""Cancellation and priority scheduling, hand-checkable on the seed's trace. The three vLLM behaviours the seed
leaves out: automatic prefix caching, cancellation, priority scheduling.
The seed's trace: A "xin chao model", D "xin chao token" and E "xin chao ban" share the prompt prefix
<bos> xin</w> c ha o</w> = ids [0, 21, 5, 9, 18]: one full block of BLOCK_SIZE 4. With the defaults every
byte stays the seed's (tests/test_golden.py checks all goldens).
Leaves out: prefix caching (test_vllm_features_prefix_cache.py), random traces
(test_vllm_features_properties.py), the schema and command line (test_vllm_features_schema_cli.py)."""
from __future__ import annotations

from inference_lab import run
from inference_lab.core.inputs.config import DEFAULT_REQUESTS
from inference_lab.entrypoints.lab import bare_record
from vllm_helpers import block, trace


# ── cancellation ───────────────────────────────────────────────────────────


def test_abort_while_waiting_and_while_running():
    plain = run({"QUEUE_LIMIT": 2})
    r = run({"QUEUE_LIMIT": 2, "REQUESTS": trace(cancel_at={"A": 8000, "D": 2000})})
    assert r.passed
    b1 = block(r, 1).data
    assert (b1["offered"], b1["served"], b1["n_400"], b1["n_429"], b1["n_aborted"]) == (5, 2, 1, 0, 2)
    assert [(a["request"], a["time"], a["stage"], a["blocks"], a["generated"]) for a in b1["aborts"]] == [
        ("D", 3400, "waiting", [], 0), ("A", 10600, "running", [0, 1], 3)]
    text = r.to_text()
    assert "Đối chiếu: offered = served + rejected + aborted -> 5 = 2 + 1 + 2 -> True." in text
    assert "A: bị HỦY lúc 10.60 ms (client hủy lúc 8.00 ms) sau 3/10 token -> 'lll'" in text
    assert "D: bị hủy lúc 3.40 ms trước token đầu -> không có TTFT" in text
    status = {x["id"]: x["status"] for x in block(r, 11).data["requests"]}
    assert status == {"B": "finished", "C": "finished", "A": "aborted", "D": "aborted"}
    d = next(x for x in block(r, 11).data["requests"] if x["id"] == "D")
    assert d["first"] is None and d["ttft"] is None
    a_plain = next(s["text"] for s in block(plain, 8).data["stops"] if s["id"] == "A")
    assert a_plain.startswith("lll") and block(r, 8).data["aborted"][0]["text"] == "lll"
    assert ("Xác thực không được mô phỏng; không có router (một engine); "
            "hủy yêu cầu được mô phỏng theo cột cancel_at.") in text


def test_followed_request_aborted_still_prints_every_block():
    r = run({"REQUESTS": trace(cancel_at={"C": 18000})})
    text = r.to_text()
    assert r.passed and all(f"[{i} · " in text for i in range(1, 14))
    assert "Yêu cầu theo dõi C bị HỦY lúc" in text
    assert r.follow["code"] == "aborted" and not r.follow["served"]


def test_cancel_before_ready_needs_no_running_step():
    r = run({"FOLLOW": "A", "REQUESTS": [dict(DEFAULT_REQUESTS[0], cancel_at=100)]})
    b1 = block(r, 1).data
    assert r.passed and b1["n_aborted"] == 1 and b1["aborts"][0]["time"] == 100 and not r.steps["items"]


def test_abort_while_recomputing_after_a_preemption():
    """B is preempted at step 5 (3 tokens generated) and cancelled at step 7 while it prefills again:
    its rows from before the preemption are past its history then, the check must not read them."""
    reqs = [dict(id="A", arrival=0, text="xin", max_new=6, temperature=0.0, top_k=0, top_p=0.5, seed=0),
            dict(id="B", arrival=0, text="xin xin xin", max_new=4, temperature=0.0, top_k=0, top_p=0.5, seed=0,
                 cancel_at=8301)]
    r = run({"REQUESTS": reqs, "FOLLOW": "A", "BLOCK_SIZE": 1})
    assert [(p["step"], p["request"], p["generated"]) for p in block(r, 3).data["preemptions"]] == [(5, "B", 3)]
    [a] = block(r, 1).data["aborts"]
    assert (a["step"], a["request"], a["stage"], a["generated"]) == (7, "B", "running", 3)
    assert r.passed


# ── priority scheduling ────────────────────────────────────────────────────
def test_priority_orders_waiting_by_priority_then_arrival():
    reqs = trace(priority={"A": 1, "B": 1, "E": 1, "C": 0, "D": 0})
    r = run({"QUEUE_LIMIT": 2, "SCHED_POLICY": "priority", "REQUESTS": reqs})
    steps = r.steps["items"]
    first_step = {}
    for i, st_ in enumerate(steps):
        for rid, _, _ in st_["tasks"]:
            first_step.setdefault(rid, i + 1)
    assert [rid for rid, _ in sorted(first_step.items(), key=lambda x: x[1])] == ["A", "C", "D", "B"]
    assert [(o["request"], [x["id"] for x in o["overtaken"]]) for o in block(r, 3).data["overtakes"]] == [
        ("C", ["B"]), ("D", ["B"])]
    assert "C (priority 0) được vào chạy trước B (priority 1, đến 0.00 ms) dù đến sau" in r.to_text()
    # fcfs ignores the column: the same steps as without it
    fcfs = run({"QUEUE_LIMIT": 2, "REQUESTS": reqs})
    assert bare_record(fcfs.steps)["items"] == bare_record(run({"QUEUE_LIMIT": 2}).steps)["items"]


def test_priority_victim_is_the_largest_priority_arrival():
    base = {"SLOTS": 3, "POOL_BLOCKS": 7, "QUEUE_LIMIT": 2, "REQUESTS": trace(priority={"A": 5})}
    fcfs = run(base)
    prio = run(dict(base, SCHED_POLICY="priority"))
    assert [p["request"] for p in block(fcfs, 3).data["preemptions"]][:1] == ["C"]      # most recently admitted
    assert [p["request"] for p in block(prio, 3).data["preemptions"]][:1] == ["A"]      # priority 5 is the largest
    assert prio.passed and "A (priority 5, đến 0.00 ms: (priority, giờ đến) lớn nhất" in prio.to_text()
    def same(r):
        return {s["id"]: s["text"] for s in block(r, 8).data["stops"]}
    # scheduling never changes tokens
    assert same(prio) == same(fcfs)


def test_sched_policy_priority_without_priorities_keeps_the_fcfs_schedule():
    a, b = run(), run({"SCHED_POLICY": "priority"})        # b is not the seed's: its wait line is the lab's own
    steps = lambda r: [(it["start"], it["end"], it["tasks"]) for it in r.steps["items"]]      # noqa: E731
    assert block(a, 3).data == block(b, 3).data and steps(a) == steps(b)
