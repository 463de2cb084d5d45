"""The panels' font in the build (sitebuild/fonts.py): pinned, small, licensed, named first by the stylesheet
with the package's ranges, fetched without npm, allowed by the CSP.
Leaves out: the rest of the build (test_build_site.py, test_build_pins.py, test_build_bytecode.py)."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from build_helpers import vendored
from lab_site import ROOT, sitebuild


@pytest.fixture
def site(site) -> Path:
    """The session's vendored build (conftest.py), checked here only when it came from a Pyodide mirror."""
    return vendored(site)


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
