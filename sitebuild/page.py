"""The page and its static files: index.html's CSP and versioned URLs, static/ checked and minified.

content_security_policy() allows only the site's own origin (plus the Pyodide CDN for --pyodide cdn
builds); render_index() writes it into the page's meta tag and puts ?v=<version> on the static/
URLs, and version_module_imports() puts the same on every relative import between the modules, so
a browser never mixes files of two builds. dist/static/ is static/ minified (rjsmin, rcssmin:
comments and white space only), except the committed vendor bundles, whose sha256 must match
VENDOR_PINS (check_vendor). bundle_worker() puts the classic scripts the Python worker loads in front of
static/worker/worker.js, so that its start is one request (issue 39). Left out: the page's block tables and guide
(content.py) and the service worker (offline.py).
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from .common import BuildError, sha256_file

# Files of static/vendor/ built elsewhere and committed (tools/codemirror/README.md says how to rebuild
# them): their sha256 must match before the build copies them; they are already minified.
VENDOR_PINS = {
    "vendor/codemirror.js": "3cbf99825cf54c40c1bd4fafb3369973d5ce3cf83e6b663c9df720dd9ee077c1",
}


def content_security_policy(pyodide_origin: str | None) -> str:
    """Only the site's own origin (plus the Pyodide CDN for --pyodide cdn builds).

    'wasm-unsafe-eval' lets the worker compile pyodide.asm.wasm; nothing allows eval or inline script.
    The Python worker starts from a blob: URL, so it inherits this policy (a static host sends no header
    for a worker's own URL): connect-src keeps the student's code off any other origin.
    """
    extra = f" {pyodide_origin}" if pyodide_origin else ""
    return "; ".join([
        "default-src 'none'",
        f"script-src 'self' 'wasm-unsafe-eval'{extra}",
        f"connect-src 'self'{extra}",
        "worker-src 'self' blob:",  # blob: the Python worker (static/worker/boot.js), so this policy governs it
        "style-src 'self'",
        "font-src 'self'",
        "img-src 'self' data:",
        "base-uri 'none'",
        "form-action 'none'",
    ])


def render_index(source: str, csp: str, asset_version: str) -> str:
    """Put the build's CSP into the meta tag and version the static asset URLs (cache busting)."""
    html, n = re.subn(r'(<meta http-equiv="Content-Security-Policy" content=")[^"]*(")',
                      lambda m: m.group(1) + csp + m.group(2), source)
    if n != 1:
        raise BuildError("index.html must contain exactly one Content-Security-Policy meta tag.")
    return re.sub(r'((?:src|href)="static/[\w./-]+\.(?:js|css))"', rf'\1?v={asset_version}"', html)


NEED_MINIFIERS = ("rjsmin and rcssmin are not installed. Install what the build needs: python3 -m pip install -r "
                  "requirements.txt")


def minifiers():
    """(js, css) minifiers: comments and needless white space out, nothing renamed or reordered."""
    try:
        import rcssmin
        import rjsmin
    except ModuleNotFoundError as exc:
        raise BuildError(NEED_MINIFIERS) from exc
    return rjsmin.jsmin, rcssmin.cssmin

# The classic scripts static/worker/worker.js loads with importScripts, in its order. Each one was one more round trip
# before build-info.json, behind the page's own module requests on a static host's six connections, and the page's
# modules import fill.js and protocol.js too: the same file fetched twice on a first visit (issue 39). worker.js loads
# one only when the global it sets is missing (an unbuilt static/ folder).
WORKER_HELPERS = ("words/fill.js", "words/worker.js", "worker/pyc-cache.js", "worker/protocol.js",
                  "worker/interrupt.js", "worker/gunzip.js")


def bundle_worker(static: Path) -> None:
    """Put WORKER_HELPERS in front of dist/static/worker/worker.js (each kept in dist/ for the page and the tests)."""
    worker = static / "worker" / "worker.js"
    parts = [(static / name).read_text(encoding="utf-8") for name in (*WORKER_HELPERS, "worker/worker.js")]
    worker.write_text("\n;\n".join(part.rstrip("\n") for part in parts) + "\n", encoding="utf-8")


def check_vendor(static: Path) -> None:
    """Every VENDOR_PINS file is there and matches its pin (a stale or edited bundle never ships)."""
    for name, pin in VENDOR_PINS.items():
        path = static / name
        if not path.is_file() or sha256_file(path) != pin:
            raise BuildError(f"static/{name} is missing or does not match its sha256 pin in sitebuild/page.py "
                             "(VENDOR_PINS). "
                             "Rebuild it as tools/codemirror/README.md says, then update the pin.")


def minify_static(static: Path) -> None:
    """Minify every .js and .css under dist/static/ in place (the commented sources stay in static/;
    the vendored bundles are minified already)."""
    js, css = minifiers()
    for path in sorted(static.rglob("*")):
        if path.suffix in (".js", ".css") and path.relative_to(static).as_posix() not in VENDOR_PINS:
            text = path.read_text(encoding="utf-8")
            path.write_text((js if path.suffix == ".js" else css)(text) + "\n", encoding="utf-8")


# A relative module specifier in an import or export: from './x.js', import('../y.js'), import './z.js'.
MODULE_SPECIFIER = re.compile(r"""(\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}/[^'"?#\s]+\.js)\2""")


def version_module_imports(static: Path, asset_version: str) -> None:
    """Give every relative import between the modules under dist/static/ the page's ?v=<version>.

    index.html loads static/app.js?v=…; an import of './store.js' would otherwise load an unversioned
    URL that a browser may keep from an older build, and a module imported once with and once
    without the query would run twice (two stores). static/core/versioned.js relies on this: a module's
    own URL carries the version.
    """
    for path in sorted(static.rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        stamped = MODULE_SPECIFIER.sub(
            lambda m: f"{m.group(1)}{m.group(2)}{m.group(3)}?v={asset_version}{m.group(2)}", text)
        if stamped != text:
            path.write_text(stamped, encoding="utf-8")


def static_version(dist: Path) -> str:
    """A short hash of dist/static/, put on the page's static URLs for cache busting."""
    digest = hashlib.sha256()
    for path in sorted((dist / "static").rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(dist).as_posix().encode() + path.read_bytes())
    return digest.hexdigest()[:12]

