"""The built site (sitebuild/, build.py): its manifest, the page's CSP, the engine wheel, minified static
files, the CDN build, the build's command line and server, and one build version for the page's modules,
worker and service worker. Leaves out: the Pyodide pins and mirror (test_build_pins.py), the font
(test_build_fonts.py) and the bytecode (test_build_bytecode.py)."""
from __future__ import annotations

import gzip
import hashlib
import json
import re
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

from build_helpers import vendored
from lab_site import GOLDEN, ROOT, RecordingServer, sitebuild


@pytest.fixture
def site(site) -> Path:
    """The session's vendored build (conftest.py), checked here only when it came from a Pyodide mirror."""
    return vendored(site)


def test_manifest_lists_every_file_with_its_hash(site):
    manifest = json.loads((site / "build-info.json").read_text())
    on_disk = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()} - {"build-info.json", "sw.js"}
    assert set(manifest["files"]) == on_disk
    for name, info in manifest["files"].items():
        data = (site / name).read_bytes()
        assert info == {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    assert manifest["pyodide"]["indexURL"] == "pyodide/"
    assert (site / manifest["engine"]["wheel"]).is_file()


def test_page_csp_allows_only_its_own_origin(site):
    html = (site / "index.html").read_text()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
    assert "http" not in csp and "unsafe-inline" not in csp and "'unsafe-eval'" not in csp
    assert "script-src 'self' 'wasm-unsafe-eval'" in csp and "worker-src 'self'" in csp
    assert re.search(r'src="static/app\.js\?v=[0-9a-f]{12}"', html)
    assert "<script>" not in html and "style=" not in html  # nothing inline for the CSP to allow


def test_engine_wheel_is_valid_and_prints_the_golden_run(site, tmp_path):
    wheel = site / json.loads((site / "build-info.json").read_text())["engine"]["wheel"]
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        record = zf.read(next(n for n in names if n.endswith(".dist-info/RECORD"))).decode()
        for line in record.splitlines():
            name, digest, size = line.rsplit(",", 2)
            if digest:  # RECORD lists itself without a hash
                data = zf.read(name)
                assert digest == sitebuild.record_hash(data) and int(size) == len(data), name
        assert set(names) == {line.rsplit(",", 2)[0] for line in record.splitlines()}
        assert "Tag: py3-none-any" in zf.read(next(n for n in names if n.endswith("/WHEEL"))).decode()
    # import the engine from the wheel's files, as Pyodide will; a bytecode-only wheel's .pyc (CPython 3.12's) are
    # replaced by the sources beside it (build-info.json engine.sources), so this Python can import them
    engine = json.loads((site / "build-info.json").read_text())["engine"]
    folder = tmp_path / "site-packages"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(folder)
    for name, text in (json.loads((site / engine["sources"]).read_text()) if "sources" in engine else {}).items():
        (folder / name).write_text(text, encoding="utf-8")
        (folder / (name + "c")).unlink()
    code = ("import json, sys; from inference_lab.entrypoints import web; from inference_lab.entrypoints.report "
            "import Report; "
            "sys.stdout.write(Report.from_dict(json.loads(web.run('{}'))['report']).to_text())")
    out = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(folder), "PATH": ""},
                         capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert out == GOLDEN.read_text(encoding="utf-8")


def test_static_files_are_minified_unless_asked_not_to(site, tmp_path):
    for name in ("app.js", "worker/worker.js", "style.css", "charts/figure.js"):
        source, built = (ROOT / "static" / name).read_text(), (site / "static" / name).read_text()
        if name == "worker/worker.js":   # with its helpers in front (sitebuild/page.py bundle_worker)
            source += "".join((ROOT / "static" / helper).read_text() for helper in sitebuild.page.WORKER_HELPERS)
        assert len(built) < 0.9 * len(source), name
        assert "// " not in built.split("\n", 1)[0] or name.endswith(".css"), name
    plain = sitebuild.build(tmp_path / "plain", "cdn", minify=False)
    # the same text but for the build's version on the module imports (sitebuild.version_module_imports)
    unstamped = re.sub(r"\?v=[0-9a-f]{12}(['\"])", r"\1", (plain / "static" / "app.js").read_text())
    assert unstamped == (ROOT / "static" / "app.js").read_text()


def test_the_built_worker_starts_with_one_request(site):
    """Issue 39: dist/'s worker.js carries the classic scripts it loads (page.WORKER_HELPERS) in front of its own
    code, each setting the global worker.js checks before it would call importScripts: the worker's start is one
    request, and the page's fill.js and protocol.js are the only copies fetched."""
    built = (site / "static" / "worker" / "worker.js").read_text()
    first_import = built.index("importScripts(")
    sets = {"words/fill.js": "globalThis.labFill=", "words/worker.js": "self.WORKER_WORDS=",
            "worker/pyc-cache.js": "self.labPyc=", "worker/protocol.js": "globalThis.labProtocol=",
            "worker/interrupt.js": "self.labInterrupt=", "worker/gunzip.js": "self.labGunzip="}
    assert set(sets) == set(sitebuild.page.WORKER_HELPERS)
    for name, assignment in sets.items():
        helper = (site / "static" / name).read_text().strip()
        assert assignment in helper.replace(" ", ""), name
        assert 0 <= built.index(helper) < first_import, name


def test_wheel_is_reproducible(tmp_path):
    first, _ = sitebuild.build_wheel(ROOT / "py", tmp_path / "a")
    second, _ = sitebuild.build_wheel(ROOT / "py", tmp_path / "b")
    assert first.name == second.name and first.read_bytes() == second.read_bytes()


def test_cdn_build_vendors_nothing_and_allows_only_the_cdn(tmp_path):
    site = sitebuild.build(tmp_path / "dist", "cdn")
    assert not (site / "pyodide").exists()
    assert json.loads((site / sitebuild.LAB_LOCK).read_text())["info"]["version"] == sitebuild.PYODIDE_VERSION
    manifest = json.loads((site / "build-info.json").read_text())
    assert manifest["pyodide"]["indexURL"] == sitebuild.PYODIDE_CDN
    csp = re.search(r'Content-Security-Policy" content="([^"]+)"', (site / "index.html").read_text()).group(1)
    assert re.findall(r"https://[^ ;]+", csp) == ["https://cdn.jsdelivr.net", "https://cdn.jsdelivr.net"]


def test_refuses_to_wipe_a_folder_that_is_not_a_build(tmp_path):
    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    with pytest.raises(sitebuild.BuildError):
        sitebuild.build(precious, "cdn")
    assert (precious / "notes.txt").read_text() == "keep me"


def test_server_sends_wasm_with_its_mime_type(site):
    assert sitebuild.SiteHandler.extensions_map[".wasm"] == "application/wasm"   # a --pyodide cdn build's own files
    srv = RecordingServer(site)
    try:
        with urllib.request.urlopen(srv.url) as resp:
            assert "Chạy" in resp.read().decode()
    finally:
        srv.close()


def test_pyodide_asm_wasm_ships_gzip_d_and_unpacks_to_the_pinned_file(site):
    """A plain file server sends files as they are: the 10.1 MB wasm goes out as its 3.2 MB gzip (the worker
    unpacks it as it arrives); what it unpacks to is the official file, byte for byte, and the build's bytes are the
    same every time (no name or time in the gzip header)."""
    manifest = json.loads((site / "build-info.json").read_text())
    assert manifest["pyodide"]["gzip"] == {"pyodide.asm.wasm": "pyodide.asm.wasm.gz"}
    assert "pyodide.asm.wasm.gz" in manifest["pyodide"]["files"]
    assert not (site / "pyodide" / "pyodide.asm.wasm").exists()
    packed = (site / "pyodide" / "pyodide.asm.wasm.gz").read_bytes()
    assert packed[:2] == b"\x1f\x8b" and packed[4:8] == b"\0\0\0\0"           # gzip, mtime 0
    assert len(packed) < 0.35 * sitebuild.locate_pyodide_file("pyodide.asm.wasm").stat().st_size
    assert hashlib.sha256(gzip.decompress(packed)).hexdigest() == sitebuild.PYODIDE_PINS["pyodide.asm.wasm"]
    assert manifest["files"]["pyodide/pyodide.asm.wasm.gz"]["sha256"] == hashlib.sha256(packed).hexdigest()
    srv = RecordingServer(site)
    try:
        with urllib.request.urlopen(srv.url + "pyodide/pyodide.asm.wasm.gz") as resp:
            assert resp.read() == packed
    finally:
        srv.close()


def test_command_line_reports_errors_without_a_traceback(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "build.py"), "--engine", str(tmp_path), "--out",
                             str(tmp_path / "d")],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.startswith("build.py: error:") and "Traceback" not in result.stderr


def test_module_imports_carry_the_page_version(site):
    """Every relative import between the modules has index.html's ?v=, so a module loads once per build."""
    version = re.search(r'src="static/app\.js\?v=([0-9a-f]{12})"', (site / "index.html").read_text()).group(1)
    specifiers = []
    for path in sorted((site / "static").rglob("*.js")):
        specifiers += re.findall(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}/[^'"]+)['"]""", path.read_text())
    assert len(specifiers) > 20  # app.js's modules, the tools' and the charts' imports
    assert [s for s in specifiers if not s.endswith(".js?v=" + version)] == []


# ── one build version and one set of cache names (build.py) for worker.js, pyc-cache.js and sw.js ──
def test_build_version_and_cache_names_come_from_build_py_only(site):
    manifest = json.loads((site / "build-info.json").read_text())
    assert manifest["build"] == {"version": sitebuild.build_version(manifest["files"]), "caches": sitebuild.CACHE_NAMES,
                                 "coep": "require-corp"}   # a vendored build: sitebuild/serve.py embedder_policy
    assert re.fullmatch(r"[0-9a-f]{16}", manifest["build"]["version"])
    for name in ("static/worker/worker.js", "static/worker/pyc-cache.js", "static/worker/sw.js"):
        source = (ROOT / name).read_text()
        for cache in sitebuild.CACHE_NAMES.values():
            assert f"'{cache}" not in source and f'"{cache}' not in source, (name, cache)
        # no version derived in JS (sw.js checks files, pyc-cache.js checks its cache against the page's digest)
        assert "crypto.subtle.digest" not in source or name != "static/worker/worker.js", name
        assert "build.version = " not in source and "version = await" not in source, name
    worker = (ROOT / "static" / "worker" / "worker.js").read_text()
    pyc_cache = (ROOT / "static" / "worker" / "pyc-cache.js").read_text()
    assert worker.count("self.fetch =") == 1 and "self.fetch" not in pyc_cache


def test_build_version_changes_with_any_file():
    files = {"a.js": {"sha256": "1" * 64, "bytes": 1}, "b.whl": {"sha256": "2" * 64, "bytes": 2}}
    changed = {**files, "b.whl": {"sha256": "3" * 64, "bytes": 2}}
    assert sitebuild.build_version(files) != sitebuild.build_version(changed)
    assert sitebuild.build_version(files) == sitebuild.build_version(dict(reversed(list(files.items()))))
