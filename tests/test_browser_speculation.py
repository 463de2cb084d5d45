"""Browser tests of speculative decoding on the page (SPEC_METHOD = draft, QUANT_BITS = 4): block 7's lines,
the `speculation` chart (accepted per step, α per request, speedup by batch size) checked against the engine's
report computed here in CPython and legible at 375 and 1440 px, the step view's accepted / rejected / recovered /
bonus tokens, and `rejection_sampler.accepts` edited to "always accept" in block 7's code view failing block 13.
Same harness as the other browser modules: the session's shared page (conftest.py), no cold boot of its own.
"""
from __future__ import annotations

import re

import pytest

from chart_helpers import assert_drawn, chart, mark_stale, run_and_wait_for_charts
from lab_browser import ARTIFACTS, RUN_MS, block_data, engine_report, expect, open_editor, screenshot

pytestmark = pytest.mark.browser

SPEC = {"SPEC_METHOD": "draft", "QUANT_BITS": 4}
ALWAYS = "def accepts(p_x, q_x, u):\n    return True\n"


def run_spec(lab):
    run_and_wait_for_charts(lab, SPEC, [("speculation", 7)])


def test_block7_lines_and_chart_match_the_engine(lab):
    run_spec(lab)
    report = engine_report(SPEC)
    b7 = block_data(report, 7)
    lines = "\n".join(lab.panel_lines(7))
    assert "Giải mã suy đoán (SPEC_METHOD=draft, K = 3)" in lines
    assert "TPOT trung bình 1.14 ms so với 1.55 ms" in lines
    assert_drawn(lab, "speculation", 7)
    fig = chart(lab, "speculation", 7)
    steps = [(i + 1, sum(len(v["proposed"]) for v in it["spec"].values()),
              sum(v["accepted"] for v in it["spec"].values()))
             for i, it in enumerate(report["steps"]["items"]) if it.get("spec")]
    drawn = fig.locator(".spec-step").evaluate_all(
        "els => els.map(e => [+e.dataset.step, +e.dataset.proposed, +e.dataset.accepted])")
    assert drawn == [list(s) for s in steps]
    alphas = fig.locator(".spec-alpha").evaluate_all("els => els.map(e => [e.dataset.request, +e.dataset.alpha])")
    assert alphas == [[rid, pytest.approx(r["alpha"], abs=1e-4)] for rid, r in b7["spec"]["per_request"].items()]
    points = fig.locator(".spec-batch").evaluate_all("els => els.map(e => [+e.dataset.batch, +e.dataset.speedup])")
    assert [p[0] for p in points] == [r["batch"] for r in b7["spec_batch"]["rows"]]
    assert points[0][1] > 1 > points[-1][1]                      # a gain at batch 1, a loss at the largest batch


def test_speculation_chart_is_legible_at_375_and_1440(lab):
    run_spec(lab)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        for width in (1440, 375):
            fresh = ""
            if lab.page.viewport_size["width"] != width:   # redrawn for the new width: wait for the new drawing
                mark_stale(lab)
                fresh = ":not([data-stale])"
            lab.page.set_viewport_size({"width": width, "height": 900})
            sel = f'[data-block="7"] [data-chart="speculation"]{fresh}'
            lab.page.wait_for_function(
                """([sel]) => { const r = document.querySelector(sel); const s = r && r.querySelector('svg[role=img]');
                   const f = s && s.closest('.chart-frame');
                   return Boolean(f) && +s.getAttribute('width') <= f.clientWidth + 1; }""",
                arg=[sel], timeout=RUN_MS)
            root = lab.page.locator(sel)
            root.scroll_into_view_if_needed()
            box = root.bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= width + 1
            sizes = root.locator("svg[role=img]").evaluate("""s => [...s.querySelectorAll('text')]
                .filter(t => t.textContent.trim())
                .map(t => parseFloat(getComputedStyle(t).fontSize) * s.getBoundingClientRect().width
                          / s.viewBox.baseVal.width)""")
            assert sizes and min(sizes) >= 11, f"text drawn at {min(sizes):.1f} px at {width} px"
            overflow = lab.page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
            assert overflow <= 0, f"the page scrolls sideways at {width} px"
            screenshot(root, ARTIFACTS / f"chart-speculation-{width}.png")
    finally:
        lab.page.set_viewport_size({"width": 1440, "height": 900})


def test_step_view_colours_accepted_rejected_and_bonus_tokens(lab):
    run_spec(lab)
    report = engine_report(SPEC)
    items = report["steps"]["items"]
    lab.page.evaluate("document.querySelector('[data-block=\"3\"]').open = true")
    slider = lab.page.locator("[data-step-slider]")
    slider.focus()
    slider.press("Home")
    seen = set()
    for n, it in enumerate(items, start=1):
        if n > 1:
            slider.press("ArrowRight")
        expect(slider).to_have_attribute("aria-valuenow", str(n))
        box = lab.page.locator("[data-step-view] [data-step-spec]")
        if not it.get("spec"):
            expect(box.locator(".spec-row.is-empty")).to_have_count(1)
            continue
        for rid, v in it["spec"].items():
            row = box.locator(f'.spec-row[data-request="{rid}"]')
            kinds = row.locator(".spec-tok").evaluate_all("els => els.map(e => e.dataset.spec)")
            rejected = v["accepted"] < len(v["proposed"]) and v["token"] is not None
            want = ["accepted"] * v["accepted"] + (["rejected"] if rejected else [])
            want += ["unchecked"] * (len(v["proposed"]) - len(want))
            if v["token"] is not None:
                want.append("bonus" if v["accepted"] == len(v["proposed"]) else "recovered")
            assert kinds == want, (n, rid)
            seen |= set(kinds)
    assert {"accepted", "rejected", "bonus"} <= seen
    slider.press("Home")                                          # leave the shared page at step 1, the address
    expect(slider).to_have_attribute("aria-valuenow", "1")        # written (it follows once scrubbing pauses)
    expect(lab.page).to_have_url(re.compile(r"[?&]step=1(&|$)"))
    colours = lab.page.evaluate("""() => Object.fromEntries(['accepted', 'rejected', 'bonus', 'recovered'].map(k => {
        const el = document.querySelector('.spec-legend .spec-tok.is-' + k);
        return [k, getComputedStyle(el).backgroundColor]; }))""")
    assert len(set(colours.values())) == 4, colours                # each kind its own colour (and its own mark)


def test_always_accept_in_the_code_view_fails_block_13(lab):
    run_spec(lab)
    expect(lab.page.locator('[data-code-for="7"] [data-action="edit-code"]')).to_have_count(1)
    editor = open_editor(lab, "rejection_sampler.accepts", 7)
    editor.locator(".cm-content").click()
    lab.page.keyboard.press("Control+a")
    lab.page.keyboard.press("Delete")
    lab.page.keyboard.insert_text(ALWAYS)
    editor.locator('[data-action="run-code"]').click()
    lab.wait_status("done|error", RUN_MS)
    lines = "\n".join(lab.panel_lines(13))
    assert "Luật chấp nhận đã ĐỔI phân phối đầu ra" in lines and "KHÔNG ĐẠT" in lines
    editor.locator('[data-action="restore-code"]').click()
