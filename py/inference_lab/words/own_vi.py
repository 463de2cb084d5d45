"""Câu của riêng lab ở nơi câu của bản gốc sai, tiếng Việt: nói ở mọi lần chạy không trùng byte với bản gốc
(limits.seed_identical), thay cho một dòng của bản gốc và ghi chú của nó (text_notes.py): mỗi câu mang điều mà ghi
chú nói bên cạnh lần chạy trùng bản gốc, thành một câu của khối.

Cùng khóa ở own_vi.py và own_en.py (tests/test_text.py kiểm); text_vi.py thêm chúng vào bảng của nó.
Leaves out: khi nào câu được nói (text.py, text_compute.py, text_intake.py, text_measure.py).
"""
from __future__ import annotations

SAY = {
    "header.how_to_read_lab": "CÁCH ĐỌC: mỗi khối [n · Tên] là một chặng của đường ống phục vụ (bảng ánh xạ trên trang cho biết mỗi khối nằm ở đâu trong mã). Đọc Quan sát, nhìn số, rồi tự nói lại Kết luận.",
    "header.vllm_names": "TÊN TRONG VLLM: SLOTS là max_num_seqs (số chuỗi chạy cùng lúc), TOKEN_BUDGET là max_num_batched_tokens (số token mỗi bước), BLOCK_SIZE là --block-size, POOL_BLOCKS là num_gpu_blocks (vLLM tự tính từ gpu_memory_utilization, xem khối [10]); QUEUE_LIMIT và mã 429 thuộc về cổng đứng trước engine.",
    "b3.follow_wait_lab": "{fid}: sẵn sàng lúc {f[ready]:ms}, nhưng bước đầu của nó bắt đầu lúc {f[start]:ms} -> chờ được lập lịch {f[queue]:ms}{why}.",
    "b3.follow_wait_lab_fine": "{fid}: sẵn sàng lúc {f[ready]:ms3}, nhưng bước đầu của nó bắt đầu lúc {f[start]:ms3} -> chờ được lập lịch {f[queue]:ms3}{why}.",
    "b3.why_slot": " (chờ chỗ chạy trống)",
    "b3.why_step_end": " (chờ bước đang chạy kết thúc: yêu cầu chỉ vào lô ở ranh giới giữa hai bước)",
    "b3.why_kv": " (bị trả về hàng đợi vì thiếu block KV, xem dưới)",
    "b3.why_budget": ": ở bước {steps} nó không được phần nào của ngân sách token mỗi bước (TOKEN_BUDGET, tức max_num_batched_tokens của vLLM) dù không thiếu chỗ chạy",
    "b5.how_to_read_lab": "Cách đọc: hai head cho phân phối khác nhau vì phép chiếu Q và K của chúng (W_Q, W_K) khác nhau (dưới GQA, các head dùng chung một K/V vẫn khác nhau vì Q khác); head 0 nhìn nhiều nhất vị trí {d[argmax][0]}, head 1 nhìn nhiều nhất vị trí {d[argmax][1]}.",
    "b5.check_all_n": "Kiểm tra số học: logits qua KV cache khớp tính lại cả chuỗi ở MỌI bước (prefill + decode, cả {n} yêu cầu được phục vụ), {parity}",
    "b6.recompute": "K/V tính lại sau preempt khớp bản cũ vì lab tính bằng NumPy float64; trên GPU, batch khác làm đổi kernel và thứ tự cộng, nên K/V và token greedy có thể khác (batch invariance).",
    "b7.positions_all_n": "Đếm vị trí đã đưa qua mô hình (cả {n} yêu cầu được phục vụ): {counts}",
    "b10.vllm_memory": "vLLM không nhận số block trực tiếp: nó lấy gpu_memory_utilization (mặc định 0.9) x HBM, trừ trọng số và vùng làm việc đo lúc khởi động, rồi chia phần còn lại cho số byte mỗi block (--block-size token) để ra num_gpu_blocks; POOL_BLOCKS là num_gpu_blocks của lab.",
    "b11.breakdown_lab": "Phân rã TTFT (µs mô phỏng): chuẩn bị đầu vào + chờ được lập lịch (chờ chỗ chạy, block KV hoặc phần ngân sách token) + prefill = TTFT",
    "b11.queue_lab": "chờ được lập lịch",
    "b11.wait_budget": "Chờ được lập lịch không chỉ là chờ chỗ: {who}; đó là chờ tới lượt trong ngân sách token mỗi bước (TOKEN_BUDGET, tức max_num_batched_tokens của vLLM).",
    "b11.vllm_metrics": "Tên số đo trong vLLM: chờ= là vllm:num_requests_waiting, chạy= là vllm:num_requests_running, KV x/y (%) là vllm:kv_cache_usage_perc, số lần preempt là vllm:num_preemptions; TTFT và ITL là histogram vllm:time_to_first_token_seconds và vllm:inter_token_latency_seconds.",
    "b12.legend_lab": "Mỗi dòng: thời gian chạy | throughput | TTFT trung bình / lớn nhất | TPOT trung bình | ITL lớn nhất (inter-token latency: khoảng cách lớn nhất giữa hai token liền kề của một yêu cầu, vllm:inter_token_latency_seconds của vLLM)",
    "b12.batch_invariance_greedy": "Việc các yêu cầu greedy cho cùng token dưới mọi chính sách đúng ở đây vì lab tính bằng NumPy float64; trên GPU, hình dạng batch đổi kernel và thứ tự cộng, nên cùng prompt greedy có thể ra token khác khi lập lịch khác (batch invariance).",
    "b12.batch_invariance": "Việc mọi chính sách cho cùng token đúng ở đây vì lab tính bằng NumPy float64; trên GPU, hình dạng batch đổi kernel và thứ tự cộng, nên cùng prompt greedy có thể ra token khác khi lập lịch khác (batch invariance).",
    "b12.batch_invariance_replayed": "Ở đây các chính sách kia dùng lại token của lần chạy này nên token không thể khác; trên GPU, hình dạng batch đổi kernel và thứ tự cộng, nên cùng prompt greedy có thể ra token khác khi lập lịch khác (batch invariance).",
    "b12.mixed_step": "Đồng hồ seed tính bước trộn decode + prefill (bước {steps}) cả COST_PREFILL_FIXED {pre} µs lẫn COST_DECODE_FIXED {dec} µs, như thể đọc trọng số hai lần; GPU thật chạy mỗi bước một lượt forward và đọc trọng số một lần, nên ở đây continuous + chunked bị tính đắt hơn thật và có thể thua static (--clock roofline tính mỗi bước một lần).",
    "summary.followed_lab": "1. Yêu cầu {fl[id]} đi qua 13 khối; TTFT {fm[ttft]:ms} = chuẩn bị {fm[prep]:ms} + chờ được lập lịch {fm[queue]:ms} + prefill {fm[prefill]:ms}.",
    "summary.tokens_lab": "2. Đổi cách lập lịch hay lưu KV theo block không đổi token sinh ra ở đây (đã so token và logits, tính bằng NumPy float64; trên GPU hình dạng batch có thể đổi chúng: batch invariance); chúng chỉ đổi thời gian và bộ nhớ.",
    "summary.pass_replayed": "PASS: đường ống phục vụ LLM thu nhỏ chạy đúng (cache khớp tính lại, block được trả đủ; các chính sách kia chạy lại với token của lần chạy này, khối [12]).",
    "later.b6": "Các lần chạy lại theo chính sách khác ({runs}) có hết block hay phải preempt không: với lần chạy lớn này trang chưa tính; bấm «Tính so sánh» để tính (dòng lệnh luôn tính ngay).",
    "later.b11": "TTFT mà prefix cache tiết kiệm (so với lần chạy lại không prefix cache): với lần chạy lớn này trang chưa tính; bấm «Tính so sánh» để tính (dòng lệnh luôn tính ngay).",
    "later.b12": "Khối này so lần chạy chính với các lần chạy lại của nó theo chính sách khác ({runs}); với lần chạy lớn này trang chưa tính chúng: bấm «Tính so sánh» để tính; dòng lệnh luôn tính ngay.",
    "later.checks": "CHỜ: {n} kiểm tra cần các lần chạy lại của khối [11]/[12] chưa chạy ({labels}); bấm «Tính so sánh» để chạy chúng.",
}
