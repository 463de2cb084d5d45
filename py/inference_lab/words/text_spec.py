"""Speculative decoding's lines (SPEC_METHOD != off): block [7]'s verify steps, α and speedups, block [12]'s
greedy-only comparison, block [13]'s check of the acceptance rule, and the header's mention.

Every sentence is a template of spec_vi.py / spec_en.py (merged into text_vi / text_en's tables); the facts
come from entrypoints/spec_data.py. Nothing is said when speculation is off, so the seed's lines are unchanged.

Leaves out: the facts (spec_data.py) and the other blocks' lines (text_compute.py, text_measure.py).
"""
from __future__ import annotations


def follow_line(w, r) -> str:
    """One verify step of the followed request: proposed, accepted, first rejected, recovered or bonus token."""
    proposed = " ".join(r["proposed"])
    if r["token"] is None:
        return w("spec.step_stop", r=r, proposed=proposed)
    if r["bonus"]:
        return w("spec.step_bonus", r=r, proposed=proposed)
    return w("spec.step_rejected", r=r, proposed=proposed)


def request_line(w, rid, r, rate) -> str:
    return w("spec.alpha", rid=rid, r=dict(r, **rate), k=r["proposed"] / rate["verifies"])


def compare_lines(w, c) -> list[str]:
    """TPOT against the run without speculation (faster or SLOWER, in words), then throughput: the same work only
    when both runs generated as many tokens (sampled requests draw other tokens and stop elsewhere)."""
    lines = []
    if c["tpot_on"] is not None and c["tpot_off"] is not None:
        x = c["tpot_off"] / c["tpot_on"] if c["tpot_on"] else 0.0
        speed = w("spec.faster" if x >= 1 else "spec.slower", x=x)
        lines.append(w("spec.compare", c=c, speed=speed))
    else:
        lines.append(w("spec.compare_no_tpot", c=c))
    same_work = c.get("tokens_on") == c.get("tokens_off")
    lines.append(w("spec.compare_tput" if same_work else "spec.compare_tput_other", c=c))
    return lines


def batch_lines(w, s, cfg) -> list[str]:
    """Under CLOCK = roofline: batch 1 against a large batch, and where speculation stops paying."""
    if cfg.get("CLOCK") != "roofline":
        return [w("spec.batch_seed")]
    small, large = s["rows"][0], next((b for b in s["rows"] if b["batch"] == 64), s["rows"][-1])
    speed = lambda x: w("spec.faster" if x >= 1 else "spec.slower", x=x)      # noqa: E731
    lines = [w("spec.batch", gpu=cfg["GPU"], model=cfg["SHADOW_MODEL"], small=small, large=large, s=s,
               small_speed=speed(small["speedup"]), large_speed=speed(large["speedup"]),
               large_bound=w("spec.bound_" + large["bound"]))]
    lines.append(w("spec.crossover", b=s["crossover"]) if s["crossover"]
                 else w("spec.no_crossover", last=s["rows"][-1]))
    return lines


def block7_lines(w, d, ctx) -> list[str]:
    """Block [7]'s speculation lines from its data: `spec`, `spec_follow`, `spec_rates`, `spec_compare`,
    `spec_batch`."""
    fid, s, follow = ctx.follow["id"], d["spec"], d["spec_follow"]
    lines = [w("spec.head_" + s["method"], s=s)]
    if follow:
        lines.append(w("spec.follow", fid=fid, n=len(follow)))
        lines += [follow_line(w, r) for r in follow]
    else:
        lines.append(w("spec.follow_none", fid=fid))
    lines += [request_line(w, rid, r, d["spec_rates"][rid]) for rid, r in s["per_request"].items()]
    lines.append(w("spec.total", s=s, b=d["spec_batch"]))
    lines += compare_lines(w, d["spec_compare"])
    return lines + batch_lines(w, d["spec_batch"], ctx.cfg) + [w("spec.lossless")]


def same_line(w, d) -> str:
    """Block [12]'s "same tokens" line: every request, or the greedy ones when speculation is on."""
    return w("b12.same_greedy", d=d) if d.get("same_scope") == "greedy" else w("b12.same", d=d)


def block13_lines(w, g) -> list[str]:
    lines = [w("spec.gate_greedy", g=g, verdict=w("b13.pass" if g["greedy_same"] else "b13.fail"))]
    if g["probe"] is not None:
        chi2 = w("spec.infinite") if g["chi2"] is None else f"{g['chi2']:.1f}"
        lines.append(w("spec.gate_distribution", g=g, chi2=chi2, pct=100 * g["false_alarm"],
                       verdict=w("b13.pass" if g["distribution_ok"] else "b13.fail")))
        if not g["distribution_ok"]:
            lines.append(w("spec.gate_distribution_fail", g=g))
    if not g["greedy_same"]:
        lines.append(w("spec.gate_greedy_fail"))
    return lines


def header_part(w, cfg) -> list[str]:
    return [w("header.spec", cfg=cfg, docs=w.docs)] if cfg.get("SPEC_METHOD", "off") != "off" else []

