"""The vendored editor (static/vendor/codemirror.js) under the lab's own CSP, sent as an HTTP header.

Mounted in a shadow root, CodeMirror's styles go into a constructable stylesheet: the editor is styled
and no CSP violation is reported. Mounted in the document itself, style-mod would add a <style>
element, which `style-src 'self'` blocks (the reason for the shadow root). The editor shows the
engine's line numbers (firstLine), undoes, and Ctrl-Enter runs.
"""
from __future__ import annotations

import pytest

from lab_site import RecordingServer, sitebuild, mirror_env, page_csp

pytestmark = pytest.mark.browser

BLANK = """<!doctype html><html lang="vi"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{csp}"><title>editor</title></head>
<body><div id="host"></div><div id="plain"></div></body></html>"""


@pytest.fixture(scope="module")
def editor_page(chromium, tmp_path_factory):
    dist = tmp_path_factory.mktemp("cm") / "dist"
    with mirror_env():
        sitebuild.build(dist, "cdn")      # the CDN build needs no Pyodide files; the CSP is the same
    csp = page_csp(dist)
    (dist / "blank.html").write_text(BLANK.format(csp=csp), encoding="utf-8")
    server = RecordingServer(dist, headers={"Content-Security-Policy": csp})
    page = chromium.new_page()
    page.goto(server.url + "blank.html")
    page.evaluate("""() => { window.__violations = [];
        document.addEventListener('securitypolicyviolation',
                                  (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI)); }""")
    yield page
    page.close()
    server.close()


def test_editor_in_a_shadow_root_is_styled_without_csp_violations(editor_page):
    page = editor_page
    result = page.evaluate("""async () => {
        const { createEditor } = await import('/static/vendor/codemirror.js');
        window.__runs = 0;
        window.__ed = createEditor(document.getElementById('host'),
            { doc: 'def plan_tasks(running, budget_cap):\\n    return []\\n', firstLine: 37, label: 'plan_tasks',
              onRun: () => { window.__runs += 1; } });
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
        const root = document.getElementById('host').shadowRoot;
        const gutter = root.querySelector('.cm-gutters');
        return { numbers: [...root.querySelectorAll('.cm-lineNumbers .cm-gutterElement')]
                   .filter((e) => e.style.visibility !== 'hidden').map((e) => e.textContent),
                 gutterBg: getComputedStyle(gutter).backgroundColor, adopted: root.adoptedStyleSheets.length,
                 styleTags: document.querySelectorAll('style').length + root.querySelectorAll('style').length,
                 label: root.querySelector('.cm-content').getAttribute('aria-label') };
    }""")
    assert result["gutterBg"] == "rgb(241, 243, 246)"     # the theme applied: its stylesheet was adopted
    assert result["adopted"] >= 1 and result["styleTags"] == 0
    assert result["numbers"][:3] == ["37", "38", "39"]
    assert result["label"] == "plan_tasks"
    assert page.evaluate("window.__violations") == []


def test_typing_undo_and_ctrl_enter(editor_page):
    page = editor_page
    content = page.locator("#host .cm-content")
    content.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("# sửa")
    assert page.evaluate("window.__ed.getDoc()").endswith("# sửa")
    page.keyboard.press("Control+z")
    assert page.evaluate("window.__ed.getDoc()") == "def plan_tasks(running, budget_cap):\n    return []\n"
    page.keyboard.press("Control+Enter")
    assert page.evaluate("window.__runs") == 1
    assert page.evaluate("window.__violations") == []


def test_the_document_itself_would_need_unsafe_inline(editor_page):
    page = editor_page
    page.evaluate("""async () => {
        // A second view whose root is the document (no shadow root): style-mod adds a <style> element.
        const View = window.__ed.view.constructor;
        new View({ doc: 'y = 2', parent: document.getElementById('plain') });
        await new Promise((r) => setTimeout(r, 100));
    }""")
    violations = page.evaluate("window.__violations")
    assert any(v.startswith("style-src") for v in violations), violations
