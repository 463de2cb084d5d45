"""The seed page's reference program, extracted and made runnable with other constants.

`source()` cuts `inference-end-to-end.py` out of the seed page (../shared/seeds/…txt),
re-indents the few lines that lost their indentation when the page was copied, and
returns it. `run(overrides)` executes it with some top-level constants replaced and
returns (stdout, error) — error is None when the seed completed, else "ExcType: msg".

Used by tests (differential testing) and by `make_golden.py`. Leaves out: nothing of
the program is changed except the constant assignments named in `overrides`.

    >>> out, err = run({})          # doctest: +SKIP
    >>> out == open(GOLDEN).read()  # doctest: +SKIP
    True
"""
from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("LAB_SHARED", ROOT.parent / "shared"))
SEED_PAGE = SHARED / "seeds" / "000_566534ff014c7e96.txt"
GOLDEN = SHARED / "golden" / "default.txt"

# Lines that lost their indentation in the copy: methods of KVPool and the
# nested functions / main loop of run_engine. They belong one level deeper.
_DEDENTED = re.compile(r"^(def (used|write|gather|release)\(self|def (admit|finish|emit)\(req|while pending or "
                       r"waiting or running:)")


def source() -> str:
    lines = SEED_PAGE.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"""Lab tổng hợp Inference'))
    end = next(i for i, line in enumerate(lines) if line.startswith('print("PASS:'))
    body = ["    " + line if _DEDENTED.match(line) else line for line in lines[start:end + 1]]
    return "\n".join(body) + "\n"


def _literal(value) -> str:
    return repr(value)


def patched(overrides: dict) -> str:
    """The program with `NAME = value` assignments replaced (REQUESTS spans several lines)."""
    src = source()
    for name, value in overrides.items():
        if name == "REQUESTS":
            src = re.sub(r"^REQUESTS = \[\n(?:.*\n)*?\]\n", f"REQUESTS = {_literal(value)}\n", src, count=1, flags=re.M)
            continue
        pattern = re.compile(rf"^{name} = [^#\n]*?(\s*#.*)?$", re.M)
        if not pattern.search(src):
            raise KeyError(name)
        src = pattern.sub(lambda m: f"{name} = {_literal(value)}" + (m.group(1) or ""), src, count=1)
    return src


def run(overrides: dict | None = None) -> tuple[str, str | None]:
    code = compile(patched(overrides or {}), "inference-end-to-end.py", "exec")
    buf = io.StringIO()
    error = None
    with contextlib.redirect_stdout(buf):
        try:
            exec(code, {"__name__": "__seed__"})
        except Exception as exc:  # the seed's own asserts and crashes
            error = f"{type(exc).__name__}: {exc}"
    return buf.getvalue(), error
