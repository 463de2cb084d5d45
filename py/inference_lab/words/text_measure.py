"""Blocks [9]-[13] in words: what the run costs and how it is measured (weight precision, the HBM
budget, telemetry, the scheduling policies' benchmark, the quality gate).

Each `blockN(w, d, ctx)` takes one language's `Words`, the block's facts `d` (lab.py) and the run's
`Context` (text.py), and returns (title, lines).

Leaves out: the sentences (text_vi.py, text_en.py), every computation (lab.py, metrics.py) and the other
blocks (text_intake.py, text_compute.py).
"""
from __future__ import annotations

from .limits import ITEMS, ROW_LINES, STEP_LINES, capped, capped_lines, listed
from .text_notes import budget_who
from .text_cluster import disagg_lines, is_cluster, measure_lines
from .text_compute import shown_replica
from .reasons import unknown_text
from .text_spec import block13_lines, same_line
from .templates import ms


# ── [9] ────────────────────────────────────────────────────────────────────
def block9(w, d, ctx):
    fid = ctx.follow["id"]
    lines = [w("b9.quantize", d=d), w("b9.size", d=d, ratio=d["fp32_bytes"] / d["int_bytes"]), w("b9.error", d=d)]
    if d["probe"] == fid:
        lines.append(w("b9.logit_error", fid=fid, d=d))
    elif d["probe"] is not None:
        lines.append(w("b9.logit_error_other", fid=fid, d=d))
    if "kv" in d:
        lines += kv_cache_lines(w, d)
    lines += [w("b9.conclusion"), b9_limitation(w, ctx.cfg)]
    return w("b9.title", d=d), lines


def kv_cache_lines(w, d) -> list:
    """KV_BITS = 8: the FP8 KV cache's scales and its error on the probe prompt, next to the weights' (d["kv"],
    quantization.kv_cache_error)."""
    kv = d["kv"]
    scales = {name: "[" + ", ".join(f"{x:.5f}" for x in kv[name]) + "]" for name in ("k_scale", "v_scale")}
    return [w("b9.kv_cache", k=scales["k_scale"], v=scales["v_scale"]),
            w("b9.kv_error", d=d, kv=kv, attn=100 * kv["attn_rel"])]


def b9_limitation(w, cfg) -> str:
    """KV_BITS = 8 stores the lab's own KV cache as FP8 (kept in float64 like the INT weights) and, under the roofline
    clock, its bytes count at 1 per value; KV_BITS = 16 keeps the seed's sentence (no quantized cache in that run)."""
    if cfg.get("KV_BITS", 16) == 8:
        roofline = cfg.get("CLOCK") == "roofline"
        return w("b9.limitation_kv8") + (" " + w("b9.kv_roofline") if roofline else "")
    return w("b9.limitation")


# ── [10] ───────────────────────────────────────────────────────────────────
def block10(w, d, ctx):
    x = d["example"]
    GiB = 1024 ** 3
    real_seq = 2 * x["layers"] * x["ctx"] * x["kv_heads"] * x["head_dim"] * x["bytes"]
    hbm, weights = x["hbm_gib"] * GiB, x["weights_gib"] * GiB
    bpt = d["bytes_per_token"]
    return w("b10.title"), [
        *shown_replica(w, ctx),
        w("b10.lab", d=d, cfg=ctx.cfg, bpt=bpt),
        w("b10.per_token", d=d, bpt=bpt),
        w("b10.peak", d=d, kv=d["peak_used"] * ctx.cfg["BLOCK_SIZE"] * bpt,
          pct=100 * d["peak_used"] / ctx.cfg["POOL_BLOCKS"]),
        w("b10.formula"),
        *(shadow_lines(w, d["shadow"], ctx.cfg) + trust_lines(w, d["calibration"], ctx.cfg)
          if ctx.cfg.get("CLOCK") == "roofline" else [
            w("b10.example", x=x, real_seq=real_seq, gib=real_seq / GiB),
            w("b10.gpu", x=x, hbm=hbm // GiB, weights=weights // GiB, left=(hbm - weights) // GiB,
              seqs=(hbm - weights) // real_seq),
            w("b10.half", half=weights // 2 // GiB, left=(hbm - weights // 2) // GiB,
              seqs=(hbm - weights // 2) // real_seq)]),
        *([] if ctx.seed else [w("b10.vllm_memory")]),
        w("b10.conclusion"),
    ]


def shadow_lines(w, s, cfg) -> list[str]:
    """CLOCK = roofline: the named GPU and the shadow model instead of the hand-worked example (GB = 10^9 bytes);
    under TENSOR_PARALLEL > 1 each GPU's share of weights and KV heads and the group's room."""
    G = 1e9
    if s.get("tp", 1) > 1:
        return [w("b10.roof_gpu", s=s, hbm=s["hbm"] / G, usable=s["usable"] / G),
                w("b10.roof_weights_tp", s=s, cfg=cfg, weights=s["weights"] / G, share=s["weights_gpu"] / G,
                  reserve=s["reserve"] / G, left_gpu=s["room_gpu"] / G, left=s["room"] / G),
                w("b10.roof_kv_tp", s=s, cfg=cfg, full=s["per_token"] * s["kv_heads"] // (s["kv_heads_gpu"] * s["tp"])),
                pool_line(w, cfg)]
    return [w("b10.roof_gpu", s=s, hbm=s["hbm"] / G, usable=s["usable"] / G),
            w("b10.roof_weights", s=s, cfg=cfg, weights=s["weights"] / G, reserve=s["reserve"] / G, left=s["room"] / G),
            w("b10.roof_kv", s=s, cfg=cfg),
            pool_line(w, cfg)]


def pool_line(w, cfg) -> str:
    """POOL_BLOCKS = auto's cap as config.auto_pool_blocks computes it: requests × ⌈MAX_CONTEXT ÷ BLOCK_SIZE⌉ on one
    engine, min(requests, SLOTS) × ⌈MAX_CONTEXT ÷ BLOCK_SIZE⌉ per replica on a cluster (one replica never runs more
    than SLOTS sequences at once)."""
    per_seq, n = -(-cfg["MAX_CONTEXT"] // cfg["BLOCK_SIZE"]), len(cfg["REQUESTS"])
    if is_cluster(cfg):
        return w("b10.roof_pool_cluster", cfg=cfg, n=n, holders=min(n, cfg["SLOTS"]),
                 cap=min(n, cfg["SLOTS"]) * per_seq)
    return w("b10.roof_pool", cfg=cfg, n=n, cap=n * per_seq)


def trust_lines(w, c, cfg) -> list[str]:
    """CLOCK = roofline: how far to trust these milliseconds: the calibration table (core/clock/calibration.py)."""
    lines = [w("b10.trust", m=c["summary"], cfg=cfg, tol=c["tolerance"], goal=c["goal"])]
    for r in c["rows"]:
        fmt = (lambda v: f"{v:,.0f}") if float(r["published"]).is_integer() else (lambda v: f"{v:,.2f}")
        gpus = f"{r['tp']} x {r['gpu']}" if r.get("tp", 1) > 1 else r["gpu"]
        lines.append(w("b10.trust_row", r=r, gpus=gpus, what=w("b10.kind_" + r["kind"]), pub=fmt(r["published"]),
                       lab=fmt(r["lab"]), ratio=f"{r['ratio']:.2f}"))
    return lines + [w("b10.trust_limits")]


# ── [11] ───────────────────────────────────────────────────────────────────
def ttft_line(w, m, slo, lost, seed: bool = True) -> str:
    parts = [("b11.prep", m["prep"]), ("b11.queue" if seed else "b11.queue_lab", m["queue"]),
             ("b11.prefill", m["prefill"])]
    biggest = max(parts, key=lambda x: x[1])
    verdict = w("b11.misses" if m["ttft"] > slo else "b11.meets")
    line = w("b11.ttft", m=m, biggest=w(biggest[0]), verdict=verdict, slo=slo)
    if lost:
        line += w("b11.preempted", lost=lost)
    return line


def aborted_metrics_line(w, m) -> str:
    return w("b11.cancelled_before" if m["first"] is None else "b11.cancelled_after", m=m)


def ttft_saved_line(w, rows, seed: bool) -> str:
    changed = [r for r in rows if r["saved"] or r["cached_tokens"]]
    if not changed:
        return w("b11.unchanged")
    parts = [w("b11.saved_row", r=r,
               saved=w("b11.saves", t=r["saved"]) if r["saved"] >= 0 else w("b11.slower", t=-r["saved"]))
             for r in changed]
    return w("b11.saved") + listed(w, parts, ITEMS // 2, seed, "; ") + "."


def block11(w, d, ctx):
    cfg = ctx.cfg
    cluster = bool(ctx.cluster) and is_cluster(cfg)
    spec = spec_on(cfg)
    lines = [w("b11.legend") + (w("b11.legend_spec") if spec else "")]

    def row(i, st):
        mark = f" | preempt {', '.join(st['preempted'])}" if st["preempted"] else ""
        if spec:          # speculation: the decode column counts the verified proposals too (1 + k each)
            st = dict(st, decode=f"{st['decode']}+{sum(st['proposed'].values())}" if st.get("proposed")
                      else st["decode"])
        return w("b11.step_replica" if "replica" in st else "b11.step", i=i + 1, st=st, cfg=cfg,
                 dur=st["end"] - st["start"], pct=100 * st["kv_used"] / cfg["POOL_BLOCKS"], mark=mark)
    lines += capped_lines(w, d["steps"], row, STEP_LINES, "lim.more_steps", ctx.seed)
    lines.append(w("b11.breakdown_replica" if cluster else "b11.breakdown" if ctx.seed else "b11.breakdown_lab"))
    served = [m for m in d["requests"] if m["status"] == "finished"]
    lines += capped(w, [ttft_line(w, m, cfg["TTFT_SLO"], d["preempted_at"].get(m["id"]), ctx.seed) + replica_mark(w, m)
                        for m in served], ROW_LINES, "lim.more_rows", ctx.seed)
    if not served:
        lines.append(w("b11.none_served"))
    lines += capped(w, [aborted_metrics_line(w, m) for m in d["requests"] if m["status"] == "aborted"], ROW_LINES,
                    "lim.more_rows", ctx.seed)
    if "ttft_saved" in d:
        lines.append(ttft_saved_line(w, d["ttft_saved"], ctx.seed))
    if not ctx.seed:            # the notes' facts, as sentences of the block
        lines += budget_lines(w, ctx, [m["id"] for m in served]) + [w("b11.vllm_metrics")]
    if cluster:
        lines += measure_lines(w, ctx)
    if "distributions" in d:      # a recorded trace (WORKLOAD_TRACE): its tails and bursts against the generator's
        lines += distribution_lines(w, d["distributions"])
    lines.append(w("b11.conclusion"))
    lines.append(w("b11.limitation") if ctx.seed else limitation_line(w, len(served)))
    return w("b11.title"), lines


def distribution_lines(w, d) -> list[str]:
    """A recorded trace's prompt and output lengths and gaps between arrivals against the generator's with the same
    means (trace_workload.distributions): percentiles, the coefficient of variation, the busiest second."""
    t, g = d["trace"], d["generator"]
    lines = [w("b11.dist_head", d=d)]
    for key, what in (("prompt", "b11.dist_prompt"), ("output", "b11.dist_output")):
        ratio = t[key]["p99"] / t[key]["mean"] if t[key]["mean"] else 0.0
        lines.append(w("b11.dist_len", what=w(what), t=t[key], g=g[key], ratio=ratio))
    return lines + [w("b11.dist_gap", t=t["gap"], g=g["gap"]), w("b11.dist_lesson", g=g, rate=round(d["rate"], 2))]


def budget_lines(w, ctx, ids) -> list[str]:
    """The served requests that waited for the token budget, not for a slot (steps named; [] when none did)."""
    who = budget_who(w, ctx.record, ids) if ctx.record else ""
    return [w("b11.wait_budget", who=who)] if who else []


def replica_mark(w, m) -> str:
    """" | replica 2" (or " | prefill 0 → decode 1") after a request's TTFT line on a cluster; "" on one engine."""
    if "decode_replica" in m:
        return w("b11.on_replicas", m=m)
    if "replica" in m or "prefill_replica" in m:
        return w("b11.on_replica", r=m.get("replica", m.get("prefill_replica")))
    return ""


def limitation_line(w, n: int) -> str:
    """Block [11]'s limitation with the run's own count of served requests (the seed's line says 3)."""
    if n < 100:
        return w("b11.limitation_n", n=n)
    return w("b11.limitation_many", n=n)


# ── [12] ───────────────────────────────────────────────────────────────────
def spec_on(cfg) -> bool:
    return cfg.get("SPEC_METHOD", "off") != "off"


def opt_ms(v) -> str:
    return ms(v) if v is not None else "n/a"


def policy_name(w, name, cfg):
    return w.policies.get(name) or w("b12.chunked", cfg=cfg)


def policy_line(w, p, cfg) -> str:
    name = policy_name(w, p["policy"], cfg)
    if not p["served"]:
        return w("b12.policy_none", name=name)
    line = w("b12.policy", name=name, p=p, tpot=opt_ms(p["mean_tpot"]))
    return line + (w("b12.preemptions", p=p) if p["preemptions"] else "")


def reading_line(w, policies, cfg, seed: bool = True) -> str:
    by = {p["policy"]: p for p in policies}
    nochunk, chunked = by["nochunk"], by["chunked"]
    if cfg.get("DISAGG") == "on":       # no prompt chunk shares a decode replica's step: the gap is a hand-off
        return w("b12.reading_disagg")
    if spec_on(cfg) and nochunk["served"] and chunked["served"] and nochunk["worst_gap"] <= 1.05 * chunked["worst_gap"]:
        return w("b12.reading_spec", nochunk=nochunk, chunked=chunked)  # the longest gap is a verify step, not a prompt
    shorter = 1.0 if seed else 1.05    # the lab's runs: a stall shorter by 0.01 ms (3.16 vs 3.15) is no trade
    if (nochunk["served"] and chunked["served"] and nochunk["mean_ttft"] < chunked["mean_ttft"]
            and nochunk["worst_gap"] > shorter * chunked["worst_gap"]):
        return w("b12.reading", nochunk=nochunk, chunked=chunked)
    return w("b12.reading_other")


def prompts_split(record) -> bool:
    """Some prompt of this run ran in more than one chunk (a chunk that left part of its prompt for a later step)."""
    return any(e["kind"] == "chunk" and e["done"] < e["total"] and not e["recompute"]
               for it in record["items"] for e in it["events"])


def roofline_why(w, d, cfg, record=None) -> list[str]:
    """CLOCK = roofline: why the fastest policy wins, with the run's numbers (a mixed step reads the weights
    once; every memory-bound step reads them again). `record`: the run's (continuous + chunked) run log, to tell
    whether a tie between the continuous policies came with split prompts."""
    by = {p["policy"]: p for p in d["policies"]}
    if not all(p["served"] for p in by.values()):
        return []
    static, nochunk, chunked = by["static"], by["nochunk"], by["chunked"]
    lines = []
    mixed = next((p for p in (chunked, nochunk) if p["mixed"] and p["decode_us"] is not None), None)
    if mixed:
        slow = mixed["mixed_us"] > 1.1 * mixed["decode_us"]     # the prompt tokens made the mixed step compute-bound
        key = "b12.roofline_mixed_draft" if cfg.get("SPEC_METHOD") == "draft" else (
            "b12.roofline_mixed_compute" if slow else "b12.roofline_mixed")
        lines.append(w(key, mixed_us=mixed["mixed_us"], decode_us=mixed["decode_us"],
                       gb=d["weights_read"] / 1e9, static=static, nochunk=nochunk, chunked=chunked))
    best = min(by.values(), key=lambda p: p["span"])["span"]
    names = dict(budget=cfg["TOKEN_BUDGET"], static=static, nochunk=nochunk, chunked=chunked)
    if is_cluster(cfg):         # steps added over replicas that run side by side rank nothing
        first = min(by.values(), key=lambda p: p["span"])
        lines.append(w("b12.roofline_best_cluster", p=first, name=policy_name(w, first["policy"], cfg).strip()))
    elif static["span"] == best and min(nochunk["span"], chunked["span"]) > best:
        lines.append(w("b12.roofline_best_static", **names))
    elif chunked["span"] == nochunk["span"]:
        split = record is None or prompts_split(record)
        lines.append(w("b12.roofline_best_tie_split" if split else "b12.roofline_best_tie", **names))
    elif chunked["span"] < nochunk["span"]:
        other = min((static, nochunk), key=lambda p: p["span"])
        key = "b12.roofline_best_chunked" if chunked["steps"] < other["steps"] else "b12.roofline_best_chunked_bound"
        lines.append(w(key, other=other, other_name=policy_name(w, other["policy"], cfg).strip(), **names))
    else:
        lines.append(w("b12.roofline_best_nochunk", extra=chunked["steps"] - nochunk["steps"], **names))
    return lines


def block12(w, d, ctx):
    lines = [w("b12.definitions"), w("b12.per_request")]
    lines += capped(w, [w("b12.request", m=m, tpot=opt_ms(m["tpot"])) for m in d["per"]], ROW_LINES, "lim.more_rows",
                    ctx.seed)
    lines.append(same_line(w, d))
    if d.get("replayed"):
        lines.append(w("b12.replayed", n=ctx.cfg["WORKLOAD_REQUESTS"]))
    lines.append(w("b12.baseline"))
    lines.append(w("b12.legend" if ctx.seed else "b12.legend_lab"))
    lines += [policy_line(w, p, ctx.cfg) for p in d["policies"]]
    lines.append(reading_line(w, d["policies"], ctx.cfg, ctx.seed))
    roofline = ctx.cfg.get("CLOCK") == "roofline"
    if roofline:
        parts = "; ".join(w("b12.roofline_policy", name=policy_name(w, p["policy"], ctx.cfg).strip(), p=p)
                          for p in d["policies"] if p["served"])
        all_memory = all(p["memory_bound"] == p["steps"] for p in d["policies"] if p["served"])
        key = "b12.roofline_steps" if all_memory else "b12.roofline_steps_mixed"
        lines.append(w(key + "_cluster" if is_cluster(ctx.cfg) and all_memory else key, parts=parts))
        lines += roofline_why(w, d, ctx.cfg, ctx.record) + economics_lines(w, d, ctx.cfg)
    if not ctx.seed:            # the notes' facts, as sentences of the block
        greedy = d.get("same_scope") == "greedy"      # speculation: sampled tokens may differ, so greedy ones only
        key = ("b12.batch_invariance_greedy" if greedy else
               "b12.batch_invariance_replayed" if d.get("replayed") else "b12.batch_invariance")
        lines += [w(key), *mixed_step_lines(w, ctx, d)]
    lines.append(conclusion_line(w, d, ctx, roofline))
    lines += disagg_lines(w, d, ctx)
    lines.append(w("b12.benchmark"))
    return w("b12.title"), lines


def economics_lines(w, d, cfg) -> list[str]:
    """The main run's cost and energy (economics.py; CLOCK=roofline with a finished request)."""
    e = d.get("economics")
    if not e:
        return []
    return [w("b12.cost", e=e, gpu=cfg["GPU"], span=e["span"] / 1e6, total=e["output_tokens"] + e["input_tokens"]),
            w("b12.energy", e=e, busy=e["busy_utilisation"] * 100, util=e["utilisation"] * 100)]


def mixed_step_lines(w, ctx, d) -> list[str]:
    """Under the seed clock with both fixed costs: a mixed step is charged twice (the followed run's mixed steps)."""
    cfg, mixed = ctx.cfg, d.get("mixed", [])
    if not mixed or cfg.get("CLOCK") == "roofline" or not (cfg["COST_PREFILL_FIXED"] and cfg["COST_DECODE_FIXED"]):
        return []
    return [w("b12.mixed_step", steps=listed(w, list(map(str, mixed)), ITEMS, False), pre=cfg["COST_PREFILL_FIXED"],
              dec=cfg["COST_DECODE_FIXED"])]


def conclusion_line(w, d, ctx, roofline: bool) -> str:
    """Block [12]'s conclusion: the seed's "over 3 requests" where the seed's bytes hold (a note beside it gives the
    served count), the served count elsewhere."""
    cfg = ctx.cfg
    if ctx.seed:
        return w("b12.conclusion")
    n = len(d["per"])
    if roofline:
        gpu = w("b12.gpu_group" if cfg.get("TENSOR_PARALLEL", 1) > 1 else "b12.one_gpu", cfg=cfg)
        return w("b12.conclusion_roofline", gpu=gpu, model=cfg["SHADOW_MODEL"], n=n)
    return w("b12.conclusion_n", n=n)


# ── [13] ───────────────────────────────────────────────────────────────────
def kv_served_lines(w, served, ctx) -> list:
    """KV_BITS = 8: the requests whose served tokens differ from the same run with a 16-bit KV cache."""
    if not served["changed"]:
        return [w("b13.kv_served_same", d=served)]
    rows = [w("b13.kv_served_row", c=c, at=c["at"] + 1) for c in served["changed"]]
    return [w("b13.kv_served", d=served, n=len(served["changed"])),
            *capped(w, rows, ROW_LINES, "lim.more_rows", ctx.seed)]


def kv_gate_lines(w, kv, ctx) -> list:
    """KV_BITS = 8: the same gate with the FP8 KV cache (float weights): its rows, its total, then each flipped
    decision (or, with none, the closest call)."""
    t = kv["tight"]
    return [w("b13.kv_method"),
            *capped(w, [w("b13.row", r=r) for r in kv["rows"]], ROW_LINES, "lim.more_rows", ctx.seed),
            w("b13.kv_total", d=kv, same=kv["decisions"] - kv["flips"], pct=100 * kv["agreement"],
              gate=100 * kv["gate"], verdict=w("b13.pass" if kv["passed"] else "b13.fail")),
            *(capped(w, [w("b13.kv_flip", t=f, step=f["step"] + 1) for f in kv["flipped"]], ROW_LINES,
                     "lim.more_rows", ctx.seed) if kv["flipped"] else
              [w("b13.closest", t=t, step=t["step"] + 1, kept=w("b13.kept" if t["margin_q"] > 0 else "b13.changed"))])]


def block13(w, d, ctx):
    lines = [w("b13.method", d=d)]
    if d.get("last_row"):
        lines.append(w("b13.last_row", long=d["last_row"]))
    if d.get("sample"):
        lines.append(w("b13.sample", k=d["sample"][0], n=d["sample"][1]))
    lines += capped(w, [w("b13.row", r=r) for r in d["rows"]], ROW_LINES, "lim.more_rows", ctx.seed)
    lines += [w("b13.skipped", s=s, why=unknown_text(w, s["chars"], s["pieces"], code="")) for s in d["skipped"]]
    if d["decisions"]:
        t = d["tight"]
        lines.append(w("b13.total", d=d, same=d["decisions"] - d["flips"], pct=100 * d["agreement"],
                       gate=100 * d["gate"], verdict=w("b13.pass" if d["passed"] else "b13.fail")))
        lines.append(w("b13.closest", t=t, step=t["step"] + 1,
                       kept=w("b13.kept" if t["margin_q"] > 0 else "b13.changed")))
    else:
        lines.append(w("b13.no_decisions"))
    if d.get("kv") and d["kv"]["decisions"]:
        lines += kv_gate_lines(w, d["kv"], ctx)
    if d.get("kv") and "served" in d["kv"]:
        lines += kv_served_lines(w, d["kv"]["served"], ctx) if d["kv"]["served"] else [w("b13.kv_served_skipped")]
    lines.append(w("b13.reading"))
    lines += block13_lines(w, d["spec"]) if "spec" in d else []
    lines.append(w("b13.conclusion", d=d))
    return w("b13.title", d=d), lines
