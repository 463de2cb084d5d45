"""One fetcher for every pinned file the build takes from outside the repository: mirror → cache → remote.

A Source says where one set of files comes from: a mirror folder named by an environment variable
(LAB_PYODIDE_MIRROR, LAB_FONT_MIRROR), a download cache under .cache/, then a remote (the CDN, or
`npm pack` for the font package), whatever a fetched file is saved into the cache atomically. fetch()
returns a local copy whose sha256 equals its pin, or raises BuildError with the source's own message:
a mirror's file that fails its pin stops the build, a damaged cached copy is fetched again, a fetched
file that fails its pin is deleted (it never stays in the cache).

A relative mirror path is read against the folder the command was started in (STARTED_IN, taken
once, when the package is first imported), so a test or tool that changes folder later still finds
the mirror the person named.

Left out: what the files are and where they go (pyodide.py, fonts.py), retries, proxies and partial
downloads (a failed download leaves nothing behind and the build says what to do).
"""
from __future__ import annotations

import functools
import os
import shutil
import sys
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from .common import BuildError, sha256_file

STARTED_IN = Path.cwd()  # the folder the command (build.py, pytest, a bench script) was started in


@dataclass
class Source:
    """Where one set of pinned files comes from, and what the build says about them.

    Messages are format strings over {path}, {got}, {pin}, {name}, {url}, {exc}, {cdn}, {what_to_do}
    and the fields a caller passes to fetch(). `remote(source, name, dest)` fills `dest` (default: a
    download from `cdn` + `cdn_path(name)`). A mirror variable naming no folder is an error when
    `strict_mirror`, else the mirror is skipped.
    """
    mirror_env: str | None
    cache: Path
    what_to_do: str
    cdn: str = ""
    cdn_path: Callable[[str], str] = lambda name: name
    remote: Callable[["Source", str, Path], None] | None = None
    mismatch: str = ""                # a mirror's file fails its pin
    fetched_mismatch: str = ""        # a fetched file fails its pin
    damaged: str | None = None        # printed when a cached copy fails its pin (None: fetched again silently)
    download_failed: str = "Could not download {url}: {exc}\n{what_to_do}"
    strict_mirror: bool = True
    not_a_folder: str = "{env}={value} is not a folder.\n{what_to_do}"


@functools.lru_cache(maxsize=None)
def resolve_path(value: str) -> Path:
    """An absolute path for `value`, a relative one read against STARTED_IN (once per value)."""
    path = Path(value).expanduser()
    return (path if path.is_absolute() else STARTED_IN / path).resolve()


def mirror_folder(source: Source) -> Path | None:
    """The folder the source's mirror variable names, or None (unset, or no folder and not strict)."""
    value = os.environ.get(source.mirror_env) if source.mirror_env else None
    if not value:
        return None
    mirror = resolve_path(value)
    if mirror.is_dir():
        return mirror
    if source.strict_mirror:
        raise BuildError(source.not_a_folder.format(env=source.mirror_env, value=value, what_to_do=source.what_to_do))
    return None


def download(url: str, dest: Path) -> None:
    """Fetch url into dest atomically (a partial download never lands in the cache); raises OSError."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=60) as resp:
            shutil.copyfileobj(resp, out)
        os.replace(tmp, dest)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def from_cdn(source: Source, name: str, dest: Path) -> None:
    """The default remote: `name` downloaded from the source's CDN into dest."""
    url = source.cdn + source.cdn_path(name)
    print(f"  downloading {url}", file=sys.stderr)
    try:
        download(url, dest)
    except (urllib.error.URLError, OSError) as exc:
        raise BuildError(source.download_failed.format(url=url, exc=exc, what_to_do=source.what_to_do)) from exc


def _message(source: Source, template: str, **fields) -> str:
    return template.format(cdn=source.cdn, what_to_do=source.what_to_do, **fields)


def from_mirror(source: Source, name: str, pin: str, fields: dict) -> Path | None:
    """The mirror's copy of `name` when it has one (checked: a wrong one stops the build)."""
    mirror = mirror_folder(source)
    if mirror is None or not (mirror / name).is_file():
        return None
    got = sha256_file(mirror / name)
    if got != pin:
        raise BuildError(_message(source, source.mismatch, path=mirror / name, got=got, pin=pin, name=name, **fields))
    return mirror / name


def from_cache(source: Source, cached: Path, pin: str) -> bool:
    """Whether the cache holds a good copy; a damaged one is deleted (and said so when the source says)."""
    if not cached.is_file():
        return False
    if sha256_file(cached) == pin:
        return True
    if source.damaged:
        print(source.damaged.format(path=cached), file=sys.stderr)
    cached.unlink()
    return False


def fetch(source: Source, name: str, pin: str, **fields) -> Path:
    """A local copy of `name` whose sha256 is `pin`: from the mirror, the cache or the remote (then cached)."""
    mirrored = from_mirror(source, name, pin, fields)
    if mirrored is not None:
        return mirrored
    cached = source.cache / name
    if from_cache(source, cached, pin):
        return cached
    (source.remote or from_cdn)(source, name, cached)
    got = sha256_file(cached)
    if got != pin:
        cached.unlink()
        raise BuildError(_message(source, source.fetched_mismatch, path=cached, got=got, pin=pin, name=name, **fields))
    return cached
