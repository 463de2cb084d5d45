#!/usr/bin/env python3
"""Build the Inference Lab static site into dist/ (standard library + markdown-it-py, rjsmin, rcssmin).

    python3 build.py                     # dist/ with Pyodide 0.27.7 vendored (works offline once built)
    python3 build.py --pyodide cdn       # dist/ that loads Pyodide from the official CDN instead
    python3 build.py serve [--port N]    # build, then serve dist/ on http://127.0.0.1:N/
    python3 build.py --zip               # also write inference-lab-<version>.zip (offline classroom bundle)
    python3 build.py --no-minify         # keep static/*.js and *.css as written, comments and all
    python3 build.py docs                # rewrite README.md's and the package docstring's block → code map

dist/ holds index.html, static/, the engine wheel (built from py/ with a small zip writer) and,
unless --pyodide cdn, the Pyodide files the lab loads under dist/pyodide/. Each Pyodide file is taken from the
first place that has it: the folder named by $LAB_PYODIDE_MIRROR, the download cache
(.cache/pyodide-0.27.7/), then the official CDN (saved into the cache). Every file's sha256 must
equal the pin below before it enters dist/. dist/build-info.json lists every built file's sha256;
the page's worker reads it to find Pyodide, the engine wheel, the build's version and its cache
names (CACHE_NAMES). dist/pyodide-lock.lab.json is Pyodide's lock file cut down to the two packages
the lab loads (see lab_lock()).
dist/fonts/ holds the output panels' monospace font (JetBrains Mono, Latin + Vietnamese woff2, from
Fontsource's npm package) and its OFL licence, pinned like Pyodide (see FONT_PINS).
dist/static/ is static/ minified (rjsmin, rcssmin: comments and white space only), unless --no-minify.
dist/sw.js (rendered from static/worker/sw.js with that list) is the service worker that caches the whole
build for offline use; a new build gives a new sw.js and so a new cache.

index.html is a template: the mapping table's rows, the block panels under them and the guide's
block → code list are rendered into it from py/inference_lab/words/blocks.py (see render_blocks()).

dist/code.json holds, for each of the 13 blocks, the exact source of the engine functions and classes
py/inference_lab/words/blocks.py names for it (cut from the package's files with `ast`, the lines
inspect.getsource gives; file name and line numbers), highlighted by Pygments into runs of
[CSS class, text] that the page puts in with textContent (static/tools/code.css colours the classes).

dist/exercises.json holds the exercises/NN-slug.md files (parsed by py/inference_lab/entrypoints/exercises.py),
their sections rendered to HTML here with markdown-it-py ("commonmark", raw HTML off, tables on),
so the page never parses Markdown: `python3 -m pip install -r requirements.txt` installs it and the
minifiers.
"""
from __future__ import annotations

import argparse
import ast
import base64
import functools
import hashlib
import html
import http.server
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import tomllib
import urllib.error
import urllib.request
import zipfile
from urllib.parse import urlsplit
from pathlib import Path

import build_bytecode

ROOT = Path(__file__).resolve().parent
PYODIDE_VERSION = "0.27.7"
PYODIDE_CDN = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"
CACHE_DIR = ROOT / ".cache" / f"pyodide-{PYODIDE_VERSION}"
MIRROR_ENV = "LAB_PYODIDE_MIRROR"
MANIFEST = "build-info.json"
SITE_SOURCES = ["index.html", "static"]

# sha256 of the official Pyodide 0.27.7 files the site needs (npm package pyodide@0.27.7; the wheels'
# hashes equal the sha256 fields of its pyodide-lock.json).
PYODIDE_PINS = {
    "pyodide.js": "b4cb23a53aba19c221659b9fb40a2f18281d685691dc06647fb0afd0681baf98",
    "pyodide.mjs": "04c052c815abb0bf2981fa38c2dfa58e3120ee5288c956df2b2a15e301782c5f",
    "pyodide.asm.js": "6b4c90de5b7172873f04f21884d0e9d2274e305fe32116558fe3e4fbe3618d51",
    "pyodide.asm.wasm": "a50dd1843f805a0b7c45b61037ee0d7b26dfe85efe0e18ef95a34ad24e401f5f",
    "python_stdlib.zip": "16611534726e5d8ac2bd8f926410b2dcb8d6f49aa24913463533b457a2115c16",
    "pyodide-lock.json": "9c45b916001a750f4102fc287494f3eab215909c7535c626a20db80fd6333e2c",
    "package.json": "bf221f60c881626236d3501375a97753672a7fa6fed70e469e083f157c8a30d4",
    "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl": "ebb61241d962b98b21597d7ce43b67668a6d5bab3acec4fbe958657320d7cd08",
    "micropip-0.9.0-py3-none-any.whl": "034f22763607744f982d2911170c50b496a38b8ba0535e5a09618475b1d7b051",
    "packaging-24.2-py3-none-any.whl": "fbf6a5ace596eb8e28fe0089ecfc0bca2eb3930563e9ca06acb98ea5302b99f7",
}

# What the lab's worker loads of Pyodide, and so what dist/pyodide/ holds and the service worker caches.
# Left out on purpose: pyodide.mjs (the worker uses importScripts), package.json (npm's), the packaging
# wheel (see lab_lock) and the full pyodide-lock.json (the lab loads its own, see LAB_LOCK).
PYODIDE_RUNTIME = [
    "pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
    "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl", "micropip-0.9.0-py3-none-any.whl",
]
# Files of static/vendor/ built elsewhere and committed (tools/codemirror/README.md says how to rebuild
# them): their sha256 must match before the build copies them; they are already minified.
VENDOR_PINS = {
    "vendor/codemirror.js": "3cbf99825cf54c40c1bd4fafb3369973d5ce3cf83e6b663c9df720dd9ee077c1",
}
LAB_PACKAGES = ["numpy", "micropip"]
LAB_LOCK = "pyodide-lock.lab.json"  # written by lab_lock(), at the site root in both build modes

WHAT_TO_DO = (
    f"What to do: point {MIRROR_ENV} at a folder holding the Pyodide {PYODIDE_VERSION} files "
    f"(e.g. {MIRROR_ENV}=../shared/pyodide-{PYODIDE_VERSION}), or check the network connection to "
    f"{PYODIDE_CDN} and run the build again. To skip vendoring, build with --pyodide cdn."
)


class BuildError(Exception):
    """A problem the person running the build has to fix; printed without a traceback."""


# ── hashing ──────────────────────────────────────────────────────────────────
def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


# ── Pyodide files: mirror -> cache -> CDN, each checked against its pin ──────
def check_pin(name: str, path: Path) -> None:
    got = sha256_file(path)
    if got != PYODIDE_PINS[name]:
        raise BuildError(
            f"{path}: sha256 {got} does not match the pin {PYODIDE_PINS[name]} for Pyodide "
            f"{PYODIDE_VERSION} {name}. The file is damaged or from another version; replace it.\n{WHAT_TO_DO}"
        )


def download(url: str, dest: Path) -> None:
    """Fetch url into dest atomically (a partial download never lands in the cache)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=60) as resp:
            shutil.copyfileobj(resp, out)
        os.replace(tmp, dest)
    except (urllib.error.URLError, OSError) as exc:
        raise BuildError(f"Could not download {url}: {exc}\n{WHAT_TO_DO}") from exc
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def locate_pyodide_file(name: str, mirror: Path | None) -> Path:
    """Return a verified local copy of one Pyodide file."""
    if mirror is not None and (mirror / name).is_file():
        check_pin(name, mirror / name)
        return mirror / name
    cached = CACHE_DIR / name
    if cached.is_file():
        if sha256_file(cached) == PYODIDE_PINS[name]:
            return cached
        print(f"  cache: {cached} is damaged, downloading it again", file=sys.stderr)
        cached.unlink()
    print(f"  downloading {PYODIDE_CDN}{name}", file=sys.stderr)
    download(PYODIDE_CDN + name, cached)
    check_pin(name, cached)
    return cached


def mirror_from_env() -> Path | None:
    value = os.environ.get(MIRROR_ENV)
    if not value:
        return None
    mirror = Path(value).expanduser().resolve()
    if not mirror.is_dir():
        raise BuildError(f"{MIRROR_ENV}={value} is not a folder.\n{WHAT_TO_DO}")
    return mirror


def vendor_pyodide(dest: Path, python: str | None = None) -> dict[str, str]:
    """Copy the Pyodide files the lab loads into dest; with a CPython 3.12 (`python`), the standard
    library and the NumPy and micropip wheels go in with their start-up modules compiled
    (build_bytecode.py). Returns {upstream name: the name of the file in dest}."""
    mirror = mirror_from_env()
    dest.mkdir(parents=True)
    listed = build_bytecode.read_imports() if python else {}
    shipped = {}
    for name in PYODIDE_RUNTIME:
        if name in listed:
            continue
        shutil.copyfile(locate_pyodide_file(name, mirror), dest / name)
        shipped[name] = name
    items, where = [], []
    for name, inner in listed.items():
        upstream = locate_pyodide_file(name, mirror)  # checked against its pin
        if missing := build_bytecode.missing_sources(upstream, inner):
            raise BuildError(f"{build_bytecode.IMPORTS_LIST.name} lists files that {name} does not hold: {missing[:5]}")
        with zipfile.ZipFile(upstream) as zf:
            items += [(zf.read(path), build_bytecode.co_filename(name, path), "unchecked") for path in inner]
        where += [(name, path) for path in inner]
    pycs = build_bytecode.compile_sources(python, items) if items else []
    for name in listed:
        compiled = {path: pyc for (owner, path), pyc in zip(where, pycs) if owner == name}
        shipped[name] = build_bytecode.repacked_name(name)
        build_bytecode.repack(locate_pyodide_file(name, mirror), dest / shipped[name], compiled)
    return shipped


def lab_lock(full: dict, shipped: dict[str, tuple[str, str]] | None = None) -> dict:
    """The official pyodide-lock.json cut down to the packages the lab loads (112 kB -> 1 kB).

    Pyodide 0.27 fetches and parses the whole lock file before anything else; the lab needs two
    entries of its ~250. The entries are copied unchanged (file names, sha256 checked by Pyodide on
    every package download) except one: micropip 0.9.0 vendors its own copy of packaging
    (micropip/_vendored/packaging) and its METADATA requires nothing at run time, so the lock's
    `depends: ["packaging"]` only costs a 72 kB download; the lab's lock says micropip depends on nothing.
    `shipped` {package: (file name, sha256)} names the wheels a bytecode build repacked (build_bytecode.py).
    """
    packages = {name: dict(full["packages"][name]) for name in LAB_PACKAGES}
    packages["micropip"]["depends"] = []
    for name, (file_name, sha256) in (shipped or {}).items():
        packages[name].update(file_name=file_name, sha256=sha256)
    return {"info": full["info"], "packages": packages}


def write_lab_lock(out: Path, shipped: dict[str, str] | None = None) -> None:
    """`shipped`: vendor_pyodide's {upstream name: name in dist/pyodide/}."""
    full = json.loads(locate_pyodide_file("pyodide-lock.json", mirror_from_env()).read_text(encoding="utf-8"))
    repacked = {}
    for name in LAB_PACKAGES:
        upstream = full["packages"][name]["file_name"]
        if shipped and shipped.get(upstream, upstream) != upstream:
            repacked[name] = (shipped[upstream], sha256_file(out / "pyodide" / shipped[upstream]))
    (out / LAB_LOCK).write_text(json.dumps(lab_lock(full, repacked), separators=(",", ":")) + "\n", encoding="utf-8")


# ── the panels' font: JetBrains Mono (OFL), Latin + Vietnamese, like Pyodide: pinned and fetched ─
# The output panels need a monospace face whose Vietnamese letters carry their stacked accents
# ("số", "ước", "ữ"); many computers have none. Fontsource's npm package of JetBrains Mono ships the
# font already cut into per-script woff2 files (one variable font for weights 100-800 each); the lab
# takes two, Latin and Vietnamese, and static/style.css gives each its unicode-range, so a browser
# downloads a file only for text that needs it. Left out: italics, Cyrillic, Greek and Latin
# Extended (the engine prints none of them), and subsetting at build time (the files come subset).
# The package tarball is taken from the folder named by $LAB_FONT_MIRROR, the cache (.cache/fonts/),
# then from the npm registry with `npm pack` (saved into the cache); a machine without npm (or whose
# npm fails) takes the three files one by one from the CDN that also serves Pyodide (saved into
# .cache/fonts/files/). The tarball and every file must match their pins. dist/fonts/ gets the two
# fonts and the licence text.
FONT_PACKAGE = "@fontsource-variable/jetbrains-mono"
FONT_VERSION = "5.3.0"
FONT_TARBALL = "fontsource-variable-jetbrains-mono-5.3.0.tgz"  # the name npm pack gives it
FONT_TARBALL_PIN = "996fe6368a480c9ce15d4de22a2682b7c40b403718fee2b15e7272f244fd993f"
FONT_MIRROR_ENV = "LAB_FONT_MIRROR"
FONT_CDN = f"https://cdn.jsdelivr.net/npm/{FONT_PACKAGE}@{FONT_VERSION}/"  # the package's files, as in the tarball
FONT_CACHE_DIR = ROOT / ".cache" / "fonts"
FONT_DIR = "fonts"  # in dist/; static/style.css names these files (tests/test_build.py checks it)
FONT_PINS = {  # dist/fonts/<name>: (the file in the tarball, its sha256)
    "jetbrains-mono-latin-wght-normal.woff2":
        ("package/files/jetbrains-mono-latin-wght-normal.woff2", "18be452724bfdc236c074ca94a249a7f41a86752c7d04ab258ce9ed5651f6a7e"),
    "jetbrains-mono-vietnamese-wght-normal.woff2":
        ("package/files/jetbrains-mono-vietnamese-wght-normal.woff2", "2288795da89dd97e648954b96e22b4501bd85dfc453264460b252f888b582ca2"),
    "LICENSE-JetBrainsMono-OFL.txt":
        ("package/LICENSE", "403581b69dac5cff4079205e01c6b467e56af449ecbd7247693ddb1baafa005b"),
}
FONT_WHAT_TO_DO = (
    f"What to do: put {FONT_TARBALL} (npm pack {FONT_PACKAGE}@{FONT_VERSION}) into a folder and point "
    f"{FONT_MIRROR_ENV} at it, or install Node.js (npm) with access to the npm registry, and run the build again."
)


class NoFontTarball(BuildError):
    """npm could not give the font package: the build then tries the CDN file by file."""


def npm_pack(dest: Path) -> None:
    """`npm pack` the font package into dest's folder (atomically: a partial file never lands there)."""
    npm = shutil.which("npm")
    if npm is None:
        raise NoFontTarball(f"{FONT_TARBALL} is in neither ${FONT_MIRROR_ENV} nor {FONT_CACHE_DIR}, and npm is not installed.")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".npm-pack-") as tmp:
        print(f"  npm pack {FONT_PACKAGE}@{FONT_VERSION}", file=sys.stderr)
        result = subprocess.run([npm, "pack", f"{FONT_PACKAGE}@{FONT_VERSION}", "--silent", "--pack-destination", tmp],
                                cwd=tmp, capture_output=True, text=True, timeout=300)
        packed = Path(tmp) / FONT_TARBALL
        if result.returncode != 0 or not packed.is_file():
            raise NoFontTarball(f"npm pack {FONT_PACKAGE}@{FONT_VERSION} failed: {result.stderr.strip()[-500:]}")
        os.replace(packed, dest)


def locate_font_tarball() -> Path:
    """A local copy of the font package's tarball whose sha256 is FONT_TARBALL_PIN."""
    value = os.environ.get(FONT_MIRROR_ENV)
    if value:
        mirrored = Path(value).expanduser() / FONT_TARBALL
        if mirrored.is_file():
            if sha256_file(mirrored) != FONT_TARBALL_PIN:
                raise BuildError(f"{mirrored}: sha256 {sha256_file(mirrored)} does not match the pin {FONT_TARBALL_PIN} "
                                 f"for {FONT_PACKAGE} {FONT_VERSION}; replace it.\n{FONT_WHAT_TO_DO}")
            return mirrored
    cached = FONT_CACHE_DIR / FONT_TARBALL
    if cached.is_file() and sha256_file(cached) != FONT_TARBALL_PIN:
        print(f"  cache: {cached} is damaged, fetching it again", file=sys.stderr)
        cached.unlink()
    if not cached.is_file():
        npm_pack(cached)
        if sha256_file(cached) != FONT_TARBALL_PIN:
            got = sha256_file(cached)
            cached.unlink()
            raise BuildError(f"npm pack {FONT_PACKAGE}@{FONT_VERSION} gave a file with sha256 {got}, not the pin {FONT_TARBALL_PIN}.\n{FONT_WHAT_TO_DO}")
    return cached


def read_font_tarball(tarball: Path) -> dict[str, bytes]:
    """{dist/fonts/ name: bytes} of the pinned files in the package tarball."""
    files = {}
    with tarfile.open(tarball, "r:gz") as tar:
        for name, (member, pin) in FONT_PINS.items():
            data = tar.extractfile(member).read()
            if hashlib.sha256(data).hexdigest() != pin:
                raise BuildError(f"{member} in {FONT_TARBALL} does not match its pin {pin}.\n{FONT_WHAT_TO_DO}")
            files[name] = data
    return files


def fetch_font_file(name: str, member: str, pin: str) -> bytes:
    """One pinned font file from the cache, else from FONT_CDN (saved into the cache)."""
    cached = FONT_CACHE_DIR / "files" / name
    if not (cached.is_file() and sha256_file(cached) == pin):
        url = FONT_CDN + member.removeprefix("package/")
        print(f"  downloading {url}", file=sys.stderr)
        try:
            download(url, cached)
        except BuildError as exc:
            raise BuildError(f"Could not download {url}.\n{FONT_WHAT_TO_DO}") from exc
    if sha256_file(cached) != pin:
        got = sha256_file(cached)
        cached.unlink()
        raise BuildError(f"{FONT_CDN}: {member} has sha256 {got}, not the pin {pin}.\n{FONT_WHAT_TO_DO}")
    return cached.read_bytes()


def font_files() -> dict[str, bytes]:
    """{dist/fonts/ name: bytes}: from the package tarball, or file by file from the CDN without npm."""
    try:
        return read_font_tarball(locate_font_tarball())
    except NoFontTarball as why:
        print(f"  {why} Taking the font files from {FONT_CDN}", file=sys.stderr)
        return {name: fetch_font_file(name, member, pin) for name, (member, pin) in FONT_PINS.items()}


def vendor_font(dest: Path, files: dict[str, bytes]) -> None:
    """dist/fonts/: the pinned font files and their licence."""
    dest.mkdir(parents=True)
    for name, data in files.items():
        (dest / name).write_bytes(data)


# ── the engine wheel, written with zipfile (no setuptools or network needed) ─
def read_project(engine_dir: Path) -> tuple[str, str, list[str]]:
    """(name, version, dependencies) from pyproject.toml's [project] table."""
    pyproject = engine_dir / "pyproject.toml"
    if not pyproject.is_file():
        raise BuildError(f"No {pyproject}: the engine package (py/) is missing or incomplete.")
    project = tomllib.loads(pyproject.read_text(encoding="utf-8")).get("project", {})
    name = project.get("name")
    if not name:
        raise BuildError(f"{pyproject} has no [project] name.")
    version = project.get("version") or _version_from_package(engine_dir, name)
    return name, version, list(project.get("dependencies", []))


def _version_from_package(engine_dir: Path, name: str) -> str:
    init = engine_dir / package_name(name) / "__init__.py"
    match = re.search(r'^__version__\s*=\s*["\']([^"\']+)', init.read_text(encoding="utf-8"), re.M) if init.is_file() else None
    if not match:
        raise BuildError(f"No version in {engine_dir / 'pyproject.toml'} nor __version__ in {init}.")
    return match.group(1)


def package_name(project_name: str) -> str:
    return re.sub(r"[-_.]+", "_", project_name).lower()


def package_files(package_dir: Path) -> list[Path]:
    skip = {"__pycache__"}
    return sorted(p for p in package_dir.rglob("*")
                  if p.is_file() and not skip & set(p.relative_to(package_dir).parts) and p.suffix != ".pyc")


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(engine_dir: Path, out_dir: Path, python: str | None = None) -> tuple[Path, str]:
    """Write <pkg>-<version>-py3-none-any.whl from engine_dir; returns (path, version). Reproducible bytes.

    With a CPython 3.12 (`python`), each x.py also gets its checked bytecode beside it,
    __pycache__/x.cpython-312.pyc (build_bytecode.py), so Pyodide imports the engine without compiling it.
    """
    name, version, deps = read_project(engine_dir)
    pkg = package_name(name)
    package_dir = engine_dir / pkg
    if not (package_dir / "entrypoints" / "web.py").is_file():
        raise BuildError(f"{package_dir / 'entrypoints' / 'web.py'} not found: the engine's web API is missing.")
    dist_info = f"{pkg}-{version}.dist-info"
    metadata = "".join([f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
                        *(f"Requires-Dist: {d}\n" for d in deps)])
    wheel_meta = "Wheel-Version: 1.0\nGenerator: inference-lab build.py\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    entries = [(f"{pkg}/{p.relative_to(package_dir).as_posix()}", p.read_bytes()) for p in package_files(package_dir)]
    if python:
        sources = [(arc, data) for arc, data in entries if arc.endswith(".py")]
        pycs = build_bytecode.compile_sources(
            python, [(data, build_bytecode.SITE_PACKAGES + arc, "checked") for arc, data in sources])
        for (arc, _), pyc in zip(sources, pycs):
            folder, _, module = arc.rpartition("/")
            entries.append((f"{folder}/__pycache__/{module[:-3]}.cpython-312.pyc", pyc))
    entries += [(f"{dist_info}/METADATA", metadata.encode()), (f"{dist_info}/WHEEL", wheel_meta.encode())]
    record = "".join(f"{arc},{record_hash(data)},{len(data)}\n" for arc, data in entries) + f"{dist_info}/RECORD,,\n"
    entries.append((f"{dist_info}/RECORD", record.encode()))
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / f"{pkg}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for arc, data in entries:
            info = zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return wheel, version


# ── the page ─────────────────────────────────────────────────────────────────
def content_security_policy(pyodide_origin: str | None) -> str:
    """Only the site's own origin (plus the Pyodide CDN for --pyodide cdn builds).

    'wasm-unsafe-eval' lets the worker compile pyodide.asm.wasm; nothing allows eval or inline script.
    """
    extra = f" {pyodide_origin}" if pyodide_origin else ""
    return "; ".join([
        "default-src 'none'",
        f"script-src 'self' 'wasm-unsafe-eval'{extra}",
        f"connect-src 'self'{extra}",
        "worker-src 'self' blob:",  # blob: the Python worker (static/worker/boot.js), so this policy governs it
        "style-src 'self'",
        "font-src 'self'",
        "img-src 'self' data:",
        "base-uri 'none'",
        "form-action 'none'",
    ])


def render_index(source: str, csp: str, asset_version: str) -> str:
    """Put the build's CSP into the meta tag and version the static asset URLs (cache busting)."""
    html, n = re.subn(r'(<meta http-equiv="Content-Security-Policy" content=")[^"]*(")',
                      lambda m: m.group(1) + csp + m.group(2), source)
    if n != 1:
        raise BuildError("index.html must contain exactly one Content-Security-Policy meta tag.")
    return re.sub(r'((?:src|href)="static/[\w./-]+\.(?:js|css))"', rf'\1?v={asset_version}"', html)


NEED_MINIFIERS = "rjsmin and rcssmin are not installed. Install what the build needs: python3 -m pip install -r requirements.txt"


def minifiers():
    """(js, css) minifiers: comments and needless white space out, nothing renamed or reordered."""
    try:
        import rcssmin
        import rjsmin
    except ModuleNotFoundError as exc:
        raise BuildError(NEED_MINIFIERS) from exc
    return rjsmin.jsmin, rcssmin.cssmin


def check_vendor(static: Path) -> None:
    """Every VENDOR_PINS file is there and matches its pin (a stale or edited bundle never ships)."""
    for name, pin in VENDOR_PINS.items():
        path = static / name
        if not path.is_file() or sha256_file(path) != pin:
            raise BuildError(f"static/{name} is missing or does not match its sha256 pin in build.py (VENDOR_PINS). "
                             "Rebuild it as tools/codemirror/README.md says, then update the pin.")


def minify_static(static: Path) -> None:
    """Minify every .js and .css under dist/static/ in place (the commented sources stay in static/;
    the vendored bundles are minified already)."""
    js, css = minifiers()
    for path in sorted(static.rglob("*")):
        if path.suffix in (".js", ".css") and path.relative_to(static).as_posix() not in VENDOR_PINS:
            text = path.read_text(encoding="utf-8")
            path.write_text((js if path.suffix == ".js" else css)(text) + "\n", encoding="utf-8")


# A relative module specifier in an import or export: from './x.js', import('../y.js'), import './z.js'.
MODULE_SPECIFIER = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}/[^'"?#\s]+\.js)\2""")


def version_module_imports(static: Path, asset_version: str) -> None:
    """Give every relative import between the modules under dist/static/ the page's ?v=<version>.

    index.html loads static/core/app.js?v=…; an import of './store.js' would otherwise load an unversioned
    URL that a browser may keep from an older build, and a module imported once with and once
    without the query would run twice (two stores). static/core/versioned.js relies on this: a module's
    own URL carries the version.
    """
    for path in sorted(static.rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        stamped = MODULE_SPECIFIER.sub(lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}?v={asset_version}{m.group(2)}", text)
        if stamped != text:
            path.write_text(stamped, encoding="utf-8")


def static_version(dist: Path) -> str:
    """A short hash of dist/static/, put on the page's static URLs for cache busting."""
    digest = hashlib.sha256()
    for path in sorted((dist / "static").rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(dist).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()[:12]


# ── the exercises: Markdown rendered to HTML here, so the page never parses it ─
EXERCISES_DIR = ROOT / "exercises"
EXERCISES_JSON = "exercises.json"
ENGINE_PACKAGE = ROOT / "py" / "inference_lab"
NEED_MARKDOWN = "markdown-it-py is not installed. Install what the build needs: python3 -m pip install -r requirements.txt"


def engine_file(stem: str) -> Path:
    """py/inference_lab/<sub-package>/<stem>.py: where the package's layout.py says the module lives."""
    if stem == "layout":
        return ENGINE_PACKAGE / "layout.py"
    return ROOT / "py" / engine_module("layout").path(stem)


def engine_module(stem: str):
    """py/inference_lab/…/<stem>.py loaded on its own (standard library only; the build needs no NumPy)."""
    name = f"_inference_lab_{stem}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, engine_file(stem))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up here
        spec.loader.exec_module(module)
    return sys.modules[name]


def exercise_parser():
    return engine_module("exercises")


def markdown_renderer():
    """CommonMark with raw HTML off (anything like <script> comes out as text), tables on.

    Images are off too: the page's CSP admits no other host and the build copies no image files.
    """
    try:
        from markdown_it import MarkdownIt
    except ModuleNotFoundError as exc:
        raise BuildError(NEED_MARKDOWN) from exc
    return MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")


def render_markdown(md, text: str) -> str:
    """HTML of `text`; a table column's alignment becomes class="align-…" (the CSP forbids style="")."""
    tokens = md.parse(text)
    for token in tokens:
        style = token.attrGet("style") if token.type in ("th_open", "td_open") else None
        if style:
            del token.attrs["style"]
            token.attrSet("class", "align-" + style.rsplit(":", 1)[-1].strip())
    return md.renderer.render(tokens, md.options, {})


def render_exercises(directory: Path = EXERCISES_DIR) -> list[dict]:
    """[{number, slug, title, title_en, constants, expect, sections: {name: html}}] for every NN-slug.md
    (sections: "Câu hỏi", "Dự đoán", "Đáp án" and, when the file has them, "Question", "Prediction", "Answer")."""
    md, parser = markdown_renderer(), exercise_parser()
    try:
        exercises = parser.load_all(directory)
    except (ValueError, OSError) as exc:
        raise BuildError(f"Cannot read the exercises in {directory}: {exc}") from exc
    rendered = []
    for ex in exercises:
        item = ex.to_dict()
        item["sections"] = {name: render_markdown(md, ex.sections[name]) for name in parser.SECTIONS}
        # the English edition's sections under their English names (the page falls back to Vietnamese)
        item["sections"].update({name: render_markdown(md, ex.sections[name]) for name in parser.SECTIONS_EN
                                 if name in ex.sections})
        rendered.append(item)
    return rendered


def write_exercises(dist: Path, exercises: list[dict]) -> None:
    data = json.dumps(exercises, separators=(",", ":"), ensure_ascii=False) + "\n"
    (dist / EXERCISES_JSON).write_text(data, encoding="utf-8")


# ── the blocks' text: py/inference_lab/words/blocks.py rendered into the page and the docs ─
# index.html is a template: build.py replaces each line "<!-- @blocks:NAME ... -->" with the HTML of NAME
# (one <tbody> per block with its output panel; the guide's block → code list). Nothing serves the
# template unbuilt: the page needs build-info.json and the engine wheel, which only dist/ has.
BLOCKS_PLACEHOLDER = re.compile(r"^([ \t]*)<!-- @blocks:([\w-]+)\b[^\n]*?-->\n", re.M)
README_BEGIN = "<!-- @blocks:code-map: `python3 build.py docs` writes this table from py/inference_lab/words/blocks.py -->"
README_END = "<!-- /@blocks:code-map -->"
DOCSTRING_MAP = re.compile(r"(^Block → module map[^\n]*(?:\n[^\n]+)*\n\n)((?:  \[\d+\][^\n]*\n)+)", re.M)


def blocks_table():
    """py/inference_lab/words/blocks.py: the 13 blocks' codes, mapping-table text and block → code map."""
    return engine_module("blocks")


def text_html(text: str) -> str:
    return html.escape(text, quote=False)


def both(vi: str, en: str) -> str:
    """Text in both languages (already HTML): the page shows the reader's (static/words/i18n.js, style.css)."""
    return f'<span data-lang="vi">{vi}</span><span data-lang="en" lang="en">{en}</span>'


def mapping_rows(table) -> list[str]:
    """One <tbody> per block: its mapping row, then the panel its output goes to (data-block="N", id khoi-N),
    with an empty box (id hinh-khoi-N) where static/charts/ draws the block's pictures after a run.
    The row's text comes in both languages (blocks.py `en`); labels carry their English in data-en*."""
    out, charts = [], set(table.chart_blocks())
    for b in table.BLOCKS:
        builds, reads, _ = b.en
        out += [
            "<tbody>",
            "  <tr>",
            f'    <td data-label="Khối" data-en-data-label="Block" class="num">{b.number}</td>',
            f'    <th scope="row" data-label="Thành phần" data-en-data-label="Component">{text_html(b.name)}</th>',
            f'    <td data-label="Lab dựng gì" data-en-data-label="What the lab builds">{both(text_html(b.builds), text_html(builds))}</td>',
            f'    <td data-label="Cách đọc &amp; kiểm chứng" data-en-data-label="How to read &amp; check">{both(text_html(b.reads), text_html(reads))}</td>',
            "  </tr>",
            f'  <tr class="panel-row"><td colspan="4"><details class="panel" data-block="{b.number}" id="khoi-{b.number}">'
            f'<summary><span class="panel-title" data-en="Output of block {text_html(b.code)}">Output khối {text_html(b.code)}</span></summary>'
            + (f'<div class="charts" id="hinh-khoi-{b.number}" hidden></div>' if b.number in charts else '')
            + '<pre class="lines"><span class="line placeholder" data-en="Not run yet. Press Run to see it.">Chưa chạy. Bấm Chạy để xem.</span></pre></details></td></tr>',
            "</tbody>",
        ]
    return out


def code_map_items(table) -> list[str]:
    """The guide's list: where each block is in the seed program and in this package."""
    def code(name):
        return f"<code>{text_html(name)}</code>"
    items = [f"<li>{both(f'Khối {b.number} {text_html(b.name)} — chương trình gốc: {text_html(b.seed)}; engine: ', f'Block {b.number} {text_html(b.name)} — seed program: {text_html(b.en[2])}; engine: ')}"
             f"{table.source_text(b, code)}.</li>" for b in table.BLOCKS]
    return ['<ul class="code-map">', *("  " + item for item in items), "</ul>"]


def exercise_numbers(directory: Path = EXERCISES_DIR) -> set[int]:
    return {int(p.name[:2]) for p in directory.glob("*.md") if exercise_parser().FILENAME.match(p.name)}


def learning_map(table) -> list[str]:
    """The guide's nine learning points, each linking to its panel(s), picture(s) and exercise(s)."""
    known = exercise_numbers()
    missing = sorted({n for p in table.LEARNING_POINTS for n in p.exercises} - known)
    if missing:
        raise BuildError(f"py/inference_lab/words/blocks.py LEARNING_POINTS names exercises that exercises/ lacks: {missing}")

    def link(href, kind, label, **data):
        extra = "".join(f' data-{k.replace("_", "-")}="{html.escape(str(v))}"' for k, v in data.items())
        return f'<a href="#{href}" data-learning-link="{kind}"{extra}>{text_html(label)}</a>'

    items = []
    for p in table.LEARNING_POINTS:
        def links(lang):
            en = lang == "en"
            labels = table.CHART_LABELS_EN if en else table.CHART_LABELS
            block, pic = ("block", "block") if en else ("khối", "khối")
            panels = ", ".join(link(f"khoi-{n}", "panel", f"{block} {table.BY_NUMBER[n].code}") for n in p.blocks)
            charts = ", ".join(link(f"hinh-khoi-{n}", "chart", f"{labels[name]} ({pic} {n})", chart_name=name)
                               for name, n in p.charts)
            exercises = ", ".join(link(f"bai-tap-{n:02d}", "exercise", f"{'exercise' if en else 'bài'} {n}") for n in p.exercises)
            return (f"Read {panels}; look at {charts}; do {exercises}." if en
                    else f"Đọc {panels}; xem hình {charts}; làm {exercises}.")
        vi_text, en_text = p.text[:1].upper() + p.text[1:], p.text_en[:1].upper() + p.text_en[1:]
        items += [f'  <li id="hoc-{p.number}" data-learning-point="{p.number}">'
                  f'<span data-lang="vi">{text_html(vi_text)}.\n    <span class="learning-links">{links("vi")}</span></span>'
                  f'<span data-lang="en" lang="en">{text_html(en_text)}.\n    <span class="learning-links">{links("en")}</span></span></li>']
    return [f'<p><span data-lang="vi">{text_html(table.LEARNING_INTRO)}</span><span data-lang="en" lang="en">{text_html(table.LEARNING_INTRO_EN)}</span></p>',
            '<ol class="learning-map">', *items, "</ol>"]


def render_blocks(source: str, table=None) -> str:
    """index.html with its <!-- @blocks:NAME --> lines filled from the blocks table (all text HTML-escaped)."""
    table = table or blocks_table()
    parts = {"mapping-rows": mapping_rows, "code-map": code_map_items, "learning-map": learning_map}
    found = [m.group(2) for m in BLOCKS_PLACEHOLDER.finditer(source)]
    if sorted(found) != sorted(parts):
        raise BuildError(f"index.html must contain each of the lines <!-- @blocks:NAME --> once for NAME in "
                         f"{sorted(parts)}; found {found}.")

    def fill(m):
        return "".join(f"{m.group(1)}{line}\n" for line in parts[m.group(2)](table))
    return BLOCKS_PLACEHOLDER.sub(fill, source)


def synced_docs(table=None) -> dict[Path, str]:
    """README.md and the package docstring with their block → code map written from the blocks table."""
    table = table or blocks_table()
    readme_path, init_path = ROOT / "README.md", ENGINE_PACKAGE / "__init__.py"
    readme, init = readme_path.read_text(encoding="utf-8"), init_path.read_text(encoding="utf-8")
    begin, end = readme.find(README_BEGIN), readme.find(README_END)
    if begin < 0 or end < begin:
        raise BuildError(f"README.md must contain the lines {README_BEGIN} and {README_END}.")
    body = "\n".join(table.readme_code_map())
    readme = readme[:begin + len(README_BEGIN)] + "\n" + body + "\n" + readme[end:]
    if not DOCSTRING_MAP.search(init):
        raise BuildError(f"{init_path}: its docstring must have a 'Block → module map' paragraph.")
    init = DOCSTRING_MAP.sub(lambda m: m.group(1) + "".join(line + "\n" for line in table.code_map_lines()), init, count=1)
    return {readme_path: readme, init_path: init}


def write_docs() -> list[Path]:
    """Rewrite the block → code map in README.md and the package docstring; returns the files changed."""
    changed = []
    for path, text in synced_docs().items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


# ── the code views: each block's engine source, highlighted here ─────────────
CODE_JSON = "code.json"
NEED_PYGMENTS = "Pygments is not installed. Install what the build needs: python3 -m pip install -r requirements.txt"


def source_of(text: str, qualname: str) -> tuple[int, str]:
    """(first line, source) of a function or class in a module's text: from its first decorator to its
    last statement, the lines inspect.getsource returns."""
    body, node = ast.parse(text).body, None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            raise BuildError(f"py/inference_lab/words/blocks.py names {qualname}, which is not in its module.")
        body = node.body
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return start, "".join(text.splitlines(keepends=True)[start - 1:node.end_lineno])


# Pygments token type -> the page's class (static/tools/code.css); the first match walking up the type's parents.
TOKEN_CLASSES = {"Keyword": "k", "Operator.Word": "k", "Name.Function": "f", "Name.Class": "f", "Name.Builtin": "b",
                 "Name.Decorator": "b", "Literal.String.Doc": "sd", "Literal.String": "s", "Comment": "c",
                 "Literal.Number": "m"}


def token_class(kind) -> str:
    while kind.parent is not None:
        name = str(kind).removeprefix("Token.")
        if name in TOKEN_CLASSES:
            return "tok-" + TOKEN_CLASSES[name]
        kind = kind.parent
    return ""


def highlighted_lines(source: str) -> list[list[str]]:
    """Pygments' Python tokens as one flat [class, text, class, text, …] list per line ("" = plain text).

    >>> highlighted_lines("def f(x):\\n    return x + 1  # one\\n")
    [['tok-k', 'def', '', ' ', 'tok-f', 'f', '', '(x):'], ['', '    ', 'tok-k', 'return', '', ' x + ', 'tok-m', '1', '', '  ', 'tok-c', '# one']]
    """
    try:
        from pygments.lexers import PythonLexer
    except ModuleNotFoundError as exc:
        raise BuildError(NEED_PYGMENTS) from exc
    lines: list[list[str]] = [[]]
    for kind, value in PythonLexer(stripnl=False, ensurenl=False).get_tokens(source):
        css = token_class(kind)
        for i, piece in enumerate(value.split("\n")):
            if i:
                lines.append([])
            if not piece:
                continue
            line = lines[-1]
            if line and line[-2] == css:
                line[-1] += piece
            else:
                line += [css, piece]
    if source.endswith("\n"):
        lines.pop()
    return lines


def code_views() -> dict:
    """{"blocks": {n: [ref, …]}, "editable": {n: [ref, …]}, "sources": {ref: {file, start, lines}}}."""
    table = blocks_table()
    texts: dict[str, str] = {}
    sources, blocks, editable = {}, {}, {}
    for block in table.BLOCKS:
        refs = list(dict.fromkeys(block.source + block.editable))
        blocks[block.number] = [str(ref) for ref in refs]
        editable[block.number] = [str(ref) for ref in block.editable]
        for ref in refs:
            if str(ref) in sources:
                continue
            path = engine_file(ref.module)
            if path not in texts:
                texts[path] = path.read_text(encoding="utf-8")
            start, source = source_of(texts[path], ref.qualname)
            sources[str(ref)] = dict(module=ref.module, qualname=ref.qualname, file=engine_module("layout").path(ref.module),
                                     start=start, lines=highlighted_lines(source))
    return dict(blocks=blocks, editable=editable, sources=sources)


def write_code_views(dist: Path, views: dict) -> None:
    data = json.dumps(views, separators=(",", ":"), ensure_ascii=False) + "\n"
    (dist / CODE_JSON).write_text(data, encoding="utf-8")


# ── the whole build ──────────────────────────────────────────────────────────
def prepare_out_dir(out: Path) -> None:
    """Empty out/, refusing to wipe a folder that is not an earlier build."""
    if out.exists():
        if any(out.iterdir()) and not (out / MANIFEST).is_file():
            raise BuildError(f"{out} exists and is not a previous build (no {MANIFEST}); not deleting it.")
        shutil.rmtree(out)
    out.mkdir(parents=True)


# The build's version and the names of the lab's browser caches, written once here: build-info.json
# carries them ("build") to static/worker/worker.js, which hands them to static/worker/pyc-cache.js, and sw.js gets
# them in its BUILD line. A cache is named "<name> <site root URL>", plus " <version>" for the caches
# that hold one build: the service worker's copy of the site ("site") and the compiled Python ("pyc");
# "staging" holds what the worker downloads on a first visit until sw.js takes it (see static/worker/sw.js).
CACHE_NAMES = {"site": "inference-lab", "staging": "inference-lab-staging", "pyc": "inference-lab-pyc"}


def build_version(files: dict[str, dict]) -> str:
    """16 hex digits of a hash of every built file's path and sha256: any change to any file changes it."""
    listing = json.dumps({path: info["sha256"] for path, info in files.items()}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(listing.encode()).hexdigest()[:16]


def file_hashes(dist: Path) -> dict[str, dict]:
    return {p.relative_to(dist).as_posix(): {"sha256": sha256_file(p), "bytes": p.stat().st_size}
            for p in sorted(dist.rglob("*")) if p.is_file() and p.name != MANIFEST}


def build(out: Path, pyodide_mode: str = "vendor", engine_dir: Path = ROOT / "py", minify: bool = True) -> Path:
    for source in SITE_SOURCES:
        if not (ROOT / source).exists():
            raise BuildError(f"{ROOT / source} is missing.")
    exercises = render_exercises()  # before touching out/: a missing markdown-it-py keeps the old build
    page = render_blocks((ROOT / "index.html").read_text(encoding="utf-8"))  # likewise for a broken template
    views = code_views()            # likewise for Pygments
    if minify:
        minifiers()  # likewise for the minifiers
    fonts = font_files()  # and for the font
    python, why = build_bytecode.find_python312()
    if python is None:
        print(f"build.py: no CPython 3.12 ({why}): the site ships Python sources, which the browser compiles on every first visit", file=sys.stderr)
    prepare_out_dir(out)
    try:
        wheel, version = build_wheel(engine_dir, out / "engine", python)
        # A folder per wheel hash, so a browser never reuses an older wheel of the same version.
        wheel_dir = out / "engine" / sha256_file(wheel)[:12]
        wheel_dir.mkdir()
        wheel = wheel.rename(wheel_dir / wheel.name)
        if pyodide_mode == "cdn":
            index_url, origin = PYODIDE_CDN, "{0.scheme}://{0.netloc}".format(urlsplit(PYODIDE_CDN))
            shipped = {name: name for name in PYODIDE_RUNTIME}
        else:
            shipped = vendor_pyodide(out / "pyodide", python)
            index_url, origin = "pyodide/", None
        shutil.copytree(ROOT / "static", out / "static")
        check_vendor(out / "static")
        vendor_font(out / FONT_DIR, fonts)
        write_lab_lock(out, shipped)
        sw_template = take_service_worker_template(out)
        if minify:
            minify_static(out / "static")
        asset_version = static_version(out)
        version_module_imports(out / "static", asset_version)
        write_exercises(out, exercises)
        write_code_views(out, views)
        index = render_index(page, content_security_policy(origin), asset_version)
        (out / "index.html").write_text(index, encoding="utf-8")
        files = file_hashes(out)
        manifest = {
            "build": {"version": build_version(files), "caches": CACHE_NAMES},
            "pyodide": {"version": PYODIDE_VERSION, "mode": pyodide_mode, "indexURL": index_url,
                        "lockFileURL": LAB_LOCK, "packages": LAB_PACKAGES, "files": list(shipped.values()),
                        # the standard library with its start-up modules compiled (relative to indexURL)
                        **({"stdLibURL": shipped[build_bytecode.STDLIB_ZIP]} if shipped[build_bytecode.STDLIB_ZIP] != build_bytecode.STDLIB_ZIP else {})},
            "engine": {"version": version, "wheel": wheel.relative_to(out).as_posix()},
            "bytecode": {"compiler": build_bytecode.python_version(python), "magic": build_bytecode.PYC_MAGIC} if python else None,
            "files": files,
        }
        (out / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        write_service_worker(out, manifest, sw_template, asset_version)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)  # never leave a half-built site behind
        raise
    return out


# ── offline: the service worker and the classroom zip ───────────────────────
SERVICE_WORKER = "worker/sw.js"  # under static/; dist/sw.js at the site root
SW_BUILD_LINE = re.compile(r"^const BUILD = null; // @build.*$", re.M)


def take_service_worker_template(dist: Path) -> str:
    """Remove static/worker/sw.js from dist (it is served from the site root, rendered) and return its text."""
    template = dist / "static" / SERVICE_WORKER
    if not template.is_file():
        raise BuildError(f"{ROOT / 'static' / SERVICE_WORKER} is missing.")
    text = template.read_text(encoding="utf-8")
    template.unlink()
    if len(SW_BUILD_LINE.findall(text)) != 1:
        raise BuildError(f"static/{SERVICE_WORKER} must contain one line 'const BUILD = null; // @build'.")
    return text


def sri(hex_digest: str) -> str:
    """A Subresource Integrity value ("sha256-<base64>") from a hex sha256."""
    return "sha256-" + base64.b64encode(bytes.fromhex(hex_digest)).decode()


def write_service_worker(dist: Path, manifest: dict, template: str, asset_version: str = "") -> None:
    """dist/sw.js: the template with the build's files, its version and cache names (manifest["build"]).

    Any change to any file changes its hash listed here, so sw.js changes byte-wise and browsers update it.
    sw.js is derived from the manifest, like build-info.json itself, so the manifest does not list it.
    """
    files = [[path, sri(info["sha256"])] for path, info in manifest["files"].items()]
    files.append([MANIFEST, sri(sha256_file(dist / MANIFEST))])
    if manifest["pyodide"]["mode"] == "cdn":  # the CDN serves these with CORS; cache them too
        files += [[manifest["pyodide"]["indexURL"] + name, sri(PYODIDE_PINS[name])] for name in manifest["pyodide"]["files"]]
    # "query": the ?v= the page puts on static/ URLs, so sw.js asks for the URLs the browser has just
    # loaded (an HTTP-cache revalidation, not a second download).
    data = {**manifest["build"], "query": f"?v={asset_version}" if asset_version else "", "files": files}
    line = "const BUILD = " + json.dumps(data, separators=(",", ":")) + "; // written by build.py"
    (dist / "sw.js").write_text(SW_BUILD_LINE.sub(lambda _: line, template), encoding="utf-8")


ZIP_README = """Inference Lab {version} — bản dùng cho lớp học không có mạng (Pyodide {pyodide}, NumPy)

Thư mục này chứa toàn bộ bài lab: trang web, Python (Pyodide), NumPy và engine. Không cần Internet.

1. Mở cửa sổ dòng lệnh trong thư mục này (thư mục có tệp index.html) và chạy:

       python3 -m http.server 8000

   (Windows: py -m http.server 8000). Cần Python 3.10 trở lên.
2. Mở trình duyệt (Chrome, Edge, Firefox hoặc Safari bản gần đây) tại địa chỉ:

       http://localhost:8000/

   Chờ dòng trạng thái báo "Sẵn sàng", rồi bấm Chạy.
3. Mọi thứ chạy ngay trong trình duyệt, không gửi dữ liệu đi đâu. Sau lần mở đầu tiên, trình duyệt
   lưu cả bài lab lại: tải lại trang vẫn chạy được kể cả khi mất mạng.

Máy khác trong mạng LAN có thể mở http://<địa-chỉ-IP-của-máy-này>:8000/ khi máy này đang chạy lệnh
trên (trình duyệt chỉ lưu bài lab để dùng offline với địa chỉ localhost hoặc https).
Không mở index.html bằng cách bấm đúp (file://): trình duyệt chặn Python trong trang mở kiểu đó.
"""


def write_zip(dist: Path, dest_dir: Path | None = None) -> Path:
    """<dist's parent>/inference-lab-<version>.zip: one folder with the vendored build and README.txt."""
    manifest = json.loads((dist / MANIFEST).read_text(encoding="utf-8"))
    if manifest["pyodide"]["mode"] != "vendor":
        raise BuildError("--zip needs the vendored build (without --pyodide cdn): the zip must work offline.")
    version = manifest["engine"]["version"]
    folder = f"inference-lab-{version}"
    dest = (dest_dir or dist.parent) / f"{folder}.zip"
    readme = ZIP_README.format(version=version, pyodide=manifest["pyodide"]["version"])
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".part-", suffix=".zip")
    os.close(fd)
    try:
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zf:
            entries = [(f"{folder}/README.txt", readme.encode())]
            entries += [(f"{folder}/{p.relative_to(dist).as_posix()}", p) for p in sorted(dist.rglob("*")) if p.is_file()]
            for arc, content in entries:
                info = zipfile.ZipInfo(arc, date_time=(1980, 1, 1, 0, 0, 0))
                info.external_attr = 0o644 << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, content if isinstance(content, bytes) else content.read_bytes())
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return dest


# ── serving ──────────────────────────────────────────────────────────────────
class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Plain static file handler; `extra_headers` are added to every response (none by default)."""

    extra_headers: dict[str, str] = {}
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".mjs": "text/javascript", ".js": "text/javascript",
                      ".json": "application/json", ".whl": "application/zip"}

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        for key, value in self.extra_headers.items():
            self.send_header(key, value)
        super().end_headers()


def make_server(dist: Path, port: int = 0, headers: dict[str, str] | None = None,
                handler: type[SiteHandler] = SiteHandler) -> http.server.ThreadingHTTPServer:
    """A threaded HTTP server for dist/ on 127.0.0.1 (port 0 picks a free port)."""
    handler_cls = type("Handler", (handler,), {"extra_headers": dict(headers or {})})
    return http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(handler_cls, directory=str(dist)))


def serve(dist: Path, port: int) -> None:
    try:
        server = make_server(dist, port)
    except OSError as exc:
        raise BuildError(f"Cannot listen on 127.0.0.1:{port}: {exc}. Try another --port.") from exc
    print(f"Inference Lab: http://127.0.0.1:{server.server_address[1]}/  (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


# ── command line ─────────────────────────────────────────────────────────────
def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Build (and optionally serve) the Inference Lab site.")
    parser.add_argument("command", nargs="?", choices=["build", "serve", "docs"], default="build",
                        help="docs: rewrite the block → code map in README.md and the package docstring "
                             "from py/inference_lab/words/blocks.py (no build)")
    parser.add_argument("--pyodide", choices=["vendor", "cdn"], default="vendor",
                        help="vendor Pyodide into dist/ (default) or load it from the official CDN")
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder (default: dist/)")
    parser.add_argument("--engine", type=Path, default=ROOT / "py", help="engine project folder (default: py/)")
    parser.add_argument("--port", type=int, default=8000, help="port for serve (default: 8000)")
    parser.add_argument("--no-minify", dest="minify", action="store_false",
                        help="copy static/*.js and *.css unminified (easier to debug in the browser)")
    parser.add_argument("--zip", action="store_true",
                        help="also write inference-lab-<version>.zip next to the output folder (offline classroom bundle)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        if args.command == "docs":
            changed = write_docs()
            print("Rewrote " + ", ".join(str(p.relative_to(ROOT)) for p in changed) if changed else "Docs already match blocks.py")
            return 0
        dist = build(args.out.resolve(), args.pyodide, args.engine.resolve(), args.minify)
        print(f"Built {dist} (Pyodide {PYODIDE_VERSION}: {args.pyodide})", flush=True)
        if args.zip:
            print(f"Wrote {write_zip(dist)}", flush=True)
        if args.command == "serve":
            serve(dist, args.port)
    except BuildError as exc:
        print(f"build.py: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
