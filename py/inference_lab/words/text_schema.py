"""The schema's words: each constant's label and help, each request column's, and every config problem's sentence.

The schema (core/inputs/schema.py) and config.py's checks hold no sentence: a `Field` is a name and its bounds, a
`Problem` a key and its facts. Here they meet their words, keyed by name in one table per language
(schema_vi.py, schema_en.py; a third language is a third table):

    >>> from inference_lab.core.inputs.config import validate
    >>> [problem_text(p, "en") for p in validate({"SLOTS": 0})]
    ['SLOTS must be in the range 1..256 (got 0).']
    >>> problem_dict(validate({"NOPE": 1})[0])["message"]
    'Không có hằng số tên NOPE.'

`describe()` is the schema as the page receives it: Vietnamese label and help, English ones as label_en and
help_en, beside the schema's own keys.

Leaves out: which problem is found when (config.py), the command line's and the page's own words (cli_vi.py, the
page's catalogues).
"""
from __future__ import annotations

from ..core.inputs.schema import describe as describe_schema
from . import schema_en, schema_vi
from .templates import Words

TABLES = {"vi": schema_vi, "en": schema_en}
PROBLEMS = {lang: Words(table.PROBLEMS) for lang, table in TABLES.items()}


def label(name: str, lang: str = "vi") -> str:
    """A constant's label ("Số chỗ chạy (SLOTS)")."""
    return TABLES[lang].FIELDS[name][0]


def help_text(name: str, lang: str = "vi") -> str:
    """A constant's help: one or two sentences, as --help and the page's control say them."""
    return TABLES[lang].FIELDS[name][1]


def _number(v, digits: str) -> str:
    """A number as a problem prints it: a very long one is cut to its first 12 digits and its length."""
    text = f"{v:g}" if isinstance(v, float) else str(v)
    return text if len(text) <= 20 else text[:12] + f"… ({len(text)} {digits})"


def _facts(p, lang: str) -> dict:
    """The problem's facts as its sentence fills them: lists joined with commas, a range's numbers cut to size."""
    facts = {k: ", ".join(map(str, v)) if isinstance(v, list) else v for k, v in p.args.items()}
    if p.key == "out_of_range":
        facts.update({k: _number(p.args[k], TABLES[lang].DIGITS) for k in ("lo", "hi", "got")})
    return facts


def problem_text(p, lang: str = "vi") -> str:
    """One config problem in `lang`, prefixed with its request's number when the value is a request's."""
    w = PROBLEMS[lang if lang in TABLES else "vi"]
    text = w(p.key, **_facts(p, lang if lang in TABLES else "vi"))
    return w("in_request", n=p.request, problem=text) if p.request is not None else text


def problem_dict(p) -> dict:
    """A problem as the page receives it (web.py's errors): its field and its sentence in both languages."""
    return {"field": p.field, "message": problem_text(p, "vi"), "message_en": problem_text(p, "en")}


def _worded(d: dict, words: dict, after: str, before: str | None = None) -> dict:
    """d with the Vietnamese label and help after the key `after`, the English ones before `before` (else last)."""
    (vi_label, vi_help), (en_label, en_help) = words["vi"], words["en"]
    out = {}
    for key, value in d.items():
        if key == before:
            out["label_en"], out["help_en"] = en_label, en_help
        out[key] = value
        if key == after:
            out["label"], out["help"] = vi_label, vi_help
    if before is None:
        out["label_en"], out["help_en"] = en_label, en_help
    return out


def describe() -> list[dict]:
    """The schema as plain JSON-able dicts with every constant's and request column's words in both languages."""
    out = []
    for d in describe_schema():
        d = _worded(d, {lang: t.FIELDS[d["name"]] for lang, t in TABLES.items()}, "default", "flag")
        if "columns" in d:
            d["columns"] = [_worded(c, {lang: t.COLUMNS[c["name"]] for lang, t in TABLES.items()}, "type")
                            for c in d["columns"]]
        out.append(d)
    return out
