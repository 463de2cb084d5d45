"""The constants' and the request columns' words in Vietnamese, and every config problem's sentence.

`FIELDS` gives each constant of the schema (core/inputs/schema.py) its label and help (the page's control, the
command line's --help), `COLUMNS` each request column's, keyed by name; `PROBLEMS` words config.py's problems
(`Problem.key`, its fields named as in `Problem.args`), `DIGITS` the word for a long number's length.
schema_en.py has the same keys in English; text_schema.py puts them together.

Leaves out: names, defaults and bounds (the schema), which problem is found when (config.py).
"""
from __future__ import annotations

FIELDS = {
    'SLOTS': ('Số chỗ chạy (SLOTS)',
         'Số chuỗi được chạy cùng lúc trong một bước.'),
    'QUEUE_LIMIT': ('Số chỗ chờ (QUEUE_LIMIT)',
         'Số yêu cầu được xếp vào hàng đợi thêm ngoài SLOTS; đầy thì cổng trả 429.'),
    'TOKEN_BUDGET': ('Ngân sách token mỗi bước (TOKEN_BUDGET)',
         'Số token tối đa xử lý trong một bước; prompt dài được chia đoạn (chunked prefill).'),
    'BLOCK_SIZE': ('Số token mỗi block KV (BLOCK_SIZE)',
         'Số token trong một block của KV cache phân trang.'),
    'POOL_BLOCKS': ('Số block KV vật lý (POOL_BLOCKS)',
         'Số block vật lý trong bể KV giả lập ("HBM"); hết block thì engine phải preempt. auto = tính như vLLM từ '
         'HBM của GPU và SHADOW_MODEL (mặc định dưới CLOCK = roofline; xem khối 10).'),
    'QUANT_BITS': ('Số bit lượng tử hóa (QUANT_BITS)',
         'Độ rộng bit của trọng số lượng tử hóa đối xứng (8 = INT8; thử 4).'),
    'FOLLOW': ('Yêu cầu theo dõi (FOLLOW)',
         'Yêu cầu được theo dõi chi tiết qua mọi khối.'),
    'REQUESTS': ('Các yêu cầu (REQUESTS)',
         'Trace yêu cầu: thời điểm đến, văn bản, giới hạn sinh, cấu hình lấy mẫu, seed riêng.'),
    'MAX_CONTEXT': ('Context tối đa (MAX_CONTEXT)',
         'Tổng token tối đa của một chuỗi (prompt + sinh ra); vượt thì trả 400. Dưới CLOCK = roofline không vượt '
         'context của SHADOW_MODEL (Llama 3.1: 131072, Mistral-7B-v0.3: 32768, Llama-2-7B: 4096). auto (mặc định): '
         '24 như bản gốc; với WORKLOAD_TRACE là yêu cầu dài nhất của cửa sổ, trong giới hạn context của '
         'SHADOW_MODEL (roofline) và số token bể KV giữ được.'),
    'TTFT_SLO': ('Ngưỡng TTFT giả định (TTFT_SLO, µs)',
         'Ngưỡng TTFT GIẢ ĐỊNH để minh họa cảnh báo (µs mô phỏng). Dưới CLOCK = roofline mặc định là 250 ms, '
         'SLO của DistServe cho chatbot (OSDI 2024).'),
    'QUALITY_GATE': ('Ngưỡng cổng chất lượng (QUALITY_GATE)',
         'Tỉ lệ quyết định top-1 phải giữ nguyên sau lượng tử hóa (0..1).'),
    'SEED': ('Seed trọng số (SEED)',
         'Seed của trọng số mô hình ngẫu nhiên.'),
    'N_MERGES': ('Số phép gộp BPE (N_MERGES)',
         'Số phép gộp BPE học từ 5 câu mẫu; ít phép gộp thì prompt dài hơn.'),
    'COST_GATEWAY': ('Chi phí cổng (COST_GATEWAY, µs)',
         'Cổng: xác thực + kiểm tra hạn mức (µs mô phỏng, giả định).'),
    'COST_TOKENIZE_PER_TOKEN': ('Chi phí tokenize mỗi token (COST_TOKENIZE_PER_TOKEN, µs)',
         'CPU chuẩn bị đầu vào, tính theo số token prompt.'),
    'COST_DECODE_FIXED': ('Chi phí cố định bước decode (COST_DECODE_FIXED, µs)',
         'Đọc trọng số một lần cho cả bước decode (giới hạn băng thông).'),
    'COST_DECODE_PER_SEQ': ('Chi phí decode mỗi chuỗi (COST_DECODE_PER_SEQ, µs)',
         'Thêm cho mỗi chuỗi decode trong bước.'),
    'COST_PREFILL_FIXED': ('Chi phí cố định bước prefill (COST_PREFILL_FIXED, µs)',
         'Chi phí cố định khi bước có prefill.'),
    'COST_PREFILL_PER_TOKEN': ('Chi phí prefill mỗi token (COST_PREFILL_PER_TOKEN, µs)',
         'Prefill tính nhiều token cùng lúc (giới hạn tính toán).'),
    'PREFIX_CACHE': ('Prefix cache tự động (PREFIX_CACHE)',
         'on = giữ lại block KV đầy của các prompt đã tính (băm theo token, nối với block cha) để yêu cầu sau có '
         'cùng phần đầu prompt dùng lại thay vì tính lại, như Automatic Prefix Caching của vLLM; off = như seed.'),
    'SCHED_POLICY': ('Chính sách lập lịch (SCHED_POLICY)',
         'fcfs = ai đến trước chạy trước (như seed); priority = hàng đợi xếp theo (priority, giờ đến), số nhỏ chạy '
         'trước, và khi hết block KV thì preempt chuỗi có (priority, giờ đến) lớn nhất, như vLLM.'),
    'BYTE_FALLBACK': ('Byte fallback của tokenizer (BYTE_FALLBACK)',
         "on = ký tự tokenizer chưa từng thấy (chữ có dấu như 'à') thành các token byte UTF-8 <0xC3> <0xA0>, như "
         'byte fallback của SentencePiece hay BPE mức byte (GPT-2, Llama 3): yêu cầu được phục vụ, chỉ tốn thêm '
         'token; từ vựng thêm 256 token byte. off = như seed: ký tự lạ bị từ chối 400.'),
    'CLOCK': ('Đồng hồ mô phỏng (CLOCK)',
         'seed = thời gian từ các hằng số COST_* giả định của seed (như seed); roofline = mỗi bước tốn thời gian mà '
         'GPU tên GPU cần để chạy bước đó với kích thước của SHADOW_MODEL: max(FLOP ÷ FLOP/s đạt được, byte ÷ băng '
         'thông đạt được) + STEP_OVERHEAD.'),
    'GPU': ('GPU (GPU)',
         'GPU mà đồng hồ roofline tính theo: đỉnh FLOP/s dày đặc (không tính sparsity), băng thông và dung lượng HBM '
         'lấy từ datasheet.'),
    'SHADOW_MODEL': ('Mô hình bóng (SHADOW_MODEL)',
         'Mô hình có kích thước mà đồng hồ tính tiền; mô hình NumPy nhỏ của lab vẫn tính mọi token. lab = chính mô '
         'hình nhỏ của lab.'),
    'WEIGHT_BITS': ('Số bit trọng số khi phục vụ (WEIGHT_BITS)',
         'Độ rộng trọng số mà đồng hồ roofline tính (16 = bf16, 8 = FP8/INT8, 4); khác QUANT_BITS, là thí nghiệm '
         'lượng tử hóa trọng số của chính lab ở khối 9.'),
    'KV_BITS': ('Số bit KV cache (KV_BITS)',
         'Độ rộng K/V trong KV cache: 16 = bf16 (lab giữ float64); 8 = FP8 E4M3 với scale theo từng head (như '
         '--kv-cache-dtype fp8 của vLLM): cache của chính lab lưu K và V đã làm tròn về FP8 dưới cả hai đồng hồ, và '
         'khối 9, 13 báo sai số cùng các quyết định bị lật; đồng hồ roofline còn tính 1 byte mỗi giá trị. Chương '
         'trình gốc không có cache lượng tử hóa, nên KV_BITS = 8 luôn nhận lời của chính lab.'),
    'ACT_BITS': ('Số bit activation khi tính (ACT_BITS)',
         'Độ chính xác mà GEMM và attention tính: 16 = bf16 (cả khi WEIGHT_BITS = 8 hay 4: lượng tử hóa chỉ trọng '
         'số như GPTQ/AWQ đọc ít byte hơn nhưng vẫn nhân ở đỉnh 16 bit); 8 = W8A8 (FP8), dùng đỉnh 8 bit, cần '
         'WEIGHT_BITS 8 hoặc 4.'),
    'TENSOR_PARALLEL': ('Số GPU song song tensor (TENSOR_PARALLEL)',
         'Số GPU cùng loại chia nhau một mô hình (1, 2, 4, 8; như --tensor-parallel-size của vLLM): mỗi GPU giữ '
         '1/TP trọng số và KV head, và mỗi lớp cộng dồn hai lần qua NVLink/PCIe (all-reduce), thời gian này '
         'cộng vào mỗi bước. Một bản sao (REPLICAS) là một nhóm TP: số GPU = REPLICAS × TENSOR_PARALLEL.'),
    'GPU_MEMORY_UTILIZATION': ('Tỉ lệ bộ nhớ GPU engine được dùng (GPU_MEMORY_UTILIZATION)',
         'Phần dung lượng GPU mà engine được dùng cho trọng số, vùng activation và KV cache, như '
         '--gpu-memory-utilization của vLLM (mặc định 0.9); POOL_BLOCKS = auto lấy phần còn lại làm KV.'),
    'ENGINE_PROFILE': ('Hồ sơ engine (ENGINE_PROFILE)',
         'Engine mà đồng hồ roofline mô phỏng: mỗi hồ sơ đặt FLOPS_FRACTION, BANDWIDTH_FRACTION theo độ chính xác '
         'và STEP_OVERHEAD từ số đo đã công bố (ideal = đỉnh datasheet, không overhead); giá trị bạn gõ vào ba ô '
         'đó vẫn thắng.'),
    'FLOPS_FRACTION': ('Tỉ lệ FLOP/s đạt được (FLOPS_FRACTION)',
         'Phần của đỉnh FLOP/s mà GEMM thật đạt được (MFU); auto = theo ENGINE_PROFILE (vllm ở 16 bit: 0.6).'),
    'BANDWIDTH_FRACTION': ('Tỉ lệ băng thông đạt được (BANDWIDTH_FRACTION)',
         'Phần của băng thông HBM mà kernel thật đạt được (MBU); auto = theo ENGINE_PROFILE (vllm ở 16 bit: 0.8).'),
    'STEP_OVERHEAD': ('Chi phí cố định mỗi bước (STEP_OVERHEAD, µs)',
         'Thời gian cố định của mỗi bước dưới CLOCK = roofline: lập lịch CPU, khởi chạy kernel, lấy mẫu; auto = '
         'theo ENGINE_PROFILE (vllm: 100).'),
    'GPU_PRICE_PER_HOUR': ('Giá mỗi GPU-giờ (GPU_PRICE_PER_HOUR, US$)',
         'Giá thuê một GPU trong một giờ, dùng để tính chi phí dưới CLOCK = roofline (US$ cho mỗi triệu token); '
         'auto = giá niêm yết của GPU đã chọn (README: nguồn và ngày đọc). Số GPU = REPLICAS × TENSOR_PARALLEL.'),
    'SPEC_METHOD': ('Giải mã suy đoán (SPEC_METHOD)',
         'off = mỗi bước một token (như seed); ngram = đề xuất token bằng cách tìm lại n token cuối trong chính '
         'chuỗi (prompt lookup của vLLM); draft = mô hình nháp rẻ hơn (chính mô hình của lab, trọng số lượng tử hóa '
         'QUANT_BITS bit) đề xuất K token. Mô hình đích kiểm tra cả K token trong một lượt; luật chấp nhận giữ '
         'nguyên phân phối đầu ra.'),
    'SPEC_TOKENS': ('Số token đề xuất mỗi bước (SPEC_TOKENS, K)',
         'K: số token tối đa mà bộ đề xuất đưa ra cho mỗi chuỗi trong một bước (bị cắt gần max_new, MAX_CONTEXT và '
         'khi ngân sách token không đủ K + 1).'),
    'WORKLOAD_REQUESTS': ('Số yêu cầu sinh tự động (WORKLOAD_REQUESTS)',
         '0 = dùng trace REQUESTS; N > 0 = engine chạy N yêu cầu sinh tự động R1 … RN thay cho REQUESTS (greedy, '
         'seed WORKLOAD_SEED + i), mỗi prompt đúng WORKLOAD_PROMPT token.'),
    'WORKLOAD_PROMPT': ('Số token mỗi prompt sinh ra (WORKLOAD_PROMPT)',
         'Độ dài mỗi prompt sinh tự động, tính bằng token của tokenizer (kể cả <bos>).'),
    'WORKLOAD_OUTPUT': ('Số token sinh ra mỗi yêu cầu (WORKLOAD_OUTPUT)',
         'max_new của mỗi yêu cầu sinh tự động (EOS vẫn có thể dừng sớm hơn, trừ khi IGNORE_EOS = on).'),
    'IGNORE_EOS': ('Bỏ qua EOS (IGNORE_EOS)',
         'on = không dừng khi gặp <eos>: mọi yêu cầu sinh đủ max_new token, như ignore_eos mà benchmark của vLLM '
         'dùng để đo đúng độ dài đầu ra; off = như seed: <eos> kết thúc yêu cầu.'),
    'WORKLOAD_RATE': ('Tốc độ đến (WORKLOAD_RATE, yêu cầu/giây)',
         'Yêu cầu mỗi giây mô phỏng, đến theo quá trình Poisson (R1 lúc 0); 0 = tất cả đến cùng lúc.'),
    'WORKLOAD_SEED': ('Seed của workload (WORKLOAD_SEED)',
         'Seed của văn bản, thời điểm đến và tiền tố; yêu cầu thứ i lấy mẫu với seed WORKLOAD_SEED + i.'),
    'WORKLOAD_PREFIXES': ('Số tiền tố dùng chung (WORKLOAD_PREFIXES)',
         'Số tiền tố khác nhau dùng chung (như system prompt); yêu cầu i mở đầu bằng tiền tố i mod '
         'WORKLOAD_PREFIXES; 0 = không có.'),
    'WORKLOAD_SHARED': ('Số token mỗi tiền tố chung (WORKLOAD_SHARED)',
         'Số token của mỗi tiền tố chung (kể cả <bos>), tính trong WORKLOAD_PROMPT.'),
    'WORKLOAD_TRACE': ('Luồng yêu cầu thật (WORKLOAD_TRACE)',
         'off = workload sinh tự động; azure-conv / azure-code = mẫu 1.000 yêu cầu đầu của trace Azure LLM 2023 '
         '(dịch vụ hội thoại / code, CC-BY 4.0): thời điểm đến, độ dài prompt và đầu ra thật. Dòng lệnh nhận cả '
         'một tệp FILE.csv. Cần WORKLOAD_REQUESTS > 0 (lấy N yêu cầu đầu của cửa sổ).'),
    'WORKLOAD_TRACE_START': ('Đầu cửa sổ trace (WORKLOAD_TRACE_START, giây)',
         'Cửa sổ bắt đầu từ giây này sau yêu cầu đầu tiên của trace.'),
    'WORKLOAD_TRACE_DURATION': ('Độ dài cửa sổ trace (WORKLOAD_TRACE_DURATION, giây)',
         'Độ dài cửa sổ tính bằng giây; 0 = tới hết trace.'),
    'WORKLOAD_TIME_SCALE': ('Hệ số tốc độ trace (WORKLOAD_TIME_SCALE)',
         'Chia mọi khoảng cách giữa hai lần đến: 2 = phát lại cùng các yêu cầu với tốc độ gấp đôi.'),
    'REPLICAS': ('Số bản sao engine (REPLICAS)',
         'Số engine chạy song song sau một router, mỗi engine có SLOTS, QUEUE_LIMIT, bể KV POOL_BLOCKS và bộ lập '
         'lịch riêng; 1 = một engine như seed.'),
    'ROUTER': ('Chính sách router (ROUTER)',
         'round_robin = lần lượt từng bản sao; least_loaded = bản sao còn ít token phải tính nhất; prefix_aware = '
         'điểm 3 × (phần block prompt đã ở bản sao đó) − 2 × (tải tương đối), trọng số mặc định của llm-d.'),
    'DISAGG': ('Tách prefill/decode (DISAGG)',
         'on = PREFILL_REPLICAS bản sao đầu chỉ prefill, các bản sao còn lại chỉ decode; KV của mỗi yêu cầu được '
         'chuyển qua đường truyền KV_LINK_GBPS (như disaggregated prefill của vLLM, DistServe); off = như seed.'),
    'PREFILL_REPLICAS': ('Số bản sao prefill (PREFILL_REPLICAS)',
         'Khi DISAGG = on: số bản sao prefill, từ 1 đến REPLICAS − 1; các bản sao còn lại decode.'),
    'KV_LINK_GBPS': ('Băng thông đường truyền KV (KV_LINK_GBPS, GB/s)',
         'Gigabyte mỗi giây giữa bản sao prefill và decode; 50 GB/s = một cổng InfiniBand NDR 400 Gb/s.'),
    'KV_LINK_LATENCY_US': ('Độ trễ đường truyền KV (KV_LINK_LATENCY_US, µs)',
         'Thời gian cố định của mỗi lần chuyển KV (bắt tay, thiết lập RDMA); giả định.'),
    'TPOT_SLO': ('Ngưỡng TPOT giả định (TPOT_SLO, µs)',
         'Ngưỡng thời gian trung bình giữa hai token GIẢ ĐỊNH; goodput đếm yêu cầu đạt cả TTFT_SLO và TPOT_SLO.'),
}
COLUMNS = {
    'id': ('Mã',
         'Tên ngắn của yêu cầu (chữ cái/chữ số, tối đa 8 ký tự, không trùng).'),
    'arrival': ('Đến (µs)',
         'Thời điểm đến trên đồng hồ mô phỏng (µs).'),
    'text': ('Văn bản',
         'Prompt; ký tự lạ với tokenizer bị từ chối 400 (BYTE_FALLBACK = on: thành token byte).'),
    'max_new': ('max_new',
         'Số token sinh ra tối đa.'),
    'temperature': ('T',
         'Temperature; 0 = greedy.'),
    'top_k': ('top_k',
         'Giữ k token xác suất cao nhất; 0 = tắt.'),
    'top_p': ('top_p',
         'Giữ nhóm token có tổng xác suất tới top_p (0 < top_p <= 1).'),
    'seed': ('seed',
         'Seed riêng của yêu cầu (lấy mẫu lặp lại được).'),
    'priority': ('priority',
         'Độ ưu tiên khi SCHED_POLICY = priority: số nhỏ chạy trước, được âm (như vLLM); để trống = 0.'),
    'cancel_at': ('Hủy lúc (µs)',
         'Client hủy yêu cầu lúc này (µs mô phỏng); engine bỏ nó ở ranh giới bước đầu tiên từ lúc đó; để trống = '
         'không hủy.'),
}

DIGITS = "chữ số"
PROBLEMS = {
    # ── the mapping itself ────────────────────────────────────────────────
    "bad_json": "Cấu hình không phải JSON hợp lệ ({detail}).",
    "not_a_mapping": "Cấu hình phải là một bảng TÊN → giá trị.",
    "unknown_constant": "Không có hằng số tên {name}.",
    # ── one value ─────────────────────────────────────────────────────────
    "not_an_integer": "{name} phải là số nguyên (nhận {got!r}).",
    "not_a_number": "{name} phải là một số (nhận {got!r}).",
    "out_of_range": "{name} phải nằm trong khoảng {lo}..{hi} (nhận {got}).",
    "not_one_of": "{name} phải là một trong: {allowed} (nhận {got!r}).",
    "not_in_trace": "{name} phải là mã của một yêu cầu trong trace ({ids}); nhận {got!r}.",
    # ── the request trace ─────────────────────────────────────────────────
    "requests_not_a_list": "REQUESTS phải là một danh sách yêu cầu.",
    "requests_count": "REQUESTS phải có từ 1 đến {limit} yêu cầu (nhận {got}).",
    "duplicate_ids": "Mã yêu cầu bị trùng: {ids}.",
    "request_not_a_mapping": "Yêu cầu thứ {n} phải là một bảng khóa → giá trị.",
    "missing_keys": "Yêu cầu thứ {n} thiếu khóa: {keys}.",
    "unknown_keys": "Yêu cầu thứ {n} có khóa lạ: {keys}.",
    "in_request": "Yêu cầu thứ {n}: {problem}",
    "not_a_string": "{name} phải là chuỗi ký tự.",
    "bad_id": "id phải gồm 1..8 chữ cái hoặc chữ số (không dấu).",
    "empty_text": "text không được rỗng.",
    "text_too_long": "text dài tối đa {limit} ký tự (nhận {got}).",
    # ── constants that must agree ─────────────────────────────────────────
    "costs_both_zero": "{fixed} và {per} không được cùng bằng 0: mỗi bước phải tốn thời gian mô phỏng.",
    "weights_do_not_fit": "{model} ở {bits} bit cần {need:.1f} GB cho trọng số, nhưng {gpu} chỉ có {have:.1f} GB HBM "
                          "({usable:.1f} GB dùng được sau GPU_MEMORY_UTILIZATION {utilization:g} và vùng activation): "
                          "đổi SHADOW_MODEL, GPU, WEIGHT_BITS hoặc GPU_MEMORY_UTILIZATION.",
    "weights_need_tp": "{model} ở {bits} bit cần {need:.1f} GB cho trọng số, nhưng một {gpu} có {have:.1f} GB HBM, "
                       "chỉ dùng được {usable:.1f} GB (sau GPU_MEMORY_UTILIZATION {utilization:g} và vùng activation): cần "
                       "TENSOR_PARALLEL ≥ {tp} (trọng số chia cho {tp} GPU, mỗi GPU {share:.1f} GB), hoặc đổi "
                       "SHADOW_MODEL, GPU hay WEIGHT_BITS.",
    "weights_do_not_fit_tp": "{model} ở {bits} bit chia cho {tp} GPU vẫn cần {share:.1f} GB trọng số mỗi GPU, nhưng "
                             "mỗi {gpu} chỉ dùng được {usable:.1f} GB (sau GPU_MEMORY_UTILIZATION {utilization:g} "
                             "và vùng activation): tăng TENSOR_PARALLEL{more}, hoặc đổi GPU hay WEIGHT_BITS.",
    "tp_heads": "{model} có {heads} attention head và {kv} KV head: TENSOR_PARALLEL = {tp} không chia đều chúng "
                "(vLLM đòi số head chia hết cho số GPU); chọn TENSOR_PARALLEL trong {ok}.",
    "context_exceeds_model": "MAX_CONTEXT ({got}) vượt quá context của {model} ({limit} token, max_position_embeddings "
                             "trong config.json của nó): đặt MAX_CONTEXT <= {limit} hoặc đổi SHADOW_MODEL.",
    "act_bits_needs_low_weights": "ACT_BITS = 8 (W8A8, FP8) cần trọng số 8 hoặc 4 bit: đặt WEIGHT_BITS = 8 (FP8 W8A8 = "
                                  "WEIGHT_BITS 8 và ACT_BITS 8) hoặc để ACT_BITS = 16.",
    "shared_exceeds_prompt": "WORKLOAD_SHARED ({shared}) không được lớn hơn WORKLOAD_PROMPT ({prompt}): tiền tố chung "
                             "nằm trong prompt.",
    "prompt_unreachable": "Với N_MERGES = {merges} không từ nào dài đúng 1 token, nên không tạo được prompt dài đúng "
                          "{prompt} token: đổi WORKLOAD_PROMPT, WORKLOAD_SHARED hoặc đặt N_MERGES >= 3.",
    "shared_prompt_unreachable": "Với N_MERGES = {merges} không từ nào dài đúng 1 token, nên không tạo được prompt "
                                 "dài đúng {prompt} token (tiền tố chung {shared}): đổi WORKLOAD_PROMPT, "
                                 "WORKLOAD_SHARED hoặc đặt N_MERGES >= 3.",
    "trace_needs_requests": "WORKLOAD_TRACE = {trace} cần WORKLOAD_REQUESTS > 0: số yêu cầu lấy từ đầu cửa sổ của "
                            "trace.",
    "trace_unreadable": "Không đọc được trace: {why}.",
    "trace_window_empty": "Cửa sổ từ giây {start:g} (dài {duration:g} giây; 0 = tới hết) không có yêu cầu nào của "
                          "trace (yêu cầu cuối lúc {length:.1f} giây): đổi WORKLOAD_TRACE_START hoặc "
                          "WORKLOAD_TRACE_DURATION.",
    "trace_prompt_unreachable": "Với N_MERGES = {merges} không từ nào dài đúng 1 token, nên không tạo được prompt "
                                "dài đúng {prompt} token của trace: đặt N_MERGES >= 3.",
    "disagg_needs_two": "DISAGG = on cần ít nhất 2 bản sao (một prefill, một decode); REPLICAS = {replicas}.",
    "prefill_replicas": "PREFILL_REPLICAS phải nằm trong khoảng 1..{top} (REPLICAS − 1, để còn bản sao decode); "
                        "nhận {got}.",
}
