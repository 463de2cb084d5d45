"""Every problem a set of constants can have, found at once before a run: each names its field, as a key and
its facts (`Problem.key`, `Problem.args`), for words/text_schema.py to word in Vietnamese or English.

    >>> [p.field for p in validate({"SLOTS": 0, "QUANT_BITS": "x"})]
    ['SLOTS', 'QUANT_BITS']
    >>> [(p.field, p.key) for p in validate({"NOPE": 1})]
    [('NOPE', 'unknown_constant')]

The checks: each value against its Field (type, bounds, choices; schema.py), the requests of an explicit trace,
whether the pool and slots fit the trace (a request that could never be admitted), the model's heads against
TENSOR_PARALLEL, MAX_CONTEXT against the model and vLLM's max_model_len, precision pairs, cluster and cost
constants, a generated or recorded workload's shape. config.Config runs them on construction (one validation per
run: tests/test_engine.py counts them).

Leaves out: the sentences (words/schema_vi.py, schema_en.py) and what a valid set becomes (config.py).
"""
from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field

from ..clock.hardware import GPUS, MODELS, kv_budget
from ..clock.parallel import TP_CHOICES, heads_split
from . import trace_workload
from .context import max_context
from .workload import reachable
from .schema import (DEFAULT_REQUESTS, FIELD_BY_NAME, FIELDS, MAX_REQUESTS, MAX_TEXT_CHARS, MAX_TRACE_REQUESTS,
                     REQUEST_FIELDS, Field, RequestField)


@dataclass(frozen=True, slots=True)
class Problem:
    """One validation problem: its field (e.g. "SLOTS" or "REQUESTS[2].top_p"), which rule it breaks (`key`, a
    sentence of words/schema_vi.py's PROBLEMS) and the facts the sentence names; `request`: the request's number
    (from 1) when the value is one of a request's."""
    field: str
    key: str
    args: dict = field(default_factory=dict)
    request: int | None = None

    def __str__(self) -> str:
        facts = ", ".join(f"{k}={v!r}" for k, v in self.args.items())
        return f"{self.field}: {self.key}" + (f" ({facts})" if facts else "")


class ConfigError(ValueError):
    """Raised with *all* problems of a config at once (worded by words/text_schema.py)."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(map(str, problems)))


def _value(values: dict, name: str):
    """A constant's value in a partial mapping, its default when left out."""
    return values.get(name, FIELD_BY_NAME[name].default)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v) -> bool:
    return _is_int(v) or (isinstance(v, float) and math.isfinite(v))


def _check_number(name: str, kind: str, value, lo, hi) -> tuple[str, dict] | None:
    """(key, facts) of the problem if `value` is not a `kind` number in [lo, hi], else None."""
    if kind == "int" and not _is_int(value):
        return "not_an_integer", dict(name=name, got=value)
    if kind == "float" and not _is_number(value):
        return "not_a_number", dict(name=name, got=value)
    if lo is not None and hi is not None and not lo <= value <= hi:
        return "out_of_range", dict(name=name, lo=lo, hi=hi, got=value)
    return None


def _check_request(i: int, req) -> list[Problem]:
    where, n = f"REQUESTS[{i}]", i + 1
    if not isinstance(req, dict):
        return [Problem(where, "request_not_a_mapping", dict(n=n))]
    problems = []
    names = [f.name for f in REQUEST_FIELDS]
    extra = sorted(set(req) - set(names))
    missing = [f.name for f in REQUEST_FIELDS if f.name not in req and not f.optional]
    if missing:
        problems.append(Problem(where, "missing_keys", dict(n=n, keys=missing)))
    if extra:
        problems.append(Problem(where, "unknown_keys", dict(n=n, keys=extra)))
    for f in REQUEST_FIELDS:
        if f.name in req and not (f.optional and req[f.name] is None):
            found = _check_request_value(f, req[f.name])
            if found:
                problems.append(Problem(f"{where}.{f.name}", *found, request=n))
    return problems


def _check_request_value(f: RequestField, value) -> tuple[str, dict] | None:
    if f.type != "str":
        return _check_number(f.name, f.type, value, f.min, f.max)
    if not isinstance(value, str):
        return "not_a_string", dict(name=f.name)
    if f.pattern and not re.fullmatch(f.pattern.strip("^$"), value):
        return "bad_id", {}
    if not value.strip():
        return "empty_text", {}
    if len(value) > MAX_TEXT_CHARS:
        return "text_too_long", dict(limit=MAX_TEXT_CHARS, got=len(value))
    return None


def _check_requests(value) -> list[Problem]:
    if not isinstance(value, (list, tuple)):
        return [Problem("REQUESTS", "requests_not_a_list")]
    if not 1 <= len(value) <= MAX_REQUESTS:
        return [Problem("REQUESTS", "requests_count", dict(limit=MAX_REQUESTS, got=len(value)))]
    problems = [p for i, r in enumerate(value) for p in _check_request(i, r)]
    ids = [r.get("id") for r in value if isinstance(r, dict)]
    dupes = sorted({x for x in ids if isinstance(x, str) and ids.count(x) > 1})
    if dupes:
        problems.append(Problem("REQUESTS", "duplicate_ids", dict(ids=dupes)))
    return problems


def _request_ids(values: dict) -> list[str]:
    reqs = values.get("REQUESTS", DEFAULT_REQUESTS)
    if not isinstance(reqs, (list, tuple)):
        return []
    return [r["id"] for r in reqs if isinstance(r, dict) and isinstance(r.get("id"), str)]


def _upper(f: Field, values: dict):
    """The field's upper bound; WORKLOAD_REQUESTS of a trace file (the command line) reaches MAX_TRACE_REQUESTS."""
    trace = _value(values, "WORKLOAD_TRACE")
    if f.name == "WORKLOAD_REQUESTS" and isinstance(trace, str) and trace.endswith(".csv"):
        return MAX_TRACE_REQUESTS
    return f.max


def _check_field(f: Field, value, values: dict) -> list[Problem]:
    if f.type == "requests":
        return _check_requests(value)
    if f.type == "choice" and f.choices:
        if f.name == "WORKLOAD_TRACE" and isinstance(value, str) and value.endswith(".csv"):
            return []                                       # a file (command line): _check_workload reads it
        if value not in f.choices:
            return [Problem(f.name, "not_one_of", dict(name=f.name, allowed=list(f.choices), got=value))]
        return []
    if f.type == "choice":
        ids = _request_ids(values)
        if value not in ids:
            return [Problem(f.name, "not_in_trace", dict(name=f.name, ids=ids, got=value))]
        return []
    if f.auto and value == "auto":
        return []
    found = _check_number(f.name, f.type, value, f.min, _upper(f, values))
    if not found and f.choices and value not in f.choices:
        found = "not_one_of", dict(name=f.name, allowed=list(f.choices), got=value)
    return [Problem(f.name, *found)] if found else []


def _check_fit(values: dict) -> list[Problem]:
    """Under CLOCK = roofline (or POOL_BLOCKS = auto) the shadow model's weights must fit in the GPU's HBM (with
    room left for KV: hardware.kv_budget), each GPU holding 1/TENSOR_PARALLEL of them. When they do not, the
    problem names the smallest TENSOR_PARALLEL that fits (parallel.TP_CHOICES), on TENSOR_PARALLEL when it was
    raised above 1, else on SHADOW_MODEL.

    >>> [p.key for p in validate({"CLOCK": "roofline", "SHADOW_MODEL": "Llama-3.1-70B"})]
    ['weights_need_tp']
    >>> validate({"CLOCK": "roofline", "SHADOW_MODEL": "Llama-3.1-70B"})[0].args["tp"]
    2
    >>> validate({"CLOCK": "roofline", "SHADOW_MODEL": "Llama-3.1-70B", "TENSOR_PARALLEL": 2})
    []
    """
    get = functools.partial(_value, values)
    tp = get("TENSOR_PARALLEL")
    if (get("CLOCK") != "roofline" and get("POOL_BLOCKS") != "auto") or get("GPU") not in GPUS \
            or get("SHADOW_MODEL") not in MODELS or get("WEIGHT_BITS") not in FIELD_BY_NAME["WEIGHT_BITS"].choices \
            or tp not in TP_CHOICES:
        return []
    utilization = get("GPU_MEMORY_UTILIZATION")
    if not (_is_number(utilization) and 0 < utilization <= 1):
        return []
    gpu, model, bits = GPUS[get("GPU")], MODELS[get("SHADOW_MODEL")], get("WEIGHT_BITS")
    if kv_budget(gpu, model, bits, 16, utilization=utilization, tp=tp)["tokens"] > 0:
        return []
    room = kv_budget(gpu, model, bits, 16, utilization=utilization, tp=tp)
    fits = [n for n in TP_CHOICES
            if n > tp and kv_budget(gpu, model, bits, 16, utilization=utilization, tp=n)["tokens"]]
    need, have, usable = room["weights"] / 1e9, gpu.hbm / 1e9, (room["usable"] - room["reserve"]) / 1e9
    params = dict(model=model.name, bits=bits, need=need, gpu=gpu.name, have=have, usable=usable,
                  utilization=utilization)
    where = "TENSOR_PARALLEL" if tp > 1 else "SHADOW_MODEL"
    if tp > 1:
        more = f" (≥ {fits[0]})" if fits else ""
        return [Problem(where, "weights_do_not_fit_tp", dict(params, tp=tp, share=need / tp, more=more))]
    if fits:
        return [Problem(where, "weights_need_tp", dict(params, tp=fits[0], share=need / fits[0]))]
    return [Problem("SHADOW_MODEL", "weights_do_not_fit", params)]


def _check_heads(values: dict) -> list[Problem]:
    """TENSOR_PARALLEL must split the shadow model's heads evenly (parallel.heads_split, vLLM's rule)."""
    get = functools.partial(_value, values)
    tp, name = get("TENSOR_PARALLEL"), get("SHADOW_MODEL")
    if tp not in TP_CHOICES or name not in MODELS or heads_split(MODELS[name], tp):
        return []
    m = MODELS[name]
    ok = ", ".join(str(n) for n in TP_CHOICES if heads_split(m, n))
    return [Problem("TENSOR_PARALLEL", "tp_heads", dict(model=name, heads=m.heads, kv=m.kv_heads, tp=tp, ok=ok))]


def _check_context(values: dict) -> list[Problem]:
    """Under CLOCK = roofline MAX_CONTEXT is at most SHADOW_MODEL's context (its config.json's
    max_position_embeddings, hardware.Shape.context), as vLLM refuses a max_model_len beyond the model's:
    Llama-2-7B serves 4,096 tokens, Mistral-7B-v0.3 32,768, Llama 3.1 131,072.

    >>> [p.key for p in _check_context(dict(CLOCK="roofline", SHADOW_MODEL="Llama-2-7B", MAX_CONTEXT=8192))]
    ['context_exceeds_model']
    >>> _check_context(dict(CLOCK="roofline", SHADOW_MODEL="Llama-3.1-8B", MAX_CONTEXT=32768))
    []
    """
    get = functools.partial(_value, values)
    model, context = MODELS.get(get("SHADOW_MODEL")), get("MAX_CONTEXT")
    if get("CLOCK") != "roofline" or model is None or not isinstance(context, int) or context <= model.context:
        return []
    return [Problem("MAX_CONTEXT", "context_exceeds_model", dict(model=model.name, limit=model.context, got=context))]


def _check_precision(values: dict) -> list[Problem]:
    """ACT_BITS = 8 (W8A8) multiplies 8-bit weights by 8-bit activations: it needs WEIGHT_BITS 8 or 4."""
    get = functools.partial(_value, values)
    if get("ACT_BITS") != 8 or get("WEIGHT_BITS") != 16:
        return []
    return [Problem("ACT_BITS", "act_bits_needs_low_weights")]


def _check_cluster(values: dict) -> list[Problem]:
    """DISAGG = on needs a prefill and a decode replica: 1 <= PREFILL_REPLICAS <= REPLICAS - 1."""
    get = functools.partial(_value, values)
    n, p = get("REPLICAS"), get("PREFILL_REPLICAS")
    if get("DISAGG") != "on" or not (_is_int(n) and _is_int(p)) or p <= n - 1:
        return []
    if n < 2:
        return [Problem("REPLICAS", "disagg_needs_two", dict(replicas=n))]
    return [Problem("PREFILL_REPLICAS", "prefill_replicas", dict(top=n - 1, got=p))]


def _check_costs(values: dict) -> list[Problem]:
    """A step must take simulated time, or the clock never moves (the seed asserts this)."""
    problems = []
    for kind in ("PREFILL", "DECODE"):
        a, b = f"COST_{kind}_FIXED", f"COST_{kind}_PER_{'TOKEN' if kind == 'PREFILL' else 'SEQ'}"
        va, vb = values.get(a, FIELD_BY_NAME[a].default), values.get(b, FIELD_BY_NAME[b].default)
        if _is_int(va) and _is_int(vb) and va + vb == 0:
            problems.append(Problem(a, "costs_both_zero", dict(fixed=a, per=b)))
    return problems


def name_problems(values) -> list[Problem]:
    """Problems with the mapping itself: not a mapping, or a name that is not a constant."""
    if not isinstance(values, dict):
        return [Problem("config", "not_a_mapping")]
    return [Problem(k, "unknown_constant", dict(name=k)) for k in values if k not in FIELD_BY_NAME]


def generated(values: dict) -> bool:
    """WORKLOAD_REQUESTS > 0: the engine plays a generated trace (workload.py), REQUESTS is not used."""
    n = values.get("WORKLOAD_REQUESTS", 0)
    return _is_int(n) and n > 0


def _check_workload(values: dict) -> list[Problem]:
    """A generated trace's shared prefix fits in its prompt, and the tokenizer's words can make both lengths."""
    get = functools.partial(_value, values)
    prompt, prefixes, shared = get("WORKLOAD_PROMPT"), get("WORKLOAD_PREFIXES"), get("WORKLOAD_SHARED")
    if get("WORKLOAD_TRACE") != "off" and not generated(values) and _is_int(get("WORKLOAD_REQUESTS")):
        return [Problem("WORKLOAD_REQUESTS", "trace_needs_requests", dict(trace=get("WORKLOAD_TRACE")))]
    if not generated(values) or not all(_is_int(v) for v in (prompt, prefixes, shared, get("N_MERGES"))):
        return []
    if get("WORKLOAD_TRACE") != "off":
        return _check_trace(values)
    if prefixes and shared > prompt:
        return [Problem("WORKLOAD_SHARED", "shared_exceeds_prompt", dict(shared=shared, prompt=prompt))]
    if not reachable(get("N_MERGES"), prompt, prefixes, shared):
        key = "shared_prompt_unreachable" if prefixes else "prompt_unreachable"
        return [Problem("WORKLOAD_PROMPT", key, dict(merges=get("N_MERGES"), prompt=prompt, shared=shared))]
    return []


def _check_trace(values: dict) -> list[Problem]:
    """A recorded trace (trace_workload.py) can be read and its window holds at least one request."""
    get = functools.partial(_value, values)
    name = get("WORKLOAD_TRACE")
    if not isinstance(name, str) or (name not in FIELD_BY_NAME["WORKLOAD_TRACE"].choices and not name.endswith(".csv")):
        return []                                           # _check_field names the bad value
    try:
        rows = trace_workload.read_rows(get("WORKLOAD_TRACE"))
    except trace_workload.TraceError as exc:
        return [Problem("WORKLOAD_TRACE", "trace_unreadable", dict(why=str(exc)))]
    start, duration = get("WORKLOAD_TRACE_START"), get("WORKLOAD_TRACE_DURATION")
    if _is_number(start) and _is_number(duration) and not len(trace_workload.window(dict(
            WORKLOAD_TRACE=name, WORKLOAD_TRACE_START=start, WORKLOAD_TRACE_DURATION=duration,
            WORKLOAD_TIME_SCALE=1.0, WORKLOAD_REQUESTS=1))):
        return [Problem("WORKLOAD_TRACE_START", "trace_window_empty",
                        dict(start=start, duration=duration, length=rows[-1, 0] / 1e6))]
    context = max_context(values)["value"] if get("MAX_CONTEXT") == "auto" else get("MAX_CONTEXT")
    sizes = {min(max(int(p), trace_workload.MIN_PROMPT), max(context, 3) - 1) for p in rows[:, 1]}
    bad = sorted(p for p in sizes if not reachable(get("N_MERGES"), p, 0, 1))
    if bad:
        return [Problem("WORKLOAD_TRACE", "trace_prompt_unreachable", dict(merges=get("N_MERGES"), prompt=bad[0]))]
    return []


def value_problems(values: dict) -> list[Problem]:
    """Problems with the values of the known constants (missing names take the default). With a generated
    trace (WORKLOAD_REQUESTS > 0) REQUESTS is not used, and FOLLOW falls back to R1 when it names no request."""
    problems = []
    skip = ("REQUESTS", "FOLLOW") if generated(values) else ()
    for f in FIELDS:
        if f.name not in skip:
            problems += _check_field(f, values.get(f.name, f.default), values)
    return (problems + _check_costs(values) + _check_fit(values) + _check_heads(values) + _check_context(values)
            + _check_precision(values) + _check_workload(values) + _check_cluster(values))


def validate(values: dict) -> list[Problem]:
    """All problems of a partial {NAME: value} mapping (missing names take the default)."""
    problems = name_problems(values)
    return problems + value_problems(values) if isinstance(values, dict) else problems
