"""The lab's tunable constants: one schema, one validated config object.

Every constant at the top of the seed program (`inference-end-to-end.py`) is a `Field`
here, with the seed's default, its bounds, a Vietnamese label and help text (and their English
twins in `en`) and a group.
The page builds its controls from `describe()`, the command line builds its flags from
the same list, so a name, default or bound is written exactly once.

    >>> cfg = Config.from_values({"SLOTS": 3})
    >>> cfg.SLOTS, cfg.QUEUE_LIMIT
    (3, 1)
    >>> [p.field for p in validate({"SLOTS": 0, "QUANT_BITS": "x"})]
    ['SLOTS', 'QUANT_BITS']

Validation returns *every* problem at once, each naming its field, in Vietnamese and English
(`Problem.message`, `Problem.message_en`); labels and help likewise (`Field.label`, `Field.en`).
Bounds are chosen so that any valid config finishes in a few seconds on a 2-core
machine (and inside Pyodide): sequences are at most MAX_CONTEXT ≤ 128 tokens, at most
12 requests, at most 1024 KV blocks.

Left out: the model's sizes (d_model 8, 2 heads of 4, FFN 16) are fixed, as in the seed;
they live in `model.py`.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields

BOS, EOS = 0, 1
CORPUS = ("xin chao model", "xin chao ban", "model hoc token", "ban hoc model", "xin chao token")
MAX_REQUESTS = 12
MAX_TEXT_CHARS = 80

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
    choices: tuple | None = None   # a "choice" field's fixed values (FOLLOW's come from the trace instead)
    en: tuple[str, str] = ("", "")   # (label, help) in English, beside the Vietnamese ones

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
FIELDS: tuple[Field, ...] = (
    Field("SLOTS", _I, 2, "Số chỗ chạy (SLOTS)", "Số chuỗi được chạy cùng lúc trong một bước.", "headline", 1, 16,
          en=('Running slots (SLOTS)', 'How many sequences run together in one step.')),
    Field("QUEUE_LIMIT", _I, 1, "Số chỗ chờ (QUEUE_LIMIT)",
          "Số yêu cầu được xếp hàng chờ thêm ngoài SLOTS; đầy thì cổng trả 429.", "headline", 0, 16,
          en=('Waiting places (QUEUE_LIMIT)', 'How many requests may wait in the queue beyond SLOTS; when full the gateway returns 429.')),
    Field("TOKEN_BUDGET", _I, 6, "Ngân sách token mỗi bước (TOKEN_BUDGET)",
          "Số token tối đa xử lý trong một bước; prompt dài được chia đoạn (chunked prefill).", "headline", 1, 256,
          en=('Token budget per step (TOKEN_BUDGET)', 'Most tokens processed in one step; long prompts are split into chunks (chunked prefill).')),
    Field("BLOCK_SIZE", _I, 4, "Số token mỗi block KV (BLOCK_SIZE)",
          "Số token trong một block của KV cache phân trang.", "headline", 1, 64,
          en=('Tokens per KV block (BLOCK_SIZE)', 'Tokens in one block of the paged KV cache.')),
    Field("POOL_BLOCKS", _I, 12, "Số block KV vật lý (POOL_BLOCKS)",
          "Số block vật lý trong bể KV giả lập (\"HBM\"); hết block thì engine phải preempt.", "headline", 1, 1024,
          en=('Physical KV blocks (POOL_BLOCKS)', 'Physical blocks in the simulated KV pool ("HBM"); when they run out the engine must preempt.')),
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
          "Tổng token tối đa của một chuỗi (prompt + sinh ra); vượt thì trả 400.", "advanced", 2, 128,
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
          en=('Tokenize cost per token (COST_TOKENIZE_PER_TOKEN, µs)', 'CPU input preparation, per prompt token.')),
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
          "fcfs = ai đến trước chạy trước (như seed); priority = hàng chờ xếp theo (priority, giờ đến), số nhỏ chạy "
          "trước, và khi hết block KV thì preempt chuỗi có (priority, giờ đến) lớn nhất, như vLLM.",
          "advanced", choices=("fcfs", "priority"),
          en=('Scheduling policy (SCHED_POLICY)', 'fcfs = first come, first served (as in the seed); priority = the waiting queue is ordered by (priority, arrival), lower numbers first, and when KV blocks run out the sequence with the largest (priority, arrival) is preempted, like vLLM.')),
)
FIELD_BY_NAME = {f.name: f for f in FIELDS}

REQUEST_FIELDS: tuple[RequestField, ...] = (
    RequestField("id", "str", "Mã", "Tên ngắn của yêu cầu (chữ cái/chữ số, tối đa 8 ký tự, không trùng).",
                 pattern=ID_PATTERN,
                 en=('ID', 'Short name of the request (letters/digits, at most 8 characters, unique).')),
    RequestField("arrival", "int", "Đến (µs)", "Thời điểm đến trên đồng hồ mô phỏng (µs).", 0, 100_000_000,
                 en=('Arrives (µs)', 'Arrival time on the simulated clock (µs).')),
    RequestField("text", "str", "Văn bản", "Prompt; ký tự lạ với tokenizer sẽ bị từ chối 400.", 1, MAX_TEXT_CHARS,
                 en=('Text', 'The prompt; characters the tokenizer does not know are rejected with 400.')),
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
    RequestField("priority", "int", "priority", "Độ ưu tiên khi SCHED_POLICY = priority: số nhỏ chạy trước; "
                 "để trống = 0.", 0, 100, optional=True,
                 en=('priority', 'Priority when SCHED_POLICY = priority: lower numbers run first; empty = 0.')),
    RequestField("cancel_at", "int", "Hủy lúc (µs)", "Client hủy yêu cầu lúc này (µs mô phỏng); engine bỏ nó ở "
                 "ranh giới bước đầu tiên từ lúc đó; để trống = không hủy.", 0, 100_000_000, optional=True,
                 en=('Cancel at (µs)', 'The client cancels the request at this time (simulated µs); the engine drops it at the first step boundary from then on; empty = never cancelled.')),
)


@dataclass(frozen=True, slots=True)
class Problem:
    """One validation problem, naming its field (e.g. "SLOTS" or "REQUESTS[2].top_p"), in Vietnamese and English."""
    field: str
    message: str
    message_en: str = ""

    def text(self, lang: str = "vi") -> str:
        return self.message_en if lang == "en" and self.message_en else self.message

    def to_dict(self) -> dict:
        return {"field": self.field, "message": self.message, "message_en": self.message_en}


class ConfigError(ValueError):
    """Raised with *all* problems of a config at once."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(f"{p.field}: {p.message}" for p in problems))


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return _is_int(v) or (isinstance(v, float) and math.isfinite(v))


def _fmt(v, digits: str = "chữ số") -> str:
    text = f"{v:g}" if isinstance(v, float) else str(v)
    return text if len(text) <= 20 else text[:12] + f"… ({len(text)} {digits})"


def _check_number(name: str, kind: str, value, lo, hi) -> tuple[str, str] | None:
    """(Vietnamese, English) message if `value` is not a `kind` number in [lo, hi], else None."""
    if kind == "int" and not _is_int(value):
        return f"{name} phải là số nguyên (nhận {value!r}).", f"{name} must be an integer (got {value!r})."
    if kind == "float" and not _is_number(value):
        return f"{name} phải là một số (nhận {value!r}).", f"{name} must be a number (got {value!r})."
    if lo is not None and hi is not None and not lo <= value <= hi:
        return (f"{name} phải nằm trong khoảng {_fmt(lo)}..{_fmt(hi)} (nhận {_fmt(value)}).",
                f"{name} must be in the range {_fmt(lo)}..{_fmt(hi)} (got {_fmt(value, 'digits')}).")
    return None


def _check_request(i: int, req) -> list[Problem]:
    where = f"REQUESTS[{i}]"
    if not isinstance(req, dict):
        return [Problem(where, f"Yêu cầu thứ {i + 1} phải là một bảng khóa → giá trị.", f"Request {i + 1} must be a key → value mapping.")]
    problems = []
    names = [f.name for f in REQUEST_FIELDS]
    extra = sorted(set(req) - set(names))
    missing = [f.name for f in REQUEST_FIELDS if f.name not in req and not f.optional]
    if missing:
        problems.append(Problem(where, f"Yêu cầu thứ {i + 1} thiếu khóa: {', '.join(missing)}.",
                                f"Request {i + 1} lacks keys: {', '.join(missing)}."))
    if extra:
        problems.append(Problem(where, f"Yêu cầu thứ {i + 1} có khóa lạ: {', '.join(extra)}.",
                                f"Request {i + 1} has unknown keys: {', '.join(extra)}."))
    for f in REQUEST_FIELDS:
        if f.name in req and not (f.optional and req[f.name] is None):
            msg = _check_request_value(f, req[f.name])
            if msg:
                problems.append(Problem(f"{where}.{f.name}", f"Yêu cầu thứ {i + 1}: {msg[0]}", f"Request {i + 1}: {msg[1]}"))
    return problems


def _check_request_value(f: RequestField, value) -> tuple[str, str] | None:
    if f.type != "str":
        return _check_number(f.name, f.type, value, f.min, f.max)
    if not isinstance(value, str):
        return f"{f.name} phải là chuỗi ký tự.", f"{f.name} must be a string."
    if f.pattern and not re.fullmatch(f.pattern.strip("^$"), value):
        return "id phải gồm 1..8 chữ cái hoặc chữ số (không dấu).", "id must be 1..8 letters or digits (ASCII)."
    if not value.strip():
        return "text không được rỗng.", "text must not be empty."
    if len(value) > MAX_TEXT_CHARS:
        return (f"text dài tối đa {MAX_TEXT_CHARS} ký tự (nhận {len(value)}).",
                f"text is at most {MAX_TEXT_CHARS} characters long (got {len(value)}).")
    return None


def _check_requests(value) -> list[Problem]:
    if not isinstance(value, (list, tuple)):
        return [Problem("REQUESTS", "REQUESTS phải là một danh sách yêu cầu.", "REQUESTS must be a list of requests.")]
    if not 1 <= len(value) <= MAX_REQUESTS:
        return [Problem("REQUESTS", f"REQUESTS phải có từ 1 đến {MAX_REQUESTS} yêu cầu (nhận {len(value)}).",
                        f"REQUESTS must hold 1 to {MAX_REQUESTS} requests (got {len(value)}).")]
    problems = [p for i, r in enumerate(value) for p in _check_request(i, r)]
    ids = [r.get("id") for r in value if isinstance(r, dict)]
    dupes = sorted({x for x in ids if isinstance(x, str) and ids.count(x) > 1})
    if dupes:
        problems.append(Problem("REQUESTS", f"Mã yêu cầu bị trùng: {', '.join(dupes)}.", f"Duplicate request IDs: {', '.join(dupes)}."))
    return problems


def _request_ids(values: dict) -> list[str]:
    reqs = values.get("REQUESTS", DEFAULT_REQUESTS)
    if not isinstance(reqs, (list, tuple)):
        return []
    return [r["id"] for r in reqs if isinstance(r, dict) and isinstance(r.get("id"), str)]


def _check_field(f: Field, value, values: dict) -> list[Problem]:
    if f.type == "requests":
        return _check_requests(value)
    if f.type == "choice" and f.choices:
        if value not in f.choices:
            return [Problem(f.name, f"{f.name} phải là một trong: {', '.join(f.choices)} (nhận {value!r}).",
                            f"{f.name} must be one of: {', '.join(f.choices)} (got {value!r}).")]
        return []
    if f.type == "choice":
        ids = _request_ids(values)
        if value not in ids:
            return [Problem(f.name, f"{f.name} phải là mã của một yêu cầu trong trace ({', '.join(ids)}); nhận {value!r}.",
                            f"{f.name} must be the ID of a request in the trace ({', '.join(ids)}); got {value!r}.")]
        return []
    msg = _check_number(f.name, f.type, value, f.min, f.max)
    return [Problem(f.name, *msg)] if msg else []


def _check_costs(values: dict) -> list[Problem]:
    """A step must take simulated time, or the clock never moves (the seed asserts this)."""
    problems = []
    for kind in ("PREFILL", "DECODE"):
        a, b = f"COST_{kind}_FIXED", f"COST_{kind}_PER_{'TOKEN' if kind == 'PREFILL' else 'SEQ'}"
        va, vb = values.get(a, FIELD_BY_NAME[a].default), values.get(b, FIELD_BY_NAME[b].default)
        if _is_int(va) and _is_int(vb) and va + vb == 0:
            problems.append(Problem(a, f"{a} và {b} không được cùng bằng 0: mỗi bước phải tốn thời gian mô phỏng.",
                                    f"{a} and {b} must not both be 0: every step must take simulated time."))
    return problems


def _name_problems(values) -> list[Problem]:
    """Problems with the mapping itself: not a mapping, or a name that is not a constant."""
    if not isinstance(values, dict):
        return [Problem("config", "Cấu hình phải là một bảng TÊN → giá trị.", "The config must be a NAME → value mapping.")]
    return [Problem(k, f"Không có hằng số tên {k}.", f"There is no constant named {k}.") for k in values if k not in FIELD_BY_NAME]


def _value_problems(values: dict) -> list[Problem]:
    """Problems with the values of the known constants (missing names take the default)."""
    problems = []
    for f in FIELDS:
        problems += _check_field(f, values.get(f.name, f.default), values)
    return problems + _check_costs(values)


def validate(values: dict) -> list[Problem]:
    """All problems of a partial {NAME: value} mapping (missing names take the default)."""
    problems = _name_problems(values)
    return problems + _value_problems(values) if isinstance(values, dict) else problems


_TYPES = {"int": "int", "float": "float", "choice": "str", "requests": "tuple"}


def _fields_from_schema(cls):
    """Give `cls` one annotated attribute per schema Field, its default taken from FIELDS (written once)."""
    annotations = cls.__dict__.get("__annotations__", {})
    for f in FIELDS:
        annotations[f.name] = _TYPES[f.type]
        setattr(cls, f.name, f.default)
    cls.__annotations__ = annotations
    return cls


@dataclass(slots=True)
@_fields_from_schema
class Config:
    """The seed's constants as one object, one attribute per Field of FIELDS (same name, same default);
    construction validates everything at once, and only there.

    >>> Config().SLOTS == FIELD_BY_NAME["SLOTS"].default, Config(SLOTS=3).SLOTS
    (True, 3)
    >>> Config(SLOTS=0)
    Traceback (most recent call last):
    ...
    inference_lab.core.config.ConfigError: SLOTS: SLOTS phải nằm trong khoảng 1..16 (nhận 0).
    """

    def __post_init__(self):
        if isinstance(self.REQUESTS, (list, tuple)):
            self.REQUESTS = tuple(dict(r) if isinstance(r, dict) else r for r in self.REQUESTS)
        problems = _value_problems(self.to_values())
        if problems:
            raise ConfigError(problems)

    @classmethod
    def from_values(cls, values: dict) -> "Config":
        """Build from a partial {NAME: value} mapping; raises ConfigError listing every problem."""
        problems = _name_problems(values)
        if not isinstance(values, dict):
            raise ConfigError(problems)
        try:
            config = cls(**{k: v for k, v in values.items() if k in FIELD_BY_NAME})
        except ConfigError as exc:
            raise ConfigError(problems + exc.problems) from None
        if problems:
            raise ConfigError(problems)
        return config

    def to_values(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def to_dict(self) -> dict:
        d = self.to_values()
        d["REQUESTS"] = [dict(r) for r in self.REQUESTS]
        return d


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

