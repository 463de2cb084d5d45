"""Where the seed's bytes hold, and how long a block may grow: text grows with what a person can read, not with the run.

`seed_shaped(cfg)` says whether the seed program itself could run the configuration (one engine, CLOCK = seed, the
seed's kind of trace: no replicas, no disaggregation, no speculation, no generated workload, no byte fallback).
There every printed line is the seed's, byte for byte, including its fixed phrases ("5 yêu cầu", "3 yêu cầu"); the
lab's notes say what is true beside them. Everywhere else the blocks word the run's own facts, and every list a
block prints is cut to what a person reads:

- `STEP_LINES` step lines in blocks [3] and [11], `ROW_LINES` lines of one row per request (decisions, stop checks,
  TTFT breakdowns, per-request metrics, quality-gate prompts), `ITEMS` items of a list written on one line;
- the line after a cut says how many are left out and where each one is shown (`--json`, `--steps`, the step view).

    >>> from types import SimpleNamespace as NS
    >>> w = lambda key, **f: f"{key} {f}"
    >>> listed(w, ["a", "b", "c", "d"], 2, {"REPLICAS": 2})
    "a, b, lim.more_items {'n': 2}"
    >>> listed(w, ["a", "b", "c", "d"], 2, {})        # the seed's shape: every item
    'a, b, c, d'

Leaves out: the sentences (the "lim." keys of text_vi.py / text_en.py) and which block cuts which list (the blocks).
"""
from __future__ import annotations

STEP_LINES = 24          # step lines in block [3] or [11] outside the seed's shape (the seed's runs print every step)
ROW_LINES = 16           # one-line-per-request rows in a block outside the seed's shape
ITEMS = 12               # items of a list written on one line (block tables, freed blocks, steps in a note)


def is_cluster(cfg: dict) -> bool:
    """REPLICAS > 1 or DISAGG = on (report.config; a report from before the cluster has neither)."""
    return cfg.get("REPLICAS", 1) > 1 or cfg.get("DISAGG") == "on"


def seed_shaped(cfg: dict) -> bool:
    """True when the seed program could run `cfg` (report.config): its lines, and only they, are printed then."""
    return not (is_cluster(cfg) or cfg.get("WORKLOAD_REQUESTS") or cfg.get("CLOCK", "seed") != "seed"
                or cfg.get("SPEC_METHOD", "off") != "off" or cfg.get("BYTE_FALLBACK", "off") != "off")


def own_words(cfg: dict) -> bool:
    """A cluster or a generated workload: runs whose every block the lab words itself (issue 37's items 1-7 and 16).
    Single-engine runs outside the seed's shape (CLOCK = roofline, speculation, byte fallback) keep the seed's header
    and block [6] sentences with notes beside them, and cut their long lists like any run outside the seed's shape."""
    return is_cluster(cfg) or bool(cfg.get("WORKLOAD_REQUESTS"))


def capped(w, lines: list, limit: int, key: str, cfg: dict, **fields) -> list:
    """`lines` whole in a seed-shaped run; elsewhere the first `limit` and one line `key` naming how many more."""
    if seed_shaped(cfg) or len(lines) <= limit:
        return lines
    return lines[:limit] + [w(key, n=len(lines) - limit, **fields)]


def listed(w, items: list, limit: int, cfg: dict, sep: str = ", ", key: str = "lim.more_items") -> str:
    """Items joined by `sep`; outside the seed's shape only the first `limit` of them and `key` ("… and 14 more")."""
    if seed_shaped(cfg) or len(items) <= limit:
        return sep.join(items)
    return sep.join(items[:limit]) + sep + w(key, n=len(items) - limit)
