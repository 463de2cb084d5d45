"""Bytecode for the site: the Python the lab imports at start, compiled when the site is built.

Pyodide 0.27.7 ships Python sources (python_stdlib.zip and the NumPy and micropip wheels hold .py
files), so every first visit compiles the standard library, NumPy, micropip and the engine in
WebAssembly before anything runs. The build (Python 3.11+) compiles them ahead of time with a
CPython 3.12 found on the machine (Pyodide 0.27.7 is Python 3.12.7: same bytecode, same magic
number, checked), which runs compile_job.py as a script:

    python3.12 sitebuild/compile_job.py JOB.json     # JOB.json: [[source file, co_filename, mode], ...]

What is compiled (pyodide-imports.txt lists the files; the engine is compiled whole):
- python_stdlib.zip -> python_stdlib.pyc.zip: pruned to the modules the lab needs (stdlib.py), each
  listed x.py replaced by x.pyc (no source), plus the lazy finder for the rest (lazy_stdlib.py); the
  official zip goes beside it unchanged, fetched only if a left-out module is imported;
- the NumPy and micropip wheels -> the same wheels with build tag "1pyc", listed x.py replaced by
  x.pyc, RECORD rewritten (the lab's lock file names them, with their sha256);
- the engine wheel: every x.py replaced by x.pyc without docstrings ("stripped": nothing in the browser reads
  them; 636 -> 518 kB deflated); its sources go beside the wheel in one JSON file that the browser fetches only
  when a traceback quotes an engine line (wheel.py; students read the code views' code.json, not these files).
The .pyc files are hash-based (PEP 552) and "unchecked" (used as they are; their source is not shipped).
Same inputs give the same bytes, so each .pyc is kept in .cache/pyc/ under the sha256 of what it depends on
(interpreter, source, co_filename, mode) and a rebuild compiles only what changed (a vendored build: ~4.5 ->
~2.5 s). Left out: -O/-OO (asserts and docstrings stay: behaviour is unchanged), modules imported only later (they
compile from source as before), and the CDN build mode (its Pyodide files come from the CDN unchanged).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from .common import ROOT, record_hash

PYC_MAGIC = "cb0d0d0a"  # importlib.util.MAGIC_NUMBER of CPython 3.12.x, the Python of Pyodide 0.27.7
PYTHON312_ENV = "LAB_PYTHON312"  # a python3.12 to use, or "none" to build without bytecode
IMPORTS_LIST = ROOT / "pyodide-imports.txt"
COMPILE_JOB = Path(__file__).resolve().parent / "compile_job.py"  # the script the 3.12 interpreter runs
STDLIB_ZIP = "python_stdlib.zip"
STDLIB_PYC_ZIP = "python_stdlib.pyc.zip"
STDLIB_PATH = "/lib/python312.zip/"             # where Pyodide mounts the standard library zip
SITE_PACKAGES = "/lib/python3.12/site-packages/"
BUILD_TAG = "1pyc"                              # wheel build tag of the repacked NumPy and micropip wheels
PYC_CACHE = ROOT / ".cache" / "pyc"             # compiled files by cache_key(): a rebuild compiles only what changed


# ── finding a CPython 3.12 ───────────────────────────────────────────────────
def _candidates() -> list[str]:
    found = [shutil.which("python3.12")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found += [str(p) for p in sorted(pyenv.glob("3.12*/bin/python3.12"), reverse=True)]
    if sys.version_info[:2] == (3, 12):
        found.append(sys.executable)
    return [c for c in found if c]


def magic_of(python: str) -> str | None:
    try:
        out = subprocess.run([python, "-c", "import importlib.util; print(importlib.util.MAGIC_NUMBER.hex())"],
                             capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def find_python312() -> tuple[str | None, str]:
    """(interpreter, why): a CPython whose bytecode Pyodide runs, or None and the reason."""
    return _find_python312(os.environ.get(PYTHON312_ENV), os.environ.get("PATH", ""))


@functools.lru_cache(maxsize=8)
def _find_python312(wanted: str | None, path: str) -> tuple[str | None, str]:
    """find_python312 for one LAB_PYTHON312 and PATH, asked once per process (each candidate is a process start)."""
    if wanted and wanted.lower() == "none":
        return None, f"{PYTHON312_ENV}=none"
    for python in ([wanted] if wanted else _candidates()):
        if magic_of(python) == PYC_MAGIC:
            return python, f"{python}"
    if wanted:
        return None, f"{PYTHON312_ENV}={wanted} is not a CPython 3.12"
    return None, "no python3.12 on PATH or under pyenv"


def python_version(python: str) -> str:
    out = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                         capture_output=True, text=True, timeout=60)
    return "CPython " + out.stdout.strip()


# ── compiling, in the 3.12 interpreter ───────────────────────────────────────
def compile_sources(python: str, items: list[tuple[bytes, str, str]]) -> list[bytes]:
    """[(source, co_filename, "checked"|"unchecked"|"stripped")] -> the .pyc bytes of each: those PYC_CACHE holds
    from an earlier build, the others compiled in one run of python (then kept there)."""
    keys = [cache_key(python, item) for item in items]
    pycs = [cached_pyc(key) for key in keys]
    missing = [i for i, pyc in enumerate(pycs) if pyc is None]
    if missing:
        for i, pyc in zip(missing, run_compile_job(python, [items[i] for i in missing])):
            pycs[i] = pyc
            keep_pyc(keys[i], pyc)
    return pycs


@functools.lru_cache(maxsize=8)
def interpreter_id(python: str) -> str:
    """The interpreter file itself (its real path, size and time): another Python 3.12.x has another id."""
    real = os.path.realpath(shutil.which(python) or python)
    st = os.stat(real)
    return f"{real}\0{st.st_size}\0{st.st_mtime_ns}"


def cache_key(python: str, item: tuple[bytes, str, str]) -> str:
    """sha256 of everything a .pyc's bytes depend on: interpreter, source, co_filename and mode."""
    source, co_filename, mode = item
    digest = hashlib.sha256(f"{PYC_MAGIC}\0{interpreter_id(python)}\0{co_filename}\0{mode}\0".encode())
    digest.update(source)
    return digest.hexdigest()


def cached_pyc(key: str) -> bytes | None:
    path = PYC_CACHE / key[:2] / key
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return data if data[:4].hex() == PYC_MAGIC else None


def keep_pyc(key: str, pyc: bytes) -> None:
    """Written to a temporary name, then renamed: two builds at once (the tests' workers) never see half a file."""
    folder = PYC_CACHE / key[:2]
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f"{key}.{os.getpid()}.tmp"
        tmp.write_bytes(pyc)
        os.replace(tmp, folder / key)
    except OSError:
        pass  # a read-only checkout builds without the cache


def run_compile_job(python: str, items: list[tuple[bytes, str, str]]) -> list[bytes]:
    """compile_job.py in python, over items; the .pyc bytes of each."""
    with tempfile.TemporaryDirectory(prefix="lab-pyc-") as tmp:
        job = []
        for i, (source, co_filename, mode) in enumerate(items):
            path = Path(tmp) / f"{i}.py"
            path.write_bytes(source)
            job.append([str(path), co_filename, mode])
        (Path(tmp) / "job.json").write_text(json.dumps(job), encoding="utf-8")
        result = subprocess.run([python, str(COMPILE_JOB), str(Path(tmp) / "job.json")],
                                capture_output=True, text=True, timeout=600)
        if result.returncode != 0 or result.stdout.strip() != PYC_MAGIC:
            raise RuntimeError(f"{python} could not compile the sources: {result.stderr.strip()[-800:]}")
        return [(Path(tmp) / f"{i}.pyc").read_bytes() for i in range(len(items))]


# ── which files, and the archives that carry them ────────────────────────────
def read_imports(path: Path = IMPORTS_LIST) -> dict[str, list[str]]:
    """{upstream file: [path inside it, ...]} from pyodide-imports.txt."""
    listed: dict[str, list[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            upstream, inner = line.split()
            listed.setdefault(upstream, []).append(inner)
    return listed


def co_filename(upstream: str, inner: str) -> str:
    """The file name Pyodide gives the module: inside the mounted stdlib zip, or in site-packages."""
    return (STDLIB_PATH if upstream == STDLIB_ZIP else SITE_PACKAGES) + inner


def repacked_name(upstream: str) -> str:
    if upstream == STDLIB_ZIP:
        return STDLIB_PYC_ZIP
    name, version, *tags = upstream[:-len(".whl")].split("-")
    return "-".join([name, version, BUILD_TAG, *tags]) + ".whl"


def repack(upstream: Path, dest: Path, pycs: dict[str, bytes], keep: set[str] | None = None,
           extra: dict[str, bytes] | None = None) -> None:
    """Copy the zip/wheel `upstream` to `dest`, each x.py in `pycs` replaced by x.pyc (same place,
    same date); a wheel's RECORD lists the new entries with their hashes. `keep`: only these entries
    (the pruned standard library, stdlib.py); `extra`: {name: bytes} added at the end."""
    wheel = upstream.suffix == ".whl"
    with zipfile.ZipFile(upstream) as src:
        infos = [info for info in src.infolist() if keep is None or info.filename in keep]
        written: dict[str, bytes] = {}
        with zipfile.ZipFile(dest, "w") as out:
            record = None
            for info in infos:
                data = src.read(info)
                if wheel and info.filename.endswith(".dist-info/RECORD"):
                    record = info
                    continue
                if info.filename in pycs:
                    data, old = pycs[info.filename], info
                    info = zipfile.ZipInfo(old.filename[:-3] + ".pyc", date_time=old.date_time)
                    info.external_attr, info.compress_type = old.external_attr, zipfile.ZIP_DEFLATED
                out.writestr(info, data)
                written[info.filename] = data
            for name, data in (extra or {}).items():
                out.writestr(zipfile.ZipInfo(name, date_time=infos[0].date_time), data, zipfile.ZIP_DEFLATED)
            if record is not None:
                lines = [f"{name},{record_hash(data)},{len(data)}" for name, data in written.items()]
                text = "\n".join(lines + [f"{record.filename},,"]) + "\n"
                out.writestr(record, text.encode())


def missing_sources(upstream: Path, inner: list[str]) -> list[str]:
    with zipfile.ZipFile(upstream) as zf:
        names = set(zf.namelist())
    return [p for p in inner if p not in names]
