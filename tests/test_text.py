"""The renderers (text.py, text_steps.py) and the sentence tables they fill (text_vi/en.py, text_steps_vi/en.py),
and the other sentence tables: the code editor's lessons (patch_vi/en.py), the command line's (cli_vi/en.py).

- the format specs the templates use, on hand-checkable values
- both languages have the same keys, and each pair of templates names the same fields the same number of
  times: the English line prints the numbers of the Vietnamese one by construction
- a malformed template is refused when the language module is built, naming its key
"""
from __future__ import annotations

import string

import pytest

from inference_lab.core.inputs.schema import FIELDS, REQUEST_FIELDS
from inference_lab.words import (cli_en, cli_vi, patch_en, patch_vi, schema_en, schema_vi, text, text_en, text_steps,
                                 text_steps_en, text_steps_vi, text_vi)


def fields(template: str) -> list[str]:
    return sorted(name for _, name, _, _ in string.Formatter().parse(template) if name is not None)


def test_format_specs():
    say = text.FORMAT.format
    assert say("{t:ms}", t=1500) == "1.50 ms" and say("{t:ms}", t=0) == "0.00 ms"
    assert say("{a:vec}", a=[0.5, 0.25]) == "[0.500, 0.250]" and say("{a:vec2}", a=[[1, 2]]) == "[1.00, 2.00]"
    assert say("{n:pl token}", n=1) == "1 token" and say("{n:pl token}", n=0) == "0 tokens"
    assert say("{n:pl KV block}", n=3) == "3 KV blocks"
    assert say("{d[x]:>4}|{d[y]!r}", d=dict(x=7, y="a")) == "   7|'a'"


def specs(template: str) -> list[tuple]:
    """(field, conversion, format spec) of every replacement field: `{n:pl token}` is English's own, the rest
    must match."""
    return sorted((name, conv, spec) for _, name, spec, conv in string.Formatter().parse(template)
                  if name is not None and not spec.startswith("pl "))


TABLES = [(text_vi.SAY, text_en.SAY), (text_steps_vi.SAY, text_steps_en.SAY), (patch_vi.SAY, patch_en.SAY),
          (cli_vi.SAY, cli_en.SAY), (schema_vi.PROBLEMS, schema_en.PROBLEMS)]


@pytest.mark.parametrize("vi, en", TABLES, ids=["text", "text_steps", "patch", "cli", "schema"])
def test_both_languages_fill_the_same_fields(vi, en):
    assert list(vi) == list(en)
    differ = [k for k in vi if fields(vi[k]) != fields(en[k])]
    assert not differ, differ


@pytest.mark.parametrize("vi, en", TABLES[2:], ids=["patch", "cli", "schema"])
def test_both_languages_format_the_fields_alike(vi, en):
    """The lessons, the command line's and the config's errors: same conversion (!r) and format spec (.1f) in both."""
    differ = [k for k in vi if specs(vi[k]) != specs(en[k])]
    assert not differ, differ


def test_every_contract_says_what_it_must_return_in_both_languages():
    from inference_lab.entrypoints.contracts import CONTRACTS
    for table in (patch_vi.SAY, patch_en.SAY):
        assert {k.removeprefix("returns.") for k in table if k.startswith("returns.")} == set(CONTRACTS)


def test_argparse_messages_are_rewritten_by_the_same_patterns():
    assert [p for p, _ in cli_vi.ARGPARSE] == [p for p, _ in cli_en.ARGPARSE]


def test_words_fill_a_template_by_key():
    w = text.Words({"hi": "{who} has {n:pl token} at {t:ms}"})
    assert w("hi", who="C", n=2, t=23000) == "C has 2 tokens at 23.00 ms"


def test_a_stray_brace_is_refused_with_its_key():
    with pytest.raises(ValueError, match="'b1.title'"):
        text.Words({"b1.title": "Cổng {"})


def test_language_modules_keep_their_names():
    for mod in (text_vi, text_en):
        assert sorted(mod.BLOCKS) == list(range(1, 14)) and callable(mod.header_lines) and callable(mod.summary_lines)
        assert mod.BLOCK_CODES is text.BLOCK_CODES and mod.Context is text.Context
    assert list(text_steps_vi.WAIT_WHY) == list(text_steps_en.WAIT_WHY) == list(text_steps.WAIT_REASONS)
    assert text_steps.blocks([0, 1, 2, 3, 7]) == "[0–3, 7]" and text_steps.count([(0, 2), (5, 5)]) == 4


def test_every_constant_and_column_has_its_words_in_both_languages():
    # the schema holds no sentence: its words are these tables, keyed by name (issue 38)
    for table in (schema_vi, schema_en):
        assert list(table.FIELDS) == [f.name for f in FIELDS]
        assert list(table.COLUMNS) == [c.name for c in REQUEST_FIELDS]
        assert all(label and help_ for label, help_ in [*table.FIELDS.values(), *table.COLUMNS.values()])
