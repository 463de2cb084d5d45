#!/usr/bin/env bash
# Runs every test of the lab (engine, golden and differential, exercises, browser),
# installing first what they need: the Python packages in requirements-dev.txt and
# Debian's chromium (Playwright drives it; it never downloads a browser of its own).
# Extra arguments go to pytest, e.g.  bash tests/run-all.sh -k golden
set -u
cd "$(dirname "$0")/.."

python3 -m pip install -q -r requirements-dev.txt || {
  echo "pip install failed: create a virtual environment first (python3 -m venv .venv && . .venv/bin/activate)" >&2
  exit 1
}

if ! command -v chromium >/dev/null 2>&1; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -q && $sudo apt-get install -y -q chromium || echo "warning: chromium not installed; browser tests will fail" >&2
fi

# Offline machines: use a local mirror of the Pyodide files when one sits beside the repo.
if [ -z "${LAB_PYODIDE_MIRROR:-}" ] && [ -d ../shared/pyodide-0.27.7 ]; then
  export LAB_PYODIDE_MIRROR="$(cd ../shared/pyodide-0.27.7 && pwd)"
fi

exec python3 -m pytest "$@"
