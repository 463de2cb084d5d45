"""Browser tests of the web lab: the session's build (conftest.py: site, server, chromium, lab) served on
127.0.0.1 by a plain file server, used in Debian's Chromium (Playwright) the way a student would.

Without Playwright or Chromium the tests skip, unless LAB_REQUIRE_BROWSER=1 (CI), where they fail.
Pyodide takes a while to start on small machines, so the module loads the page once (`lab`).
Screenshots go to tests/artifacts/ (ignored by git) under LAB_SCREENSHOTS=1.
"""
from __future__ import annotations

import json
import re

import pytest

from lab_browser import (ARTIFACTS, READY_MS, RUN_MS, Lab, assert_page_shows, csp_errors, engine_text, expect,
                         page_screenshot, screenshot)
from lab_site import GOLDEN, RecordingServer, sitebuild, page_csp

pytestmark = pytest.mark.browser


# ── the lab as a student uses it ─────────────────────────────────────────────
def test_controls_are_built_from_the_engine_description(lab):
    from inference_lab.entrypoints import web
    fields = [f for f in json.loads(web.describe()) if f["type"] != "requests"]
    for field in fields:
        control = lab.control(field["name"])
        expect(control).to_have_count(1)
        default = field["default"]                          # as JavaScript writes a number: 0.0 -> "0"
        expect(control).to_have_value(str(int(default)) if isinstance(default,
                                                                      float) and default.is_integer() else str(default))
        assert lab.page.locator(f'label[for="{control.get_attribute("id")}"]').text_content().strip()
    headline = ["SLOTS", "QUEUE_LIMIT", "TOKEN_BUDGET", "BLOCK_SIZE", "POOL_BLOCKS", "QUANT_BITS", "FOLLOW"]
    for name in headline:
        expect(lab.control(name)).to_be_visible()
    assert lab.control("FOLLOW").evaluate("el => el.tagName") == "SELECT"
    advanced = [f["name"] for f in fields if f["name"] not in headline]
    assert advanced, "the engine describes advanced constants"
    for name in advanced:
        assert lab.page.locator(f'#advanced [data-constant="{name}"]').count() == 1
    expect(lab.page.locator('[data-action="run"]')).to_be_enabled()
    expect(lab.page.locator('[data-action="reset"]')).to_be_enabled()


def test_default_run_shows_every_block_line_of_the_golden_output(lab):
    assert lab.run() == "done"
    assert_page_shows(lab, GOLDEN.read_text(encoding="utf-8"))
    # the quick checkpoints students are told to look for
    expect(lab.page.locator('[data-block="1"]')).to_contain_text("D (đến 1.50 ms): TỪ CHỐI 429")
    expect(lab.page.locator('[data-block="2"]')).to_contain_text("Bị chặn: E - prompt 8 token + max_new 30 = 38 > "
                                                                 "MAX_CONTEXT 24.")
    expect(lab.page.locator('[data-block="4"]')).to_contain_text("TTFT = 23.00 ms - 1.00 ms = 22.00 ms")
    expect(lab.page.locator('[data-block="summary"]')).to_contain_text("PASS: đường ống phục vụ LLM thu nhỏ chạy đúng")
    for n in range(1, 14):
        expect(lab.page.locator(f'[data-block="{n}"] pre')).to_be_visible()
    # issue 27: the notes beside the seed's lines, marked, under their block (words/text_notes.py)
    from inference_lab.words import text_vi
    heads = text_vi.WORDS("note.mark") + text_vi.WORDS("note.heads")
    expect(lab.page.locator('[data-block="5"] .run-notes[role="note"][data-notes-for="5"]')).to_contain_text(heads)
    expect(lab.page.locator('[data-block="5"] pre')).not_to_contain_text("Ghi chú:")


def test_queue_limit_2_admits_d(lab):
    assert lab.run({"QUEUE_LIMIT": 2}) == "done"
    expect(lab.page.locator('[data-block="1"]')).to_contain_text("D (đến 1.50 ms): nhận")
    assert "TỪ CHỐI 429" not in lab.page.locator('[data-block="1"]').inner_text()
    assert_page_shows(lab, engine_text({"QUEUE_LIMIT": 2}))


def test_follow_and_advanced_constants_reach_the_engine(lab):
    config = {"FOLLOW": "A", "COST_GATEWAY": 300, "QUALITY_GATE": "0,9"}
    assert lab.run(config) == "done"
    assert_page_shows(lab, engine_text({"FOLLOW": "A", "COST_GATEWAY": 300, "QUALITY_GATE": 0.9}))


def test_reset_restores_the_defaults(lab):
    lab.set_value("SLOTS", 5)
    lab.set_value("COST_GATEWAY", 1)
    lab.page.click('[data-action="reset"]')
    expect(lab.control("SLOTS")).to_have_value("2")
    expect(lab.control("COST_GATEWAY")).to_have_value("200")


@pytest.mark.parametrize("name, typed", [("QUEUE_LIMIT", "-1"), ("QUEUE_LIMIT", "abc"), ("SLOTS", "1.5"),
                                         ("POOL_BLOCKS", "100000"), ("COST_GATEWAY", "")])
def test_invalid_value_shows_its_error_and_does_not_run(lab, name, typed):
    lab.page.click('[data-action="reset"]')
    runs = lab.count_sent("run")
    lab.set_value(name, typed)
    lab.page.click('[data-action="run"]')
    error = lab.page.locator(f'[data-error-for="{name}"]')
    expect(error).to_be_visible()
    assert error.inner_text().strip()
    expect(lab.control(name)).to_have_value(typed)           # what the user typed is kept
    expect(lab.control(name)).to_have_attribute("aria-invalid", "true")
    # Run decides at once (static/app.js run()): the error is shown, so nothing was sent
    assert lab.count_sent("run") == runs, "an invalid value must not start a run"
    assert lab.status.get_attribute("data-status") != "running"
    lab.page.click('[data-action="reset"]')
    expect(error).to_have_count(0)


def test_double_click_runs_once(lab):
    lab.page.click('[data-action="reset"]')
    before = lab.count_sent("run")
    # both clicks of a double click in one task, as a person's ~100 ms apart would land while the run is in
    # flight (Playwright's dblclick on a loaded machine can send the second after a warm re-run has ended)
    lab.page.evaluate("""() => { const run = document.querySelector('[data-action="run"]');
                                  run.click(); run.click();
                                 run.dispatchEvent(new MouseEvent('dblclick', { bubbles: true })); }""")
    lab.wait_status("done", RUN_MS)
    assert lab.count_sent("run") == before + 1


def test_screenshots_at_desktop_and_phone_width(lab):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    assert lab.run() == "done"
    for width in (1440, 375):
        lab.page.set_viewport_size({"width": width, "height": 900})
        # the whole page (34,000 px tall at 1440 px after a run) as JPEG: half the time of a PNG that size
        page_screenshot(lab.page, ARTIFACTS / f"lab-{width}.jpg", full_page=True, type="jpeg", quality=80)
        screenshot(lab.page.locator("#runner"), ARTIFACTS / f"lab-{width}-runner.png")
        screenshot(lab.page.locator("#mapping tbody").first, ARTIFACTS / f"lab-{width}-block1.png")
        overflow = lab.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"the page scrolls sideways at {width} px"
    lab.page.set_viewport_size({"width": 1440, "height": 900})


# Run inside the page's worker (Playwright evaluates in the worker, where `pyodide` is the lab's
# interpreter): where each module of Pyodide's files and of the engine came from.
IMPORTED_FROM = r"""
import importlib.util, json, sys
pyodide_files, engine = {}, {}
for name, module in list(sys.modules.items()):
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        continue
    if name.split(".")[0] == "inference_lab":
        engine[name] = path
    elif path.startswith("/lib/python312.zip/") or "/site-packages/" in path:
        pyodide_files[name] = path
compiles = []
sys.addaudithook(lambda event, args: event == "compile" and compiles.append(str(args[1])))
for name in sorted(engine):  # what the engine's loader does on import: takes __pycache__ or compiles
    sys.modules[name].__spec__.loader.get_code(name)
json.dumps({"pyodide_files": pyodide_files, "engine": engine, "engine_compiles": compiles})
"""


def imports_line(manifest: dict, path: str) -> str:
    """The pyodide-imports.txt line for a module file Pyodide compiled from source."""
    import sitebuild
    if path.startswith(sitebuild.STDLIB_PATH):
        return f"{sitebuild.STDLIB_ZIP} {path[len(sitebuild.STDLIB_PATH):]}"
    inner = path[len(sitebuild.SITE_PACKAGES):]
    upstream = next(n for n in sitebuild.PYODIDE_RUNTIME
                    if n.endswith(".whl") and n.split("-")[0] == inner.split("/")[0])
    return f"{upstream} {inner}"


def test_the_built_site_imports_bytecode_and_prints_the_same(lab, site):
    """A bytecode build (sitebuild/bytecode.py): every module Pyodide's files gave the lab up to the first
    run came from a .pyc (their sources are not shipped), and the engine's loader takes its
    __pycache__ files without compiling; the output is the golden one."""
    manifest = json.loads((site / "build-info.json").read_text())
    if not manifest["bytecode"]:
        pytest.skip("no CPython 3.12 where the site was built: it ships sources")
    assert lab.run() == "done"
    assert_page_shows(lab, GOLDEN.read_text(encoding="utf-8"))
    [worker] = lab.page.workers
    found = json.loads(worker.evaluate("(source) => pyodide.runPython(source)", IMPORTED_FROM))
    from_source = sorted(path for path in found["pyodide_files"].values() if path.endswith(".py"))  # not .pyc, .so
    assert from_source == [], "compiled in the browser; add these lines to pyodide-imports.txt:\n" + "\n".join(
        imports_line(manifest, path) for path in from_source)
    assert len(found["pyodide_files"]) > 250  # the standard library, NumPy and micropip
    assert "inference_lab.core.serving.engine" in found["engine"] and found["engine_compiles"] == []


VIETNAMESE = "số ước ữ Đối chiếu"


def test_panels_draw_vietnamese_with_the_self_hosted_font(lab):
    """The panels' text is drawn with the vendored JetBrains Mono (dist/fonts/), stacked accents
    included, whatever fonts the computer has: checked with the glyphs Chromium actually used."""
    assert lab.run() == "done"
    pre = '[data-block="1"] pre'
    family = lab.page.evaluate(f"getComputedStyle(document.querySelector('{pre}')).fontFamily")
    assert family.startswith('"Lab Mono"'), family
    faces = lab.page.evaluate("""async () => {
      await document.fonts.ready;
      return [...document.fonts].filter((f) => f.family.replace(/"/g, '') === 'Lab Mono').map((f) => f.status);
    }""")
    assert faces == ["loaded", "loaded"]  # the Latin and the Vietnamese file
    assert lab.page.evaluate("(t) => document.fonts.check('16px \"Lab Mono\"', t)", VIETNAMESE)
    assert lab.page.evaluate(f"getComputedStyle(document.querySelector('{pre}')).fontVariantLigatures") == "none"
    cdp = lab.context.new_cdp_session(lab.page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument")["root"]["nodeId"]
        for selector in (pre, '[data-block="summary"] pre'):
            node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
            used = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
            glyphs = {f["familyName"]: f["glyphCount"] for f in used}
            custom = [f for f in used if f["isCustomFont"]]
            assert custom and all(f["familyName"].startswith("JetBrains Mono") for f in custom), used
            # all but a few characters outside the font's ranges (e.g. "→") come from it
            assert sum(f["glyphCount"] for f in custom) >= 0.98 * sum(glyphs.values()), used
    finally:
        cdp.detach()
    assert any(p.startswith("/fonts/") and p.endswith("vietnamese-wght-normal.woff2") for p in lab_server_paths(lab))


def lab_server_paths(lab: Lab) -> list[str]:
    return [re.sub(r"^https?://[^/]+", "", url) for url in lab.requests]


def test_keyboard_alone_can_change_a_value_and_run(lab):
    lab.page.click('[data-action="reset"]')
    lab.control("QUEUE_LIMIT").focus()
    lab.page.keyboard.press("ArrowUp")
    expect(lab.control("QUEUE_LIMIT")).to_have_value("2")
    lab.page.keyboard.press("Enter")  # submits the form = Chạy
    lab.wait_status("done", RUN_MS)
    expect(lab.page.locator('[data-block="1"]')).to_contain_text("D (đến 1.50 ms): nhận")


def test_nothing_left_the_local_server_and_no_page_errors(lab, server):
    assert lab.page_errors == []
    assert csp_errors(lab) == []
    assert lab.foreign == []
    assert [url for url in lab.requests if not lab._local(url)] == []
    # the worker's downloads came from the local server too
    assert "/pyodide/pyodide.asm.wasm.gz" in server.paths
    assert any(p.startswith("/engine/") and p.endswith(".whl") for p in server.paths)


def test_the_worker_starts_with_the_page_and_app_js_takes_it_over(lab):
    """static/worker/boot.js, first in <head>, starts the one worker before the page's body is parsed
    (so Pyodide loads while the HTML, CSS and app.js arrive); app.js adopts it: one worker, and it runs.
    (The page's spy, lab_browser.SPY, saw every worker start; a Stop ends one and starts the next.)"""
    workers = lab.page.evaluate("window.__lab.workers")
    # from a blob: URL (so the page's CSP governs it) that imports the versioned worker.js
    assert workers[0]["url"].startswith("blob:")
    assert [u for u in lab.requests if "/static/worker/worker.js?v=" in u]
    assert workers[0]["readyState"] == "loading" and not workers[0]["body"]
    assert lab.run() == "done"
    assert len(lab.page.evaluate("window.__lab.workers")) == 1 + lab.page.evaluate("window.__lab.terminated")
    assert lab.page_errors == []


# ── faults ───────────────────────────────────────────────────────────────────
def test_opened_from_file_url_says_how_to_serve(chromium, site):
    context = chromium.new_context()
    page = context.new_page()
    page.goto((site / "index.html").as_uri())
    status = page.locator("[data-status]")
    expect(status).to_have_attribute("data-status", "error")
    expect(page.locator("#page-error")).to_contain_text("python3 build.py serve")
    context.close()


def test_missing_pyodide_file_is_named(chromium, site):
    srv = RecordingServer(site, overrides={"/pyodide/pyodide.asm.wasm.gz": (404, "text/plain", b"not here")})
    lab = Lab(chromium, srv.origin)
    try:
        lab.page.goto(srv.url)
        lab.wait_status("error", READY_MS)
        expect(lab.page.locator("#page-error")).to_contain_text("pyodide.asm.wasm.gz")
        expect(lab.page.locator("#page-error")).to_contain_text("LAB_PYODIDE_MIRROR")
        expect(lab.page.locator('[data-action="run"]')).to_be_disabled()
        assert lab.page_errors == []
    finally:
        lab.close()
        srv.close()


FAULTY_ENGINE = '''
import json, time

def describe():
    return json.dumps([{"name": "SLOTS", "type": "int", "default": 2, "min": 1, "max": 16, "step": 1,
                        "label": "Số chỗ chạy (SLOTS)", "help": "", "group": "headline", "flag": "--slots"}])

def run(config_json, patches=None, lang="vi", **hooks):   # hooks: the worker's progress, stop_seen, stopped
    slots = json.loads(config_json)["SLOTS"]
    if slots == 3:                      # a run that never ends
        while True:
            time.time()
    if slots == 4:
        return json.dumps({"ok": False, "errors": [{"field": "SLOTS", "message": "<i>engine</i> không nhận 4"}]})
    raise RuntimeError("<b>boom</b> lỗi thử")
'''


@pytest.fixture(scope="module")
def faulty_lab(chromium, site, tmp_path_factory):
    """The same site, but build-info.json points at an engine that fails on purpose, served by a plain file
    server (no COOP/COEP: not cross-origin isolated, so Stop restarts Python)."""
    src = tmp_path_factory.mktemp("faulty-engine")
    (src / "pyproject.toml").write_text('[project]\nname = "inference_lab"\nversion = "9.9.9"\n')
    (src / "inference_lab").mkdir()
    (src / "inference_lab" / "__init__.py").write_text("")
    (src / "inference_lab" / "entrypoints").mkdir()
    (src / "inference_lab" / "entrypoints" / "__init__.py").write_text("")
    (src / "inference_lab" / "entrypoints" / "web.py").write_text(FAULTY_ENGINE)
    wheel, _ = sitebuild.build_wheel(src, tmp_path_factory.mktemp("faulty-wheel"))
    manifest = json.loads((site / "build-info.json").read_text())
    manifest["engine"] = {"version": "9.9.9", "wheel": "engine/faulty/" + wheel.name}
    srv = RecordingServer(site, headers={"Content-Security-Policy": page_csp(site)}, overrides={
        "/build-info.json": (200, "application/json", json.dumps(manifest).encode()),
        "/engine/faulty/" + wheel.name: (200, "application/zip", wheel.read_bytes()),
    }, isolated=False)
    lab = Lab(chromium, srv.origin).open(srv.url)
    yield lab
    lab.close()
    srv.close()


def test_engine_exception_is_shown_as_text_and_run_works_again(faulty_lab):
    lab = faulty_lab
    for _ in range(2):
        assert lab.run({"SLOTS": 2}, reset=False) == "error"
        error = lab.page.locator("#page-error")
        expect(error).to_be_visible()
        expect(error).to_contain_text("RuntimeError: <b>boom</b> lỗi thử")   # as text, not markup
        assert error.locator("b").count() == 0
        expect(lab.page.locator('[data-action="run"]')).to_be_enabled()
        expect(lab.control("SLOTS")).to_have_value("2")


def test_engine_field_error_goes_beside_its_control(faulty_lab):
    lab = faulty_lab
    assert lab.run({"SLOTS": 4}, reset=False) == "error"
    error = lab.page.locator('[data-error-for="SLOTS"]')
    expect(error).to_have_text("<i>engine</i> không nhận 4")
    assert error.locator("i").count() == 0
    expect(lab.control("SLOTS")).to_have_value("4")


def test_a_stuck_run_can_be_stopped_without_reloading(faulty_lab):
    lab = faulty_lab
    lab.set_value("SLOTS", 3)
    lab.page.click('[data-action="run"]')
    expect(lab.status).to_have_attribute("data-status", "running")
    expect(lab.page.locator('[data-action="run"]')).to_be_disabled()
    expect(lab.page.locator('[data-action="stop"]')).to_be_visible()
    assert lab.page.evaluate("crossOriginIsolated") is False
    started = len(lab.page.evaluate("window.__lab.workers"))
    lab.page.click('[data-action="stop"]')
    lab.wait_status("loading|ready")
    expect(lab.page.locator("#action-note")).to_contain_text("không được cách ly cross-origin")  # says why
    lab.wait_status("ready", READY_MS)
    assert len(lab.page.evaluate("window.__lab.workers")) == started + 1                        # restarted
    expect(lab.control("SLOTS")).to_have_value("3")                 # nothing typed is lost
    expect(lab.page.locator('[data-action="stop"]')).to_be_hidden()
    assert lab.run({"SLOTS": 2}, reset=False) == "error"              # the new worker answers
    assert lab.page_errors == []
    assert lab.foreign == []


def test_cdn_build_loads_pyodide_from_the_cdn_origin(chromium, tmp_path, monkeypatch):
    """--pyodide cdn, with a local server on another port standing in for the CDN (it sends CORS like the real one)."""
    from lab_site import pyodide_mirror
    cdn = RecordingServer(pyodide_mirror(), headers={"Access-Control-Allow-Origin": "*"})
    monkeypatch.setattr(sitebuild.pyodide, "PYODIDE_CDN", cdn.url)
    site = sitebuild.build(tmp_path / "dist", "cdn")
    srv = RecordingServer(site, headers={"Content-Security-Policy": page_csp(site)})
    lab = Lab(chromium, srv.origin, cdn.origin)
    try:
        lab.open(srv.url)
        assert lab.run() == "done"
        expect(lab.page.locator('[data-block="summary"]')).to_contain_text("PASS:")
        assert "/pyodide.asm.wasm" in cdn.paths and not any(p.startswith("/pyodide/") for p in srv.paths)
        assert lab.page_errors == [] and lab.foreign == []
    finally:
        lab.close()
        srv.close()
        cdn.close()
