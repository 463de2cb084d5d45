"""Which standard-library modules the page's Python imports: the trace behind sitebuild/stdlib.py's TRACED.

    python3.12 bench/stdlib_trace.py            # print TRACED as Python (paste into sitebuild/stdlib.py)
    python3.12 bench/stdlib_trace.py --check    # exit 1 if sitebuild/stdlib.py's TRACED misses one

A fresh CPython 3.12 (the Python of Pyodide 0.27.7: the same standard library) does, through the page's own
door (inference_lab.entrypoints.web), everything the page's worker does: describe(); the default run in
both languages and its language switch (render); every exercise with its constants and its patch
(exercises/*.md); the edits the tests make (tests/edits.py) and the mistakes they check (a syntax error, an
exception, a wrong return value, print(), a run stopped by KeyboardInterrupt, the page's Stop). Then it
prints every module of the standard library that is in sys.modules, as dotted names. Modules imported by
CPython's own start (site, encodings, …) come along; Pyodide imports them too.

What Pyodide itself imports from its start to the first run (its _pyodide/pyodide packages, asyncio, …)
is not traced here: pyodide-imports.txt records it (in Pyodide), and sitebuild/stdlib.py adds its
standard-library files. Left out: the command line (the page never runs it) and the test harness's
own imports (pytest, doctest): a module only they need is not one the page needs.
"""
from __future__ import annotations

import _thread
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "py"), str(ROOT / "tests"), str(ROOT)]


def stopped_run(web) -> None:
    """A run with an endless edit, stopped by SIGINT as the page's Stop does (through the interrupt buffer)."""
    loop = "def plan_tasks(running, budget_cap):\n    while True:\n        pass\n"
    count = [0]

    def tracer(frame, event, arg):
        count[0] += event == "line" and frame.f_code.co_filename.startswith("<patch")
        if count[0] == 1000:
            _thread.interrupt_main()
        return tracer
    sys.settrace(tracer)
    try:
        web.run("{}", {"scheduler": loop}, "vi", stopped="Stop")
    finally:
        sys.settrace(None)


def exercise_the_page() -> None:
    from inference_lab.entrypoints import web
    from inference_lab.entrypoints.exercises import load_all
    import edits
    web.describe()
    for lang in ("vi", "en"):
        answer = json.loads(web.run("{}", None, lang))
        web.render(json.dumps(answer["report"]), "en" if lang == "vi" else "vi")
    for ex in load_all():
        patches = [{"module": ref.split(".")[0], "function": ref.split(".")[1], "source": source, "key": ref}
                   for ref, source in ex.patch.items()]
        for lang in ("vi", "en"):
            web.run(json.dumps(ex.constants), patches or None, lang)
    sources = [v for k, v in vars(edits).items() if k.isupper() and isinstance(v, str) and "def " in v]
    sources += ["def plan_tasks(running, budget_cap)\n    return []\n",                 # syntax error
                "def plan_tasks(running, budget_cap):\n    return running[99]\n",       # exception
                "def plan_tasks(running, budget_cap):\n    return []\n",                # wrong value
                "def plan_tasks(running, budget_cap):\n    print('hi')\n    return None\n"]
    for source in sources:
        module = "sampler" if "def sample(" in source else "scheduler"
        web.run("{}", {module: source})
    stopped_run(web)


def stdlib_modules() -> list[str]:
    names = set(sys.stdlib_module_names)
    return sorted(name for name, module in sys.modules.items()
                  if module is not None and name.split(".")[0] in names and not name.startswith("_")
                  or name.split(".")[0] in ("_pydecimal", "_compat_pickle", "_compression", "_markupbase",
                                            "_weakrefset",
                                            "_collections_abc", "_sitebuiltins", "_pydatetime", "_strptime",
                                            "_threading_local", "_aix_support", "_osx_support", "_pyio"))


def main(argv: list[str]) -> int:
    if sys.version_info[:2] != (3, 12):
        print(f"needs CPython 3.12 (Pyodide 0.27.7's Python), this is {sys.version.split()[0]}", file=sys.stderr)
        return 2
    exercise_the_page()
    traced = stdlib_modules()
    if "--check" in argv:
        from sitebuild.stdlib import TRACED
        missing = sorted(set(traced) - set(TRACED))
        print("missing from sitebuild/stdlib.py TRACED:", missing or "none")
        return 1 if missing else 0
    print("TRACED = (")
    line = "   "
    for name in traced:
        item = f' "{name}",'
        if len(line) + len(item) > 110:
            print(line)
            line = "   "
        line += item
    print(line + "\n)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
