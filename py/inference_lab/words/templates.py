"""Sentence tables: a language's sentences as templates looked up by key and filled with named fields.

Every student-facing sentence of the package lives in a pair of tables with the same keys, one per
language (text_vi / text_en for the 13 blocks, text_steps_vi / _en for the step narration, patch_vi / _en
for the editor's lessons, cli_vi / _en for the command line, schema_vi / _en for the constants' labels and
the config's problems). `Words(table)` wraps one table;
`w(key, **fields)` fills the template: str.format with three more format specs,
`{t:ms}` (simulated µs -> "1.23 ms"), `{a:vec}` / `{a:vec2}` (an array, 3 or 2 decimals) and
`{n:pl token}` ("1 token", "2 tokens"; only English uses it). So the two editions say the same
facts, in the same order, by construction, and a table module holds words only.

    >>> w = Words({"hi": "{who} waits {t:ms} for {n:pl block}"})
    >>> w("hi", who="C", t=1500, n=2)
    'C waits 1.50 ms for 2 blocks'

Leaves out: the tables themselves and which sentence is said when (text.py, text_steps.py, lessons.py,
cli.py decide).
"""
from __future__ import annotations

import string
from dataclasses import dataclass

import numpy as np


def ms(us):
    return f"{us / 1000:.2f} ms"


def ms3(us):
    """Milliseconds to the µs, for times a rounding to 10 µs would make look equal (0.206 vs 0.211 ms)."""
    return f"{us / 1000:.3f} ms"


def vec(a, nd=3):
    return "[" + ", ".join(f"{x:.{nd}f}" for x in np.asarray(a, dtype=float).ravel()) + "]"


def pl(n, word: str) -> str:
    """'1 token', '2 tokens': English plurals (the number is printed as is)."""
    return f"{n} {word}" + ("" if n == 1 else "s")


class Format(string.Formatter):
    """str.format plus the specs ms, ms3, vec, vec2 and `pl WORD` (see the module docstring)."""

    def format_field(self, value, spec):
        if spec == "ms":
            return ms(value)
        if spec == "ms3":
            return ms3(value)
        if spec in ("vec", "vec2"):        # a str: a vector limits.vector already cut to what a person reads
            return value if isinstance(value, str) else vec(value, 2 if spec == "vec2" else 3)
        if spec.startswith("pl "):
            return pl(value, spec[3:])
        return super().format_field(value, spec)


FORMAT = Format()
_PLAIN: dict[str, bool] = {}      # template -> True when str.format fills it alike (no ms / vec / pl spec): C speed


def plain(template: str) -> bool:
    """True when no field of `template` uses one of Format's own specs (str.format gives the same text, faster).

    >>> plain("{e[id]} waits {n:.2f}"), plain("{t:ms}"), plain("{n:pl block}")
    (True, False, False)
    """
    ok = _PLAIN.get(template)
    if ok is None:
        specs = [spec or "" for _, name, spec, _ in FORMAT.parse(template) if name is not None]
        ok = _PLAIN[template] = not any(sp in ("ms", "ms3", "vec", "vec2") or sp.startswith("pl ") or "{" in sp
                                        for sp in specs)
    return ok


@dataclass(frozen=True, slots=True)
class Words:
    """One language's words: `say` maps a key to a sentence template; the named phrase tables beside it."""
    say: dict
    checks: dict | None = None          # check name -> label (CHECK_LABELS)
    docs: dict | None = None            # vLLM behaviour -> the public document it follows (VLLM_DOCS)
    policies: dict | None = None        # scheduling policy -> its name in block [12] (POLICY_NAMES)

    def __post_init__(self):
        for key, template in self.say.items():
            try:
                list(FORMAT.parse(template))
            except ValueError as exc:                # a stray brace: say which sentence, at import time
                raise ValueError(f"template {key!r}: {exc}") from None

    def __call__(self, key: str, **fields) -> str:
        template = self.say[key]
        return template.format(**fields) if plain(template) else FORMAT.vformat(template, (), fields)
