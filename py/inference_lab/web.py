"""The page's door into the engine: JSON in, JSON out (called from the Web Worker via Pyodide).

    >>> import json
    >>> out = json.loads(run('{"SLOTS": 0, "QUANT_BITS": 9}'))
    >>> out["ok"], [e["field"] for e in out["errors"]]
    (False, ['SLOTS', 'QUANT_BITS'])
    >>> json.loads(run('{}'))["report"]["passed"]
    True

`describe()` returns the config schema (see config.describe), with the characters the tokenizer knows
added to REQUESTS as "alphabet" (the page's request editor warns about any other character):

    >>> [d["alphabet"] for d in json.loads(describe()) if d["name"] == "REQUESTS"]
    ['abcdehiklmnotx']

`run(config_json)` returns
{"ok": true, "report": Report.to_dict(), "trace": Chrome trace-event JSON of the timeline}
or {"ok": false, "errors": [{field, message}]}.
Strings keep the worker free of Python source and the messages small and typed.

Leaves out: anything about the browser; this module is plain Python and is tested in CPython.
"""
from __future__ import annotations

import json

from .config import CORPUS, ConfigError, Problem, describe as describe_schema, validate
from .lab import run as run_lab
from .tokenizer import WORD_END, BPETokenizer
from .trace import trace_events


def alphabet() -> str:
    """The characters the tokenizer learned from the corpus (any other one makes a request 400), sorted."""
    tok = BPETokenizer.train(CORPUS, 0)
    return "".join(sorted(set("".join(tok.id_to_token[2:]).replace(WORD_END, ""))))


def describe() -> str:
    schema = describe_schema()
    for d in schema:
        if d["name"] == "REQUESTS":
            d["alphabet"] = alphabet()
    return json.dumps(schema, ensure_ascii=False)


def _errors(problems) -> str:
    return json.dumps({"ok": False, "errors": [p.to_dict() for p in problems]}, ensure_ascii=False)


def run(config_json: str) -> str:
    try:
        values = json.loads(config_json)
    except json.JSONDecodeError as exc:
        return _errors([Problem("config", f"Cấu hình không phải JSON hợp lệ ({exc.msg}).")])
    problems = validate(values)
    if problems:
        return _errors(problems)
    try:
        report = run_lab(values)
    except ConfigError as exc:
        return _errors(exc.problems)
    return json.dumps({"ok": True, "report": report.to_dict(), "trace": trace_events(report)}, ensure_ascii=False)
