"""The cluster's sentences in blocks [1], [11] and [12] (REPLICAS > 1 or DISAGG = on only; one engine prints the
seed's lines).

- block [1]: where each request went and why (the router's decision, router.py), which replica's queue a 429 came
  from, and under DISAGG = on which replicas prefill and which decode;
- block [11]: goodput under TTFT_SLO and TPOT_SLO, TTFT/TPOT p50/p90/p99 for the cluster and per replica, each
  replica's utilization, KV peak and prefix hits, the KV transfers (shipped = received);
- block [12] (DISAGG = on): the same replicas without disaggregation, number against number, and what vLLM's
  documentation says: disaggregation tunes TTFT and tail inter-token latency separately, it does not raise throughput.

The facts are the report's `cluster` (entrypoints/cluster_data.py) and block data; the words are the "c." keys of
cluster_vi.py / cluster_en.py (merged into text_vi / text_en's tables).

Leaves out: the step narration's replica and KV lines (text_steps.py), all computation.
"""
from __future__ import annotations

from .limits import is_cluster  # noqa: F401  (text_intake, text_measure and the tests take it from here)
from .templates import ms

SHOWN_DECISIONS = 12           # block [1] words this many router decisions; --json has them all


def opt(v) -> str:
    return "n/a" if v is None else ms(v)


def spread(s: dict) -> str:
    return " / ".join(opt(s[k]) for k in ("p50", "p90", "p99"))


def decision_line(w, x) -> str:
    if x["policy"] == "round_robin":
        return w("c.route_rr", x=x)
    if x["policy"] == "least_loaded":
        return w("c.route_ll", x=x, loads=", ".join(map(str, x["loads"])))
    frac = x["cached"] / x["blocks"] if x["blocks"] else 0.0
    return w("c.route_pa", x=x, frac=f"{frac:.2f}", score=f"{3 * frac - 2 * x['load']:.2f}")


def route_lines(w, d, ctx) -> list[str]:
    """Block [1]: the router and its decisions, and where the 429s came from."""
    c, cfg = ctx.cluster, ctx.cfg
    lines = [w("c.router", cfg=cfg, n=len(c["replicas"]))]
    if c["disagg"]:
        lines.append(w("c.disagg_roles", p=", ".join(map(str, c["disagg"]["prefill"])),
                       dec=", ".join(map(str, c["disagg"]["decode"])),
                       how=w("c.decode_rr" if cfg["ROUTER"] == "round_robin" else "c.decode_ll")))
    decisions = c["router"]["decisions"]
    lines += [decision_line(w, x) for x in decisions[:SHOWN_DECISIONS]]
    if len(decisions) > SHOWN_DECISIONS:
        lines.append(w("c.more", n=len(decisions) - SHOWN_DECISIONS))
    where = {x["request"]: x["replica"] for x in decisions}
    refused = {}
    for x in d["decisions"]:
        if x["code"] == "429":
            refused[where.get(x["request"])] = refused.get(where.get(x["request"]), 0) + 1
    if refused:
        lines.append(w("c.refused", parts=", ".join(w("c.refused_part", i=i, n=n) for i, n in sorted(refused.items()))))
    return lines


def replica_line(w, r, cfg) -> str:
    return w("c.replica", r=r, role=w("c.role_" + r["role"]), util=f"{100 * r['utilization']:.0f}",
             pool=cfg["POOL_BLOCKS"], ttft=spread(r["ttft"]), tpot=spread(r["tpot"]))


def measure_lines(w, ctx) -> list[str]:
    """Block [11]: goodput, percentiles, replicas, transfers."""
    c, cfg = ctx.cluster, ctx.cfg
    g = c["goodput"]
    pct = "n/a" if g["fraction"] is None else f"{100 * g['fraction']:.0f}"
    lines = [w("c.goodput", g=g, pct=pct, per_s="n/a" if g["per_s"] is None else f"{g['per_s']:.1f}"),
             w("c.percentiles", ttft=spread(c["ttft"]), tpot=spread(c["tpot"]))]
    lines += [replica_line(w, r, cfg) for r in c["replicas"]]
    dg = c["disagg"]
    if dg and dg["transfers"]:
        ts = dg["transfers"]
        lines.append(w("c.transfers", n=len(ts), dg=dg,
                       ok=w("c.equal") if dg["shipped"] == dg["received"] else w("c.differ"),
                       longest=max(t["arrive"] - t["start"] for t in ts), wait=wait_part(w, ts)))
    return lines


def wait_part(w, ts) -> str:
    """The longest wait of an arrived transfer on its decode replica, and what it waited for (a slot or blocks)."""
    waited = [t for t in ts if t["admitted"] is not None and t["admitted"] > t["arrive"]]
    if not waited:
        return w("c.no_wait")
    t = max(waited, key=lambda t: t["admitted"] - t["arrive"])
    return w("c.wait_" + (t.get("waited_for") or "blocks"), t=t, us=t["admitted"] - t["arrive"])


def disagg_lines(w, d, ctx) -> list[str]:
    """Block [12] under DISAGG = on: against the same replicas without disaggregation."""
    co = d.get("colocated")
    if not co:
        return []
    a, b = co["disagg"], co["colocated"]
    thr = lambda x: "n/a" if x is None else f"{x:.0f}"      # noqa: E731
    return [w("c.versus", n=ctx.cfg["REPLICAS"], a=a, b=b, at=thr(a["throughput"]), bt=thr(b["throughput"]),
              attft=opt(a["ttft_p99"]), bttft=opt(b["ttft_p99"]), atpot=opt(a["tpot_p99"]), btpot=opt(b["tpot_p99"]),
              agap=opt(a["worst_gap"]), bgap=opt(b["worst_gap"])),
            *gap_lines(w, a.get("gap"), ctx.cluster["disagg"]),
            w("c.vllm_says")]


def gap_lines(w, gap, dg) -> list[str]:
    """Under DISAGG = on: what the largest ITL gap is made of when it spans the hand-off (first token on the prefill
    replica, second on the decode replica): the KV transfer and the wait on the decode replica."""
    if not gap or not dg:
        return []
    t = next((t for t in dg["transfers"] if t["request"] == gap["request"]), None)
    if t is None or gap["after"] != 1 or t["admitted"] is None:
        return [w("c.gap_decode", g=gap)]
    wait = t["admitted"] - t["arrive"]
    why = w("c.gap_why_" + (t.get("waited_for") or "none"), t=t, us=wait)
    return [w("c.gap_handoff", g=gap, t=t, link=t["arrive"] - t["start"], why=why,
              rest=gap["us"] - (t["admitted"] - t["start"]))]
