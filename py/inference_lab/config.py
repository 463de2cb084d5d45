"""The lab's tunable constants: one schema, one validated config object.

Every constant at the top of the seed program (`inference-end-to-end.py`) is a `Field`
here, with the seed's default, its bounds, a Vietnamese label and help text and a group.
The page builds its controls from `describe()`, the command line builds its flags from
the same list, so a name, default or bound is written exactly once.

    >>> cfg = Config.from_values({"SLOTS": 3})
    >>> cfg.SLOTS, cfg.QUEUE_LIMIT
    (3, 1)
    >>> [p.field for p in validate({"SLOTS": 0, "QUANT_BITS": "x"})]
    ['SLOTS', 'QUANT_BITS']

Validation returns *every* problem at once, each naming its field, in Vietnamese.
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

    @property
    def flag(self) -> str:
        return "--" + self.name.lower().replace("_", "-")

    def describe(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["flag"] = self.flag
        d["default"] = [dict(r) for r in self.default] if self.type == "requests" else self.default
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


ID_PATTERN = r"^[A-Za-z0-9]{1,8}$"
_I = "int"
FIELDS: tuple[Field, ...] = (
    Field("SLOTS", _I, 2, "Số chỗ chạy (SLOTS)", "Số chuỗi được chạy cùng lúc trong một bước.", "headline", 1, 16),
    Field("QUEUE_LIMIT", _I, 1, "Số chỗ chờ (QUEUE_LIMIT)",
          "Số yêu cầu được xếp hàng chờ thêm ngoài SLOTS; đầy thì cổng trả 429.", "headline", 0, 16),
    Field("TOKEN_BUDGET", _I, 6, "Ngân sách token mỗi bước (TOKEN_BUDGET)",
          "Số token tối đa xử lý trong một bước; prompt dài được chia đoạn (chunked prefill).", "headline", 1, 256),
    Field("BLOCK_SIZE", _I, 4, "Số token mỗi block KV (BLOCK_SIZE)",
          "Số token trong một block của KV cache phân trang.", "headline", 1, 64),
    Field("POOL_BLOCKS", _I, 12, "Số block KV vật lý (POOL_BLOCKS)",
          "Số block vật lý trong bể KV giả lập (\"HBM\"); hết block thì engine phải preempt.", "headline", 1, 1024),
    Field("QUANT_BITS", _I, 8, "Số bit lượng tử hóa (QUANT_BITS)",
          "Độ rộng bit của trọng số lượng tử hóa đối xứng (8 = INT8; thử 4).", "headline", 2, 8),
    Field("FOLLOW", "choice", "C", "Yêu cầu theo dõi (FOLLOW)",
          "Yêu cầu được theo dõi chi tiết qua mọi khối.", "headline"),
    Field("REQUESTS", "requests", DEFAULT_REQUESTS, "Các yêu cầu (REQUESTS)",
          "Trace yêu cầu: thời điểm đến, văn bản, giới hạn sinh, cấu hình lấy mẫu, seed riêng.", "requests"),
    Field("MAX_CONTEXT", _I, 24, "Context tối đa (MAX_CONTEXT)",
          "Tổng token tối đa của một chuỗi (prompt + sinh ra); vượt thì trả 400.", "advanced", 2, 128),
    Field("TTFT_SLO", _I, 8000, "Ngưỡng TTFT giả định (TTFT_SLO, µs)",
          "Ngưỡng TTFT GIẢ ĐỊNH để minh họa cảnh báo (µs mô phỏng).", "advanced", 0, 100_000_000),
    Field("QUALITY_GATE", "float", 0.95, "Ngưỡng cổng chất lượng (QUALITY_GATE)",
          "Tỉ lệ quyết định top-1 phải giữ nguyên sau lượng tử hóa (0..1).", "advanced", 0.0, 1.0, 0.01),
    Field("SEED", _I, 7, "Seed trọng số (SEED)", "Seed của trọng số mô hình ngẫu nhiên.", "advanced", 0, 2**31 - 1),
    Field("N_MERGES", _I, 10, "Số phép gộp BPE (N_MERGES)",
          "Số phép gộp BPE học từ 5 câu mẫu; ít phép gộp thì prompt dài hơn.", "advanced", 0, 100),
    Field("COST_GATEWAY", _I, 200, "Chi phí cổng (COST_GATEWAY, µs)",
          "Cổng: xác thực + kiểm tra hạn mức (µs mô phỏng, giả định).", "advanced", 0, 10_000_000),
    Field("COST_TOKENIZE_PER_TOKEN", _I, 50, "Chi phí tokenize mỗi token (COST_TOKENIZE_PER_TOKEN, µs)",
          "CPU chuẩn bị đầu vào, tính theo số token prompt.", "advanced", 0, 1_000_000),
    Field("COST_DECODE_FIXED", _I, 1000, "Chi phí cố định bước decode (COST_DECODE_FIXED, µs)",
          "Đọc trọng số một lần cho cả bước decode (giới hạn băng thông).", "advanced", 0, 10_000_000),
    Field("COST_DECODE_PER_SEQ", _I, 100, "Chi phí decode mỗi chuỗi (COST_DECODE_PER_SEQ, µs)",
          "Thêm cho mỗi chuỗi decode trong bước.", "advanced", 0, 1_000_000),
    Field("COST_PREFILL_FIXED", _I, 500, "Chi phí cố định bước prefill (COST_PREFILL_FIXED, µs)",
          "Chi phí cố định khi bước có prefill.", "advanced", 0, 10_000_000),
    Field("COST_PREFILL_PER_TOKEN", _I, 400, "Chi phí prefill mỗi token (COST_PREFILL_PER_TOKEN, µs)",
          "Prefill tính nhiều token cùng lúc (giới hạn tính toán).", "advanced", 0, 1_000_000),
)
FIELD_BY_NAME = {f.name: f for f in FIELDS}

REQUEST_FIELDS: tuple[RequestField, ...] = (
    RequestField("id", "str", "Mã", "Tên ngắn của yêu cầu (chữ cái/chữ số, tối đa 8 ký tự, không trùng).",
                 pattern=ID_PATTERN),
    RequestField("arrival", "int", "Đến (µs)", "Thời điểm đến trên đồng hồ mô phỏng (µs).", 0, 100_000_000),
    RequestField("text", "str", "Văn bản", "Prompt; ký tự lạ với tokenizer sẽ bị từ chối 400.", 1, MAX_TEXT_CHARS),
    RequestField("max_new", "int", "max_new", "Số token sinh ra tối đa.", 1, 256),
    RequestField("temperature", "float", "T", "Temperature; 0 = greedy.", 0.0, 5.0),
    RequestField("top_k", "int", "top_k", "Giữ k token xác suất cao nhất; 0 = tắt.", 0, 64),
    RequestField("top_p", "float", "top_p", "Giữ nhóm token có tổng xác suất tới top_p (0 < top_p <= 1).", 0.001, 1.0),
    RequestField("seed", "int", "seed", "Seed riêng của yêu cầu (lấy mẫu lặp lại được).", 0, 2**31 - 1),
)


@dataclass(frozen=True, slots=True)
class Problem:
    """One validation problem, naming its field (e.g. "SLOTS" or "REQUESTS[2].top_p")."""
    field: str
    message: str

    def to_dict(self) -> dict:
        return {"field": self.field, "message": self.message}


class ConfigError(ValueError):
    """Raised with *all* problems of a config at once."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(f"{p.field}: {p.message}" for p in problems))


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return _is_int(v) or (isinstance(v, float) and math.isfinite(v))


def _fmt(v) -> str:
    text = f"{v:g}" if isinstance(v, float) else str(v)
    return text if len(text) <= 20 else text[:12] + f"… ({len(text)} chữ số)"


def _check_number(name: str, kind: str, value, lo, hi) -> str | None:
    """Vietnamese message if `value` is not a `kind` number in [lo, hi], else None."""
    if kind == "int" and not _is_int(value):
        return f"{name} phải là số nguyên (nhận {value!r})."
    if kind == "float" and not _is_number(value):
        return f"{name} phải là một số (nhận {value!r})."
    if lo is not None and hi is not None and not lo <= value <= hi:
        return f"{name} phải nằm trong khoảng {_fmt(lo)}..{_fmt(hi)} (nhận {_fmt(value)})."
    return None


def _check_request(i: int, req) -> list[Problem]:
    where = f"REQUESTS[{i}]"
    if not isinstance(req, dict):
        return [Problem(where, f"Yêu cầu thứ {i + 1} phải là một bảng khóa → giá trị.")]
    problems = []
    names = [f.name for f in REQUEST_FIELDS]
    extra = sorted(set(req) - set(names))
    missing = [n for n in names if n not in req]
    if missing:
        problems.append(Problem(where, f"Yêu cầu thứ {i + 1} thiếu khóa: {', '.join(missing)}."))
    if extra:
        problems.append(Problem(where, f"Yêu cầu thứ {i + 1} có khóa lạ: {', '.join(extra)}."))
    for f in REQUEST_FIELDS:
        if f.name in req:
            msg = _check_request_value(f, req[f.name])
            if msg:
                problems.append(Problem(f"{where}.{f.name}", f"Yêu cầu thứ {i + 1}: {msg}"))
    return problems


def _check_request_value(f: RequestField, value) -> str | None:
    if f.type != "str":
        return _check_number(f.name, f.type, value, f.min, f.max)
    if not isinstance(value, str):
        return f"{f.name} phải là chuỗi ký tự."
    if f.pattern and not re.fullmatch(f.pattern.strip("^$"), value):
        return "id phải gồm 1..8 chữ cái hoặc chữ số (không dấu)."
    if not value.strip():
        return "text không được rỗng."
    if len(value) > MAX_TEXT_CHARS:
        return f"text dài tối đa {MAX_TEXT_CHARS} ký tự (nhận {len(value)})."
    return None


def _check_requests(value) -> list[Problem]:
    if not isinstance(value, (list, tuple)):
        return [Problem("REQUESTS", "REQUESTS phải là một danh sách yêu cầu.")]
    if not 1 <= len(value) <= MAX_REQUESTS:
        return [Problem("REQUESTS", f"REQUESTS phải có từ 1 đến {MAX_REQUESTS} yêu cầu (nhận {len(value)}).")]
    problems = [p for i, r in enumerate(value) for p in _check_request(i, r)]
    ids = [r.get("id") for r in value if isinstance(r, dict)]
    dupes = sorted({x for x in ids if isinstance(x, str) and ids.count(x) > 1})
    if dupes:
        problems.append(Problem("REQUESTS", f"Mã yêu cầu bị trùng: {', '.join(dupes)}."))
    return problems


def _request_ids(values: dict) -> list[str]:
    reqs = values.get("REQUESTS", DEFAULT_REQUESTS)
    if not isinstance(reqs, (list, tuple)):
        return []
    return [r["id"] for r in reqs if isinstance(r, dict) and isinstance(r.get("id"), str)]


def _check_field(f: Field, value, values: dict) -> list[Problem]:
    if f.type == "requests":
        return _check_requests(value)
    if f.type == "choice":
        ids = _request_ids(values)
        if value not in ids:
            return [Problem(f.name, f"{f.name} phải là mã của một yêu cầu trong trace ({', '.join(ids)}); nhận {value!r}.")]
        return []
    msg = _check_number(f.name, f.type, value, f.min, f.max)
    return [Problem(f.name, msg)] if msg else []


def _check_costs(values: dict) -> list[Problem]:
    """A step must take simulated time, or the clock never moves (the seed asserts this)."""
    problems = []
    for kind in ("PREFILL", "DECODE"):
        a, b = f"COST_{kind}_FIXED", f"COST_{kind}_PER_{'TOKEN' if kind == 'PREFILL' else 'SEQ'}"
        va, vb = values.get(a, FIELD_BY_NAME[a].default), values.get(b, FIELD_BY_NAME[b].default)
        if _is_int(va) and _is_int(vb) and va + vb == 0:
            problems.append(Problem(a, f"{a} và {b} không được cùng bằng 0: mỗi bước phải tốn thời gian mô phỏng."))
    return problems


def _name_problems(values) -> list[Problem]:
    """Problems with the mapping itself: not a mapping, or a name that is not a constant."""
    if not isinstance(values, dict):
        return [Problem("config", "Cấu hình phải là một bảng TÊN → giá trị.")]
    return [Problem(k, f"Không có hằng số tên {k}.") for k in values if k not in FIELD_BY_NAME]


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
    inference_lab.config.ConfigError: SLOTS: SLOTS phải nằm trong khoảng 1..16 (nhận 0).
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
            d["columns"] = [{k: getattr(c, k) for k in ("name", "type", "label", "help", "min", "max", "pattern")}
                            for c in REQUEST_FIELDS]
            d["max_items"] = MAX_REQUESTS
    return out

