"""Every sentence of the step narration, in Vietnamese: what happened at each step and which check decided it.

`narrate(record, cfg)` turns the step record (run_log.RunLog.to_dict()) into one (title, lines) per
step; the first line starts with "Bước N/M". `python -m inference_lab --steps` prints the lines, the
page's step navigator shows them and uses "Bước N/M: title" as the slider's spoken value. The
sentences are templates, one key each, that text_steps.py fills (format specs: templates.py's docstring);
a sibling of text_vi.py (which holds the 13 blocks' sentences) and, like it, the only place these words live.

Leaves out: which sentence is said when, and all computation (text_steps.py decides, run_log.py records).
"""
from __future__ import annotations

from . import text, text_steps, text_vi

SAY = {
    "wait.preparing": "còn chuẩn bị đầu vào",
    "wait.no_slot": "hết chỗ chạy",
    "wait.room_rule": "admission_room (mã đã sửa) cho 0 chỗ dù còn chỗ trống",
    "wait.group_running": "static: nhóm trước chưa chạy xong",
    "wait.group_incomplete": "static: chưa đủ một nhóm SLOTS yêu cầu sẵn sàng",
    "wait.no_kv": "thiếu block KV: vừa vào chạy ở ranh giới này thì quay lại hàng đợi",
    "stop.eos": "gặp <eos>",
    "stop.max_new_tokens": "đủ max_new",
    "freed.blocks": "trả block {blocks}",
    "freed.none": "chưa giữ block nào",
    # ── one line per kind of event ─────────────────────────────────────────
    "gate.head": "Cổng: {e[id]} (đến {e[arrival]:ms}) ",
    "gate.429": "bị TỪ CHỐI 429 vì hàng đợi đầy - {why} (SLOTS + QUEUE_LIMIT).",
    "gate.400": "qua cổng nhưng bị TỪ CHỐI 400 ở bước chuẩn bị đầu vào - {why}.",
    "gate.ok": "được nhận - {why}; vào hàng đợi, sẵn sàng lúc {e[ready]:ms}.",
    "admit.full_group": "{e[id]} vào chạy: static đủ một nhóm, nhận cả nhóm {slots} chỗ.",
    "admit.room": "{e[id]} vào chạy: lúc xét còn {e[room]}/{slots} chỗ trống.",
    "abort.running": "đang chạy",
    "abort.waiting": "đang chờ",
    "abort.gateway": "ở cổng, trước cả lúc đến: không được nhận, không chiếm chỗ",
    "abort.made": "đã sinh {e[generated]} token",
    "abort.none_made": "chưa sinh token nào",
    "abort.line": "HỦY: client của {e[id]} hủy lúc {e[cancel_at]:ms} -> engine bỏ {e[id]} ở ranh giới bước lúc "
                  "{e[time]:ms} ({where}, {made}, {freed}); trạng thái \"aborted\", "
                  "không chạy tiếp (như finish_requests của vLLM).",
    "overtake.behind": "{x[id]} (priority {x[priority]}, đến {x[arrival]:ms})",
    "overtake.line": "{e[id]} (priority {e[priority]}) vào chạy trước {behind} dù sẵn sàng sau: SCHED_POLICY=priority "
                     "xét hàng đợi theo (priority, lúc đến), số nhỏ trước.",
    "hit.own": "block của chính nó còn trong cache từ trước khi bị preempt",
    "hit.earlier": "block đầy cùng hash của một prompt trước",
    "hit.rest": ", chỉ phải prefill {left}/{total} token còn lại",
    "hit.line": "Prefix cache: {e[id]} lấy lại block {blocks} ({whose}): {e[tokens]} token đầu "
                "của prompt đã có K/V, không tính lại{rest}.",
    "running.decode": "{rid} decode (đã sinh {gen} token)",
    "running.redo": ", tính lại sau preempt: prompt + {gen} token đã sinh",
    "running.prefill": "{rid} prefill (prompt {done}/{total}{redo})",
    "waiting.empty": "Hàng đợi: trống.",
    "waiting.priority_of": "{id} (priority {p})",
    "waiting.by_priority": "Hàng đợi (theo thứ tự; vào chạy theo priority rồi lúc đến): {queue}.",
    "waiting.in_order": "Hàng đợi (theo thứ tự): {queue}.",
    "waiting.ready_at": "{id} (sẵn sàng lúc {t:ms})",
    "waiting.busy": " ({n}/{slots} chỗ đang bận)",
    "waiting.because": "Chờ vì {label}{busy}: {names}.",
    "waiting.preempted": "Đã bị preempt, chờ tính lại: {back}.",
    "waiting.more": " … và {n} yêu cầu nữa",
    "budget.cap": "Ngân sách {cap} token: ",
    "budget.no_cap": "Không giới hạn token: ",
    "budget.decodes": "decode trước: {ids}",
    "budget.no_decode": "không có decode",
    "budget.left": "còn {left} cho prompt: ",
    "budget.prompts": "prompt: ",
    "budget.used": " -> dùng {used}/{cap}, còn {left}.",
    "budget.got_none": "không được token nào",
    "budget.got_some": "chỉ được {e[got]}",
    "budget.event": "{e[id]} còn {e[left]} token prompt nhưng {got}: hết ngân sách {e[cap]} token của bước "
                    "(decode đi trước, rồi các đoạn prompt theo thứ tự vào chạy).",
    "budget.event_in_order": "{e[id]} còn {e[left]} token prompt nhưng {got}: hết ngân sách {e[cap]} token của bước "
                             "(theo thứ tự mà plan_tasks đã sửa trả về).",
    "budget.in_order": "theo thứ tự mà plan_tasks đã sửa trả về (không phải decode trước): {order}",
    "budget.task_decode": "{id} decode {n}",
    "budget.decode_spec": "{id} 1 + {k} đề xuất",
    "budget.task_decode_spec": "{id} kiểm tra 1 + {k} đề xuất",
    "budget.task_prefill": "{id} prompt {n}",
    "budget.no_decode_for": "; {ids} không được decode ở bước này",
    "spec.verify": "{rid} kiểm tra {k} đề xuất [{proposed}] trong một lượt forward ({k1} token qua KV cache): nhận {n}{tail}{gone}",
    "spec.recovered": ", token sửa #{t}",
    "spec.bonus": ", token thưởng #{t}",
    "spec.stop": ", dừng ở eos",
    "spec.rollback": "; {e[rejected]} vị trí bị bỏ khỏi KV cache (block trả về bể: {blocks})",
    "chunk.reprefill": "prefill lại",
    "chunk.prefill": "prefill",
    "chunk.starts": "bắt đầu ",
    "chunk.done": ", xong prompt",
    "chunk.line": "{e[id]} {start}{what} {e[n]} token (prompt {e[done]}/{e[total]}{end}).",
    "preempt.need": "{e[needed_by]} cần {e[need]} block KV mới nhưng bể chỉ còn {e[free]}/{pool} block trống",
    "preempt.rule": "có (priority, lúc đến) = ({p}, {t:ms}) lớn nhất trong các chuỗi đang chạy (SCHED_POLICY=priority)",
    "preempt.self_priority": "{e[id]} {rule} nên chính nó bị preempt",
    "preempt.other_priority": "preempt {e[id]}: nó {rule}",
    "preempt.self": "{e[id]} là chuỗi vào chạy gần nhất nên chính nó bị preempt",
    "preempt.other": "preempt {e[id]} (chuỗi vào chạy gần nhất)",
    "preempt.line": "PREEMPT: {need} -> {victim}: {freed}, quay lại đầu hàng đợi; khi chạy lại phải prefill lại "
                    "{e[recompute]} token (prompt + {e[generated]} token đã sinh).",
    "preempt.dropped": " Phần việc {e[dropped]} token của {e[id]} ở bước này không chạy.",
    "wait_kv.short": "CHỜ BLOCK KV: {e[id]} vừa vào chạy nhưng đoạn prompt của nó cần {e[need]} block KV mới, bể chỉ còn "
                     "{e[free]}/{pool} block trống -> {e[id]} quay lại hàng đợi ở chỗ cũ ({freed}) và không preempt ai: "
                     "như vLLM, yêu cầu đang chờ không bao giờ gây preempt.",
    "wait_kv.gives_way": "CHỜ BLOCK KV: {e[by]} cần {e[need]} block KV mới, bể chỉ còn {e[free]}/{pool} block trống -> "
                         "{e[id]} (vào chạy sau cùng ở ranh giới này) nhường trước: {freed}, quay lại hàng đợi ở chỗ cũ.",
    "wait_kv.behind": "CHỜ BLOCK KV: {e[id]} vào chạy sau {e[by]} ở ranh giới này, mà {e[by]} không có block KV -> {e[id]} "
                      "cũng quay lại hàng đợi ở chỗ cũ ({freed}): vLLM dừng nhận yêu cầu ở yêu cầu đầu tiên thiếu block.",
    "wait_kv.preempted": "CHỜ BLOCK KV: bước này đã preempt một chuỗi đang chạy -> {e[id]} (vừa vào chạy) quay lại hàng "
                         "đợi ở chỗ cũ ({freed}): như vLLM, bước có preempt không nhận yêu cầu nào từ hàng đợi.",
    "first": "{e[id]} có token đầu tiên lúc {e[time]:ms} (TTFT tính tới đây).",
    "kv_send": "{e[id]} xong prefill ở bản sao này: gửi KV của {e[positions]} vị trí ({e[bytes]} byte) sang bản sao "
               "decode {e[to]}, tới lúc {e[arrive]:ms}; trả block {blocks}.",
    "kv_recv": "{e[id]} nhận KV từ bản sao prefill {e[source]} ({e[positions]} vị trí, {e[bytes]} byte, tới lúc "
               "{e[arrived]:ms}, chờ block {e[waited]} µs), ghi vào block {blocks}; decode tiếp từ token thứ hai.",
    "title.kv_send": "{e[id]} gửi KV sang bản sao {e[to]}",
    "title.kv_recv": "{e[id]} nhận KV từ bản sao {e[source]}",
    "step.replica": "bản sao {r}: {title}",
    "finish": "{e[id]} xong ({why}, {e[n]} token), trả block {blocks}, nhường chỗ chạy.",
    "kv.after": "KV sau bước: {tables}.",
    "kv.no_tables": "không chuỗi nào giữ block",
    "kv.alloc": " Vừa cấp {blocks}.",
    "kv.reused": " Lấy lại từ prefix cache {blocks}.",
    "kv.freed": " Vừa trả {blocks}.",
    "kv.shared": " Dùng chung: {shared}.",
    "kv.free": " Trống {n}/{pool}: {ranges}",
    "kv.cached": "; trong đó còn giữ hash prefix cache (dùng lại được tới khi bị lấy cấp mới): {ranges}",
    "kv.none_left": "không còn",
    # ── CLOCK = roofline: the step's cost (roofline.py) ────────────────────
    "cost.decode": "decode {n} token",
    "cost.prefill": "prefill {n} token",
    "cost.line": "Chi phí trên {gpu} ({model}): {what}: đọc {gb} GB, {gflop} GFLOP -> {bound}: {floor_ms} ≈ {term} ở mức đỉnh; {tail}.",
    "cost.line_tp": "Chi phí trên mỗi GPU của {tp} x {gpu} ({model}, TENSOR_PARALLEL={tp}): {what}: mỗi GPU đọc {gb} GB, {gflop} GFLOP -> {bound}: {floor_ms} ≈ {term} ở mức đỉnh; cộng {comm_ms} giao tiếp (2 all-reduce vòng mỗi lớp qua liên kết {link} GB/s mỗi chiều); {tail}.",
    "cost.took": "với BANDWIDTH_FRACTION {bwf} và FLOPS_FRACTION {ff} của mức đỉnh, cộng STEP_OVERHEAD {overhead} µs, bước tốn {took:ms}",
    "cost.took_draft": "với BANDWIDTH_FRACTION {bwf} và FLOPS_FRACTION {ff} của mức đỉnh, cộng STEP_OVERHEAD {overhead} µs, lượt của mô hình đích tốn {target:ms}; các lượt của mô hình nháp thêm {extra:ms} (số lượt: {n}, mỗi lượt một vị trí đề xuất của đề xuất dài nhất; trọng số QUANT_BITS {bits} bit): bước tốn {took:ms}",
    "cost.decode_spec": "decode {n} token + kiểm tra {k} đề xuất",
    "cost.memory": "giới hạn bởi bộ nhớ (memory-bound)",
    "cost.compute": "giới hạn bởi tính toán (compute-bound)",
    "cost.by_bytes": "{gb} GB ÷ {tbs} TB/s",
    "cost.by_flops": "{gflop} GFLOP ÷ {tflops} TFLOP/s",
    # ── one step ───────────────────────────────────────────────────────────
    "title.preempt": "preempt {e[id]}",
    "title.wait_kv": "{e[id]} chờ block KV",
    "title.cancelled": "{e[id]} bị hủy",
    "title.cache_hit": "{e[id]} lấy {e[tokens]} token từ prefix cache",
    "title.overtake": "{e[id]} vượt {ids} nhờ priority",
    "title.reprefill": "{e[id]} bắt đầu prefill lại {e[n]} token",
    "title.prefill": "{e[id]} bắt đầu prefill {e[n]} token",
    "title.finish": "{e[id]} xong",
    "title.first": "{e[id]} có token đầu",
    "title.rejected": "{e[id]} bị từ chối {e[code]}",
    "title.decode": "{rid} decode",
    "title.prefill_task": "{rid} prefill {n} token",
    "step.head": "Bước {n}/{m} ({it[start]:ms} -> {it[end]:ms}): {title}",
    "step.running": "Đang chạy {n}/{slots} chỗ: {parts}.",
    "step.after": "Sau bước {count}:",
    "step.none": "Không có bước nào (không yêu cầu nào được chạy):",
    "step.empty": "Không việc nào chạy ở bước này: mọi chuỗi có việc đều bị preempt hoặc quay lại hàng đợi, nên bước không "
                  "tốn thời gian (như một lần schedule() của vLLM không xếp được token nào); chuỗi bị preempt chỉ vào "
                  "chạy lại từ bước sau.",
}

WORDS = text.Words({**text_vi.SAY, **SAY})     # with the blocks' templates, which word the refusal reasons
WAIT_WHY = text_steps.wait_labels(SAY)                # the page's labels of why a request waits
narrate, after_lines = text_steps.bind(WORDS)
