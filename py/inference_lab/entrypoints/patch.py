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
    >>> greedy += "    t = int(np.argmax(z))\\n"
    >>> greedy += "    return t, dict(probs=softmax(z), filtered=np.eye(vocab)[t], mode='greedy')\\n"
    >>> with patched([Unit("sampler", greedy, "greedy.py")]):
    ...     run().blocks[7].data["mode"]
    'greedy'
    >>> run().blocks[7].data["mode"]
    'sampling'

Mistakes are lessons, not crashes: every one raises `PatchError` carrying `Lesson`s (lessons.py) with a
message in the run's language (`LANG`, set by `language(lang)`: Vietnamese, or English for `--lang en`
and the English page; the sentences are words/patch_vi.py and patch_en.py) (`python -m inference_lab`
exits 2 with them, the page shows them beside the editor):
- a syntax error: its line and column; nothing runs;
- a public name the module has no function for (helpers start with `_`), or parameters the
  engine cannot call with;
- an exception in the student's code: the traceback cut down to the student's own lines, with
  the line numbers of the student's file (`Unit.first_line` shifts them for a function shown at
  its place in the engine's file);
- a wrong return value: `CONTRACTS` (contracts.py) checks what each known function returns (type,
  shape, a token outside the vocabulary, a plan over the token budget, a victim that is not running),
  at the boundary and only on patched functions, so an unpatched run is exactly as fast as before;
- anything the engine raises during a patched run, and a run stopped by Ctrl-C / `--timeout`.

Leaves out: the contracts (contracts.py), the wording of the lessons (lessons.py), stopping an endless
loop (the page's worker has a watchdog; the command line has Ctrl-C and `--timeout`, which raise
KeyboardInterrupt here) and any sandbox: the student's code runs with the engine's rights, in the
browser's worker or on the student's own machine.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import sys
import types
from dataclasses import dataclass

from ..layout import LAYOUT, dotted, short
from ..words.blocks import BLOCKS
from .contracts import CONTRACTS, checked  # noqa: F401  (the tests and the code views read CONTRACTS from here)
from .lessons import LANG, Lesson, PatchError, exception_lesson, language, say, stopped_lesson  # noqa: F401
from .sandbox import tell, uninterrupted

PACKAGE = "inference_lab"
# The modules whose functions a patch may replace (the engine's mechanics, not its words or plumbing).
MODULES = ("engine", "scheduler", "sampler", "rejection_sampler", "quantization", "model", "metrics")
# The functions the page offers in its editor, per block (blocks.py says which); each has a contract (contracts.py).
EDITABLE = {b.number: tuple(str(ref) for ref in b.editable) for b in BLOCKS if b.editable}
# Patches of these modules may change what the lab's caches hold (weights, quantized weights, the quality
# gate's decisions): a run with them gets fresh, empty caches. Other patches keep the caches.
CACHE_INPUTS = ("model", "quantization")


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
            raise ValueError(say("unit.no_module", module=self.module, modules=", ".join(MODULES)))
        if not isinstance(self.source, str):
            raise ValueError(say("unit.not_text", module=self.module))
        if not isinstance(self.first_line, int) or self.first_line < 1:
            raise ValueError(say("unit.first_line", module=self.module))
        self.key = self.key or self.name

    @property
    def code_name(self) -> str:
        """The file name the code is compiled under (unique per patch; messages show `name`)."""
        return f"<patch {self.key}>"



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
        where = say("load.line", line=line) + (say("load.column", col=col) if col else "")
        message = say("load.syntax", file=unit.name, where=where, msg=exc.msg)
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
        message = say("load.signature", file=unit.name, function=name, wanted=wanted)
        return Lesson(unit.key, "signature", message, name, new.__code__.co_firstlineno)
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
                message = say("load.no_such_function", file=unit.name, module=unit.module, function=name,
                              replaceable=", ".join(sorted(originals)))
                lessons.append(Lesson(unit.key, "name", message, name, fn.__code__.co_firstlineno))
                continue
            lesson = signature_lesson(unit, name, fn, originals[name])
            if lesson:
                lessons.append(lesson)
                continue
            found[(unit.module, name)] = (fn, unit)
        if unit.function and unit.function not in new:
            lessons.append(Lesson(unit.key, "name", say("load.must_define", file=unit.name, function=unit.function),
                                  unit.function))
        elif not any(not n.startswith("_") for n in new):
            lessons.append(Lesson(unit.key, "name", say("load.defines_nothing", file=unit.name, module=unit.module,
                                                        replaceable=", ".join(sorted(originals)))))
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
    return [m for n, m in sorted(sys.modules.items())
            if m is not None and (n == PACKAGE or n.startswith(PACKAGE + "."))]


def bindings(modules: list, original) -> list[tuple[object, str]]:
    """Every (module, attribute) of the package that holds `original`."""
    return [(m, attr) for m in modules for attr, value in list(vars(m).items()) if value is original]


@contextlib.contextmanager
def rebound(replacements: dict, seen=None):
    """{original: replacement}: every binding of each original replaced inside the `with`, restored after
    (seen: the page's stop_seen, sandbox.py)."""
    modules = package_modules()
    undo = []
    try:
        for original, replacement in replacements.items():
            for module, attr in bindings(modules, original):
                undo.append((module, attr, original))
                setattr(module, attr, replacement)
        yield
    except KeyboardInterrupt:
        tell(seen)                                # a Stop raised in the lab's code: told before anything is put back
        raise
    finally:
        with uninterrupted(seen):                 # a Stop now waits until every original is back
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


def told_on_stop(fn, seen):
    """fn, telling the page (sandbox.tell) the moment a Stop leaves the student's function: the KeyboardInterrupt
    was not swallowed, the lab's own code has it and an answer follows. Told here, before the engine's frames unwind
    and the bindings are put back, a worker thread starved on a busy machine right after taking the signal can no
    longer pass for a swallowed Stop (static/core/stop.js restarted Python after 1 s: issue 41). None: fn."""
    if seen is None:
        return fn

    @functools.wraps(fn)
    def stop_told(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except KeyboardInterrupt:
            tell(seen)
            raise
    return stop_told


@contextlib.contextmanager
def patched(units: list[Unit], seen=None):
    """Inside the `with`, the package runs the patched functions (checked by CONTRACTS); PatchError if they cannot.
    seen: the page's stop_seen (sandbox.py)."""
    found, namespaces = load(units)
    replacements = fresh_caches() if any(unit.module in CACHE_INPUTS for unit in units) else {}
    for (module, name), (fn, unit) in found.items():
        original = getattr(module_of(module), name)
        wrapper = told_on_stop(checked(fn, f"{module}.{name}", unit, original), seen)
        namespaces[module][name] = wrapper             # the student's own calls are checked as well
        replacements[original] = wrapper
    with rebound(replacements, seen):
        yield sorted(f"{m}.{n}" for m, n in found)


def run(units: list[Unit], fn, *args, stopped="Ctrl-C", stop_seen=None):
    """(fn(*args), names of the patched functions) with the patches in place; every problem (even a
    KeyboardInterrupt, said as `stopped`: a string or a function giving one) as a PatchError. stop_seen: the page's
    (sandbox.py), told when a Stop reaches the lab."""
    sources = {unit.code_name: unit for unit in units}
    try:
        with patched(units, stop_seen) as names:
            return fn(*args), names
    except PatchError:
        raise
    except KeyboardInterrupt as exc:
        tell(stop_seen)                             # the student's code let it through: an answer follows
        reason = stopped() if callable(stopped) else stopped
        raise PatchError([stopped_lesson(exc, sources, units, reason)]) from None
    except (Exception, SystemExit) as exc:          # exit() in a student's code ends nothing but the run
        raise PatchError([exception_lesson(exc, sources, units[0] if units else None)]) from None
