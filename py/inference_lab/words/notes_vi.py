"""The notes beside the seed's lines, in Vietnamese: where a line the seed prints is false or incomplete for
this run, text_notes.py picks one of these and the page (and the CLI, on stderr) shows it after the block.

Same keys in notes_vi.py and notes_en.py (tests/test_text.py checks); text_vi.py adds them to its table.
Leaves out: when a note is said (text_notes.py) and the seed's own lines (text_vi.py).
"""
from __future__ import annotations

SAY = {
    "note.mark": "Ghi chú: ",
    "note.request_count": "trace này có {n} yêu cầu; \"5 yêu cầu\" ở dòng ĐẦU VÀO là câu cố định của chương trình gốc.",
    "note.served_count": "lần chạy này phục vụ {n} yêu cầu; con số 3 trong khối này là câu cố định của chương trình gốc.",
    "note.vllm_config": "tên trong vLLM: SLOTS là max_num_seqs (số chuỗi chạy cùng lúc), TOKEN_BUDGET là max_num_batched_tokens "
                        "(số token mỗi bước), BLOCK_SIZE là --block-size, POOL_BLOCKS là num_gpu_blocks (vLLM tự tính từ "
                        "gpu_memory_utilization, xem khối [10]); QUEUE_LIMIT và mã 429 thuộc về cổng đứng trước engine.",
    "note.diagram": "trang này không có sơ đồ Tab 01 (sơ đồ ở trang bài học gốc); [n · Tên] là tên ô trên sơ đồ đó, và bảng ánh xạ "
                    "trên trang cho biết mỗi khối nằm ở đâu trong mã.",
    "note.cancel": "lab này CÓ mô phỏng hủy yêu cầu khi một yêu cầu có cancel_at (như đường abort của vLLM); trace này không có yêu cầu nào bị hủy.",
    "note.greedy": "{fid} là greedy (temperature 0): logits không chia temperature và không có lần rút ngẫu nhiên nào; token là argmax của logits, ID {d[token]} = '{d[token_text]}', còn xác suất ở trên là softmax của logits giữ nguyên.",
    "note.heads": "trọng số attention chỉ phụ thuộc vào Q và K (softmax của Q·Kᵀ; V được trộn vào sau): ở đây (MHA) mỗi head có W_Q và "
                  "W_K riêng, nên có Q, K và hàng riêng; dưới GQA, các head dùng chung một K vẫn cho hàng khác nhau vì Q của chúng khác.",
    "note.pool_limits": "lab này CÓ mô phỏng prefix cache với đếm tham chiếu (PREFIX_CACHE=on) và preemption kiểu recompute khi hết block; "
                        "lần chạy này tắt prefix cache và không lần nào hết block.",
    "note.recompute": "K/V tính lại sau preempt khớp bản cũ vì lab tính bằng NumPy float64; trên GPU, batch khác làm đổi kernel và thứ tự "
                      "cộng, nên K/V và token greedy có thể khác (batch invariance).",
    "note.vllm_memory_auto": "vLLM không nhận số block trực tiếp: nó lấy gpu_memory_utilization (mặc định 0.9) x HBM, trừ trọng số và vùng nhớ làm việc đo lúc khởi động, rồi chia phần còn lại cho số byte của một block (--block-size token) để ra num_gpu_blocks; POOL_BLOCKS = {n} của lần chạy này là số mà POOL_BLOCKS=auto cho: cùng phép tính đó từ datasheet (khối [10]), chặn ở mức trace này giữ cùng lúc được.",
    "note.vllm_memory": "vLLM không nhận số block trực tiếp: nó lấy gpu_memory_utilization (mặc định 0.9) x HBM, trừ trọng số và vùng "
                        "làm việc đo lúc khởi động, rồi chia phần còn lại cho số byte mỗi block (--block-size token) để ra num_gpu_blocks; "
                        "POOL_BLOCKS của lab đặt thẳng con số đó.",
    "note.vllm_metrics": "tên số đo trong vLLM: chờ= là vllm:num_requests_waiting, chạy= là vllm:num_requests_running, KV x/y (%) là "
                         "vllm:kv_cache_usage_perc, số lần preempt là vllm:num_preemptions; TTFT và ITL là histogram "
                         "vllm:time_to_first_token_seconds và vllm:inter_token_latency_seconds.",
    "note.wait_steps": "{id} không nhận token nào ở bước {steps} dù không thiếu chỗ chạy",
    "note.wait_budget": "'chờ chỗ chạy' ở đây là chờ được lập lịch: {who}; đó là chờ tới lượt trong ngân sách token mỗi bước "
                        "(TOKEN_BUDGET, tức max_num_batched_tokens của vLLM).",
    "note.itl": "khoảng cách lớn nhất giữa hai token liền kề (cột cuối, 'khoảng đứng' ở dòng Cách đọc) là ITL lớn nhất; ITL "
                "(inter-token latency) là tên số đo này khi phục vụ mô hình, như vllm:inter_token_latency_seconds của vLLM.",
    "note.batch_invariance": "'không đổi token' đúng ở đây vì lab tính bằng NumPy float64; trên GPU, hình dạng batch đổi kernel và thứ tự "
                             "cộng, nên cùng prompt greedy có thể ra token khác khi lập lịch khác (batch invariance).",
    "note.mixed_step": "đồng hồ của bản gốc tính bước trộn decode + prefill (bước {steps}) cả COST_PREFILL_FIXED {pre} µs lẫn "
                       "COST_DECODE_FIXED {dec} µs, như thể đọc trọng số hai lần; GPU chạy mỗi bước một lượt forward, nên ở đây "
                       "continuous + chunked bị tính đắt hơn và có thể thua static (--clock roofline tính mỗi bước một lần).",
}
