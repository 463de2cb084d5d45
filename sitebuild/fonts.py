"""The output panels' font: JetBrains Mono (OFL), Latin + Vietnamese, pinned and fetched like Pyodide.

The output panels need a monospace face whose Vietnamese letters carry their stacked accents
("số", "ước", "ữ"); many computers have none. Fontsource's npm package of JetBrains Mono ships the
font already cut into per-script woff2 files (one variable font for weights 100-800 each); the lab
takes two, Latin and Vietnamese, and static/style.css gives each its unicode-range, so a browser
downloads a file only for text that needs it. dist/fonts/ gets the two fonts and the licence text.

The package tarball comes through fetch.py's fetcher (FONT_TARBALL_SOURCE): the folder named by
$LAB_FONT_MIRROR, the cache (.cache/fonts/), then `npm pack` (saved into the cache). A machine
without npm (or whose npm fails) takes the three files one by one from the CDN that also serves
Pyodide (FONT_FILES_SOURCE, cached in .cache/fonts/files/). The tarball and every file must match
their pins.

Left out: italics, Cyrillic, Greek and Latin Extended (the engine prints none of them), and
subsetting at build time (the files come subset).
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from .common import ROOT, BuildError
from .fetch import Source, fetch

FONT_PACKAGE = "@fontsource-variable/jetbrains-mono"
FONT_VERSION = "5.3.0"
FONT_TARBALL = "fontsource-variable-jetbrains-mono-5.3.0.tgz"  # the name npm pack gives it
FONT_TARBALL_PIN = "996fe6368a480c9ce15d4de22a2682b7c40b403718fee2b15e7272f244fd993f"
FONT_MIRROR_ENV = "LAB_FONT_MIRROR"
FONT_CDN = f"https://cdn.jsdelivr.net/npm/{FONT_PACKAGE}@{FONT_VERSION}/"  # the package's files, as in the tarball
FONT_DIR = "fonts"  # in dist/; static/style.css names these files (tests/test_build.py checks it)
FONT_PINS = {  # dist/fonts/<name>: (the file in the tarball, its sha256)
    "jetbrains-mono-latin-wght-normal.woff2":
        ("package/files/jetbrains-mono-latin-wght-normal.woff2",
         "18be452724bfdc236c074ca94a249a7f41a86752c7d04ab258ce9ed5651f6a7e"),
    "jetbrains-mono-vietnamese-wght-normal.woff2":
        ("package/files/jetbrains-mono-vietnamese-wght-normal.woff2",
         "2288795da89dd97e648954b96e22b4501bd85dfc453264460b252f888b582ca2"),
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
        raise NoFontTarball(f"{FONT_TARBALL} is in neither ${FONT_MIRROR_ENV} nor {dest.parent}, and npm is not "
                            "installed.")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".npm-pack-") as tmp:
        print(f"  npm pack {FONT_PACKAGE}@{FONT_VERSION}", file=sys.stderr)
        result = subprocess.run([npm, "pack", f"{FONT_PACKAGE}@{FONT_VERSION}", "--silent", "--pack-destination", tmp],
                                cwd=tmp, capture_output=True, text=True, timeout=300)
        packed = Path(tmp) / FONT_TARBALL
        if result.returncode != 0 or not packed.is_file():
            raise NoFontTarball(f"npm pack {FONT_PACKAGE}@{FONT_VERSION} failed: {result.stderr.strip()[-500:]}")
        os.replace(packed, dest)


# The tarball: $LAB_FONT_MIRROR (skipped when it names no folder), .cache/fonts/, then npm pack.
# A test may point .cache elsewhere or replace .remote (monkeypatch.setattr).
FONT_TARBALL_SOURCE = Source(
    mirror_env=FONT_MIRROR_ENV, cache=ROOT / ".cache" / "fonts", what_to_do=FONT_WHAT_TO_DO, strict_mirror=False,
    remote=lambda source, name, dest: npm_pack(dest),
    mismatch=f"{{path}}: sha256 {{got}} does not match the pin {{pin}} for {FONT_PACKAGE} {FONT_VERSION}; replace "
             "it.\n{what_to_do}",
    fetched_mismatch=f"npm pack {FONT_PACKAGE}@{FONT_VERSION} gave a file with sha256 {{got}}, not the pin "
                     "{pin}.\n{what_to_do}",
    damaged="  cache: {path} is damaged, fetching it again",
)
# Without npm: each pinned file from FONT_CDN into .cache/fonts/files/ (no mirror; a damaged copy is fetched again).
FONT_FILES_SOURCE = Source(
    mirror_env=None, cache=ROOT / ".cache" / "fonts" / "files", what_to_do=FONT_WHAT_TO_DO, cdn=FONT_CDN,
    cdn_path=lambda name: FONT_PINS[name][0].removeprefix("package/"),
    fetched_mismatch="{cdn}: {member} has sha256 {got}, not the pin {pin}.\n{what_to_do}",
    download_failed="Could not download {url}.\n{what_to_do}",
)


def locate_font_tarball() -> Path:
    """A local copy of the font package's tarball whose sha256 is FONT_TARBALL_PIN."""
    return fetch(FONT_TARBALL_SOURCE, FONT_TARBALL, FONT_TARBALL_PIN)


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


def fetch_font_file(name: str) -> bytes:
    """One pinned font file from the cache, else from FONT_CDN (saved into the cache)."""
    member, pin = FONT_PINS[name]
    return fetch(FONT_FILES_SOURCE, name, pin, member=member).read_bytes()


def font_files() -> dict[str, bytes]:
    """{dist/fonts/ name: bytes}: from the package tarball, or file by file from the CDN without npm."""
    try:
        return read_font_tarball(locate_font_tarball())
    except NoFontTarball as why:
        print(f"  {why} Taking the font files from {FONT_CDN}", file=sys.stderr)
        return {name: fetch_font_file(name) for name in FONT_PINS}


def vendor_font(dest: Path, files: dict[str, bytes]) -> None:
    """dist/fonts/: the pinned font files and their licence."""
    dest.mkdir(parents=True)
    for name, data in files.items():
        (dest / name).write_bytes(data)
