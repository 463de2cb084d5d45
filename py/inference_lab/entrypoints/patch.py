"""Run the lab with a student's own versions of engine functions (`--patch MODULE=FILE.py`, the page's editor).

A patch is Python source for one engine module (`scheduler`, `sampler`, …) that defines functions
with the names of that module's functions, e.g. a `plan_tasks` that prefills before it decodes.
`patched(units)` compiles each source and runs it in a copy of its module's namespace (so `np`,
`BOS` and the module's other functions are there; several patches of one module share it), then,
inside the `with`, puts each new function, wrapped in a check of what it returns, everywhere the
package holds the original: the module itself and every module that bound it by name (`engine`
does `from .scheduler import plan_tasks`). Leaving the `with` puts every original back and the
lab's caches (`lab.quantized_for`, …) are fresh ones inside it when a patch could change what they
hold (CACHE_INPUTS), so a run without patches afterwards is the seed's program again, byte for byte.

    >>> from inference_lab.entrypoints.lab import run
    >>> greedy = "def sample(logits, params, rng, vocab):\\n    return _greedy(logits, vocab)\\n"
    >>> greedy += "def _greedy(logits, vocab):\\n    z = np.array(logits, dtype=float)\\n    z[BOS] = -np.inf\\n"
    >>> greedy += "    t = int(np.argmax(z))\\n    return t, dict(probs=softmax(z), filtered=np.eye(vocab)[t], mode='greedy')\\n"
    >>> with patched([Unit("sampler", greedy, "greedy.py")]):
    ...     run().blocks[7].data["mode"]
    'greedy'
    >>> run().blocks[7].data["mode"]
    'sampling'

Mistakes are lessons, not crashes: every one raises `PatchError` carrying `Lesson`s with a
message in the run's language (`LANG`, set by `language(lang)`: Vietnamese, or English for `--lang en`
and the English page) (`python -m inference_lab` exits 2 with them, the page shows them beside the
editor):
- a syntax error: its line and column; nothing runs;
- a public name the module has no function for (helpers start with `_`), or parameters the
  engine cannot call with;
- an exception in the student's code: the traceback cut down to the student's own lines, with
  the line numbers of the student's file (`Unit.first_line` shifts them for a function shown at
  its place in the engine's file);
- a wrong return value: `CONTRACTS` checks what each known function returns (type, shape, a token
  outside the vocabulary, a plan over the token budget, a victim that is not running), at the
  boundary and only on patched functions, so an unpatched run is exactly as fast as before;
- anything the engine raises during a patched run, and a run stopped by Ctrl-C / `--timeout`.

Leaves out: stopping an endless loop (the page's worker has a watchdog; the command line has
Ctrl-C and `--timeout`, which raise KeyboardInterrupt here) and any sandbox: the student's code
runs with the engine's rights, in the browser's worker or on the student's own machine.
"""
from __future__ import annotations

import contextlib
import contextvars
import functools
import importlib
import inspect
import numbers
import sys
import types
from dataclasses import dataclass, field

import numpy as np

from ..layout import LAYOUT, dotted, short
from ..words.blocks import BLOCKS

PACKAGE = "inference_lab"
# The modules whose functions a patch may replace (the engine's mechanics, not its words or plumbing).
MODULES = ("engine", "scheduler", "sampler", "quantization", "model", "metrics")
# The functions the page offers in its editor, per block (blocks.py says which); each has a contract below.
EDITABLE = {b.number: tuple(str(ref) for ref in b.editable) for b in BLOCKS if b.editable}
# Patches of these modules may change what the lab's caches hold (weights, quantized weights, the quality
# gate's decisions): a run with them gets fresh, empty caches. Other patches keep the caches.
CACHE_INPUTS = ("model", "quantization")
MAX_FRAMES = 8        # a recursion shows its last 8 frames of the student's code
LANG = contextvars.ContextVar("patch_lang", default="vi")   # the language of the lessons ("vi" | "en")


def say(vi: str, en: str) -> str:
    """A lesson's words in the run's language (LANG); every message is written in both, side by side."""
    return en if LANG.get() == "en" else vi


@contextlib.contextmanager
def language(lang: str):
    """Lessons in `lang` inside the `with` (web.run and the command line wrap a patched run in it)."""
    token = LANG.set("en" if lang == "en" else "vi")
    try:
        yield
    finally:
        LANG.reset(token)


@dataclass(slots=True)
class Unit:
    """One patch: `source` replaces functions of inference_lab.<module>; `name` is the file shown in messages.

    `first_line` is the line number of the source's first line (the page's editor shows a function at
    its place in the engine's file); `key` names the patch in the page's messages (default `name`);
    `function`, when given, must be defined by the source (one editor, or one exercise entry, per function)."""
    module: str
    source: str
    name: str
    first_line: int = 1
    key: str = ""
    function: str = ""

    def __post_init__(self):
        self.module = short(self.module.removesuffix(".py"))
        if self.module not in MODULES:
            raise ValueError(say(f"không có mô-đun {self.module!r} để sửa; chọn một trong: {', '.join(MODULES)}",
                                 f"there is no module {self.module!r} to edit; pick one of: {', '.join(MODULES)}"))
        if not isinstance(self.source, str):
            raise ValueError(say(f"mã sửa cho {self.module} phải là một chuỗi", f"the edited code for {self.module} must be a string"))
        if not isinstance(self.first_line, int) or self.first_line < 1:
            raise ValueError(say(f"first_line của {self.module} phải là số nguyên >= 1", f"first_line of {self.module} must be an integer >= 1"))
        self.key = self.key or self.name

    @property
    def code_name(self) -> str:
        """The file name the code is compiled under (unique per patch; messages show `name`)."""
        return f"<patch {self.key}>"


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


class ContractError(Exception):
    """What a patched function returned breaks its contract; the message says what it must return."""


# ── loading a patch ────────────────────────────────────────────────────────
def module_of(name: str):
    return importlib.import_module(dotted(name))


def functions_of(module) -> dict:
    """The public functions defined in `module` itself (what a patch may replace)."""
    return {n: f for n, f in vars(module).items()
            if isinstance(f, types.FunctionType) and f.__module__ == module.__name__ and not n.startswith("_")}


def compile_unit(unit: Unit):
    """The code object, or a Lesson for the syntax error (line and column in the student's file)."""
    try:
        return compile("\n" * (unit.first_line - 1) + unit.source, unit.code_name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        line, col = exc.lineno, exc.offset
        text = (exc.text or "").rstrip("\n")
        where = say(f"dòng {line}", f"line {line}") + (say(f", cột {col}", f", column {col}") if col else "")
        message = say(f"{unit.name}: lỗi cú pháp ở {where}: {exc.msg}", f"{unit.name}: syntax error at {where}: {exc.msg}")
        if text.strip():
            message += f"\n    {text.strip()}\n    {' ' * max(0, (col or 1) - 1 - (len(text) - len(text.lstrip())))}^"
        return Lesson(unit.key, "syntax", message, None, line, col)


def defined_functions(unit: Unit, namespace: dict) -> dict:
    return {n: f for n, f in namespace.items()
            if isinstance(f, types.FunctionType) and f.__code__.co_filename == unit.code_name}


def signature_lesson(unit: Unit, name: str, new, original) -> Lesson | None:
    """The engine calls `original`'s parameters positionally: the new function must accept as many."""
    params = [p for p in inspect.signature(original).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    try:
        inspect.signature(new).bind(*range(len(params)))
    except TypeError:
        wanted = ", ".join(p.name if p.default is p.empty else f"{p.name}={p.default!r}" for p in params)
        return Lesson(unit.key, "signature", say(f"{unit.name}: hàm {name} phải nhận các tham số như bản gốc: {name}({wanted}).",
                                                 f"{unit.name}: function {name} must take the original's parameters: {name}({wanted})."),
                      name, new.__code__.co_firstlineno)
    return None


def load(units: list[Unit]) -> tuple[dict, dict]:
    """Compile and run every patch; ({(module, name): new function}, {module: namespace}) or PatchError."""
    codes, lessons = [], []
    for unit in units:
        code = compile_unit(unit)
        (lessons if isinstance(code, Lesson) else codes).append(code)
    if lessons:                                        # nothing runs while any patch has a syntax error
        raise PatchError(lessons)
    namespaces, found = {}, {}
    sources = {unit.code_name: unit for unit in units}
    for unit, code in zip(units, codes):
        module = module_of(unit.module)
        namespace = namespaces.setdefault(unit.module, dict(vars(module)))
        try:
            exec(code, namespace)
        except (Exception, SystemExit) as exc:
            raise PatchError([exception_lesson(exc, sources, unit)]) from None
        originals, new = functions_of(module), defined_functions(unit, namespace)
        for name, fn in new.items():
            if name.startswith("_"):
                continue
            if name not in originals:
                lessons.append(Lesson(unit.key, "name", say(
                    f"{unit.name}: mô-đun {unit.module} không có hàm {name} để thay. Hàm thay được: {', '.join(sorted(originals))}. "
                    f"Hàm phụ của riêng bạn: đặt tên bắt đầu bằng _ (ví dụ _{name}).",
                    f"{unit.name}: module {unit.module} has no function {name} to replace. Replaceable: {', '.join(sorted(originals))}. "
                    f"Helper functions of your own: start their names with _ (for example _{name})."), name, fn.__code__.co_firstlineno))
                continue
            lesson = signature_lesson(unit, name, fn, originals[name])
            if lesson:
                lessons.append(lesson)
                continue
            found[(unit.module, name)] = (fn, unit)
        if unit.function and unit.function not in new:
            lessons.append(Lesson(unit.key, "name", say(f"{unit.name}: mã này phải định nghĩa hàm {unit.function} (def {unit.function}(...):).",
                                                        f"{unit.name}: this code must define the function {unit.function} (def {unit.function}(...):)."),
                                  unit.function))
        elif not any(not n.startswith("_") for n in new):
            lessons.append(Lesson(unit.key, "name", say(f"{unit.name}: không định nghĩa hàm nào của {unit.module} (thay được: {', '.join(sorted(originals))}).",
                                                        f"{unit.name}: defines no function of {unit.module} (replaceable: {', '.join(sorted(originals))}).")))
    if lessons:
        raise PatchError(lessons)
    return found, namespaces


def units_of(functions: dict, label: str = "") -> list[Unit]:
    """{"module.function": source} (an exercise's [patch]) as one Unit per function, named "label module.function".

    >>> [(u.module, u.function, u.name) for u in units_of({"scheduler.plan_tasks": "..."}, "bài 11:")]
    [('scheduler', 'plan_tasks', 'bài 11: scheduler.plan_tasks')]
    """
    units = []
    for key, source in functions.items():
        module, _, function = key.rpartition(".")
        units.append(Unit(module, source, f"{label} {key}".strip(), key=key, function=function))
    return units


# ── installing: every binding of the original, and back ───────────────────
# Modules that bind no engine function (the command line's own): not imported just to be scanned.
NOT_SCANNED = ("__main__", "cli", "exercises")


def package_modules() -> list:
    """Every module of the package, imported (so none binds a patched function later and keeps it)."""
    importlib.import_module(PACKAGE)
    for names in LAYOUT.values():
        for name in names:
            if name not in NOT_SCANNED:
                importlib.import_module(dotted(name))
    return [m for n, m in sorted(sys.modules.items()) if m is not None and (n == PACKAGE or n.startswith(PACKAGE + "."))]


def bindings(modules: list, original) -> list[tuple[object, str]]:
    """Every (module, attribute) of the package that holds `original`."""
    return [(m, attr) for m in modules for attr, value in list(vars(m).items()) if value is original]


@contextlib.contextmanager
def rebound(replacements: dict):
    """{original: replacement}: every binding of each original replaced inside the `with`, restored after."""
    modules = package_modules()
    undo = []
    try:
        for original, replacement in replacements.items():
            for module, attr in bindings(modules, original):
                undo.append((module, attr, original))
                setattr(module, attr, replacement)
        yield
    finally:
        for module, attr, original in reversed(undo):
            setattr(module, attr, original)


def fresh_caches() -> dict:
    """{cached function: a new, empty cache of the same function}: a patched run neither reads nor fills
    the caches of unpatched runs (quantized weights, the quality gate's decisions, …)."""
    out = {}
    for module in package_modules():
        for value in vars(module).values():
            if isinstance(value, functools._lru_cache_wrapper) and value not in out:
                out[value] = functools.lru_cache(**value.cache_parameters())(value.__wrapped__)
    return out


@contextlib.contextmanager
def patched(units: list[Unit]):
    """Inside the `with`, the package runs the patched functions (checked by CONTRACTS); PatchError if they cannot."""
    found, namespaces = load(units)
    replacements = fresh_caches() if any(unit.module in CACHE_INPUTS for unit in units) else {}
    for (module, name), (fn, unit) in found.items():
        original = getattr(module_of(module), name)
        wrapper = checked(fn, f"{module}.{name}", unit, original)
        namespaces[module][name] = wrapper             # the student's own calls are checked as well
        replacements[original] = wrapper
    with rebound(replacements):
        yield sorted(f"{m}.{n}" for m, n in found)


def run(units: list[Unit], fn, *args, stopped="Ctrl-C"):
    """(fn(*args), names of the patched functions) with the patches in place; every problem (even a
    KeyboardInterrupt, said as `stopped`: a string or a function giving one) as a PatchError."""
    sources = {unit.code_name: unit for unit in units}
    try:
        with patched(units) as names:
            return fn(*args), names
    except PatchError:
        raise
    except KeyboardInterrupt as exc:
        reason = stopped() if callable(stopped) else stopped
        raise PatchError([stopped_lesson(exc, sources, units, reason)]) from None
    except (Exception, SystemExit) as exc:          # exit() in a student's code ends nothing but the run
        raise PatchError([exception_lesson(exc, sources, units[0] if units else None)]) from None


# ── what the student sees ─────────────────────────────────────────────────
def student_frames(exc: BaseException, sources: dict) -> list:
    tb, frames = exc.__traceback__, []
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename in sources:
            frames.append((sources[code.co_filename], tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return frames


def format_frames(frames: list) -> list[str]:
    shown = frames[-MAX_FRAMES:]
    lines = [say(f"    ... ({len(frames) - len(shown)} lần gọi trước không hiện)", f"    ... ({len(frames) - len(shown)} earlier calls not shown)")] if len(frames) > len(shown) else []
    for unit, line, name in shown:
        where = say("mức ngoài cùng của tệp", "the file's top level") if name == "<module>" else name
        lines.append(say(f'  {unit.name}, dòng {line}, trong {where}', f'  {unit.name}, line {line}, in {where}'))
        text = source_line(unit, line)
        if text:
            lines.append(f"    {text}")
    return lines


def source_line(unit: Unit, line: int) -> str:
    lines = unit.source.splitlines()
    i = line - unit.first_line
    return lines[i].strip() if 0 <= i < len(lines) else ""


def exception_lesson(exc: BaseException, sources: dict, fallback: Unit | None) -> Lesson:
    """An exception with the student's lines in its traceback: those lines; else the engine's failure."""
    frames = student_frames(exc, sources)
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if frames:
        unit, line, name = frames[-1]
        message = "\n".join([say(f"{unit.name}: lỗi khi chạy mã của bạn (chỉ các dòng của bạn):", f"{unit.name}: error while running your code (your lines only):"),
                             *format_frames(frames), detail])
        return Lesson(unit.key, "exception", message, None if name == "<module>" else name, line)
    names = ", ".join(sorted({u.name for u in sources.values()})) or "?"
    key = fallback.key if fallback else ""
    return Lesson(key, "engine", say(f"Engine dừng vì lỗi khi chạy với mã đã sửa ({names}): {detail}. Lỗi không nằm "
                                     "trong dòng nào của bạn: hãy xem lại giá trị các hàm của bạn trả về và các đối số chúng sửa.",
                                     f"The engine stopped with an error while running the edited code ({names}): {detail}. The error is not "
                                     "in any of your lines: check the values your functions return and the arguments they change."))


def stopped_lesson(exc: BaseException, sources: dict, units: list[Unit], stopped: str) -> Lesson:
    frames = student_frames(exc, sources)
    message = say(f"Đã dừng ({stopped}) khi đang chạy mã đã sửa.", f"Stopped ({stopped}) while running the edited code.")
    if frames:
        unit, line, name = frames[-1]
        message += say(" Lúc dừng, mã của bạn đang ở đây (có thể là một vòng lặp không bao giờ kết thúc):\n",
                       " When it stopped, your code was here (perhaps a loop that never ends):\n")
        return Lesson(unit.key, "stopped", message + "\n".join(format_frames(frames[-1:])), name, line)
    return Lesson(units[0].key if units else "", "stopped", message)


# ── contracts: what each known function must return ────────────────────────
def checked(fn, qualname: str, unit: Unit, original):
    """fn, with its return value checked by CONTRACTS[qualname] (and normalised: NumPy ints → int, …).

    The contract gets the call's arguments by the names of `original`'s parameters."""
    contract = CONTRACTS.get(qualname)
    name = qualname.rpartition(".")[2]
    signature = inspect.signature(original)

    @functools.wraps(fn)
    def patched_function(*args, **kwargs):
        result = fn(*args, **kwargs)
        if contract is None:
            return result
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        try:
            return contract(result, **bound.arguments)
        except ContractError as exc:
            raise PatchError([Lesson(unit.key, "return", say(f"{unit.name}: {name} trả về giá trị sai: {exc}\n{name} phải trả về {MUST_RETURN[qualname]}",
                                                             f"{unit.name}: {name} returned a wrong value: {exc}\n{name} must return {MUST_RETURN_EN[qualname]}"), name,
                                     fn.__code__.co_firstlineno)]) from None
    return patched_function


def shown(value) -> str:
    """A short description of a value for a message."""
    if isinstance(value, np.ndarray):
        return say(f"mảng NumPy shape {value.shape}", f"NumPy array of shape {value.shape}")
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '…' if len(text) > 60 else text}"


def as_int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ContractError(say(f"{what} phải là số nguyên, nhận {shown(value)}.", f"{what} must be an integer, got {shown(value)}."))
    return int(value)


def as_array(value, what: str, shape: tuple | None = None) -> np.ndarray:
    if not isinstance(value, np.ndarray) or not np.issubdtype(value.dtype, np.number):
        raise ContractError(say(f"{what} phải là mảng số NumPy, nhận {shown(value)}.", f"{what} must be a numeric NumPy array, got {shown(value)}."))
    if shape is not None and value.shape != tuple(shape):
        raise ContractError(say(f"{what} phải có shape {tuple(shape)}, nhận shape {value.shape}.", f"{what} must have shape {tuple(shape)}, got shape {value.shape}."))
    if not np.all(np.isfinite(value)):
        raise ContractError(say(f"{what} có giá trị không hữu hạn (nan hoặc inf).", f"{what} has non-finite values (nan or inf)."))
    return value


def as_distribution(value, what: str, n: int) -> np.ndarray:
    arr = as_array(value, what, (n,))
    if np.any(arr < 0) or abs(float(arr.sum()) - 1.0) > 1e-6:
        raise ContractError(say(f"{what} phải là phân phối xác suất (không âm, tổng 1), nhận tổng {float(arr.sum()):.6g}.", f"{what} must be a probability distribution (non-negative, summing to 1), got a sum of {float(arr.sum()):.6g}."))
    return arr


def gateway_admits_contract(result, num_in_system, slots, queue_limit):
    if not isinstance(result, (bool, np.bool_)):
        raise ContractError(say(f"nhận {shown(result)}, không phải True/False.", f"got {shown(result)}, not True/False."))
    return bool(result)


def admission_room_contract(result, policy, slots, running, waiting, ready, pending):
    room = as_int(result, say("số yêu cầu được vào chạy", "the number of requests to admit"))
    if room < 0:
        raise ContractError(say(f"nhận {room}, một số âm.", f"got {room}, a negative number."))
    if room == 0 and not running and not pending and ready and len(ready) == len(waiting):
        raise ContractError(say("nhận 0 khi không chuỗi nào đang chạy, không yêu cầu nào sắp đến và mọi yêu cầu đang "
                                f"chờ ({', '.join(s.id for s in ready)}) đều sẵn sàng: engine sẽ chờ mãi.",
                                "got 0 while no sequence is running, no request is about to arrive and every waiting request "
                                f"({', '.join(s.id for s in ready)}) is ready: the engine would wait forever."))
    return room


def plan_tasks_contract(result, running, budget_cap):
    if not isinstance(result, (list, tuple)):
        raise ContractError(say(f"nhận {shown(result)}, không phải một danh sách.", f"got {shown(result)}, not a list."))
    tasks, seen = [], set()
    for i, task in enumerate(result):
        if not isinstance(task, (list, tuple)) or len(task) != 3:
            raise ContractError(say(f"việc thứ {i + 1} là {shown(task)}, không phải bộ ba (phase, seq, n).", f"task {i + 1} is {shown(task)}, not a triple (phase, seq, n)."))
        phase, seq, n = task
        if phase not in ("prefill", "decode"):
            raise ContractError(say(f"việc thứ {i + 1}: phase phải là \"prefill\" hoặc \"decode\", nhận {phase!r}.", f"task {i + 1}: phase must be \"prefill\" or \"decode\", got {phase!r}."))
        if not any(seq is r for r in running):
            raise ContractError(say(f"việc thứ {i + 1}: {shown(seq)} không phải một chuỗi trong running.", f"task {i + 1}: {shown(seq)} is not a sequence in running."))
        if id(seq) in seen:
            raise ContractError(say(f"chuỗi {seq.id} có hai việc trong cùng một bước.", f"sequence {seq.id} has two tasks in the same step."))
        seen.add(id(seq))
        n = as_int(n, say(f"việc thứ {i + 1}: số token n", f"task {i + 1}: the token count n"))
        if phase == "decode" and (seq.num_prefill_left or n != 1):
            raise ContractError(say(f"{seq.id}: decode chỉ dành cho chuỗi đã prefill xong (còn {seq.num_prefill_left} "
                                    f"token prompt) và đúng 1 token (nhận n = {n}).",
                                    f"{seq.id}: decode is only for a sequence whose prefill is done ({seq.num_prefill_left} "
                                    f"prompt tokens left) and exactly 1 token (got n = {n})."))
        if phase == "prefill" and not 1 <= n <= seq.num_prefill_left:
            raise ContractError(say(f"{seq.id}: prefill phải có 1 ≤ n ≤ số token prompt còn lại ({seq.num_prefill_left}), nhận n = {n}.",
                                    f"{seq.id}: prefill needs 1 ≤ n ≤ the prompt tokens left ({seq.num_prefill_left}), got n = {n}."))
        tasks.append((phase, seq, n))
    total = sum(n for _, _, n in tasks)
    if budget_cap is not None and any(p == "prefill" for p, _, _ in tasks) and total > budget_cap:
        raise ContractError(say(f"kế hoạch dùng {total} token, vượt ngân sách budget_cap = {budget_cap}.", f"the plan uses {total} tokens, over the budget budget_cap = {budget_cap}."))
    if running and not tasks:
        raise ContractError(say(f"danh sách rỗng trong khi có {len(running)} chuỗi đang chạy: engine sẽ không bao giờ xong.", f"an empty list while {len(running)} sequences are running: the engine would never finish."))
    return tasks


def choose_victim_contract(result, running, seq):
    if not any(result is r for r in running):
        raise ContractError(say(f"{shown(result)} không phải một chuỗi đang chạy (running: {', '.join(r.id for r in running)}).",
                                f"{shown(result)} is not a running sequence (running: {', '.join(r.id for r in running)})."))
    return result


def step_duration_contract(result, cfg, tasks):
    duration = as_int(result, say("thời lượng bước (µs)", "the step's duration (µs)"))
    if duration < 0:
        raise ContractError(say(f"nhận {duration} µs, một số âm.", f"got {duration} µs, a negative number."))
    return duration


def sample_contract(result, logits, params, rng, vocab):
    if not isinstance(result, (list, tuple)) or len(result) != 2 or not isinstance(result[1], dict):
        raise ContractError(say(f"nhận {shown(result)}, không phải cặp (token, info).", f"got {shown(result)}, not a pair (token, info)."))
    token, info = as_int(result[0], "token"), dict(result[1])
    if not 0 <= token < vocab:
        raise ContractError(say(f"token {token} nằm ngoài từ vựng (0..{vocab - 1}).", f"token {token} is outside the vocabulary (0..{vocab - 1})."))
    missing = [k for k in ("probs", "filtered", "mode") if k not in info]
    if missing:
        raise ContractError(say(f"info thiếu khóa {', '.join(missing)}.", f"info lacks the keys {', '.join(missing)}."))
    as_array(info["probs"], "info['probs']", (vocab,))
    as_array(info["filtered"], "info['filtered']", (vocab,))
    if not isinstance(info["mode"], str):
        raise ContractError(say(f"info['mode'] phải là chuỗi (\"greedy\" hoặc \"sampling\"), nhận {shown(info['mode'])}.", f"info['mode'] must be a string (\"greedy\" or \"sampling\"), got {shown(info['mode'])}."))
    info["token"] = token
    return token, info


def top_k_top_p_contract(result, probs, top_k, top_p):
    return as_distribution(result, say("kết quả", "the result"), len(probs))


def softmax_contract(result, z):
    return as_distribution(result, say("kết quả", "the result"), np.shape(z)[-1]) if np.ndim(z) == 1 else as_array(result, say("kết quả", "the result"), np.shape(z))


def draw_contract(result, probs, rng):
    token = as_int(result, "token")
    if not 0 <= token < len(probs):
        raise ContractError(say(f"token {token} nằm ngoài 0..{len(probs) - 1}.", f"token {token} is outside 0..{len(probs) - 1}."))
    return token


QUANT_INFO = dict(elements=int, scales=int, max_err=float, half_scale=float, within_half_scale=bool)


def quantize_weights_contract(result, W, bits, names):
    if not isinstance(result, (list, tuple)) or len(result) != 2 or not all(isinstance(x, dict) for x in result):
        raise ContractError(say(f"nhận {shown(result)}, không phải cặp (Wq, info) gồm hai dict.", f"got {shown(result)}, not a pair (Wq, info) of two dicts."))
    Wq, info = result
    missing = [k for k in W if k not in Wq]
    if missing:
        raise ContractError(say(f"Wq thiếu ma trận {', '.join(missing)}.", f"Wq lacks the matrices {', '.join(missing)}."))
    Wq = {k: as_array(Wq[k], f"Wq[{k!r}]", W[k].shape) for k in W}
    out = {}
    for name in names:
        if not isinstance(info.get(name), dict):
            raise ContractError(say(f"info thiếu mục {name!r} (một dict cho mỗi ma trận được lượng tử hóa).", f"info lacks the entry {name!r} (one dict per quantized matrix)."))
        row = info[name]
        lost = [k for k in QUANT_INFO if k not in row]
        if lost:
            raise ContractError(say(f"info[{name!r}] thiếu khóa {', '.join(lost)}.", f"info[{name!r}] lacks the keys {', '.join(lost)}."))
        try:
            out[name] = {k: cast(row[k]) for k, cast in QUANT_INFO.items()}
        except (TypeError, ValueError):
            raise ContractError(say(f"info[{name!r}] phải có số cho elements, scales, max_err, half_scale.", f"info[{name!r}] must have numbers for elements, scales, max_err, half_scale.")) from None
        if not all(np.isfinite(out[name][k]) for k in ("max_err", "half_scale")):
            raise ContractError(say(f"info[{name!r}]: max_err và half_scale phải hữu hạn.", f"info[{name!r}]: max_err and half_scale must be finite."))
    return Wq, out


def attention_contract(result, Qr, K, V, start):
    if not isinstance(result, (list, tuple)) or len(result) != 2:
        raise ContractError(say(f"nhận {shown(result)}, không phải cặp (ctx, prob).", f"got {shown(result)}, not a pair (ctx, prob)."))
    H, T, d = Qr.shape
    ctx = as_array(result[0], "ctx", (T, H * d))
    prob = as_array(result[1], "prob", (H, T, K.shape[1]))
    return ctx, prob


CONTRACTS = {
    "engine.gateway_admits": gateway_admits_contract,
    "scheduler.admission_room": admission_room_contract,
    "scheduler.plan_tasks": plan_tasks_contract,
    "scheduler.choose_victim": choose_victim_contract,
    "scheduler.step_duration": step_duration_contract,
    "sampler.sample": sample_contract,
    "sampler.top_k_top_p": top_k_top_p_contract,
    "sampler.softmax": softmax_contract,
    "sampler.draw": draw_contract,
    "quantization.quantize_weights": quantize_weights_contract,
    "model.attention": attention_contract,
}
MUST_RETURN = {
    "engine.gateway_admits": "True (cho yêu cầu vào) hoặc False (từ chối bằng 429).",
    "scheduler.admission_room": "số nguyên ≥ 0: số yêu cầu sẵn sàng được vào chạy ngay bây giờ.",
    "scheduler.plan_tasks": "danh sách [(phase, seq, n)]: phase là \"decode\" (n = 1, chuỗi đã prefill xong) hoặc "
                            "\"prefill\" (1 ≤ n ≤ seq.num_prefill_left), mỗi seq là một chuỗi trong running và "
                            "xuất hiện tối đa một lần, tổng n ≤ budget_cap khi có prefill, và ít nhất một việc khi "
                            "running không rỗng.",
    "scheduler.choose_victim": "một chuỗi trong running (có thể chính seq): chuỗi sẽ bị preempt.",
    "scheduler.step_duration": "số nguyên ≥ 0: thời lượng mô phỏng của bước, tính bằng µs.",
    "sampler.sample": "cặp (token, info): token là số nguyên trong 0..vocab-1, info là dict có probs và filtered "
                      "(mảng dài vocab) và mode (chuỗi).",
    "sampler.top_k_top_p": "mảng cùng shape với probs: không âm, tổng 1 (đã chuẩn hóa lại).",
    "sampler.softmax": "mảng cùng shape với z: không âm, tổng 1.",
    "sampler.draw": "số nguyên trong 0..len(probs)-1: token được rút.",
    "quantization.quantize_weights": "cặp (Wq, info): Wq có mọi ma trận của W với cùng shape; info có, cho mỗi tên "
                                     "trong names, một dict elements, scales, max_err, half_scale, within_half_scale.",
    "model.attention": "cặp (ctx, prob): ctx shape (T, H·d_head), prob shape (H, T, số vị trí nguồn).",
}
MUST_RETURN_EN = {   # the same, in English
    "engine.gateway_admits": "True (admit the request) or False (reject it with 429).",
    "scheduler.admission_room": "an integer ≥ 0: how many ready requests may start running now.",
    "scheduler.plan_tasks": "a list [(phase, seq, n)]: phase is \"decode\" (n = 1, a sequence whose prefill is done) or "
                            "\"prefill\" (1 ≤ n ≤ seq.num_prefill_left), every seq is a sequence in running and "
                            "appears at most once, the sum of n ≤ budget_cap when there is a prefill, and at least one task when "
                            "running is not empty.",
    "scheduler.choose_victim": "a sequence in running (possibly seq itself): the sequence to preempt.",
    "scheduler.step_duration": "an integer ≥ 0: the step's simulated duration in µs.",
    "sampler.sample": "a pair (token, info): token is an integer in 0..vocab-1, info is a dict with probs and filtered "
                      "(arrays of length vocab) and mode (a string).",
    "sampler.top_k_top_p": "an array of the same shape as probs: non-negative, summing to 1 (renormalized).",
    "sampler.softmax": "an array of the same shape as z: non-negative, summing to 1.",
    "sampler.draw": "an integer in 0..len(probs)-1: the token drawn.",
    "quantization.quantize_weights": "a pair (Wq, info): Wq has every matrix of W with the same shape; info has, for every name "
                                     "in names, a dict of elements, scales, max_err, half_scale, within_half_scale.",
    "model.attention": "a pair (ctx, prob): ctx of shape (T, H·d_head), prob of shape (H, T, source positions).",
}

