"""A shared link never runs someone else's code unasked, and student code cannot reach the network (issue 26).

The site is served WITHOUT any Content-Security-Policy header, as a static host serves it: only the page's
<meta> policy exists, and the Python worker obeys it because it starts from a blob: URL. A second local
server on another port counts every request that reaches it (Playwright lets requests to it through, so
only the browser's CSP can stop them).

Two cold Pyodide starts: a PATCH= link opened in a fresh context (nothing edited runs, nothing reaches
the other server until the click; after the click the edit's XMLHttpRequest, fetch, WebSocket,
importScripts, pyfetch and micropip.install are refused and the lesson is shown; the visitor's stored
edits are untouched), then a constants-only link in the same context (it still runs at once).
"""
from __future__ import annotations

import base64
import http.server
import json
import re
import threading

import pytest

from edits import GREEDY
from lab_browser import RUN_MS, Lab, expect
from lab_site import ROOT, RecordingServer

LESSON_VI = "Bài lab chạy offline; mã không thể truy cập mạng"
LESSON_EN = "the lab runs offline; code cannot reach the network"
OWN_EDIT = {"sampler.sample": GREEDY}  # the visitor's own edit, stored before they open the link


class Counter:
    """A server on another port of 127.0.0.1 that answers everything and counts what reached it."""

    def __init__(self):
        self.paths: list[str] = []
        paths = self.paths

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                paths.append(self.path)
                self.send_response(200)
                self.send_header("Access-Control-Allow-Origin", "*")
                self.end_headers()
                self.wfile.write(b"{}")
            do_POST = do_HEAD = do_GET

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def reaching_edit(origin: str, port: int) -> str:
    """scheduler.plan_tasks as the engine has it, plus every way a student's edit could call out."""
    return f'''def plan_tasks(running, budget_cap):
    import asyncio, js, micropip
    from pyodide.http import pyfetch
    def xhr():
        request = js.XMLHttpRequest.new()
        request.open("GET", "{origin}/xhr", False)
        request.send()
    for call in (xhr, lambda: js.fetch("{origin}/fetch"), lambda: js.WebSocket.new("ws://127.0.0.1:{port}/ws"),
                 lambda: js.importScripts("{origin}/import.js"),
                 lambda: asyncio.ensure_future(pyfetch("{origin}/pyfetch")),
                 lambda: asyncio.ensure_future(micropip.install("nothing", index_urls=["{origin}/simple"]))):
        try:
            call()
        except Exception:
            pass
    decode = [r for r in running if r.num_prefill_left == 0]
    tasks = [("decode", r, 1) for r in decode]
    budget = None if budget_cap is None else budget_cap - len(decode)
    for r in running:
        if r.num_prefill_left:
            n = r.num_prefill_left if budget is None else min(r.num_prefill_left, budget)
            if n > 0:
                tasks.append(("prefill", r, n))
                budget = None if budget is None else budget - n
    return tasks
'''


def patch_param(patches: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(patches).encode()).decode().rstrip("=")


@pytest.fixture(scope="module")
def plain_server(site):
    srv = RecordingServer(site)   # no CSP header: like GitHub Pages or python -m http.server
    yield srv
    srv.close()


@pytest.fixture(scope="module")
def counter():
    srv = Counter()
    yield srv
    srv.close()


@pytest.fixture(scope="module")
def link(chromium, plain_server, counter):
    """A fresh context whose visitor has edits of their own stored, opening someone else's PATCH= link."""
    lab = Lab(chromium, plain_server.origin, counter.origin, f"ws://127.0.0.1:{counter.port}")
    lab.context.add_init_script("if (!localStorage.getItem('inference-lab:patches')) "
                                f"localStorage.setItem('inference-lab:patches', {json.dumps(json.dumps(OWN_EDIT))});")
    lab.patches = {"scheduler.plan_tasks": reaching_edit(counter.origin, counter.port)}
    lab.open(plain_server.url + "?PATCH=" + patch_param(lab.patches))
    yield lab
    lab.close()


def test_the_worker_starts_from_a_blob_url_so_the_pages_csp_governs_it(link, site):
    assert [w.url.split(":")[0] for w in link.page.workers] == ["blob"]
    csp = re.search(r'Content-Security-Policy" content="([^"]+)"', (site / "index.html").read_text()).group(1)
    assert "connect-src 'self';" in csp and "worker-src 'self' blob:;" in csp


def test_a_patch_link_shows_the_code_and_runs_nothing_until_the_click(link, counter):
    notice = link.page.locator('[data-link-code="held"]')
    expect(notice).to_contain_text("scheduler.plan_tasks")
    expect(notice).to_contain_text("Chưa có dòng nào của nó được chạy")
    expect(notice.locator('[data-action="run-link-code"]')).to_have_count(1)
    expect(notice.locator('[data-action="engine-code"]')).to_have_attribute("href",
                                                                            re.compile(r"^[^?]*(\?(?!.*PATCH=).*)?$"))
    editor = link.page.locator('[data-from-link] [data-code-editor="scheduler.plan_tasks"]')
    expect(editor).to_have_count(1, timeout=RUN_MS)              # shown, marked, in its editor
    assert link.status.get_attribute("data-status") == "ready"  # a PATCH= alone did not run
    link.page.click('[data-action="run"]')                      # Run runs the engine's own code
    link.wait_status("done", RUN_MS)
    expect(link.page.locator("[data-edited-code]")).to_have_count(0)
    assert counter.paths == []
    assert json.loads(link.page.evaluate("localStorage.getItem('inference-lab:patches')")) == OWN_EDIT


def test_after_the_click_the_edit_runs_and_reaches_nothing(link, counter):
    link.page.click('[data-action="run-link-code"]')
    link.wait_status("done", RUN_MS)
    expect(link.page.locator("[data-block] > summary [data-edited-code]")).to_have_count(13)
    note = link.page.locator("#action-note")
    expect(note).to_contain_text(LESSON_VI)
    for path in ("/xhr", "/fetch", "/pyfetch", "/import.js", "/ws"):
        expect(note).to_contain_text(path, timeout=RUN_MS)
    expect(link.page.locator('[data-error-for="patch:scheduler.plan_tasks"]')).to_contain_text(LESSON_VI)
    link.page.wait_for_function("() => /simple/.test(document.getElementById('action-note').textContent)",
                                timeout=RUN_MS)
    assert counter.paths == [] and link.foreign == []
    assert json.loads(link.page.evaluate("localStorage.getItem('inference-lab:patches')")) == OWN_EDIT
    assert "PATCH=" in link.page.url and link.page_errors == []


def test_a_constants_only_link_still_runs_at_once(link, plain_server, counter):
    assert link.visit("?SLOTS=3") == "done"        # applied as opening it does (lab_browser.Lab.visit)
    expect(link.page.locator("[data-link-code]")).to_have_count(0)
    assert link.control("SLOTS").input_value() == "3" and counter.paths == []


def test_the_readmes_say_what_a_shared_link_does_and_does_not_do():
    vi = (ROOT / "README.md").read_text(encoding="utf-8")
    en = (ROOT / "README.en.md").read_text(encoding="utf-8")
    assert "Chạy mã từ liên kết" in vi and LESSON_VI in vi and "blob:" in vi
    assert "Run the link’s code" in en and LESSON_EN in en.lower() and "blob:" in en
