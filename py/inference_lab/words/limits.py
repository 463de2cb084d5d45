"""Where the seed's bytes hold, and how long a block may grow: text grows with what a person can read, not with the run.

`seed_identical(cfg, facts)` is the one rule of where the seed's bytes are printed: the seed program itself can run
the configuration (`seed_shaped(cfg)`: one engine, CLOCK = seed, the seed's kind of trace, none of the lab's
additions) AND it completes on it (`seed_completes(facts)`, facts of the run from `run_facts`). There every printed
line is the seed's, byte for byte, including its fixed phrases ("5 yêu cầu", "3 yêu cầu"), and the lab's notes
(text_notes.py) say what is true beside them. Everywhere else (`Context.seed` False) every block words the run's own
facts, the notes' facts are sentences of their blocks, and every list a block prints is cut to what a person reads:

- `STEP_LINES` step lines in blocks [3] and [11], `ROW_LINES` lines of one row per request (decisions, stop checks,
  TTFT breakdowns, per-request metrics, quality-gate prompts), `ITEMS` items of a list written on one line;
- `NUMBERS` numbers or tokens of one printed vector (`vector`: a 2,000-token prompt's IDs, pieces, words and
  attention weights, a block table under a long MAX_CONTEXT), closed by "… and 1,976 more";
- the line after a cut says how many are left out and where each one is shown (`--json`, `--steps`, the step view).

The seed crashes (README, "Khác gì so với chương trình gốc"; tests/golden_cases.py's CRASHES) where the followed
request is refused (429/400) or cancelled, where it never decodes (one token), where a run of its three (continuous
+ chunked, static, continuous without chunking) runs out of KV blocks (the lab preempts or sends a newcomer back to
the queue), where a text has characters or BPE pieces outside its vocabulary, or where one of its checks fails:

    >>> ok = dict(follow_served=True, follow_decodes=True, kv_short=False, unknown_text=False, lab_refusal=False,
    ...           checks_ok=True)
    >>> seed_identical({}, ok), seed_identical({"CLOCK": "roofline"}, ok)
    (True, False)
    >>> seed_identical({}, dict(ok, kv_short=True)), seed_identical({"PREFIX_CACHE": "on"}, ok)
    (False, False)
    >>> seed_identical({"REQUESTS": [dict(id="A", cancel_at=5)]}, ok), seed_identical({"KV_BITS": 8}, ok)
    (False, False)

    >>> w = lambda key, **f: f"{key} {f}"
    >>> listed(w, ["a", "b", "c", "d"], 2, False)
    "a, b, lim.more_items {'n': 2}"
    >>> listed(w, ["a", "b", "c", "d"], 2, True)        # a seed-identical run: every item
    'a, b, c, d'
    >>> vector(w, [0, 4, 3, 16], False, limit=2), vector(w, ["<bos>", "b"], False, repr)
    ("[0, 4, lim.more_numbers {'n': 2}]", "['<bos>', 'b']")

Leaves out: the sentences (the "lim." keys of text_vi.py / text_en.py), which block cuts which list (the blocks), and
the facts' computation (entrypoints/block_data.py; `run_facts` only reads them).
"""
from __future__ import annotations

STEP_LINES = 24          # step lines in block [3] or [11] outside the seed's shape (the seed's runs print every step)
ROW_LINES = 16           # one-line-per-request rows in a block outside the seed's shape
ITEMS = 12               # items of a list written on one line (block tables, freed blocks, steps in a note)
NUMBERS = 24             # numbers or tokens of one printed vector (a long prompt's IDs, its attention weights)


def is_cluster(cfg: dict) -> bool:
    """REPLICAS > 1 or DISAGG = on (report.config; a report from before the cluster has neither)."""
    return cfg.get("REPLICAS", 1) > 1 or cfg.get("DISAGG") == "on"


def seed_shaped(cfg: dict) -> bool:
    """The configuration half of `seed_identical`: the seed program could run `cfg` (report.config): one engine,
    CLOCK = seed, no speculation, no generated workload, no byte fallback, no prefix cache, no priority scheduling,
    no FP8 KV cache (KV_BITS = 8 changes the model's numbers; the seed has no such constant), no cancel_at or
    priority column in REQUESTS."""
    return not (is_cluster(cfg) or cfg.get("WORKLOAD_REQUESTS") or cfg.get("CLOCK", "seed") != "seed"
                or cfg.get("KV_BITS", 16) != 16
                or cfg.get("SPEC_METHOD", "off") != "off" or cfg.get("BYTE_FALLBACK", "off") != "off"
                or cfg.get("PREFIX_CACHE", "off") != "off" or cfg.get("SCHED_POLICY", "fcfs") != "fcfs"
                or any(r.get("cancel_at") is not None or r.get("priority") is not None
                       for r in cfg.get("REQUESTS", [])))


def seed_completes(facts: dict) -> bool:
    """The run half of `seed_identical`: on a seed-shaped configuration, the seed program runs to its PASS line.
    `facts` (run_facts): the followed request was served and decoded at least once, no run of the three ran out of
    KV blocks, every text is in the vocabulary, no request got a 400 the seed does not have, every check holds."""
    return (facts["follow_served"] and facts["follow_decodes"] and not facts["kv_short"] and not facts["unknown_text"]
            and not facts["lab_refusal"] and facts["checks_ok"])


def seed_identical(cfg: dict, facts: dict) -> bool:
    """True where the seed program runs `cfg` and completes: its bytes, and only they, are printed (Context.seed)."""
    return seed_shaped(cfg) and seed_completes(facts)


def run_facts(blocks: dict, follow: dict, checks: list) -> dict:
    """The facts `seed_completes` reads, from a report's parts: `blocks` {n: block data}, `follow` (report.follow),
    `checks` (report.checks)."""
    b2, b6, b7 = blocks[2], blocks[6], blocks[7]
    return dict(follow_served=follow["served"], follow_decodes=follow["served"] and b7.get("first_decode") is not None,
                kv_short=b6["any_preemption"] or bool(b6["kv_waits"]) or b6.get("any_kv_wait", False),
                unknown_text=bool(blocks[13]["skipped"]) or any(x["reason"] == "unknown" for x in b2["blocked"]),
                lab_refusal=any(x["reason"] == "pool" for x in b2["blocked"]),
                checks_ok=all(c.ok for c in checks))


def capped(w, lines: list, limit: int, key: str, seed: bool, **fields) -> list:
    """`lines` whole in a seed-identical run (`seed`: Context.seed); elsewhere the first `limit` and one line `key`
    naming how many more."""
    if seed or len(lines) <= limit:
        return lines
    return lines[:limit] + [w(key, n=len(lines) - limit, **fields)]


def capped_lines(w, items: list, line, limit: int, key: str, seed: bool, **fields) -> list:
    """capped(w, [line(i, x) for i, x in enumerate(items)], limit, key, seed, **fields), wording only the lines it
    keeps: a 15,000-step run's block [3] words its first `limit` steps, not all of them (`line` has no side
    effect: the same lines)."""
    if seed or len(items) <= limit:
        return [line(i, x) for i, x in enumerate(items)]
    return [line(i, x) for i, x in enumerate(items[:limit])] + [w(key, n=len(items) - limit, **fields)]


def listed(w, items: list, limit: int, seed: bool, sep: str = ", ", key: str = "lim.more_items") -> str:
    """Items joined by `sep`; outside a seed-identical run only the first `limit` of them and `key`
    ("… and 14 more")."""
    if seed or len(items) <= limit:
        return sep.join(items)
    return sep.join(items[:limit]) + sep + w(key, n=len(items) - limit)


def vector(w, items, seed: bool, text=str, limit: int = NUMBERS):
    """`items` printed as a list "[a, b, …]" (each by `text`); outside a seed-identical run at most `limit` of them
    and "… and N more" (lim.more_numbers) inside the brackets. A seed-identical run gets `items` back untouched
    (its line prints them as the seed does)."""
    if seed:
        return items
    shown = [text(x) for x in items[:limit]]
    if len(items) > limit:
        shown.append(w("lim.more_numbers", n=len(items) - limit))
    return "[" + ", ".join(shown) + "]"
