"""The lab's configuration: one validated object with the schema's constants (schema.py), and its checks.

    >>> cfg = Config.from_values({"SLOTS": 3})
    >>> cfg.SLOTS, cfg.QUEUE_LIMIT
    (3, 1)
    >>> [p.field for p in validate({"SLOTS": 0, "QUANT_BITS": "x"})]
    ['SLOTS', 'QUANT_BITS']

Validation returns *every* problem at once, each naming its field, in Vietnamese and English
(`Problem.message`, `Problem.message_en`). The schema's names (FIELDS, FIELD_BY_NAME, REQUEST_FIELDS,
DEFAULT_REQUESTS, describe, …) are importable from here too, so callers name one module.

Leaves out: the schema itself (schema.py: names, defaults, bounds, labels) and the model's sizes
(d_model 8, 2 heads of 4, FFN 16), fixed as in the seed, in `model.py`; BOS, EOS and the training CORPUS,
the seed's fixed constants (not tunable), in `tokenizer.py`.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields

# the schema's names, importable from here too (callers name one module: config)
from ..clock.hardware import GPUS, MODELS, kv_budget
from ..clock.profiles import PROFILES
from .workload import reachable, trace_for
from .schema import (DEFAULT_REQUESTS, FIELD_BY_NAME, FIELDS, MAX_REQUESTS, MAX_TEXT_CHARS,  # noqa: F401
                     REQUEST_FIELDS, Field, RequestField, describe)


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
    if f.auto and value == "auto":
        return []
    msg = _check_number(f.name, f.type, value, f.min, f.max)
    if not msg and f.choices and value not in f.choices:
        allowed = ", ".join(map(str, f.choices))
        msg = (f"{f.name} phải là một trong: {allowed} (nhận {value!r}).", f"{f.name} must be one of: {allowed} (got {value!r}).")
    return [Problem(f.name, *msg)] if msg else []


def _check_fit(values: dict) -> list[Problem]:
    """Under CLOCK = roofline (or POOL_BLOCKS = auto) the shadow model's weights must fit in the GPU's HBM (with room left for KV: hardware.kv_budget)."""
    get = lambda name: values.get(name, FIELD_BY_NAME[name].default)   # noqa: E731
    if (get("CLOCK") != "roofline" and get("POOL_BLOCKS") != "auto") or get("GPU") not in GPUS or get("SHADOW_MODEL") not in MODELS \
            or get("WEIGHT_BITS") not in FIELD_BY_NAME["WEIGHT_BITS"].choices:
        return []
    utilization = get("GPU_MEMORY_UTILIZATION")
    if not (_is_number(utilization) and 0 < utilization <= 1):
        return []
    gpu, model, bits = GPUS[get("GPU")], MODELS[get("SHADOW_MODEL")], get("WEIGHT_BITS")
    room = kv_budget(gpu, model, bits, 16, utilization=utilization)
    if room["tokens"] > 0:
        return []
    need, have, usable = room["weights"] / 1e9, gpu.hbm / 1e9, (room["usable"] - room["reserve"]) / 1e9
    return [Problem("SHADOW_MODEL",
                    f"{model.name} ở {bits} bit cần {need:.1f} GB cho trọng số, nhưng {gpu.name} chỉ có {have:.1f} GB "
                    f"HBM ({usable:.1f} GB dùng được sau GPU_MEMORY_UTILIZATION {utilization:g} và vùng activation): đổi "
                    f"SHADOW_MODEL, GPU, WEIGHT_BITS hoặc GPU_MEMORY_UTILIZATION.",
                    f"{model.name} at {bits} bits needs {need:.1f} GB for its weights, but {gpu.name} has only "
                    f"{have:.1f} GB of HBM ({usable:.1f} GB usable after GPU_MEMORY_UTILIZATION {utilization:g} and the "
                    f"activation reserve): change SHADOW_MODEL, GPU, WEIGHT_BITS or GPU_MEMORY_UTILIZATION.")]


def _check_precision(values: dict) -> list[Problem]:
    """ACT_BITS = 8 (W8A8) multiplies 8-bit weights by 8-bit activations: it needs WEIGHT_BITS 8 or 4."""
    get = lambda name: values.get(name, FIELD_BY_NAME[name].default)   # noqa: E731
    if get("ACT_BITS") != 8 or get("WEIGHT_BITS") != 16:
        return []
    return [Problem("ACT_BITS", "ACT_BITS = 8 (W8A8, FP8) cần trọng số 8 hoặc 4 bit: đặt WEIGHT_BITS = 8 (FP8 W8A8 = "
                    "WEIGHT_BITS 8 và ACT_BITS 8) hoặc để ACT_BITS = 16.",
                    "ACT_BITS = 8 (W8A8, FP8) needs 8- or 4-bit weights: set WEIGHT_BITS = 8 (FP8 W8A8 = WEIGHT_BITS 8 "
                    "and ACT_BITS 8) or keep ACT_BITS = 16.")]


def _check_cluster(values: dict) -> list[Problem]:
    """DISAGG = on needs a prefill and a decode replica: 1 <= PREFILL_REPLICAS <= REPLICAS - 1."""
    get = lambda name: values.get(name, FIELD_BY_NAME[name].default)   # noqa: E731
    n, p = get("REPLICAS"), get("PREFILL_REPLICAS")
    if get("DISAGG") != "on" or not (_is_int(n) and _is_int(p)) or p <= n - 1:
        return []
    if n < 2:
        return [Problem("REPLICAS", f"DISAGG = on cần ít nhất 2 bản sao (một prefill, một decode); REPLICAS = {n}.",
                        f"DISAGG = on needs at least 2 replicas (one prefill, one decode); REPLICAS = {n}.")]
    return [Problem("PREFILL_REPLICAS", f"PREFILL_REPLICAS phải nằm trong khoảng 1..{n - 1} (REPLICAS − 1, để còn "
                    f"bản sao decode); nhận {p}.",
                    f"PREFILL_REPLICAS must be in the range 1..{n - 1} (REPLICAS − 1, leaving a decode replica); got {p}.")]


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


def generated(values: dict) -> bool:
    """WORKLOAD_REQUESTS > 0: the engine plays a generated trace (workload.py), REQUESTS is not used."""
    n = values.get("WORKLOAD_REQUESTS", 0)
    return _is_int(n) and n > 0


def _check_workload(values: dict) -> list[Problem]:
    """A generated trace's shared prefix fits in its prompt, and the tokenizer's words can make both lengths."""
    get = lambda name: values.get(name, FIELD_BY_NAME[name].default)   # noqa: E731
    prompt, prefixes, shared = get("WORKLOAD_PROMPT"), get("WORKLOAD_PREFIXES"), get("WORKLOAD_SHARED")
    if not generated(values) or not all(_is_int(v) for v in (prompt, prefixes, shared, get("N_MERGES"))):
        return []
    if prefixes and shared > prompt:
        return [Problem("WORKLOAD_SHARED", f"WORKLOAD_SHARED ({shared}) không được lớn hơn WORKLOAD_PROMPT ({prompt}): "
                        "tiền tố chung nằm trong prompt.", f"WORKLOAD_SHARED ({shared}) must not exceed WORKLOAD_PROMPT "
                        f"({prompt}): the shared prefix is part of the prompt.")]
    if not reachable(get("N_MERGES"), prompt, prefixes, shared):
        vi, en = (f" (tiền tố chung {shared})", f" (shared prefix {shared})") if prefixes else ("", "")
        return [Problem("WORKLOAD_PROMPT", f"Với N_MERGES = {get('N_MERGES')} không từ nào dài đúng 1 token, nên không "
                        f"tạo được prompt dài đúng {prompt} token{vi}: đổi WORKLOAD_PROMPT, WORKLOAD_SHARED hoặc đặt "
                        "N_MERGES >= 3.", f"With N_MERGES = {get('N_MERGES')} no word is one token long, so no prompt "
                        f"of exactly {prompt} tokens{en} can be made: change WORKLOAD_PROMPT, WORKLOAD_SHARED or set "
                        "N_MERGES >= 3.")]
    return []


def _value_problems(values: dict) -> list[Problem]:
    """Problems with the values of the known constants (missing names take the default). With a generated
    trace (WORKLOAD_REQUESTS > 0) REQUESTS is not used, and FOLLOW falls back to R1 when it names no request."""
    problems = []
    skip = ("REQUESTS", "FOLLOW") if generated(values) else ()
    for f in FIELDS:
        if f.name not in skip:
            problems += _check_field(f, values.get(f.name, f.default), values)
    return (problems + _check_costs(values) + _check_fit(values) + _check_precision(values) + _check_workload(values)
            + _check_cluster(values))


def validate(values: dict) -> list[Problem]:
    """All problems of a partial {NAME: value} mapping (missing names take the default)."""
    problems = _name_problems(values)
    return problems + _value_problems(values) if isinstance(values, dict) else problems


def auto_pool_blocks(cfg) -> int:
    """POOL_BLOCKS = auto: vLLM's num_gpu_blocks for the GPU and SHADOW_MODEL (hardware.kv_budget: capacity ×
    GPU_MEMORY_UTILIZATION −
    weights − activation reserve, ÷ bytes per block), but no more than the trace can ever hold at once
    (requests × ⌈MAX_CONTEXT ÷ BLOCK_SIZE⌉): a bigger pool runs the same steps, only slower to scan. On a cluster
    (REPLICAS > 1 or DISAGG = on) each replica gets its own pool of this size, and one replica never holds more than
    SLOTS sequences at once, so there the cap is min(requests, SLOTS) × ⌈MAX_CONTEXT ÷ BLOCK_SIZE⌉ (a thousand
    requests on 8 replicas would otherwise scan 8 pools sized for all of them at every step).

    >>> Config(POOL_BLOCKS="auto").POOL_BLOCKS, Config(POOL_BLOCKS="auto", GPU="L4", SHADOW_MODEL="Llama-3.1-8B").POOL_BLOCKS
    (30, 30)
    """
    vllm = kv_budget(GPUS[cfg.GPU], MODELS[cfg.SHADOW_MODEL], cfg.WEIGHT_BITS, cfg.KV_BITS, cfg.BLOCK_SIZE,
                     cfg.GPU_MEMORY_UTILIZATION)["blocks"]
    holders = len(cfg.REQUESTS)
    if cfg.REPLICAS > 1 or cfg.DISAGG == "on":
        holders = min(holders, cfg.SLOTS)
    return max(1, min(vllm, holders * -(-cfg.MAX_CONTEXT // cfg.BLOCK_SIZE)))


def resolve_profile(cfg) -> None:
    """FLOPS_FRACTION, BANDWIDTH_FRACTION and STEP_OVERHEAD left at "auto" take ENGINE_PROFILE's figures for the
    run's precision (profiles.py); a number typed for any of them wins.

    >>> c = Config()
    >>> c.FLOPS_FRACTION, c.BANDWIDTH_FRACTION, c.STEP_OVERHEAD
    (0.6, 0.8, 100)
    >>> c = Config(ENGINE_PROFILE="gpt-fast", WEIGHT_BITS=8, BANDWIDTH_FRACTION=0.7)
    >>> c.FLOPS_FRACTION, c.BANDWIDTH_FRACTION, c.STEP_OVERHEAD
    (0.6, 0.7, 0)
    """
    figures = PROFILES[cfg.ENGINE_PROFILE].figures(cfg.WEIGHT_BITS, cfg.ACT_BITS)
    for name, value in zip(("FLOPS_FRACTION", "BANDWIDTH_FRACTION", "STEP_OVERHEAD"), figures):
        if getattr(cfg, name) == "auto":
            setattr(cfg, name, value)


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
    inference_lab.core.inputs.config.ConfigError: SLOTS: SLOTS phải nằm trong khoảng 1..256 (nhận 0).
    """

    def __post_init__(self):
        if isinstance(self.REQUESTS, (list, tuple)):
            self.REQUESTS = tuple(dict(r) if isinstance(r, dict) else r for r in self.REQUESTS)
        problems = _value_problems(self.to_values())
        if problems:
            raise ConfigError(problems)
        resolve_profile(self)
        if generated(self.to_values()):
            self.use_workload()
        if self.POOL_BLOCKS == "auto":
            self.POOL_BLOCKS = auto_pool_blocks(self)

    def use_workload(self) -> None:
        """REQUESTS becomes the generated trace R1 … RN (workload.py); FOLLOW falls back to its first request
        when it names none of them (an explicit trace keeps FOLLOW's check: exit 2 on the CLI)."""
        self.REQUESTS = tuple(dict(r) for r in trace_for(self.to_values()))
        if self.FOLLOW not in {r["id"] for r in self.REQUESTS}:
            self.FOLLOW = self.REQUESTS[0]["id"]

    @classmethod
    def from_values(cls, values: dict) -> "Config":
        """Build from a partial {NAME: value} mapping; raises ConfigError listing every problem."""
        problems = _name_problems(values)
        if not isinstance(values, dict):
            raise ConfigError(problems)
        if values.get("CLOCK") == "roofline":             # the roofline clock's own defaults (schema.py)
            values = {**{f.name: f.roofline_default for f in FIELDS if f.roofline_default is not None}, **values}
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
