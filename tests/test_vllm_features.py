"""The three vLLM behaviours the seed leaves out: automatic prefix caching, cancellation, priority scheduling.

Hand-checkable cases first (the seed's trace: A "xin chao model", D "xin chao token" and E "xin chao ban"
share the prompt prefix <bos> xin</w> c ha o</w> = ids [0, 21, 5, 9, 18]: one full block of BLOCK_SIZE 4),
then property tests (hypothesis) of the invariants over random traces and configs, then the schema and
the command line. With the defaults every byte stays the seed's (tests/test_golden.py checks all goldens).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from helpers import fake_kv, feed, seq
from inference_lab import run
from inference_lab.entrypoints import cli
from inference_lab.core.block_manager import BlockManager, hash_block
from inference_lab.core.config import DEFAULT_REQUESTS, FIELD_BY_NAME, describe, validate
from inference_lab.core.engine import run_engine
from inference_lab.entrypoints.lab import Lab, bare_record, render, tokenizer_for
from inference_lab.core.config import Config

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT.parent / "shared" / "golden" / "default.txt"
if not GOLDEN.exists():
    GOLDEN = ROOT / "tests" / "golden" / "default.txt"


def trace(**columns) -> list[dict]:
    """The seed's five requests with extra columns, e.g. trace(priority={"C": 0}, cancel_at={"A": 8000})."""
    reqs = [dict(r) for r in DEFAULT_REQUESTS]
    for name, per_id in columns.items():
        for r in reqs:
            if r["id"] in per_id:
                r[name] = per_id[r["id"]]
    return reqs


def block(report, n):
    return report.blocks[n - 1]


# ── prefix caching: hand-checkable ─────────────────────────────────────────
def test_shared_prefix_of_the_seed_trace_is_one_full_block():
    tok = tokenizer_for(10)
    a, d, e = (tok.encode(t)[1] for t in ("xin chao model", "xin chao token", "xin chao ban"))
    assert a[:5] == d[:5] == e[:5] == [0, 21, 5, 9, 18] and len({a[5], d[5], e[5]}) == 3
    # 5 shared tokens, BLOCK_SIZE 4: one FULL block [0, 21, 5, 9] can be shared, the 5th token cannot


def test_block_hash_chains_the_parent():
    h0 = hash_block(None, [0, 21, 5, 9])
    assert h0 == hash_block(None, [0, 21, 5, 9]) and len(h0) == 16
    assert hash_block(h0, [18, 14, 1, 1]) != hash_block(None, [18, 14, 1, 1])   # same tokens, other prefix


def test_lru_free_queue_by_hand():
    pool = BlockManager(num_blocks=5, block_size=2, enable_caching=True)
    a = seq("A", [0, 5, 6, 7, 8])
    feed(pool, a, 5)                                      # blocks 0 [0 5], 1 [6 7] full; 2 [8] partial
    assert a.block_table == [0, 1, 2] and pool.free == [3, 4]
    assert pool.block_hash[0] and pool.block_hash[1] and pool.block_hash[2] is None
    pool.release(a)
    assert pool.free == [3, 4, 2, 1, 0]                   # tail, reverse order; hashes kept
    assert pool.cached_free() == [1, 0]
    d = seq("D", [0, 5, 6, 7, 9, 9])                      # shares two full blocks with A
    assert pool.take_cached_prefix(d, d.prefill_ids) == 4
    assert d.block_table == [0, 1] and pool.ref_cnt[:2] == [1, 1] and pool.free == [3, 4, 2]
    e = seq("E", [0, 5, 1, 1, 1])
    assert pool.take_cached_prefix(e, e.prefill_ids) == 2 and pool.ref_cnt[0] == 2   # shared
    assert pool.shared_map() == {0: ["D", "E"]}
    feed(pool, e, 3)                                      # pops 3, then 4 (no hash: nothing evicted)
    assert e.block_table == [0, 3, 4] and pool.evictions == []
    f = seq("F", [7, 7, 7])
    feed(pool, f, 1)                                      # head is 2 (A's partial block, no hash)
    assert f.block_table == [2] and pool.evictions == []
    pool.release(d)                                       # block 0 still held by E
    assert pool.ref_cnt[0] == 1 and pool.free == [1]
    g = seq("G", [4, 4, 4])
    feed(pool, g, 1)                                      # head 1 holds A's second block: evicted
    assert [(b, h == hash_block(hash_block(None, [0, 5]), [6, 7])) for _, b, h in pool.evictions] == [(1, True)]
    pool.audit()
    assert pool.problems == []


def test_at_least_the_last_prompt_token_is_computed():
    pool = BlockManager(num_blocks=4, block_size=2, enable_caching=True)
    a = seq("A", [0, 5, 6, 7])
    feed(pool, a, 4)
    pool.release(a)
    again = seq("A2", [0, 5, 6, 7])                       # the same 4-token prompt: 2 full blocks cached
    assert pool.take_cached_prefix(again, again.prefill_ids) == 2     # only the first; [6 7] is recomputed


def test_queue_limit_2_lets_d_hit_a_s_block():
    off = run({"QUEUE_LIMIT": 2, "FOLLOW": "D"})
    on = run({"QUEUE_LIMIT": 2, "FOLLOW": "D", "PREFIX_CACHE": "on"})
    assert on.passed and off.passed
    b6 = block(on, 6).data
    assert b6["prefix_hits"] == {"A": 0, "B": 0, "C": 0, "D": 4}          # the JSON contract
    assert [(h["request"], h["blocks"], h["tokens"]) for h in b6["hits"]] == [("D", [0], 4)]
    assert block(off, 6).data["prefix_hits"] == {}
    text_on, text_off = on.to_text(), off.to_text()
    assert "Prefix cache: 4/10 token đầu của prompt D đã có trong cache" in text_on
    assert "Prompt D có 10 token: 4 token đầu lấy từ prefix cache (K/V đã có, không tính lại), 6 token còn lại -> các đoạn [5, 1]" in text_on
    assert "Trúng cache: D lấy 4 token (block [0]) ở bước 11." in text_on
    assert "D 28.30 ms thay vì 29.90 ms (tiết kiệm 1.60 ms, 4 token prompt lấy từ cache)" in text_on
    stops = lambda r: [(s["id"], s["text"]) for s in block(r, 8).data["stops"]]
    assert stops(on) == stops(off)                                       # same generated text
    saved = {r["id"]: r["saved"] for r in block(on, 11).data["ttft_saved"]}
    assert saved["D"] == 1600 and saved["A"] == 0
    assert "Prefix cache" not in text_off and "VLLM:" not in text_off


def test_running_sequences_share_a_block():
    r = run({"SLOTS": 3, "QUEUE_LIMIT": 2, "PREFIX_CACHE": "on"})
    b6 = block(r, 6).data
    assert r.passed and b6["shared_blocks"] == [0] and b6["max_shared"] == 2
    holders = [{b: [rid for rid, t in it["tables"].items() if b in t] for t in it["tables"].values() for b in t}
               for it in r.steps["items"]]
    shared_steps = [{b: ids for b, ids in h.items() if len(ids) > 1} for h in holders]
    shared_steps = [s for s in shared_steps if s]
    assert shared_steps and all(s == {0: ["A", "D"]} for s in shared_steps)
    assert "Block dùng chung (số tham chiếu > 1, nhiều chuỗi đang chạy cùng đọc): [0]" in r.to_text()


def test_preempted_recompute_hits_its_own_blocks():
    r = run({"SLOTS": 3, "POOL_BLOCKS": 7, "QUEUE_LIMIT": 2, "PREFIX_CACHE": "on"})
    hits = block(r, 6).data["hits"]
    assert r.passed
    assert dict(step=6, request="C", blocks=[6], tokens=4, recompute=True) in hits
    assert "C lấy 4 token (block [6]) ở bước 6 khi tính lại sau preempt" in r.to_text()


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
    assert "Router và xác thực không được mô phỏng; hủy yêu cầu được mô phỏng theo cột cancel_at." in text


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
    same = lambda r: {s["id"]: s["text"] for s in block(r, 8).data["stops"]}
    assert same(prio) == same(fcfs)                                                     # scheduling never changes tokens


def test_sched_policy_priority_without_priorities_keeps_the_fcfs_schedule():
    a, b = run(), run({"SCHED_POLICY": "priority"})
    assert block(a, 3).lines == block(b, 3).lines


# ── property tests: invariants over random traces and configs ──────────────
WORDS = ["xin", "chao", "model", "hoc", "token", "ban"]
request = st.fixed_dictionaries(dict(
    arrival=st.integers(0, 8_000),
    text=st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
    max_new=st.integers(1, 12),
    temperature=st.sampled_from([0.0, 0.8]),
    top_k=st.integers(0, 6),
    top_p=st.sampled_from([0.5, 1.0]),
    seed=st.integers(0, 1000),
), optional=dict(priority=st.integers(-3, 3), cancel_at=st.integers(0, 40_000)))


@st.composite
def configs(draw):
    reqs = draw(st.lists(request, min_size=1, max_size=6))
    for i, r in enumerate(reqs):
        r["id"] = "ABCDEFGH"[i]
    values = dict(REQUESTS=reqs, FOLLOW=draw(st.sampled_from([r["id"] for r in reqs])),
                  PREFIX_CACHE=draw(st.sampled_from(["off", "on"])), SCHED_POLICY=draw(st.sampled_from(["fcfs", "priority"])))
    for name, (lo, hi) in dict(SLOTS=(1, 4), QUEUE_LIMIT=(0, 4), TOKEN_BUDGET=(1, 12), BLOCK_SIZE=(1, 4),
                               POOL_BLOCKS=(2, 20), MAX_CONTEXT=(8, 40)).items():
        if draw(st.booleans()):
            values[name] = draw(st.integers(lo, hi))
    return values


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_random_configs_keep_every_invariant(values):
    r = run(values)
    failed = [(c.name, c.detail) for c in r.checks if not c.ok]
    assert not failed, failed                      # parity, gather (cached K/V), pool_invariants, blocks_returned...
    b1 = block(r, 1).data
    assert b1["offered"] == b1["served"] + b1["n_429"] + b1["n_400"] + b1["n_aborted"]
    for m in block(r, 11).data["requests"]:
        assert m["status"] in ("finished", "aborted")
        assert (m["ttft"] is None) == (m["first"] is None)
    json.dumps(r.to_dict())


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(configs())
def test_prefix_cache_never_changes_the_generated_text(values):
    values = {k: v for k, v in values.items() if k != "PREFIX_CACHE"}
    for r in values["REQUESTS"]:
        r.pop("cancel_at", None)                   # without aborts every served request must match exactly
    lab = Lab.build(Config.from_values(values))
    on = run_engine(lab, "continuous", lab.cfg.TOKEN_BUDGET, check=True, prefix_cache=True)
    off = run_engine(lab, "continuous", lab.cfg.TOKEN_BUDGET, check=True, prefix_cache=False)
    assert {r.id: r.out for r in on.done} == {r.id: r.out for r in off.done}
    assert on.trace["gather"] <= 1e-9 and on.trace["parity"] <= 1e-9 and not on.pool.problems
    assert sorted(on.pool.free) == list(range(lab.cfg.POOL_BLOCKS)) and not any(on.pool.ref_cnt)


ops = st.lists(st.tuples(st.sampled_from(["start", "feed", "finish", "preempt"]), st.integers(0, 3),
                         st.lists(st.integers(2, 4), min_size=1, max_size=9)), min_size=1, max_size=40)


@settings(max_examples=150, deadline=None)
@given(ops, st.integers(1, 3), st.integers(2, 8))
def test_block_pool_under_random_operations(script, block_size, num_blocks):
    """Random admissions/computations/finishes/preemptions: the invariants hold after every operation,
    and every sequence's gathered K/V equals what recomputing its tokens gives (shared blocks included)."""
    pool = BlockManager(num_blocks=num_blocks, block_size=block_size, enable_caching=True)
    live = {}
    for i, (op, slot, tokens) in enumerate(script):
        s = live.get(slot)
        if op == "start" and s is None:
            s = live[slot] = seq(f"S{i}", [0] + tokens)
            s.history = s.tokens[:pool.take_cached_prefix(s, s.tokens)]
        elif op == "feed" and s is not None and s.cached < len(s.tokens) and pool.can_append(s, 1):
            feed(pool, s, 1)
        elif op in ("finish", "preempt") and s is not None:
            (pool.release if op == "finish" else pool.evict)(s)
            del live[slot]
        pool.audit()
        assert not pool.problems, pool.problems
        assert all(r >= 0 for r in pool.ref_cnt)
        for s in live.values():
            K, _ = pool.gather(s)
            assert np.array_equal(K, fake_kv(s.tokens, 0, s.cached))


def test_audit_records_codes_not_words():
    """A broken pool keeps (step, code): the words belong to the run's language, not to the pool."""
    pool = BlockManager(num_blocks=3, block_size=2)
    pool.current_step = 4
    pool.ref_cnt[1] = -1                           # block 1 is free, held by no table
    pool.audit()
    assert pool.problems == [(4, "negative_ref_cnt"), (4, "ref_cnt_mismatch")]


def test_broken_invariant_is_printed_in_the_runs_language(monkeypatch):
    """A pool that forgets to drop one reference on release: block [6] names the violation and its step,
    in Vietnamese for lang="vi" and in English when the same facts are rendered with lang="en"."""
    real_release = BlockManager.release

    def leaky_release(self, s):
        if not self.released:                      # the first finishing request: its first block keeps a count
            self.ref_cnt[s.block_table[0]] += 1
        real_release(self, s)

    monkeypatch.setattr(BlockManager, "release", leaky_release)
    vi = run()
    problems = vi.block(6).data["pool_problems"]
    first = problems[0]
    assert first["code"] == "ref_cnt_mismatch" and set(first) == {"step", "code"}
    assert {p["code"] for p in problems} <= {"ref_cnt_mismatch", "not_conserved"}
    en = render(vi, "en")
    steps = ", ".join(str(p["step"]) for p in problems if p["code"] == "ref_cnt_mismatch")
    vi_line = next(l for l in vi.block(6).lines if l.startswith("Bất biến của bể block bị vi phạm: "))
    en_line = next(l for l in en.block(6).lines if l.startswith("Block pool invariants broken: "))
    assert f"số tham chiếu khác số bảng block đang giữ block (bước {steps})" in vi_line
    assert f"a reference count differs from the number of block tables holding the block (steps {steps})" in en_line
    assert not any("bước" in l or "tham chiếu" in l for l in en.block(6).lines)
    assert not [c for c in vi.checks if c.name == "pool_invariants"][0].ok
    assert vi.summary[-1].startswith("FAIL:") and en.summary[-1].startswith("FAIL:")


def test_a_correct_run_prints_no_pool_problem():
    lines = run({"PREFIX_CACHE": "on"}).block(6).lines + run({"PREFIX_CACHE": "on"}, lang="en").block(6).lines
    assert not [l for l in lines if "vi phạm" in l or "invariants broken" in l]


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
    code, out, _ = cli_run(capsys, "--requests", str(path), "--queue-limit", "2", "--sched-policy", "priority", "--json")
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
