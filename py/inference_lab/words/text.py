"""The lab's printed text in any language: which sentences the header, the 13 blocks and the summary say.

`bind(w)` gives (BLOCKS, header_lines, summary_lines) worded by one language's `Words` (text_vi.WORDS,
text_en.WORDS): `BLOCKS[n](data, ctx)` returns block n's (title, lines) from the block's facts
(plain data gathered by lab.py) and the run's `Context`. The blocks' renderers live by theme:
text_intake.py ([1]-[3]), text_compute.py ([4]-[8]), text_measure.py ([9]-[13]); the reasons several
of them give (why a request was refused) in reasons.py. Every sentence is a template of the language
module, looked up by key and filled with `w(key, **fields)` (templates.py: the format specs), so the
two editions say the same facts, in the same order, by construction; text_vi.py and text_en.py hold
words only.

Formatting is pure: nothing here changes the data, context or checks it is given.

Leaves out: the words (text_vi.py, text_en.py), all computation of the facts (lab.py) and the step
narration (text_steps.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from .blocks import BLOCKS as BLOCK_TABLE
from .reasons import how_to_follow, refusal, why  # noqa: F401  (text_steps.py and the tests use why from here)
from .limits import is_cluster
from .templates import FORMAT, Words  # noqa: F401  (the language modules and the tests use them from here)
from .text_compute import block4, block5, block6, block7, block8
from .text_intake import block1, block2, block3
from .text_measure import block9, block10, block11, block12, block13
from .text_notes import notes as run_notes
from .text_spec import header_part as spec_header

BLOCK_CODES = {b.number: b.code for b in BLOCK_TABLE}  # "1 · Gateway & admission", from blocks.py


@dataclass(slots=True)
class Context:
    cfg: dict                       # report.config: the run's constants (their one place in a report)
    follow: dict
    follow_metrics: dict | None
    cluster: dict | None = None     # report.cluster (cluster_data.py): replicas, router, disagg, goodput
    seed: bool = True   # limits.seed_identical: the seed's bytes (and notes beside them), else the lab's words
    record: dict | None = None      # the bare run log (lab.bare_record): which steps a request waited in, and for what


# ── header ─────────────────────────────────────────────────────────────────
def request_line(w, r, follow) -> str:
    mode = w("header.greedy") if r["temperature"] == 0 else w("header.sampling", r=r)
    mark = w("header.followed") if r["id"] == follow else ""
    extra = f", priority {r['priority']}" if r.get("priority") is not None else ""
    extra += w("header.cancels", r=r) if r.get("cancel_at") is not None else ""
    return w("header.request", r=r, mode=mode, extra=extra, mark=mark)


def vllm_line(w, cfg) -> list[str]:
    """The header's line about the vLLM behaviours switched on (none by default)."""
    parts = []
    if cfg["PREFIX_CACHE"] == "on":
        parts.append(w("header.prefix_cache", docs=w.docs))
    if cfg["SCHED_POLICY"] == "priority":
        parts.append(w("header.priority", docs=w.docs))
    parts += spec_header(w, cfg)
    return [f"VLLM: {'; '.join(parts)}."] if parts else []


def workload_lines(w, cfg, d=None) -> list[str]:
    """A generated trace (WORKLOAD_REQUESTS > 0): the real count and one line for all its requests (their
    prompts are too long to print one by one)."""
    reqs = cfg["REQUESTS"]
    if cfg.get("WORKLOAD_TRACE", "off") != "off":
        n_cut = (d or {}).get("clipped", 0)
        cut = w("header.trace_clipped", cfg=cfg, n=n_cut, of=len(reqs), longest=cfg["MAX_CONTEXT"] - 1) if n_cut else ""
        return [w("header.input_trace_to", cfg=cfg, n=len(reqs), dest=destination(w, cfg)),
                w("header.workload_trace", cfg=cfg, first=reqs[0]["id"], last=reqs[-1]["id"],
                  last_arrival=reqs[-1]["arrival"]) + cut]
    arrivals = (w("header.workload_poisson", cfg=cfg, last_arrival=reqs[-1]["arrival"]) if cfg["WORKLOAD_RATE"] > 0
                else w("header.workload_at_once"))
    prefixes = w("header.workload_prefixes", cfg=cfg) if cfg["WORKLOAD_PREFIXES"] else ""
    return [w("header.input_workload_to", cfg=cfg, n=len(reqs), dest=destination(w, cfg)),
            w("header.workload", cfg=cfg, first=reqs[0]["id"], last=reqs[-1]["id"], arrivals=arrivals,
              prefixes=prefixes)]


def destination(w, cfg) -> str:
    """Where the requests go: "one engine", or the router and its replicas (REPLICAS > 1 or DISAGG = on)."""
    if not is_cluster(cfg):
        return w("header.one_engine")
    return w("header.to_cluster", cfg=cfg)


def input_line(w, cfg, seed: bool) -> str:
    """INPUT: the seed's fixed "5 requests … one engine" in a seed-identical run; the run's own count and
    destination elsewhere."""
    if seed:
        return w("header.input", cfg=cfg)
    return w("header.input_to", cfg=cfg, n=len(cfg["REQUESTS"]), dest=destination(w, cfg))


def cluster_line(w, cfg) -> list[str]:
    """The header's line saying the CONFIG line is per replica, and what runs where (cluster runs only)."""
    if not is_cluster(cfg):
        return []
    roles = (w("header.disagg", cfg=cfg, decode=cfg["REPLICAS"] - cfg["PREFILL_REPLICAS"]) if cfg.get("DISAGG") == "on"
             else "")
    return [w("header.cluster", cfg=cfg, roles=roles)]


def simulated_line(w, cfg, cancels: bool, seed: bool) -> str:
    """NOTE: what is not simulated. The seed's sentence in a seed-identical run (which has no cancel_at: a note beside
    it says that cancellation is simulated); elsewhere the truth: routing is simulated on a cluster, cancellation
    always is (the cancel_at column), authentication never."""
    if seed:
        return w("header.note") + w("header.nothing_simulated")
    routing = w("header.routing_simulated", cfg=cfg) if is_cluster(cfg) else w("header.no_routing")
    cancel = w("header.cancel_used" if cancels else "header.cancel_unused")
    return w("header.note") + w("header.simulated", routing=routing, cancel=cancel)


def context_auto(w, d, cfg) -> str:
    """MAX_CONTEXT = auto with a recorded trace: what set it (header_data's max_context_auto, context.max_context),
    "" in every other run (the seed's bytes)."""
    fit = (d or {}).get("max_context_auto")
    return w(f"header.context_auto.{fit['by']}", cfg=cfg, longest=fit["longest"], blocks=fit["blocks"]) if fit else ""


def header_lines(w, d, cfg, seed: bool = True) -> list[str]:
    """The lines before block [1]: the run's constants (`cfg`, report.config) and the model's sizes (`d`); `seed`
    (Context.seed) False: the lab's own lines where the seed's are false, and vLLM's names as a line of the header."""
    cancels = any(r.get("cancel_at") is not None for r in cfg["REQUESTS"])
    trace = (workload_lines(w, cfg, d) if cfg.get("WORKLOAD_REQUESTS") else
             [input_line(w, cfg, seed), *[request_line(w, r, cfg["FOLLOW"]) for r in cfg["REQUESTS"]]])
    return [
        w("header.title"),
        w("header.goal"),
        *trace,
        w("header.config", cfg=cfg, auto=context_auto(w, d, cfg)),
        *cluster_line(w, cfg),
        *vllm_line(w, cfg),
        *([] if seed else [w("header.vllm_names")]),
        w("header.model", d=d, cfg=cfg),
        w("header.clock_roofline", cfg=cfg, act=w("header.act_bits", cfg=cfg) if cfg.get("ACT_BITS", 16) != 16 else "")
        if cfg.get("CLOCK") == "roofline" else w("header.clock"),
        *([w("header.clock_tp", cfg=cfg, gpus=cfg.get("REPLICAS", 1) * cfg["TENSOR_PARALLEL"])]
          if cfg.get("CLOCK") == "roofline" and cfg.get("TENSOR_PARALLEL", 1) > 1 else []),
        w("header.how_to_read" if seed else "header.how_to_read_lab"),
        simulated_line(w, cfg, cancels, seed),
        "",
    ]



BLOCKS = {1: block1, 2: block2, 3: block3, 4: block4, 5: block5, 6: block6, 7: block7, 8: block8, 9: block9,
          10: block10, 11: block11, 12: block12, 13: block13}


# ── summary ────────────────────────────────────────────────────────────────
def stand_in_note(w, ctx, checks) -> list[str]:
    fl = ctx.follow
    if fl["served"]:
        return []
    fate = w("summary.cancelled" if fl.get("code") == "aborted" else "summary.rejected")
    used = sorted({c.detail for c in checks if c.detail and c.detail != "skipped"})
    if not used:
        return [w("summary.note_nobody", fl=fl, fate=fate)]
    return [w("summary.note_stand_in", fl=fl, fate=fate, used=", ".join(used))]


def tokens_line(w, ctx) -> str:
    """Summary line 2. "(tokens and logits compared)" is true where block [12] ran the model under all three policies;
    a generated workload's other policies replay this run's tokens (block [12] says so), so there only the logits
    were."""
    spec = ctx.cfg.get("SPEC_METHOD", "off") != "off"      # sampled draws may differ: only greedy tokens are the same
    if ctx.cfg.get("WORKLOAD_REQUESTS") and not spec:
        return w("summary.tokens_replayed")
    if spec:
        return w("summary.tokens_spec")
    return w("summary.tokens" if ctx.seed else "summary.tokens_lab")   # the lab's: batch invariance in the sentence


def summary_lines(w, ctx, checks) -> list[str]:
    fl, fm = ctx.follow, ctx.follow_metrics
    if fl["served"]:
        first = w("summary.followed" if ctx.seed else "summary.followed_lab", fl=fl, fm=fm)
    else:
        first = w("summary.not_followed", refusal=refusal(w, ctx), how=how_to_follow(w, ctx))
    lines = [w("summary.title"), first, tokens_line(w, ctx), w("summary.distributions"), w("summary.simulated"),
             *stand_in_note(w, ctx, checks)]
    failed = [c for c in checks if not c.ok]
    waiting = [c for c in checks if c.waiting]     # a deferred run (lab.run_deferred): its replays not played yet
    if failed:
        lines.append(w("summary.fail", labels="; ".join(w.checks[c.name] for c in failed)))
    if waiting:
        lines.append(w("later.checks", n=len(waiting), labels="; ".join(w.checks[c.name] for c in waiting)))
    elif not failed:
        spec = ctx.cfg.get("SPEC_METHOD", "off") != "off"     # sampled draws may differ: only greedy tokens match
        replayed = ctx.cfg.get("WORKLOAD_REQUESTS") and not spec  # block [12] replays this run's tokens: no check
        lines.append(w("summary.pass_spec" if spec else "summary.pass_replayed" if replayed else "summary.pass"))
    return lines


def notes(w, parts: dict, ctx, record: dict) -> dict:
    """{part: ["Ghi chú: …"]}: text_notes.notes, each note opened by the language's mark (the page and the CLI
    show them so)."""
    return {k: [w("note.mark") + n for n in v] for k, v in run_notes(w, parts, ctx, record).items()}


def shown(w, n: int, d: dict, ctx):
    """Block n's (title, lines); a deferred block (data["deferred"]: its replays not played yet, lab.run_deferred)
    says so in one line: block [12] (all comparison) only that, blocks [6] and [11] after their main-run lines."""
    if not d.get("deferred"):
        return BLOCKS[n](w, d, ctx)
    runs = ", ".join(["static", "nochunk"] + (["nocache"] if ctx.cfg.get("PREFIX_CACHE") == "on" else []))
    title, lines = (w(f"b{n}.title"), []) if n == 12 else BLOCKS[n](w, d, ctx)
    return title, [*lines, w(f"later.b{n}", runs=runs)]


def bind(w: Words) -> tuple[dict, partial, partial]:
    """(BLOCKS, header_lines, summary_lines) worded by `w`: the names lab.render calls on a language module."""
    return {n: partial(shown, w, n) for n in BLOCKS}, partial(header_lines, w), partial(summary_lines, w)
