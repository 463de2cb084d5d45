"""Prefix caching and the block pool, by hand: The three vLLM behaviours the seed leaves out: automatic prefix
caching, cancellation, priority scheduling.
The seed's trace: A "xin chao model", D "xin chao token" and E "xin chao ban" share the prompt prefix
<bos> xin</w> c ha o</w> = ids [0, 21, 5, 9, 18]: one full block of BLOCK_SIZE 4. With the defaults every
byte stays the seed's (tests/test_golden.py checks all goldens).
This module: the shared prefix, the block hash chain, the LRU free queue, hits while running and after a
preemption, and the pool's audit (codes, printed in the run's language).
Leaves out: cancellation and priority (test_vllm_features_scheduling.py), random traces
(test_vllm_features_properties.py), the schema and command line (test_vllm_features_schema_cli.py)."""
from __future__ import annotations

from inference_lab import run
from inference_lab.core.serving.block_manager import BlockManager, hash_block
from inference_lab.core.serving.run_log import RunLog
from inference_lab.entrypoints.lab import render, tokenizer_for
from vllm_helpers import block, feed, seq


# ── prefix caching: hand-checkable ─────────────────────────────────────────


def test_shared_prefix_of_the_seed_trace_is_one_full_block():
    tok = tokenizer_for(10)
    a, d, e = (tok.encode(t)[1] for t in ("xin chao model", "xin chao token", "xin chao ban"))
    assert a[:5] == d[:5] == e[:5] == [0, 21, 5, 9, 18] and len({a[5], d[5], e[5]}) == 3


def test_block_hash_chains_the_parent():
    h0 = hash_block(None, [0, 21, 5, 9])
    assert h0 == hash_block(None, [0, 21, 5, 9]) and len(h0) == 16
    assert hash_block(h0, [18, 14, 1, 1]) != hash_block(None, [18, 14, 1, 1])   # same tokens, other prefix


def test_lru_free_queue_by_hand():
    evictions = []                                        # the pool tells its evictions to the run log's event()
    pool = BlockManager(num_blocks=5, block_size=2, enable_caching=True,
                        event=lambda kind, **e: evictions.append((e["block"], e["hash"])))
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
    assert e.block_table == [0, 3, 4] and evictions == []
    f = seq("F", [7, 7, 7])
    feed(pool, f, 1)                                      # head is 2 (A's partial block, no hash)
    assert f.block_table == [2] and evictions == []
    pool.release(d)                                       # block 0 still held by E
    assert pool.ref_cnt[0] == 1 and pool.free == [1]
    g = seq("G", [4, 4, 4])
    feed(pool, g, 1)                                      # head 1 holds A's second block: evicted
    assert [(b, h == hash_block(hash_block(None, [0, 5]), [6, 7])) for b, h in evictions] == [(1, True)]
    assert pool.audit() == []


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
    assert ("Prompt D có 10 token: 4 token đầu lấy từ prefix cache (K/V đã có, không tính lại), 6 token còn lại -> "
            "các đoạn [5, 1]") in text_on
    assert "Trúng cache: D lấy 4 token (block [0]) ở bước 11." in text_on
    assert "D 28.30 ms thay vì 29.90 ms (tiết kiệm 1.60 ms, 4 token prompt lấy từ cache)" in text_on
    def stops(r):
        return [(s["id"], s["text"]) for s in block(r, 8).data["stops"]]
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


# ── the pool's audit: codes, printed in the run's language ─────────────────
def test_audit_records_codes_not_words():
    """A broken pool tells codes, which its run log stamps with the step: the words belong to the run's language,
    not to the pool."""
    log = RunLog(None)
    log.items = [{}] * 3                           # three steps done: the pool's notes belong to step 4
    pool = BlockManager(num_blocks=3, block_size=2, event=log.event, note=log.note)
    pool.ref_cnt[1] = -1                           # block 1 is free, held by no table
    assert pool.audit() == ["negative_ref_cnt", "ref_cnt_mismatch"]
    assert log.noted("problem") == [(4, "negative_ref_cnt"), (4, "ref_cnt_mismatch")]


def test_broken_invariant_is_printed_in_the_runs_language(monkeypatch):
    """A pool that forgets to drop one reference on release: block [6] names the violation and its step,
    in Vietnamese for lang="vi" and in English when the same facts are rendered with lang="en"."""
    real_release, leaked = BlockManager.release, []

    def leaky_release(self, s):
        if not leaked:                             # the first finishing request: its first block keeps a count
            leaked.append(s.id)
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
    vi_line = next(line for line in vi.block(6).lines if line.startswith("Bất biến của bể block bị vi phạm: "))
    en_line = next(line for line in en.block(6).lines if line.startswith("Block pool invariants broken: "))
    assert f"số tham chiếu khác số bảng block đang giữ block (bước {steps})" in vi_line
    assert f"a reference count differs from the number of block tables holding the block (steps {steps})" in en_line
    assert not any("bước" in line or "tham chiếu" in line for line in en.block(6).lines)
    assert not [c for c in vi.checks if c.name == "pool_invariants"][0].ok
    assert vi.summary[-1].startswith("FAIL:") and en.summary[-1].startswith("FAIL:")


def test_a_correct_run_prints_no_pool_problem():
    lines = run({"PREFIX_CACHE": "on"}).block(6).lines + run({"PREFIX_CACHE": "on"}, lang="en").block(6).lines
    assert not [line for line in lines if "vi phạm" in line or "invariants broken" in line]
