"""`python -m inference_lab`: the command-line twin of the web page.

Prints the lab exactly as the seed program does. Every constant is a flag named after
it in lower-case kebab form (SLOTS → --slots, COST_DECODE_FIXED → --cost-decode-fixed);
`--requests FILE.json` replaces the trace, `--json` prints the report as JSON,
`--exercise N` takes exercise N's constants, `--trace FILE` writes a Chrome trace,
`--steps` prints the scheduler's steps one by one ("Bước N/M", who runs, who waits and why),
`--patch MODULE=FILE.py` (repeatable) runs the lab with FILE.py's functions in place of the
module's functions of the same names (see patch.py); `--timeout S` stops such a run after S
seconds (Ctrl-C stops it too), for a patch that loops forever.
`--lang en` prints all of it in English (text_en.py), --help and error messages included.

    $ python -m inference_lab --queue-limit 2 --follow D
    $ python -m inference_lab --patch scheduler=prefill_first.py

Exit status: 0 when every invariant check holds (PASS), 1 when one fails (FAIL),
2 for invalid input (every problem is named on stderr, by flag) and for every mistake in a
patch (syntax, exception, wrong return value, stopped), 3 for an internal error.
"""
from __future__ import annotations

import argparse
import functools
import contextlib
import json
import re
import sys
import threading

from ..core.config import FIELDS, FIELD_BY_NAME, Config, ConfigError

EXIT_FAIL, EXIT_USAGE, EXIT_INTERNAL = 1, 2, 3


class UsageError(Exception):
    """Bad command-line input; carries every message."""

    def __init__(self, messages: list[str]):
        self.messages = messages
        super().__init__("\n".join(messages))


LANGS = ("vi", "en")
# argparse's own error messages, in the lab's words (the English ones are argparse's, kept)
ARGPARSE_VI = (
    (r"^unrecognized arguments: (.*)$", r"không có cờ (hoặc đối số) này: \1"),
    (r"^argument (\S+): expected one argument$", r"\1: thiếu giá trị sau cờ"),
    (r"^argument (\S+): (.*)$", r"\1: \2"),
)
ARGPARSE_EN = (
    (r"^unrecognized arguments: (.*)$", r"no such flag (or argument): \1"),
    (r"^argument (\S+): expected one argument$", r"\1: a value must follow the flag"),
    (r"^argument (\S+): (.*)$", r"\1: \2"),
)
WORDS = {   # every sentence of the command line itself, per language
    "vi": dict(
        description="Lab tổng hợp Inference Engineering: chạy đường ống phục vụ LLM thu nhỏ và in 13 khối.",
        default="Mặc định {default}{bounds}.", switch="Cờ không kèm giá trị = on. Mặc định {default}.",
        requests="Thay trace REQUESTS bằng danh sách yêu cầu trong tệp JSON.",
        json="In báo cáo dạng JSON thay cho văn bản.",
        exercise="Chạy với các hằng số của bài tập N (thư mục exercises/).",
        trace="Ghi timeline ra tệp Chrome trace-event JSON (mở bằng Perfetto).",
        steps="In từng bước của bộ lập lịch (khối [3]): ai chạy, ai chờ và vì sao, ngân sách token, block KV.",
        lang="Ngôn ngữ của output: vi (mặc định, đúng từng byte như chương trình gốc) hoặc en (tiếng Anh).",
        patch="Chạy với các hàm trong FILE.py thay cho hàm cùng tên của mô-đun engine MODULE (engine, "
              "scheduler, sampler, quantization, model, metrics); lặp lại được.",
        seconds="GIÂY",
        timeout="Với --patch: dừng lần chạy sau chừng này giây (mã sửa có thể lặp mãi; Ctrl-C cũng dừng được).",
        patched="lưu ý: lần chạy này dùng mã đã sửa: {names}.", seconds_word="giây",
        integer="số nguyên", number="một số", not_a="{name} phải là {what} (nhận {raw!r}).",
        unreadable="--requests: không đọc được tệp {path!r} ({error}).",
        bad_json="--requests: tệp {path!r} không phải JSON hợp lệ (dòng {line}: {msg}).",
        error="lỗi: {message}", see="Xem: python -m inference_lab --help",
        internal="lỗi nội bộ: {kind}: {error}"),
    "en": dict(
        description="Inference Engineering end-to-end lab: run a miniature LLM serving pipeline and print its 13 blocks.",
        default="Default {default}{bounds}.", switch="The bare flag means on. Default {default}.",
        requests="Replace the REQUESTS trace with the list of requests in a JSON file.",
        json="Print the report as JSON instead of text.",
        exercise="Run with the constants of exercise N (the exercises/ folder).",
        trace="Write the timeline to a Chrome trace-event JSON file (open it in Perfetto).",
        steps="Print the scheduler's steps (block [3]) one by one: who runs, who waits and why, the token budget, KV blocks.",
        lang="Language of the output: vi (default, byte for byte the seed program's) or en (English).",
        patch="Run with the functions in FILE.py in place of the functions of the same names in the engine module "
              "MODULE (engine, scheduler, sampler, quantization, model, metrics); repeatable.",
        seconds="SECONDS",
        timeout="With --patch: stop the run after this many seconds (edited code may loop forever; Ctrl-C stops it too).",
        patched="note: this run used edited code: {names}.", seconds_word="seconds",
        integer="an integer", number="a number", not_a="{name} must be {what} (got {raw!r}).",
        unreadable="--requests: cannot read the file {path!r} ({error}).",
        bad_json="--requests: the file {path!r} is not valid JSON (line {line}: {msg}).",
        error="error: {message}", see="See: python -m inference_lab --lang en --help",
        internal="internal error: {kind}: {error}"),
}


def lang_of(argv) -> str:
    """The --lang value among argv (looked at before parsing, so --help and parse errors use it); vi if none or unknown."""
    argv = list(argv)
    for i, a in enumerate(argv):
        value = argv[i + 1] if a == "--lang" and i + 1 < len(argv) else a[7:] if a.startswith("--lang=") else None
        if value in LANGS:
            return value
    return "vi"


class Parser(argparse.ArgumentParser):
    lang = "vi"

    def error(self, message):
        for pattern, words in ARGPARSE_EN if self.lang == "en" else ARGPARSE_VI:
            if re.match(pattern, message):
                message = re.sub(pattern, words, message)
                break
        raise UsageError([message])


def build_parser(lang: str = "vi") -> argparse.ArgumentParser:
    w = WORDS[lang]
    p = Parser(prog="python -m inference_lab", description=w["description"])
    p.lang = lang
    for f in FIELDS:
        if f.type == "requests":
            continue
        bounds = f" [{f.min}..{f.max}]" if f.min is not None else ""
        text = f.en[1] if lang == "en" else f.help
        if f.is_switch:
            p.add_argument(f.flag, dest=f.name, metavar="off|on", nargs="?", const="on",
                           help=f"{text} " + w["switch"].format(default=f.default))
            continue
        metavar = "|".join(f.choices) if f.choices else f.type.upper()
        p.add_argument(f.flag, dest=f.name, metavar=metavar, help=f"{text} " + w["default"].format(default=f.default, bounds=bounds))
    p.add_argument("--requests", metavar="FILE.json", help=w["requests"])
    p.add_argument("--json", action="store_true", help=w["json"])
    p.add_argument("--exercise", metavar="N", help=w["exercise"])
    p.add_argument("--trace", metavar="FILE", help=w["trace"])
    p.add_argument("--steps", action="store_true", help=w["steps"])
    p.add_argument("--lang", choices=LANGS, default="vi", help=w["lang"])
    p.add_argument("--patch", metavar="MODULE=FILE.py", action="append", help=w["patch"])
    p.add_argument("--timeout", metavar=w["seconds"], help=w["timeout"])
    return p


def convert(name: str, raw: str, lang: str = "vi"):
    """The flag's string as the field's type; ValueError with a message in `lang`."""
    kind, w = FIELD_BY_NAME[name].type, WORDS[lang]
    try:
        return int(raw) if kind == "int" else float(raw) if kind == "float" else raw
    except ValueError:
        what = w["integer"] if kind == "int" else w["number"]
        raise ValueError(w["not_a"].format(name=name, what=what, raw=raw)) from None


def load_requests(path: str, lang: str = "vi") -> list:
    w = WORDS[lang]
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        raise UsageError([w["unreadable"].format(path=path, error=exc.strerror)]) from None
    except json.JSONDecodeError as exc:
        raise UsageError([w["bad_json"].format(path=path, line=exc.lineno, msg=exc.msg)]) from None


def flag_of(field: str) -> str:
    base = field.split("[")[0].split(".")[0]
    return FIELD_BY_NAME[base].flag if base in FIELD_BY_NAME else field


def config_from_args(args) -> Config:
    """The run's Config from the flags; UsageError naming every bad flag (the config is validated once, here)."""
    lang = getattr(args, "lang", "vi") or "vi"
    values, errors = {}, []
    if args.exercise is not None:
        from .exercises import constants_of
        try:
            values.update(constants_of(args.exercise, lang=lang))
        except (LookupError, ValueError) as exc:
            errors.append(f"--exercise: {exc}")
    for f in FIELDS:
        raw = getattr(args, f.name, None)
        if raw is None:
            continue
        try:
            values[f.name] = convert(f.name, raw, lang)
        except ValueError as exc:
            errors.append(f"{f.flag}: {exc}")
    if args.requests:
        values["REQUESTS"] = load_requests(args.requests, lang)
    try:
        config = Config.from_values(values)
    except ConfigError as exc:
        bad = {e.split(":")[0] for e in errors}
        errors += [f"{flag_of(p.field)}: {p.text(lang)}" for p in exc.problems if flag_of(p.field) not in bad]
    if errors:
        raise UsageError(errors)
    return config


def units_from_args(args) -> list:
    """The --patch flags as patch.Unit objects; UsageError naming each bad one (in --lang's language)."""
    en = getattr(args, "lang", "vi") == "en"
    exercise = {}
    if args.exercise is not None:
        from .exercises import patch_of
        exercise = patch_of(args.exercise)              # --exercise was checked by config_from_args
    if not args.patch and not exercise:
        if args.timeout is not None:
            raise UsageError(["--timeout: only with --patch (or an exercise with a [patch])." if en
                              else "--timeout: chỉ dùng cùng --patch (hoặc một bài tập có [patch])."])
        return []
    from ..layout import short
    from .patch import MODULES, Unit, language, units_of
    units, errors = units_of(exercise, f"exercise {args.exercise}:" if en else f"bài tập {args.exercise}:"), []
    for raw in args.patch or []:
        module, sep, path = raw.partition("=")
        if not sep or not module or not path:
            errors.append(f"--patch: write MODULE=FILE.py, for example --patch scheduler=plan.py (got {raw!r})." if en
                          else f"--patch: viết MODULE=FILE.py, ví dụ --patch scheduler=plan.py (nhận {raw!r}).")
            continue
        if short(module.removesuffix(".py")) not in MODULES:
            errors.append(f"--patch: there is no module {module!r} to edit; pick one of: {', '.join(MODULES)}." if en
                          else f"--patch: không có mô-đun {module!r} để sửa; chọn một trong: {', '.join(MODULES)}.")
            continue
        try:
            with open(path, encoding="utf-8") as fh:
                source = fh.read()
            with language("en" if en else "vi"):
                units.append(Unit(module, source, path))
        except OSError as exc:
            errors.append(f"--patch: cannot read the file {path!r} ({exc.strerror})." if en
                          else f"--patch: không đọc được tệp {path!r} ({exc.strerror}).")
        except UnicodeDecodeError:
            errors.append(f"--patch: the file {path!r} is not UTF-8 text." if en else f"--patch: tệp {path!r} không phải văn bản UTF-8.")
        except ValueError as exc:
            errors.append(f"--patch: {exc}.")
    if args.timeout is not None:
        try:
            if not float(args.timeout) > 0:
                raise ValueError
        except ValueError:
            errors.append(f"--timeout: must be a number of seconds > 0 (got {args.timeout!r})." if en
                          else f"--timeout: phải là một số giây > 0 (nhận {args.timeout!r}).")
    if errors:
        raise UsageError(errors)
    return units


def main(argv=None) -> int:
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")
    argv = sys.argv[1:] if argv is None else list(argv)
    w = WORDS[lang_of(argv)]
    try:
        args = build_parser(lang_of(argv)).parse_args(argv)
        config = config_from_args(args)
        units = units_from_args(args)
        return emit(args, config, units)
    except UsageError as exc:
        for m in exc.messages:
            print(w["error"].format(message=m), file=sys.stderr)
        print(w["see"], file=sys.stderr)
        return EXIT_USAGE
    except PatchFailed as exc:
        for lesson in exc.error.lessons:
            print(w["error"].format(message=f"--patch: {lesson.message}"), file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # never a traceback for a student
        print(w["internal"].format(kind=type(exc).__name__, error=exc), file=sys.stderr)
        return EXIT_INTERNAL


class PatchFailed(Exception):
    """A patch.PatchError on its way to main() (patch.py is imported only when --patch is given)."""

    def __init__(self, error):
        self.error = error


def run_patched(units: list, timeout: str | None, config: Config, lang: str = "vi"):
    """lab.run(config) with the patches in place, stopped after `timeout` seconds if given."""
    import _thread
    from . import patch
    from .lab import run
    fired = []

    def stop():
        fired.append(True)
        _thread.interrupt_main()

    timer = threading.Timer(float(timeout), stop) if timeout is not None else None
    if timer:
        timer.daemon = True
        timer.start()
    try:
        with contextlib.redirect_stdout(sys.stderr), patch.language(lang):   # the student's print()s: stdout stays the report
            report, names = patch.run(units, functools.partial(run, lang=lang), config,
                                      stopped=lambda: f"--timeout {timeout} {WORDS[lang]['seconds_word']}" if fired else "Ctrl-C")
    except patch.PatchError as exc:
        raise PatchFailed(exc) from None
    finally:
        if timer:
            timer.cancel()
    print(WORDS[lang]["patched"].format(names=", ".join(names)), file=sys.stderr)
    return report


def emit(args, config: Config, units=()) -> int:
    from .lab import run
    report = run_patched(units, args.timeout, config, args.lang) if units else run(config, lang=args.lang)
    if args.trace:
        from .trace import write_trace
        write_trace(report, args.trace)
    sys.stdout.write(report.to_json(indent=1) + "\n" if args.json else report.steps_text() if args.steps
                     else report.to_text())
    return 0 if report.passed else EXIT_FAIL
