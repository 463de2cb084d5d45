"""What a student sees when a patch goes wrong: a `Lesson` per mistake, in the run's language.

`LANG` is the lessons' language ("vi", or "en" for `--lang en` and the English page), set by
`language(lang)` around a patched run; `say(key, **fields)` words a sentence of the editor's tables
(words/patch_vi.py, words/patch_en.py) in it. `exception_lesson` and `stopped_lesson` turn an
exception or a stop (Ctrl-C, `--timeout`, the page's Stop and watchdog) into a lesson that shows only the
student's own lines, with the line numbers of the student's file (`Unit.first_line` shifts them);
`engine_stopped` says where an unedited run was stopped (the engine's own line).

    >>> say("load.line", line=3)
    'dòng 3'
    >>> with language("en"):
    ...     say("load.line", line=3)
    'line 3'

Leaves out: finding the mistakes (patch.py loads and checks a patch, contracts.py checks what a
patched function returns) and the words themselves.
"""
from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass

from ..words import patch_en, patch_vi

WORDS = {"vi": patch_vi.WORDS, "en": patch_en.WORDS}
LANG = contextvars.ContextVar("patch_lang", default="vi")   # the language of the lessons ("vi" | "en")
MAX_FRAMES = 8        # a recursion shows its last 8 frames of the student's code


def say(key: str, **fields) -> str:
    """A lesson's sentence `key`, filled with `fields`, in the run's language (LANG)."""
    return WORDS[LANG.get()](key, **fields)


@contextlib.contextmanager
def language(lang: str):
    """Lessons in `lang` inside the `with` (web.run and the command line wrap a patched run in it)."""
    token = LANG.set("en" if lang == "en" else "vi")
    try:
        yield
    finally:
        LANG.reset(token)


@dataclass(slots=True)
class Lesson:
    """One mistake in a patch, said in the run's language (LANG); `line`/`col` are the student's file's when known."""
    key: str                    # the Unit's key
    kind: str                   # "syntax" | "name" | "signature" | "exception" | "return" | "engine" | "stopped"
    message: str
    function: str | None = None
    line: int | None = None
    col: int | None = None

    def to_dict(self) -> dict:
        return dict(field=f"patch:{self.key}", message=self.message, kind=self.kind, function=self.function,
                    line=self.line, col=self.col)


class PatchError(Exception):
    """A patch that cannot run, or a patched run that went wrong; carries every Lesson."""

    def __init__(self, lessons: list[Lesson]):
        self.lessons = lessons
        super().__init__("\n".join(lesson.message for lesson in lessons))


def student_frames(exc: BaseException, sources: dict) -> list:
    """[(unit, line, function name)] of the traceback's frames in a patch's code (`sources`: code name -> Unit)."""
    tb, frames = exc.__traceback__, []
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename in sources:
            frames.append((sources[code.co_filename], tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return frames


def format_frames(frames: list) -> list[str]:
    shown = frames[-MAX_FRAMES:]
    lines = [say("run.earlier_calls", n=len(frames) - len(shown))] if len(frames) > len(shown) else []
    for unit, line, name in shown:
        where = say("run.top_level") if name == "<module>" else name
        lines.append(say("run.frame", file=unit.name, line=line, where=where))
        text = source_line(unit, line)
        if text:
            lines.append(f"    {text}")
    return lines


def source_line(unit, line: int) -> str:
    lines = unit.source.splitlines()
    i = line - unit.first_line
    return lines[i].strip() if 0 <= i < len(lines) else ""


def exception_lesson(exc: BaseException, sources: dict, fallback) -> Lesson:
    """An exception with the student's lines in its traceback: those lines; else the engine's failure."""
    frames = student_frames(exc, sources)
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if frames:
        unit, line, name = frames[-1]
        message = "\n".join([say("run.exception", file=unit.name), *format_frames(frames), detail])
        return Lesson(unit.key, "exception", message, None if name == "<module>" else name, line)
    names = ", ".join(sorted({u.name for u in sources.values()})) or "?"
    key = fallback.key if fallback else ""
    return Lesson(key, "engine", say("run.engine", names=names, detail=detail))


def stopped_lesson(exc: BaseException, sources: dict, units: list, stopped: str) -> Lesson:
    """A run stopped (Ctrl-C, --timeout, the watchdog): where the student's code was when it stopped."""
    frames = student_frames(exc, sources)
    message = say("run.stopped", stopped=stopped)
    if frames:
        unit, line, name = frames[-1]
        message += say("run.stopped_here")
        return Lesson(unit.key, "stopped", message + "\n".join(format_frames(frames[-1:])), name, line)
    return Lesson(units[0].key if units else "", "stopped", message)


def engine_stopped(exc: BaseException, stopped: str) -> str:
    """A run without edits stopped (the page's Stop): the engine's line it was on, as the CLI's --timeout says it."""
    frames, tb = [], exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if "inference_lab" in code.co_filename.replace("\\", "/").split("/"):
            frames.append((code.co_filename.replace("\\", "/").rsplit("/", 1)[-1], tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    message = say("run.stopped_engine", stopped=stopped)
    if not frames:
        return message
    file, line, name = frames[-1]
    where = say("run.top_level") if name == "<module>" else name
    return message + say("run.stopped_engine_here") + say("run.frame", file=file, line=line, where=where)
