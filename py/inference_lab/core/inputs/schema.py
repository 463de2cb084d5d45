"""The lab's tunable constants, written once: name, type, seed default, bounds, labels and help in both languages.

Every constant at the top of the seed program (`inference-end-to-end.py`) is a `Field` here, with the
seed's default, its bounds, a Vietnamese label and help text (and their English twins in `en`) and a
group; `REQUEST_FIELDS` are the columns of the request trace (REQUESTS). The page builds its controls
from `describe()`, the command line builds its flags from `FIELDS`, config.py's `Config` has one
attribute per Field: a name, default or bound is written exactly once.

    >>> FIELD_BY_NAME["TOKEN_BUDGET"].flag, FIELD_BY_NAME["TOKEN_BUDGET"].default
    ('--token-budget', 6)

Bounds are chosen for runs that stay fast: an explicit REQUESTS trace holds at most 12 requests of 80
characters, a generated one (WORKLOAD_REQUESTS, workload.py) up to 1,000 of up to MAX_CONTEXT ≤ 8,192 tokens;
SLOTS ≤ 256, QUEUE_LIMIT ≤ 1,024, TOKEN_BUDGET ≤ 16,384. The seed's defaults run in well under a second; the
issue's scale case (64 requests × 2,048-token prompts × 128 tokens) in a few seconds (bench/workload_scale.py).

Leaves out: checking values against the schema and the Config object (config.py), and the model's
sizes (d_model 8, 2 heads of 4, FFN 16), fixed as in the seed, in `model.py`.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from ..clock.hardware import GPU_MEMORY_UTILIZATION, GPUS, MODELS
from ..clock.profiles import PROFILES

MAX_REQUESTS = 12
MAX_TEXT_CHARS = 80
MAX_WORKLOAD = 1000                 # generated requests (workload.py) are not limited by REQUESTS' 12 rows

DEFAULT_REQUESTS = (
    dict(id="A", arrival=0, text="xin chao model", max_new=10, temperature=0.0, top_k=0, top_p=1.0, seed=1),
    dict(id="B", arrival=0, text="model hoc token", max_new=7, temperature=0.8, top_k=4, top_p=0.9, seed=2),
    dict(id="E", arrival=500, text="xin chao ban", max_new=30, temperature=0.0, top_k=0, top_p=1.0, seed=3),
    dict(id="C", arrival=1000, text="ban hoc model", max_new=8, temperature=0.8, top_k=5, top_p=0.9, seed=4),
    dict(id="D", arrival=1500, text="xin chao token", max_new=5, temperature=0.0, top_k=0, top_p=1.0, seed=5),
)


@dataclass(frozen=True, slots=True)
class Field:
    """One tunable constant: name as in the seed, type, default, bounds and Vietnamese texts."""
    name: str
    type: str                      # "int" | "float" | "choice" | "requests"
    default: object
    label: str
    help: str
    group: str                     # "headline" | "requests" | "advanced"
    min: float | None = None
    max: float | None = None
    step: float | None = None
    choices: tuple | None = None   # a "choice" field's fixed values (FOLLOW's come from the trace instead); an int's allowed values
    en: tuple[str, str] = ("", "")   # (label, help) in English, beside the Vietnamese ones
    auto: bool = False             # also takes the word "auto" (POOL_BLOCKS: sized as vLLM does, config.auto_pool_blocks;
                                   # FLOPS_FRACTION, BANDWIDTH_FRACTION, STEP_OVERHEAD: from ENGINE_PROFILE, config.resolve_profile)
    roofline_default: object = None   # the default under CLOCK = roofline, when it differs from the seed's

    @property
    def is_switch(self) -> bool:
        """An off/on choice: the command line also takes the bare flag for "on" (--prefix-cache)."""
        return self.choices == ("off", "on")

    @property
    def flag(self) -> str:
        return "--" + self.name.lower().replace("_", "-")

    def describe(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "en"}
        d["label_en"], d["help_en"] = self.en
        d["flag"] = self.flag
        d["default"] = [dict(r) for r in self.default] if self.type == "requests" else self.default
        d["choices"] = list(self.choices) if self.choices else None
        d["switch"] = self.is_switch
        return d


@dataclass(frozen=True, slots=True)
class RequestField:
    """One column of the request trace (REQUESTS)."""
    name: str
    type: str                      # "str" | "int" | "float"
    label: str
    help: str
    min: float | None = None
    max: float | None = None
    pattern: str | None = None     # a regular expression the whole value must match (JS and Python syntax)
    optional: bool = False         # may be left out (or null): the seed's trace has no such column
    en: tuple[str, str] = ("", "")   # (label, help) in English


ID_PATTERN = r"^[A-Za-z0-9]{1,8}$"
_I = "int"
# Under CLOCK = roofline, tokenizing costs 1 µs per token: Hugging Face's Rust `tokenizers` (its README) takes
# "less than 20 seconds to tokenize a GB of text on a server's CPU", well under 1 µs per token even on one
# thread; the seed's 50 µs would dwarf a real step. COST_GATEWAY keeps the seed's 200 µs (assumed).
TOKENIZE_US_ROOFLINE = 1
# TPOT_SLO under CLOCK = roofline: 50 ms per output token (about 20 tokens/s, faster than people read; assumed, as
# TTFT_SLO); the seed clock's 2,000 µs is twice its decode step (COST_DECODE_FIXED + 10 sequences).
TPOT_US_ROOFLINE = 50_000
MAX_REPLICAS = 8
FIELDS: tuple[Field, ...] = (
    Field("SLOTS", _I, 2, "Số chỗ chạy (SLOTS)", "Số chuỗi được chạy cùng lúc trong một bước.", "headline", 1, 256,
          en=('Running slots (SLOTS)', 'How many sequences run together in one step.')),
    Field("QUEUE_LIMIT", _I, 1, "Số chỗ chờ (QUEUE_LIMIT)",
          "Số yêu cầu được xếp vào hàng đợi thêm ngoài SLOTS; đầy thì cổng trả 429.", "headline", 0, 1024,
          en=('Waiting places (QUEUE_LIMIT)', 'How many requests may wait in the queue beyond SLOTS; when full the gateway returns 429.')),
    Field("TOKEN_BUDGET", _I, 6, "Ngân sách token mỗi bước (TOKEN_BUDGET)",
          "Số token tối đa xử lý trong một bước; prompt dài được chia đoạn (chunked prefill).", "headline", 1, 16384,
          en=('Token budget per step (TOKEN_BUDGET)', 'Most tokens processed in one step; long prompts are split into chunks (chunked prefill).')),
    Field("BLOCK_SIZE", _I, 4, "Số token mỗi block KV (BLOCK_SIZE)",
          "Số token trong một block của KV cache phân trang.", "headline", 1, 64,
          en=('Tokens per KV block (BLOCK_SIZE)', 'Tokens in one block of the paged KV cache.')),
    Field("POOL_BLOCKS", _I, 12, "Số block KV vật lý (POOL_BLOCKS)",
          "Số block vật lý trong bể KV giả lập (\"HBM\"); hết block thì engine phải preempt. auto = tính như vLLM từ HBM "
          "của GPU và SHADOW_MODEL (mặc định dưới CLOCK = roofline; xem khối 10).", "headline", 1, 65536,
          en=('Physical KV blocks (POOL_BLOCKS)', 'Physical blocks in the simulated KV pool ("HBM"); when they run out the '
              'engine must preempt. auto = sized as vLLM does from the GPU\'s HBM and SHADOW_MODEL (the default under '
              'CLOCK = roofline; see block 10).'), auto=True, roofline_default="auto"),
    Field("QUANT_BITS", _I, 8, "Số bit lượng tử hóa (QUANT_BITS)",
          "Độ rộng bit của trọng số lượng tử hóa đối xứng (8 = INT8; thử 4).", "headline", 2, 8,
          en=('Quantization bits (QUANT_BITS)', 'Bit width of the symmetric weight quantization (8 = INT8; try 4).')),
    Field("FOLLOW", "choice", "C", "Yêu cầu theo dõi (FOLLOW)",
          "Yêu cầu được theo dõi chi tiết qua mọi khối.", "headline",
          en=('Followed request (FOLLOW)', 'The request followed in detail through every block.')),
    Field("REQUESTS", "requests", DEFAULT_REQUESTS, "Các yêu cầu (REQUESTS)",
          "Trace yêu cầu: thời điểm đến, văn bản, giới hạn sinh, cấu hình lấy mẫu, seed riêng.", "requests",
          en=('Requests (REQUESTS)', 'The request trace: arrival time, text, generation limit, sampling settings, own seed.')),
    Field("MAX_CONTEXT", _I, 24, "Context tối đa (MAX_CONTEXT)",
          "Tổng token tối đa của một chuỗi (prompt + sinh ra); vượt thì trả 400.", "advanced", 2, 8192,
          en=('Max context (MAX_CONTEXT)', 'Most tokens in one sequence (prompt + generated); beyond it the request gets 400.')),
    Field("TTFT_SLO", _I, 8000, "Ngưỡng TTFT giả định (TTFT_SLO, µs)",
          "Ngưỡng TTFT GIẢ ĐỊNH để minh họa cảnh báo (µs mô phỏng).", "advanced", 0, 100_000_000,
          en=('Assumed TTFT target (TTFT_SLO, µs)', 'An ASSUMED TTFT target to illustrate the warning (simulated µs).')),
    Field("QUALITY_GATE", "float", 0.95, "Ngưỡng cổng chất lượng (QUALITY_GATE)",
          "Tỉ lệ quyết định top-1 phải giữ nguyên sau lượng tử hóa (0..1).", "advanced", 0.0, 1.0, 0.01,
          en=('Quality gate threshold (QUALITY_GATE)', 'Share of top-1 decisions that must stay the same after quantization (0..1).')),
    Field("SEED", _I, 7, "Seed trọng số (SEED)", "Seed của trọng số mô hình ngẫu nhiên.", "advanced", 0, 2**31 - 1,
          en=('Weight seed (SEED)', 'Seed of the random model weights.')),
    Field("N_MERGES", _I, 10, "Số phép gộp BPE (N_MERGES)",
          "Số phép gộp BPE học từ 5 câu mẫu; ít phép gộp thì prompt dài hơn.", "advanced", 0, 100,
          en=('BPE merges (N_MERGES)', 'BPE merges learned from the 5 sample sentences; fewer merges make prompts longer.')),
    Field("COST_GATEWAY", _I, 200, "Chi phí cổng (COST_GATEWAY, µs)",
          "Cổng: xác thực + kiểm tra hạn mức (µs mô phỏng, giả định).", "advanced", 0, 10_000_000,
          en=('Gateway cost (COST_GATEWAY, µs)', 'Gateway: authentication + quota check (simulated µs, assumed).')),
    Field("COST_TOKENIZE_PER_TOKEN", _I, 50, "Chi phí tokenize mỗi token (COST_TOKENIZE_PER_TOKEN, µs)",
          "CPU chuẩn bị đầu vào, tính theo số token prompt.", "advanced", 0, 1_000_000,
          en=('Tokenize cost per token (COST_TOKENIZE_PER_TOKEN, µs)', 'CPU input preparation, per prompt token.'),
          roofline_default=TOKENIZE_US_ROOFLINE),
    Field("COST_DECODE_FIXED", _I, 1000, "Chi phí cố định bước decode (COST_DECODE_FIXED, µs)",
          "Đọc trọng số một lần cho cả bước decode (giới hạn băng thông).", "advanced", 0, 10_000_000,
          en=('Fixed cost of a decode step (COST_DECODE_FIXED, µs)', 'Reading the weights once for the whole decode step (bandwidth-bound).')),
    Field("COST_DECODE_PER_SEQ", _I, 100, "Chi phí decode mỗi chuỗi (COST_DECODE_PER_SEQ, µs)",
          "Thêm cho mỗi chuỗi decode trong bước.", "advanced", 0, 1_000_000,
          en=('Decode cost per sequence (COST_DECODE_PER_SEQ, µs)', 'Added for each sequence decoding in the step.')),
    Field("COST_PREFILL_FIXED", _I, 500, "Chi phí cố định bước prefill (COST_PREFILL_FIXED, µs)",
          "Chi phí cố định khi bước có prefill.", "advanced", 0, 10_000_000,
          en=('Fixed cost of a prefill step (COST_PREFILL_FIXED, µs)', 'Fixed cost when the step has prefill.')),
    Field("COST_PREFILL_PER_TOKEN", _I, 400, "Chi phí prefill mỗi token (COST_PREFILL_PER_TOKEN, µs)",
          "Prefill tính nhiều token cùng lúc (giới hạn tính toán).", "advanced", 0, 1_000_000,
          en=('Prefill cost per token (COST_PREFILL_PER_TOKEN, µs)', 'Prefill computes many tokens at once (compute-bound).')),
    Field("PREFIX_CACHE", "choice", "off", "Prefix cache tự động (PREFIX_CACHE)",
          "on = giữ lại block KV đầy của các prompt đã tính (băm theo token, nối với block cha) để yêu cầu sau có "
          "cùng phần đầu prompt dùng lại thay vì tính lại, như Automatic Prefix Caching của vLLM; off = như seed.",
          "advanced", choices=("off", "on"),
          en=('Automatic prefix caching (PREFIX_CACHE)', "on = keep the full KV blocks of prompts already computed (hashed by their tokens, chained to the parent block) so a later request with the same prompt prefix reuses them instead of recomputing, like vLLM's Automatic Prefix Caching; off = as in the seed.")),
    Field("SCHED_POLICY", "choice", "fcfs", "Chính sách lập lịch (SCHED_POLICY)",
          "fcfs = ai đến trước chạy trước (như seed); priority = hàng đợi xếp theo (priority, giờ đến), số nhỏ chạy "
          "trước, và khi hết block KV thì preempt chuỗi có (priority, giờ đến) lớn nhất, như vLLM.",
          "advanced", choices=("fcfs", "priority"),
          en=('Scheduling policy (SCHED_POLICY)', 'fcfs = first come, first served (as in the seed); priority = the waiting queue is ordered by (priority, arrival), lower numbers first, and when KV blocks run out the sequence with the largest (priority, arrival) is preempted, like vLLM.')),
    Field("BYTE_FALLBACK", "choice", "off", "Byte fallback của tokenizer (BYTE_FALLBACK)",
          "on = ký tự tokenizer chưa từng thấy (chữ có dấu như 'à') thành các token byte UTF-8 <0xC3> <0xA0>, như "
          "byte fallback của SentencePiece hay BPE mức byte (GPT-2, Llama 3): yêu cầu được phục vụ, chỉ tốn thêm token; "
          "từ vựng thêm 256 token byte. off = như seed: ký tự lạ bị từ chối 400.",
          "advanced", choices=("off", "on"),
          en=('Tokenizer byte fallback (BYTE_FALLBACK)', "on = a character the tokenizer never saw (an accented letter such as U+00E0, a with a grave accent) becomes UTF-8 byte tokens <0xC3> <0xA0>, as SentencePiece's byte fallback and byte-level BPE (GPT-2, Llama 3) do: the request is served, it only costs more tokens; the vocabulary gains 256 byte tokens. off = as in the seed: unknown characters are refused with 400.")),
    # ── the roofline clock (roofline.py; GPUs and model shapes in hardware.py) ──
    Field("CLOCK", "choice", "seed", "Đồng hồ mô phỏng (CLOCK)",
          "seed = thời gian từ các hằng số COST_* giả định của seed (như seed); roofline = mỗi bước tốn thời gian mà "
          "GPU tên GPU cần để chạy bước đó với kích thước của SHADOW_MODEL: max(FLOP ÷ FLOP/s đạt được, byte ÷ băng "
          "thông đạt được) + STEP_OVERHEAD.", "advanced", choices=("seed", "roofline"),
          en=('Simulated clock (CLOCK)', "seed = time from the seed's assumed COST_* constants (as in the seed); roofline "
              "= every step takes the time the named GPU needs for it with SHADOW_MODEL's shapes: max(FLOPs ÷ achievable "
              "FLOP/s, bytes ÷ achievable bandwidth) + STEP_OVERHEAD.")),
    Field("GPU", "choice", "H100-SXM5-80GB", "GPU (GPU)",
          "GPU mà đồng hồ roofline tính theo: đỉnh FLOP/s dày đặc (không tính sparsity), băng thông và dung lượng HBM "
          "lấy từ datasheet.", "advanced", choices=tuple(GPUS),
          en=('GPU (GPU)', "The GPU the roofline clock charges: dense peak FLOP/s (no sparsity), HBM bandwidth and "
              "capacity from its datasheet.")),
    Field("SHADOW_MODEL", "choice", "Llama-3.1-8B", "Mô hình bóng (SHADOW_MODEL)",
          "Mô hình có kích thước mà đồng hồ tính tiền; mô hình NumPy nhỏ của lab vẫn tính mọi token. lab = chính mô "
          "hình nhỏ của lab.", "advanced", choices=tuple(MODELS),
          en=('Shadow model (SHADOW_MODEL)', "The model whose shapes the clock charges; the lab's small NumPy model "
              "still computes every token. lab = the lab's own small model.")),
    Field("WEIGHT_BITS", _I, 16, "Số bit trọng số khi phục vụ (WEIGHT_BITS)",
          "Độ rộng trọng số mà đồng hồ roofline tính (16 = bf16, 8 = FP8/INT8, 4); khác QUANT_BITS, là thí nghiệm "
          "lượng tử hóa trọng số của chính lab ở khối 9.", "advanced", 4, 16, choices=(16, 8, 4),
          en=('Serving weight bits (WEIGHT_BITS)', "The weight width the roofline clock charges (16 = bf16, 8 = FP8/INT8, "
              "4); not QUANT_BITS, which is block 9's quantization experiment on the lab's own weights.")),
    Field("KV_BITS", _I, 16, "Số bit KV cache (KV_BITS)",
          "Độ rộng K/V trong cache mà đồng hồ roofline tính (16 = bf16, 8 = FP8).", "advanced", 8, 16, choices=(16, 8),
          en=('KV cache bits (KV_BITS)', 'The K/V width in the cache the roofline clock charges (16 = bf16, 8 = FP8).')),
    Field("ACT_BITS", _I, 16, "Số bit activation khi tính (ACT_BITS)",
          "Độ chính xác mà GEMM và attention tính: 16 = bf16 (cả khi WEIGHT_BITS = 8 hay 4: lượng tử hóa chỉ trọng "
          "số như GPTQ/AWQ đọc ít byte hơn nhưng vẫn nhân ở đỉnh 16 bit); 8 = W8A8 (FP8), dùng đỉnh 8 bit, cần "
          "WEIGHT_BITS 8 hoặc 4.", "advanced", 8, 16, choices=(16, 8),
          en=('Activation bits (ACT_BITS)', 'The precision GEMMs and attention compute at: 16 = bf16 (also when '
              'WEIGHT_BITS is 8 or 4: weight-only quantization such as GPTQ/AWQ reads fewer bytes but still multiplies '
              'at the 16-bit peak); 8 = W8A8 (FP8), which uses the 8-bit peak and needs WEIGHT_BITS 8 or 4.')),
    Field("GPU_MEMORY_UTILIZATION", "float", GPU_MEMORY_UTILIZATION, "Tỉ lệ HBM engine được dùng (GPU_MEMORY_UTILIZATION)",
          "Phần dung lượng GPU mà engine được dùng cho trọng số, vùng activation và KV cache, như "
          "--gpu-memory-utilization của vLLM (mặc định 0.9); POOL_BLOCKS = auto lấy phần còn lại làm KV.", "advanced",
          0.1, 1.0, 0.01,
          en=('Share of HBM the engine may use (GPU_MEMORY_UTILIZATION)', "The share of the GPU's memory the engine "
              "may use for weights, the activation workspace and the KV cache, like vLLM's --gpu-memory-utilization "
              "(default 0.9); POOL_BLOCKS = auto gives the rest to KV.")),
    Field("ENGINE_PROFILE", "choice", "vllm", "Hồ sơ engine (ENGINE_PROFILE)",
          "Engine mà đồng hồ roofline mô phỏng: mỗi hồ sơ đặt FLOPS_FRACTION, BANDWIDTH_FRACTION theo độ chính xác và "
          "STEP_OVERHEAD từ số đo đã công bố (ideal = đỉnh datasheet, không overhead); giá trị bạn gõ vào ba ô đó vẫn "
          "thắng.", "advanced", choices=tuple(PROFILES),
          en=('Engine profile (ENGINE_PROFILE)', 'The engine the roofline clock stands for: each profile sets '
              'FLOPS_FRACTION and BANDWIDTH_FRACTION per precision and STEP_OVERHEAD from published measurements '
              '(ideal = the datasheet roofs, no overhead); a value you type into those three still wins.')),
    Field("FLOPS_FRACTION", "float", "auto", "Tỉ lệ FLOP/s đạt được (FLOPS_FRACTION)",
          "Phần của đỉnh FLOP/s mà GEMM thật đạt được (MFU); auto = theo ENGINE_PROFILE (vllm ở 16 bit: 0.6).",
          "advanced", 0.01, 1.0, 0.01, auto=True,
          en=('Achievable share of FLOP/s (FLOPS_FRACTION)', 'The share of peak FLOP/s real GEMMs reach (MFU); '
              'auto = from ENGINE_PROFILE (vllm at 16 bits: 0.6).')),
    Field("BANDWIDTH_FRACTION", "float", "auto", "Tỉ lệ băng thông đạt được (BANDWIDTH_FRACTION)",
          "Phần của băng thông HBM mà kernel thật đạt được (MBU); auto = theo ENGINE_PROFILE (vllm ở 16 bit: 0.8).",
          "advanced", 0.01, 1.0, 0.01, auto=True,
          en=('Achievable share of bandwidth (BANDWIDTH_FRACTION)', 'The share of HBM bandwidth real kernels reach '
              '(MBU); auto = from ENGINE_PROFILE (vllm at 16 bits: 0.8).')),
    Field("STEP_OVERHEAD", _I, "auto", "Chi phí cố định mỗi bước (STEP_OVERHEAD, µs)",
          "Thời gian cố định của mỗi bước dưới CLOCK = roofline: lập lịch CPU, khởi chạy kernel, lấy mẫu; auto = theo "
          "ENGINE_PROFILE (vllm: 100).", "advanced", 0, 1_000_000, auto=True,
          en=('Fixed cost per step (STEP_OVERHEAD, µs)', 'Fixed time of every step under CLOCK = roofline: CPU '
              'scheduling, kernel launches, sampling; auto = from ENGINE_PROFILE (vllm: 100).')),
    # ── speculative decoding (speculative.py proposes, rejection_sampler.py accepts; off = the seed) ──
    Field("SPEC_METHOD", "choice", "off", "Giải mã suy đoán (SPEC_METHOD)",
          "off = mỗi bước một token (như seed); ngram = đề xuất token bằng cách tìm lại n token cuối trong chính chuỗi "
          "(prompt lookup của vLLM); draft = mô hình nháp rẻ hơn (chính mô hình của lab, trọng số lượng tử hóa "
          "QUANT_BITS bit) đề xuất K token. Mô hình đích kiểm tra cả K token trong một lượt; luật chấp nhận giữ nguyên "
          "phân phối đầu ra.", "advanced", choices=("off", "ngram", "draft"),
          en=('Speculative decoding (SPEC_METHOD)', "off = one token per step (as in the seed); ngram = propose tokens "
              "by finding the last n tokens earlier in the sequence itself (vLLM's prompt lookup); draft = a cheaper draft "
              "model (the lab's own model with its weights quantized to QUANT_BITS bits) proposes K tokens. The target "
              "model checks all K in one pass; the acceptance rule keeps the output distribution unchanged.")),
    Field("SPEC_TOKENS", _I, 3, "Số token đề xuất mỗi bước (SPEC_TOKENS, K)",
          "K: số token tối đa mà bộ đề xuất đưa ra cho mỗi chuỗi trong một bước (bị cắt gần max_new, MAX_CONTEXT "
          "và khi ngân sách token không đủ K + 1).", "advanced", 1, 8,
          en=('Proposed tokens per step (SPEC_TOKENS, K)', 'K: the most tokens the proposer offers per sequence in one '
              'step (cut near max_new, MAX_CONTEXT and when the token budget has less than K + 1 room).')),
    # ── a generated workload (workload.py): replaces REQUESTS when WORKLOAD_REQUESTS > 0 ──
    Field("WORKLOAD_REQUESTS", _I, 0, "Số yêu cầu sinh tự động (WORKLOAD_REQUESTS)",
          "0 = dùng trace REQUESTS; N > 0 = engine chạy N yêu cầu sinh tự động R1 … RN thay cho REQUESTS (greedy, "
          "seed WORKLOAD_SEED + i), mỗi prompt đúng WORKLOAD_PROMPT token.", "advanced", 0, MAX_WORKLOAD,
          en=('Generated requests (WORKLOAD_REQUESTS)', '0 = use the REQUESTS trace; N > 0 = the engine plays N '
              'generated requests R1 … RN instead of REQUESTS (greedy, seed WORKLOAD_SEED + i), every prompt exactly '
              'WORKLOAD_PROMPT tokens.')),
    Field("WORKLOAD_PROMPT", _I, 16, "Số token mỗi prompt sinh ra (WORKLOAD_PROMPT)",
          "Độ dài mỗi prompt sinh tự động, tính bằng token của tokenizer (kể cả <bos>).", "advanced", 2, 8192,
          en=('Tokens per generated prompt (WORKLOAD_PROMPT)', "Every generated prompt's length in the tokenizer's "
              "tokens (<bos> included).")),
    Field("WORKLOAD_OUTPUT", _I, 8, "Số token sinh ra mỗi yêu cầu (WORKLOAD_OUTPUT)",
          "max_new của mỗi yêu cầu sinh tự động (EOS vẫn có thể dừng sớm hơn, trừ khi IGNORE_EOS = on).", "advanced",
          1, 8192,
          en=('Output tokens per generated request (WORKLOAD_OUTPUT)', 'max_new of every generated request (EOS may '
              'still stop it earlier, unless IGNORE_EOS = on).')),
    Field("IGNORE_EOS", "choice", "off", "Bỏ qua EOS (IGNORE_EOS)",
          "on = không dừng khi gặp <eos>: mọi yêu cầu sinh đủ max_new token, như ignore_eos mà benchmark của vLLM "
          "dùng để đo đúng độ dài đầu ra; off = như seed: <eos> kết thúc yêu cầu.", "advanced", choices=("off", "on"),
          en=('Ignore EOS (IGNORE_EOS)', "on = do not stop at <eos>: every request generates its full max_new tokens, "
              "like the ignore_eos vLLM's benchmarks use to measure a fixed output length; off = as in the seed: <eos> "
              "ends the request.")),
    Field("WORKLOAD_RATE", "float", 0.0, "Tốc độ đến (WORKLOAD_RATE, yêu cầu/giây)",
          "Yêu cầu mỗi giây mô phỏng, đến theo quá trình Poisson (R1 lúc 0); 0 = tất cả đến cùng lúc.", "advanced",
          0.0, 1_000_000.0, 0.1,
          en=('Arrival rate (WORKLOAD_RATE, requests/s)', 'Requests per simulated second, arriving as a Poisson '
              'process (R1 at 0); 0 = all at once.')),
    Field("WORKLOAD_SEED", _I, 0, "Seed của workload (WORKLOAD_SEED)",
          "Seed của văn bản, thời điểm đến và tiền tố; yêu cầu thứ i lấy mẫu với seed WORKLOAD_SEED + i.", "advanced",
          0, 2**31 - 1 - MAX_WORKLOAD,
          en=('Workload seed (WORKLOAD_SEED)', 'Seed of the texts, arrivals and prefixes; request i samples with '
              'seed WORKLOAD_SEED + i.')),
    Field("WORKLOAD_PREFIXES", _I, 0, "Số tiền tố dùng chung (WORKLOAD_PREFIXES)",
          "Số tiền tố khác nhau dùng chung (như system prompt); yêu cầu i mở đầu bằng tiền tố i mod WORKLOAD_PREFIXES; "
          "0 = không có.", "advanced", 0, MAX_WORKLOAD,
          en=('Shared prefixes (WORKLOAD_PREFIXES)', 'Distinct shared prefixes (like system prompts); request i '
              'starts with prefix i mod WORKLOAD_PREFIXES; 0 = none.')),
    Field("WORKLOAD_SHARED", _I, 8, "Số token mỗi tiền tố chung (WORKLOAD_SHARED)",
          "Số token của mỗi tiền tố chung (kể cả <bos>), tính trong WORKLOAD_PROMPT.", "advanced", 1, 8192,
          en=('Tokens per shared prefix (WORKLOAD_SHARED)', 'Tokens of each shared prefix (<bos> included), counted '
              'inside WORKLOAD_PROMPT.')),
    # ── the cluster: replicas, router, disaggregation and goodput (router.py, cluster.py, goodput.py) ──
    Field("REPLICAS", _I, 1, "Số bản sao engine (REPLICAS)",
          "Số engine chạy song song sau một router, mỗi engine có SLOTS, QUEUE_LIMIT, bể KV POOL_BLOCKS và bộ lập "
          "lịch riêng; 1 = một engine như seed.", "advanced", 1, MAX_REPLICAS,
          en=('Engine replicas (REPLICAS)', 'Engines running side by side behind one router, each with its own SLOTS, '
              'QUEUE_LIMIT, POOL_BLOCKS KV pool and scheduler; 1 = one engine as in the seed.')),
    Field("ROUTER", "choice", "round_robin", "Chính sách router (ROUTER)",
          "round_robin = lần lượt từng bản sao; least_loaded = bản sao còn ít token phải tính nhất; prefix_aware = "
          "điểm 3 × (phần block prompt đã ở bản sao đó) − 2 × (tải tương đối), trọng số mặc định của llm-d.",
          "advanced", choices=("round_robin", "least_loaded", "prefix_aware"),
          en=('Router policy (ROUTER)', "round_robin = each replica in turn; least_loaded = the replica with the fewest "
              "tokens still to compute; prefix_aware = score 3 × (share of the prompt's blocks already on that replica) "
              "− 2 × (relative load), llm-d's default weights.")),
    Field("DISAGG", "choice", "off", "Tách prefill/decode (DISAGG)",
          "on = PREFILL_REPLICAS bản sao đầu chỉ prefill, các bản sao còn lại chỉ decode; KV của mỗi yêu cầu được "
          "chuyển qua đường truyền KV_LINK_GBPS (như disaggregated prefill của vLLM, DistServe); off = như seed.",
          "advanced", choices=("off", "on"),
          en=('Prefill/decode disaggregation (DISAGG)', "on = the first PREFILL_REPLICAS replicas only prefill, the "
              "others only decode; each request's KV is shipped over a KV_LINK_GBPS link (as vLLM's disaggregated "
              "prefill, DistServe); off = as in the seed.")),
    Field("PREFILL_REPLICAS", _I, 1, "Số bản sao prefill (PREFILL_REPLICAS)",
          "Khi DISAGG = on: số bản sao prefill, từ 1 đến REPLICAS − 1; các bản sao còn lại decode.", "advanced", 1,
          MAX_REPLICAS - 1,
          en=('Prefill replicas (PREFILL_REPLICAS)', 'With DISAGG = on: how many replicas prefill, 1 to REPLICAS − 1; '
              'the others decode.')),
    Field("KV_LINK_GBPS", "float", 50.0, "Băng thông đường truyền KV (KV_LINK_GBPS, GB/s)",
          "Gigabyte mỗi giây giữa bản sao prefill và decode; 50 GB/s = một cổng InfiniBand NDR 400 Gb/s.",
          "advanced", 0.1, 1000.0, 0.1,
          en=('KV link bandwidth (KV_LINK_GBPS, GB/s)', 'Gigabytes per second between a prefill and a decode replica; '
              '50 GB/s = one 400 Gb/s InfiniBand NDR port.')),
    Field("KV_LINK_LATENCY_US", _I, 200, "Độ trễ đường truyền KV (KV_LINK_LATENCY_US, µs)",
          "Thời gian cố định của mỗi lần chuyển KV (bắt tay, thiết lập RDMA); giả định.", "advanced", 0, 1_000_000,
          en=('KV link latency (KV_LINK_LATENCY_US, µs)', 'Fixed time of every KV transfer (handshake, RDMA setup); '
              'assumed.')),
    Field("TPOT_SLO", _I, 2000, "Ngưỡng TPOT giả định (TPOT_SLO, µs)",
          "Ngưỡng thời gian trung bình giữa hai token GIẢ ĐỊNH; goodput đếm yêu cầu đạt cả TTFT_SLO và TPOT_SLO.",
          "advanced", 0, 100_000_000,
          en=('Assumed TPOT target (TPOT_SLO, µs)', 'An ASSUMED target for the mean time between tokens; goodput counts '
              'the requests that meet both TTFT_SLO and TPOT_SLO.'), roofline_default=TPOT_US_ROOFLINE),
)
FIELD_BY_NAME = {f.name: f for f in FIELDS}

PRIORITY_LIMIT = 10**9          # priority takes any integer in -10**9..10**9 (vLLM's is any int; lower runs first)

REQUEST_FIELDS: tuple[RequestField, ...] = (
    RequestField("id", "str", "Mã", "Tên ngắn của yêu cầu (chữ cái/chữ số, tối đa 8 ký tự, không trùng).",
                 pattern=ID_PATTERN,
                 en=('ID', 'Short name of the request (letters/digits, at most 8 characters, unique).')),
    RequestField("arrival", "int", "Đến (µs)", "Thời điểm đến trên đồng hồ mô phỏng (µs).", 0, 100_000_000,
                 en=('Arrives (µs)', 'Arrival time on the simulated clock (µs).')),
    RequestField("text", "str", "Văn bản", "Prompt; ký tự lạ với tokenizer bị từ chối 400 (BYTE_FALLBACK = on: thành token byte).", 1, MAX_TEXT_CHARS,
                 en=('Text', 'The prompt; characters the tokenizer does not know are rejected with 400 (BYTE_FALLBACK = on: they become byte tokens).')),
    RequestField("max_new", "int", "max_new", "Số token sinh ra tối đa.", 1, 256,
                 en=('max_new', 'Most tokens to generate.')),
    RequestField("temperature", "float", "T", "Temperature; 0 = greedy.", 0.0, 5.0,
                 en=('T', 'Temperature; 0 = greedy.')),
    RequestField("top_k", "int", "top_k", "Giữ k token xác suất cao nhất; 0 = tắt.", 0, 64,
                 en=('top_k', 'Keep the k most likely tokens; 0 = off.')),
    RequestField("top_p", "float", "top_p", "Giữ nhóm token có tổng xác suất tới top_p (0 < top_p <= 1).", 0.001, 1.0,
                 en=('top_p', 'Keep the smallest set of tokens whose probabilities add up to top_p (0 < top_p <= 1).')),
    RequestField("seed", "int", "seed", "Seed riêng của yêu cầu (lấy mẫu lặp lại được).", 0, 2**31 - 1,
                 en=('seed', "The request's own seed (repeatable sampling).")),
    RequestField("priority", "int", "priority", "Độ ưu tiên khi SCHED_POLICY = priority: số nhỏ chạy trước, "
                 "được âm (như vLLM); để trống = 0.", -PRIORITY_LIMIT, PRIORITY_LIMIT, optional=True,
                 en=('priority', 'Priority when SCHED_POLICY = priority: lower numbers run first, negative ones too '
                                 '(as in vLLM); empty = 0.')),
    RequestField("cancel_at", "int", "Hủy lúc (µs)", "Client hủy yêu cầu lúc này (µs mô phỏng); engine bỏ nó ở "
                 "ranh giới bước đầu tiên từ lúc đó; để trống = không hủy.", 0, 100_000_000, optional=True,
                 en=('Cancel at (µs)', 'The client cancels the request at this time (simulated µs); the engine drops it at the first step boundary from then on; empty = never cancelled.')),
)


def describe() -> list[dict]:
    """The schema as plain JSON-able dicts, for the page's controls and the docs."""
    out = [f.describe() for f in FIELDS]
    for d in out:
        if d["name"] == "FOLLOW":
            d["choices"] = [r["id"] for r in DEFAULT_REQUESTS]
        if d["name"] == "REQUESTS":
            d["columns"] = [{**{k: getattr(c, k) for k in ("name", "type", "label", "help", "min", "max", "pattern",
                                                           "optional")},
                             "label_en": c.en[0], "help_en": c.en[1]} for c in REQUEST_FIELDS]
            d["max_items"] = MAX_REQUESTS
    return out

