"""The sweep's and the search's answers as lines of text: what `--sweep` and `--search` print and the page's
sweep and search tools show (web.sweep, web.search), in the command line's words (words/cli_vi.py, cli_en.py).

    >>> point_text({"REPLICAS": 2, "GPU": "H100"})
    'REPLICAS=2 GPU=H100'

Leaves out: running the points (sweep.py, search.py) and parsing the flags (cli.py).
"""
from __future__ import annotations

import math

from ..core.inputs.config import Config
from ..words import cli_en, cli_vi
from ..words.text_schema import problem_text

WORDS = {"vi": cli_vi.WORDS, "en": cli_en.WORDS}

def point_text(point: dict) -> str:
    """A point's constants as NAME=value words."""
    return " ".join(f"{k}={v}" for k, v in point.items())


def reject_lines(w, i: int, row: dict, lang: str) -> list[str]:
    """A rejected point's reasons (search.reasons, or its config problems) as lines."""
    from ..core.inputs.config import Problem
    config = point_text(row["point"])
    if not row["ok"]:
        return [w("search_reject_invalid", i=i, config=config, problem=problem_text(Problem(**p), lang))
                for p in row["problems"]]
    lines = []
    for r in row["reasons"]:
        if r["slo"] == "both":
            lines.append(w("search_reject_both", i=i, config=config, **r))
            continue
        slo = r["slo"].upper()
        at = (w("search_reject_unserved", n=r["unserved"]) if r["at"] is None else
              w("search_reject_at", slo=slo, value=r["at"], ratio=r["at"] / r["limit"] if r["limit"] else math.inf,
                limit=r["limit"]))
        lines.append(w("search_reject_slo", i=i, config=config, slo=slo, share=r["share"], need=r["need"],
                       p=round(r["need"] * 100), at=at))
    return lines


def points_line(w, cfg: Config) -> str:
    """How the sweep's or search's points run: timing-only (replay.timing_only), or full and why."""
    from ..core.serving.replay import tokens_matter
    why = tokens_matter(cfg)
    if not why:
        return w("points_timing_only")
    return w("points_full", why="; ".join(w(f"why_{k}", spec=cfg.SPEC_METHOD) for k in why))


def search_lines(result: dict, cfg: Config, lang: str) -> list[str]:
    """A search's answer (search.summary) as the command line prints it (the page shows the same lines)."""
    w = WORDS[lang]
    n = math.prod(len(a["values"]) for a in result["axes"])
    lines = [w("search_head", n=n, axes=" × ".join(a["name"] for a in result["axes"]), requests=len(cfg.REQUESTS),
               target=result["target"], ttft=cfg.TTFT_SLO, tpot=cfg.TPOT_SLO), points_line(w, cfg),
             w("search_columns")]
    rows, answer = result["points"], result["answer"]
    none = w("search_none")
    for i, r in enumerate(rows, 1):
        if not r["ok"]:
            lines.append(w("search_row_invalid", i=i, config=point_text(r["point"])))
            continue
        a = r["attainment"]
        lines.append(w("search_row", i=i, config=point_text(r["point"]), gpus=r["gpus"], cost=r["cost_per_hour"],
                       usd=none if r["usd_per_m_output"] is None else f"{r['usd_per_m_output']:.2f}",
                       good=r["goodput"], ttft=a["ttft"], tpot=a["tpot"], both=a["both"],
                       jpt=none if r["joules_per_output_token"] is None else f"{r['joules_per_output_token']:.3f}",
                       mark=w("search_mark_answer") if i - 1 == answer else ""))
    if answer is None:
        lines.append(w("search_no_answer"))
    else:
        r = rows[answer]
        lines.append(w("search_answer", i=answer + 1, config=point_text(r["point"]), gpus=r["gpus"],
                       cost=r["cost_per_hour"], both=r["attainment"]["both"],
                       usd=none if r["usd_per_m_output"] is None else f"{r['usd_per_m_output']:.2f}"))
    lines.append(w("search_pareto"))
    for i in result["pareto"]:
        r = rows[i]
        lines.append(w("search_pareto_row", i=i + 1, config=point_text(r["point"]), cost=r["cost_per_hour"],
                       good=r["goodput"], both=r["attainment"]["both"]))
    rejected = [line for i, r in enumerate(rows, 1) if not (r["ok"] and r["meets"])
                for line in reject_lines(w, i, r, lang)]
    if rejected:
        lines += [w("search_rejected"), *rejected]
    return lines


def sweep_lines(result: dict, lang: str, cfg: Config) -> list[str]:
    """A sweep's rows (sweep.result) as the command line prints them (the page shows the same lines)."""
    from ..words.templates import FORMAT
    w = WORDS[lang]
    name = result["name"]
    lines = [w("sweep_head", name=name), points_line(w, cfg)]
    for i, r in enumerate(result["points"]):
        if not r["served"]:
            lines.append(w("sweep_none", value=r["value"]))
            continue
        tpot = "/".join("—" if v is None else FORMAT.format_field(v, "ms") for v in r["tpot"].values())
        lines.append(w("sweep_row", value=r["value"], tput=r["throughput"], ttft=r["ttft"], tpot=tpot,
                       good=r["goodput"]["per_s"], frac=r["goodput"]["fraction"] * 100,
                       knee=w("sweep_knee_mark") if i == result["knee"] else ""))
        lines.append(w("sweep_little", **r["little"]))
        if r.get("clipped", {}).get("n"):                           # a recorded trace cut to fit MAX_CONTEXT
            lines.append(w("sweep_clipped", **r["clipped"]))
        if r["economics"]:                                           # CLOCK=roofline: economics.py
            lines.append(w("sweep_money", e=r["economics"]))
    k = result["knee"]
    lines.append(w("sweep_knee", name=name, value=result["points"][k]["value"]) if k is not None
                 else w("sweep_no_knee"))
    return lines

