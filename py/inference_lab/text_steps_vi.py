"""Every sentence of the step narration, in Vietnamese: what happened at each step and which check decided it.

`narrate(record)` turns the step record (steps.StepRecorder.to_dict()) into one (title, lines) per
step; the first line starts with "Bước N/M". `python -m inference_lab --steps` prints the lines, the
page's step navigator shows them and uses "Bước N/M: title" as the slider's spoken value. The
record is read, never changed. A sibling of text_vi.py (which holds the 13 blocks' sentences) and,
like it, the only place these words live.

Leaves out: all computation (steps.py records, this module only formats); block [12]'s
comparison runs, which are not recorded.
"""
from __future__ import annotations

from .text_vi import ms, why

WAIT_WHY = {
    "preparing": "còn chuẩn bị đầu vào",
    "no_slot": "hết chỗ chạy",
    "room_rule": "admission_room (mã đã sửa) cho 0 chỗ dù còn chỗ trống",
    "group_running": "static: nhóm trước chưa chạy xong",
    "group_incomplete": "static: chưa đủ một nhóm SLOTS yêu cầu sẵn sàng",
}
STOP_WHY = {"eos": "gặp <eos>", "max_new_tokens": "đủ max_new"}


def blocks(bs) -> str:
    """[0, 1, 5, 2]; runs of four or more consecutive blocks shortened: [0–9, 12]."""
    parts, i = [], 0
    while i < len(bs):
        j = i
        while j + 1 < len(bs) and bs[j + 1] == bs[j] + 1:
            j += 1
        parts += [f"{bs[i]}–{bs[j]}"] if j - i >= 3 else [str(b) for b in bs[i:j + 1]]
        i = j + 1
    return "[" + ", ".join(parts) + "]"


def ranges(rs) -> str:
    return ", ".join(str(lo) if lo == hi else f"{lo}–{hi}" for lo, hi in rs) or "không còn"


def count(rs) -> int:
    return sum(hi - lo + 1 for lo, hi in rs)


# ── one line per kind of event ─────────────────────────────────────────────
def arrive_line(e) -> str:
    d = e["decisions"][-1]
    head = f"Cổng: {e['id']} (đến {ms(e['arrival'])}) "
    if d["code"] == "429":
        return head + f"bị TỪ CHỐI 429 vì hàng chờ đầy - {why(d)} (SLOTS + QUEUE_LIMIT)."
    if d["code"] == "400":
        return head + f"qua cổng nhưng bị TỪ CHỐI 400 ở bước chuẩn bị đầu vào - {why(d)}."
    gate = e["decisions"][0]
    return head + f"được nhận - {why(gate)}; vào hàng chờ, sẵn sàng lúc {ms(e['ready'])}."


def admit_line(e, slots) -> str:
    if e["why"] == "full_group":
        return f"{e['id']} vào chạy: static đủ một nhóm, nhận cả nhóm {slots} chỗ."
    return f"{e['id']} vào chạy: lúc xét còn {e['room']}/{slots} chỗ trống."


def abort_line(e) -> str:
    where = "đang chạy" if e["stage"] == "running" else "đang chờ"
    made = f"đã sinh {e['generated']} token" if e["generated"] else "chưa sinh token nào"
    freed = f"trả block {blocks(e['blocks'])}" if e["blocks"] else "chưa giữ block nào"
    return (f"HỦY: client của {e['id']} hủy lúc {ms(e['cancel_at'])} -> engine bỏ {e['id']} ở ranh giới bước lúc "
            f"{ms(e['time'])} ({where}, {made}, {freed}); trạng thái \"aborted\", "
            f"không chạy tiếp (như finish_requests của vLLM).")


def overtake_line(e) -> str:
    behind = ", ".join(f"{w['id']} (priority {w['priority']}, đến {ms(w['arrival'])})" for w in e["overtaken"])
    return (f"{e['id']} (priority {e['priority']}) vào chạy trước {behind} dù sẵn sàng sau: SCHED_POLICY=priority "
            f"xét hàng chờ theo (priority, lúc đến), số nhỏ trước.")


def cache_hit_line(e, total) -> str:
    whose = "block của chính nó còn trong cache từ trước khi bị preempt" if e["recompute"] else "block đầy cùng hash của một prompt trước"
    rest = f", chỉ phải prefill {total - e['tokens']}/{total} token còn lại" if total is not None else ""
    return (f"Prefix cache: {e['id']} lấy lại block {blocks(e['blocks'])} ({whose}): {e['tokens']} token đầu "
            f"của prompt đã có K/V, không tính lại{rest}.")


def running_part(r) -> str:
    rid, phase, done, total, gen, preempted = r
    if phase == "decode":
        return f"{rid} decode (đã sinh {gen} token)"
    redo = f", tính lại sau preempt: prompt + {gen} token đã sinh" if preempted else ""
    return f"{rid} prefill (prompt {done}/{total}{redo})"


def waiting_lines(it, slots, ready, priority_key=None) -> list[str]:
    """The queue in order, then who waits for which reason (the check that kept it waiting)."""
    if not it["waiting"]:
        return ["Hàng chờ: trống."]
    if priority_key:
        lines = ["Hàng chờ (theo thứ tự; vào chạy theo priority rồi lúc đến): "
                 + ", ".join(f"{w[0]} (priority {priority_key.get(w[0], (0,))[0]})" for w in it["waiting"]) + "."]
    else:
        lines = ["Hàng chờ (theo thứ tự): " + ", ".join(w[0] for w in it["waiting"]) + "."]
    for reason, label in WAIT_WHY.items():
        who = [w for w in it["waiting"] if w[1] == reason]
        if not who:
            continue
        if reason == "preparing":
            names = ", ".join(f"{w[0]} (sẵn sàng lúc {ms(ready[w[0]])})" if ready.get(w[0]) is not None else w[0] for w in who)
        else:
            names = ", ".join(w[0] for w in who)
        busy = f" ({len(it['running'])}/{slots} chỗ đang bận)" if reason == "no_slot" else ""
        lines.append(f"Chờ vì {label}{busy}: {names}.")
    back = [w[0] for w in it["waiting"] if w[2]]
    if back:
        lines.append(f"Đã bị preempt, chờ tính lại: {', '.join(back)}.")
    return lines


def budget_lines(it) -> list[str]:
    used, cap = it["budget"]
    decodes = [t for t in it["tasks"] if t[1] == "decode"]
    chunks = [t for t in it["tasks"] if t[1] == "prefill"]
    head = f"Ngân sách {cap} token: " if cap is not None else "Không giới hạn token: "
    parts = [("decode trước: " + ", ".join(f"{t[0]} 1" for t in decodes)) if decodes else "không có decode"]
    if chunks:
        rest = f"còn {cap - len(decodes)} cho prompt: " if cap is not None else "prompt: "
        parts.append(rest + ", ".join(f"{t[0]} {t[2]}" for t in chunks))
    tail = f" -> dùng {used}/{cap}, còn {cap - used}." if cap is not None else "."
    return [head + "; ".join(parts) + tail]


def budget_event_line(e) -> str:
    got = "không được token nào" if e["got"] == 0 else f"chỉ được {e['got']}"
    return (f"{e['id']} còn {e['left']} token prompt nhưng {got}: hết ngân sách {e['cap']} token của bước "
            f"(decode đi trước, rồi các đoạn prompt theo thứ tự vào chạy).")


def chunk_line(e) -> str:
    what = "prefill lại" if e["recompute"] else "prefill"
    start = "bắt đầu " if e["first"] else ""
    end = ", xong prompt" if e["done"] == e["total"] else ""
    return f"{e['id']} {start}{what} {e['n']} token (prompt {e['done']}/{e['total']}{end})."


def preempt_line(e, pool_blocks, priority_key=None) -> str:
    need = f"{e['needed_by']} cần {e['need']} block KV mới nhưng bể chỉ còn {e['free']}/{pool_blocks} block trống"
    if priority_key:
        p, t = priority_key.get(e["id"], (0, 0))
        rule = f"có (priority, lúc đến) = ({p}, {ms(t)}) lớn nhất trong các chuỗi đang chạy (SCHED_POLICY=priority)"
        victim = f"{e['id']} {rule} nên chính nó bị preempt" if e["id"] == e["needed_by"] else f"preempt {e['id']}: nó {rule}"
    elif e["id"] == e["needed_by"]:
        victim = f"{e['id']} là chuỗi vào chạy gần nhất nên chính nó bị preempt"
    else:
        victim = f"preempt {e['id']} (chuỗi vào chạy gần nhất)"
    freed = f"trả block {blocks(e['blocks'])}" if e["blocks"] else "chưa giữ block nào"
    line = (f"PREEMPT: {need} -> {victim}: {freed}, quay lại đầu hàng chờ; khi chạy lại phải prefill lại "
            f"{e['recompute']} token (prompt + {e['generated']} token đã sinh).")
    if e["dropped"]:
        line += f" Phần việc {e['dropped']} token của {e['id']} ở bước này không chạy."
    return line


def first_line(e) -> str:
    return f"{e['id']} có token đầu tiên lúc {ms(e['time'])} (TTFT tính tới đây)."


def finish_line(e) -> str:
    return f"{e['id']} xong ({STOP_WHY.get(e['reason'], e['reason'])}, {e['n']} token), trả block {blocks(e['blocks'])}, nhường chỗ chạy."


def kv_line(it, pool_blocks) -> str:
    tables = "; ".join(f"{rid}→{blocks(t)}" for rid, t in it["tables"].items()) or "không chuỗi nào giữ block"
    line = f"KV sau bước: {tables}."
    if it["alloc"]:
        line += f" Vừa cấp {blocks(it['alloc'])}."
    if it.get("reused"):
        line += f" Lấy lại từ prefix cache {blocks(it['reused'])}."
    if it["freed"]:
        line += f" Vừa trả {blocks(it['freed'])}."
    holders = {}
    for rid, t in it["tables"].items():
        for b in t:
            holders.setdefault(b, []).append(rid)
    shared = [f"{b} ({', '.join(ids)})" for b, ids in sorted(holders.items()) if len(ids) > 1]
    if shared:
        line += f" Dùng chung: {'; '.join(shared)}."
    line += f" Trống {count(it['free'])}/{pool_blocks}: {ranges(it['free'])}"
    if it.get("cached_free"):
        line += f"; trong đó còn giữ hash prefix cache (dùng lại được tới khi bị lấy cấp mới): {ranges(it['cached_free'])}"
    return line + "."


# ── one step ───────────────────────────────────────────────────────────────
def title(it) -> str:
    """A few words for the step: its most telling events, else its tasks."""
    ev = it["events"]
    picks = [f"preempt {e['id']}" for e in ev if e["kind"] == "preempt"]
    picks += [f"{e['id']} bị hủy" for e in ev if e["kind"] == "abort"]
    picks += [f"{e['id']} lấy {e['tokens']} token từ prefix cache" for e in ev if e["kind"] == "cache_hit"]
    picks += [f"{e['id']} vượt {', '.join(w['id'] for w in e['overtaken'])} nhờ priority" for e in ev if e["kind"] == "overtake"]
    picks += [f"{e['id']} {'bắt đầu prefill lại' if e['recompute'] else 'bắt đầu prefill'} {e['n']} token"
              for e in ev if e["kind"] == "chunk" and e["first"]]
    picks += [f"{e['id']} xong" for e in ev if e["kind"] == "finish"]
    picks += [f"{e['id']} có token đầu" for e in ev if e["kind"] == "first"]
    picks += [f"{e['id']} bị từ chối {e['code']}" for e in ev if e["kind"] == "arrive" and e["code"] != "OK"]
    if picks:
        return ", ".join(picks[:3])
    return ", ".join(f"{rid} {'decode' if p == 'decode' else f'prefill {n} token'}" for rid, p, n in it["tasks"])


def step_lines(it, n, m, record, ready) -> list[str]:
    slots, pool, priority_key = record["slots"], record["pool_blocks"], record.get("priority_key")
    ev = it["events"]
    total = {r[0]: r[3] for r in it["running"]}
    lines = [f"Bước {n}/{m} ({ms(it['start'])} -> {ms(it['end'])}): {title(it)}"]
    lines += [arrive_line(e) for e in ev if e["kind"] == "arrive"]
    lines += [abort_line(e) for e in ev if e["kind"] == "abort"]
    lines += [admit_line(e, slots) for e in ev if e["kind"] == "admit"]
    lines += [overtake_line(e) for e in ev if e["kind"] == "overtake"]
    lines += [cache_hit_line(e, total.get(e["id"])) for e in ev if e["kind"] == "cache_hit"]
    lines.append(f"Đang chạy {len(it['running'])}/{slots} chỗ: " + "; ".join(running_part(r) for r in it["running"]) + ".")
    lines += waiting_lines(it, slots, ready, priority_key)
    lines += budget_lines(it)
    lines += [budget_event_line(e) for e in ev if e["kind"] == "budget"]
    lines += [chunk_line(e) for e in ev if e["kind"] == "chunk"]
    lines += [preempt_line(e, pool, priority_key) for e in ev if e["kind"] == "preempt"]
    lines += [first_line(e) for e in ev if e["kind"] == "first"]
    lines += [finish_line(e) for e in ev if e["kind"] == "finish"]
    lines.append(kv_line(it, pool))
    return lines


def narrate(record) -> list[tuple[str, list[str]]]:
    """(title, lines) for every recorded step."""
    m = record["count"]
    ready = {e["id"]: e.get("ready") for it in record["items"] for e in it["events"] if e["kind"] == "arrive"}
    return [(title(it), step_lines(it, i + 1, m, record, ready)) for i, it in enumerate(record["items"])]


def after_lines(record) -> list[str]:
    """Requests the gateway looked at, or cancelled while waiting, after the last step (only refusals and
    cancellations can happen then)."""
    if not record["after"]:
        return []
    head = f"Sau bước {record['count']}:" if record["count"] else "Không có bước nào (không yêu cầu nào được chạy):"
    return [head] + [arrive_line(e) if e["kind"] == "arrive" else abort_line(e) for e in record["after"]
                     if e["kind"] in ("arrive", "abort")]
