"""`python -m inference_lab`: the command-line twin of the web page.

Prints the lab exactly as the seed program does. Every constant is a flag named after
it in lower-case kebab form (SLOTS → --slots, COST_DECODE_FIXED → --cost-decode-fixed);
`--requests FILE.json` replaces the trace, `--json` prints the report as JSON,
`--exercise N` takes exercise N's constants, `--trace FILE` writes a Chrome trace,
`--steps` prints the scheduler's steps one by one ("Bước N/M", who runs, who waits and why),
`--patch MODULE=FILE.py` (repeatable) runs the lab with FILE.py's functions in place of the
module's functions of the same names (see patch.py); `--timeout S` stops such a run after S
seconds (Ctrl-C stops it too), for a patch that loops forever.
Where a line the seed prints is false or incomplete for the run, a note saying what is true
(words/text_notes.py) follows its block on stderr, so stdout stays the seed's bytes.
`--lang en` prints all of it in English (text_en.py), --help and error messages included (the command
line's own sentences are words/cli_vi.py and cli_en.py, one key each).

    $ python -m inference_lab --queue-limit 2 --follow D
    $ python -m inference_lab --patch scheduler=prefill_first.py

Exit status: 0 when every invariant check holds (PASS), 1 when one fails (FAIL),
2 for invalid input (every problem is named on stderr, by flag) and for every mistake in a
patch (syntax, exception, wrong return value, stopped), 3 for an internal error.
"""
from __future__ import annotations

import argparse
import gc
import functools
import contextlib
import json
import math
import re
import sys
import signal
import threading

from ..core.inputs.config import FIELDS, FIELD_BY_NAME, Config, ConfigError
from ..words import cli_en, cli_vi
from ..words.text_schema import help_text, problem_text
from .tables import search_lines, sweep_lines

EXIT_FAIL, EXIT_USAGE, EXIT_INTERNAL = 1, 2, 3


class UsageError(Exception):
    """Bad command-line input; carries every message."""

    def __init__(self, messages: list[str]):
        self.messages = messages
        super().__init__("\n".join(messages))


LANGS = ("vi", "en")
WORDS = {"vi": cli_vi.WORDS, "en": cli_en.WORDS}           # every sentence of the command line itself
ARGPARSE = {"vi": cli_vi.ARGPARSE, "en": cli_en.ARGPARSE}  # argparse's own error messages, in the lab's words


def lang_of(argv) -> str:
    """The --lang value among argv (looked at before parsing, so --help and parse errors use it); vi if none or
    unknown."""
    argv = list(argv)
    for i, a in enumerate(argv):
        value = argv[i + 1] if a == "--lang" and i + 1 < len(argv) else a[7:] if a.startswith("--lang=") else None
        if value in LANGS:
            return value
    return "vi"


class Parser(argparse.ArgumentParser):
    lang = "vi"

    def error(self, message):
        for pattern, words in ARGPARSE[self.lang]:
            if re.match(pattern, message):
                message = re.sub(pattern, words, message)
                break
        raise UsageError([message])


def build_parser(lang: str = "vi") -> argparse.ArgumentParser:
    w = WORDS[lang]
    p = Parser(prog="python -m inference_lab", description=w("description"))
    p.lang = lang
    for f in FIELDS:
        if f.type == "requests":
            continue
        bounds = f" [{f.min}..{f.max}]" if f.min is not None else ""
        text = help_text(f.name, lang)
        if f.is_switch:
            p.add_argument(f.flag, dest=f.name, metavar="off|on", nargs="?", const="on",
                           help=f"{text} " + w("switch", default=f.default))
            continue
        metavar = "|".join(map(str, f.choices)) if f.choices else f.type.upper()
        metavar += "|FILE.csv" if f.name == "WORKLOAD_TRACE" else ""          # trace_workload.py reads the file
        p.add_argument(f.flag, dest=f.name, metavar=metavar,
                       help=f"{text} " + w("default", default=f.default, bounds=bounds))
    p.add_argument("--requests", metavar="FILE.json", help=w("requests"))
    p.add_argument("--json", action="store_true", help=w("json"))
    p.add_argument("--exercise", metavar="N", help=w("exercise"))
    p.add_argument("--trace", metavar="FILE", help=w("trace"))
    p.add_argument("--steps", action="store_true", help=w("steps"))
    p.add_argument("--lang", choices=LANGS, default="vi", help=w("lang"))
    p.add_argument("--patch", metavar="MODULE=FILE.py", action="append", help=w("patch"))
    p.add_argument("--timeout", metavar=w("seconds"), help=w("timeout"))
    p.add_argument("--sweep", metavar="NAME=V1,V2,…", help=w("sweep"))
    p.add_argument("--search", metavar="NAME=V1,V2,…", action="append", help=w("search"))
    p.add_argument("--slo-attainment", metavar="0..1", help=w("slo_attainment"))
    p.add_argument("--search-backend", choices=("local", "ray"), help=w("search_backend"))
    p.add_argument("--ray-address", metavar="ADDRESS", help=w("ray_address"))
    return p


def convert(name: str, raw: str, lang: str = "vi"):
    """The flag's string as the field's type; ValueError with a message in `lang`."""
    kind, w = FIELD_BY_NAME[name].type, WORDS[lang]
    if FIELD_BY_NAME[name].auto and raw == "auto":
        return raw
    try:
        return int(raw) if kind == "int" else float(raw) if kind == "float" else raw
    except ValueError:
        what = w("integer") if kind == "int" else w("number")
        raise ValueError(w("not_a", name=name, what=what, raw=raw)) from None


def load_requests(path: str, lang: str = "vi") -> list:
    w = WORDS[lang]
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        raise UsageError([w("unreadable", path=path, error=exc.strerror)]) from None
    except json.JSONDecodeError as exc:
        raise UsageError([w("bad_json", path=path, line=exc.lineno, msg=exc.msg)]) from None


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
        errors += [f"{flag_of(p.field)}: {problem_text(p, lang)}" for p in exc.problems if flag_of(p.field) not in bad]
    if errors:
        raise UsageError(errors)
    args.values = values                                      # the typed flags, for --sweep's points
    return config


def sweep_from_args(args) -> tuple[str, list] | None:
    """--sweep NAME=V1,V2,…: the constant and its values, every point's config checked before any runs."""
    if not args.sweep:
        return None
    from .sweep import parse_axis
    w = WORDS[args.lang]
    try:
        name, xs = parse_axis(args.sweep)
    except ValueError:
        raise UsageError([w("sweep_syntax", raw=args.sweep)]) from None
    errors = []
    for x in xs:
        try:
            Config.from_values({**args.values, name: x})
        except ConfigError as exc:
            errors += [f"--sweep {name}={x}: {problem_text(p, args.lang)}" for p in exc.problems]
    if errors:
        raise UsageError(errors)
    return name, xs


def search_from_args(args) -> list[tuple[str, list]] | None:
    """--search NAME=V1,… (repeatable): the grid's axes, checked (search.AXES, CLOCK=roofline, the flags that go
    with it); a point whose constants do not fit together is not an error: the search rejects it with its reason."""
    w = WORDS[args.lang]
    if not args.search:
        extra = [f for f, v in (("--slo-attainment", args.slo_attainment), ("--search-backend", args.search_backend),
                                ("--ray-address", args.ray_address)) if v is not None]
        if extra:
            raise UsageError([w("search_alone", flag=f) for f in extra])
        return None
    from .search import AXES
    from .sweep import parse_axis
    axes, errors = [], []
    for raw in args.search:
        try:
            name, xs = parse_axis(raw)
        except ValueError:
            errors.append(w("search_syntax", raw=raw))
            continue
        if name not in AXES:
            errors.append(w("search_axis", name=name, axes=", ".join(AXES)))
        elif name in dict(axes):
            errors.append(w("search_twice", name=name))
        else:
            axes.append((name, xs))
    if args.sweep:
        errors.append(w("search_sweep"))
    if args.values.get("CLOCK") != "roofline":
        errors.append(w("search_clock"))
    if args.slo_attainment is not None:
        try:
            if not 0 < float(args.slo_attainment) <= 1:
                raise ValueError
        except ValueError:
            errors.append(w("search_attainment", raw=args.slo_attainment))
    if args.ray_address is not None and args.search_backend != "ray":
        errors.append(w("search_alone", flag="--ray-address"))
    if args.search_backend == "ray":
        import importlib.util
        if importlib.util.find_spec("ray") is None:
            errors.append(w("search_no_ray"))
    if errors:
        raise UsageError(errors)
    return axes


def check_long_workload(args, config: Config) -> None:
    """More than schema.MAX_WORKLOAD requests (a trace file, config._upper) only for --sweep/--search with
    timing-only points: a 13-block run, or full points, of an hour of traffic would take hours."""
    from ..core.inputs.schema import MAX_WORKLOAD
    from ..core.serving.replay import timing_only
    if config.WORKLOAD_REQUESTS > MAX_WORKLOAD and not ((args.sweep or args.search) and timing_only(config)):
        raise UsageError([WORDS[args.lang]("long_workload", n=config.WORKLOAD_REQUESTS, max=MAX_WORKLOAD)])


def emit_search(args, axes: list) -> int:
    """Run the grid (search.py), print the table, the answer, the Pareto front and the rejected points (or --json)."""
    from .search import ATTAINMENT, search
    w = WORDS[args.lang]
    target = float(args.slo_attainment) if args.slo_attainment is not None else ATTAINMENT
    backend = args.search_backend or "local"
    n = math.prod(len(xs) for _, xs in axes)
    print(w("search_start", n=n, backend=backend), file=sys.stderr)
    result = search(args.values, axes, target, backend, args.ray_address)
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False, indent=1) + "\n")
        return 0
    print("\n".join(search_lines(result, Config.from_values(args.values), args.lang)))
    return 0


def emit_sweep(args, name: str, xs: list) -> int:
    """Run the sweep's points, print one row each (or --json), the knee and Little's law."""
    from .sweep import sweep
    w = WORDS[args.lang]
    result = sweep(args.values, name, xs, progress=lambda i, n: print(w("sweep_progress", i=i, n=n), file=sys.stderr))
    if args.json:
        sys.stdout.write(json.dumps(result, ensure_ascii=False, indent=1) + "\n")
        return 0
    print("\n".join(sweep_lines(result, args.lang, Config.from_values(args.values))))
    return 0


def units_from_args(args) -> list:
    """The --patch flags as patch.Unit objects; UsageError naming each bad one (in --lang's language)."""
    lang = "en" if getattr(args, "lang", "vi") == "en" else "vi"
    w = WORDS[lang]
    exercise = {}
    if args.exercise is not None:
        from .exercises import patch_of
        exercise = patch_of(args.exercise)              # --exercise was checked by config_from_args
    if not args.patch and not exercise:
        if args.timeout is not None:
            raise UsageError([w("timeout_alone")])
        return []
    from ..layout import short
    from .patch import MODULES, Unit, language, units_of
    units, errors = units_of(exercise, w("exercise_label", n=args.exercise)), []
    for raw in args.patch or []:
        module, sep, path = raw.partition("=")
        if not sep or not module or not path:
            errors.append(w("patch_form", raw=raw))
            continue
        if short(module.removesuffix(".py")) not in MODULES:
            errors.append(w("patch_module", module=module, modules=", ".join(MODULES)))
            continue
        try:
            with open(path, encoding="utf-8") as fh:
                source = fh.read()
            with language(lang):
                units.append(Unit(module, source, path))
        except OSError as exc:
            errors.append(w("patch_unreadable", path=path, error=exc.strerror))
        except UnicodeDecodeError:
            errors.append(w("patch_not_utf8", path=path))
        except ValueError as exc:
            errors.append(f"--patch: {exc}.")
    if args.timeout is not None:
        try:
            if not float(args.timeout) > 0:
                raise ValueError
        except ValueError:
            errors.append(w("timeout_positive", raw=args.timeout))
    if errors:
        raise UsageError(errors)
    return units


def main(argv=None, exiting: bool = False) -> int:
    """The command line; `exiting`: the process ends right after (`python -m inference_lab`, __main__.py)."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")
    argv = sys.argv[1:] if argv is None else list(argv)
    w = WORDS[lang_of(argv)]
    try:
        args = build_parser(lang_of(argv)).parse_args(argv)
        config = config_from_args(args)
        units = units_from_args(args)
        grid = search_from_args(args)
        check_long_workload(args, config)
        if grid:
            return emit_search(args, grid)
        axis = sweep_from_args(args)
        return emit_sweep(args, *axis) if axis else emit(args, config, units, exiting)
    except UsageError as exc:
        for m in exc.messages:
            print(w("error", message=m), file=sys.stderr)
        print(w("see"), file=sys.stderr)
        return EXIT_USAGE
    except PatchFailed as exc:
        for lesson in exc.error.lessons:
            print(w("error", message=f"--patch: {lesson.message}"), file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # never a traceback for a student
        print(w("internal", kind=type(exc).__name__, error=exc), file=sys.stderr)
        return EXIT_INTERNAL


class PatchFailed(Exception):
    """A patch.PatchError on its way to main() (patch.py is imported only when --patch is given)."""

    def __init__(self, error):
        self.error = error


def sigint_raises() -> None:
    """Make SIGINT raise KeyboardInterrupt, which --timeout's interrupt_main() relies on: a command started by
    a parent that ignores SIGINT (nohup, a test runner's worker) inherits the ignore, and then the timeout
    would do nothing and an endless edit would run forever."""
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def run_patched(units: list, timeout: str | None, config: Config, lang: str = "vi", narrate: bool = True):
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
        sigint_raises()
        timer.daemon = True
        timer.start()
    try:
        # the student's print()s: stdout stays the report
        with contextlib.redirect_stdout(sys.stderr), patch.language(lang):
            report, names = patch.run(units, functools.partial(run, lang=lang, narrate=narrate, fork=False), config,
                                      stopped=lambda: (f"--timeout {timeout} {WORDS[lang]('seconds_word')}" if fired
                                                       else "Ctrl-C"))
    except patch.PatchError as exc:
        raise PatchFailed(exc) from None
    finally:
        if timer:
            timer.cancel()
    print(WORDS[lang]("patched", names=", ".join(names)), file=sys.stderr)
    return report


def emit(args, config: Config, units=(), exiting: bool = False) -> int:
    """One run, printed. In a process that ends after it (`exiting`) the cyclic garbage collector stays off from
    the run to the exit (lab.collector_paused leaves it as it found it), and what is left is frozen (gc.freeze)
    before the interpreter's last collection at exit: switched back on after a 1,000-request run, its first full
    pass read the ~650,000 objects the report still holds (0.25–0.5 s), and that last collection, left to read them
    all, took 1.3 s at load 20; neither frees anything the process needs before it exits."""
    from .lab import run
    if exiting:
        gc.disable()
    narrate = bool(args.steps)      # the text output never prints a step's words; --json words a short run after it
    report = (run_patched(units, args.timeout, config, args.lang, narrate) if units
              else run(config, lang=args.lang, narrate=narrate))
    if args.trace:
        from .trace import write_trace
        write_trace(report, args.trace)
    if args.json:
        sys.stdout.write(json_text(report) + "\n")
    elif args.steps:
        sys.stdout.write(report.steps_text())
    else:
        write_with_notes(report)
    if exiting:
        gc.freeze()
    return 0 if report.passed else EXIT_FAIL


def json_text(report) -> str:
    """`--json`: a long run (compact.is_long) in the compact form on one line (Report.to_compact_dict: steps as
    columns, no narration); any other run as before, every step narrated (lab.narrated of the bare record)."""
    from .lab import TEXTS, narrated
    from .compact import is_long
    if is_long(report.steps):
        return json.dumps(report.to_compact_dict(), ensure_ascii=False, separators=(",", ":"))
    report.steps = narrated(report.steps, TEXTS[report.lang][1], report.config)
    return report.to_json(indent=1)


def write_with_notes(report) -> None:
    """The report on stdout (the seed's bytes where the seed completes) and, after each part that has them,
    its notes on stderr (words/text_notes.py): in a terminal each note shows right after its block, while
    `> file` or a pipe keeps stdout byte for byte the seed's."""
    for part, text in report.parts():
        sys.stdout.write(text)
        notes = report.notes.get(part)
        if notes:
            sys.stdout.flush()
            sys.stderr.write("".join(f"   {n}\n" for n in notes) + "\n")
            sys.stderr.flush()
