"""What every part of the build shares: the repository root, the build's error, file hashes.

BuildError is a problem the person running the build has to fix (build.py prints it without a
traceback). sha256_file hashes a file on disk; record_hash is a wheel RECORD line's hash, used by
the engine wheel (wheel.py) and by the repacked Pyodide wheels (bytecode.py). Standard library only.
Left out: anything that knows about a particular output file.
"""
from __future__ import annotations

import base64
import hashlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MANIFEST = "build-info.json"  # dist/build-info.json: every built file's sha256 (assemble.py writes it)


class BuildError(Exception):
    """A problem the person running the build has to fix; printed without a traceback."""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def sri(hex_digest: str) -> str:
    """A Subresource Integrity value ("sha256-<base64>") from a hex sha256."""
    return "sha256-" + base64.b64encode(bytes.fromhex(hex_digest)).decode()


def record_hash(data: bytes) -> str:
    """A wheel RECORD hash: "sha256=" and the urlsafe base64 digest without padding (PEP 376/427)."""
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
