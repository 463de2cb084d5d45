#!/usr/bin/env python3
"""Build the Inference Lab static site into dist/ (standard library + markdown-it-py, rjsmin, rcssmin, Pygments).

    python3 build.py                     # dist/ with Pyodide 0.27.7 vendored (works offline once built)
    python3 build.py --pyodide cdn       # dist/ that loads Pyodide from the official CDN instead
    python3 build.py serve [--port N]    # build, then serve dist/ on http://127.0.0.1:N/
    python3 build.py --zip               # also write inference-lab-<version>.zip (offline classroom bundle)
    python3 build.py --no-minify         # keep static/*.js and *.css as written, comments and all
    python3 build.py docs                # rewrite README.md's and the package docstring's block → code map

This file is the command line only; the build itself is the sitebuild/ package (its docstring lists
one module per job). Each Pyodide file and the font package are taken from the first place that has
them: the folder named by $LAB_PYODIDE_MIRROR ($LAB_FONT_MIRROR for the font; a relative path is
read from the folder this command was started in), the download cache (.cache/), then the official
CDN (npm for the font), and every file's sha256 must equal its pin before it enters dist/.
`python3 -m pip install -r requirements.txt` installs what the build needs.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import sitebuild
from sitebuild import ROOT, BuildError


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Build (and optionally serve) the Inference Lab site.")
    parser.add_argument("command", nargs="?", choices=["build", "serve", "docs"], default="build",
                        help="docs: rewrite the block → code map in README.md and the package docstring "
                             "from py/inference_lab/words/blocks.py (no build)")
    parser.add_argument("--pyodide", choices=["vendor", "cdn"], default="vendor",
                        help="vendor Pyodide into dist/ (default) or load it from the official CDN")
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder (default: dist/)")
    parser.add_argument("--engine", type=Path, default=ROOT / "py", help="engine project folder (default: py/)")
    parser.add_argument("--port", type=int, default=8000, help="port for serve (default: 8000)")
    parser.add_argument("--no-minify", dest="minify", action="store_false",
                        help="copy static/*.js and *.css unminified (easier to debug in the browser)")
    parser.add_argument("--zip", action="store_true",
                        help="also write inference-lab-<version>.zip next to the output folder (offline classroom "
                             "bundle)")
    return parser.parse_args(argv)


def docs() -> int:
    changed = sitebuild.write_docs()
    print("Rewrote " + ", ".join(str(p.relative_to(ROOT)) for p in changed) if changed else "Docs already match "
                                                                                            "blocks.py")
    return 0


def build(args: argparse.Namespace) -> int:
    dist = sitebuild.build(args.out.resolve(), args.pyodide, args.engine.resolve(), args.minify)
    print(f"Built {dist} (Pyodide {sitebuild.PYODIDE_VERSION}: {args.pyodide})", flush=True)
    if args.zip:
        print(f"Wrote {sitebuild.write_zip(dist)}", flush=True)
    if args.command == "serve":
        sitebuild.serve_site(dist, args.port)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return docs() if args.command == "docs" else build(args)
    except BuildError as exc:
        print(f"build.py: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
