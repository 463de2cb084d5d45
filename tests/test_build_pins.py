"""The build's Pyodide files (sitebuild/, build.py): the pins against the mirror, the lab's cut-down lock, a
damaged or missing mirror file, a relative mirror path, checked and cached downloads, the imports list.
Leaves out: the built site's own files (test_build_site.py), the font (test_build_fonts.py) and the
bytecode (test_build_bytecode.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from build_helpers import fake_mirror, needs_mirror, vendored
from lab_site import ROOT, RecordingServer, pyodide_mirror, sitebuild


@pytest.fixture
def site(site) -> Path:
    """The session's vendored build (conftest.py), checked here only when it came from a Pyodide mirror."""
    return vendored(site)


def test_pins_match_the_mirror_checksums():
    mirror = pyodide_mirror()
    if mirror is None or not (mirror / "SHA256SUMS").is_file():
        pytest.skip("no mirror with SHA256SUMS")
    sums = dict(reversed(line.split()) for line in (mirror / "SHA256SUMS").read_text().splitlines() if line.strip())
    assert sums == sitebuild.PYODIDE_PINS


def test_vendored_site_has_the_pinned_files_the_lab_loads(site):
    manifest = json.loads((site / "build-info.json").read_text())
    shipped = manifest["pyodide"]["files"]
    # lazy, sitebuild/stdlib.py
    full = [manifest["pyodide"]["fullStdLibURL"]] if "fullStdLibURL" in manifest["pyodide"] else []
    assert sorted(p.name for p in (site / "pyodide").iterdir()) == sorted(shipped + full)
    for name in full:
        assert sitebuild.sha256_file(site / "pyodide" / name) == sitebuild.PYODIDE_PINS[name]
    # + NumPy's part loaded after "ready" in a bytecode build (sitebuild/pyodide.py split_numpy)
    assert len(shipped) == len(sitebuild.PYODIDE_RUNTIME) + bool(manifest["bytecode"])
    gzipped = set(manifest["pyodide"].get("gzip", {}).values())  # unpacked and checked: test_build_site.py
    for name in shipped:  # upstream files as pinned; the bytecode build's own files are listed with their hash
        if name in gzipped:
            assert manifest["files"][f"pyodide/{name}"]["sha256"] == sitebuild.sha256_file(site / "pyodide" / name)
        elif name in sitebuild.PYODIDE_PINS:
            assert sitebuild.sha256_file(site / "pyodide" / name) == sitebuild.PYODIDE_PINS[name]
        else:
            assert manifest["bytecode"]
            assert manifest["files"][f"pyodide/{name}"]["sha256"] == sitebuild.sha256_file(site / "pyodide" / name)
    for name in ("index.html", "static/app.js", "static/worker/worker.js", "static/style.css", "build-info.json"):
        assert (site / name).is_file(), name


def test_lab_lock_is_the_official_lock_cut_down_to_numpy_and_micropip(site):
    official = json.loads((pyodide_mirror() / "pyodide-lock.json").read_text())
    lab = json.loads((site / sitebuild.LAB_LOCK).read_text())
    manifest = json.loads((site / "build-info.json").read_text())
    assert manifest["pyodide"]["lockFileURL"] == sitebuild.LAB_LOCK
    rest = [sitebuild.NUMPY_REST] if manifest["bytecode"] else []  # sitebuild/pyodide.py split_numpy
    assert lab["info"] == official["info"] and sorted(lab["packages"]) == ["micropip", "numpy", *rest]
    assert manifest["pyodide"]["load"] == {"run": rest, "later": ["micropip"]}
    # NumPy's wheel (the part `import numpy` reads) the worker unpacks itself, fetched with its Subresource Integrity
    [numpy] = manifest["pyodide"]["unpack"]
    assert numpy["name"] == "numpy" and numpy["file"] == lab["packages"]["numpy"]["file_name"]
    assert numpy["integrity"] == sitebuild.sri(sitebuild.sha256_file(site / "pyodide" / numpy["file"]))
    for name in rest:
        entry = lab["packages"][name]
        assert entry == {**official["packages"]["numpy"], "name": name, "imports": [], "depends": ["numpy"],
                         "unvendored_tests": False, "file_name": entry["file_name"], "sha256": entry["sha256"]}
        assert entry["sha256"] == sitebuild.sha256_file(site / "pyodide" / entry["file_name"])
    shipped = {}  # a bytecode build's repacked wheels: their own file name and sha256
    for name in ("numpy", "micropip"):
        file_name = lab["packages"][name]["file_name"]
        assert (site / "pyodide" / file_name).is_file()
        if file_name != official["packages"][name]["file_name"]:
            shipped[name] = {"file_name": file_name, "sha256": sitebuild.sha256_file(site / "pyodide" / file_name)}
    assert bool(shipped) == bool(manifest["bytecode"])
    assert lab["packages"]["numpy"] == {**official["packages"]["numpy"], **shipped.get("numpy", {})}
    assert official["packages"]["micropip"]["depends"] == ["packaging"]
    assert lab["packages"]["micropip"] == {**official["packages"]["micropip"], "depends": [],
                                           **shipped.get("micropip", {})}


def test_micropip_needs_no_packaging_wheel(tmp_path):
    """Why the lab's lock drops micropip's `depends: ["packaging"]`: micropip 0.9.0 uses its vendored
    copy (micropip._vendored.packaging) and requires nothing at run time. Checked here by importing
    micropip's modules from its wheel with any top-level `packaging` made unimportable (the browser
    tests then install the engine with it in Pyodide)."""
    mirror = pyodide_mirror()
    if mirror is None:
        pytest.skip("no Pyodide mirror (set LAB_PYODIDE_MIRROR)")
    wheel = mirror / "micropip-0.9.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as zf:
        metadata = zf.read("micropip-0.9.0.dist-info/METADATA").decode()
        zf.extractall(tmp_path / "site")  # unpacked, as in Pyodide (_vendored is a namespace package)
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:")]
    assert requires and all("extra ==" in line for line in requires)
    code = (
        "import sys\n"
        "class NoPackaging:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'packaging': raise ImportError(name)\n"
        "sys.meta_path.insert(0, NoPackaging())\n"
        "import micropip, micropip.install, micropip.transaction, micropip.wheelinfo, micropip.metadata\n"
        "print(micropip.__version__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(tmp_path / "site"), "PATH": ""},
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0 and out.stdout.strip() == "0.9.0", out.stderr


@needs_mirror
def test_a_damaged_mirror_file_stops_the_build(tmp_path, monkeypatch):
    monkeypatch.setenv(sitebuild.MIRROR_ENV, str(fake_mirror(tmp_path, corrupt="pyodide.asm.wasm")))
    with pytest.raises(sitebuild.BuildError) as err:
        sitebuild.build(tmp_path / "dist")
    message = str(err.value)
    assert "pyodide.asm.wasm" in message and sitebuild.PYODIDE_PINS["pyodide.asm.wasm"] in message
    assert sitebuild.MIRROR_ENV in message
    assert not (tmp_path / "dist").exists(), "no half-built site is left behind"


@needs_mirror
def test_a_file_missing_everywhere_stops_the_build_with_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv(sitebuild.MIRROR_ENV, str(fake_mirror(tmp_path, drop="python_stdlib.zip")))
    monkeypatch.setattr(sitebuild.PYODIDE_SOURCE, "cache", tmp_path / "cache")
    monkeypatch.setattr(sitebuild.PYODIDE_SOURCE, "cdn", "http://127.0.0.1:9/")  # nothing listens there
    with pytest.raises(sitebuild.BuildError) as err:
        sitebuild.build(tmp_path / "dist")
    message = str(err.value)
    assert "python_stdlib.zip" in message and sitebuild.MIRROR_ENV in message and "network" in message
    assert not list((tmp_path / "cache").glob("*")), "a failed download leaves nothing in the cache"


@needs_mirror
def test_a_relative_mirror_is_read_from_the_folder_the_command_started_in(tmp_path, monkeypatch):
    """LAB_PYODIDE_MIRROR=../shared/pyodide-0.27.7 (the README's) names a folder relative to where the
    command started: resolved once against it, not against whatever folder the build is in later."""
    mirror = fake_mirror(tmp_path)
    relative = os.path.relpath(mirror, sitebuild.STARTED_IN)
    monkeypatch.setenv(sitebuild.MIRROR_ENV, relative)
    monkeypatch.setattr(sitebuild.PYODIDE_SOURCE, "cache", tmp_path / "cache")
    monkeypatch.setattr(sitebuild.PYODIDE_SOURCE, "cdn", "http://127.0.0.1:9/")  # no fallback
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert not Path(relative).is_absolute()
    assert sitebuild.locate_pyodide_file("pyodide.js") == mirror.resolve() / "pyodide.js"
    assert not (tmp_path / "cache").exists()
    # the command, started in another folder with a path relative to that folder
    (mirror / "pyodide-lock.json").unlink()
    (mirror / "pyodide-lock.json").write_text("{}")  # a wrong file, so the message names where it was read
    start = tmp_path / "start"
    start.mkdir()
    env = {**os.environ, sitebuild.MIRROR_ENV: os.path.join("..", "mirror"), "LAB_PYTHON312": "none"}
    result = subprocess.run([sys.executable, str(ROOT / "build.py"), "--pyodide", "cdn", "--out", "dist"],
                            cwd=start, env=env, capture_output=True, text=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"build.py: error: {mirror.resolve() / 'pyodide-lock.json'}: sha256" in result.stderr
    assert not (start / "dist").exists()


@needs_mirror
def test_downloads_are_checked_and_cached(tmp_path, monkeypatch):
    """With an empty mirror, files come from the 'CDN' (here a local server) into the cache."""
    cdn = RecordingServer(pyodide_mirror())
    monkeypatch.delenv(sitebuild.MIRROR_ENV, raising=False)
    monkeypatch.setattr(sitebuild.PYODIDE_SOURCE, "cache", tmp_path / "cache")
    monkeypatch.setattr(sitebuild.PYODIDE_SOURCE, "cdn", cdn.url)
    try:
        sitebuild.build(tmp_path / "dist")
        cached = sorted(p.name for p in (tmp_path / "cache").iterdir())
        assert cached == sorted(sitebuild.PYODIDE_RUNTIME + ["pyodide-lock.json"])
        asked = len(cdn.paths)
        sitebuild.build(tmp_path / "dist")  # second build: everything from the cache
        assert len(cdn.paths) == asked
    finally:
        cdn.close()


def test_imports_list_names_files_the_pinned_upstream_files_hold():
    listed = sitebuild.read_imports()
    assert set(listed) <= set(sitebuild.PYODIDE_RUNTIME) and sitebuild.STDLIB_ZIP in listed
    mirror = pyodide_mirror()
    if mirror is None:
        pytest.skip("no Pyodide mirror (set LAB_PYODIDE_MIRROR)")
    for upstream, inner in listed.items():
        assert inner == sorted(set(inner)) and all(p.endswith(".py") for p in inner)
        assert sitebuild.missing_sources(mirror / upstream, inner) == [], upstream


def test_numpy_ships_in_two_parts_the_one_before_ready_holding_what_import_numpy_reads(site):
    """A bytecode build splits the repacked NumPy wheel (sitebuild/pyodide.py split_numpy): the wheel, loaded before
    "ready", keeps everything `import numpy` reads; the subpackages it does not import (stdlib.NUMPY_AFTER_READY:
    numpy.random, fft, polynomial, ma, testing, ...) go into the lock's numpy-rest zip, loaded right after "ready".
    Together they are the repacked wheel: every entry once, the same bytes."""
    manifest = json.loads((site / "build-info.json").read_text())
    if not manifest["bytecode"]:
        pytest.skip("a build without CPython 3.12 ships NumPy whole")
    lab = json.loads((site / sitebuild.LAB_LOCK).read_text())
    with zipfile.ZipFile(site / "pyodide" / lab["packages"]["numpy"]["file_name"]) as core, \
            zipfile.ZipFile(site / "pyodide" / lab["packages"][sitebuild.NUMPY_REST]["file_name"]) as rest:
        front, back = core.namelist(), rest.namelist()
        assert not set(front) & set(back)
        assert all(sitebuild.stdlib.numpy_after_ready(p) for p in back)
        assert not any(sitebuild.stdlib.numpy_after_ready(p) for p in front)
        record = next(p for p in front if p.endswith(".dist-info/RECORD"))
        listed = {line.split(",")[0] for line in core.read(record).decode().splitlines() if line}
        assert listed == set(front) | set(back)                 # the wheel's RECORD: NumPy whole
        so = ".cpython-312-wasm32-emscripten.so"
        assert {"numpy/__init__.pyc", "numpy/_core/_multiarray_umath" + so, "numpy/linalg/_umath_linalg" + so,
                "numpy/_core/_multiarray_tests" + so} <= set(front)   # _add_newdocs imports the last one
        assert {"numpy/random/__init__.pyc", "numpy/random/_generator" + so, "numpy/fft/__init__.py"} <= set(back)
        assert sum(i.compress_size for i in rest.infolist()) > 0.8e6   # not fetched before "ready"
