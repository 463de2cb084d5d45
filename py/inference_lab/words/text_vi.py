"""Every sentence the lab prints, in Vietnamese: the templates text.py fills, one key per sentence.

`BLOCKS[n](data, ctx)` returns block n's (title, lines); `header_lines`, `summary_lines`,
`CHECK_LABELS` and `TRACE` likewise (the names lab.py and trace.py use). With the seed's
constants — and with any constants for which the seed program completes — the lines are the
seed program's lines, character for character, including its fixed phrases (e.g. "5 yêu cầu",
"cả 3 yêu cầu") kept for that fidelity. Lines that only appear where the seed program would
crash (a refused followed request, preemption, nobody served, unknown characters) are this lab's own.

A template names the facts it prints: `{d[capacity]}` is a field of the block's data, `{x[arrival]:ms}`
a simulated time ("1.23 ms"), `{row:vec2}` an array (templates.py's docstring lists the specs).
text_en.py has the same keys in English (lab.TEXTS picks one by language); nothing in the
mechanics refers to these strings.

Leaves out: which sentence is said when, and every number (text.py decides, lab.py computes).
"""
from __future__ import annotations

from functools import partial

from . import cluster_vi, notes_vi, own_vi, spec_vi, text
from .text import BLOCK_CODES, Context  # noqa: F401  (lab.py and the tests use them from here)

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
    "one_replica": "mỗi yêu cầu đến đúng một bản sao (hoặc một prefill + một decode)",
    "replica_pools": "bể KV của mọi bản sao được trả đủ và giữ bất biến",
    "kv_shipped": "byte KV gửi đi = byte KV nhận về",
    "spec_greedy_text": "giải mã suy đoán không đổi token greedy",
    "spec_distribution": "luật chấp nhận của giải mã suy đoán giữ phân phối của mô hình đích",
}

# The public vLLM documents each simulated behaviour follows (named in the text and on the page).
VLLM_DOCS = {
    "prefix_cache": "tài liệu thiết kế \"Automatic Prefix Caching\" của vLLM",
    "abort": "đường hủy yêu cầu của vLLM (finish_requests, trạng thái FINISHED_ABORTED)",
    "priority": "chính sách lập lịch \"priority\" của vLLM (SchedulerConfig.policy)",
    "spec": "vllm/v1/spec_decode (NgramProposer) và RejectionSampler của vLLM; Leviathan và cs. 2023, Chen và cs. 2023",
}

POLICY_NAMES = {"static": "static (đợi đủ nhóm)", "nochunk": "continuous, không chia prompt"}

TRACE = dict(process="Inference Lab (đồng hồ mô phỏng, µs)", request="yêu cầu {id}", arrive="đến",
             ready="sẵn sàng", first="token đầu", finish="xong", abort="hủy", reject="từ chối {code}")   # trace.py's labels

SAY = {
    # ── why a request was refused, and the followed request's fate ─────────
    "why.gateway": "đang có {f[in_system]} yêu cầu trong hệ thống, {state} {f[slots]}+{f[queue_limit]}",
    "why.at_limit": "đã chạm giới hạn",
    "why.below_limit": "còn dưới giới hạn",
    "why.pool": "prompt {f[prompt]} token + max_new {f[max_new]} cần tới {f[blocks]} block KV "
                "({positions} vị trí, {f[block_size]} token mỗi block) > POOL_BLOCKS {f[pool_blocks]}: không bao giờ vừa bể KV",
    "why.context": "prompt {f[prompt]} token + max_new {f[max_new]}{total} {sign} MAX_CONTEXT {f[max_context]}",
    "why.code_400": "mã 400: ",
    "why.unknown_chars": "{code}văn bản có ký tự tokenizer chưa từng thấy: {chars} (từ vựng chỉ học từ 5 câu mẫu)",
    "why.unknown_pieces": "{code}BPE tách văn bản ra mảnh không có trong từ vựng: {pieces} "
                          "(mảnh trung gian của một phép gộp; từ vựng chỉ học từ 5 câu mẫu)",
    "refusal.cancelled": "Yêu cầu theo dõi {fl[id]} bị HỦY lúc {f[time]:ms} {where} (client hủy lúc {f[cancel_at]:ms}), "
                         "sau {f[generated]} token",
    "refusal.running": "khi đang chạy",
    "refusal.waiting": "khi còn trong hàng đợi",
    "refusal.before_arrival": "trước cả lúc đến, ở cổng",
    "refusal.rejected": "Yêu cầu theo dõi {fl[id]} bị TỪ CHỐI {fl[code]} {where} ({why})",
    "refusal.gateway": "ở cổng",
    "refusal.input": "ở bước chuẩn bị đầu vào",
    "follow.refused": "{refusal}, nên khối này không có số liệu của {id}.",
    "follow.nobody": "Không yêu cầu nào được phục vụ: xem lý do ở khối [1] và [2] (tăng SLOTS, QUEUE_LIMIT, MAX_CONTEXT hoặc POOL_BLOCKS) rồi chạy lại.",
    "follow.pick": "Muốn theo dõi chi tiết, chọn FOLLOW (--follow) là một yêu cầu được phục vụ: {ids}.",
    # ── header ─────────────────────────────────────────────────────────────
    "header.greedy": "greedy",
    "header.sampling": "lấy mẫu T={r[temperature]} top_k={r[top_k]} top_p={r[top_p]}",
    "header.followed": "  <- yêu cầu theo dõi",
    "header.cancels": ", client hủy lúc {r[cancel_at]:ms}",
    "header.request": "  {r[id]}: đến {r[arrival]:ms}, \"{r[text]}\", max_new={r[max_new]}, {mode}, seed {r[seed]}{extra}{mark}",
    "header.prefix_cache": "prefix cache tự động BẬT (PREFIX_CACHE=on, theo {docs[prefix_cache]})",
    "header.priority": "lập lịch theo độ ưu tiên (SCHED_POLICY=priority, theo {docs[priority]})",
    "header.title": "=== LAB TỔNG HỢP: MỘT YÊU CẦU ĐI QUA TOÀN BỘ ĐƯỜNG ỐNG PHỤC VỤ LLM ===",
    "header.goal": "MỤC TIÊU: theo dõi bằng số thật một yêu cầu từ lúc đến cổng tới lúc dừng, rồi đọc TTFT, TPOT và throughput.",
    "header.input": "ĐẦU VÀO: 5 yêu cầu đến cùng một engine (thời điểm đến tính trên đồng hồ mô phỏng). Bạn theo dõi yêu cầu {cfg[FOLLOW]} qua mọi khối.",
    "header.input_trace_to": "ĐẦU VÀO: {n} yêu cầu của một trace thật (WORKLOAD_TRACE, WORKLOAD_REQUESTS) đến {dest} (thời điểm đến tính trên đồng hồ mô phỏng). Bạn theo dõi yêu cầu {cfg[FOLLOW]} qua mọi khối.",
    "header.input_workload_to": "ĐẦU VÀO: {n} yêu cầu sinh tự động (WORKLOAD_REQUESTS) đến {dest} (thời điểm đến tính trên đồng hồ mô phỏng). Bạn theo dõi yêu cầu {cfg[FOLLOW]} qua mọi khối.",
    "header.input_to": "ĐẦU VÀO: {n} yêu cầu đến {dest} (thời điểm đến tính trên đồng hồ mô phỏng). Bạn theo dõi yêu cầu {cfg[FOLLOW]} qua mọi khối.",
    "header.one_engine": "cùng một engine",
    "header.to_cluster": "một router (ROUTER={cfg[ROUTER]}) đứng trước {cfg[REPLICAS]} bản sao engine",
    "header.cluster": "CỤM: {cfg[REPLICAS]} bản sao sau router, mỗi bản sao có riêng CẤU HÌNH ở trên (slot, chỗ chờ và bể KV của nó){roles}; khối [1] cho biết mỗi yêu cầu đi đâu, khối [6] và [10] cho thấy bản sao của yêu cầu đang theo dõi.",
    "header.disagg": "; tách prefill/decode (DISAGG=on): {cfg[PREFILL_REPLICAS]} bản sao prefill, {decode} bản sao decode, KV được chuyển giữa chúng",
    "header.simulated": "Xác thực không được mô phỏng; {routing}; {cancel}.",
    "header.routing_simulated": "router thì có (ROUTER={cfg[ROUTER]}, khối [1])",
    "header.no_routing": "không có router (một engine)",
    "header.cancel_used": "hủy yêu cầu được mô phỏng theo cột cancel_at",
    "header.cancel_unused": "hủy yêu cầu thì có mô phỏng (yêu cầu có cancel_at), nhưng trace này không hủy yêu cầu nào",
    "header.workload": "  {first} … {last}: prompt đúng {cfg[WORKLOAD_PROMPT]} token, max_new={cfg[WORKLOAD_OUTPUT]}, greedy, seed {cfg[WORKLOAD_SEED]} + i; {arrivals}{prefixes}",
    "header.workload_trace": "  {first} … {last}: thời điểm đến, độ dài prompt và đầu ra lấy từ trace {cfg[WORKLOAD_TRACE]} (cửa sổ từ giây {cfg[WORKLOAD_TRACE_START]:g}, tốc độ ×{cfg[WORKLOAD_TIME_SCALE]:g}), yêu cầu cuối lúc {last_arrival:ms}; greedy, seed {cfg[WORKLOAD_SEED]} + i",
    "header.trace_clipped": " (độ dài bị cắt cho vừa MAX_CONTEXT {cfg[MAX_CONTEXT]} ở {n} trên {of} yêu cầu: prompt tối đa {longest} token, đầu ra lấy phần còn lại; vLLM sẽ trả 400 cho prompt như vậy, lab giữ lại để thời điểm đến vẫn là của trace)",
    "header.workload_at_once": "tất cả đến lúc 0.00 ms",
    "header.workload_poisson": "đến theo Poisson {cfg[WORKLOAD_RATE]:g} yêu cầu/giây, yêu cầu cuối lúc {last_arrival:ms}",
    "header.workload_prefixes": "; {cfg[WORKLOAD_PREFIXES]} tiền tố chung {cfg[WORKLOAD_SHARED]} token (yêu cầu i dùng tiền tố i mod {cfg[WORKLOAD_PREFIXES]})",
    "header.config": "CẤU HÌNH: {cfg[SLOTS]} chỗ chạy + {cfg[QUEUE_LIMIT]} chỗ chờ; mỗi bước tối đa {cfg[TOKEN_BUDGET]} token; "
                     "block KV {cfg[BLOCK_SIZE]} token x {cfg[POOL_BLOCKS]} block; context tối đa {cfg[MAX_CONTEXT]}{auto}.",
    # MAX_CONTEXT = auto với một trace đã ghi (core/inputs/context.py): điều gì đặt ra con số, theo `by`
    "header.context_auto.trace": " (auto: yêu cầu dài nhất của cửa sổ, prompt + đầu ra = {longest} token)",
    "header.context_auto.model": " (auto: context của {cfg[SHADOW_MODEL]}; yêu cầu dài nhất của cửa sổ cần {longest} token)",
    "header.context_auto.pool": " (auto: nhiều nhất bể KV giữ được, POOL_BLOCKS {blocks} x BLOCK_SIZE {cfg[BLOCK_SIZE]} + 1, vì token cuối không ghi KV; yêu cầu dài nhất của cửa sổ cần {longest} token: tăng POOL_BLOCKS hoặc đặt POOL_BLOCKS=auto)",
    "header.context_auto.gpu": " (auto: nhiều nhất chỗ KV của GPU giữ được, {blocks} block của vLLM x BLOCK_SIZE {cfg[BLOCK_SIZE]} + 1, vì token cuối không ghi KV, như vLLM không khởi động khi một chuỗi max_model_len không vừa KV cache; yêu cầu dài nhất của cửa sổ cần {longest} token)",
    "header.context_auto.bound": " (auto: giới hạn của lab; yêu cầu dài nhất của cửa sổ cần {longest} token)",
    "header.model": "MÔ HÌNH: 1 lớp decoder (MHA {d[n_heads]} head, RoPE, SwiGLU), d_model={d[d_model]}, từ vựng {d[vocab]} token, trọng số ngẫu nhiên seed {cfg[SEED]}.",
    "header.clock": "ĐỒNG HỒ: mô phỏng theo công thức giả định (xem COST_* ở đầu file). Mọi 'ms' dưới đây là ms MÔ PHỎNG, không phải đo trên GPU.",
    "header.clock_tp": "SONG SONG TENSOR: mỗi bản sao là {cfg[TENSOR_PARALLEL]} GPU {cfg[GPU]} (TENSOR_PARALLEL={cfg[TENSOR_PARALLEL]}; cả lần chạy {gpus} GPU = REPLICAS x TENSOR_PARALLEL); mỗi GPU giữ 1/{cfg[TENSOR_PARALLEL]} trọng số và KV head, và mỗi bước tốn max(tính toán, bộ nhớ) trên một GPU + thời gian giao tiếp (2 all-reduce vòng mỗi lớp) + STEP_OVERHEAD.",
    "header.clock_roofline": "ĐỒNG HỒ: roofline trên {cfg[GPU]} với kích thước của {cfg[SHADOW_MODEL]} (trọng số {cfg[WEIGHT_BITS]} bit{act}, KV {cfg[KV_BITS]} bit; "
                             "CLOCK=roofline): mỗi bước là một lượt forward, tốn max(FLOP ÷ FLOP/s đạt được, byte ÷ băng thông đạt được) + STEP_OVERHEAD. "
                             "Mọi 'ms' dưới đây vẫn là ms MÔ PHỎNG, tính từ datasheet, không phải đo trên GPU; cổng và tokenize vẫn tính bằng COST_GATEWAY {cfg[COST_GATEWAY]} µs và COST_TOKENIZE_PER_TOKEN {cfg[COST_TOKENIZE_PER_TOKEN]} µs mỗi token (mặc định dưới roofline: 1 µs).",
    "header.act_bits": " và activation {cfg[ACT_BITS]} bit (W{cfg[WEIGHT_BITS]}A{cfg[ACT_BITS]}: phép nhân ma trận chạy ở đỉnh tensor core 8 bit của GPU)",
    "header.how_to_read": "CÁCH ĐỌC: mỗi khối [n · Tên] mang tên khối trên sơ đồ Tab 01. Đọc Quan sát, nhìn số, rồi tự nói lại Kết luận.",
    "header.note": "LƯU Ý: engine chạy MỘT lần; các khối in lại những gì engine đã ghi nhận. ",
    "header.nothing_simulated": "Router, xác thực và hủy yêu cầu không được mô phỏng.",
    # ── [1] ────────────────────────────────────────────────────────────────
    "b1.title": "Cổng tiếp nhận và kiểm soát hàng đợi",
    "b1.observe": "Quan sát: cổng xét từng yêu cầu theo thứ tự đến; hệ thống chứa tối đa {d[capacity]} yêu cầu (đang chạy + đang chờ).",
    "b1.admitted": "nhận",
    "b1.rejected": "TỪ CHỐI {code}",
    "b1.decision": "{x[request]} (đến {x[arrival]:ms}): {verdict} - {why}",
    "b1.counts_aborted": "Số đếm: offered={d[offered]}; từ chối 429 ở cổng={d[n_429]}; từ chối 400 ở bước chuẩn bị đầu vào={d[n_400]}; "
                         "bị hủy={n}; được phục vụ={d[served]}.",
    "b1.check_aborted": "Đối chiếu: offered = served + rejected + aborted -> {d[offered]} = {d[served]} + {rejected} + {n} -> {ok}.",
    "b1.counts": "Số đếm: offered={d[offered]}; từ chối 429 ở cổng={d[n_429]}; từ chối 400 ở bước chuẩn bị đầu vào={d[n_400]}; được phục vụ={d[served]}.",
    "b1.check": "Đối chiếu: offered = served + rejected -> {d[offered]} = {d[served]} + {rejected} -> {ok}.",
    "b1.conclusion_429": "Kết luận: từ chối sớm giữ hàng đợi hữu hạn, nên yêu cầu tới khi hệ thống đầy nhận 429 thay vì chờ lâu rồi vẫn trễ hạn.",
    "b1.conclusion_no_429": "Kết luận: với giới hạn hiện tại hàng đợi chưa đầy nên không có yêu cầu nào bị 429; thử giảm QUEUE_LIMIT để thấy từ chối.",
    "b1.limitation": "Giới hạn: cổng chỉ xét ở ranh giới giữa hai bước, nên yêu cầu đến giữa bước được xét sau khi bước đó kết thúc (giờ đến vẫn giữ nguyên).",
    "b1.abort_running": "đang chạy, đã sinh {a[generated]} token, trả block {a[blocks]}",
    "b1.abort_waiting": "còn trong hàng đợi, đã sinh {a[generated]} token",
    "b1.abort_frees": ", trả block {a[blocks]}",
    "b1.abort_gateway": "hủy trước cả lúc đến: không được nhận vào, không chiếm chỗ ở cổng",
    "b1.abort": "{a[request]}: client HỦY lúc {a[cancel_at]:ms} -> engine bỏ nó ở ranh giới bước lúc {a[time]:ms} "
                "({where}); nó rời hệ thống và nhường chỗ, như {docs[abort]}.",
    # ── [2] ────────────────────────────────────────────────────────────────
    "b2.title": "Chat template, BPE và ngân sách token",
    "b2.request": "Yêu cầu {f[id]}: \"{f[text]}\" -> {f[tokens]}",
    "b2.shown": "Prompt {f[id]} dài {f[prompt_len]} token: khối này chỉ in và vẽ {s[words]} từ đầu của nó ({s[tokens]} token đầu, kể cả <bos>), đủ một màn hình; độ dài ở dưới là của cả prompt.",
    "b2.ids": "Token IDs: {f[ids]}  (ID chỉ là số thứ tự trong bảng từ vựng; ý nghĩa nằm ở vector nhúng mà mô hình tra ra từ ID).",
    "b2.budget": "Ngân sách: prompt {f[prompt_len]} token + max_new {f[max_new]} = {total} <= MAX_CONTEXT {cfg[MAX_CONTEXT]}.",
    "b2.prefix_hit": "Prefix cache: {n}/{f[prompt_len]} token đầu của prompt {f[id]} đã có trong cache (block đầy của một yêu cầu "
                     "trước có cùng phần đầu, cùng hash) nên engine chỉ phải prefill {rest} token.",
    "b2.prefix_miss": "Prefix cache: không block đầy nào ở đầu prompt {f[id]} có sẵn trong cache lúc nó vào chạy, nên phải prefill cả {f[prompt_len]} token.",
    "b2.bpe": "BPE học {d[n_merges]} phép gộp từ {d[n_corpus]} câu mẫu; từ vựng cuối có {d[vocab]} token (cộng <bos>, <eos>).",
    "b2.merges": "Các phép gộp đầu: {d[first_merges]} ... ('</w>' đánh dấu hết một từ).",
    "b2.lengths": "Độ dài prompt: {lens} token (kể cả <bos>).",
    "b2.lengths_cut": "Độ dài prompt tính bằng token (kể cả <bos>): {lens}.",
    "b2.no_lengths": "Độ dài prompt: không có yêu cầu nào được phục vụ.",
    "b2.blocked": "Bị chặn: {x[request]} - {why}.",
    "b2.ready": "{d[follow][id]} sẵn sàng sau {d[prep]:ms}.",
    "b2.ready_fine": "{d[follow][id]} sẵn sàng sau {d[prep]:ms3}.",
    "b2.never_queued": "{d[follow][id]} không vào hàng đợi nên không có thời gian chuẩn bị.",
    "b2.prep_cost": "Chi phí chuẩn bị (giả định): cổng {cfg[COST_GATEWAY]:ms} + {per_token:.2f} ms mỗi token -> {prep}",
    "b2.prep_cost_fine": "Chi phí chuẩn bị (giả định): cổng {cfg[COST_GATEWAY]:ms3} + {cfg[COST_TOKENIZE_PER_TOKEN]} µs mỗi token -> {prep}",
    "b2.conclusion": "Kết luận: cùng văn bản phải cho cùng token IDs trên mọi bản sao; tokenizer hay template sai làm đổi hành vi của mô hình.",
    # BYTE_FALLBACK=on only (the seed has no byte fallback, so these lines never meet its bytes)
    "b2.bytes": "Byte fallback BẬT (BYTE_FALLBACK=on): từ vựng = {d[base_vocab]} token BPE + {d[n_bytes]} token byte <0x00>..<0xFF>; "
                "ký tự chưa từng thấy thành các byte UTF-8 của nó, như byte fallback của SentencePiece (BPE mức byte của GPT-2, Llama 3 "
                "thì luôn làm việc trên byte): không còn mã 400 vì ký tự lạ, chữ có dấu chỉ tốn thêm token.",
    "b2.real_tokenizers": "Tokenizer thật không trả 400 vì ký tự lạ: BPE mức byte (GPT-2, Llama 3) và SentencePiece có byte fallback "
                          "(Llama 2) lùi về các byte UTF-8, chữ có dấu chỉ tốn thêm token; thử BYTE_FALLBACK=on (--byte-fallback).",
    "b2.byte_chars": "{r[id]}: {chars}.",
    "b2.byte_char": "'{c}' = {pieces}",
    "b2.byte_cost": "{r[id]}: \"{r[text]}\" = {r[prompt]} token ({r[byte_tokens]} token byte; {per_word:.1f} token mỗi từ, không tính <bos>); "
                    "bỏ dấu \"{r[plain]}\" = {r[plain_prompt]} token ({plain_per_word:.1f} mỗi từ): thêm {r[extra]} token -> prompt chiếm "
                    "{r[blocks]} block KV thay vì {r[plain_blocks]} (BLOCK_SIZE {d[block_size]}), và riêng chi phí theo token đã thêm {r[extra_time]:ms} chuẩn bị + prefill{ttft}.",
    "b2.byte_ttft": "; TTFT đo được {r[ttft]:ms}, chạy lại cả trace không dấu thì {r[plain_ttft]:ms} (chênh lệch đo được còn tính cả bước trọn: prompt dài hơn có thể cần thêm một đoạn prefill, và phần chuẩn bị làm trong lúc yêu cầu vẫn phải chờ chỗ chạy thì không thêm gì)",
    "b2.template": "Chat template ở đây chỉ thêm <bos>; chat template thật (Llama 3, ChatML) còn bọc văn bản bằng các token vai trò "
                   "(system / user / assistant, hết lượt) và thường một system prompt: cũng là token phải prefill và giữ trong KV cache.",
    # ── [3] ────────────────────────────────────────────────────────────────
    "b3.title": "Lập lịch theo vòng lặp (continuous batching + chunked prefill)",
    "b3.preempt_at": "Preemption ở bước {p[step]} ({p[time]:ms}): ",
    "b3.who_fcfs": "vào chạy gần nhất",
    "b3.who_priority": "priority {p[priority]}, đến {p[arrival]:ms}: (priority, giờ đến) lớn nhất trong các chuỗi đang chạy",
    "b3.preempt_no_block": "không còn block KV trống cho {p[request]} ({who}, chưa giữ block nào) nên nó "
                           "nhường chỗ và quay lại đầu hàng đợi; chưa mất phần tính nào.",
    "b3.preempt": "hết block KV trống nên {p[request]} ({who}) bị tạm dừng, "
                  "trả block {p[blocks]}, quay lại đầu hàng đợi; khi chạy lại phải prefill lại {p[recompute]} token "
                  "(prompt + {p[generated]} token đã sinh).",
    "b3.legend": "Mỗi dòng: bước (bắt đầu -> kết thúc), số yêu cầu chờ/chạy, rồi [yêu cầu:pha:số token] với p = prefill (đoạn prompt), d = decode (1 token mới).",
    "b3.step": "bước {i:>2}: {st[start]:ms} -> {st[end]:ms} | chờ={st[waiting]} chạy={st[running]} | {work}",
    "b3.no_steps": "Không có bước nào: không yêu cầu nào được phục vụ.",
    "b3.late": "{r[id]} đã đến nhưng còn chuẩn bị đầu vào, sẵn sàng lúc {r[ready]:ms}",
    "b3.late_fine": "{r[id]} đã đến nhưng còn chuẩn bị đầu vào, sẵn sàng lúc {r[ready]:ms3}",
    "b3.observe": "Quan sát: bước 1 bắt đầu lúc {start:ms} chỉ với {lone}; {late}. Bộ lập lịch không đợi.",
    "b3.observe_fine": "Quan sát: bước 1 bắt đầu lúc {start:ms3} chỉ với {lone}; {late}. Bộ lập lịch không đợi.",
    "b3.observe_all": "Quan sát: bước 1 bắt đầu lúc {start:ms} với {ids}: mọi yêu cầu đã đến lúc đó đều đã sẵn sàng, nên không yêu cầu nào phải đợi chuẩn bị đầu vào.",
    "b3.observe_all_fine": "Quan sát: bước 1 bắt đầu lúc {start:ms3} với {ids}: mọi yêu cầu đã đến lúc đó đều đã sẵn sàng, nên không yêu cầu nào phải đợi chuẩn bị đầu vào.",
    "b3.observe_some": "Quan sát: bước 1 bắt đầu lúc {start:ms} với {ids}; {late}. Bộ lập lịch không đợi.",
    "b3.observe_some_fine": "Quan sát: bước 1 bắt đầu lúc {start:ms3} với {ids}; {late}. Bộ lập lịch không đợi.",
    "b3.mixed_roofline": "Bước {mixed} vừa decode cho yêu cầu đang chạy vừa prefill cho yêu cầu mới: dưới CLOCK=roofline chúng là MỘT lượt forward, trọng số đọc một lần cho cả bước (đó là lợi ích của chunked prefill, Sarathi), nhưng decode vẫn phải đợi cả bước xong.",
    "b3.mixed": "Bước {mixed} vừa decode cho yêu cầu đang chạy vừa prefill cho yêu cầu mới: chúng dùng chung một bước và (theo công thức chi phí giả định) hai pha chạy nối tiếp nên decode phải đợi prefill xong.",
    "b3.not_mixed": "Không có bước nào trộn decode và prefill.",
    "b3.abort": "Hủy ở ranh giới bước lúc {a[time]:ms}: {a[request]} (client hủy lúc {a[cancel_at]:ms}) rời "
                "{left}; bộ lập lịch không còn xếp nó vào bước nào.",
    "b3.left_running": "nhóm đang chạy",
    "b3.left_waiting": "hàng đợi",
    "b3.left_gateway": "cổng (chưa từng vào hệ thống, không chiếm chỗ)",
    "b3.wait_kv_at": "Chờ block KV ở bước {k[step]} ({k[time]:ms}): ",
    "b3.wait_kv_short": "{k[request]} vừa vào chạy nhưng đoạn prompt của nó cần {k[need]} block KV mới, bể chỉ còn "
                        "{k[free]} block trống -> nó quay lại hàng đợi ở chỗ cũ, không preempt ai (bộ lập lịch v1 của "
                        "vLLM: yêu cầu đang chờ không bao giờ gây preempt; vòng nhận yêu cầu dừng ở yêu cầu đầu tiên "
                        "không cấp được block).",
    "b3.wait_kv_gives_way": "{k[by]} cần {k[need]} block KV mới, bể chỉ còn {k[free]} block trống -> {k[request]} (vào chạy "
                            "sau cùng ở ranh giới này) trả block {k[blocks]} và quay lại hàng đợi ở chỗ cũ, trước khi "
                            "phải preempt chuỗi nào đang chạy.",
    "b3.wait_kv_behind": "{k[request]} vào chạy sau {k[by]} ở ranh giới này, mà {k[by]} không có block KV -> "
                         "{k[request]} cũng quay lại hàng đợi ở chỗ cũ (vLLM dừng nhận yêu cầu ở yêu cầu đầu tiên thiếu block).",
    "b3.wait_kv_preempted": "bước này đã preempt một chuỗi đang chạy nên {k[request]} (vừa vào chạy) quay lại hàng đợi ở "
                            "chỗ cũ: như vLLM, bước có preempt không nhận yêu cầu nào từ hàng đợi.",
    "b3.chunks": "Chunked prefill: prompt {fid} dài {f[prompt_len]} token được xử lý theo các đoạn {d[chunks]} (ngân sách {cfg[TOKEN_BUDGET]} token mỗi bước).",
    "b3.chunks_redo": "Các đoạn trên gồm cả phần {fid} phải prefill lại sau {f[preempted]} lần bị preempt.",
    "b3.follow_wait": "{fid}: sẵn sàng lúc {f[ready]:ms}, nhưng bước đầu của nó bắt đầu lúc {f[start]:ms} -> chờ chỗ chạy {f[queue]:ms}.",
    "b3.follow_wait_fine": "{fid}: sẵn sàng lúc {f[ready]:ms3}, nhưng bước đầu của nó bắt đầu lúc {f[start]:ms3} -> chờ chỗ chạy {f[queue]:ms3}.",
    "b3.conclusion": "Kết luận: continuous batching đưa yêu cầu mới vào ở ranh giới từng bước ngay khi có chỗ trống, không đợi cả nhóm cũ xong.",
    "b3.overtaken": "{x[id]} (priority {x[priority]}, đến {x[arrival]:ms})",
    "b3.overtake": "Priority ở bước {o[step]} ({o[time]:ms}): {o[request]} (priority {o[priority]}) được vào chạy trước {behind} "
                   "dù đến sau, vì SCHED_POLICY=priority xếp hàng đợi theo (priority, giờ đến), số nhỏ trước.",
    # ── [4] ────────────────────────────────────────────────────────────────
    "b4.title": "Xử lý prompt, ghi KV và tạo logits đầu tiên",
    "b4.conclusion": "Kết luận: prefill kết thúc bằng token đầu tiên, nên nó cùng với thời gian chờ quyết định TTFT. Logits là điểm số, chưa phải xác suất.",
    "b4.again": " (gồm cả phần prefill lại sau {d[preempted]} lần bị preempt)",
    "b4.prompt_cached": "Prompt {fid} có {d[prompt_len]} token: {n} token đầu lấy từ prefix cache (K/V đã có, không tính lại), "
                        "{rest} token còn lại -> các đoạn {d[chunks]}{again} chạy qua mô hình; mỗi token ghi K và V vào cache.",
    "b4.prompt": "Prompt {fid} có {d[prompt_len]} token -> các đoạn {d[chunks]}{again} chạy qua mô hình; mỗi token ghi K và V vào cache.",
    "b4.stand_in": "Prompt {fid} có {d[prompt_len]} token -> các đoạn {d[chunks]}{again}. Prompt dài: quá {s[long]} token mà mô hình NumPy của lab tính trọn (model.LONG_PROMPT). Bộ lập lịch, bảng block và đồng hồ roofline tính đủ {d[prompt_len]} vị trí (các đoạn prefill trên, {s[blocks]} block {s[block_size]} token, KV mà mỗi bước decode đọc); mô hình chỉ tính {s[keep]} token CUỐI làm prompt thay thế (stand-in), ở vị trí riêng 0..{last} của nó, rồi các token sinh ra sau đó: mỗi token của stand-in ghi K và V vào cache ở {s[keep]} vị trí cuối, {s[skip]} vị trí đầu giữ block nhưng không có số. Vị trí ở khối [5] và [7] là vị trí của mô hình.",
    "b4.cache_shape": "Sau prefill, cache của {fid} có K shape {shape} = (số head, số token, chiều mỗi head); V cùng shape.",
    "b4.last_row": "Chỉ hàng CUỐI của logits dùng để chọn token đầu tiên: {row:vec2}",
    "b4.how_to_read": "Cách đọc: {n} cột = {n} token trong từ vựng; ba điểm cao nhất ở ID {d[top3]} = {d[top3_tokens]} (điểm {d[top3_scores]:vec2}).",
    "b4.how_to_read_bytes": "Cách đọc: {n} cột = {n} token BPE mà LM head chấm điểm (256 token byte ở lab này chỉ là đầu vào: đọc qua hàng embedding của chúng, không bao giờ được sinh ra, nên prompt không dấu cho cùng logits như khi BYTE_FALLBACK=off); ba điểm cao nhất ở ID {d[top3]} = {d[top3_tokens]} (điểm {d[top3_scores]:vec2}).",
    "b4.first_token": "Token đầu tiên của {fid} xuất hiện lúc {d[first_time]:ms} -> TTFT = {d[first_time]:ms} - {d[arrival]:ms} = {d[ttft]:ms}.",
    # ── [5] ────────────────────────────────────────────────────────────────
    "b5.title": "Attention weights và logits là hai phân phối khác nhau",
    "b5.parity": "sai lệch lớn nhất <= 1e-9: {ok} (phần dư chỉ là sai số làm tròn float64).",
    "b5.parity_fail": "sai lệch lớn nhất <= 1e-9: False (sai lệch lớn nhất là {x:.2e}, vượt xa sai số làm tròn float64: đường qua cache và đường tính lại đã tính ra những thứ khác nhau).",
    "b5.rows_fail": "Mỗi hàng là softmax trên các VỊ TRÍ nguồn, cộng lại bằng 1. Mặt nạ nhân quả lẽ ra cho mọi vị trí tương lai xác suất 0, nhưng phép kiểm tra cuối khối này không đạt: logits của một vị trí phụ thuộc vào những vị trí nào đi cùng lượt, điều xảy ra khi một hàng đọc cả các vị trí sau nó (không có mặt nạ nhân quả) hoặc khi K/V trong cache khác K/V tính lại.",
    "b5.rows": "Mỗi hàng là softmax trên các VỊ TRÍ nguồn, cộng lại bằng 1; vị trí tương lai bị mặt nạ nhân quả chặn (xác suất 0).",
    "b5.heads": "Hai head được ghép, qua W_O, cộng residual, SwiGLU, rồi LM head cho {d[vocab]} điểm số trên TOKEN ứng viên (chính là hàng logits ở khối [4]).",
    "b5.difference": "Phân biệt: attention weights nói 'lấy thông tin từ vị trí nào'; logits nói 'token nào đi sau'. Xác suất trên từ vựng chỉ xuất hiện ở khối [8].",
    "b5.check_served": "Kiểm tra số học: logits qua KV cache khớp tính lại cả chuỗi ở MỌI bước ({n} yêu cầu được phục vụ), {parity}",
    "b5.last_row": "Lấy hàng cuối của prefill: token '{d[token_text]}' (ID {d[token]}) ở vị trí {d[position]} nhìn lại {n} vị trí nguồn 0..{d[position]}.",
    "b5.head": "Attention weights head {h}: {a:vec} tổng = {total:.6f}",
    "b5.how_to_read": "Cách đọc: mỗi head có K/V riêng (MHA) nên cho phân phối khác nhau; head 0 nhìn nhiều nhất vị trí {d[argmax][0]}, head 1 nhìn nhiều nhất vị trí {d[argmax][1]}.",
    "b5.how_to_read_lab": "Cách đọc: trọng số attention chỉ phụ thuộc vào Q và K (softmax của Q·Kᵀ); mỗi head có W_Q và W_K riêng (MHA) nên có Q, K riêng và phân phối khác nhau; head 0 nhìn nhiều nhất vào vị trí {d[argmax][0]}, head 1 nhìn nhiều nhất vào vị trí {d[argmax][1]}. Dưới GQA, các head dùng chung một K vẫn cho hàng khác nhau vì Q của chúng khác.",
    "b5.check_all": "Kiểm tra số học: logits qua KV cache khớp tính lại cả chuỗi ở MỌI bước (prefill + decode, cả 3 yêu cầu), {parity}",
    # ── [6] ────────────────────────────────────────────────────────────────
    "b6.title": "Block vật lý, bảng block và việc trả block",
    "b6.peak": "Mỗi block chứa {bs} token. Khoảnh khắc dùng nhiều block nhất, bảng block (logic -> vật lý) của từng chuỗi là: {tables}.",
    "b6.how_to_read": "Cách đọc: block logic 0, 1, 2... của một chuỗi nằm ở block vật lý không nhất thiết liền nhau và có thể xen kẽ giữa các chuỗi; bảng block là bảng tra.",
    "b6.used": "Khi đó dùng {pk[used]}/{cfg[POOL_BLOCKS]} block = {slots_used} chỗ token, đang lưu {pk[tokens]} token -> thừa {unused} chỗ ở block cuối của từng chuỗi.",
    "b6.compare": "So sánh: cấp một mảng liền {cfg[MAX_CONTEXT]} token cho mỗi chỗ chạy cần {contiguous} chỗ token; phân trang chỉ cần {slots_used} chỗ.",
    "b6.freed": "Trả block theo thứ tự kết thúc: {freed}.",
    "b6.frees": "{rid} trả {blk}",
    "b6.none_served": "Mỗi block chứa {bs} token. Không có chuỗi nào được phục vụ nên không block nào được cấp.",
    "b6.kept_cached": "các block đầy giữ hash ở cuối danh sách block trống, khi chạy lại nó có thể trúng chính chúng",
    "b6.kept_dropped": "K/V của nó bị bỏ, sẽ tính lại",
    "b6.preempt": "Preemption ở bước {p[step]}: {p[request]} bị tạm dừng vì hết block trống, trả block {p[blocks]} về bể ({kept}).",
    "b6.preempt_no_block": "Preemption ở bước {p[step]}: {p[request]} chưa giữ block nào, nhường chỗ vì bể đã hết block trống.",
    "b6.reuse": "block {b}: {owners}",
    "b6.reused": "Block được dùng lại: {reused}.",
    "b6.none_reused": "Không có block nào được dùng lại trong trace này.",
    "b6.free_at_end": "Sau khi mọi yêu cầu kết thúc còn {d[free]}/{cfg[POOL_BLOCKS]} block trống (không rò rỉ).",
    "b6.gather": "Kiểm tra số học: K/V gom từ các block rời khớp K/V tính lại từ đầu cho từng chuỗi, sai lệch lớn nhất <= 1e-9: {ok}.",
    "b6.pool_problems": "Bất biến của bể block bị vi phạm: {found}.",
    "b6.pool_problem": "{what} (bước {steps})",
    "b6.pool_problem_steps": "{what} (bước {steps})",
    "pool.negative_ref_cnt": "số tham chiếu âm",
    "pool.ref_cnt_mismatch": "số tham chiếu khác số bảng block đang giữ block",
    "pool.not_conserved": "block không được bảo toàn (trùng, mất, hoặc vừa trống vừa có chủ)",
    "pool.stale_hash": "bảng băm trỏ tới block mang hash khác",
    "b6.limitation_preempt": "Giới hạn: lần chạy này tắt prefix cache (PREFIX_CACHE=off) nên không block nào dùng chung và số tham chiếu luôn <= 1; khi hết block, engine preempt theo kiểu recompute của vLLM (không swap sang CPU).",
    "b6.limitation": "Giới hạn: không mô phỏng prefix cache, đếm tham chiếu hay preemption khi hết block.",
    "b6.hit": "{h[request]} lấy {h[tokens]} token (block {h[blocks]}) ở bước {h[step]}",
    "b6.hit_recompute": " khi tính lại sau preempt",
    "b6.wait_kv": "Chờ block KV (quay lại hàng đợi, không preempt ai): {waits}.",
    "b6.wait_kv_short": "{k[request]} ở bước {k[step]} (cần {k[need]} block, còn {k[free]} trống)",
    "b6.wait_kv_gives_way": "{k[request]} ở bước {k[step]} (nhường block cho {k[by]})",
    "b6.wait_kv_behind": "{k[request]} ở bước {k[step]} (xếp sau {k[by]})",
    "b6.wait_kv_preempted": "{k[request]} ở bước {k[step]} (bước có preempt)",
    "b6.prefix_cache": "Prefix cache (theo {docs[prefix_cache]}): mỗi block ĐẦY mang hash = băm(token của nó, hash block cha); "
                       "chuỗi mới vào chạy lấy lại các block đầy trùng phần đầu prompt (số tham chiếu +1) và chỉ prefill phần còn lại, ít nhất token cuối.",
    "b6.hits": "Trúng cache: {hits}.",
    "b6.no_hits": "Trúng cache: không lần nào (không prompt nào có block đầy đầu tiên trùng với block đã tính).",
    "b6.shared": "Block dùng chung (số tham chiếu > 1, nhiều chuỗi đang chạy cùng đọc): {d[shared_blocks]}; "
                 "nhiều nhất {d[max_shared]} chuỗi cùng giữ một block.",
    "b6.none_shared": "Block dùng chung: không có lúc nào hai chuỗi đang chạy cùng giữ một block (số tham chiếu luôn <= 1).",
    "b6.evicted_block": "block {e[block]} (bước {e[step]})",
    "b6.evicted": "Bị thu hồi (evict, lấy từ đầu danh sách block trống theo LRU cho dữ liệu mới nên mất hash): {ev}.",
    "b6.none_evicted": "Bị thu hồi (evict): không block nào có hash bị lấy lại cho dữ liệu mới.",
    "b6.cached_free": "Block trả về đi vào CUỐI danh sách block trống (block cuối của chuỗi trước) và giữ hash: lúc kết thúc {n} block trống "
                      "vẫn dùng lại được cho yêu cầu sau có cùng phần đầu.",
    "b6.prefix_limitation": "Giới hạn: chỉ block đầy được chia sẻ và không bị ghi lại (không cần copy-on-write); block trùng nội dung không được gộp "
                            "(bảng block chỉ nối thêm, như vLLM v1); không swap sang CPU, không cache_salt.",
    # ── [7] ────────────────────────────────────────────────────────────────
    "b7.title": "Vòng lặp tự hồi quy với KV cache",
    "b7.no_decode": "{fid} dừng ngay sau token đầu tiên nên không có bước decode nào để xem trọng số attention.",
    "b7.first_decode": "Bước decode đầu của {fid}: đưa token '{fd[token_text]}' (vị trí {fd[position]}), attention head 0 có {n} trọng số: {fd[position]} vị trí đọc từ cache + 1 vị trí là chính nó.",
    "b7.weights": "Các trọng số đó: {fd[weights]:vec} tổng = {fd[sum]:.6f}; K/V của {fd[position]} vị trí cũ không phải tính lại.",
    "b7.counts": "dùng cache = {d[positions_cached]}; nếu mỗi bước tính lại cả lịch sử = {d[positions_naive]}.",
    "b7.not_time": "Đây là số vị trí phải tính, đếm thật khi chạy; thời gian tiết kiệm thật trên GPU còn phụ thuộc phần cứng và CHƯA được đo ở đây.",
    "b7.conclusion": "Kết luận: mỗi bước decode tính ít token nhưng vẫn phải đọc lại trọng số và toàn bộ KV, nên thường bị giới hạn bởi băng thông bộ nhớ, không phải bởi phép nhân.",
    "b7.positions_served": "Đếm vị trí đã đưa qua mô hình (các yêu cầu được phục vụ): {counts}",
    "b7.generates": "{fid} sinh {d[n_out]} token: 1 token từ prefill + {d[n_decode]} bước decode; mỗi bước chỉ đưa vào 1 token mới.",
    "b7.again": "; {recompute} token đến từ lần prefill lại (prompt + token đã sinh)",
    "b7.preempted": "{fid} bị preempt {d[preempted]} lần (KV bị bỏ, phải tính lại){again}.",
    "b7.cache_len": "Cache của {fid} dài {d[cache_len]} vị trí khi kết thúc (token cuối được chọn nhưng chưa bao giờ được đưa vào mô hình).",
    "b7.positions_all": "Đếm vị trí đã đưa qua mô hình (cả 3 yêu cầu): {counts}",
    # ── [8] ────────────────────────────────────────────────────────────────
    "b8.title": "Từ logits tới một token, rồi dừng hay tiếp",
    "b8.stop": "  {s[id]}: dừng vì {s[reason]} sau {s[n]}/{s[max_new]} token -> {s[text]!r}",
    "b8.cancelled": "  {s[id]}: bị HỦY lúc {s[time]:ms} (client hủy lúc {s[cancel_at]:ms})",
    "b8.cancelled_before": " trước token đầu tiên: 0/{s[max_new]} token, client không nhận được gì",
    "b8.cancelled_after": " sau {s[n]}/{s[max_new]} token -> {s[text]!r} (client đã nhận chừng ấy token qua streaming)",
    "b8.observe": "Quan sát: token đầu đến đúng lúc TTFT, các token sau cách nhau theo TPOT; engine không đợi câu hoàn chỉnh mới gửi.",
    "b8.warning": "Cảnh báo: văn bản vô nghĩa (hoặc lặp một chữ) vì trọng số ngẫu nhiên chưa huấn luyện; chỉ cơ chế chọn token và dừng là thật.",
    "b8.stop_check": "Kiểm tra dừng sau mỗi token: gặp <eos> hoặc đủ max_new_tokens. Kết quả:",
    "b8.sampling": "{fid}: temperature {d[temperature]}, top_k {d[top_k]}, top_p {d[top_p]}, seed {d[seed]}; áp cho hàng logits ở khối [4].",
    "b8.probs_greedy": "Greedy (temperature 0): softmax của logits giữ nguyên (không chia temperature) -> XÁC SUẤT trên {d[vocab]} token, tổng = {d[probs_sum]:.6f}. Năm token cao nhất: ",
    "b8.kept_greedy": "Không lọc top-k/top-p và không rút ngẫu nhiên: greedy chỉ giữ điểm cao nhất ({n} token): ",
    "b8.draw_greedy": "Điểm cao nhất là ID {d[token]} = '{d[token_text]}' (argmax; seed {d[seed]} không được dùng). Chọn token chưa phải xử lý token: nó vào cache ở bước decode kế tiếp.",
    "b8.probs": "Logits chia temperature rồi softmax -> XÁC SUẤT trên {d[vocab]} token, tổng = {d[probs_sum]:.6f}. Năm token cao nhất: ",
    "b8.kept": "Lọc top-k/top-p giữ {n} token, tái chuẩn hóa tổng về 1: ",
    "b8.draw": "Rút ngẫu nhiên (seed {d[seed]}) được ID {d[token]} = '{d[token_text]}'. Chọn token chưa phải xử lý token: nó vào cache ở bước decode kế tiếp.",
    "b8.stream": "Streaming của {fid} (thời điểm mô phỏng, token): {stream}",
    # ── [9] ────────────────────────────────────────────────────────────────
    "b9.title": "Lượng tử hóa trọng số INT{d[bits]} đối xứng theo kênh đầu ra",
    "b9.quantize": "Lượng tử hóa {d[n_linear]} ma trận tuyến tính ({d[elements]} phần tử): scale = max|w| / {d[levels]} cho từng cột, w_int = round(w / scale).",
    "b9.size": "Dung lượng định dạng: FP32 = {d[fp32_bytes]} byte -> INT{d[bits]} + scale FP32 = {d[int_bytes]:.0f} byte (nhỏ hơn {ratio:.2f} lần; phép tính trên định dạng, không phải đo).",
    "b9.error": "Sai số khôi phục trọng số lớn nhất = {d[max_err]:.4f}; chặn lý thuyết (nửa scale lớn nhất) = {d[half_scale]:.4f}.",
    "b9.logit_error": "Sai số logits khi chạy prompt {fid} (so bản gốc với bản lượng tử hóa, bỏ <bos>) lớn nhất = {d[logit_err]:.4f}.",
    "b9.logit_error_other": "Sai số logits khi chạy prompt {d[probe]} (thay cho {fid}, không có token ID; so bản gốc với bản lượng tử hóa, bỏ <bos>) lớn nhất = {d[logit_err]:.4f}.",
    "b9.conclusion": "Kết luận: sai số số học nhỏ chỉ nói các con số gần nhau; có đổi quyết định chọn token hay không phải kiểm ở khối [13].",
    "b9.limitation": "Giới hạn: lab giả lập 'lưu số nguyên, giải nén ra số thực để nhân'; kernel số nguyên thật tạo thêm sai số và khác tốc độ. KV cache lượng tử hóa không được chạy.",
    "b9.kv_cache": "KV cache ở KV_BITS=8: K và V được lưu dạng FP8 E4M3 (3 bit mantissa, giá trị lớn nhất 448) với một scale FP32 cho mỗi head, như kv_cache_dtype=\"fp8\" của vLLM với scale theo từng attention head: k_scale = {k}, v_scale = {v} (|K| hay |V| lớn nhất của mỗi head trên mọi token của từ điển / 448). Chúng được làm tròn khi ghi vào cache phân trang; attention đọc lại rồi nhân với scale.",
    "b9.kv_error": "Sai số KV khi chạy prompt {d[probe]} ({kv[tokens]} vị trí; trọng số giữ số thực để thấy riêng phần của cache): K lớn nhất {kv[k_max]:.4f}, trung bình {kv[k_mean]:.4f}; V lớn nhất {kv[v_max]:.4f}, trung bình {kv[v_mean]:.4f}; mọi giá trị nằm trong nửa bước FP8 (tối đa 1/16 độ lớn của nó): {kv[within_half_step]}. Đầu ra attention đổi {attn:.2f}% (tương đối); sai số logits lớn nhất {kv[logit_err]:.4f}, bên cạnh {d[logit_err]:.4f} của trọng số INT{d[bits]}.",
    "b9.limitation_kv8": "Giới hạn: lab giả lập 'lưu số nguyên, giải nén ra số thực để nhân', và giữ KV cache FP8 cũng theo cách đó (pool NumPy chứa giá trị float64, mỗi giá trị là một số FP8 nhân scale của head, nên khối [10] vẫn tính 8 byte mỗi giá trị); kernel INT8/FP8 thật tạo thêm sai số và khác tốc độ, và FlashAttention 3 còn đưa cả Q về FP8, điều lab không làm.",
    "b9.kv_roofline": "Đồng hồ roofline tính cache FP8 là 1 byte mỗi giá trị (khối [10]: dung lượng, và số byte mỗi bước đọc).",
    # ── [10] ───────────────────────────────────────────────────────────────
    "b10.title": "Trọng số + KV + vùng làm việc",
    "b10.lab": "Trong lab: trọng số float64 = {d[weight_bytes]} byte; bể KV = {cfg[POOL_BLOCKS]} block x {cfg[BLOCK_SIZE]} token x {bpt} byte/token = {d[pool_bytes]} byte.",
    "b10.per_token": "Một token cần K và V: 2 x {d[n_heads]} head x {d[d_head]} chiều x {d[itemsize]} byte (float64 của NumPy) = {bpt} byte cho 1 lớp.",
    "b10.peak": "Khoảnh khắc cao điểm dùng {d[peak_used]} block = {kv} byte KV ({pct:.0f}% bể).",
    "b10.formula": "Công thức: byte KV = 2 x số lớp x số token x số KV head x chiều head x byte mỗi phần tử.",
    "b10.example": "Ví dụ GIẢ ĐỊNH (tính tay, không đo; cùng cấu hình bài HBM): {x[layers]} lớp, {x[ctx]} token, {x[kv_heads]} KV head, head {x[head_dim]}, FP16 -> {real_seq} byte = {gib:.2f} GiB cho một chuỗi.",
    "b10.gpu": "Giả sử GPU {hbm} GiB, trọng số FP16 {weights} GiB: còn {left} GiB cho KV = tối đa {seqs} chuỗi {x[ctx]} token (chưa trừ vùng làm việc).",
    "b10.half": "Nếu trọng số nén còn một nửa ({half} GiB, giả định): còn {left} GiB -> {seqs} chuỗi.",
    "b10.roof_gpu": "Dưới CLOCK=roofline: {s[gpu]} cho engine thấy {s[mib]:,} MiB = {hbm:.2f} GB HBM (như nvidia-smi báo; datasheet làm tròn); như vLLM, engine dùng {s[utilization]} phần (GPU_MEMORY_UTILIZATION) = {usable:.1f} GB.",
    "b10.roof_weights": "Trọng số {s[model]} ở WEIGHT_BITS={cfg[WEIGHT_BITS]} (không phải QUANT_BITS của khối 9): {weights:.2f} GB; vùng activation dành sẵn (giả định) {reserve:.0f} GB -> còn {left:.2f} GB cho KV.",
    "b10.roof_kv": "KV mỗi token của {s[model]} ở KV_BITS={cfg[KV_BITS]}: 2 x {s[layers]} lớp x {s[kv_heads]} KV head x {s[head_dim]} chiều x {s[kv_bytes]} byte = {s[per_token]} byte -> {s[tokens]} token KV vừa = {s[blocks]} block {cfg[BLOCK_SIZE]} token = {s[seqs]} chuỗi {cfg[MAX_CONTEXT]} token (MAX_CONTEXT).",
    "b10.roof_weights_tp": "Trọng số {s[model]} ở WEIGHT_BITS={cfg[WEIGHT_BITS]}: {weights:.2f} GB, chia cho TENSOR_PARALLEL={s[tp]} GPU = {share:.2f} GB mỗi GPU; vùng activation dành sẵn (giả định) {reserve:.0f} GB mỗi GPU -> còn {left_gpu:.2f} GB cho KV trên mỗi GPU, {left:.2f} GB trên cả nhóm {s[tp]} GPU (lần chạy dùng {s[gpus]} GPU = REPLICAS {cfg[REPLICAS]} x TENSOR_PARALLEL {s[tp]}).",
    "b10.roof_kv_tp": "KV mỗi token của {s[model]} ở KV_BITS={cfg[KV_BITS]}: 2 x {s[layers]} lớp x {s[kv_heads]} KV head x {s[head_dim]} chiều x {s[kv_bytes]} byte = {full} byte; mỗi GPU giữ {s[kv_heads_gpu]} KV head = {s[per_token_gpu]} byte mỗi token -> {s[tokens]} token KV vừa = {s[blocks]} block {cfg[BLOCK_SIZE]} token = {s[seqs]} chuỗi {cfg[MAX_CONTEXT]} token (MAX_CONTEXT).",
    "b10.trust": "Tin những mili giây này đến đâu: so với {m[rows]} số đo đã công bố của engine thật trên một GPU hoặc một nhóm song song tensor (core/clock/calibration.py; mỗi dòng dùng ENGINE_PROFILE của engine đó và sinh đủ mọi token đầu ra như benchmark), tỉ số lab ÷ công bố có trung vị ×{m[median]:.2f} (mục tiêu: trong ×{goal:.2f}), xa nhất ×{m[worst]:.2f} (giới hạn ×{tol:.2f}); lab lạc quan ở {m[optimistic]} trên {m[rows]} điểm. Lượt chạy này: ENGINE_PROFILE={cfg[ENGINE_PROFILE]}, FLOPS_FRACTION {cfg[FLOPS_FRACTION]}, BANDWIDTH_FRACTION {cfg[BANDWIDTH_FRACTION]}, STEP_OVERHEAD {cfg[STEP_OVERHEAD]} µs.",
    "b10.trust_row": "  {r[engine]} · {gpus} · {r[model]} W{r[weight_bits]}A{r[act_bits]} · {what} · batch {r[batch]} · ISL/OSL {r[isl]}/{r[osl]}: công bố {pub} {r[unit]}, lab {lab} {r[unit]} -> ×{ratio}",
    "b10.kind_decode": "decode, tok/s mỗi người dùng",
    "b10.kind_prefill": "prefill, tok/s",
    "b10.kind_ttft": "TTFT",
    "b10.kind_throughput": "throughput đầu ra",
    "b10.trust_limits": "Ngoài bảng này (song song tensor ngoài các dòng TP2 ở trên, ngữ cảnh dài, GPU và engine khác) con số là ước lượng roofline, không phải số đo; nguồn của từng dòng có trong README và calibration.py.",
    "b10.roof_pool": "Bể của lab: POOL_BLOCKS = {cfg[POOL_BLOCKS]} block. POOL_BLOCKS=auto lấy min(số block vLLM ở trên, {n} yêu cầu x ⌈MAX_CONTEXT ÷ BLOCK_SIZE⌉ = {cap}): bể lớn hơn mọi thứ trace này giữ cùng lúc được thì chạy y hệt.",
    "b10.conclusion": "Kết luận: KV tăng tuyến tính theo số token và số chuỗi; vì vậy bộ nhớ KV, không chỉ trọng số, quyết định số yêu cầu chạy đồng thời.",
    # ── [11] ───────────────────────────────────────────────────────────────
    "b11.title": "Số đo trên đồng hồ mô phỏng",
    "b11.prep": "chuẩn bị đầu vào",
    "b11.queue": "chờ chỗ chạy",
    "b11.prefill": "prefill",
    "b11.misses": "VƯỢT",
    "b11.meets": "đạt",
    "b11.ttft": "  {m[id]}: {m[prep]:>5} + {m[queue]:>5} + {m[prefill]:>5} = {m[ttft]:>5} | lớn nhất: {biggest} | {verdict} ngưỡng giả định {slo:ms}",
    "b11.preempted": " | bị preempt ở bước {lost} (thời gian mất tính trong phần prefill nếu trước token đầu)",
    "b11.cancelled_before": "  {m[id]}: bị hủy lúc {m[finish]:ms} trước token đầu -> không có TTFT; không tính vào số liệu của yêu cầu được phục vụ.",
    "b11.cancelled_after": "  {m[id]}: bị hủy lúc {m[finish]:ms} sau {m[n]} token (token đầu lúc {m[first]:ms}, TTFT {m[ttft]:ms}); "
                           "không tính vào số liệu của yêu cầu được phục vụ.",
    "b11.unchanged": "Prefix cache: so với chạy lại cùng trace khi tắt cache, TTFT của mọi yêu cầu không đổi (không ai trúng cache).",
    "b11.saved": "Prefix cache: TTFT khi bật so với chạy lại cùng trace khi tắt: ",
    "b11.saved_row": "{r[id]} {r[ttft]:ms} thay vì {r[ttft_nocache]:ms} ({saved}, {r[cached_tokens]} token prompt lấy từ cache)",
    "b11.saves": "tiết kiệm {t:ms}",
    "b11.slower": "chậm hơn {t:ms}",
    "b11.legend": "Mỗi bước: thời lượng, số yêu cầu chờ/chạy, token decode/prefill, block KV đang dùng (đo sau khi các chuỗi vừa xong đã trả block).",
    "b11.step": "bước {i:>2}: {dur:>5} µs | chờ={st[waiting]} chạy={st[running]} decode={st[decode]} prefill={st[prefill]} "
                "| KV {st[kv_used]}/{cfg[POOL_BLOCKS]} ({pct:.0f}%){mark}",
    "b11.breakdown": "Phân rã TTFT (µs mô phỏng): chuẩn bị đầu vào + chờ chỗ chạy + prefill = TTFT",
    "b11.none_served": "  (không có yêu cầu nào được phục vụ)",
    "b11.dist_head": "Trace so với bộ sinh (cùng {d[requests]} yêu cầu, cùng tốc độ trung bình {d[rate]:.2f} yêu cầu/giây, cùng độ dài trung bình; trace: độ dài như đã chạy, sau khi cắt cho vừa MAX_CONTEXT): p50 / p90 / p99 / max",
    "b11.dist_len": "  {what}: trace {t[p50]:g} / {t[p90]:g} / {t[p99]:g} / {t[max]:g} (trung bình {t[mean]:g}); bộ sinh {g[p50]:g} / {g[p90]:g} / {g[p99]:g} / {g[max]:g} (mọi yêu cầu như nhau) → p99 của trace gấp {ratio:.1f} lần trung bình",
    "b11.dist_prompt": "token prompt",
    "b11.dist_output": "token đầu ra",
    "b11.dist_gap": "  Khoảng cách giữa hai lần đến (ms): trace {t[p50]:g} / {t[p90]:g} / {t[p99]:g} / {t[max]:g}; bộ sinh (Poisson) {g[p50]:g} / {g[p90]:g} / {g[p99]:g} / {g[max]:g}; hệ số biến thiên (độ lệch chuẩn ÷ trung bình) {t[cv]:.2f} so với {g[cv]:.2f} (Poisson ≈ 1; lớn hơn 1 là đến dồn cục); giây đông nhất: {t[peak_1s]} yêu cầu so với {g[peak_1s]}",
    "b11.dist_lesson": "Vì sao trung bình đánh lừa: hai bên cùng trung bình, nhưng hoạch định theo trung bình thì bỏ sót đuôi dài (vài prompt dài giữ slot và KV lâu) và các cụm đến dồn (hàng đợi dâng lên trong một giây đông), mà TTFT p99 đến từ chính chúng. Để so, chạy bộ sinh cùng trung bình: WORKLOAD_TRACE=off WORKLOAD_PROMPT={g[prompt][mean]:g} WORKLOAD_OUTPUT={g[output][mean]:g} WORKLOAD_RATE={rate:g}.",
    "b11.conclusion": "Kết luận: đừng chỉ nhìn tổng TTFT; xem phần nào lớn nhất để biết nút thắt là hàng đợi hay prefill trước khi sửa.",
    "b11.limitation": "Giới hạn: chỉ có 3 yêu cầu được phục vụ nên không có p95/p99 đáng tin; hệ thống thật cần hàng nghìn mẫu.",
    # ── [12] ───────────────────────────────────────────────────────────────
    "b12.title": "TTFT, TPOT và throughput",
    "b12.chunked": "continuous + chunked ({cfg[TOKEN_BUDGET]} token/bước)",
    "b12.policy_none": "  {name:<38}: không có yêu cầu nào được phục vụ",
    "b12.policy": "  {name:<38}: {p[span]:ms} | {p[throughput]:.1f} token/s mô phỏng | {p[mean_ttft]:ms} / {p[max_ttft]:ms} | "
                  "{tpot} | {p[worst_gap]:ms}",
    "b12.preemptions": " | {p[preemptions]} lần preempt",
    "b12.reading": "Cách đọc: không chia prompt thì TTFT trung bình thấp hơn ({nochunk[mean_ttft]:ms} so với {chunked[mean_ttft]:ms}) nhưng một yêu cầu đang decode bị đứng "
                   "tới {nochunk[worst_gap]:ms} (so với {chunked[worst_gap]:ms}). Chia đoạn đổi một phần TTFT lấy khoảng đứng ngắn hơn.",
    "b12.reading_other": "Cách đọc: với cấu hình hiện tại, chia đoạn prompt không còn cho đúng đánh đổi 'TTFT thấp hơn nhưng khoảng đứng dài hơn'; hãy so hai cột TTFT và cột cuối.",
    "b12.definitions": "Định nghĩa: TTFT = thời điểm token đầu - thời điểm đến; TPOT = khoảng cách trung bình giữa các token sau token đầu; throughput = tổng token / thời gian chạy.",
    "b12.per_request": "Từng yêu cầu (continuous + chunked): TTFT | TPOT | E2E | số token",
    "b12.request": "  {m[id]}: {m[ttft]:ms} | {tpot} | {m[e2e]:ms} | {m[n]}",
    "b12.same": "Đúng trước, nhanh sau: đổi chính sách lập lịch có đổi token sinh ra không? Mọi yêu cầu chạy ở cả 3 chính sách đều cho cùng token: {d[same]}.",
    "b12.replayed": "Với workload sinh tự động (WORKLOAD_REQUESTS = {n}), hai chính sách kia chạy lại trên đồng hồ mà không chạy mô hình: cổng, bộ lập lịch, ngân sách token, block KV, preemption và đồng hồ chạy thật, còn token kế tiếp của mỗi yêu cầu lấy từ lần chạy chính (mọi yêu cầu sinh ra đều greedy với seed riêng, nên token không phụ thuộc lịch; yêu cầu mà lần chạy chính không phục vụ được mô hình giải mã riêng). Vì vậy ở đây 'cùng token' đúng do cách làm, không phải một phép kiểm tra; với trace REQUESTS cả 3 chính sách đều chạy mô hình.",
    "b12.baseline": "Baseline: cùng trace, cùng seed, cùng công thức chi phí; chỉ đổi chính sách lập lịch (static = đợi đủ nhóm, chạy hết nhóm rồi mới nhận nhóm sau).",
    "b12.legend": "Mỗi dòng: thời gian chạy | throughput | TTFT trung bình / lớn nhất | TPOT trung bình | khoảng cách lớn nhất giữa hai token liền kề của một yêu cầu",
    "b12.roofline_policy": "{name}: {p[steps]} bước ({p[memory_bound]} bị giới hạn bởi bộ nhớ), chạy {p[span]:ms}",
    "b12.roofline_steps": "Dưới roofline, bước bị giới hạn bởi bộ nhớ tốn gần như nhau dù chứa bao nhiêu token (trọng số đọc một lần mỗi bước), nên thời gian chạy đi theo số bước: {parts}.",
    "b12.roofline_steps_cluster": "Dưới roofline, bước bị giới hạn bởi bộ nhớ tốn gần như nhau dù chứa bao nhiêu token (trọng số đọc một lần mỗi bước); trên một cụm các bản sao chạy bước của mình song song, nên thời gian chạy đi theo số bước của bản sao xong sau cùng, không theo các tổng cộng qua mọi bản sao này: {parts}.",
    "b12.roofline_steps_mixed": "Dưới roofline, bước bị giới hạn bởi bộ nhớ tốn gần như nhau dù chứa bao nhiêu token, còn bước bị giới hạn bởi tính toán (đủ nhiều token, vượt điểm gãy của GPU) tốn theo số token: {parts}.",
    "b12.roofline_mixed": "Vì sao: bước trộn (decode + đoạn prompt trong MỘT lượt forward) tốn {mixed_us:ms}, như bước chỉ decode ({decode_us:ms}): {gb:.2f} GB trọng số đọc một lần cho cả bước (Sarathi); static không trộn bước nào ({static[steps]} bước), continuous không chia prompt trộn {nochunk[mixed]}/{nochunk[steps]} bước, continuous + chunked trộn {chunked[mixed]}/{chunked[steps]} bước. Đồng hồ seed tính bước trộn cả COST_DECODE_FIXED lẫn COST_PREFILL_FIXED.",
    "b12.roofline_mixed_compute": "Vì sao: bước trộn (decode + đoạn prompt trong MỘT lượt forward) vẫn đọc {gb:.2f} GB trọng số một lần cho cả bước (Sarathi), nhưng ở đây trung bình tốn {mixed_us:ms} so với {decode_us:ms} của bước chỉ decode: đủ nhiều token prompt để bước bị giới hạn bởi tính toán, và các decode trong bước phải chờ theo; static không trộn bước nào ({static[steps]} bước), continuous không chia prompt trộn {nochunk[mixed]}/{nochunk[steps]} bước, continuous + chunked trộn {chunked[mixed]}/{chunked[steps]} bước.",
    "b12.roofline_best_chunked": "Nhanh nhất: continuous + chunked ({chunked[span]:ms}): đoạn prompt đi nhờ trên các bước decode vốn đã phải đọc trọng số, nên ít bước hơn ({chunked[steps]} so với {other[steps]} của {other_name}).",
    "b12.roofline_best_chunked_bound": "Nhanh nhất: continuous + chunked ({chunked[span]:ms}): {chunked[steps]} bước (so với {other[steps]} của {other_name}), nhưng {chunked[memory_bound]}/{chunked[steps]} bước bị giới hạn bởi bộ nhớ (so với {other[memory_bound]}/{other[steps]}): TOKEN_BUDGET {budget} giữ mỗi bước dưới điểm gãy, nên đoạn prompt đi nhờ bước decode gần như không tốn thêm thời gian.",
    "b12.roofline_best_tie": "Nhanh nhất: hai chính sách continuous, bằng nhau ({chunked[span]:ms}, {chunked[steps]} bước): TOKEN_BUDGET {budget} đủ chứa mọi prompt nên không prompt nào bị chia.",
    "b12.roofline_best_tie_split": "Nhanh nhất: hai chính sách continuous, bằng nhau ({chunked[span]:ms}; chia đoạn {chunked[steps]} bước, không chia {nochunk[steps]} bước): chia đoạn đã cắt các prompt dài hơn TOKEN_BUDGET {budget}, vậy mà lượt chạy vẫn kết thúc cùng lúc.",
    "b12.roofline_best_nochunk": "Nhanh nhất: continuous, không chia prompt ({nochunk[span]:ms}, {nochunk[steps]} bước): chia prompt theo TOKEN_BUDGET {budget} thêm {extra} bước, mà bước nào cũng đọc lại toàn bộ trọng số. Chia đoạn có lợi khi prompt dài tới mức prefill nguyên khối bị giới hạn bởi tính toán và bắt các decode khác đứng chờ (bài 22).",
    "b12.roofline_best_static": "Nhanh nhất: static ({static[span]:ms}, {static[steps]} bước): với trace này, đợi đủ nhóm lại cần ít bước nhất.",
    "b12.roofline_best_cluster": "Nhanh nhất: {name} ({p[span]:ms}). Trên một cụm, lần chạy kết thúc ở bước cuối của bản sao xong sau cùng, nên tổng số bước cộng qua mọi bản sao không xếp hạng được các chính sách.",
    "b12.conclusion_roofline": "Kết luận: dưới CLOCK=roofline mỗi bước tốn thời gian {gpu} cần cho {model} (một lượt forward, trọng số đọc một lần), nên bước trộn decode + prefill không bị tính hai lần; đây vẫn là ước lượng từ datasheet trên {n} yêu cầu, không phải đo thật.",
    "b12.one_gpu": "GPU {cfg[GPU]}",
    "b12.gpu_group": "một nhóm {cfg[TENSOR_PARALLEL]} GPU {cfg[GPU]} (TENSOR_PARALLEL={cfg[TENSOR_PARALLEL]}, kể cả các all-reduce)",
    "b12.conclusion": "Kết luận: các chênh lệch này là hệ quả của mô hình chi phí giả định trên 3 yêu cầu, KHÔNG phải tốc độ GPU thật; đổi trace hoặc COST_* có thể đổi thứ hạng.",
    "b12.cost": "Chi phí (lần chạy chính): {e[gpus]} GPU {gpu} (REPLICAS × TENSOR_PARALLEL) × {e[price_per_hour]:g} US$/giờ (GPU_PRICE_PER_HOUR) × {span:.3f} s từ lúc yêu cầu đầu tiên đến tới lúc yêu cầu cuối xong = {e[dollars]:.6f} US$, tức {e[usd_per_m_output]:.2f} US$ mỗi triệu token sinh ra ({e[output_tokens]:,} token) và {e[usd_per_m_tokens]:.2f} US$ mỗi triệu token vào + ra ({total:,} token).",
    "b12.energy": "Năng lượng (mô hình tuyến tính P = P_nghỉ + (TDP − P_nghỉ) × mức dùng; TDP {e[tdp]:.0f} W, lúc nghỉ {e[idle_watts]:.0f} W mỗi GPU): GPU dùng {busy:.0f}% đỉnh trong các bước, {util:.0f}% trên cả khoảng chạy, trung bình {e[mean_watts]:.0f} W mỗi GPU → {e[joules]:,.1f} J, {e[joules_per_output_token]:.3f} J mỗi token sinh ra, {e[output_tokens_per_kwh]:,} token sinh ra mỗi kWh.",
    "b12.benchmark": "Benchmark thật cần: khởi động nóng, lặp lại nhiều lần, báo p50/p95/p99, cùng phần cứng và cùng mẫu tải. Một lần chạy không đủ.",
    # ── [13] ───────────────────────────────────────────────────────────────
    "b13.title": "Cổng chất lượng: bản gốc và bản INT{d[bits]} có chọn cùng token không?",
    "b13.method": "Cách làm: với mỗi prompt, mô hình gốc chạy greedy {d[steps]} bước; ở mỗi bước đưa CÙNG ngữ cảnh cho bản lượng tử hóa và so token top-1 (teacher forcing).",
    "b13.last_row": "Prompt dài hơn {long} token (workload sinh tự động): bước prompt chỉ tính hàng logits cuối (model.logits_at: K/V của mọi vị trí, attention chỉ cho hàng cuối). Mô hình của lab chỉ có 1 lớp nên các hàng khác không đổi hàng cuối; kết quả như một lượt forward đầy đủ, chỉ rẻ hơn (O(T) thay vì O(T²)).",
    "b13.sample": "Workload sinh tự động có {n} yêu cầu: cổng xét {k} prompt đầu (R1 … R{k}); mọi prompt được sinh theo cùng một cách nên đó là một mẫu, và giữ cho lần chạy nhanh.",
    "b13.row": "  {r[id]}: khớp {r[agree]}/{r[n]} quyết định top-1; sai số logits lớn nhất {r[max_err]:.4f}",
    "b13.skipped": "  {s[id]}: bỏ qua: {why}",
    "b13.total": "Tổng: {same}/{d[decisions]} quyết định giống nhau = {pct:.1f}%; ngưỡng cổng giả định {gate:.0f}% -> {verdict}.",
    "b13.pass": "ĐẠT",
    "b13.fail": "KHÔNG ĐẠT",
    "b13.closest": "Quyết định sát nhất: prompt {t[id]}, bước {step}: bản gốc hơn token nhì {t[margin]:.4f} điểm; bản lượng tử hóa hơn {t[margin_q]:.4f} điểm "
                   "-> {kept} token được chọn.",
    "b13.kept": "giữ nguyên",
    "b13.changed": "ĐÃ ĐỔI",
    "b13.kv_method": "KV cache FP8 (KV_BITS=8), cùng phép thử: mô hình gốc so với mô hình có KV cache FP8 (trọng số giữ số thực), CÙNG ngữ cảnh ở mỗi bước:",
    "b13.kv_total": "Tổng với KV cache FP8: {same}/{d[decisions]} quyết định giống nhau = {pct:.1f}%, {d[flips]} quyết định bị lật (token mà KV cache 16 bit không chọn ở đó); ngưỡng cổng giả định {gate:.0f}% -> {verdict}.",
    "b13.kv_flip": "  Bị lật: prompt {t[id]}, bước {step}: bản gốc chọn '{t[text]}' (hơn token nhì {t[margin]:.4f} điểm); với KV cache FP8, '{t[text_q]}' đứng đầu.",
    "b13.kv_served_same": "Lần chạy phục vụ: {d[compared]} yêu cầu đã xong nhận đúng các token mà cùng lần chạy với KV cache 16 bit cho ra (cùng hằng số, pool và đồng hồ).",
    "b13.kv_served": "Lần chạy phục vụ: {n}/{d[compared]} yêu cầu đã xong nhận token khác với cùng lần chạy dùng KV cache 16 bit (cùng hằng số, pool và đồng hồ):",
    "b13.kv_served_row": "  {c[id]}: từ token thứ {at}: '{c[text]}' ({c[n]} token) thay cho '{c[text16]}' ({c[n16]} token)",
    "b13.kv_served_skipped": "Lần chạy phục vụ: token của workload sinh tự động không được so với một lần chạy dùng KV cache 16 bit (mô hình sẽ phải tính mọi token hai lần); các quyết định bị lật của cổng ở trên là thước đo cho cache FP8.",
    "b13.no_decisions": "Tổng: không có prompt nào tokenize được nên cổng chất lượng không có quyết định nào để so.",
    "b13.reading": "Cách đọc: token top-1 chỉ đổi khi sai số làm hai điểm số đảo thứ tự; sai số logits lớn nhất (các dòng trên) chỉ là chặn trên, không tự nó báo token đổi.",
    "b13.conclusion": "Kết luận: cổng này là kiểm tra hồi quy trên mô hình đồ chơi, {d[decisions]} quyết định. Nó KHÔNG đo chất lượng ngôn ngữ; bản thật cần bộ đánh giá theo nhiệm vụ.",
    # ── TỔNG KẾT ───────────────────────────────────────────────────────────
    "summary.cancelled": "bị hủy",
    "summary.rejected": "bị từ chối",
    "summary.note_nobody": "Ghi chú: {fl[id]} {fate} và không yêu cầu nào được phục vụ, nên các kiểm tra về xác suất và attention được bỏ qua.",
    "summary.note_stand_in": "Ghi chú: {fl[id]} {fate} nên các kiểm tra xác suất/attention dùng yêu cầu được phục vụ {used} thay cho {fl[id]}.",
    "summary.followed": "1. Yêu cầu {fl[id]} đi qua 13 khối; TTFT {fm[ttft]:ms} = chuẩn bị {fm[prep]:ms} + chờ chỗ chạy {fm[queue]:ms} + prefill {fm[prefill]:ms}.",
    "summary.not_followed": "1. {refusal}; các khối theo dõi đã nói rõ điều đó. {how}",
    "summary.title": "TỔNG KẾT: Bạn vừa quan sát được gì?",
    "summary.tokens": "2. Đổi cách lập lịch hay lưu KV theo block không đổi token sinh ra (đã so token và logits); chúng chỉ đổi thời gian và bộ nhớ.",
    "summary.distributions": "3. Attention weights (trên vị trí) và xác suất từ vựng (trên token) là hai phân phối khác nhau, mỗi phân phối tổng bằng 1.",
    "summary.simulated": "4. Số ms là mô phỏng theo giả định; số byte, số vị trí, token và sai số là kết quả tính thật trong lab này.",
    "summary.fail": "FAIL: kiểm tra bất biến không đạt: {labels}.",
    "summary.pass": "PASS: đường ống phục vụ LLM thu nhỏ chạy đúng (cache khớp tính lại, block được trả đủ, lập lịch không đổi nội dung).",
    # ── notes beside the seed's lines (text_notes.py: said when the line above is false or incomplete for the run) ──
}

SAY.update(notes_vi.SAY)          # the notes beside the seed's lines (notes_vi.py), same keys
SAY.update(spec_vi.SAY)           # speculative decoding's sentences (spec_vi.py), same keys
SAY.update(own_vi.SAY)            # the lab's own sentences where the seed's would be false (own_vi.py)
SAY.update(cluster_vi.SAY)        # the cluster's sentences (cluster_vi.py, text_cluster.py), same keys
WORDS = text.Words(SAY, checks=CHECK_LABELS, docs=VLLM_DOCS, policies=POLICY_NAMES)
BLOCKS, header_lines, summary_lines = text.bind(WORDS)
notes = partial(text.notes, WORDS)   # {part: [note]} beside the seed's lines (text_notes.py)

