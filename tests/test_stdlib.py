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
import sys
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
    for name in stdlib.TRACED + stdlib.STUDENT + stdlib.WORKER:
        files = [f + c for f in stdlib.module_files(name) for c in ("", "c")]
        upstream = names_of(full_zip)
        assert any(f in names for f in files) or not any(f in upstream for f in stdlib.module_files(name)), name
    assert "fractions.py" not in names and "fractions.pyc" not in names
    assert len(names) < len(names_of(full_zip)) / 2
    assert finder[:4].hex() == sitebuild.PYC_MAGIC
    assert b"fractions" in finder and b"json.tool" in finder and b"LazyStdlib" in finder  # MODULES filled in


def test_what_the_workers_own_python_imports_after_ready_is_kept():
    """static/worker/pyc-cache.js compiles the next visit's bytecode after the warm-up, in the page's Python: an
    import there missing from the pruned zip would make every first visit download the full one (2.3 MB) just
    after 'ready' (issue 41: under load that request raced the page's 'ready')."""
    source = (ROOT / "static" / "worker" / "pyc-cache.js").read_text()
    build = source[source.index("def _lab_pyc_steps"):source.index("`;", source.index("def _lab_pyc_steps"))]
    imported = set()
    for line in build.splitlines():
        words = line.strip().replace(",", " ").split()
        if words[:1] == ["import"]:
            imported |= set(words[1:])
        elif words[:1] == ["from"] and "import" in words:
            imported.add(words[1])
    assert imported and "zipfile" in imported
    assert sorted(imported - set(stdlib.WORKER)) == []


PAGE_RUNS = (  # (config, lang): the default run and runs that reach the clock, the cluster, a trace and a sweep
    ({}, "vi"), ({"CLOCK": "roofline"}, "en"), ({"REPLICAS": 2, "CLOCK": "roofline", "TENSOR_PARALLEL": 2}, "vi"),
    ({"WORKLOAD_TRACE": "azure-conv", "WORKLOAD_REQUESTS": 3, "POOL_BLOCKS": 300, "SLOTS": 3, "QUEUE_LIMIT": 3}, "en"),
)
IMPORTS_OF_RUNS = """
import json, sys
before = set(sys.modules)
from inference_lab.entrypoints import web
for config, lang in json.loads(sys.argv[1]):
    assert json.loads(web.run(json.dumps(config), None, lang))["ok"], config
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_the_pages_runs_import_nothing_the_pruned_zip_left_out(full_zip):
    """A standard-library import the page's runs make that the pruned zip leaves out costs every visitor a
    2.3 MB download just after 'ready' (calibration.py's `import statistics` did: fractions and decimal came
    with it). The same runs here, in a fresh CPython, against the kept list; bench/stdlib_trace.py is the
    whole trace (every exercise and edit, in CPython 3.12)."""
    names = names_of(full_zip)
    imported = [line.split()[1] for line in (ROOT / "pyodide-imports.txt").read_text().splitlines()
                if line.startswith(sitebuild.STDLIB_ZIP + " ")]
    kept = stdlib.kept_files(names, imported)
    modules = set(stdlib.module_names(names))
    out = subprocess.run([sys.executable, "-c", IMPORTS_OF_RUNS, json.dumps(PAGE_RUNS)], capture_output=True, text=True,
                         cwd=ROOT / "py", timeout=600)
    assert out.returncode == 0, out.stderr
    fetched = [m for m in json.loads(out.stdout) if m in modules
               and not any(f in kept for f in stdlib.module_files(m))]
    assert fetched == []


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
