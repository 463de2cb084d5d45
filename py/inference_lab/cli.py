"""`python -m inference_lab`: the command-line twin of the web page.

Prints the lab exactly as the seed program does. Every constant is a flag named after
it in lower-case kebab form (SLOTS → --slots, COST_DECODE_FIXED → --cost-decode-fixed);
`--requests FILE.json` replaces the trace, `--json` prints the report as JSON,
`--exercise N` takes exercise N's constants, `--trace FILE` writes a Chrome trace,
`--steps` prints the scheduler's steps one by one ("Bước N/M", who runs, who waits and why).

    $ python -m inference_lab --queue-limit 2 --follow D

Exit status: 0 when every invariant check holds (PASS), 1 when one fails (FAIL),
2 for invalid input (every problem is named on stderr, by flag), 3 for an internal error.
"""
from __future__ import annotations

import argparse
import json
import re
import sys

from .config import FIELDS, FIELD_BY_NAME, Config, ConfigError

EXIT_FAIL, EXIT_USAGE, EXIT_INTERNAL = 1, 2, 3


class UsageError(Exception):
    """Bad command-line input; carries every message."""

    def __init__(self, messages: list[str]):
        self.messages = messages
        super().__init__("\n".join(messages))


ARGPARSE_VI = (
    (r"^unrecognized arguments: (.*)$", r"không có cờ (hoặc đối số) này: \1"),
    (r"^argument (\S+): expected one argument$", r"\1: thiếu giá trị sau cờ"),
    (r"^argument (\S+): (.*)$", r"\1: \2"),
)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        for pattern, vi in ARGPARSE_VI:
            if re.match(pattern, message):
                message = re.sub(pattern, vi, message)
                break
        raise UsageError([message])


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="python -m inference_lab",
               description="Lab tổng hợp Inference Engineering: chạy đường ống phục vụ LLM thu nhỏ và in 13 khối.")
    for f in FIELDS:
        if f.type == "requests":
            continue
        bounds = f" [{f.min}..{f.max}]" if f.min is not None else ""
        if f.is_switch:
            p.add_argument(f.flag, dest=f.name, metavar="off|on", nargs="?", const="on",
                           help=f"{f.help} Cờ không kèm giá trị = on. Mặc định {f.default}.")
            continue
        metavar = "|".join(f.choices) if f.choices else f.type.upper()
        p.add_argument(f.flag, dest=f.name, metavar=metavar, help=f"{f.help} Mặc định {f.default}{bounds}.")
    p.add_argument("--requests", metavar="FILE.json", help="Thay trace REQUESTS bằng danh sách yêu cầu trong tệp JSON.")
    p.add_argument("--json", action="store_true", help="In báo cáo dạng JSON thay cho văn bản.")
    p.add_argument("--exercise", metavar="N", help="Chạy với các hằng số của bài tập N (thư mục exercises/).")
    p.add_argument("--trace", metavar="FILE", help="Ghi timeline ra tệp Chrome trace-event JSON (mở bằng Perfetto).")
    p.add_argument("--steps", action="store_true",
                   help="In từng bước của bộ lập lịch (khối [3]): ai chạy, ai chờ và vì sao, ngân sách token, block KV.")
    return p


def convert(name: str, raw: str):
    """The flag's string as the field's type; ValueError with a Vietnamese message."""
    kind = FIELD_BY_NAME[name].type
    try:
        return int(raw) if kind == "int" else float(raw) if kind == "float" else raw
    except ValueError:
        what = "số nguyên" if kind == "int" else "một số"
        raise ValueError(f"{name} phải là {what} (nhận {raw!r}).") from None


def load_requests(path: str) -> list:
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        raise UsageError([f"--requests: không đọc được tệp {path!r} ({exc.strerror})."]) from None
    except json.JSONDecodeError as exc:
        raise UsageError([f"--requests: tệp {path!r} không phải JSON hợp lệ (dòng {exc.lineno}: {exc.msg})."]) from None


def flag_of(field: str) -> str:
    base = field.split("[")[0].split(".")[0]
    return FIELD_BY_NAME[base].flag if base in FIELD_BY_NAME else field


def config_from_args(args) -> Config:
    """The run's Config from the flags; UsageError naming every bad flag (the config is validated once, here)."""
    values, errors = {}, []
    if args.exercise is not None:
        from .exercises import constants_of
        try:
            values.update(constants_of(args.exercise))
        except (LookupError, ValueError) as exc:
            errors.append(f"--exercise: {exc}")
    for f in FIELDS:
        raw = getattr(args, f.name, None)
        if raw is None:
            continue
        try:
            values[f.name] = convert(f.name, raw)
        except ValueError as exc:
            errors.append(f"{f.flag}: {exc}")
    if args.requests:
        values["REQUESTS"] = load_requests(args.requests)
    try:
        config = Config.from_values(values)
    except ConfigError as exc:
        bad = {e.split(":")[0] for e in errors}
        errors += [f"{flag_of(p.field)}: {p.message}" for p in exc.problems if flag_of(p.field) not in bad]
    if errors:
        raise UsageError(errors)
    return config


def main(argv=None) -> int:
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8")
    try:
        args = build_parser().parse_args(argv)
        return emit(args, config_from_args(args))
    except UsageError as exc:
        for m in exc.messages:
            print(f"lỗi: {m}", file=sys.stderr)
        print("Xem: python -m inference_lab --help", file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # never a traceback for a student
        print(f"lỗi nội bộ: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_INTERNAL


def emit(args, config: Config) -> int:
    from .lab import run
    report = run(config)
    if args.trace:
        from .trace import write_trace
        write_trace(report, args.trace)
    sys.stdout.write(report.to_json(indent=1) + "\n" if args.json else report.steps_text() if args.steps
                     else report.to_text())
    return 0 if report.passed else EXIT_FAIL
