"""Helpers for the browser tests (the fixtures that use them live in conftest.py).

`Lab` is one open page of the lab in its own browser context, recording page errors, console
errors and any request that tried to leave the local server, and (SPY, an init script) every message
the page posts to its Python worker and every worker it starts or ends. Pyodide takes 10-30 s to start
on a 2-core machine, so one page serves many tests: `lab.visit(query)` applies another address the way
back/forward does (static/core/address.js, no reload) and `lab.fresh()` puts the page back to a first
visit's state for the next test module (storage cleared, the bare address applied, 1440 × 900). Its
context asks for reduced motion (prefers-reduced-motion: reduce): the page then scrolls at once instead of
smoothly, so Playwright's clicks and screenshots do not wait for scrolling to settle (a test about the
motion itself sets `page.emulate_media(reduced_motion="no-preference")`). `engine_text(config)` is what the
engine prints for a config, computed in CPython; `assert_page_shows(lab, text)` checks that the
page's panels show exactly those lines. `browser_unavailable()` says why Chromium cannot be driven
here (None when it can).

Needs `pip install playwright` and Chromium at /usr/bin/chromium (or $LAB_CHROMIUM); never
`playwright install`. Screenshots go to tests/artifacts/ (ignored by git) under LAB_SCREENSHOTS=1.
"""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

try:
    from playwright.sync_api import Error as PlaywrightError, expect
except ImportError:  # the chromium fixture then skips (fails under LAB_REQUIRE_BROWSER=1)
    expect = PlaywrightError = None

import lab_waits
from lab_site import ROOT

CHROMIUM = os.environ.get("LAB_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = ROOT / "tests" / "artifacts"
READY_MS = 180_000       # Pyodide + numpy start-up on a 2-core machine
RUN_MS = 60_000
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
    # Belt and braces for "no request leaves the local server": no other host name resolves.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


# The heading and printed lines of each panel in `blocks` (Lab.panels_lines).
PANEL_LINES = """(blocks) => blocks.map((n) => {
  const panel = document.querySelector(`[data-block="${n}"]`);
  return [panel.querySelector(':scope > summary').innerText,
          ...panel.querySelector(':scope > pre').innerText.split('\\n')];
})"""


# Every message the page posts to its worker ({type, config}), and the workers it starts and ends.
SPY = """(() => {
  const spy = window.__lab = { sent: [], workers: [], terminated: 0 };
  const post = Worker.prototype.postMessage;
  Worker.prototype.postMessage = function (msg, ...rest) {
    if (msg && msg.type) spy.sent.push({ type: msg.type, config: msg.config });
    return post.call(this, msg, ...rest);
  };
  const end = Worker.prototype.terminate;
  Worker.prototype.terminate = function () { spy.terminated += 1; return end.call(this); };
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      spy.workers.push({ url: String(args[0]), readyState: document.readyState, body: Boolean(document.body) });
    }
  };
})();"""

# The spy's messages from the since-th on, of one type or all: ([kind, since]) => [{type, config}, ...]
SENT = "([kind, since]) => window.__lab.sent.slice(since).filter((m) => !kind || m.type === kind)"

# Resolves with the page's status ([data-status], static/app.js) once it is one of `statuses` ("done|error"),
# or with null after `ms`: told by a MutationObserver of [data-status], so the wait costs the page nothing.
STATUS_BECOMES = """([statuses, ms]) => new Promise((resolve) => {
  const wanted = new RegExp(`^(${statuses})$`);
  const status = () => {
    const s = document.querySelector('[data-status]')?.dataset.status ?? '';
    return wanted.test(s) ? s : null;
  };
  const now = status();
  if (now !== null) { resolve(now); return; }
  const observer = new MutationObserver(() => {
    const s = status();
    if (s !== null) { clearTimeout(timer); observer.disconnect(); resolve(s); }
  });
  const timer = setTimeout(() => { observer.disconnect(); resolve(null); }, ms);
  observer.observe(document.documentElement,
                   { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
})"""


def wait_status(page, statuses: str, timeout: float = 5000) -> str:
    """Until the page's status ([data-status]) is one of `statuses` ("done|error"); returns it. The page tells
    the change the moment it happens (STATUS_BECOMES): no polling, and no frame drawn for the wait (polling on
    every frame, as page.wait_for_function does, made the page draw ~60 frames a second while a test waited,
    2-3 ms each on this page). A wait that a reload cuts short goes on in the new document. Timed for the
    summary's slowest waits (lab_waits)."""
    with lab_waits.timed(f"status {statuses} (timeout {timeout / 1000:.0f} s)"):
        return _wait_status(page, statuses, timeout)


def _wait_status(page, statuses: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout / 1000
    while True:
        try:
            got = page.evaluate(STATUS_BECOMES, [statuses, max(0, (deadline - time.monotonic()) * 1000)])
        except PlaywrightError as err:
            if "context was destroyed" not in str(err) or time.monotonic() > deadline:
                raise
            continue
        if got is not None:
            return got
        status = page.locator("[data-status]").get_attribute("data-status")
        raise AssertionError(f"status {status!r} after {timeout / 1000:.0f} s, not {statuses!r}")


# What a test must not see in the console: the page's Content-Security-Policy refusing something.
CSP_WORDS = ("Content Security Policy", "Refused")


def csp_errors(lab, *also: str) -> list[str]:
    """Console errors that say the CSP refused something (or contain one of `also`)."""
    return [e for e in lab.console_errors if any(w in e for w in CSP_WORDS + also)]
# Debian's default fonts (fonts-dejavu-core): a machine with only these draws sans-serif text wider than
# most, which is how chart labels once ran past the drawing there (the charts now use the page's font).
DEJAVU_DIR = Path("/usr/share/fonts/truetype/dejavu")


def dejavu_only_fontconfig(folder: Path) -> Path:
    """A fontconfig file (for $FONTCONFIG_FILE) that shows only DEJAVU_DIR's fonts, with the system's usual
    rules (/etc/fonts/conf.d: which installed family stands for sans-serif, monospace…) and its own cache."""
    folder.mkdir(parents=True, exist_ok=True)
    config = folder / "fonts.conf"
    config.write_text(f"""<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>{DEJAVU_DIR}</dir>
  <cachedir>{folder / "cache"}</cachedir>
  <include ignore_missing="yes">/etc/fonts/conf.d</include>
</fontconfig>
""", encoding="utf-8")
    return config


def browser_unavailable() -> str | None:
    if expect is None:
        return "playwright is not installed (pip install playwright)"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


class Lab:
    """One open page plus what it did: page errors, console errors, requests that left the origin."""

    def __init__(self, browser, origin: str, *also_allowed: str):
        self.origins = (origin, *also_allowed)
        self.context = browser.new_context(viewport={"width": 1440, "height": 900}, reduced_motion="reduce")
        self.page = self.context.new_page()
        self.page_errors: list[str] = []
        self.console_errors: list[str] = []
        self.requests: list[str] = []
        self.foreign: list[str] = []
        self.context.add_init_script(SPY)
        self.context.route("**/*", self._route)
        self.context.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda err: self.page_errors.append(str(err)))
        self.page.on("console", lambda msg: msg.type == "error" and self.console_errors.append(msg.text))

    def _local(self, url: str) -> bool:
        return url.startswith(tuple(o + "/" for o in self.origins)) or url.startswith(("data:", "blob:"))

    def _route(self, route):
        if self._local(route.request.url):
            route.continue_()
        else:
            self.foreign.append(route.request.url)
            route.abort()

    def open(self, url: str):
        self.page.goto(url)
        self.wait_status("ready", READY_MS)
        self.home = url.split("?", 1)[0]
        return self

    def wait_status(self, statuses: str, timeout: float = 5000) -> str:
        """Until the page's status is one of `statuses` ("done|error"); returns it (module's wait_status)."""
        return wait_status(self.page, statuses, timeout)

    # ── one page, many addresses ──
    def sent(self, kind: str | None = None, since: int = 0) -> list[dict]:
        """The messages posted to the worker ({type, config}) from the since-th on, or those of one type.
        (Filtered in the page: a long-lived shared page has posted hundreds, and bringing them all over to
        Python on every call cost ~2 ms each, a second per address late in a session.)"""
        return self.page.evaluate(SENT, [kind, since])

    def last_sent(self, kind: str) -> dict | None:
        """The last message of one type posted to the worker."""
        return self.page.evaluate(f"([kind, since]) => ({SENT})([kind, since]).at(-1) ?? null", [kind, 0])

    def count_sent(self, kind: str | None = None) -> int:
        """How many messages (of one type) the page has posted to its worker so far."""
        return self.page.evaluate(f"([kind, since]) => ({SENT})([kind, since]).length", [kind, 0])

    def wait_idle(self):
        """Until Python is ready and no run is in flight."""
        self.wait_status("ready|done|error", READY_MS)

    def visit(self, query: str = "") -> str | None:
        """Apply the address home + query to the open page the way back/forward does (popstate, no
        reload): the page shows what opening that address shows. Returns the final status of the run
        the address asked for, or None when it ran nothing."""
        self.wait_idle()
        before = self.count_sent()
        self.page.evaluate("(url) => { history.pushState(null, '', url); dispatchEvent(new "
                           "PopStateEvent('popstate')); }",
                           self.home + query)
        if not [m for m in self.sent(since=before) if m["type"] in ("run", "render")]:
            return None
        return self.wait_status("done|error", RUN_MS)

    def fresh(self, query: str = ""):
        """The page as a first visit of home + query would leave it (for the next test module): nothing
        stored, 1440 × 900, code views closed, step 1 selected, the address applied, this module's errors
        only (the panels' folds stay as they are: a run opens them)."""
        self.wait_idle()
        self.page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        self.page.set_viewport_size({"width": 1440, "height": 900})
        # code views start closed (an open CodeMirror editor at 375 px keeps parts of the page moving)
        self.page.evaluate("() => document.querySelectorAll('details.code-view[open]').forEach((d) => { d.open = "
                           "false; })")
        # A new run keeps the selected step (static/tools/steps.js), as a first visit's first run keeps none: a
        # step the last module chose (a chart's arrow keys) goes back to step 1, where a first run starts.
        at = self.page.evaluate("() => document.querySelector('[data-step-slider]')?.getAttribute('aria-valuenow')")
        if at not in (None, "1"):
            self.visit("?step=1")
        self.visit(query)
        self.page_errors.clear()
        self.console_errors.clear()
        return self

    @property
    def status(self):
        return self.page.locator("[data-status]")

    def control(self, name: str):
        return self.page.locator(f'[data-constant="{name}"]')

    def set_value(self, name: str, value):
        control = self.control(name)
        if not control.is_visible():
            self.page.locator("#advanced > summary").click()
        if control.evaluate("el => el.tagName") == "SELECT":
            control.select_option(str(value))
        else:
            control.fill(str(value))

    def run(self, values: dict | None = None, reset: bool = True) -> str:
        """Mặc định (optionally), set values, Chạy; returns the final status."""
        if reset:
            self.page.click('[data-action="reset"]')
        for name, value in (values or {}).items():
            self.set_value(name, value)
        self.page.click('[data-action="run"]')
        return self.wait_status("done|error", RUN_MS)

    def panel_lines(self, block) -> list[str]:
        """The panel's heading and printed lines (not the charts drawn above the lines)."""
        return self.panels_lines([block])[block]

    def panels_lines(self, blocks=range(1, 14)) -> dict:
        """{block: panel_lines(block)} for several panels, read in one call to the page (innerText, as
        Playwright's inner_text reads it)."""
        blocks = list(blocks)
        return dict(zip(blocks, self.page.evaluate(PANEL_LINES, blocks)))

    def close(self):
        self.context.close()


def request_cell(lab: Lab, index: int, column: str):
    """A cell of the request editor (static/tools/editor.js), its fold opened first."""
    editor = lab.page.locator("#requests-editor")
    if editor.get_attribute("open") is None:
        editor.locator("> summary").click()
    return lab.page.locator(f'[data-request-field="{index}.{column}"]')


def open_editor(lab, ref: str, block: int):
    """The code editor of `ref` in block `block` (its panel and code view opened), once CodeMirror is in."""
    page = lab.page
    panel = page.locator(f'[data-block="{block}"]')
    if panel.get_attribute("open") is None:
        panel.locator(":scope > summary").click()
    fold = page.locator(f'[data-code-for="{block}"]')
    if fold.get_attribute("open") is None:
        fold.locator(":scope > summary").click()
    editor = page.locator(f'[data-code-editor="{ref}"]')
    if editor.count() == 0:
        page.locator(f'[data-code-ref="{ref}"] [data-action="edit-code"]').click()
    expect(editor.locator('[data-editor="codemirror"]')).to_have_count(1, timeout=RUN_MS)
    return editor


# An element taller than the viewport up to this height is shot in a viewport made tall enough for it.
TALL_SHOT_MAX_PX = 8000


# Screenshots are for a person to look at (tests/artifacts/): they assert nothing, and the suite's ~100 cost
# ~40 s of the shared page's ~300 s, so they are taken when LAB_SCREENSHOTS=1 (the README's test command with
# it, or: LAB_SCREENSHOTS=1 bash tests/run-all.sh -k screenshots). Without it the element is still checked visible.
SCREENSHOTS = os.environ.get("LAB_SCREENSHOTS") == "1"


def page_screenshot(page, path, **options) -> None:
    """page.screenshot(path=path, **options) under LAB_SCREENSHOTS=1."""
    if SCREENSHOTS:
        page.screenshot(path=str(path), **options)


def screenshot(locator, path) -> None:
    """A screenshot of one element, saved at `path` for a person to look at (under LAB_SCREENSHOTS=1; else only
    visible, as the shot would wait for).

    An element taller than the viewport (and at most TALL_SHOT_MAX_PX) is shot with the viewport made that tall,
    then put back. Chromium's own way for such an element (capture beyond the viewport) lays the whole page out
    twice per shot: ~0.7-0.9 s a shot against ~0.25 s this way, measured on a panel 1,872 px tall. Only the
    height changes, so nothing the page draws for its width is drawn again."""
    if not SCREENSHOTS:
        expect(locator).to_be_visible()
        return
    page = locator.page
    view = page.viewport_size
    height = locator.evaluate("(el) => Math.ceil(el.getBoundingClientRect().height)")
    if not view["height"] < height <= TALL_SHOT_MAX_PX:
        locator.screenshot(path=str(path))
        return
    page.set_viewport_size({"width": view["width"], "height": height + 20})
    try:
        locator.screenshot(path=str(path))
    finally:
        page.set_viewport_size(view)


def editor_text(editor) -> str:
    """The text of a code editor (static/tools/code.js's CodeMirror; it shows a trailing newline as a last, empty
    line)."""
    return "\n".join(editor.locator(".cm-line").all_text_contents())


# ── reference output ─────────────────────────────────────────────────────────
def cli_sections(text: str) -> dict:
    """Split command-line output into {"header": [...], 1: [heading, line, ...], ..., "summary": [...]}."""
    sections, current = {"header": []}, "header"
    for line in text.rstrip("\n").split("\n"):
        block = re.match(r"^\[(\d+) · ", line)
        if block:
            current = int(block.group(1))
            sections[current] = [line]
        elif line.startswith("TỔNG KẾT"):
            current = "summary"
            sections[current] = [line]
        elif line:
            sections[current].append(line)
    return sections


def engine_report(config: dict) -> dict:
    """The JSON report the page gets for `config` (what its charts draw)."""
    from inference_lab.entrypoints import web
    result = json.loads(web.run(json.dumps(config)))
    assert result["ok"], result
    return result["report"]


def block_data(report: dict, n: int) -> dict:
    """Block n's machine-readable data in a report."""
    return next(b for b in report["blocks"] if b["number"] == n)["data"]


def engine_text(config: dict) -> str:
    """What the engine prints for `config`, rebuilt from the JSON the page gets (the page must show the same)."""
    from inference_lab.entrypoints import web
    from inference_lab.entrypoints.report import Report
    result = json.loads(web.run(json.dumps(config)))
    assert result["ok"], result
    return Report.from_dict(result["report"]).to_text()


def assert_page_shows(lab: Lab, text: str):
    expected = cli_sections(text)
    assert sorted(k for k in expected if isinstance(k, int)) == list(range(1, 14))
    shown = lab.panels_lines()
    for n in range(1, 14):
        assert shown[n] == expected[n], f"panel {n} differs from the command-line block"
    assert lab.page.locator('#run-header pre').inner_text().split("\n") == expected["header"]
    assert lab.page.locator('[data-block="summary"] pre').inner_text().split("\n") == expected["summary"]
