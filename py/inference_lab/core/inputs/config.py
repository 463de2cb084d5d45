"""The lab's configuration: one validated object with the schema's constants (schema.py), checked by problems.py.

    >>> cfg = Config.from_values({"SLOTS": 3})
    >>> cfg.SLOTS, cfg.QUEUE_LIMIT
    (3, 1)
    >>> [p.field for p in validate({"SLOTS": 0, "QUANT_BITS": "x"})]
    ['SLOTS', 'QUANT_BITS']

Validation (problems.py) returns *every* problem at once, each naming its field, as a key and its facts
(`Problem.key`, `Problem.args`): words/text_schema.py words it in Vietnamese or English. The schema's names (FIELDS,
FIELD_BY_NAME, REQUEST_FIELDS, DEFAULT_REQUESTS, describe, …) and the checks' (Problem, ConfigError, validate) are
importable from here too, so callers name one module.

Leaves out: the problems' sentences (words/schema_vi.py, schema_en.py), the schema itself (schema.py: names,
defaults, bounds, labels) and the model's sizes (d_model 8, 2 heads of 4, FFN 16), fixed as in the seed, in
`model.py`; BOS, EOS and the training CORPUS, the seed's fixed constants (not tunable), in `tokenizer.py`.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# the schema's and the checks' names, importable from here too (callers name one module: config)
from ..clock.hardware import GPUS, MODELS, PRICES, kv_budget
from ..clock.profiles import PROFILES
from . import problems, trace_workload
from .context import max_context
from .problems import ConfigError, Problem, generated, validate  # noqa: F401
from .workload import trace_for
from .schema import (DEFAULT_REQUESTS, FIELD_BY_NAME, FIELDS, MAX_REQUESTS, MAX_TEXT_CHARS, MAX_TRACE_REQUESTS,  # noqa: F401
                     REQUEST_FIELDS, Field, RequestField, describe)


def auto_pool_blocks(cfg) -> int:
    """POOL_BLOCKS = auto: vLLM's num_gpu_blocks for the GPU and SHADOW_MODEL (hardware.kv_budget: capacity ×
    GPU_MEMORY_UTILIZATION − weights − activation reserve, ÷ bytes per block; on TENSOR_PARALLEL GPUs each
    holds its share of the weights and KV heads, so the blocks count the KV room of all of them), but no more
    than the trace can ever hold at once
    (requests × ⌈MAX_CONTEXT ÷ BLOCK_SIZE⌉): a bigger pool runs the same steps, only slower to scan. On a cluster
    (REPLICAS > 1 or DISAGG = on) each replica gets its own pool of this size, and one replica never holds more than
    SLOTS sequences at once, so there the cap is min(requests, SLOTS) × ⌈MAX_CONTEXT ÷ BLOCK_SIZE⌉ (a thousand
    requests on 8 replicas would otherwise scan 8 pools sized for all of them at every step).

    >>> Config(POOL_BLOCKS="auto").POOL_BLOCKS
    30
    >>> Config(POOL_BLOCKS="auto", GPU="L4", SHADOW_MODEL="Llama-3.1-8B").POOL_BLOCKS
    30
    """
    vllm = kv_budget(GPUS[cfg.GPU], MODELS[cfg.SHADOW_MODEL], cfg.WEIGHT_BITS, cfg.KV_BITS, cfg.BLOCK_SIZE,
                     cfg.GPU_MEMORY_UTILIZATION, cfg.TENSOR_PARALLEL)["blocks"]
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
    construction validates everything at once, and only there. `max_context_auto`: how MAX_CONTEXT = auto was
    resolved when a recorded trace is played (context.max_context; None otherwise), not a constant.

    >>> Config().SLOTS == FIELD_BY_NAME["SLOTS"].default, Config(SLOTS=3).SLOTS
    (True, 3)
    >>> Config(SLOTS=0)
    Traceback (most recent call last):
    ...
    inference_lab.core.inputs.problems.ConfigError: SLOTS: out_of_range (name='SLOTS', lo=1, hi=256, got=0)
    """
    max_context_auto: dict | None = field(default=None, compare=False)

    def __post_init__(self):
        if isinstance(self.REQUESTS, (list, tuple)):
            self.REQUESTS = tuple(dict(r) if isinstance(r, dict) else r for r in self.REQUESTS)
        found = problems.value_problems(self.to_values())
        if found:
            raise ConfigError(found)
        resolve_profile(self)
        if self.GPU_PRICE_PER_HOUR == "auto":                # the GPU's list price (hardware.PRICES)
            self.GPU_PRICE_PER_HOUR = PRICES[self.GPU][0]
        if self.MAX_CONTEXT == "auto":                   # before the trace is clipped to it and the pool sized from it
            fit = max_context(self.to_values())
            self.MAX_CONTEXT, self.max_context_auto = fit["value"], (None if fit["by"] == "seed" else fit)
        if generated(self.to_values()):
            self.use_workload()
        if self.POOL_BLOCKS == "auto":
            self.POOL_BLOCKS = auto_pool_blocks(self)

    def use_workload(self) -> None:
        """REQUESTS becomes the generated trace R1 … RN (workload.py); FOLLOW falls back to its first request
        when it names none of them (an explicit trace keeps FOLLOW's check: exit 2 on the CLI)."""
        values = self.to_values()
        recorded = values["WORKLOAD_TRACE"] != "off"
        self.REQUESTS = tuple(dict(r) for r in (trace_workload.trace_for(values) if recorded else trace_for(values)))
        if self.FOLLOW not in {r["id"] for r in self.REQUESTS}:
            self.FOLLOW = self.REQUESTS[0]["id"]

    @classmethod
    def from_values(cls, values: dict) -> "Config":
        """Build from a partial {NAME: value} mapping; raises ConfigError listing every problem."""
        wrong = problems.name_problems(values)
        if not isinstance(values, dict):
            raise ConfigError(wrong)
        if values.get("CLOCK") == "roofline":             # the roofline clock's own defaults (schema.py)
            values = {**{f.name: f.roofline_default for f in FIELDS if f.roofline_default is not None}, **values}
        try:
            config = cls(**{k: v for k, v in values.items() if k in FIELD_BY_NAME})
        except ConfigError as exc:
            raise ConfigError(wrong + exc.problems) from None
        if wrong:
            raise ConfigError(wrong)
        return config

    def to_values(self) -> dict:
        return {f.name: getattr(self, f.name) for f in FIELDS}

    def to_dict(self) -> dict:
        d = self.to_values()
        d["REQUESTS"] = [dict(r) for r in self.REQUESTS]
        return d
