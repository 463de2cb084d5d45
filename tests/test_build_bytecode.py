"""Bytecode compiled at build time (sitebuild/bytecode.py, issue 15): the Pyodide files' start-up modules
and the engine wheel ship .pyc, reproducibly; without CPython 3.12 the build ships sources and says so.
Leaves out: the rest of the build (test_build_site.py, test_build_pins.py, test_build_fonts.py)."""
from __future__ import annotations

import json
import subprocess
import zipfile
from pathlib import Path

import pytest

from build_helpers import needs_mirror, vendored
from lab_site import build_site, pyodide_mirror, sitebuild
from sitebuild import stdlib


@pytest.fixture
def site(site) -> Path:
    """The session's vendored build (conftest.py), checked here only when it came from a Pyodide mirror."""
    return vendored(site)


def _bytecode_site(site):
    manifest = json.loads((site / "build-info.json").read_text())
    if not manifest["bytecode"]:
        pytest.skip("no CPython 3.12 on this machine: the build shipped sources (tested below)")
    return manifest


def _pyc_header(data: bytes) -> tuple[str, int]:
    return data[:4].hex(), int.from_bytes(data[4:8], "little")


def test_pyodide_files_ship_their_start_up_modules_as_bytecode(site):
    manifest = _bytecode_site(site)
    assert manifest["bytecode"]["magic"] == sitebuild.PYC_MAGIC and "3.12" in manifest["bytecode"]["compiler"]
    assert manifest["pyodide"]["stdLibURL"] == sitebuild.STDLIB_PYC_ZIP
    for upstream, inner in sitebuild.read_imports().items():
        ours = site / "pyodide" / sitebuild.repacked_name(upstream)
        with zipfile.ZipFile(pyodide_mirror() / upstream) as original, zipfile.ZipFile(ours) as zf:
            names = set(zf.namelist())
            for path in inner:
                assert path not in names and path + "c" in names, path  # the source replaced by its bytecode
                assert _pyc_header(zf.read(path + "c")) == (sitebuild.PYC_MAGIC, 0b01)  # hash-based, unchecked
            listed = set(inner)
            for info in original.infolist():  # everything else kept exactly as upstream (the stdlib: pruned)
                kept = info.filename in names or info.filename in listed
                numpy_dropped = (upstream.startswith("numpy-")
                                 and info.filename not in stdlib.numpy_kept([info.filename]))
                assert kept or upstream == sitebuild.STDLIB_ZIP or numpy_dropped, info.filename
                if kept and info.filename not in listed and not info.filename.endswith(".dist-info/RECORD"):
                    assert zf.read(info.filename) == original.read(info), info.filename
            if ours.suffix == ".whl":
                record = zf.read(next(n for n in names if n.endswith(".dist-info/RECORD"))).decode()
                rows = [line.rsplit(",", 2) for line in record.splitlines()]
                assert {name for name, _, _ in rows} == names
                for name, digest, size in rows:
                    if digest:
                        assert digest == sitebuild.record_hash(zf.read(name)) and int(size) == len(zf.read(name)), name


def test_engine_wheel_carries_checked_bytecode_beside_its_sources(site):
    manifest = _bytecode_site(site)
    with zipfile.ZipFile(site / manifest["engine"]["wheel"]) as zf:
        names = zf.namelist()
        sources = [n for n in names if n.endswith(".py")]
        assert sources and all(n.startswith("inference_lab/") for n in sources)
        for source in sources:
            folder, _, module = source.rpartition("/")
            pyc = zf.read(f"{folder}/__pycache__/{module[:-3]}.cpython-312.pyc")
            assert _pyc_header(pyc) == (sitebuild.PYC_MAGIC, 0b11)  # checked against the source's hash
    # the hashes are CPython 3.12's: check them with the interpreter the build used
    python, _ = sitebuild.find_python312()
    code = ("import importlib.util, sys, zipfile\n"
            "zf = zipfile.ZipFile(sys.argv[1]); bad = []\n"
            "for n in zf.namelist():\n"
            "    if n.endswith('.py'):\n"
            "        d, _, m = n.rpartition('/')\n"
            "        pyc = zf.read(f'{d}/__pycache__/{m[:-3]}.cpython-312.pyc')\n"
            "        if pyc[8:16] != importlib.util.source_hash(zf.read(n)): bad.append(n)\n"
            "print(bad)\n")
    out = subprocess.run([python, "-c", code, str(site / manifest["engine"]["wheel"])], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "[]"


@needs_mirror
def test_bytecode_build_is_reproducible(site, tmp_path, monkeypatch):
    """A build that compiles everything anew (an empty .pyc cache) gives the session's build byte for byte,
    whether that one compiled its files or took them from the cache."""
    manifest = _bytecode_site(site)
    monkeypatch.setattr(sitebuild.bytecode, "PYC_CACHE", tmp_path / "pyc")
    again = build_site(tmp_path / "dist")
    assert len(list((tmp_path / "pyc").rglob("*"))) > 100
    produced = [f"pyodide/{n}" for n in manifest["pyodide"]["files"] if n not in sitebuild.PYODIDE_PINS]
    produced += [manifest["engine"]["wheel"], sitebuild.LAB_LOCK, "build-info.json", "sw.js"]
    for path in produced:
        assert (again / path).read_bytes() == (site / path).read_bytes(), path


def test_a_rebuild_takes_unchanged_files_from_the_cache_and_compiles_a_changed_one(tmp_path, monkeypatch):
    python, _ = sitebuild.find_python312()
    if python is None:
        pytest.skip("no CPython 3.12 on this machine")
    monkeypatch.setattr(sitebuild.bytecode, "PYC_CACHE", tmp_path / "pyc")
    items = [(b"x = 1\n", "/lib/a.py", "unchecked"), (b"def f():\n    return 2\n", "/lib/b.py", "checked")]
    first = sitebuild.bytecode.compile_sources(python, items)
    compiled = []
    real = sitebuild.bytecode.run_compile_job
    monkeypatch.setattr(sitebuild.bytecode, "run_compile_job", lambda py, todo: compiled.append(todo) or real(py, todo))
    assert sitebuild.bytecode.compile_sources(python, items) == first and compiled == []
    changed = [items[0], (b"def f():\n    return 3\n", "/lib/b.py", "checked")]
    again = sitebuild.bytecode.compile_sources(python, changed)
    assert compiled == [[changed[1]]] and again[0] == first[0] and again[1] != first[1]
    assert again[1][:4].hex() == sitebuild.PYC_MAGIC


@needs_mirror
def test_without_python_3_12_the_build_ships_sources_and_says_so_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(sitebuild.PYTHON312_ENV, "none")
    site = build_site(tmp_path / "dist")
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "3.12" in line]
    assert len(lines) == 1 and "no CPython 3.12" in lines[0] and "sources" in lines[0]
    manifest = json.loads((site / "build-info.json").read_text())
    assert manifest["bytecode"] is None and "stdLibURL" not in manifest["pyodide"]
    assert manifest["pyodide"]["files"] == sitebuild.PYODIDE_RUNTIME
    for name in sitebuild.PYODIDE_RUNTIME:
        assert sitebuild.sha256_file(site / "pyodide" / name) == sitebuild.PYODIDE_PINS[name]
    with zipfile.ZipFile(site / manifest["engine"]["wheel"]) as zf:
        assert not [n for n in zf.namelist() if n.endswith(".pyc")]
