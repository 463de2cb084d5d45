"""sitebuild: the Inference Lab build, one module per job (`python3 build.py` is its command line).

dist/ holds index.html, static/, the engine wheel and, unless --pyodide cdn, the Pyodide files the
lab loads under dist/pyodide/, the panels' font under dist/fonts/, exercises.json, code.json, the
lab's lock file, build-info.json (every built file's sha256) and sw.js. Every file taken from
outside the repository (Pyodide, the font) must match its sha256 pin before it enters dist/.

    common.py       the repository root, BuildError, sha256_file, record_hash (standard library only)
    fetch.py        the one mirror → cache → remote fetcher for pinned files; mirror paths resolved once
    pyodide.py      Pyodide's pins, dist/pyodide/ and the lab's cut-down lock file
    fonts.py        the panels' font (JetBrains Mono), pinned and fetched like Pyodide
    bytecode.py     the start-up modules compiled by a CPython 3.12 (which runs compile_job.py)
    compile_job.py  the script that CPython 3.12 runs (standard library only, imports nothing from here)
    wheel.py        the engine wheel, written with zipfile
    page.py         the page's CSP and versioned URLs; static/ checked and minified
    content.py      exercises.json, the page's block tables and guide, README's code map, code.json
    offline.py      sw.js (the service worker's list) and the classroom zip
    serve.py        the dev server on 127.0.0.1
    assemble.py     the whole build, in order, and build-info.json

The names below are the package's public ones: tests, benches and build.py use them. A test that
needs a build to look elsewhere changes a Source's fields (PYODIDE_SOURCE.cache, .cdn;
FONT_TARBALL_SOURCE, FONT_FILES_SOURCE) or a module's function (sitebuild.fetch.download,
sitebuild.fonts.npm_pack) with monkeypatch. Left out: the command line (build.py).
"""
from __future__ import annotations

# the sub-modules are public names too: a test changes sitebuild.fetch.download or sitebuild.fonts.npm_pack
from . import assemble, bytecode, content, fetch, fonts, offline, page, pyodide, serve, wheel  # noqa: F401
from .bytecode import (PYC_MAGIC, PYTHON312_ENV, STDLIB_PATH, STDLIB_PYC_ZIP, STDLIB_ZIP, SITE_PACKAGES,
                       find_python312, missing_sources, read_imports, repacked_name)
from .common import MANIFEST, ROOT, BuildError, record_hash, sha256_file
from .content import (CODE_JSON, EXERCISES_JSON, TOKEN_CLASSES, code_views, learning_map, render_blocks,
                      render_exercises, synced_docs, write_docs)
from .fetch import STARTED_IN, Source, resolve_path
from .fonts import (FONT_CDN, FONT_DIR, FONT_FILES_SOURCE, FONT_MIRROR_ENV, FONT_PINS, FONT_TARBALL,
                    FONT_TARBALL_PIN, FONT_TARBALL_SOURCE, NoFontTarball, font_files, locate_font_tarball)
from .offline import SERVICE_WORKER, sri, write_zip
from .page import VENDOR_PINS, content_security_policy
from .pyodide import (LAB_LOCK, MIRROR_ENV, NUMPY_REST, NUMPY_WHEEL, PYODIDE_CDN, PYODIDE_PINS, PYODIDE_RUNTIME,
                      PYODIDE_SOURCE, PYODIDE_VERSION, locate_pyodide_file)
from .serve import ISOLATION, SiteHandler, make_server, serve as serve_site
from .assemble import CACHE_NAMES, build, build_version
from .wheel import build_wheel, sources_of

__all__ = [
    "BuildError", "CACHE_NAMES", "CODE_JSON", "EXERCISES_JSON", "FONT_CDN", "FONT_DIR", "FONT_FILES_SOURCE",
    "FONT_MIRROR_ENV", "FONT_PINS", "FONT_TARBALL", "FONT_TARBALL_PIN", "FONT_TARBALL_SOURCE", "LAB_LOCK",
    "MANIFEST", "MIRROR_ENV", "NUMPY_REST", "NUMPY_WHEEL", "NoFontTarball", "PYC_MAGIC", "PYODIDE_CDN",
    "PYODIDE_PINS", "PYODIDE_RUNTIME",
    "PYODIDE_SOURCE", "PYODIDE_VERSION", "PYTHON312_ENV", "ROOT", "SERVICE_WORKER", "SITE_PACKAGES",
    "STARTED_IN", "STDLIB_PATH", "STDLIB_PYC_ZIP", "STDLIB_ZIP", "SiteHandler", "Source", "TOKEN_CLASSES",
    "VENDOR_PINS", "build", "build_version", "build_wheel", "code_views", "content_security_policy",
    "find_python312", "font_files", "learning_map", "locate_font_tarball", "locate_pyodide_file",
    "ISOLATION", "make_server", "missing_sources", "read_imports", "record_hash", "render_blocks", "render_exercises",
    "repacked_name", "resolve_path", "serve_site", "sha256_file", "sources_of", "sri", "synced_docs", "write_docs",
    "write_zip",
]
