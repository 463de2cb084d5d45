#!/usr/bin/env bash
# Runs every test of the lab (engine, golden and differential, exercises, browser),
# installing first what they need: the Python packages in requirements-dev.txt, the npm packages and
# Debian's chromium, firefox-esr, webkit2gtk-driver and xvfb (Playwright, puppeteer-core and Selenium drive
# them; none downloads a browser of its own).
# The Python linter (ruff, configured in ruff.toml) runs before pytest: a finding fails the run.
# Then the unit tests of the page's JavaScript modules with Node's own runner
# (node --test tests/js/, Node 20), then the JavaScript linter (ESLint from npm: `npm ci` first when
# node_modules/ is missing). All must pass for exit 0; a machine without node fails, saying so (the JS
# tests never pass by not running).
# Extra arguments go to pytest, e.g.  bash tests/run-all.sh -k golden   (-n 0: one process, no workers)
set -u
cd "$(dirname "$0")/.."

python3 -m pip install -q -r requirements-dev.txt || {
  echo "pip install failed: create a virtual environment first (python3 -m venv .venv && . .venv/bin/activate)" >&2
  exit 1
}

# The browsers, from Debian (never a driver's own download): chromium (Playwright), firefox-esr (puppeteer-core
# over WebDriver BiDi), webkit2gtk-driver (WebKitWebDriver + MiniBrowser, Selenium) and xvfb (its display).
need=""
command -v chromium >/dev/null 2>&1 || need="$need chromium"
command -v firefox-esr >/dev/null 2>&1 || need="$need firefox-esr"
command -v WebKitWebDriver >/dev/null 2>&1 || need="$need webkit2gtk-driver"
command -v Xvfb >/dev/null 2>&1 || need="$need xvfb"
if [ -n "$need" ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  # shellcheck disable=SC2086
  $sudo apt-get update -q && $sudo apt-get install -y -q $need || echo "warning:$need not installed; browser tests will fail" >&2
fi

# The npm packages (package.json and its lockfile): ESLint, and puppeteer-core, which drives Firefox in
# tests/test_browser_engines.py (it never downloads a browser; PUPPETEER_SKIP_DOWNLOAD for good measure).
export PUPPETEER_SKIP_DOWNLOAD=1
if [ ! -d node_modules/puppeteer-core ] && command -v npm >/dev/null 2>&1; then
  npm ci --silent --no-audit --no-fund >/dev/null || echo "warning: npm ci failed; the Firefox tests will fail" >&2
fi

# Offline machines: use a local mirror of the Pyodide files when one sits beside the repo.
if [ -z "${LAB_PYODIDE_MIRROR:-}" ] && [ -d ../shared/pyodide-0.27.7 ]; then
  export LAB_PYODIDE_MIRROR="$(cd ../shared/pyodide-0.27.7 && pwd)"
fi

# Two pytest-xdist workers (these machines have 2 cores): most browser tests run in one worker, in order, on
# that worker's one page; the other worker takes the browser tests that open their own contexts, a few modules
# on its own page, then the engine/golden/build tests; the cross-browser module's three engines are a group each,
# taken by whichever worker runs out of work first (conftest.py groups them; ~equal seconds each). The summary
# lists the Pyodide cold boots, the run's slowest state waits (tests/lab_waits.py) and what the tests cost (CPU and
# wall seconds per group, each worker's end: tests/lab_cost.py).
# The font tarball is fetched into .cache/ once first, so the two workers' builds never race for it.
python3 -c "import sitebuild; sitebuild.fonts.font_files()" || exit 1

echo "== Python lint: ruff check (ruff.toml)"
python3 -m ruff check py sitebuild build.py tests bench tools || {
  echo "ruff found the problems above: fix them (python3 -m ruff check --fix fixes some) and run again" >&2
  exit 1
}

python3 -m pytest -n 2 --dist loadgroup "$@"
pytest_rc=$?

echo
echo "== JavaScript unit tests: node --test tests/js/"
if command -v node >/dev/null 2>&1; then
  node --test --test-reporter=spec tests/js/
  node_rc=$?
else
  echo "ERROR: node is not installed, so the JavaScript unit tests (tests/js/) did not run." >&2
  echo "       Install Node.js 20 (e.g. apt-get install nodejs) and run this script again." >&2
  node_rc=127
fi

# The JavaScript linter (ESLint, eslint.config.js; the one npm package set: package.json and its lockfile).
if [ "$node_rc" -eq 0 ]; then
  echo
  echo "== JavaScript linter: npx eslint ."
  if [ ! -d node_modules ]; then npm ci --silent --no-audit --no-fund >/dev/null || node_rc=1; fi
  if [ "$node_rc" -eq 0 ]; then npx --no-install eslint . || node_rc=1; fi
fi

if [ "$node_rc" -ne 0 ]; then
  echo "JavaScript unit tests or linter FAILED (exit $node_rc)" >&2
  # keep pytest's own failure code; never let "no tests collected" (5) hide a JS failure
  if [ "$pytest_rc" -ne 0 ] && [ "$pytest_rc" -ne 5 ]; then exit "$pytest_rc"; fi
  exit 1
fi
exit "$pytest_rc"
