"""Pyodide 0.27.7: the pins, what the lab loads of it, dist/pyodide/ and the lab's cut-down lock file.

Each Pyodide file comes through fetch.py's one fetcher (PYODIDE_SOURCE): the folder named by
$LAB_PYODIDE_MIRROR, the download cache (.cache/pyodide-0.27.7/), then the official CDN (saved into
the cache); every file's sha256 must equal its pin in PYODIDE_PINS before it enters dist/. With a
CPython 3.12, the standard library and the NumPy and micropip wheels go in with their start-up
modules compiled (bytecode.py). dist/pyodide-lock.lab.json is Pyodide's lock file cut down to the
two packages the lab loads (lab_lock()).

Left out: the files the lab never loads (see PYODIDE_RUNTIME), the --pyodide cdn mode's URLs and
CSP (assemble.py, page.py), and the service worker's list (offline.py).
"""
from __future__ import annotations

import gzip
import json
import re
import shutil
import zipfile
from pathlib import Path

from . import bytecode, stdlib
from .common import ROOT, BuildError, sha256_file, sri
from .fetch import Source, fetch

PYODIDE_VERSION = "0.27.7"
PYODIDE_CDN = f"https://cdn.jsdelivr.net/pyodide/v{PYODIDE_VERSION}/full/"
MIRROR_ENV = "LAB_PYODIDE_MIRROR"

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
    "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl":
        "ebb61241d962b98b21597d7ce43b67668a6d5bab3acec4fbe958657320d7cd08",
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
LAB_PACKAGES = ["numpy", "micropip"]
NUMPY_WHEEL = "numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl"
NUMPY_REST = "numpy-rest"  # the lab's lock file's name for NumPy's part loaded after "ready" (split_numpy)
# Shipped gzip'd by a vendored build, as "<name>.gz" (build-info.json pyodide.gzip): pyodide.asm.wasm is
# 10.1 MB as it is and 3.2 MB gzip'd, and a classroom's plain file server (`python3 -m http.server`) sends files
# as they are. The worker unpacks it as it arrives (DecompressionStream, which the WebAssembly compiler reads
# from: static/worker/worker.js); a host that gzips by itself (GitHub Pages) sends the same bytes either way.
GZIPPED = ["pyodide.asm.wasm"]
LAB_LOCK = "pyodide-lock.lab.json"  # written by write_lab_lock(), at the site root in both build modes

WHAT_TO_DO = (
    f"What to do: point {MIRROR_ENV} at a folder holding the Pyodide {PYODIDE_VERSION} files "
    f"(e.g. {MIRROR_ENV}=../shared/pyodide-{PYODIDE_VERSION}), or check the network connection to "
    f"{PYODIDE_CDN} and run the build again. To skip vendoring, build with --pyodide cdn."
)
_WRONG_FILE = (f"{{path}}: sha256 {{got}} does not match the pin {{pin}} for Pyodide {PYODIDE_VERSION} {{name}}. "
               "The file is damaged or from another version; replace it.\n{what_to_do}")

# Where the Pyodide files come from; a test may point .cache or .cdn elsewhere (monkeypatch.setattr).
PYODIDE_SOURCE = Source(
    mirror_env=MIRROR_ENV, cache=ROOT / ".cache" / f"pyodide-{PYODIDE_VERSION}", cdn=PYODIDE_CDN,
    what_to_do=WHAT_TO_DO, mismatch=_WRONG_FILE, fetched_mismatch=_WRONG_FILE,
    damaged="  cache: {path} is damaged, downloading it again",
)


def locate_pyodide_file(name: str) -> Path:
    """A verified local copy of one Pyodide file (mirror, cache or CDN)."""
    return fetch(PYODIDE_SOURCE, name, PYODIDE_PINS[name])


def vendor_pyodide(dest: Path, python: str | None = None) -> dict[str, str]:
    """Copy the Pyodide files the lab loads into dest; with a CPython 3.12 (`python`), the standard
    library and the NumPy and micropip wheels go in with their start-up modules compiled
    (bytecode.py). Returns {upstream name: the name of the file in dest}."""
    dest.mkdir(parents=True)
    listed = bytecode.read_imports() if python else {}
    shipped = {}
    for name in PYODIDE_RUNTIME:
        if name in GZIPPED:
            shipped[name] = gzip_copy(locate_pyodide_file(name), dest)
        elif name not in listed:
            shutil.copyfile(locate_pyodide_file(name), dest / name)
            shipped[name] = name
    pycs = compile_listed(python, listed) if listed else {}
    for name in listed:
        shipped[name] = bytecode.repacked_name(name)
        pruned = pruning(name, listed[name], python)
        bytecode.repack(locate_pyodide_file(name), dest / shipped[name], pycs[name], **pruned)
        # the official zip beside it, for stdlib.py's lazy finder (not in `shipped`: not loaded at start)
        if name == bytecode.STDLIB_ZIP:
            shutil.copyfile(locate_pyodide_file(name), dest / name)
    if shipped.get(NUMPY_WHEEL, NUMPY_WHEEL) != NUMPY_WHEEL:  # repacked: a bytecode build
        shipped[NUMPY_REST] = split_numpy(dest / shipped[NUMPY_WHEEL])
    return shipped


def split_numpy(wheel: Path) -> str:
    """Move the files of the (repacked) NumPy wheel that `import numpy` does not read (stdlib.NUMPY_AFTER_READY)
    into a zip beside it, the lab lock's package NUMPY_REST, which the worker loads right after "ready" (Pyodide
    unpacks it into site-packages and compiles its extension modules, as it does a wheel's). Same entries, same
    bytes, same order; the wheel's RECORD still lists every file: with both parts installed NumPy is whole.
    Returns the zip's name."""
    rest = wheel.with_name(NUMPY_REST + "-" + wheel.name.split("-")[1] + "-" + bytecode.BUILD_TAG + ".zip")
    front = wheel.with_suffix(".part")
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(front, "w") as core, zipfile.ZipFile(rest, "w") as later:
        for info in src.infolist():
            (later if stdlib.numpy_after_ready(info.filename) else core).writestr(info, src.read(info))
    front.replace(wheel)
    return rest.name


def unpacked(shipped: dict[str, str], digests: dict[str, str] | None) -> list[dict]:
    """build-info.json pyodide.unpack: the package the worker installs itself before "ready" (NumPy's wheel: the part
    `import numpy` reads): its file (relative to indexURL) and Subresource Integrity, for a fetch that starts beside
    the Pyodide core's and that the browser checks. Not pyodide.loadPackage: it asks for the wheel only once the
    interpreter has started (a second download after the first, on a slow link) and ends with
    importlib.invalidate_caches(), which imports importlib.metadata (~50 ms of the way to "ready" in the browser); the
    worker unpacks the wheel into site-packages as Pyodide does, and its extension modules are compiled when Python
    first imports them. `digests`: {file in dist/pyodide/: sha256} of a vendored build, or None (the CDN's files: the
    pins)."""
    file = shipped[NUMPY_WHEEL]
    return [{"name": "numpy", "file": file, "integrity": sri((digests or PYODIDE_PINS)[file])}]


def gzipped(shipped: dict[str, str]) -> dict[str, str]:
    """build-info.json pyodide.gzip: {name Pyodide asks for: name of its .gz in dist/pyodide/} (GZIPPED, vendored)."""
    return {name: shipped[name] for name in GZIPPED if shipped.get(name, name) != name}


def load_phases(shipped: dict[str, str]) -> dict[str, list[str]]:
    """build-info.json pyodide.load: the lab lock's packages the worker loads with pyodide.loadPackage after "ready":
    "run" right after it (before the warm-up and any run: a run imports them) and "later" (micropip: only the student's
    code may import it)."""
    return {"run": [NUMPY_REST] if NUMPY_REST in shipped else [], "later": ["micropip"]}


def gzip_copy(source: Path, dest: Path) -> str:
    """dest/<name>.gz: the (verified) file gzip'd, the same bytes on every build (no name, no time in the header).
    Returns its name."""
    packed = dest / (source.name + ".gz")
    with open(source, "rb") as raw, open(packed, "wb") as out, \
            gzip.GzipFile(filename="", mode="wb", fileobj=out, compresslevel=9, mtime=0) as gz:
        shutil.copyfileobj(raw, gz, 1 << 20)
    return packed.name


def pruning(name: str, imported: list[str], python: str) -> dict:
    """repack()'s keep/extra: for the standard library (stdlib.py) the files the lab needs and the lazy
    finder with the full zip's module list; for NumPy the files an import can read; {} for micropip."""
    with zipfile.ZipFile(locate_pyodide_file(name)) as zf:
        names = zf.namelist()
    if name.startswith("numpy-"):
        return {"keep": stdlib.numpy_kept(names)}
    if name != bytecode.STDLIB_ZIP:
        return {}
    finder = (Path(__file__).parent / "lazy_stdlib.py").read_text(encoding="utf-8")
    line = f"MODULES: frozenset = frozenset({stdlib.module_names(names)!r})"
    finder = re.sub(r"(?m)^MODULES: frozenset = frozenset\(\)[^\n]*$", lambda _: line, finder, count=1)
    [pyc] = bytecode.compile_sources(python,
                                     [(finder.encode(), bytecode.co_filename(name, stdlib.LAZY_FINDER), "unchecked")])
    return {"keep": stdlib.kept_files(names, imported), "extra": {stdlib.LAZY_FINDER + "c": pyc}}


def compile_listed(python: str, listed: dict[str, list[str]]) -> dict[str, dict[str, bytes]]:
    """{upstream name: {path inside it: .pyc bytes}} for pyodide-imports.txt's files, in one run of python."""
    items, where = [], []
    for name, inner in listed.items():
        upstream = locate_pyodide_file(name)  # checked against its pin
        if missing := bytecode.missing_sources(upstream, inner):
            raise BuildError(f"{bytecode.IMPORTS_LIST.name} lists files that {name} does not hold: {missing[:5]}")
        with zipfile.ZipFile(upstream) as zf:
            items += [(zf.read(path), bytecode.co_filename(name, path), "unchecked") for path in inner]
        where += [(name, path) for path in inner]
    pycs = bytecode.compile_sources(python, items)
    compiled: dict[str, dict[str, bytes]] = {name: {} for name in listed}
    for (owner, path), pyc in zip(where, pycs):
        compiled[owner][path] = pyc
    return compiled


def lab_lock(full: dict, shipped: dict[str, tuple[str, str]] | None = None) -> dict:
    """The official pyodide-lock.json cut down to the packages the lab loads (112 kB -> 1 kB).

    Pyodide 0.27 fetches and parses the whole lock file before anything else; the lab needs two
    entries of its ~250. The entries are copied unchanged (file names, sha256 checked by Pyodide on
    every package download) except one: micropip 0.9.0 vendors its own copy of packaging
    (micropip/_vendored/packaging) and its METADATA requires nothing at run time, so the lock's
    `depends: ["packaging"]` only costs a 72 kB download; the lab's lock says micropip depends on nothing.
    `shipped` {package: (file name, sha256)} names the wheels a bytecode build repacked (bytecode.py).
    """
    packages = {name: dict(full["packages"][name]) for name in LAB_PACKAGES}
    packages["micropip"]["depends"] = []
    for name, (file_name, sha256) in (shipped or {}).items():
        if name == NUMPY_REST:  # NumPy's part loaded after "ready" (split_numpy): no import of its own
            packages[name] = {**packages["numpy"], "name": name, "imports": [], "depends": ["numpy"],
                              "unvendored_tests": False}
        packages[name].update(file_name=file_name, sha256=sha256)
    return {"info": full["info"], "packages": packages}


def write_lab_lock(out: Path, shipped: dict[str, str] | None = None) -> None:
    """out/pyodide-lock.lab.json. `shipped`: vendor_pyodide's {upstream name: name in dist/pyodide/}."""
    full = json.loads(locate_pyodide_file("pyodide-lock.json").read_text(encoding="utf-8"))
    repacked = {}
    for name in LAB_PACKAGES:
        upstream = full["packages"][name]["file_name"]
        if shipped and shipped.get(upstream, upstream) != upstream:
            repacked[name] = (shipped[upstream], sha256_file(out / "pyodide" / shipped[upstream]))
    if shipped and NUMPY_REST in shipped:
        repacked[NUMPY_REST] = (shipped[NUMPY_REST], sha256_file(out / "pyodide" / shipped[NUMPY_REST]))
    (out / LAB_LOCK).write_text(json.dumps(lab_lock(full, repacked), separators=(",", ":")) + "\n", encoding="utf-8")
