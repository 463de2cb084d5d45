#!/usr/bin/env python3
"""The part of the bytecode build that runs inside CPython 3.12: compile a job's sources to .pyc files.

bytecode.py writes the sources and a JOB.json, then runs this file as a script with the 3.12
interpreter it found (Pyodide 0.27.7 is Python 3.12.7: same bytecode, same magic number):

    python3.12 sitebuild/compile_job.py JOB.json     # JOB.json: [[source file, co_filename, mode], ...]

Each source x.py gets x.pyc beside it: hash-based (PEP 552), "checked" or "unchecked" as the job
says, no optimisation (asserts and docstrings stay). It prints the interpreter's magic number, which
bytecode.py compares with the one Pyodide expects. Standard library only, and it imports nothing
from the package, so any python3.12 can run it as a plain script. Left out: everything else
(finding the interpreter, which files, the archives: bytecode.py).
"""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path


def compile_job(job_path: str) -> None:
    from importlib._bootstrap_external import _code_to_hash_pyc
    for source_path, co_filename, mode in json.loads(Path(job_path).read_text(encoding="utf-8")):
        source = Path(source_path).read_bytes()
        code = compile(source, co_filename, "exec", dont_inherit=True, optimize=0)
        data = _code_to_hash_pyc(code, importlib.util.source_hash(source), mode == "checked")
        Path(source_path + "c").write_bytes(bytes(data))
    print(importlib.util.MAGIC_NUMBER.hex())


if __name__ == "__main__":
    compile_job(sys.argv[1])
