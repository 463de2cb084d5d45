"""The engine wheel: py/ packed into <pkg>-<version>-py3-none-any.whl with zipfile (no setuptools or network).

The project's name, version and dependencies come from py/pyproject.toml ([project]; the version
may come from the package's __version__ instead). The bytes are reproducible: files in sorted order,
one fixed date, one mode. With a CPython 3.12 each x.py is replaced by its bytecode x.pyc (bytecode.py; docstrings
left out; co_filename still names x.py, so tracebacks and the page's messages name the source file) and the sources go
beside the wheel in <pkg>-<version>-sources.json ({"inference_lab/x.py": text}): the browser downloads the
bytecode only before it is ready (issue 39: ~330 kB less), and fetches the sources only if a traceback needs a
line of them (entrypoints/web.py source_lines_from; the code views and the editor read code.json, not these).
RECORD hashes are common.record_hash, the same the repacked Pyodide wheels use.
Left out: where the wheel goes in dist/ (assemble.py puts it in a folder named by its hash), entry
points, data files and any build backend.
"""
from __future__ import annotations

import json
import re
import tomllib
import zipfile
from pathlib import Path

from . import bytecode
from .common import BuildError, record_hash


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
    text = init.read_text(encoding="utf-8") if init.is_file() else ""
    match = re.search(r'^__version__\s*=\s*["\']([^"\']+)', text, re.M)
    if not match:
        raise BuildError(f"No version in {engine_dir / 'pyproject.toml'} nor __version__ in {init}.")
    return match.group(1)


def package_name(project_name: str) -> str:
    return re.sub(r"[-_.]+", "_", project_name).lower()


def package_files(package_dir: Path) -> list[Path]:
    skip = {"__pycache__"}
    return sorted(p for p in package_dir.rglob("*")
                  if p.is_file() and not skip & set(p.relative_to(package_dir).parts) and p.suffix != ".pyc")


def sources_of(wheel: Path) -> Path:
    """The sources file beside a bytecode-only wheel: <pkg>-<version>-sources.json."""
    return wheel.with_name(wheel.name.removesuffix("-py3-none-any.whl") + "-sources.json")


def build_wheel(engine_dir: Path, out_dir: Path, python: str | None = None) -> tuple[Path, str]:
    """Write <pkg>-<version>-py3-none-any.whl from engine_dir; returns (path, version). Reproducible bytes.

    With a CPython 3.12 (`python`), each x.py is replaced by its bytecode x.pyc (hash-based, "stripped":
    unchecked, as there is no source beside it to check, and without docstrings; bytecode.py), so Pyodide imports
    the engine without compiling it, and the sources are written to sources_of(wheel) (sorted keys: reproducible too).
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
    sources = [(arc, data) for arc, data in entries if arc.endswith(".py")]
    if python:
        pycs = bytecode.compile_sources(
            python, [(data, bytecode.SITE_PACKAGES + arc, "stripped") for arc, data in sources])
        compiled = {arc + "c": pyc for (arc, _), pyc in zip(sources, pycs)}
        entries = sorted([(arc, data) for arc, data in entries if not arc.endswith(".py")] + list(compiled.items()))
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
    if python:
        text = {arc: data.decode("utf-8") for arc, data in sources}
        sources_of(wheel).write_text(json.dumps(text, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    return wheel, version

