"""The lab's tunable constants, written once: name, type, seed default, bounds and group.

Every constant at the top of the seed program (`inference-end-to-end.py`) is a `Field` here, with the
seed's default, its bounds and a group; `REQUEST_FIELDS` are the columns of the request trace (REQUESTS).
The page builds its controls from `describe()` (with words/text_schema.py's labels), the command line
builds its flags from `FIELDS`, config.py's `Config` has one attribute per Field: a name, default or
bound is written exactly once.

    >>> FIELD_BY_NAME["TOKEN_BUDGET"].flag, FIELD_BY_NAME["TOKEN_BUDGET"].default
    ('--token-budget', 6)

Bounds are chosen for runs that stay fast: an explicit REQUESTS trace holds at most 12 requests of 80
characters, a generated one (WORKLOAD_REQUESTS, workload.py) up to 1,000 of up to 32,768-token prompts (the
lab's model computes a prompt of more than 8,192 tokens as its stand-in: model.stand_in_skip); MAX_CONTEXT
reaches the longest shadow model's context (131,072, Llama 3.1), and under CLOCK = roofline at most SHADOW_MODEL's
(config.py `_check_context`); its default "auto" is the seed's 24, or a recorded trace's longest request (context.py);
SLOTS ≤ 256, QUEUE_LIMIT ≤ 1,024, TOKEN_BUDGET ≤ 16,384. The seed's defaults run in well under a second; the
issue's scale case (64 requests × 2,048-token prompts × 128 tokens) in a few seconds (bench/workload_scale.py).

Leaves out: the labels and help a student reads (words/schema_vi.py, schema_en.py, keyed by name),
checking values against the schema and the Config object (config.py), and the model's sizes (d_model 8, 2 heads of 4,
FFN 16), fixed as in the seed, in `model.py`.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from ..clock.hardware import GPU_MEMORY_UTILIZATION, GPUS, MODELS
from ..clock.parallel import TP_CHOICES
from ..clock.profiles import PROFILES

MAX_REQUESTS = 12
MAX_TEXT_CHARS = 80
MAX_WORKLOAD = 1000                 # generated requests (workload.py) are not limited by REQUESTS' 12 rows
# a recorded trace read from a file (WORKLOAD_TRACE = FILE.csv, the command line only) may play more: the whole
# hour of the Azure conversation trace is 19,366 requests; cli.py lets only --sweep and --search run more than
# MAX_WORKLOAD (their points are timing-only: replay.timing_only), the page keeps MAX_WORKLOAD
MAX_TRACE_REQUESTS = 100_000

DEFAULT_REQUESTS = (
    dict(id="A", arrival=0, text="xin chao model", max_new=10, temperature=0.0, top_k=0, top_p=1.0, seed=1),
    dict(id="B", arrival=0, text="model hoc token", max_new=7, temperature=0.8, top_k=4, top_p=0.9, seed=2),
    dict(id="E", arrival=500, text="xin chao ban", max_new=30, temperature=0.0, top_k=0, top_p=1.0, seed=3),
    dict(id="C", arrival=1000, text="ban hoc model", max_new=8, temperature=0.8, top_k=5, top_p=0.9, seed=4),
    dict(id="D", arrival=1500, text="xin chao token", max_new=5, temperature=0.0, top_k=0, top_p=1.0, seed=5),
)


@dataclass(frozen=True, slots=True)
class Field:
    """One tunable constant: name as in the seed, type, default, bounds (its words: words/schema_vi.py, _en.py)."""
    name: str
    type: str                      # "int" | "float" | "choice" | "requests"
    default: object
    group: str                     # "headline" | "requests" | "advanced"
    min: float | None = None
    max: float | None = None
    step: float | None = None
    # a "choice" field's fixed values (FOLLOW's come from the trace instead); an int's allowed values
    choices: tuple | None = None
    # also takes the word "auto" (MAX_CONTEXT: the seed's 24, or a recorded trace's longest request, context.py;
    # POOL_BLOCKS: sized as vLLM does, config.auto_pool_blocks; FLOPS_FRACTION,
    # BANDWIDTH_FRACTION, STEP_OVERHEAD: from ENGINE_PROFILE, config.resolve_profile; GPU_PRICE_PER_HOUR: the GPU's
    # list price, hardware.PRICES)
    auto: bool = False
    roofline_default: object = None   # the default under CLOCK = roofline, when it differs from the seed's

    @property
    def is_switch(self) -> bool:
        """An off/on choice: the command line also takes the bare flag for "on" (--prefix-cache)."""
        return self.choices == ("off", "on")

    @property
    def flag(self) -> str:
        return "--" + self.name.lower().replace("_", "-")

    def describe(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
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
    min: float | None = None
    max: float | None = None
    pattern: str | None = None     # a regular expression the whole value must match (JS and Python syntax)
    optional: bool = False         # may be left out (or null): the seed's trace has no such column


ID_PATTERN = r"^[A-Za-z0-9]{1,8}$"
_I = "int"
# Under CLOCK = roofline, tokenizing costs 1 µs per token: Hugging Face's Rust `tokenizers` (its README) takes
# "less than 20 seconds to tokenize a GB of text on a server's CPU", well under 1 µs per token even on one
# thread; the seed's 50 µs would dwarf a real step. COST_GATEWAY keeps the seed's 200 µs (assumed).
TOKENIZE_US_ROOFLINE = 1
# TTFT_SLO under CLOCK = roofline: 250 ms, DistServe's chatbot SLO (Zhong et al., OSDI 2024, Table 1: TTFT 0.25 s,
# TPOT 0.1 s for OPT-13B on ShareGPT chats, the size nearest the default Llama-3.1-8B; 2.5 s for OPT-66B); MLPerf
# Inference's server scenario for Llama-2-70B allows 2 s (loadgen/mlperf.conf: ttft_latency = 2000, tpot_latency
# = 200). The seed clock's 8,000 µs is an assumed figure of its own microseconds: under the roofline a
# 1,020-token chat prompt (the Azure conversation trace's median) alone takes longer, and every request would
# miss it. TPOT_SLO under CLOCK = roofline: 50 ms per output token (about 20 tokens/s, faster than people read;
# tighter than DistServe's 100 ms); the seed clock's 2,000 µs is twice its decode step (COST_DECODE_FIXED + 10
# sequences).
TTFT_US_ROOFLINE = 250_000
TPOT_US_ROOFLINE = 50_000
MAX_REPLICAS = 8
MAX_MODEL_CONTEXT = max(m.context for m in MODELS.values())     # 131,072 (Llama 3.1's max_position_embeddings)
SEED_MAX_CONTEXT = 24           # the seed's MAX_CONTEXT: MAX_CONTEXT = auto without a recorded trace (context.py)
FIELDS: tuple[Field, ...] = (
    Field("SLOTS", _I, 2, "headline", 1, 256),
    Field("QUEUE_LIMIT", _I, 1, "headline", 0, 1024),
    Field("TOKEN_BUDGET", _I, 6, "headline", 1, 16384),
    Field("BLOCK_SIZE", _I, 4, "headline", 1, 64),
    Field("POOL_BLOCKS", _I, 12, "headline", 1, 65536, auto=True, roofline_default="auto"),
    Field("QUANT_BITS", _I, 8, "headline", 2, 8),
    Field("FOLLOW", "choice", "C", "headline"),
    Field("REQUESTS", "requests", DEFAULT_REQUESTS, "requests"),
    Field("MAX_CONTEXT", _I, "auto", "advanced", 2, MAX_MODEL_CONTEXT, auto=True),
    Field("TTFT_SLO", _I, 8000, "advanced", 0, 100_000_000, roofline_default=TTFT_US_ROOFLINE),
    Field("QUALITY_GATE", "float", 0.95, "advanced", 0.0, 1.0, 0.01),
    Field("SEED", _I, 7, "advanced", 0, 2**31 - 1),
    Field("N_MERGES", _I, 10, "advanced", 0, 100),
    Field("COST_GATEWAY", _I, 200, "advanced", 0, 10_000_000),
    Field("COST_TOKENIZE_PER_TOKEN", _I, 50, "advanced", 0, 1_000_000, roofline_default=TOKENIZE_US_ROOFLINE),
    Field("COST_DECODE_FIXED", _I, 1000, "advanced", 0, 10_000_000),
    Field("COST_DECODE_PER_SEQ", _I, 100, "advanced", 0, 1_000_000),
    Field("COST_PREFILL_FIXED", _I, 500, "advanced", 0, 10_000_000),
    Field("COST_PREFILL_PER_TOKEN", _I, 400, "advanced", 0, 1_000_000),
    Field("PREFIX_CACHE", "choice", "off", "advanced", choices=("off", "on")),
    Field("SCHED_POLICY", "choice", "fcfs", "advanced", choices=("fcfs", "priority")),
    Field("BYTE_FALLBACK", "choice", "off", "advanced", choices=("off", "on")),
    # ── the roofline clock (roofline.py; GPUs and model shapes in hardware.py) ──
    Field("CLOCK", "choice", "seed", "advanced", choices=("seed", "roofline")),
    Field("GPU", "choice", "H100-SXM5-80GB", "advanced", choices=tuple(GPUS)),
    Field("SHADOW_MODEL", "choice", "Llama-3.1-8B", "advanced", choices=tuple(MODELS)),
    Field("WEIGHT_BITS", _I, 16, "advanced", 4, 16, choices=(16, 8, 4)),
    Field("KV_BITS", _I, 16, "advanced", 8, 16, choices=(16, 8)),
    Field("ACT_BITS", _I, 16, "advanced", 8, 16, choices=(16, 8)),
    Field("TENSOR_PARALLEL", _I, 1, "advanced", 1, 8, choices=TP_CHOICES),
    Field("GPU_MEMORY_UTILIZATION", "float", GPU_MEMORY_UTILIZATION, "advanced", 0.1, 1.0, 0.01),
    Field("ENGINE_PROFILE", "choice", "vllm", "advanced", choices=tuple(PROFILES)),
    Field("FLOPS_FRACTION", "float", "auto", "advanced", 0.01, 1.0, 0.01, auto=True),
    Field("BANDWIDTH_FRACTION", "float", "auto", "advanced", 0.01, 1.0, 0.01, auto=True),
    Field("STEP_OVERHEAD", _I, "auto", "advanced", 0, 1_000_000, auto=True),
    # US$ per GPU-hour (economics.py): auto = the GPU's list price (hardware.PRICES)
    Field("GPU_PRICE_PER_HOUR", "float", "auto", "advanced", 0.0, 1000.0, 0.01, auto=True),
    # ── speculative decoding (speculative.py proposes, rejection_sampler.py accepts; off = the seed) ──
    Field("SPEC_METHOD", "choice", "off", "advanced", choices=("off", "ngram", "draft")),
    Field("SPEC_TOKENS", _I, 3, "advanced", 1, 8),
    # ── a generated workload (workload.py): replaces REQUESTS when WORKLOAD_REQUESTS > 0 ──
    Field("WORKLOAD_REQUESTS", _I, 0, "advanced", 0, MAX_WORKLOAD),
    Field("WORKLOAD_PROMPT", _I, 16, "advanced", 2, 32768),
    Field("WORKLOAD_OUTPUT", _I, 8, "advanced", 1, 8192),
    Field("IGNORE_EOS", "choice", "off", "advanced", choices=("off", "on")),
    Field("WORKLOAD_RATE", "float", 0.0, "advanced", 0.0, 1_000_000.0, 0.1),
    Field("WORKLOAD_SEED", _I, 0, "advanced", 0, 2**31 - 1 - MAX_WORKLOAD),
    Field("WORKLOAD_PREFIXES", _I, 0, "advanced", 0, MAX_WORKLOAD),
    Field("WORKLOAD_SHARED", _I, 8, "advanced", 1, 8192),
    # ── a recorded workload (trace_workload.py): a real trace's arrivals and lengths instead of the generator's ──
    Field("WORKLOAD_TRACE", "choice", "off", "advanced", choices=("off", "azure-conv", "azure-code")),
    Field("WORKLOAD_TRACE_START", "float", 0.0, "advanced", 0.0, 100_000.0, 1.0),
    Field("WORKLOAD_TRACE_DURATION", "float", 0.0, "advanced", 0.0, 100_000.0, 1.0),
    Field("WORKLOAD_TIME_SCALE", "float", 1.0, "advanced", 0.01, 1000.0, 0.1),
    # ── the cluster: replicas, router, disaggregation and goodput (router.py, cluster.py, goodput.py) ──
    Field("REPLICAS", _I, 1, "advanced", 1, MAX_REPLICAS),
    Field("ROUTER", "choice", "round_robin", "advanced", choices=("round_robin", "least_loaded", "prefix_aware")),
    Field("DISAGG", "choice", "off", "advanced", choices=("off", "on")),
    Field("PREFILL_REPLICAS", _I, 1, "advanced", 1, MAX_REPLICAS - 1),
    Field("KV_LINK_GBPS", "float", 50.0, "advanced", 0.1, 1000.0, 0.1),
    Field("KV_LINK_LATENCY_US", _I, 200, "advanced", 0, 1_000_000),
    Field("TPOT_SLO", _I, 2000, "advanced", 0, 100_000_000, roofline_default=TPOT_US_ROOFLINE),
)
FIELD_BY_NAME = {f.name: f for f in FIELDS}

PRIORITY_LIMIT = 10**9          # priority takes any integer in -10**9..10**9 (vLLM's is any int; lower runs first)

REQUEST_FIELDS: tuple[RequestField, ...] = (
    RequestField("id", "str", pattern=ID_PATTERN),
    RequestField("arrival", "int", 0, 100_000_000),
    RequestField("text", "str", 1, MAX_TEXT_CHARS),
    RequestField("max_new", "int", 1, 256),
    RequestField("temperature", "float", 0.0, 5.0),
    RequestField("top_k", "int", 0, 64),
    RequestField("top_p", "float", 0.001, 1.0),
    RequestField("seed", "int", 0, 2**31 - 1),
    RequestField("priority", "int", -PRIORITY_LIMIT, PRIORITY_LIMIT, optional=True),
    RequestField("cancel_at", "int", 0, 100_000_000, optional=True),
)


def describe() -> list[dict]:
    """The schema as plain JSON-able dicts, without words (words/text_schema.py adds the labels and help)."""
    out = [f.describe() for f in FIELDS]
    for d in out:
        if d["name"] == "FOLLOW":
            d["choices"] = [r["id"] for r in DEFAULT_REQUESTS]
        if d["name"] == "REQUESTS":
            d["columns"] = [{f.name: getattr(c, f.name) for f in fields(c)} for c in REQUEST_FIELDS]
            d["max_items"] = MAX_REQUESTS
    return out

