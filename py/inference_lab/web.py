"""The page's door into the engine: JSON in, JSON out (called from the Web Worker via Pyodide).

    >>> import json
    >>> out = json.loads(run('{"SLOTS": 0, "QUANT_BITS": 9}'))
    >>> out["ok"], [e["field"] for e in out["errors"]]
    (False, ['SLOTS', 'QUANT_BITS'])
    >>> json.loads(run('{}'))["report"]["passed"]
    True

`describe()` returns the config schema (see config.describe); `run(config_json)` returns
{"ok": true, "report": Report.to_dict(), "trace": Chrome trace-event JSON of the timeline}
or {"ok": false, "errors": [{field, message}]}.
Strings keep the worker free of Python source and the messages small and typed.

Leaves out: anything about the browser; this module is plain Python and is tested in CPython.
"""
from __future__ import annotations

import json

from .config import ConfigError, Problem, describe_json, validate
from .lab import run as run_lab
from .trace import trace_events


def describe() -> str:
    return describe_json()


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
