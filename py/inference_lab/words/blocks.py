"""The 13 blocks of the lab, written once: name, mapping-table text and where each lives in the code.

Every other place that names a block reads this table:
- the engine prints `[code] title` with `code` from here ("1 · Gateway & admission"; text_vi.BLOCK_CODES);
- build.py renders the page's mapping table (one row per block: number, name, `builds`, `reads`),
  the panel titles under the rows and the guide's block → code list (`seed` and `source`) into index.html;
- the package docstring and README.md's "Khối → mô-đun" table hold `code_map_lines()`; tests/test_blocks.py
  fails when they drift and `python3 build.py docs` rewrites them.

    >>> block = BLOCKS[5]
    >>> block.code, [str(ref) for ref in block.source][:2]
    ('6 · KV state manager', ['block_manager.BlockManager', 'kv_room.KVRoom.make_room'])
    >>> code_map_lines()[4]
    '  [5]  Transformer × N layers         model.forward / attention'

`editable` names the functions a student may rewrite on the page ("Sửa mã", see patch.py); each has a
return-value contract there. `source` entries are (module, qualified name) inside the `inference_lab`
package; `SourceRef.resolve()` imports the module and returns the function or class, e.g. for `inspect.getsource`. Standard library
only: build.py imports this file without NumPy.

The second table, `LEARNING_POINTS`, is the seed's nine "Bạn sẽ học được gì?" points, each with the
output panel(s), picture(s) and exercise(s) that teach it; build.py renders it into the guide as links
(#khoi-N panels, #hinh-khoi-N chart boxes, #bai-tap-NN exercise cards).

Each text has its English twin beside it (`Block.en`, `LearningPoint.text_en`, `CHART_LABELS_EN`,
`LEARNING_INTRO_EN`): build.py writes both into index.html and the page shows the reader's language.

Leaves out: the Vietnamese title each block prints after its code (text_vi.py writes it, some titles
depend on the constants, e.g. "INT8"), the block's output lines, and the rest of the page's text
(intro, how-to, guide prose stay in index.html, checked against the engine by tests/test_page_text.py).
`builds` and `reads` quote the default run's numbers, checked the same way.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import NamedTuple

PACKAGE = "inference_lab"


class SourceRef(NamedTuple):
    """A function or class of the package: ("engine", "Engine.admit") is inference_lab.core.serving.engine.Engine.admit."""

    module: str
    qualname: str

    def __str__(self) -> str:
        return f"{self.module}.{self.qualname}"

    def resolve(self):
        """The object itself (imports the module, see layout.py; most modules need NumPy)."""
        layout = importlib.import_module(f"{PACKAGE}.layout")   # where the short name lives (core/, words/, …)
        obj = importlib.import_module(layout.dotted(self.module))
        for part in self.qualname.split("."):
            obj = getattr(obj, part)
        return obj


@dataclass(frozen=True, slots=True)
class Block:
    number: int                     # 1..13, the order the engine prints them in
    name: str                       # the block's name on the course's architecture diagram
    builds: str                     # mapping column "Lab NumPy dựng gì" (Vietnamese)
    reads: str                      # mapping column "Cách đọc số liệu & phép kiểm chứng" (default run's numbers)
    seed: str                       # where the seed program inference-end-to-end.py has it (Vietnamese)
    source: tuple[SourceRef, ...]   # where this package has it, most important first
    editable: tuple[SourceRef, ...] = ()   # functions the page's editor offers ("Sửa mã"; patch.py)
    en: tuple[str, str, str] = ("", "", "")   # builds, reads, seed in English (the page's English edition)

    def __post_init__(self):
        if not 1 <= self.number <= 13 or not self.name or not self.source or not all(self.en):
            raise ValueError(f"block {self.number}: needs a number 1..13, a name, at least one source and English texts")

    @property
    def code(self) -> str:
        """What the engine prints in brackets: "1 · Gateway & admission"."""
        return f"{self.number} · {self.name}"


def _refs(*dotted: str) -> tuple[SourceRef, ...]:
    return tuple(SourceRef(*d.split(".", 1)) for d in dotted)


BLOCKS: tuple[Block, ...] = (
    Block(1, "Gateway & admission",
          "Hàm admit: cổng chỉ cho tối đa 2 chạy + 1 chờ yêu cầu có mặt trong hệ thống và từ chối bằng mã 429 khi đầy.",
          "offered = served + rejected (5 = 3 + 2); D nhận 429 vì lúc xét đã có 3 yêu cầu.",
          "hàm admit",
          _refs("engine.Engine.admit", "engine.Engine.abort", "engine.gateway_admits"),
          editable=_refs("engine.gateway_admits"),
          en=('The admit function: the gateway lets at most 2 running + 1 waiting requests into the system and rejects with code 429 when full.', 'offered = served + rejected (5 = 3 + 2); D gets 429 because 3 requests were already in the system when it was checked.', 'the admit function')),
    Block(2, "Input preparation",
          "BPE 10 phép gộp học từ 5 câu mẫu, thêm token bos, rồi kiểm tra prompt + max_new <= 24.",
          "C thành 9 token ID; E bị chặn mã 400 vì 8 + 30 = 38 > 24.",
          "hàm train_bpe và encode",
          _refs("tokenizer.BPETokenizer.train", "tokenizer.BPETokenizer.encode", "engine.Engine.input_rejected"),
          en=('BPE with 10 merges learned from 5 sample sentences, adds the bos token, then checks prompt + max_new <= 24.', 'C becomes 9 token IDs; E is blocked with code 400 because 8 + 30 = 38 > 24.', 'the train_bpe and encode functions')),
    Block(3, "Iteration scheduler",
          "Vòng lặp theo bước: nhận yêu cầu khi có chỗ trống, decode trước, chia prompt theo ngân sách 6 token mỗi bước.",
          "12 bước; prompt của C chia thành các đoạn [5, 4]; C chờ chỗ chạy 14.55 ms mô phỏng.",
          "vòng lặp chính của run_engine (nhận yêu cầu, chọn việc mỗi bước, chia prompt theo TOKEN_BUDGET)",
          _refs("engine.Engine.run", "engine.Engine.iterate", "engine.Engine.run_step", "scheduler.admission_check",
                "scheduler.admission_room", "scheduler.admission_order", "scheduler.plan_tasks", "scheduler.step_duration",
                "engine.Engine.step_time", "roofline.step_cost", "run_log.RunLog"),
          editable=_refs("scheduler.admission_room", "scheduler.plan_tasks"),
          en=('A step loop: admits requests when a slot is free, decodes first, splits prompts by the budget of 6 tokens per step.', "12 steps; C's prompt is split into chunks [5, 4]; C waits 14.55 simulated ms for a slot.", "the main loop of run_engine (admitting requests, picking each step's work, splitting prompts by TOKEN_BUDGET)")),
    Block(4, "Prefill",
          "Đưa từng đoạn prompt qua mô hình, ghi K và V vào cache, lấy hàng logits cuối để chọn token đầu tiên.",
          "K có shape (2, 9, 4); hàng logits có 22 điểm số; token đầu của C lúc 23.00 ms, TTFT 22.00 ms mô phỏng.",
          "nhánh prefill trong vòng lặp của run_engine",
          _refs("engine.Engine.prefill"),
          en=('Feeds each prompt chunk through the model, writes K and V into the cache, takes the last logits row to pick the first token.', "K has shape (2, 9, 4); the logits row has 22 scores; C's first token at 23.00 ms, TTFT 22.00 simulated ms.", "the prefill branch in run_engine's loop")),
    Block(5, "Transformer × N layers",
          "Hàm forward một lớp: RMSNorm, Q/K/V theo head, RoPE, mặt nạ nhân quả, softmax, W_O, SwiGLU, LM head.",
          "Trọng số attention (9 phần tử, tổng 1) khác logits (22 điểm số); kết quả qua cache khớp tính lại trong 1e-9.",
          "hàm forward (attention, RoPE, SwiGLU, LM head)",
          _refs("model.forward", "model.attention"),
          editable=_refs("model.attention"),
          en=('The one-layer forward function: RMSNorm, per-head Q/K/V, RoPE, causal mask, softmax, W_O, SwiGLU, LM head.', 'Attention weights (9 entries, sum 1) differ from logits (22 scores); results through the cache match a recompute within 1e-9.', 'the forward function (attention, RoPE, SwiGLU, LM head)')),
    Block(6, "KV state manager",
          "Lớp BlockManager (lớp KVPool của chương trình gốc): 12 block vật lý, bảng block cho từng chuỗi, cấp phát "
          "theo block và trả block khi xong; hết block thì preempt chuỗi vào chạy gần nhất.",
          "Cao điểm 7/12 block; K/V gom từ block rời khớp tính lại; cuối còn 12/12 block trống.",
          "lớp KVPool",
          _refs("block_manager.BlockManager", "kv_room.KVRoom.make_room", "kv_room.KVRoom.send_back", "kv_room.KVRoom.preempt",
                "scheduler.preemption_victim", "scheduler.choose_victim", "block_manager.hash_block"),
          editable=_refs("scheduler.choose_victim"),
          en=("The BlockManager class (the seed's KVPool class): 12 physical blocks, a block table per sequence, allocation by block and freeing when done; when blocks run out it preempts the most recently admitted sequence.", 'Peak 7/12 blocks; K/V gathered from scattered blocks match a recompute; 12/12 blocks free at the end.', 'the KVPool class')),
    Block(7, "Decode",
          "Mỗi bước đưa đúng một token mới qua mô hình và đọc lại K/V cũ từ cache.",
          "Dùng cache tính 41 vị trí, tính lại cả lịch sử cần 197 vị trí (số vị trí, chưa phải thời gian).",
          "nhánh decode trong vòng lặp của run_engine",
          _refs("engine.Engine.decode", "speculative.Speculation.verify", "speculative.ngram_propose",
                "speculative.DraftModel.propose", "rejection_sampler.verify", "rejection_sampler.accepts"),
          editable=_refs("rejection_sampler.accepts"),
          en=('Each step feeds exactly one new token through the model and reads the old K/V back from the cache.', 'With the cache 41 positions are computed, recomputing the whole history needs 197 (positions, not time).', "the decode branch in run_engine's loop")),
    Block(8, "Logits → sampling → stop check",
          "Hàm sample: softmax với temperature, lọc top-k và top-p, rút token bằng seed riêng; dừng khi gặp eos hoặc "
          "đủ max_new.",
          "Xác suất tổng 1 trước và sau lọc; C rút ra token o và dừng vì eos sau 4 token.",
          "hàm sample và điều kiện dừng trong emit",
          _refs("sampler.sample", "engine.Engine.emit"),
          editable=_refs("sampler.sample", "sampler.top_k_top_p"),
          en=("The sample function: softmax with temperature, top-k and top-p filtering, draws a token with the request's own seed; stops on eos or at max_new.", 'Probabilities sum to 1 before and after filtering; C draws token o and stops on eos after 4 tokens.', 'the sample function and the stop condition in emit')),
    Block(9, "KV / weight precision",
          "Hàm quantize_weights: INT8 đối xứng với một scale cho mỗi cột của 8 ma trận tuyến tính.",
          "3264 byte còn 1192 byte (tính trên định dạng); sai số khôi phục 0.0056 nằm trong nửa scale 0.0061.",
          "hàm quantize_weights",
          _refs("quantization.quantize_weights"),
          editable=_refs("quantization.quantize_weights"),
          en=('The quantize_weights function: symmetric INT8 with one scale per column of the 8 linear matrices.', '3264 bytes become 1192 bytes (computed from the format); the reconstruction error 0.0056 stays within half a scale 0.0061.', 'the quantize_weights function')),
    Block(10, "HBM memory budget",
          "Tính byte KV từ công thức 2 × lớp × token × KV head × chiều head × byte, cho lab và cho cấu hình mẫu giả "
          "định.",
          "128 byte mỗi token trong lab; cấu hình mẫu 32 lớp, 4096 token cần 0.50 GiB mỗi chuỗi (tính tay, không đo).",
          "phép tính byte trên KVPool và công thức mẫu",
          _refs("block_data.block10_data", "block_data.shadow_budget", "hardware.kv_budget"),
          en=('Computes KV bytes from the formula 2 × layers × tokens × KV heads × head dim × bytes, for the lab and for an assumed sample setup.', '128 bytes per token in the lab; the sample setup with 32 layers and 4096 tokens needs 0.50 GiB per sequence (worked by hand, not measured).', 'the byte arithmetic on KVPool and the sample formula')),
    Block(11, "Telemetry & capacity feedback",
          "Ghi từng bước (hàng đợi, số chuỗi chạy, token decode/prefill, block KV) và phân rã TTFT.",
          "TTFT của C: 0.65 + 14.55 + 6.80 = 22.00 ms; thành phần lớn nhất là chờ chỗ chạy.",
          "hàm metrics và summary",
          _refs("metrics.request_metrics", "block_data.block11_data"),
          en=('Records every step (queue, running sequences, decode/prefill tokens, KV blocks) and the TTFT breakdown.', "C's TTFT: 0.65 + 14.55 + 6.80 = 22.00 ms; the largest part is waiting for a slot.", 'the metrics and summary functions')),
    Block(12, "Benchmark & SLO methodology",
          "Tính TTFT, TPOT, throughput và chạy cùng trace với 3 chính sách lập lịch (static, continuous, continuous "
          "+ chunked).",
          "Token sinh ra giống hệt ở cả 3 chính sách; chỉ thời gian khác và hoàn toàn là hệ quả của công thức chi phí "
          "giả định.",
          "hàm metrics và summary",
          _refs("metrics.summarize", "block_data.block12_data"),
          en=('Computes TTFT, TPOT, throughput and runs the same trace under 3 scheduling policies (static, continuous, continuous + chunked).', 'The generated tokens are identical under all 3 policies; only the times differ, and they follow entirely from the assumed cost formula.', 'the metrics and summary functions')),
    Block(13, "Quality gates & rollout",
          "So token top-1 của bản gốc và bản INT8 trên cùng ngữ cảnh (teacher forcing) với ngưỡng giả định 95%.",
          "Khớp 40/40 quyết định; quyết định sát nhất chênh 0.0304 (gốc) và 0.0326 (INT8) nên giữ nguyên token.",
          "hàm greedy_teacher_forced",
          _refs("quantization.greedy_teacher_forced", "block_data.block13_data"),
          en=('Compares the top-1 tokens of the original and the INT8 model on the same context (teacher forcing) against an assumed 95% threshold.', '40/40 decisions agree; the closest decision leads by 0.0304 (original) and 0.0326 (INT8), so the token is kept.', 'the greedy_teacher_forced function')),
)

BY_NUMBER: dict[int, Block] = {b.number: b for b in BLOCKS}
assert sorted(BY_NUMBER) == list(range(1, 14)), "one entry per block 1..13"


# ── the block → code map as text (package docstring, README.md, the page's guide) ──
def source_groups(block: Block) -> list[list[SourceRef]]:
    """Consecutive refs with the same module and owner grouped: [[engine.Engine.make_room, ...preempt]]."""
    groups: list[list[SourceRef]] = []
    for ref in block.source:
        owner = (ref.module, ref.qualname.rpartition(".")[0])
        last = groups[-1][-1] if groups else None
        if last is not None and (last.module, last.qualname.rpartition(".")[0]) == owner:
            groups[-1].append(ref)
        else:
            groups.append([ref])
    return groups


def source_text(block: Block, wrap=str) -> str:
    """ "block_manager.BlockManager; engine.Engine.make_room / preempt"; each name passed through `wrap`."""
    def name(ref, full):
        return wrap(str(ref) if full else ref.qualname.rpartition(".")[2])
    return "; ".join(" / ".join(name(ref, i == 0) for i, ref in enumerate(group)) for group in source_groups(block))


def code_map_lines() -> list[str]:
    """The package docstring's block → module map, one line per block."""
    return [f"  [{b.number}]".ljust(7) + b.name.ljust(31) + source_text(b) for b in BLOCKS]


def readme_code_map() -> list[str]:
    """README.md's "Khối → mô-đun" table (Markdown)."""
    return ["| Khối | Ở đâu |", "|---|---|"] + [f"| {b.number} {b.name} | {source_text(b, lambda name: f'`{name}`')} |" for b in BLOCKS]


# ── the nine learning points: what a student can explain after the lab, and where to learn each ──
@dataclass(frozen=True, slots=True)
class LearningPoint:
    """One of the seed's nine "Bạn sẽ học được gì?" points with the panel(s), picture(s) and exercise(s) for it."""
    number: int                       # 1..9, the seed's order
    text: str                         # the seed's words (Vietnamese)
    blocks: tuple[int, ...]           # output panels to read (data-block)
    charts: tuple[tuple[str, int], ...]  # pictures to look at: (data-chart, the block whose panel draws it)
    exercises: tuple[int, ...]        # exercises/NN-*.md to do
    text_en: str = ""                 # the same point in English

    def __post_init__(self):
        if not (self.blocks and self.charts and self.exercises):
            raise ValueError(f"learning point {self.number}: needs a panel, a picture and an exercise")
        if not set(self.blocks) <= set(BY_NUMBER) or not {b for _, b in self.charts} <= set(BY_NUMBER):
            raise ValueError(f"learning point {self.number}: unknown block")


# The pictures' names in the page's words (the charts are drawn by static/charts/<name>.js).
CHART_LABELS: dict[str, str] = {
    "timeline": "dòng thời gian", "tokens": "văn bản → token ID", "attention": "trọng số attention",
    "kv-blocks": "block KV theo bước", "sampling": "xác suất và token được rút", "ttft": "phân rã TTFT",
    "policies": "ba chính sách lập lịch", "quantization": "số bit: byte ↔ sai số ↔ quyết định",
    "memory": "ngân sách bộ nhớ", "roofline": "roofline: mỗi bước một điểm", "speculation": "giải mã suy đoán",
    "cluster-view": "cụm theo thời gian: bản sao, router, chuyển KV", "cluster": "cụm: tải và TTFT/TPOT so với SLO",
    "distributions": "trace thật so với bộ sinh: đuôi dài và các đợt dồn",
}

CHART_LABELS_EN: dict[str, str] = {
    "timeline": "timeline", "tokens": "text → token IDs", "attention": "attention weights",
    "kv-blocks": "KV blocks by step", "sampling": "probabilities and the token drawn", "ttft": "TTFT breakdown",
    "policies": "three scheduling policies", "quantization": "bits: bytes ↔ error ↔ decisions",
    "memory": "memory budget", "roofline": "roofline: one point per step", "speculation": "speculative decoding",
    "cluster-view": "the cluster over time: replicas, router, KV transfers", "cluster": "the cluster: load and TTFT/TPOT against the SLOs",
    "distributions": "a recorded trace against the generator: long tails and bursts",
}
assert set(CHART_LABELS_EN) == set(CHART_LABELS)

LEARNING_INTRO = "Sau bài lab, bạn giải thích được bằng số cụ thể chín điều:"
LEARNING_INTRO_EN = "After the lab you can explain, with concrete numbers, nine things:"
LEARNING_POINTS: tuple[LearningPoint, ...] = (
    LearningPoint(1, "vì sao cổng từ chối một số yêu cầu ngay từ đầu", (1,), (("timeline", 3),), (2,),
                  text_en='why the gateway rejects some requests right away'),
    LearningPoint(2, "văn bản trở thành token ID như thế nào và vì sao có yêu cầu bị chặn vì quá ngân sách", (2,),
                  (("tokens", 2),), (10,),
                  text_en='how text becomes token IDs and why a request can be blocked for exceeding its budget'),
    LearningPoint(3, "bộ lập lịch chọn việc cho mỗi bước ra sao", (3,), (("timeline", 3), ("cluster-view", 3)),
                  (1, 3, 14, 18, 40),
                  text_en='how the scheduler picks the work of each step'),
    LearningPoint(4, "prefill khác decode ở đâu", (4, 7), (("timeline", 3), ("roofline", 10), ("speculation", 7)),
                  (3, 15, 19, 20, 26, 30, 31),
                  text_en='where prefill differs from decode'),
    LearningPoint(5, "trọng số attention khác xác suất từ vựng thế nào", (5, 8), (("attention", 5), ("sampling", 8)),
                  (11,),
                  text_en='how attention weights differ from vocabulary probabilities'),
    LearningPoint(6, "KV cache phân trang dùng bảng block ra sao", (6,), (("kv-blocks", 6),), (4, 5, 17),
                  text_en='how a paged KV cache uses block tables'),
    LearningPoint(7, "logits trở thành xác suất, rồi token, rồi quyết định dừng như thế nào", (8,), (("sampling", 8),),
                  (12, 16, 32),
                  text_en='how logits become probabilities, then a token, then a stop decision'),
    LearningPoint(8, "TTFT, TPOT và throughput gồm những phần nào", (11, 12),
                  (("ttft", 11), ("policies", 12), ("cluster", 11), ("distributions", 11)),
                  (1, 3, 22, 23, 41, 42, 43, 44, 45, 46),
                  text_en='which parts TTFT, TPOT and throughput are made of'),
    LearningPoint(9, "nén trọng số xuống INT8 đổi bộ nhớ lấy sai số ra sao và cách kiểm tra", (9, 10, 13),
                  (("quantization", 9), ("memory", 10), ("quantization", 13)), (6, 13, 21, 24, 25),
                  text_en='how quantizing weights to INT8 trades memory for error, and how to check it'),
)
assert [p.number for p in LEARNING_POINTS] == list(range(1, 10)), "the seed's nine points, in order"
assert all(name in CHART_LABELS for p in LEARNING_POINTS for name, _ in p.charts)


def chart_blocks() -> list[int]:
    """The blocks whose panel draws a picture a learning point links to (each gets a #hinh-khoi-N box)."""
    return sorted({b for p in LEARNING_POINTS for _, b in p.charts})
