#!/usr/bin/env python3
"""The part of the bytecode build that runs inside CPython 3.12: compile a job's sources to .pyc files.

bytecode.py writes the sources and a JOB.json, then runs this file as a script with the 3.12
interpreter it found (Pyodide 0.27.7 is Python 3.12.7: same bytecode, same magic number):

    python3.12 sitebuild/compile_job.py JOB.json     # JOB.json: [[source file, co_filename, mode], ...]

Each source x.py gets x.pyc beside it: hash-based (PEP 552), "checked" or "unchecked" as the job
says, no optimisation (asserts and docstrings stay); "stripped" is "unchecked" without the docstrings of the
module, its classes and functions (the engine wheel: its __doc__ are read by nobody in the browser, and they
were a fifth of its bytecode; asserts stay, line numbers are the source's). It prints the interpreter's magic
number, which bytecode.py compares with the one Pyodide expects. Standard library only, and it imports nothing
from the package, so any python3.12 can run it as a plain script. Left out: everything else
(finding the interpreter, which files, the archives: bytecode.py).
"""
from __future__ import annotations

import ast
import importlib.util
import json
import sys
from pathlib import Path


def without_docstrings(tree: ast.Module) -> ast.Module:
    """The module with the docstrings of itself, its classes and functions left out (a body left empty: `pass`)."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value,
                                                                                                   str):
                node.body = node.body[1:] or [ast.copy_location(ast.Pass(), first)]
    return tree


def compile_job(job_path: str) -> None:
    from importlib._bootstrap_external import _code_to_hash_pyc
    for source_path, co_filename, mode in json.loads(Path(job_path).read_text(encoding="utf-8")):
        source = Path(source_path).read_bytes()
        tree = without_docstrings(ast.parse(source, co_filename)) if mode == "stripped" else source
        code = compile(tree, co_filename, "exec", dont_inherit=True, optimize=0)
        data = _code_to_hash_pyc(code, importlib.util.source_hash(source), mode == "checked")
        Path(source_path + "c").write_bytes(bytes(data))
    print(importlib.util.MAGIC_NUMBER.hex())


if __name__ == "__main__":
    compile_job(sys.argv[1])
