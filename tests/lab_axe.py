"""axe-core for the browser tests: a test-only third-party file, vendored like the site's own (pinned, fetched).

axe-core (MPL-2.0, Deque Systems) checks a page against WCAG rules. It is never committed and never
enters dist/: `axe_source()` gives the text of its axe.min.js, taken from the first place that has it:
  1. $LAB_AXE_MIRROR, a folder holding axe-core-<AXE_VERSION>.tgz (a machine without npm, or offline);
  2. the cache, .cache/axe-core/ (git-ignored), where step 3 leaves the tarball;
  3. `npm pack axe-core@<AXE_VERSION>` with the machine's own npm configuration (saved into the cache).
The tarball's sha256 must be AXE_TARBALL_PIN and its package/axe.min.js's AXE_JS_PIN, wherever it comes
from. When it cannot be had, AxeUnavailable says why and what to do; the tests then skip, or fail
under LAB_REQUIRE_BROWSER=1 (CI), like the chromium fixture.

`run_axe(page)` puts axe into the page with page.evaluate (a DevTools evaluation: the page's CSP,
script-src 'self' without 'unsafe-inline' or 'unsafe-eval', refuses page.add_script_tag(content=...)'s
inline <script> and any eval inside the page, but not this) and returns axe.run's violations.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from lab_site import ROOT

AXE_PACKAGE = "axe-core"
AXE_VERSION = "4.10.3"
AXE_TARBALL = f"axe-core-{AXE_VERSION}.tgz"   # the name npm pack gives it
AXE_TARBALL_PIN = "0f2b4d7dcdf7d1219df8d1959ad68e565f51d14c3f0d88bb71cd59abeb956292"
AXE_MEMBER = "package/axe.min.js"
AXE_JS_PIN = "880970c081707360e64f34cea25ff91892f5bc95675b0776925b9709dd8a68bb"
AXE_MIRROR_ENV = "LAB_AXE_MIRROR"
AXE_CACHE_DIR = ROOT / ".cache" / "axe-core"
AXE_WHAT_TO_DO = (
    f"What to do: install Node.js (npm) with access to the npm registry, or put {AXE_TARBALL} "
    f"(npm pack {AXE_PACKAGE}@{AXE_VERSION}) into a folder and point {AXE_MIRROR_ENV} at it."
)

# The rules axe runs: WCAG 2.0/2.1 A and AA, and Deque's best practices. Nothing is switched off.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]


class AxeUnavailable(Exception):
    """axe-core could not be had here (no npm, npm failed, no mirror)."""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _npm_pack(dest: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise AxeUnavailable(f"npm is not installed, and {AXE_TARBALL} is in neither ${AXE_MIRROR_ENV} nor "
                             f"{AXE_CACHE_DIR}.\n{AXE_WHAT_TO_DO}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".npm-pack-") as tmp:
        try:
            result = subprocess.run([npm, "pack", f"{AXE_PACKAGE}@{AXE_VERSION}", "--silent", "--pack-destination",
                                     tmp],
                                    cwd=tmp, capture_output=True, text=True, timeout=300)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise AxeUnavailable(f"npm pack {AXE_PACKAGE}@{AXE_VERSION} did not finish: {exc}\n"
                                 f"{AXE_WHAT_TO_DO}") from exc
        packed = Path(tmp) / AXE_TARBALL
        if result.returncode != 0 or not packed.is_file():
            raise AxeUnavailable(f"npm pack {AXE_PACKAGE}@{AXE_VERSION} failed: "
                                 f"{result.stderr.strip()[-500:]}\n{AXE_WHAT_TO_DO}")
        os.replace(packed, dest)  # atomically: a partial file never lands in the cache


def locate_tarball() -> Path:
    """A local axe-core tarball whose sha256 is AXE_TARBALL_PIN (mirror, cache, else npm pack into the cache)."""
    mirror = os.environ.get(AXE_MIRROR_ENV)
    if mirror:
        mirrored = Path(mirror).expanduser() / AXE_TARBALL
        if mirrored.is_file():
            if sha256(mirrored) != AXE_TARBALL_PIN:
                raise AssertionError(f"{mirrored}: sha256 {sha256(mirrored)} is not the pin {AXE_TARBALL_PIN}; "
                                     "replace it.")
            return mirrored
    cached = AXE_CACHE_DIR / AXE_TARBALL
    if cached.is_file() and sha256(cached) != AXE_TARBALL_PIN:
        cached.unlink()  # damaged: fetch it again
    if not cached.is_file():
        _npm_pack(cached)
        got = sha256(cached)
        if got != AXE_TARBALL_PIN:
            cached.unlink()
            raise AssertionError(f"npm pack {AXE_PACKAGE}@{AXE_VERSION} gave sha256 {got}, not the pin "
                                 f"{AXE_TARBALL_PIN}.")
    return cached


def axe_source() -> str:
    """The text of axe.min.js from the pinned tarball (its own pin checked too)."""
    with tarfile.open(locate_tarball(), "r:gz") as tar:
        data = tar.extractfile(AXE_MEMBER).read()
    got = hashlib.sha256(data).hexdigest()
    if got != AXE_JS_PIN:
        raise AssertionError(f"{AXE_MEMBER} in {AXE_TARBALL} has sha256 {got}, not the pin {AXE_JS_PIN}.")
    return data.decode("utf-8")


def inject(page, source: str) -> str:
    """Put axe into the page (idempotent); returns axe.version."""
    if not page.evaluate("() => Boolean(window.axe && window.axe.run)"):
        # a DevTools evaluation of the whole file (not a function: Playwright runs the text as a script)
        page.evaluate(source + "\n;undefined")
    return page.evaluate("() => window.axe.version")


def run_axe(page, source: str, context: str | None = None) -> list[dict]:
    """axe.run on the document (or the `context` selector) with AXE_TAGS: the violations, each with its nodes."""
    inject(page, source)
    return page.evaluate(
        """async ([context, tags]) => {
             const result = await window.axe.run(context ? document.querySelector(context) : document,
               { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
             return result.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help,
               nodes: v.nodes.map(n => ({ target: n.target.join(' '), html: n.html.slice(0, 200),
                                          summary: n.failureSummary })) }));
           }""",
        [context, AXE_TAGS])


def describe(violations: list[dict], limit: int = 6) -> str:
    """The violations as readable lines (rule, impact, help, the first few elements and why)."""
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']} — {len(v['nodes'])} element(s)")
        for n in v["nodes"][:limit]:
            lines.append(f"    {n['target']}: {n['html']}")
            lines.append("      " + (n["summary"] or "").replace("\n", "\n      "))
    return "\n".join(lines)
