"""Every sentence the lab prints, in Vietnamese, one function per block.

Each `blockN(data, ctx)` receives the block's facts (plain data gathered by lab.py) and
returns (title, lines). With the seed's constants — and with any constants for which
the seed program completes — the lines are the seed program's lines, character for
character, including its fixed phrases (e.g. "5 yêu cầu", "cả 3 yêu cầu") kept for that
fidelity. Lines that only appear where the seed program would crash (a refused followed
request, preemption, nobody served, unknown characters) are this lab's own.

text_en.py is the English sibling with the same functions (lab.TEXTS picks one by language);
nothing in the mechanics refers to these strings.

Formatting is pure: no function here changes the data, context or checks it is given.

Leaves out: all computation — only formatting happens here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .blocks import BLOCKS as BLOCK_TABLE

BLOCK_CODES = {b.number: b.code for b in BLOCK_TABLE}  # "1 · Gateway & admission", from blocks.py

CHECK_LABELS = {
    "offered": "offered = served + rejected",
    "parity": "logits qua KV cache khớp tính lại (<= 1e-9)",
    "gather": "K/V gom từ block khớp tính lại (<= 1e-9)",
    "blocks_returned": "mọi block KV được trả đủ",
    "same_tokens": "cùng token ở cả 3 chính sách lập lịch",
    "positions": "dùng cache không tính nhiều vị trí hơn tính lại",
    "tokens_counted": "tổng token khớp số token sinh ra",
    "quantization_error": "sai số khôi phục <= nửa scale",
    "probabilities": "xác suất trước và sau lọc có tổng 1",
    "attention": "mỗi hàng attention có tổng 1",
    "pool_invariants": "số tham chiếu block không âm, block được bảo toàn, không block nào vừa trống vừa có chủ",
    "prefix_cache_same_text": "bật prefix cache không đổi token sinh ra",
}

# The pool's invariant violations (block_manager.BlockManager.audit's codes), printed in block [6] when a run breaks one.
POOL_PROBLEMS = {
    "negative_ref_cnt": "số tham chiếu âm",
    "ref_cnt_mismatch": "số tham chiếu khác số bảng block đang giữ block",
    "not_conserved": "block không được bảo toàn (trùng, mất, hoặc vừa trống vừa có chủ)",
    "stale_hash": "bảng băm trỏ tới block mang hash khác",
}

# The public vLLM documents each simulated behaviour follows (named in the text and on the page).
VLLM_DOCS = {
    "prefix_cache": "tài liệu thiết kế \"Automatic Prefix Caching\" của vLLM",
    "abort": "đường hủy yêu cầu của vLLM (finish_requests, trạng thái FINISHED_ABORTED)",
    "priority": "chính sách lập lịch \"priority\" của vLLM (SchedulerConfig.policy)",
}

POLICY_NAMES = {"static": "static (đợi đủ nhóm)", "nochunk": "continuous, không chia prompt"}

TRACE = dict(process="Inference Lab (đồng hồ mô phỏng, µs)", request="yêu cầu {id}", arrive="đến",
             ready="sẵn sàng", first="token đầu", finish="xong", abort="hủy", reject="từ chối {code}")   # trace.py's labels


@dataclass(slots=True)
class Context:
    cfg: dict
    follow: dict
    follow_metrics: dict | None


def ms(us):
    return f"{us / 1000:.2f} ms"


def vec(a, nd=3):
    return "[" + ", ".join(f"{x:.{nd}f}" for x in np.asarray(a, dtype=float).ravel()) + "]"


def policy_name(name, cfg):
    return POLICY_NAMES.get(name, f"continuous + chunked ({cfg['TOKEN_BUDGET']} token/bước)")


def why(d) -> str:
    """The reason of a gateway / input decision, as the seed words it."""
    f, reason = d["facts"], d["reason"]
    if d["stage"] == "gateway":
        state = "đã chạm giới hạn" if d["code"] == "429" else "còn dưới giới hạn"
        return f"đang có {f['in_system']} yêu cầu trong hệ thống, {state} {f['slots']}+{f['queue_limit']}"
    if reason == "unknown":
        return unknown_text(f["chars"], f["pieces"])
    if reason == "pool":
        return (f"prompt {f['prompt']} token + max_new {f['max_new']} cần tới {f['blocks']} block KV "
                f"({f['total'] - 1} vị trí, {f['block_size']} token mỗi block) > POOL_BLOCKS {f['pool_blocks']}: không bao giờ vừa bể KV")
    sign = ">" if d["code"] == "400" else "<="
    total = f" = {f['total']}" if d["code"] == "400" else ""
    return f"prompt {f['prompt']} token + max_new {f['max_new']}{total} {sign} MAX_CONTEXT {f['max_context']}"


def unknown_text(chars, pieces, code="mã 400: ") -> str:
    """400 because the tokenizer cannot encode the text: name the characters (or the BPE pieces)."""
    if chars:
        return f"{code}văn bản có ký tự tokenizer chưa từng thấy: {', '.join(repr(c) for c in chars)} (từ vựng chỉ học từ 5 câu mẫu)"
    return (f"{code}BPE tách văn bản ra mảnh không có trong từ vựng: {', '.join(repr(p) for p in pieces)} "
            "(mảnh trung gian của một phép gộp; từ vựng chỉ học từ 5 câu mẫu)")


def refusal(ctx) -> str:
    """The followed request was refused (or aborted): where and why (no full stop)."""
    fl = ctx.follow
    if fl["stage"] == "cancel":
        f = fl["facts"]
        where = "khi đang chạy" if f["stage"] == "running" else "khi còn trong hàng chờ"
        return (f"Yêu cầu theo dõi {fl['id']} bị HỦY lúc {ms(f['time'])} {where} (client hủy lúc {ms(f['cancel_at'])}), "
                f"sau {f['generated']} token")
    where = "ở cổng" if fl["stage"] == "gateway" else "ở bước chuẩn bị đầu vào"
    d = dict(stage=fl["stage"], code=fl["code"], reason=fl["reason"], facts=fl["facts"])
    return f"Yêu cầu theo dõi {fl['id']} bị TỪ CHỐI {fl['code']} {where} ({why(d)})"


def refused(ctx) -> str:
    return f"{refusal(ctx)}, nên khối này không có số liệu của {ctx.follow['id']}."


def how_to_follow(ctx) -> str:
    ids = ctx.follow["served_ids"]
    if not ids:
        return "Không yêu cầu nào được phục vụ: xem lý do ở khối [1] và [2] (tăng SLOTS, QUEUE_LIMIT, MAX_CONTEXT hoặc POOL_BLOCKS) rồi chạy lại."
    return f"Muốn theo dõi chi tiết, chọn FOLLOW (--follow) là một yêu cầu được phục vụ: {', '.join(ids)}."


def not_followed(ctx) -> list[str]:
    return [refused(ctx), how_to_follow(ctx)]


# ── header ─────────────────────────────────────────────────────────────────
def request_line(r, follow) -> str:
    mode = "greedy" if r["temperature"] == 0 else f"lấy mẫu T={r['temperature']} top_k={r['top_k']} top_p={r['top_p']}"
    mark = "  <- yêu cầu theo dõi" if r["id"] == follow else ""
    extra = f", priority {r['priority']}" if r.get("priority") is not None else ""
    extra += f", client hủy lúc {ms(r['cancel_at'])}" if r.get("cancel_at") is not None else ""
    return f"  {r['id']}: đến {ms(r['arrival'])}, \"{r['text']}\", max_new={r['max_new']}, {mode}, seed {r['seed']}{extra}{mark}"


def vllm_line(d) -> list[str]:
    """The header's line about the vLLM behaviours switched on (none by default)."""
    parts = []
    if d["prefix_cache"]:
        parts.append(f"prefix cache tự động BẬT (PREFIX_CACHE=on, theo {VLLM_DOCS['prefix_cache']})")
    if d["sched_policy"] == "priority":
        parts.append(f"lập lịch theo độ ưu tiên (SCHED_POLICY=priority, theo {VLLM_DOCS['priority']})")
    return [f"VLLM: {'; '.join(parts)}."] if parts else []


def header_lines(d) -> list[str]:
    return [
        "=== LAB TỔNG HỢP: MỘT YÊU CẦU ĐI QUA TOÀN BỘ ĐƯỜNG ỐNG PHỤC VỤ LLM ===",
        "MỤC TIÊU: theo dõi bằng số thật một yêu cầu từ lúc đến cổng tới lúc dừng, rồi đọc TTFT, TPOT và throughput.",
        f"ĐẦU VÀO: 5 yêu cầu đến cùng một engine (thời điểm đến tính trên đồng hồ mô phỏng). Bạn theo dõi yêu cầu {d['follow']} qua mọi khối.",
        *[request_line(r, d["follow"]) for r in d["requests"]],
        f"CẤU HÌNH: {d['slots']} chỗ chạy + {d['queue_limit']} chỗ chờ; mỗi bước tối đa {d['token_budget']} token; "
        f"block KV {d['block_size']} token x {d['pool_blocks']} block; context tối đa {d['max_context']}.",
        *vllm_line(d),
        f"MÔ HÌNH: 1 lớp decoder (MHA {d['n_heads']} head, RoPE, SwiGLU), d_model={d['d_model']}, từ vựng {d['vocab']} token, trọng số ngẫu nhiên seed {d['seed']}.",
        "ĐỒNG HỒ: mô phỏng theo công thức giả định (xem COST_* ở đầu file). Mọi 'ms' dưới đây là ms MÔ PHỎNG, không phải đo trên GPU.",
        "CÁCH ĐỌC: mỗi khối [n · Tên] mang tên khối trên sơ đồ Tab 01. Đọc Quan sát, nhìn số, rồi tự nói lại Kết luận.",
        "LƯU Ý: engine chạy MỘT lần; các khối in lại những gì engine đã ghi nhận. "
        + ("Router và xác thực không được mô phỏng; hủy yêu cầu được mô phỏng theo cột cancel_at." if d["cancels"]
           else "Router, xác thực và hủy yêu cầu không được mô phỏng."),
        "",
    ]


# ── [1] ────────────────────────────────────────────────────────────────────
def block1(d, ctx):
    lines = [f"Quan sát: cổng xét từng yêu cầu theo thứ tự đến; hệ thống chứa tối đa {d['capacity']} yêu cầu (đang chạy + đang chờ)."]
    for x in d["decisions"]:
        verdict = "nhận" if x["code"] == "OK" else "TỪ CHỐI " + x["code"]
        lines.append(f"{x['request']} (đến {ms(x['arrival'])}): {verdict} - {why(x)}")
    lines += [abort_line(a) for a in d["aborts"]]
    rejected = d["n_429"] + d["n_400"]
    if d["n_aborted"]:
        n = d["n_aborted"]
        lines.append(f"Số đếm: offered={d['offered']}; từ chối 429 ở cổng={d['n_429']}; từ chối 400 ở bước chuẩn bị đầu vào={d['n_400']}; "
                     f"bị hủy={n}; được phục vụ={d['served']}.")
        lines.append(f"Đối chiếu: offered = served + rejected + aborted -> {d['offered']} = {d['served']} + {rejected} + {n} "
                     f"-> {d['offered'] == d['served'] + rejected + n}.")
    else:
        lines.append(f"Số đếm: offered={d['offered']}; từ chối 429 ở cổng={d['n_429']}; từ chối 400 ở bước chuẩn bị đầu vào={d['n_400']}; được phục vụ={d['served']}.")
        lines.append(f"Đối chiếu: offered = served + rejected -> {d['offered']} = {d['served']} + {rejected} -> {d['offered'] == d['served'] + rejected}.")
    lines.append("Kết luận: từ chối sớm giữ hàng đợi hữu hạn, nên yêu cầu tới khi hệ thống đầy nhận 429 thay vì chờ lâu rồi vẫn trễ hạn." if d["n_429"]
                 else "Kết luận: với giới hạn hiện tại hàng đợi chưa đầy nên không có yêu cầu nào bị 429; thử giảm QUEUE_LIMIT để thấy từ chối.")
    lines.append("Giới hạn: cổng chỉ xét ở ranh giới giữa hai bước, nên yêu cầu đến giữa bước được xét sau khi bước đó kết thúc (giờ đến vẫn giữ nguyên).")
    return "Cổng tiếp nhận và kiểm soát hàng đợi", lines


def abort_line(a) -> str:
    """A cancelled request, as block [1] tells it (who, when, why, what it had)."""
    where = (f"đang chạy, đã sinh {a['generated']} token, trả block {a['blocks']}" if a["stage"] == "running"
             else f"còn trong hàng chờ, đã sinh {a['generated']} token" + (f", trả block {a['blocks']}" if a["blocks"] else ""))
    return (f"{a['request']}: client HỦY lúc {ms(a['cancel_at'])} -> engine bỏ nó ở ranh giới bước lúc {ms(a['time'])} "
            f"({where}); nó rời hệ thống và nhường chỗ, như {VLLM_DOCS['abort']}.")


# ── [2] ────────────────────────────────────────────────────────────────────
def block2_follow(d, ctx) -> list[str]:
    f, fl = d["follow"], ctx.follow
    lines = []
    if f["ids"]:
        lines += [f"Yêu cầu {f['id']}: \"{f['text']}\" -> {f['tokens']}",
                  f"Token IDs: {f['ids']}  (ID chỉ là số thứ tự trong bảng từ vựng; ý nghĩa nằm ở vector nhúng mà mô hình tra ra từ ID)."]
    if fl["served"]:
        return lines + [f"Ngân sách: prompt {f['prompt_len']} token + max_new {f['max_new']} = {f['prompt_len'] + f['max_new']} <= MAX_CONTEXT {d['max_context']}.",
                        *prefix_line(d)]
    return lines + not_followed(ctx)


def prefix_line(d) -> list[str]:
    """Block [2]: how much of the followed prompt the prefix cache already held (only when it is on)."""
    if not d["prefix_cache"]:
        return []
    f, n = d["follow"], d["cached_tokens"]
    if n:
        return [f"Prefix cache: {n}/{f['prompt_len']} token đầu của prompt {f['id']} đã có trong cache (block đầy của một yêu cầu "
                f"trước có cùng phần đầu, cùng hash) nên engine chỉ phải prefill {f['prompt_len'] - n} token."]
    return [f"Prefix cache: không block đầy nào ở đầu prompt {f['id']} có sẵn trong cache lúc nó vào chạy, nên phải prefill cả {f['prompt_len']} token."]


def block2(d, ctx):
    lens = d["prompt_lens"]
    lines = [
        f"BPE học {d['n_merges']} phép gộp từ {d['n_corpus']} câu mẫu; từ vựng cuối có {d['vocab']} token (cộng <bos>, <eos>).",
        f"Các phép gộp đầu: {d['first_merges']} ... ('</w>' đánh dấu hết một từ).",
        *block2_follow(d, ctx),
        ("Độ dài prompt: " + ", ".join(f"{rid}={n}" for rid, n in lens) + " token (kể cả <bos>).") if lens
        else "Độ dài prompt: không có yêu cầu nào được phục vụ.",
        *[f"Bị chặn: {x['request']} - {why(x)}." for x in d["blocked"]],
    ]
    prep = (f"{d['follow']['id']} sẵn sàng sau {ms(d['prep'])}." if d["prep"] is not None
            else f"{d['follow']['id']} không vào hàng chờ nên không có thời gian chuẩn bị.")
    lines.append(f"Chi phí chuẩn bị (giả định): cổng {ms(d['cost_gateway'])} + {d['cost_tokenize'] / 1000:.2f} ms mỗi token -> {prep}")
    lines.append("Kết luận: cùng văn bản phải cho cùng token IDs trên mọi bản sao; tokenizer hay template sai làm đổi hành vi của mô hình.")
    return "Chat template, BPE và ngân sách token", lines


# ── [3] ────────────────────────────────────────────────────────────────────
def preemption_line(p, policy="fcfs") -> str:
    at = f"Preemption ở bước {p['step']} ({ms(p['time'])}): "
    who = ("vào chạy gần nhất" if policy != "priority"
           else f"priority {p['priority']}, đến {ms(p['arrival'])}: (priority, giờ đến) lớn nhất trong các chuỗi đang chạy")
    if not p["blocks"]:
        return (at + f"không còn block KV trống cho {p['request']} ({who}, chưa giữ block nào) nên nó "
                f"nhường chỗ và quay lại đầu hàng chờ; chưa mất phần tính nào.")
    return (at + f"hết block KV trống nên {p['request']} ({who}) bị tạm dừng, "
            f"trả block {p['blocks']}, quay lại đầu hàng chờ; khi chạy lại phải prefill lại {p['recompute']} token "
            f"(prompt + {p['generated']} token đã sinh).")


def block3(d, ctx):
    fid = ctx.follow["id"]
    lines = ["Mỗi dòng: bước (bắt đầu -> kết thúc), số yêu cầu chờ/chạy, rồi [yêu cầu:pha:số token] với p = prefill (đoạn prompt), d = decode (1 token mới)."]
    for i, st in enumerate(d["steps"]):
        work = " ".join(f"{rid}:{p[0]}:{n}" for rid, p, n in st["tasks"])
        lines.append(f"bước {i + 1:>2}: {ms(st['start'])} -> {ms(st['end'])} | chờ={st['waiting']} chạy={st['running']} | {work}")
    if not d["steps"]:
        lines.append("Không có bước nào: không yêu cầu nào được phục vụ.")
    else:
        lines.append(f"Quan sát: bước 1 bắt đầu lúc {ms(d['steps'][0]['start'])} chỉ với {d['lone']}; "
                     + ", ".join(f"{r['id']} đã đến nhưng còn chuẩn bị đầu vào, sẵn sàng lúc {ms(r['ready'])}" for r in d["late"])
                     + ". Bộ lập lịch không đợi.")
    mixed = d["mixed"]
    lines.append(f"Bước {mixed} vừa decode cho yêu cầu đang chạy vừa prefill cho yêu cầu mới: chúng dùng chung một bước và (theo công thức chi phí giả định) hai pha chạy nối tiếp nên decode phải đợi prefill xong." if mixed
                 else "Không có bước nào trộn decode và prefill.")
    lines += [preemption_line(p, d["sched_policy"]) for p in d["preemptions"]]
    lines += [overtake_line(o) for o in d["overtakes"]]
    lines += [f"Hủy ở ranh giới bước lúc {ms(a['time'])}: {a['request']} (client hủy lúc {ms(a['cancel_at'])}) rời "
              f"{'nhóm đang chạy' if a['stage'] == 'running' else 'hàng chờ'}; bộ lập lịch không còn xếp nó vào bước nào."
              for a in d["aborts"]]
    if "follow" in d:
        f = d["follow"]
        lines.append(f"Chunked prefill: prompt {fid} dài {f['prompt_len']} token được xử lý theo các đoạn {d['chunks']} (ngân sách {d['token_budget']} token mỗi bước).")
        if f["preempted"]:
            lines.append(f"Các đoạn trên gồm cả phần {fid} phải prefill lại sau {f['preempted']} lần bị preempt.")
        lines.append(f"{fid}: sẵn sàng lúc {ms(f['ready'])}, nhưng bước đầu của nó bắt đầu lúc {ms(f['start'])} -> chờ chỗ chạy {ms(f['queue'])}.")
    else:
        lines += not_followed(ctx)
    lines.append("Kết luận: continuous batching đưa yêu cầu mới vào ở ranh giới từng bước ngay khi có chỗ trống, không đợi cả nhóm cũ xong.")
    return "Lập lịch theo vòng lặp (continuous batching + chunked prefill)", lines


def overtake_line(o) -> str:
    behind = ", ".join(f"{x['id']} (priority {x['priority']}, đến {ms(x['arrival'])})" for x in o["overtaken"])
    return (f"Priority ở bước {o['step']} ({ms(o['time'])}): {o['request']} (priority {o['priority']}) được vào chạy trước {behind} "
            f"dù đến sau, vì SCHED_POLICY=priority xếp hàng chờ theo (priority, giờ đến), số nhỏ trước.")


# ── [4] ────────────────────────────────────────────────────────────────────
def block4(d, ctx):
    title = "Xử lý prompt, ghi KV và tạo logits đầu tiên"
    fid = ctx.follow["id"]
    if not ctx.follow["served"]:
        return title, not_followed(ctx) + ["Kết luận: prefill kết thúc bằng token đầu tiên, nên nó cùng với thời gian chờ quyết định TTFT. Logits là điểm số, chưa phải xác suất."]
    row = d["logits"]
    again = f" (gồm cả phần prefill lại sau {d['preempted']} lần bị preempt)" if d["preempted"] else ""
    n = d.get("cached_tokens", 0)
    first = (f"Prompt {fid} có {d['prompt_len']} token: {n} token đầu lấy từ prefix cache (K/V đã có, không tính lại), "
             f"{d['prompt_len'] - n} token còn lại -> các đoạn {d['chunks']}{again} chạy qua mô hình; mỗi token ghi K và V vào cache."
             if n else
             f"Prompt {fid} có {d['prompt_len']} token -> các đoạn {d['chunks']}{again} chạy qua mô hình; mỗi token ghi K và V vào cache.")
    return title, [
        first,
        f"Sau prefill, cache của {fid} có K shape {tuple(d['k_shape'])} = (số head, số token, chiều mỗi head); V cùng shape.",
        f"Chỉ hàng CUỐI của logits dùng để chọn token đầu tiên: {vec(row, 2)}",
        f"Cách đọc: {len(row)} cột = {len(row)} token trong từ vựng; ba điểm cao nhất ở ID {d['top3']} = {d['top3_tokens']} (điểm {vec(d['top3_scores'], 2)}).",
        f"Token đầu tiên của {fid} xuất hiện lúc {ms(d['first_time'])} -> TTFT = {ms(d['first_time'])} - {ms(d['arrival'])} = {ms(d['ttft'])}.",
        "Kết luận: prefill kết thúc bằng token đầu tiên, nên nó cùng với thời gian chờ quyết định TTFT. Logits là điểm số, chưa phải xác suất.",
    ]


# ── [5] ────────────────────────────────────────────────────────────────────
def block5(d, ctx):
    title = "Attention weights và logits là hai phân phối khác nhau"
    parity = f"sai lệch lớn nhất <= 1e-9: {d['parity'] <= 1e-9} (phần dư chỉ là sai số làm tròn float64)."
    common = [
        "Mỗi hàng là softmax trên các VỊ TRÍ nguồn, cộng lại bằng 1; vị trí tương lai bị mặt nạ nhân quả chặn (xác suất 0).",
        f"Hai head được ghép, qua W_O, cộng residual, SwiGLU, rồi LM head cho {d['vocab']} điểm số trên TOKEN ứng viên (chính là hàng logits ở khối [4]).",
        "Phân biệt: attention weights nói 'lấy thông tin từ vị trí nào'; logits nói 'token nào đi sau'. Xác suất trên từ vựng chỉ xuất hiện ở khối [8].",
    ]
    if not ctx.follow["served"]:
        n = len(ctx.follow["served_ids"])
        return title, not_followed(ctx) + common + [
            f"Kiểm tra số học: logits qua KV cache khớp tính lại cả chuỗi ở MỌI bước ({n} yêu cầu được phục vụ), {parity}"]
    a0, a1 = d["heads"]
    return title, [
        f"Lấy hàng cuối của prefill: token '{d['token_text']}' (ID {d['token']}) ở vị trí {d['position']} nhìn lại {len(a0)} vị trí nguồn 0..{d['position']}.",
        f"Attention weights head 0: {vec(a0)} tổng = {d['sums'][0]:.6f}",
        f"Attention weights head 1: {vec(a1)} tổng = {d['sums'][1]:.6f}",
        f"Cách đọc: mỗi head có K/V riêng (MHA) nên cho phân phối khác nhau; head 0 nhìn nhiều nhất vị trí {d['argmax'][0]}, head 1 nhìn nhiều nhất vị trí {d['argmax'][1]}.",
        *common,
        f"Kiểm tra số học: logits qua KV cache khớp tính lại cả chuỗi ở MỌI bước (prefill + decode, cả 3 yêu cầu), {parity}",
    ]


# ── [6] ────────────────────────────────────────────────────────────────────
def block6(d, ctx):
    pk, bs = d["peak"], d["block_size"]
    slots_used = pk["used"] * bs
    lines = []
    if d["served"]:
        lines += [f"Mỗi block chứa {bs} token. Khoảnh khắc dùng nhiều block nhất, bảng block (logic -> vật lý) của từng chuỗi là: "
                  + "; ".join(f"{rid}→{blk}" for rid, blk in pk["tables"].items()) + ".",
                  "Cách đọc: block logic 0, 1, 2... của một chuỗi nằm ở block vật lý không nhất thiết liền nhau và có thể xen kẽ giữa các chuỗi; bảng block là bảng tra.",
                  f"Khi đó dùng {pk['used']}/{d['pool_blocks']} block = {slots_used} chỗ token, đang lưu {pk['tokens']} token -> thừa {slots_used - pk['tokens']} chỗ ở block cuối của từng chuỗi.",
                  f"So sánh: cấp một mảng liền {d['max_context']} token cho mỗi chỗ chạy cần {d['slots'] * d['max_context']} chỗ token; phân trang chỉ cần {slots_used} chỗ.",
                  "Trả block theo thứ tự kết thúc: " + "; ".join(f"{rid} trả {blk}" for rid, blk in d["released"]) + "."]
    else:
        lines.append(f"Mỗi block chứa {bs} token. Không có chuỗi nào được phục vụ nên không block nào được cấp.")
    kept = ("các block đầy giữ hash ở cuối hàng đợi trống, khi chạy lại nó có thể trúng chính chúng" if d["prefix_cache"]
            else "K/V của nó bị bỏ, sẽ tính lại")
    lines += [f"Preemption ở bước {p['step']}: {p['request']} bị tạm dừng vì hết block trống, trả block {p['blocks']} về bể ({kept})."
              if p["blocks"] else f"Preemption ở bước {p['step']}: {p['request']} chưa giữ block nào, nhường chỗ vì bể đã hết block trống."
              for p in d["preemptions"]]
    lines += [
        ("Block được dùng lại: " + "; ".join(f"block {b}: {' → '.join(o)}" for b, o in d["reused"]) + ".") if d["reused"]
        else "Không có block nào được dùng lại trong trace này.",
        f"Sau khi mọi yêu cầu kết thúc còn {d['free']}/{d['pool_blocks']} block trống (không rò rỉ).",
        f"Kiểm tra số học: K/V gom từ các block rời khớp K/V tính lại từ đầu cho từng chuỗi, sai lệch lớn nhất <= 1e-9: {d['gather'] <= 1e-9}.",
    ]
    lines += pool_problem_lines(d)
    if d["prefix_cache"]:
        lines += prefix_cache_lines(d)
    else:
        lines.append("Giới hạn: không mô phỏng prefix cache hay đếm tham chiếu; khi hết block, engine preempt theo kiểu recompute của vLLM (không swap sang CPU)."
                     if d["any_preemption"] else "Giới hạn: không mô phỏng prefix cache, đếm tham chiếu hay preemption khi hết block.")
    return "Block vật lý, bảng block và việc trả block", lines


def steps_by_problem(problems) -> dict:
    """{code: [steps]} in order of first appearance (text_en.py shares it)."""
    out = {}
    for p in problems:
        out.setdefault(p["code"], []).append(p["step"])
    return out


def pool_problem_lines(d) -> list[str]:
    """Block [6]'s invariant violations (none in a correct run, so nothing is printed then)."""
    if not d["pool_problems"]:
        return []
    found = steps_by_problem(d["pool_problems"])
    return ["Bất biến của bể block bị vi phạm: "
            + "; ".join(f"{POOL_PROBLEMS[code]} (bước {', '.join(map(str, steps))})" for code, steps in found.items()) + "."]


def prefix_cache_lines(d) -> list[str]:
    """Block [6] with PREFIX_CACHE=on: hits, shared blocks (ref count > 1), evictions, what stays cached."""
    hits = [f"{h['request']} lấy {h['tokens']} token (block {h['blocks']}) ở bước {h['step']}"
            + (" khi tính lại sau preempt" if h["recompute"] else "") for h in d["hits"]]
    lines = [f"Prefix cache (theo {VLLM_DOCS['prefix_cache']}): mỗi block ĐẦY mang hash = băm(token của nó, hash block cha); "
             "chuỗi mới vào chạy lấy lại các block đầy trùng phần đầu prompt (số tham chiếu +1) và chỉ prefill phần còn lại, ít nhất token cuối.",
             ("Trúng cache: " + "; ".join(hits) + ".") if hits
             else "Trúng cache: không lần nào (không prompt nào có block đầy đầu tiên trùng với block đã tính)."]
    if d["shared_blocks"]:
        lines.append(f"Block dùng chung (số tham chiếu > 1, nhiều chuỗi đang chạy cùng đọc): {d['shared_blocks']}; "
                     f"nhiều nhất {d['max_shared']} chuỗi cùng giữ một block.")
    else:
        lines.append("Block dùng chung: không có lúc nào hai chuỗi đang chạy cùng giữ một block (số tham chiếu luôn <= 1).")
    ev = [f"block {e['block']} (bước {e['step']})" for e in d["evictions"]]
    lines.append(("Evict (đầu hàng đợi block trống, LRU, bị lấy cho dữ liệu mới nên mất hash): " + ", ".join(ev) + ".") if ev
                 else "Evict: không block nào có hash bị lấy lại cho dữ liệu mới.")
    lines.append(f"Block trả về đi vào CUỐI hàng đợi trống (block cuối của chuỗi trước) và giữ hash: lúc kết thúc {len(d['cached_free'])} block trống "
                 "vẫn dùng lại được cho yêu cầu sau có cùng phần đầu.")
    lines.append("Giới hạn: chỉ block đầy được chia sẻ và không bị ghi lại (không cần copy-on-write); block trùng nội dung không được gộp "
                 "(bảng block chỉ nối thêm, như vLLM v1); không swap sang CPU, không cache_salt.")
    return lines


# ── [7] ────────────────────────────────────────────────────────────────────
def block7_decode(d, fid) -> list[str]:
    fd = d.get("first_decode")
    if fd is None:
        return [f"{fid} dừng ngay sau token đầu tiên nên không có bước decode nào để xem trọng số attention."]
    return [
        f"Bước decode đầu của {fid}: đưa token '{fd['token_text']}' (vị trí {fd['position']}), attention head 0 có {len(fd['weights'])} trọng số: {fd['position']} vị trí đọc từ cache + 1 vị trí là chính nó.",
        f"Các trọng số đó: {vec(fd['weights'])} tổng = {fd['sum']:.6f}; K/V của {fd['position']} vị trí cũ không phải tính lại.",
    ]


def block7(d, ctx):
    fid = ctx.follow["id"]
    counts = f"dùng cache = {d['positions_cached']}; nếu mỗi bước tính lại cả lịch sử = {d['positions_naive']}."
    tail = [
        "Đây là số vị trí phải tính, đếm thật khi chạy; thời gian tiết kiệm thật trên GPU còn phụ thuộc phần cứng và CHƯA được đo ở đây.",
        "Kết luận: mỗi bước decode tính ít token nhưng vẫn phải đọc lại trọng số và toàn bộ KV, nên thường bị giới hạn bởi băng thông bộ nhớ, không phải bởi phép nhân.",
    ]
    if not ctx.follow["served"]:
        return "Vòng lặp tự hồi quy với KV cache", not_followed(ctx) + [f"Đếm vị trí đã đưa qua mô hình (các yêu cầu được phục vụ): {counts}"] + tail
    recompute = d["n_out"] - 1 - d["n_decode"]
    lines = [f"{fid} sinh {d['n_out']} token: 1 token từ prefill + {d['n_decode']} bước decode; mỗi bước chỉ đưa vào 1 token mới."]
    if d["preempted"]:
        again = f"; {recompute} token đến từ lần prefill lại (prompt + token đã sinh)" if recompute else ""
        lines.append(f"{fid} bị preempt {d['preempted']} lần (KV bị bỏ, phải tính lại){again}.")
    lines += block7_decode(d, fid)
    lines.append(f"Cache của {fid} dài {d['cache_len']} vị trí khi kết thúc (token cuối được chọn nhưng chưa bao giờ được đưa vào mô hình).")
    lines.append(f"Đếm vị trí đã đưa qua mô hình (cả 3 yêu cầu): {counts}")
    return "Vòng lặp tự hồi quy với KV cache", lines + tail


# ── [8] ────────────────────────────────────────────────────────────────────
def stop_lines(d) -> list[str]:
    return ([f"  {s['id']}: dừng vì {s['reason']} sau {s['n']}/{s['max_new']} token -> {s['text']!r}" for s in d["stops"]]
            + [aborted_stop_line(s) for s in d.get("aborted", [])])


def aborted_stop_line(s) -> str:
    head = f"  {s['id']}: bị HỦY lúc {ms(s['time'])} (client hủy lúc {ms(s['cancel_at'])})"
    if not s["n"]:
        return head + f" trước token đầu tiên: 0/{s['max_new']} token, client không nhận được gì"
    return head + f" sau {s['n']}/{s['max_new']} token -> {s['text']!r} (client đã nhận chừng ấy token qua streaming)"


def block8(d, ctx):
    title = "Từ logits tới một token, rồi dừng hay tiếp"
    tail = ["Quan sát: token đầu đến đúng lúc TTFT, các token sau cách nhau theo TPOT; engine không đợi câu hoàn chỉnh mới gửi.",
            "Cảnh báo: văn bản vô nghĩa (hoặc lặp một chữ) vì trọng số ngẫu nhiên chưa huấn luyện; chỉ cơ chế chọn token và dừng là thật."]
    stop = "Kiểm tra dừng sau mỗi token: gặp <eos> hoặc đủ max_new_tokens. Kết quả:"
    if not ctx.follow["served"]:
        return title, not_followed(ctx) + [stop, *stop_lines(d)] + tail
    fid = ctx.follow["id"]
    stream = ", ".join(f"{ms(t)} '{tok}'" for t, tok in d["stream"])
    return title, [
        f"{fid}: temperature {d['temperature']}, top_k {d['top_k']}, top_p {d['top_p']}, seed {d['seed']}; áp cho hàng logits ở khối [4].",
        f"Logits chia temperature rồi softmax -> XÁC SUẤT trên {d['vocab']} token, tổng = {d['probs_sum']:.6f}. Năm token cao nhất: "
        + ", ".join(f"{t}={p:.3f}" for t, p in d["top5"]),
        f"Lọc top-k/top-p giữ {len(d['kept'])} token, tái chuẩn hóa tổng về 1: " + ", ".join(f"{t}={p:.3f}" for t, p in d["kept"]),
        f"Rút ngẫu nhiên (seed {d['seed']}) được ID {d['token']} = '{d['token_text']}'. Chọn token chưa phải xử lý token: nó vào cache ở bước decode kế tiếp.",
        stop, *stop_lines(d),
        f"Streaming của {fid} (thời điểm mô phỏng, token): {stream}",
        *tail,
    ]


# ── [9] ────────────────────────────────────────────────────────────────────
def block9(d, ctx):
    bits = d["bits"]
    fid = ctx.follow["id"]
    lines = [
        f"Lượng tử hóa {d['n_linear']} ma trận tuyến tính ({d['elements']} phần tử): scale = max|w| / {d['levels']} cho từng cột, w_int = round(w / scale).",
        f"Dung lượng định dạng: FP32 = {d['fp32_bytes']} byte -> INT{bits} + scale FP32 = {d['int_bytes']:.0f} byte (nhỏ hơn {d['fp32_bytes'] / d['int_bytes']:.2f} lần; phép tính trên định dạng, không phải đo).",
        f"Sai số khôi phục trọng số lớn nhất = {d['max_err']:.4f}; chặn lý thuyết (nửa scale lớn nhất) = {d['half_scale']:.4f}.",
    ]
    if d["probe"] == fid:
        lines.append(f"Sai số logits khi chạy prompt {fid} (so bản gốc với bản lượng tử hóa, bỏ <bos>) lớn nhất = {d['logit_err']:.4f}.")
    elif d["probe"] is not None:
        lines.append(f"Sai số logits khi chạy prompt {d['probe']} (thay cho {fid}, không có token ID; so bản gốc với bản lượng tử hóa, bỏ <bos>) lớn nhất = {d['logit_err']:.4f}.")
    lines += [
        "Kết luận: sai số số học nhỏ chỉ nói các con số gần nhau; có đổi quyết định chọn token hay không phải kiểm ở khối [13].",
        "Giới hạn: lab giả lập 'lưu số nguyên, giải nén ra số thực để nhân'; kernel số nguyên thật tạo thêm sai số và khác tốc độ. KV cache lượng tử hóa không được chạy.",
    ]
    return f"Lượng tử hóa trọng số INT{bits} đối xứng theo kênh đầu ra", lines


# ── [10] ───────────────────────────────────────────────────────────────────
def block10(d, ctx):
    x = d["example"]
    GiB = 1024 ** 3
    real_seq = 2 * x["layers"] * x["ctx"] * x["kv_heads"] * x["head_dim"] * x["bytes"]
    hbm, weights = x["hbm_gib"] * GiB, x["weights_gib"] * GiB
    bpt = d["bytes_per_token"]
    return "Trọng số + KV + vùng làm việc", [
        f"Trong lab: trọng số float64 = {d['weight_bytes']} byte; bể KV = {d['pool_blocks']} block x {d['block_size']} token x {bpt} byte/token = {d['pool_bytes']} byte.",
        f"Một token cần K và V: 2 x {d['n_heads']} head x {d['d_head']} chiều x {d['itemsize']} byte (float64 của NumPy) = {bpt} byte cho 1 lớp.",
        f"Khoảnh khắc cao điểm dùng {d['peak_used']} block = {d['peak_used'] * d['block_size'] * bpt} byte KV ({100 * d['peak_used'] / d['pool_blocks']:.0f}% bể).",
        "Công thức: byte KV = 2 x số lớp x số token x số KV head x chiều head x byte mỗi phần tử.",
        f"Ví dụ GIẢ ĐỊNH (tính tay, không đo; cùng cấu hình bài HBM): {x['layers']} lớp, {x['ctx']} token, {x['kv_heads']} KV head, head {x['head_dim']}, FP16 -> {real_seq} byte = {real_seq / GiB:.2f} GiB cho một chuỗi.",
        f"Giả sử GPU {hbm // GiB} GiB, trọng số FP16 {weights // GiB} GiB: còn {(hbm - weights) // GiB} GiB cho KV = tối đa {(hbm - weights) // real_seq} chuỗi {x['ctx']} token (chưa trừ vùng làm việc).",
        f"Nếu trọng số nén còn một nửa ({weights // 2 // GiB} GiB, giả định): còn {(hbm - weights // 2) // GiB} GiB -> {(hbm - weights // 2) // real_seq} chuỗi.",
        "Kết luận: KV tăng tuyến tính theo số token và số chuỗi; vì vậy bộ nhớ KV, không chỉ trọng số, quyết định số yêu cầu chạy đồng thời.",
    ]


# ── [11] ───────────────────────────────────────────────────────────────────
def ttft_line(m, slo, lost) -> str:
    parts = [("chuẩn bị đầu vào", m["prep"]), ("chờ chỗ chạy", m["queue"]), ("prefill", m["prefill"])]
    biggest = max(parts, key=lambda x: x[1])
    verdict = "VƯỢT" if m["ttft"] > slo else "đạt"
    line = (f"  {m['id']}: {m['prep']:>5} + {m['queue']:>5} + {m['prefill']:>5} = {m['ttft']:>5} | lớn nhất: {biggest[0]} | "
            f"{verdict} ngưỡng giả định {ms(slo)}")
    if lost:
        line += f" | bị preempt ở bước {lost} (thời gian mất tính trong phần prefill nếu trước token đầu)"
    return line


def aborted_metrics_line(m) -> str:
    if m["first"] is None:
        return f"  {m['id']}: bị hủy lúc {ms(m['finish'])} trước token đầu -> không có TTFT; không tính vào số liệu của yêu cầu được phục vụ."
    return (f"  {m['id']}: bị hủy lúc {ms(m['finish'])} sau {m['n']} token (token đầu lúc {ms(m['first'])}, TTFT {ms(m['ttft'])}); "
            "không tính vào số liệu của yêu cầu được phục vụ.")


def ttft_saved_line(rows) -> str:
    changed = [r for r in rows if r["saved"] or r["cached_tokens"]]
    if not changed:
        return "Prefix cache: so với chạy lại cùng trace khi tắt cache, TTFT của mọi yêu cầu không đổi (không ai trúng cache)."
    return ("Prefix cache: TTFT khi bật so với chạy lại cùng trace khi tắt: "
            + "; ".join(f"{r['id']} {ms(r['ttft'])} thay vì {ms(r['ttft_nocache'])} "
                        f"({'tiết kiệm ' + ms(r['saved']) if r['saved'] >= 0 else 'chậm hơn ' + ms(-r['saved'])}, "
                        f"{r['cached_tokens']} token prompt lấy từ cache)" for r in changed) + ".")


def block11(d, ctx):
    lines = ["Mỗi bước: thời lượng, số yêu cầu chờ/chạy, token decode/prefill, block KV đang dùng (đo sau khi các chuỗi vừa xong đã trả block)."]
    for i, st in enumerate(d["steps"]):
        mark = f" | preempt {', '.join(st['preempted'])}" if st["preempted"] else ""
        lines.append(f"bước {i + 1:>2}: {st['end'] - st['start']:>5} µs | chờ={st['waiting']} chạy={st['running']} decode={st['decode']} prefill={st['prefill']} "
                     f"| KV {st['kv_used']}/{d['pool_blocks']} ({100 * st['kv_used'] / d['pool_blocks']:.0f}%){mark}")
    lines.append("Phân rã TTFT (µs mô phỏng): chuẩn bị đầu vào + chờ chỗ chạy + prefill = TTFT")
    served = [m for m in d["requests"] if m["status"] == "finished"]
    lines += [ttft_line(m, d["ttft_slo"], d["preempted_at"].get(m["id"])) for m in served]
    if not served:
        lines.append("  (không có yêu cầu nào được phục vụ)")
    lines += [aborted_metrics_line(m) for m in d["requests"] if m["status"] == "aborted"]
    if "ttft_saved" in d:
        lines.append(ttft_saved_line(d["ttft_saved"]))
    lines.append("Kết luận: đừng chỉ nhìn tổng TTFT; xem phần nào lớn nhất để biết nút thắt là hàng đợi hay prefill trước khi sửa.")
    lines.append("Giới hạn: chỉ có 3 yêu cầu được phục vụ nên không có p95/p99 đáng tin; hệ thống thật cần hàng nghìn mẫu.")
    return "Số đo trên đồng hồ mô phỏng", lines


# ── [12] ───────────────────────────────────────────────────────────────────
def opt_ms(v) -> str:
    return ms(v) if v is not None else "n/a"


def policy_line(p, cfg) -> str:
    name = policy_name(p["policy"], cfg)
    if not p["served"]:
        return f"  {name:<38}: không có yêu cầu nào được phục vụ"
    line = (f"  {name:<38}: {ms(p['span'])} | {p['throughput']:.1f} token/s mô phỏng | {ms(p['mean_ttft'])} / {ms(p['max_ttft'])} | "
            f"{opt_ms(p['mean_tpot'])} | {ms(p['worst_gap'])}")
    return line + (f" | {p['preemptions']} lần preempt" if p["preemptions"] else "")


def reading_line(policies) -> str:
    by = {p["policy"]: p for p in policies}
    nochunk, chunked = by["nochunk"], by["chunked"]
    if nochunk["served"] and chunked["served"] and nochunk["mean_ttft"] < chunked["mean_ttft"] and nochunk["worst_gap"] > chunked["worst_gap"]:
        return (f"Cách đọc: không chia prompt thì TTFT trung bình thấp hơn ({ms(nochunk['mean_ttft'])} so với {ms(chunked['mean_ttft'])}) nhưng một yêu cầu đang decode bị đứng "
                f"tới {ms(nochunk['worst_gap'])} (so với {ms(chunked['worst_gap'])}). Chia đoạn đổi một phần TTFT lấy khoảng đứng ngắn hơn.")
    return "Cách đọc: với cấu hình hiện tại, chia đoạn prompt không còn cho đúng đánh đổi 'TTFT thấp hơn nhưng khoảng đứng dài hơn'; hãy so hai cột TTFT và cột cuối."


def block12(d, ctx):
    lines = ["Định nghĩa: TTFT = thời điểm token đầu - thời điểm đến; TPOT = khoảng cách trung bình giữa các token sau token đầu; throughput = tổng token / thời gian chạy.",
             "Từng yêu cầu (continuous + chunked): TTFT | TPOT | E2E | số token"]
    lines += [f"  {m['id']}: {ms(m['ttft'])} | {opt_ms(m['tpot'])} | {ms(m['e2e'])} | {m['n']}" for m in d["per"]]
    lines.append(f"Đúng trước, nhanh sau: đổi chính sách lập lịch có đổi token sinh ra không? Mọi yêu cầu chạy ở cả 3 chính sách đều cho cùng token: {d['same']}.")
    lines.append("Baseline: cùng trace, cùng seed, cùng công thức chi phí; chỉ đổi chính sách lập lịch (static = đợi đủ nhóm, chạy hết nhóm rồi mới nhận nhóm sau).")
    lines.append("Mỗi dòng: thời gian chạy | throughput | TTFT trung bình / lớn nhất | TPOT trung bình | khoảng cách lớn nhất giữa hai token liền kề của một yêu cầu")
    lines += [policy_line(p, ctx.cfg) for p in d["policies"]]
    lines.append(reading_line(d["policies"]))
    lines.append("Kết luận: các chênh lệch này là hệ quả của mô hình chi phí giả định trên 3 yêu cầu, KHÔNG phải tốc độ GPU thật; đổi trace hoặc COST_* có thể đổi thứ hạng.")
    lines.append("Benchmark thật cần: khởi động nóng, lặp lại nhiều lần, báo p50/p95/p99, cùng phần cứng và cùng mẫu tải. Một lần chạy không đủ.")
    return "TTFT, TPOT và throughput", lines


# ── [13] ───────────────────────────────────────────────────────────────────
def block13(d, ctx):
    bits = d["bits"]
    lines = [f"Cách làm: với mỗi prompt, mô hình gốc chạy greedy {d['steps']} bước; ở mỗi bước đưa CÙNG ngữ cảnh cho bản lượng tử hóa và so token top-1 (teacher forcing)."]
    lines += [f"  {r['id']}: khớp {r['agree']}/{r['n']} quyết định top-1; sai số logits lớn nhất {r['max_err']:.4f}" for r in d["rows"]]
    lines += [f"  {s['id']}: bỏ qua: {unknown_text(s['chars'], s['pieces'], code='')}" for s in d["skipped"]]
    if d["decisions"]:
        t = d["tight"]
        lines.append(f"Tổng: {d['decisions'] - d['flips']}/{d['decisions']} quyết định giống nhau = {100 * d['agreement']:.1f}%; ngưỡng cổng giả định {100 * d['gate']:.0f}% -> {'ĐẠT' if d['passed'] else 'KHÔNG ĐẠT'}.")
        lines.append(f"Quyết định sát nhất: prompt {t['id']}, bước {t['step'] + 1}: bản gốc hơn token nhì {t['margin']:.4f} điểm; bản lượng tử hóa hơn {t['margin_q']:.4f} điểm "
                     f"-> {'giữ nguyên' if t['margin_q'] > 0 else 'ĐÃ ĐỔI'} token được chọn.")
    else:
        lines.append("Tổng: không có prompt nào tokenize được nên cổng chất lượng không có quyết định nào để so.")
    lines.append("Cách đọc: token top-1 chỉ đổi khi sai số làm hai điểm số đảo thứ tự; sai số logits lớn nhất (các dòng trên) chỉ là chặn trên, không tự nó báo token đổi.")
    lines.append(f"Kết luận: cổng này là kiểm tra hồi quy trên mô hình đồ chơi, {d['decisions']} quyết định. Nó KHÔNG đo chất lượng ngôn ngữ; bản thật cần bộ đánh giá theo nhiệm vụ.")
    return f"Cổng chất lượng: bản gốc và bản INT{bits} có chọn cùng token không?", lines


BLOCKS = {1: block1, 2: block2, 3: block3, 4: block4, 5: block5, 6: block6, 7: block7, 8: block8, 9: block9,
          10: block10, 11: block11, 12: block12, 13: block13}


# ── TỔNG KẾT ───────────────────────────────────────────────────────────────
def stand_in_note(ctx, checks) -> list[str]:
    fl = ctx.follow
    if fl["served"]:
        return []
    fate = "bị hủy" if fl.get("code") == "aborted" else "bị từ chối"
    used = sorted({c.detail for c in checks if c.detail and c.detail != "skipped"})
    if not used:
        return [f"Ghi chú: {fl['id']} {fate} và không yêu cầu nào được phục vụ, nên các kiểm tra về xác suất và attention được bỏ qua."]
    return [f"Ghi chú: {fl['id']} {fate} nên các kiểm tra xác suất/attention dùng yêu cầu được phục vụ {', '.join(used)} thay cho {fl['id']}."]


def summary_lines(ctx, checks) -> list[str]:
    fl, fm = ctx.follow, ctx.follow_metrics
    if fl["served"]:
        first = f"1. Yêu cầu {fl['id']} đi qua 13 khối; TTFT {ms(fm['ttft'])} = chuẩn bị {ms(fm['prep'])} + chờ chỗ chạy {ms(fm['queue'])} + prefill {ms(fm['prefill'])}."
    else:
        first = f"1. {refusal(ctx)}; các khối theo dõi đã nói rõ điều đó. {how_to_follow(ctx)}"
    lines = [
        "TỔNG KẾT: Bạn vừa quan sát được gì?",
        first,
        "2. Đổi cách lập lịch hay lưu KV theo block không đổi token sinh ra (đã so token và logits); chúng chỉ đổi thời gian và bộ nhớ.",
        "3. Attention weights (trên vị trí) và xác suất từ vựng (trên token) là hai phân phối khác nhau, mỗi phân phối tổng bằng 1.",
        "4. Số ms là mô phỏng theo giả định; số byte, số vị trí, token và sai số là kết quả tính thật trong lab này.",
        *stand_in_note(ctx, checks),
    ]
    failed = [c for c in checks if not c.ok]
    if failed:
        lines.append("FAIL: kiểm tra bất biến không đạt: " + "; ".join(CHECK_LABELS[c.name] for c in failed) + ".")
    else:
        lines.append("PASS: đường ống phục vụ LLM thu nhỏ chạy đúng (cache khớp tính lại, block được trả đủ, lập lịch không đổi nội dung).")
    return lines
