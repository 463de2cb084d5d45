"""One small driver per browser engine for tests/test_browser_engines.py (issue 41): the same table of checks
runs in Chromium, Firefox ESR and WebKitGTK (Safari's engine), each driven the way its own tools drive it.

    chromium  Playwright (Debian's /usr/bin/chromium, as every other browser test)
    firefox   puppeteer-core over WebDriver BiDi (tests/engines/firefox.mjs, a Node process spoken to in JSON
              lines): /usr/bin/firefox-esr, no geckodriver, no browser download
    webkit    Selenium and /usr/bin/WebKitWebDriver (MiniBrowser), on an Xvfb display this module starts

Every driver has the same four verbs: goto(url), js(fn, arg) (a function's source, awaited in the page; its
JSON-able result), press(css, key) (a real key press on the element) and errors() (the page's uncaught errors
and rejections: the driver's own listener where it has one, plus CATCH_ERRORS installed after each load).
`wait_for(driver, fn, arg, timeout)` waits on state (the function's result truthy), never on time.
`missing(name)` says why an engine cannot be driven here (None when it can): the test fails under
LAB_REQUIRE_BROWSER=1 (CI) and skips otherwise, saying so. Leaves out: the checks themselves.
"""
from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
import time
from pathlib import Path

import lab_waits
from lab_site import ROOT

FIREFOX = os.environ.get("LAB_FIREFOX", "/usr/bin/firefox-esr")
WEBKIT_DRIVER = os.environ.get("LAB_WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")
MINIBROWSER = Path("/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser")
FIREFOX_BRIDGE = ROOT / "tests" / "engines" / "firefox.mjs"
COMMAND_S = 240          # one command to a driver (a wait is many commands)

# Records the page's uncaught errors and rejections from the moment it is installed (after a load).
CATCH_ERRORS = """() => {
  if (window.__labErrors) return;
  const errors = window.__labErrors = [];
  addEventListener('error', (e) => errors.push(String(e.message || e)));
  addEventListener('unhandledrejection', (e) => errors.push('unhandled rejection: ' + String(e.reason)));
}"""


def missing(name: str) -> str | None:
    """Why engine `name` cannot be driven on this machine, or None."""
    if name == "chromium":
        from lab_browser import browser_unavailable
        return browser_unavailable()
    if name == "firefox":
        if not Path(FIREFOX).exists():
            return f"no Firefox at {FIREFOX} (apt-get install firefox-esr)"
        if not shutil.which("node"):
            return "no node (apt-get install nodejs) to run puppeteer-core"
        if not (ROOT / "node_modules" / "puppeteer-core").is_dir():
            return "puppeteer-core is not installed (npm ci)"
        return None
    if not Path(WEBKIT_DRIVER).exists() or not MINIBROWSER.exists():
        return f"no {WEBKIT_DRIVER} or MiniBrowser (apt-get install webkit2gtk-driver)"
    if not shutil.which("Xvfb"):
        return "no Xvfb (apt-get install xvfb)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -r requirements-dev.txt)"
    return None


def wait_for(driver, fn: str, arg=None, timeout: float = 60, what: str = ""):
    """Until fn(arg) in the page is truthy; returns it. Asks every 100 ms (a few ms each), fails after timeout s
    with the last answer. Timed for the summary's slowest waits (lab_waits) as `what` (else fn's first line)."""
    what = what or " ".join(fn.split())[:60]
    with lab_waits.timed(f"{driver.name}: {what} (timeout {timeout:.0f} s)"):
        return _wait_for(driver, fn, arg, timeout)


def _wait_for(driver, fn: str, arg, timeout: float):
    deadline = time.monotonic() + timeout
    while True:
        got = driver.js(fn, arg)
        if got:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"{driver.name}: {fn} still {got!r} after {timeout:.0f} s")
        time.sleep(0.1)


class Chromium:
    """Playwright's Chromium: one context, one page."""
    name = "chromium"

    def __init__(self, browser):
        self.context = browser.new_context(viewport={"width": 1440, "height": 900}, reduced_motion="reduce")
        self.page = self.context.new_page()
        self.native: list[str] = []
        self.page.on("pageerror", lambda err: self.native.append(str(err)))
        self.version = browser.version

    def goto(self, url: str):
        self.page.goto(url)
        self.js(CATCH_ERRORS)

    def js(self, fn: str, arg=None):
        return self.page.evaluate(fn, arg)

    def press(self, css: str, key: str):
        self.page.locator(css).press(key)

    def errors(self) -> list[str]:
        return self.native + (self.js("() => window.__labErrors || []"))

    def close(self):
        self.context.close()


class Firefox:
    """Firefox ESR over WebDriver BiDi: puppeteer-core in a Node process (tests/engines/firefox.mjs)."""
    name = "firefox"

    def __init__(self):
        self.proc = subprocess.Popen(["node", str(FIREFOX_BRIDGE)], cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True,
                                     env={**os.environ, "PUPPETEER_SKIP_DOWNLOAD": "1", "LAB_FIREFOX": FIREFOX})
        self.answers: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.version = self._answer()

    def _read(self):
        for line in self.proc.stdout:
            self.answers.put(json.loads(line))
        self.answers.put({"ok": False, "error": f"the Firefox driver ended (exit {self.proc.wait()})"})

    def _answer(self):
        try:
            answer = self.answers.get(timeout=COMMAND_S)
        except queue.Empty:
            raise AssertionError(f"Firefox's driver gave no answer in {COMMAND_S} s") from None
        if not answer["ok"]:
            raise AssertionError("firefox: " + answer["error"])
        return answer["value"]

    def _send(self, **command):
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        return self._answer()

    def goto(self, url: str):
        self._send(op="goto", url=url)
        self.js(CATCH_ERRORS)

    def js(self, fn: str, arg=None):
        return self._send(op="eval", fn=fn, arg=arg)

    def press(self, css: str, key: str):
        self._send(op="press", css=css, key=key)

    def errors(self) -> list[str]:
        return self._send(op="errors") + (self.js("() => window.__labErrors || []"))

    def close(self):
        try:
            self.proc.stdin.write(json.dumps({"op": "close"}) + "\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()


class WebKit:
    """WebKitGTK's MiniBrowser through WebKitWebDriver and Selenium, on its own Xvfb display."""
    name = "webkit"
    KEYS = {"ArrowRight": "\ue014", "ArrowLeft": "\ue012", "Home": "\ue011", "End": "\ue010"}  # WebDriver's codes

    def __init__(self):
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service
        read, write = os.pipe()
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1440x900x24", "-nolisten",
                                      "tcp"], pass_fds=(write,), stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as display:
            number = display.readline().strip()
        options = Options()
        options.binary_location = str(MINIBROWSER)
        options.add_argument("--automation")
        service = Service(executable_path=WEBKIT_DRIVER, env={**os.environ, "DISPLAY": f":{number}"})
        self.driver = webdriver.WebKitGTK(options=options, service=service)
        self.driver.set_script_timeout(COMMAND_S)
        self.driver.set_window_size(1440, 900)
        self.version = self.driver.capabilities.get("browserVersion", "?")

    def goto(self, url: str):
        self.driver.get(url)
        self.js(CATCH_ERRORS)

    def js(self, fn: str, arg=None):
        # W3C Execute Script awaits a returned promise
        return self.driver.execute_script(f"return ({fn})(arguments[0]);", arg)

    def press(self, css: str, key: str):
        from selenium.webdriver.common.by import By
        self.driver.find_element(By.CSS_SELECTOR, css).send_keys(self.KEYS.get(key, key))

    def errors(self) -> list[str]:
        return self.js("() => window.__labErrors || []")

    def close(self):
        try:
            self.driver.quit()
        finally:
            self.xvfb.terminate()
            self.xvfb.wait(timeout=30)
