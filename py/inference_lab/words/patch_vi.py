"""Every sentence of the code editor's lessons, in Vietnamese: the templates lessons.say fills, one key per sentence.

A patch (`--patch MODULE=FILE.py`, the page's "Sửa mã") that cannot run, or a patched run that goes
wrong, is told to the student with these sentences (patch.py, contracts.py, lessons.py, web.py say
which one and when). `{file}` is the student's file as shown ("plan.py", "bài tập 11: scheduler.plan_tasks"),
`{function}` a function's name; the format specs are templates.py's. patch_en.py has the same keys in
English; `returns.<module.function>` is what each function with a contract must return.

Leaves out: which sentence is said when, and every check (patch.py, contracts.py decide).
"""
from __future__ import annotations

from .templates import Words

SAY = {
    # ── a patch as given (patch.Unit, web.patch_units) ────────────────────
    "unit.no_module": "không có mô-đun {module!r} để sửa; chọn một trong: {modules}",
    "unit.not_text": "mã sửa cho {module} phải là một chuỗi",
    "unit.first_line": "first_line của {module} phải là số nguyên >= 1",
    "unit.not_json": "patches không phải JSON hợp lệ ({msg})",
    "unit.not_patches": "patches phải là {{mô-đun: mã}} hoặc một danh sách {{module, source}}",
    # ── loading: syntax, names, parameters ────────────────────────────────
    "load.line": "dòng {line}",
    "load.column": ", cột {col}",
    "load.syntax": "{file}: lỗi cú pháp ở {where}: {msg}",
    "load.signature": "{file}: hàm {function} phải nhận các tham số như bản gốc: {function}({wanted}).",
    "load.no_such_function": "{file}: mô-đun {module} không có hàm {function} để thay. Hàm thay được: {replaceable}. "
                             "Hàm phụ của riêng bạn: đặt tên bắt đầu bằng _ (ví dụ _{function}).",
    "load.must_define": "{file}: mã này phải định nghĩa hàm {function} (def {function}(...):).",
    "load.defines_nothing": "{file}: không định nghĩa hàm nào của {module} (thay được: {replaceable}).",
    # ── running: the student's lines, the engine's failure, a stop ────────
    "run.earlier_calls": "    ... ({n} lần gọi trước không hiện)",
    "run.top_level": "mức ngoài cùng của tệp",
    "run.frame": "  {file}, dòng {line}, trong {where}",
    "run.exception": "{file}: lỗi khi chạy mã của bạn (chỉ các dòng của bạn):",
    "run.engine": "Engine dừng vì lỗi khi chạy với mã đã sửa ({names}): {detail}. Lỗi không nằm "
                  "trong dòng nào của bạn: hãy xem lại giá trị các hàm của bạn trả về và các đối số chúng sửa.",
    "run.stopped": "Đã dừng ({stopped}) khi đang chạy mã đã sửa.",
    "run.stopped_here": " Lúc dừng, mã của bạn đang ở đây (có thể là một vòng lặp không bao giờ kết thúc):\n",
    "run.stopped_engine": "Đã dừng ({stopped}) khi máy đang chạy.",
    "run.stopped_engine_here": " Lúc dừng, máy đang ở đây:\n",
    "run.unsendable": "Kết quả của lần chạy với mã đã sửa không gửi được về trang: {error}.",
    "run.printed_cut": "\n… (bỏ {cut} ký tự)",
    # ── return values: the lesson, then what each contract says ───────────
    "return.wrong": "{file}: {function} trả về giá trị sai: {error}\n{function} phải trả về {must}",
    "value.array": "mảng NumPy shape {shape}",
    "value.integer": "{what} phải là số nguyên, nhận {value}.",
    "value.numeric_array": "{what} phải là mảng số NumPy, nhận {value}.",
    "value.shape": "{what} phải có shape {shape}, nhận shape {got}.",
    "value.not_finite": "{what} có giá trị không hữu hạn (nan hoặc inf).",
    "value.distribution": "{what} phải là phân phối xác suất (không âm, tổng 1), nhận tổng {total:.6g}.",
    "value.result": "kết quả",
    "value.negative": "nhận {value}, một số âm.",
    "value.negative_us": "nhận {value} µs, một số âm.",
    "gateway.not_bool": "nhận {value}, không phải True/False.",
    "accepts.not_bool": "accepts phải trả True (nhận token đề xuất) hoặc False (từ chối); nhận {value}.",
    "room.what": "số yêu cầu được vào chạy",
    "room.forever": "nhận 0 khi không chuỗi nào đang chạy, không yêu cầu nào sắp đến và mọi yêu cầu đang "
                    "chờ ({ready}) đều sẵn sàng: engine sẽ chờ mãi.",
    "plan.not_list": "nhận {value}, không phải một danh sách.",
    "plan.not_triple": "việc thứ {i} là {value}, không phải bộ ba (phase, seq, n).",
    "plan.phase": "việc thứ {i}: phase phải là \"prefill\" hoặc \"decode\", nhận {phase!r}.",
    "plan.not_running": "việc thứ {i}: {value} không phải một chuỗi trong running.",
    "plan.twice": "chuỗi {seq} có hai việc trong cùng một bước.",
    "plan.n": "việc thứ {i}: số token n",
    "plan.decode": "{seq}: decode chỉ dành cho chuỗi đã prefill xong (còn {left} "
                   "token prompt) và đúng 1 token (nhận n = {n}).",
    "plan.prefill": "{seq}: prefill phải có 1 ≤ n ≤ số token prompt còn lại ({left}), nhận n = {n}.",
    "plan.over_budget": "kế hoạch dùng {total} token, vượt ngân sách budget_cap = {budget_cap}.",
    "plan.empty": "danh sách rỗng trong khi có {n} chuỗi đang chạy: engine sẽ không bao giờ xong.",
    "victim.not_running": "{value} không phải một chuỗi đang chạy (running: {running}).",
    "duration.what": "thời lượng bước (µs)",
    "sample.not_pair": "nhận {value}, không phải cặp (token, info).",
    "sample.outside": "token {token} nằm ngoài từ vựng (0..{last}).",
    "sample.missing": "info thiếu khóa {keys}.",
    "sample.mode": "info['mode'] phải là chuỗi (\"greedy\" hoặc \"sampling\"), nhận {value}.",
    "draw.outside": "token {token} nằm ngoài 0..{last}.",
    "quantize.not_pair": "nhận {value}, không phải cặp (Wq, info) gồm hai dict.",
    "quantize.missing": "Wq thiếu ma trận {names}.",
    "quantize.no_entry": "info thiếu mục {name!r} (một dict cho mỗi ma trận được lượng tử hóa).",
    "quantize.entry_keys": "info[{name!r}] thiếu khóa {keys}.",
    "quantize.numbers": "info[{name!r}] phải có số cho elements, scales, max_err, half_scale.",
    "quantize.finite": "info[{name!r}]: max_err và half_scale phải hữu hạn.",
    "attention.not_pair": "nhận {value}, không phải cặp (ctx, prob).",
    # ── what each function with a contract must return ────────────────────
    "returns.engine.gateway_admits": "True (cho yêu cầu vào) hoặc False (từ chối bằng 429).",
    "returns.scheduler.admission_room": "số nguyên ≥ 0: số yêu cầu sẵn sàng được vào chạy ngay bây giờ.",
    "returns.scheduler.plan_tasks": "danh sách [(phase, seq, n)]: phase là \"decode\" (n = 1, chuỗi đã prefill xong) hoặc "
                                    "\"prefill\" (1 ≤ n ≤ seq.num_prefill_left), mỗi seq là một chuỗi trong running và "
                                    "xuất hiện tối đa một lần, tổng n ≤ budget_cap khi có prefill, và ít nhất một việc khi "
                                    "running không rỗng.",
    "returns.scheduler.choose_victim": "một chuỗi trong running (có thể chính seq): chuỗi sẽ bị preempt.",
    "returns.scheduler.step_duration": "số nguyên ≥ 0: thời lượng mô phỏng của bước, tính bằng µs.",
    "returns.sampler.sample": "cặp (token, info): token là số nguyên trong 0..vocab-1, info là dict có probs và filtered "
                              "(mảng dài vocab) và mode (chuỗi).",
    "returns.sampler.top_k_top_p": "mảng cùng shape với probs: không âm, tổng 1 (đã chuẩn hóa lại).",
    "returns.sampler.softmax": "mảng cùng shape với z: không âm, tổng 1.",
    "returns.sampler.draw": "số nguyên trong 0..len(probs)-1: token được rút.",
    "returns.quantization.quantize_weights": "cặp (Wq, info): Wq có mọi ma trận của W với cùng shape; info có, cho mỗi tên "
                                             "trong names, một dict elements, scales, max_err, half_scale, within_half_scale.",
    "returns.rejection_sampler.accepts": "True (giữ token đề xuất x) hoặc False (từ chối nó); luật đúng: u < min(1, p(x)/q(x)).",
    "returns.model.attention": "cặp (ctx, prob): ctx shape (T, H·d_head), prob shape (H, T, số vị trí nguồn).",
}

WORDS = Words(SAY)
