"""The pruned standard library: which of Pyodide's python_stdlib.zip the page loads before it is ready.

Pyodide 0.27.7's python_stdlib.zip holds 554 files (2.3 MB); the lab imports about 200 of them. A bytecode
build (bytecode.py) ships python_stdlib.pyc.zip with only the KEPT files (listed ones compiled) and puts
the official zip beside it, unchanged (its sha256 pinned in pyodide.py): any other standard-library import
(a student's `import fractions`) goes through the meta-path finder of lazy_stdlib.py, which fetches the full
zip once, when first needed (the service worker caches it with the rest, so it works offline after a visit).

What is kept, decided from traces, not by hand:
- TRACED: the modules the page's Python imports through web.run for the default run in both languages,
  the language switch, every exercise with its constants and patch, the tests' edits and mistakes, and a
  run stopped by KeyboardInterrupt: `python3.12 bench/stdlib_trace.py` prints it (`--check` compares);
- every standard-library file of pyodide-imports.txt (what Pyodide imports from its start to the end of
  the first run, micropip and NumPy included, recorded in Pyodide);
- STUDENT: what a student's edit of the scheduler or the sampler plausibly imports (heapq, statistics'
  lighter cousins, pprint, …) and the codecs a decode may ask for by name;
- WORKER: what the worker's own Python imports after 'ready' (static/worker/pyc-cache.js compiles the next
  visit's bytecode with importlib.util and zipfile): kept, or every first visit would fetch the full zip for it;
- WHOLE: Pyodide's own packages (_pyodide, pyodide), kept whole (its API is imported piecemeal later).

NumPy (NUMPY_LEFT_OUT): Pyodide already strips its test suites; the repacked wheel (bytecode.py) also
leaves out what no import reads: type stubs (.pyi), Cython declarations (.pxd), C headers and static
libraries (numpy/_core/include, lib/npy-pkg-config, *.a), and numpy.f2py (Fortran wrappers: it needs a
Fortran compiler, which a browser has not). About 370 kB of the 3.3 MB wheel. Every Python module NumPy
imports, at start or later (linalg, random, fft, polynomial, ma, testing, typing), stays, in one of two parts
(NUMPY_AFTER_READY, pyodide.py split_numpy): what `import numpy` reads stays in the wheel, loaded before
"ready"; the subpackages `import numpy` does not import (numpy.random, fft, polynomial, ma, testing, ...: 0.9 of the
2.9 MB, 2.9 of the 7.5 MB of compiled extensions) go into a second package that the worker loads right after
"ready", before the warm-up and before any run (static/worker/worker.js loadRest): the engine imports
numpy.random only when it runs.

Left out: builds without a CPython 3.12 (no bytecode: they ship the official zip whole) and the CDN build
(its standard library comes from the CDN unchanged).
"""
from __future__ import annotations

TRACED = (
    "_collections_abc", "_compat_pickle", "_sitebuiltins", "_weakrefset", "abc", "ast", "base64", "binascii",
    "bisect", "builtins", "codecs", "collections", "collections.abc", "contextlib", "contextvars", "copy",
    "copyreg", "ctypes", "ctypes._endian", "dataclasses", "datetime", "dis", "encodings", "encodings.aliases",
    "encodings.utf_8", "enum", "errno", "fnmatch", "functools", "genericpath", "hashlib", "hmac", "importlib",
    "importlib._bootstrap", "importlib._bootstrap_external", "importlib.machinery", "inspect", "io",
    "ipaddress", "itertools", "json", "json.decoder", "json.encoder", "json.scanner", "keyword", "linecache",
    "marshal", "math", "ntpath", "numbers", "opcode", "operator", "os", "os.path", "pathlib", "pickle",
    "platform", "posix", "posixpath", "random", "re", "re._casefix", "re._compiler", "re._constants",
    "re._parser", "reprlib", "secrets", "signal", "site", "stat", "string", "struct", "sys", "textwrap",
    "threading", "time", "token", "tokenize", "tomllib", "tomllib._parser", "tomllib._re", "tomllib._types",
    "types", "typing", "typing.io", "typing.re", "unicodedata", "urllib", "urllib.parse", "warnings",
    "weakref", "zipimport",
)

STUDENT = (
    "heapq", "bisect", "itertools", "functools", "operator", "collections", "dataclasses", "typing", "copy",
    "math", "random", "string", "textwrap", "pprint", "enum", "abc", "numbers", "time", "json", "re",
    "traceback", "__future__",
    "encodings.ascii", "encodings.latin_1", "encodings.utf_8_sig", "encodings.utf_16", "encodings.utf_32",
    "encodings.cp1252", "encodings.unicode_escape", "encodings.raw_unicode_escape",
)

WORKER = ("importlib.util", "io", "sys", "zipfile", "importlib._bootstrap_external")   # pyc-cache.js BUILD_PY

WHOLE = ("_pyodide/", "pyodide/")

NUMPY_LEFT_OUT = ("numpy/f2py/", ".pyi", ".pxd", ".h", ".a", ".lib", ".pc", "/include/", "/lib/npy-pkg-config/")

# NumPy 2.0.2's subpackages that `import numpy` does not import (it loads them on first use): the engine's import,
# describe() and limits() (the way to "ready") read none of them; a run reads numpy.random.
NUMPY_AFTER_READY = ("numpy/random/", "numpy/fft/", "numpy/polynomial/", "numpy/ma/", "numpy/testing/",
                     "numpy/_pyinstaller/", "numpy/doc/", "numpy/compat/")

LAZY_FINDER = "_lab_lazy_stdlib.py"   # lazy_stdlib.py, added to the pruned zip (compiled: .pyc) under this name


def module_files(name: str) -> tuple[str, str]:
    """The two places a dotted module can be in the zip: a.b -> (a/b.py, a/b/__init__.py)."""
    path = name.replace(".", "/")
    return path + ".py", path + "/__init__.py"


def kept_files(names: list[str], imported: list[str]) -> set[str]:
    """The files of the zip (its namelist `names`) that the pruned zip keeps; `imported`: the zip's files
    in pyodide-imports.txt. A kept module's packages (__init__.py up the tree) and directories come too."""
    present = set(names)
    keep = {path for path in imported if path in present}
    for name in (*TRACED, *STUDENT, *WORKER):
        keep |= {path for path in module_files(name) if path in present}
    keep |= {path for path in present if path.startswith(WHOLE)}
    for path in list(keep):
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            keep |= {p for p in (folder + "/", folder + "/__init__.py") if p in present}
    return keep


def module_names(names: list[str]) -> list[str]:
    """Every dotted module the full zip holds (the lazy finder asks for the zip only for one of these)."""
    out = set()
    for path in names:
        if path.endswith("/__init__.py"):
            out.add(path[:-len("/__init__.py")].replace("/", "."))
        elif path.endswith(".py"):
            out.add(path[:-3].replace("/", "."))
    return sorted(out)


def numpy_after_ready(path: str) -> bool:
    """Whether the NumPy wheel's file `path` goes into the package loaded after "ready" (NUMPY_AFTER_READY)."""
    return path.startswith(NUMPY_AFTER_READY)


def numpy_kept(names: list[str]) -> set[str]:
    """The files of the NumPy wheel (its namelist `names`) the repacked wheel keeps (NUMPY_LEFT_OUT)."""
    def left_out(path: str) -> bool:
        return path.startswith(NUMPY_LEFT_OUT[0]) or path.endswith(NUMPY_LEFT_OUT[1:7]) or \
            any(part in "/" + path for part in NUMPY_LEFT_OUT[7:])
    return {path for path in names if not left_out(path)}
