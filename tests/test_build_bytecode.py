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


class Parts:
    """Zip files read as one: namelist() and read(name) over all of them (each name in one of them)."""

    def __init__(self, paths):
        self.zips = [zipfile.ZipFile(p) for p in paths]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for z in self.zips:
            z.close()

    def namelist(self) -> list[str]:
        return [name for z in self.zips for name in z.namelist()]

    def read(self, name: str) -> bytes:
        return next(z for z in self.zips if name in z.NameToInfo).read(name)


def _pyc_header(data: bytes) -> tuple[str, int]:
    return data[:4].hex(), int.from_bytes(data[4:8], "little")


def test_pyodide_files_ship_their_start_up_modules_as_bytecode(site):
    manifest = _bytecode_site(site)
    assert manifest["bytecode"]["magic"] == sitebuild.PYC_MAGIC and "3.12" in manifest["bytecode"]["compiler"]
    assert manifest["pyodide"]["stdLibURL"] == sitebuild.STDLIB_PYC_ZIP
    rest = json.loads((site / sitebuild.LAB_LOCK).read_text())["packages"][sitebuild.NUMPY_REST]["file_name"]
    for upstream, inner in sitebuild.read_imports().items():
        ours = site / "pyodide" / sitebuild.repacked_name(upstream)
        # NumPy ships in two parts (sitebuild/pyodide.py split_numpy): read as one
        parts = [ours] + ([site / "pyodide" / rest] if upstream == sitebuild.NUMPY_WHEEL else [])
        with zipfile.ZipFile(pyodide_mirror() / upstream) as original, Parts(parts) as zf:
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


def test_engine_wheel_carries_bytecode_only_and_its_sources_beside_it(site):
    """The wheel holds x.pyc for every engine x.py, without docstrings (issue 39: the first visit downloads no
    source); the sources are one JSON file beside it (build-info.json engine.sources, fetched only for a
    traceback's lines)."""
    manifest = _bytecode_site(site)
    sources = json.loads((site / manifest["engine"]["sources"]).read_text(encoding="utf-8"))
    assert (site / manifest["engine"]["sources"]).parent == (site / manifest["engine"]["wheel"]).parent
    package = sitebuild.ROOT / "py" / "inference_lab"
    assert set(sources) == {f"inference_lab/{p.relative_to(package).as_posix()}" for p in package.rglob("*.py")
                            if "__pycache__" not in p.parts}
    with zipfile.ZipFile(site / manifest["engine"]["wheel"]) as zf:
        names = zf.namelist()
        assert not [n for n in names if n.endswith(".py")]
        assert sorted(n for n in names if n.endswith(".pyc")) == sorted(n + "c" for n in sources)
        for name in sources:
            assert _pyc_header(zf.read(name + "c")) == (sitebuild.PYC_MAGIC, 0b01), name  # hash-based, unchecked
    # the hashes are CPython 3.12's, of the sources beside the wheel: check them with the build's interpreter
    python, _ = sitebuild.find_python312()
    code = ("import importlib.util, json, marshal, sys, zipfile\n"
            "zf = zipfile.ZipFile(sys.argv[1]); sources = json.load(open(sys.argv[2], encoding='utf-8')); bad = []\n"
            "for n, text in sources.items():\n"
            "    pyc = zf.read(n + 'c')\n"
            "    code = marshal.loads(pyc[16:])\n"
            "    if pyc[8:16] != importlib.util.source_hash(text.encode()) or not code.co_filename.endswith('/' + n):\n"
            "        bad.append(n)\n"
            "    if '__doc__' in code.co_names:\n"          # "stripped": no module docstring stored
            "        bad.append('docstring ' + n)\n"
            "print(bad)\n")
    out = subprocess.run([python, "-c", code, str(site / manifest["engine"]["wheel"]),
                          str(site / manifest["engine"]["sources"])], capture_output=True, text=True, check=True)
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
    produced += [manifest["engine"]["wheel"], manifest["engine"]["sources"], sitebuild.LAB_LOCK, "build-info.json",
                 "sw.js"]
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
    gzipped = sitebuild.pyodide.GZIPPED          # shipped gzip'd all the same (test_build_site.py unpacks it)
    assert manifest["pyodide"]["files"] == [n + ".gz" if n in gzipped else n for n in sitebuild.PYODIDE_RUNTIME]
    assert manifest["pyodide"]["load"]["run"] == []      # NumPy whole: no part after "ready"
    for name in sitebuild.PYODIDE_RUNTIME:
        if name not in gzipped:
            assert sitebuild.sha256_file(site / "pyodide" / name) == sitebuild.PYODIDE_PINS[name]
    with zipfile.ZipFile(site / manifest["engine"]["wheel"]) as zf:
        assert not [n for n in zf.namelist() if n.endswith(".pyc")]
    assert "sources" not in manifest["engine"]   # the wheel holds them
