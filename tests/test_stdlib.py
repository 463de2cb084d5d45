"""The pruned standard library (sitebuild/stdlib.py) and its lazy finder (sitebuild/lazy_stdlib.py).

A bytecode build ships only the standard-library files the lab imports, plus the official zip beside them;
the finder the build adds to the pruned zip loads any other module (a student's `import fractions`) from
the official zip, fetched once. Here the finder runs in CPython on the real zip from the Pyodide mirror
(its fetch faked), and the build's output is checked; tests/test_browser_code.py imports fractions in the
page itself.
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import zipfile

import pytest

from lab_site import ROOT, pyodide_mirror, sitebuild

from sitebuild import lazy_stdlib, stdlib


@pytest.fixture(scope="module")
def full_zip() -> bytes:
    mirror = pyodide_mirror()
    if mirror is None:
        pytest.skip("no Pyodide mirror")
    return (mirror / sitebuild.STDLIB_ZIP).read_bytes()


def names_of(data: bytes) -> list[str]:
    import io
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return zf.namelist()


def test_a_left_out_module_is_fetched_once_and_imported_from_the_official_zip(full_zip, tmp_path):
    asked = []
    finder = lazy_stdlib.LazyStdlib("pyodide/python_stdlib.zip", fetch=lambda url: asked.append(url) or full_zip,
                                    modules=stdlib.module_names(names_of(full_zip)), where=str(tmp_path / "full.zip"))
    assert finder.find_spec("not_in_the_standard_library") is None and asked == []
    spec = finder.find_spec("fractions")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.Fraction(1, 3) + module.Fraction(1, 6) == module.Fraction(1, 2)
    assert spec.origin.startswith(str(tmp_path / "full.zip"))
    assert finder.find_spec("json.tool").origin.endswith("json/tool.py")      # a submodule of a kept package
    assert asked == ["pyodide/python_stdlib.zip"]                             # fetched once


@pytest.mark.parametrize("lang, needles", [("vi", ["fractions", "python_stdlib.zip", "kết nối mạng", "offline"]),
                                           ("en", ["fractions", "python_stdlib.zip", "Connect to the network"])])
def test_a_failed_fetch_offline_says_what_to_do(lang, needles, tmp_path):
    def offline(url):
        raise OSError("HTTP 503")
    finder = lazy_stdlib.LazyStdlib("x", fetch=offline, modules={"fractions"}, lang=lang, where=str(tmp_path / "f.zip"))
    with pytest.raises(ModuleNotFoundError) as caught:
        finder.find_spec("fractions")
    assert caught.value.name == "fractions"
    for needle in needles + ["HTTP 503"]:
        assert needle in str(caught.value)
    assert not finder.fetched                                                 # the next import tries again


def test_the_pruned_zip_keeps_what_the_lab_imports_and_the_finder(site, full_zip):
    manifest = json.loads((site / "build-info.json").read_text())
    if not manifest["bytecode"]:
        pytest.skip("a build without CPython 3.12 ships the official zip whole")
    assert manifest["pyodide"]["fullStdLibURL"] == sitebuild.STDLIB_ZIP
    assert sitebuild.STDLIB_ZIP not in manifest["pyodide"]["files"]           # not loaded at start
    full = site / "pyodide" / sitebuild.STDLIB_ZIP
    assert hashlib.sha256(full.read_bytes()).hexdigest() == sitebuild.PYODIDE_PINS[sitebuild.STDLIB_ZIP]
    assert f"pyodide/{sitebuild.STDLIB_ZIP}" in manifest["files"]             # the service worker caches it
    with zipfile.ZipFile(site / "pyodide" / sitebuild.STDLIB_PYC_ZIP) as zf:
        names = set(zf.namelist())
        finder = zf.read(stdlib.LAZY_FINDER + "c")                          # compiled, like the start-up modules
    for name in stdlib.TRACED + stdlib.STUDENT:
        files = [f + c for f in stdlib.module_files(name) for c in ("", "c")]
        upstream = names_of(full_zip)
        assert any(f in names for f in files) or not any(f in upstream for f in stdlib.module_files(name)), name
    assert "fractions.py" not in names and "fractions.pyc" not in names
    assert len(names) < len(names_of(full_zip)) / 2
    assert finder[:4].hex() == sitebuild.PYC_MAGIC
    assert b"fractions" in finder and b"json.tool" in finder and b"LazyStdlib" in finder  # MODULES filled in


def test_the_trace_still_finds_only_kept_modules():
    """bench/stdlib_trace.py --check, where a CPython 3.12 with NumPy is at hand and LAB_STDLIB_TRACE=1 asks
    for it: the trace runs every exercise and edit (minutes on a 2-core machine), so the suite leaves it to
    whoever changes the pruned list (sitebuild/stdlib.py). A module missing from the list is never an error
    anyway: the lazy finder fetches it (test_browser_code's `import fractions`)."""
    if os.environ.get("LAB_STDLIB_TRACE") != "1":
        pytest.skip("the import trace takes minutes: LAB_STDLIB_TRACE=1 runs it")
    python, _ = sitebuild.find_python312()
    if python is None or subprocess.run([python, "-c", "import numpy"], capture_output=True).returncode:
        pytest.skip("no CPython 3.12 with NumPy")
    out = subprocess.run([python, str(ROOT / "bench" / "stdlib_trace.py"), "--check"], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
