"""The whole build: every other module's part, in order, into one output folder with its manifest.

build() first does everything that can fail for want of a tool or a file (markdown-it-py, the page
template, Pygments, the minifiers, the font, a CPython 3.12), so a missing one keeps the previous
build; only then does it empty out/ (never a folder that is not an earlier build) and write the
engine wheel, Pyodide (vendored, or named on the CDN), static/, the font, the lab's lock file, the
exercises, the code views and the page. dist/build-info.json lists every built file's sha256; the
page's worker reads it to find Pyodide, the engine wheel, the build's version and its cache names
(CACHE_NAMES). A failed build removes out/ (no half-built site is left behind).
Left out: how each part is made (the other modules) and the command line (build.py).
"""
from __future__ import annotations

import hashlib
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from . import bytecode, content, fonts, offline, page, pyodide, serve
from .common import MANIFEST, ROOT, BuildError, sha256_file
from .wheel import build_wheel, sources_of

SITE_SOURCES = ["index.html", "static"]

# The build's version and the names of the lab's browser caches, written once here: build-info.json
# carries them ("build") to static/worker/worker.js, which hands them to static/worker/pyc-cache.js, and sw.js gets
# them in its BUILD line. A cache is named "<name> <site root URL>", plus " <version>" for the caches
# that hold one build: the service worker's copy of the site ("site") and the compiled Python ("pyc").
CACHE_NAMES = {"site": "inference-lab", "pyc": "inference-lab-pyc"}


def prepare_out_dir(out: Path) -> None:
    """Empty out/, refusing to wipe a folder that is not an earlier build."""
    if out.exists():
        if any(out.iterdir()) and not (out / MANIFEST).is_file():
            raise BuildError(f"{out} exists and is not a previous build (no {MANIFEST}); not deleting it.")
        shutil.rmtree(out)
    out.mkdir(parents=True)


def build_version(files: dict[str, dict]) -> str:
    """16 hex digits of a hash of every built file's path and sha256: any change to any file changes it."""
    listing = json.dumps({path: info["sha256"] for path, info in files.items()}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(listing.encode()).hexdigest()[:16]


def file_hashes(dist: Path) -> dict[str, dict]:
    return {p.relative_to(dist).as_posix(): {"sha256": sha256_file(p), "bytes": p.stat().st_size}
            for p in sorted(dist.rglob("*")) if p.is_file() and p.name != MANIFEST}


@dataclass
class Inputs:
    """What the build prepares before it touches out/."""
    exercises: list[dict]
    page: str
    views: dict
    fonts: dict[str, bytes]
    python: str | None


def gather_inputs(minify: bool) -> Inputs:
    """Everything that needs a tool or a source file, before touching out/: a missing markdown-it-py,
    a broken template, a missing Pygments, minifier or font keeps the old build."""
    for source in SITE_SOURCES:
        if not (ROOT / source).exists():
            raise BuildError(f"{ROOT / source} is missing.")
    exercises = content.render_exercises()
    page_text = content.render_blocks((ROOT / "index.html").read_text(encoding="utf-8"))
    views = content.code_views()
    if minify:
        page.minifiers()
    font = fonts.font_files()
    python, why = bytecode.find_python312()
    if python is None:
        print(f"build.py: no CPython 3.12 ({why}): the site ships Python sources, which the browser compiles on "
              "every first visit", file=sys.stderr)
    return Inputs(exercises, page_text, views, font, python)


def place_wheel(out: Path, engine_dir: Path, python: str | None) -> tuple[Path, str]:
    """The engine wheel in a folder per wheel hash, so a browser never reuses an older wheel of the same version."""
    wheel, version = build_wheel(engine_dir, out / "engine", python)
    wheel_dir = out / "engine" / sha256_file(wheel)[:12]
    wheel_dir.mkdir()
    if sources_of(wheel).exists():  # a bytecode-only wheel's sources, beside it (fetched only for a traceback)
        sources_of(wheel).rename(wheel_dir / sources_of(wheel).name)
    return wheel.rename(wheel_dir / wheel.name), version


def place_pyodide(out: Path, pyodide_mode: str, python: str | None) -> tuple[dict[str, str], str, str | None]:
    """(shipped {upstream: name}, indexURL, the CSP's extra origin): vendored, or named on the CDN."""
    if pyodide_mode == "cdn":
        origin = "{0.scheme}://{0.netloc}".format(urlsplit(pyodide.PYODIDE_CDN))
        return {name: name for name in pyodide.PYODIDE_RUNTIME}, pyodide.PYODIDE_CDN, origin
    return pyodide.vendor_pyodide(out / "pyodide", python), "pyodide/", None


def manifest_of(out: Path, pyodide_mode: str, shipped: dict[str, str], index_url: str,
                wheel: Path, version: str, python: str | None) -> dict:
    """build-info.json: the build's version and caches, where Pyodide and the engine are, every file's hash."""
    files = file_hashes(out)
    stdlib = shipped[bytecode.STDLIB_ZIP]
    return {
        "build": {"version": build_version(files), "caches": CACHE_NAMES,
                  "coep": serve.embedder_policy(pyodide_mode)},   # sw.js and serve.py send it
        "pyodide": {"version": pyodide.PYODIDE_VERSION, "mode": pyodide_mode, "indexURL": index_url,
                    "lockFileURL": pyodide.LAB_LOCK, "packages": pyodide.LAB_PACKAGES, "files": list(shipped.values()),
                    "unpack": pyodide.unpacked(shipped, {path.removeprefix("pyodide/"): info["sha256"]
                                                         for path, info in files.items()}
                                               if pyodide_mode == "vendor" else None),
                    "load": pyodide.load_phases(shipped),
                    "gzip": pyodide.gzipped(shipped),           # the files shipped gzip'd, for the worker to unpack
                    # the standard library with its start-up modules compiled (relative to indexURL)
                    **({"stdLibURL": stdlib} if stdlib != bytecode.STDLIB_ZIP else {}),
                    # the official one, for a standard-library module the pruned one left out (stdlib.py)
                    **({"fullStdLibURL": bytecode.STDLIB_ZIP} if (out / "pyodide" / bytecode.STDLIB_ZIP).exists()
                       and stdlib != bytecode.STDLIB_ZIP else {})},
        "engine": {"version": version, "wheel": wheel.relative_to(out).as_posix(),
                   # a bytecode-only wheel's sources (sitebuild/wheel.py), for the tracebacks' lines
                   **({"sources": sources_of(wheel).relative_to(out).as_posix()} if sources_of(wheel).exists()
                      else {})},
        "bytecode": {"compiler": bytecode.python_version(python), "magic": bytecode.PYC_MAGIC} if python else None,
        "files": files,
    }


def write_site(out: Path, inputs: Inputs, pyodide_mode: str, engine_dir: Path, minify: bool) -> None:
    wheel, version = place_wheel(out, engine_dir, inputs.python)
    shipped, index_url, origin = place_pyodide(out, pyodide_mode, inputs.python)
    shutil.copytree(ROOT / "static", out / "static")
    page.check_vendor(out / "static")
    fonts.vendor_font(out / fonts.FONT_DIR, inputs.fonts)
    pyodide.write_lab_lock(out, shipped)
    sw_template = offline.take_service_worker_template(out)
    if minify:
        page.minify_static(out / "static")
    page.bundle_worker(out / "static")
    asset_version = page.static_version(out)
    page.version_module_imports(out / "static", asset_version)
    content.write_exercises(out, inputs.exercises)
    content.write_code_views(out, inputs.views)
    index = page.render_index(inputs.page, page.content_security_policy(origin), asset_version)
    (out / "index.html").write_text(index, encoding="utf-8")
    manifest = manifest_of(out, pyodide_mode, shipped, index_url, wheel, version, inputs.python)
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    offline.write_service_worker(out, manifest, sw_template, asset_version)


def build(out: Path, pyodide_mode: str = "vendor", engine_dir: Path = ROOT / "py", minify: bool = True) -> Path:
    """Build the site into out/ (`pyodide_mode` "vendor" or "cdn"); returns out."""
    inputs = gather_inputs(minify)
    prepare_out_dir(out)
    try:
        write_site(out, inputs, pyodide_mode, engine_dir, minify)
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)  # never leave a half-built site behind
        raise
    return out
