"""The build (sitebuild/, build.py): pinned Pyodide files, the engine wheel, the page's CSP and the manifest (no browser)."""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest

from lab_site import GOLDEN, ROOT, RecordingServer, sitebuild, build_site, pyodide_mirror

needs_mirror = pytest.mark.skipif(pyodide_mirror() is None, reason="no Pyodide mirror (set LAB_PYODIDE_MIRROR)")


@pytest.fixture
def site(site) -> Path:
    """The session's vendored build (conftest.py), checked here only when it came from a Pyodide mirror."""
    if pyodide_mirror() is None:
        pytest.skip("no Pyodide mirror (set LAB_PYODIDE_MIRROR)")
    return site


def test_pins_match_the_mirror_checksums():
    mirror = pyodide_mirror()
    if mirror is None or not (mirror / "SHA256SUMS").is_file():
        pytest.skip("no mirror with SHA256SUMS")
    sums = dict(reversed(line.split()) for line in (mirror / "SHA256SUMS").read_text().splitlines() if line.strip())
    assert sums == sitebuild.PYODIDE_PINS


def test_vendored_site_has_the_pinned_files_the_lab_loads(site):
    manifest = json.loads((site / "build-info.json").read_text())
    shipped = manifest["pyodide"]["files"]
    assert sorted(p.name for p in (site / "pyodide").iterdir()) == sorted(shipped)
    assert len(shipped) == len(sitebuild.PYODIDE_RUNTIME)
    for name in shipped:  # upstream files as pinned; the bytecode build's own files are listed with their hash
        if name in sitebuild.PYODIDE_PINS:
            assert sitebuild.sha256_file(site / "pyodide" / name) == sitebuild.PYODIDE_PINS[name]
        else:
            assert manifest["bytecode"] and manifest["files"][f"pyodide/{name}"]["sha256"] == sitebuild.sha256_file(site / "pyodide" / name)
    for name in ("index.html", "static/core/app.js", "static/worker/worker.js", "static/style.css", "build-info.json"):
        assert (site / name).is_file(), name


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
    assert re.search(r'src="static/core/app\.js\?v=[0-9a-f]{12}"', html)
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
    # import the engine straight from the wheel, as Pyodide will
    code = ("import json, sys; from inference_lab.entrypoints import web; from inference_lab.entrypoints.report import Report; "
            "sys.stdout.write(Report.from_dict(json.loads(web.run('{}'))['report']).to_text())")
    out = subprocess.run([sys.executable, "-c", code], env={"PYTHONPATH": str(wheel), "PATH": ""},
                         capture_output=True, text=True, check=True, cwd=tmp_path).stdout
    assert out == GOLDEN.read_text(encoding="utf-8")


def test_lab_lock_is_the_official_lock_cut_down_to_numpy_and_micropip(site):
    official = json.loads((pyodide_mirror() / "pyodide-lock.json").read_text())
    lab = json.loads((site / sitebuild.LAB_LOCK).read_text())
    manifest = json.loads((site / "build-info.json").read_text())
    assert manifest["pyodide"]["lockFileURL"] == sitebuild.LAB_LOCK
    assert lab["info"] == official["info"] and sorted(lab["packages"]) == ["micropip", "numpy"]
    shipped = {}  # a bytecode build's repacked wheels: their own file name and sha256
    for name in ("numpy", "micropip"):
        file_name = lab["packages"][name]["file_name"]
        assert (site / "pyodide" / file_name).is_file()
        if file_name != official["packages"][name]["file_name"]:
            shipped[name] = {"file_name": file_name, "sha256": sitebuild.sha256_file(site / "pyodide" / file_name)}
    assert bool(shipped) == bool(manifest["bytecode"])
    assert lab["packages"]["numpy"] == {**official["packages"]["numpy"], **shipped.get("numpy", {})}
    assert official["packages"]["micropip"]["depends"] == ["packaging"]
    assert lab["packages"]["micropip"] == {**official["packages"]["micropip"], "depends": [], **shipped.get("micropip", {})}


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


def test_static_files_are_minified_unless_asked_not_to(site, tmp_path):
    for name in ("core/app.js", "worker/worker.js", "style.css", "charts/svg.js"):
        source, built = (ROOT / "static" / name).read_text(), (site / "static" / name).read_text()
        assert len(built) < 0.9 * len(source), name
        assert "// " not in built.split("\n", 1)[0] or name.endswith(".css"), name
    plain = sitebuild.build(tmp_path / "plain", "cdn", minify=False)
    # the same text but for the build's version on the module imports (sitebuild.version_module_imports)
    unstamped = re.sub(r"\?v=[0-9a-f]{12}(['\"])", r"\1", (plain / "static" / "core" / "app.js").read_text())
    assert unstamped == (ROOT / "static" / "core" / "app.js").read_text()


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


def _fake_mirror(tmp_path: Path, corrupt: str | None = None, drop: str | None = None) -> Path:
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for name in sitebuild.PYODIDE_PINS:
        if name == drop:
            continue
        if name == corrupt:
            (mirror / name).write_bytes(b"not the real file")
        else:
            (mirror / name).symlink_to(pyodide_mirror() / name)
    return mirror


@needs_mirror
def test_a_damaged_mirror_file_stops_the_build(tmp_path, monkeypatch):
    monkeypatch.setenv(sitebuild.MIRROR_ENV, str(_fake_mirror(tmp_path, corrupt="pyodide.asm.wasm")))
    with pytest.raises(sitebuild.BuildError) as err:
        sitebuild.build(tmp_path / "dist")
    message = str(err.value)
    assert "pyodide.asm.wasm" in message and sitebuild.PYODIDE_PINS["pyodide.asm.wasm"] in message
    assert sitebuild.MIRROR_ENV in message
    assert not (tmp_path / "dist").exists(), "no half-built site is left behind"


@needs_mirror
def test_a_file_missing_everywhere_stops_the_build_with_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setenv(sitebuild.MIRROR_ENV, str(_fake_mirror(tmp_path, drop="python_stdlib.zip")))
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
    mirror = _fake_mirror(tmp_path)
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
        assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == sorted(sitebuild.PYODIDE_RUNTIME + ["pyodide-lock.json"])
        asked = len(cdn.paths)
        sitebuild.build(tmp_path / "dist")  # second build: everything from the cache
        assert len(cdn.paths) == asked
    finally:
        cdn.close()


def test_refuses_to_wipe_a_folder_that_is_not_a_build(tmp_path):
    precious = tmp_path / "mine"
    precious.mkdir()
    (precious / "notes.txt").write_text("keep me")
    with pytest.raises(sitebuild.BuildError):
        sitebuild.build(precious, "cdn")
    assert (precious / "notes.txt").read_text() == "keep me"


def test_server_sends_wasm_with_its_mime_type(site):
    srv = RecordingServer(site)
    try:
        with urllib.request.urlopen(srv.url + "pyodide/pyodide.asm.wasm") as resp:
            assert resp.headers["Content-Type"] == "application/wasm"
        with urllib.request.urlopen(srv.url) as resp:
            assert "Chạy" in resp.read().decode()
    finally:
        srv.close()


def test_command_line_reports_errors_without_a_traceback(tmp_path):
    result = subprocess.run([sys.executable, str(ROOT / "build.py"), "--engine", str(tmp_path), "--out", str(tmp_path / "d")],
                            capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.startswith("build.py: error:") and "Traceback" not in result.stderr


def test_module_imports_carry_the_page_version(site):
    """Every relative import between the modules has index.html's ?v=, so a module loads once per build."""
    version = re.search(r'src="static/core/app\.js\?v=([0-9a-f]{12})"', (site / "index.html").read_text()).group(1)
    specifiers = []
    for path in sorted((site / "static").rglob("*.js")):
        specifiers += re.findall(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}/[^'"]+)['"]""", path.read_text())
    assert len(specifiers) > 20  # app.js's modules, the tools' and the charts' imports
    assert [s for s in specifiers if not s.endswith(".js?v=" + version)] == []


# ── one build version and one set of cache names (build.py) for worker.js, pyc-cache.js and sw.js ──
def test_build_version_and_cache_names_come_from_build_py_only(site):
    manifest = json.loads((site / "build-info.json").read_text())
    assert manifest["build"] == {"version": sitebuild.build_version(manifest["files"]), "caches": sitebuild.CACHE_NAMES}
    assert re.fullmatch(r"[0-9a-f]{16}", manifest["build"]["version"])
    for name in ("static/worker/worker.js", "static/worker/pyc-cache.js", "static/worker/sw.js"):
        source = (ROOT / name).read_text()
        for cache in sitebuild.CACHE_NAMES.values():
            assert f"'{cache}" not in source and f'"{cache}' not in source, (name, cache)
        # no version derived in JS (sw.js checks files, pyc-cache.js checks its cache against the page's digest)
        assert "crypto.subtle.digest" not in source or name != "static/worker/worker.js", name
        assert "build.version = " not in source and "version = await" not in source, name
    worker = (ROOT / "static" / "worker" / "worker.js").read_text()
    assert worker.count("self.fetch =") == 1 and "self.fetch" not in (ROOT / "static" / "worker" / "pyc-cache.js").read_text()


def test_build_version_changes_with_any_file():
    files = {"a.js": {"sha256": "1" * 64, "bytes": 1}, "b.whl": {"sha256": "2" * 64, "bytes": 2}}
    changed = {**files, "b.whl": {"sha256": "3" * 64, "bytes": 2}}
    assert sitebuild.build_version(files) != sitebuild.build_version(changed)
    assert sitebuild.build_version(files) == sitebuild.build_version(dict(reversed(list(files.items()))))


# ── the panels' font: pinned, small, licensed, named by the stylesheet, allowed by the CSP ──
def test_font_files_match_their_pins_and_fit_the_budget(site):
    fonts = site / sitebuild.FONT_DIR
    assert sorted(p.name for p in fonts.iterdir()) == sorted(sitebuild.FONT_PINS)
    for name, (_member, pin) in sitebuild.FONT_PINS.items():
        assert sitebuild.sha256_file(fonts / name) == pin, name
        if name.endswith(".woff2"):
            data = (fonts / name).read_bytes()
            assert data[:4] == b"wOF2" and len(data) <= 60 * 1024, name
    licence = next(p for p in fonts.iterdir() if p.suffix == ".txt").read_text()
    assert "SIL Open Font License" in licence and "JetBrains Mono" in licence
    manifest = json.loads((site / "build-info.json").read_text())
    assert {f"{sitebuild.FONT_DIR}/{name}" for name in sitebuild.FONT_PINS} <= set(manifest["files"])


def _font_faces(css: str) -> dict[str, tuple[str, str]]:
    """{woff2 file name: (font-family, unicode-range without spaces)} of every @font-face in css."""
    faces = {}
    for body in re.findall(r"@font-face\s*{([^}]*)}", css):
        src = re.search(r"url\(['\"]?(?:\.\./fonts/|\./files/)?([\w.-]+\.woff2)", body).group(1)
        family = re.search(r"font-family:\s*['\"]([^'\"]+)", body).group(1)
        ranges = re.search(r"unicode-range:\s*([^;]+);", body).group(1).replace(" ", "")
        faces[src] = (family, ranges)
    return faces


def test_stylesheet_names_the_vendored_font_first_with_the_package_ranges():
    css = (ROOT / "static" / "style.css").read_text()
    ours = _font_faces(css)
    assert sorted(ours) == sorted(n for n in sitebuild.FONT_PINS if n.endswith(".woff2"))
    family = {fam for fam, _ in ours.values()}
    assert len(family) == 1
    mono = re.search(r"--mono:\s*([^;]+);", css).group(1)
    assert mono.split(",")[0].strip().strip('"') == family.pop()
    import tarfile
    with tarfile.open(sitebuild.locate_font_tarball()) as tar:
        package = _font_faces(tar.extractfile("package/index.css").read().decode())
    for name, (_fam, ranges) in ours.items():
        assert ranges == package[name][1], name  # the browser picks files by the package's own ranges


def test_font_tarball_pin_is_checked(tmp_path, monkeypatch):
    (tmp_path / sitebuild.FONT_TARBALL).write_bytes(b"not the package")
    monkeypatch.setenv(sitebuild.FONT_MIRROR_ENV, str(tmp_path))
    with pytest.raises(sitebuild.BuildError) as err:
        sitebuild.locate_font_tarball()
    assert sitebuild.FONT_TARBALL_PIN in str(err.value) and sitebuild.FONT_MIRROR_ENV in str(err.value)


def test_without_npm_the_font_files_come_from_the_cdn_checked_against_their_pins(tmp_path, monkeypatch):
    """A Python-only machine (no npm) still builds: each pinned file is fetched from FONT_CDN."""
    import tarfile
    with tarfile.open(sitebuild.locate_font_tarball()) as tar:  # what the CDN serves: the package's files
        served = {sitebuild.FONT_CDN + member.removeprefix("package/"): tar.extractfile(member).read()
                  for member, _pin in sitebuild.FONT_PINS.values()}
    asked = []

    def fake_download(url, dest):
        asked.append(url)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(served[url])

    def no_npm(_dest):
        raise sitebuild.NoFontTarball("npm is not installed.")
    monkeypatch.delenv(sitebuild.FONT_MIRROR_ENV, raising=False)
    monkeypatch.setattr(sitebuild.FONT_TARBALL_SOURCE, "cache", tmp_path)
    monkeypatch.setattr(sitebuild.FONT_FILES_SOURCE, "cache", tmp_path / "files")
    monkeypatch.setattr(sitebuild.fonts, "npm_pack", no_npm)
    monkeypatch.setattr(sitebuild.fetch, "download", fake_download)
    files = sitebuild.font_files()
    assert sorted(asked) == sorted(served)
    assert {name: hashlib.sha256(data).hexdigest() for name, data in files.items()} == \
        {name: pin for name, (_member, pin) in sitebuild.FONT_PINS.items()}
    asked.clear()
    assert sitebuild.font_files() == files and asked == []  # the second build takes them from the cache

    served[sitebuild.FONT_CDN + "LICENSE"] = b"another licence"
    (tmp_path / "files" / "LICENSE-JetBrainsMono-OFL.txt").unlink()
    with pytest.raises(sitebuild.BuildError) as err:
        sitebuild.font_files()
    assert "not the pin" in str(err.value) and sitebuild.FONT_MIRROR_ENV in str(err.value)
    assert not (tmp_path / "files" / "LICENSE-JetBrainsMono-OFL.txt").exists()  # a bad file never stays


def test_csp_allows_fonts_from_the_site_only(site):
    csp = re.search(r'Content-Security-Policy" content="([^"]+)"', (site / "index.html").read_text()).group(1)
    assert "font-src 'self';" in csp
    source = (ROOT / "index.html").read_text()
    assert sitebuild.content_security_policy(None) in source  # the source page's meta says what the build writes


# ── bytecode compiled at build time (sitebuild/bytecode.py, issue 15) ────────


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
            for info in original.infolist():  # everything else exactly as upstream
                if info.filename not in listed and not info.filename.endswith(".dist-info/RECORD"):
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
    out = subprocess.run([python, "-c", code, str(site / manifest["engine"]["wheel"])], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@needs_mirror
def test_bytecode_build_is_reproducible(site, tmp_path):
    manifest = _bytecode_site(site)
    again = build_site(tmp_path / "dist")
    produced = [f"pyodide/{n}" for n in manifest["pyodide"]["files"] if n not in sitebuild.PYODIDE_PINS]
    produced += [manifest["engine"]["wheel"], sitebuild.LAB_LOCK, "build-info.json", "sw.js"]
    for path in produced:
        assert (again / path).read_bytes() == (site / path).read_bytes(), path


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


def test_imports_list_names_files_the_pinned_upstream_files_hold():
    listed = sitebuild.read_imports()
    assert set(listed) <= set(sitebuild.PYODIDE_RUNTIME) and sitebuild.STDLIB_ZIP in listed
    mirror = pyodide_mirror()
    if mirror is None:
        pytest.skip("no Pyodide mirror (set LAB_PYODIDE_MIRROR)")
    for upstream, inner in listed.items():
        assert inner == sorted(set(inner)) and all(p.endswith(".py") for p in inner)
        assert sitebuild.missing_sources(mirror / upstream, inner) == [], upstream
