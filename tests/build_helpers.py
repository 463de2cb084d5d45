"""Helpers shared by the build's test modules (tests/test_build_*.py): the mark for tests that need a
Pyodide mirror, the check that the session's site came from one, and a fake mirror of symlinks.
Leaves out: building the session's site (tests/lab_site.py, tests/conftest.py) and any test."""
from __future__ import annotations

from pathlib import Path

import pytest

from lab_site import pyodide_mirror, sitebuild

needs_mirror = pytest.mark.skipif(pyodide_mirror() is None, reason="no Pyodide mirror (set LAB_PYODIDE_MIRROR)")


def vendored(site: Path) -> Path:
    """The session's build, when it came from a Pyodide mirror (else the test is skipped)."""
    if pyodide_mirror() is None:
        pytest.skip("no Pyodide mirror (set LAB_PYODIDE_MIRROR)")
    return site


def fake_mirror(tmp_path: Path, corrupt: str | None = None, drop: str | None = None) -> Path:
    """tmp_path/mirror: symlinks to the real mirror's pinned files, but `corrupt` (wrong bytes) and `drop` (absent)."""
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
