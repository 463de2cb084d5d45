"""Browser tests of issue 16's three pictures: `tokens` (block 2), `quantization` (blocks 9 and 13) and `memory`
(block 10), drawn from the report data for the default run and for degenerate runs (the followed request
refused at the gateway: SLOTS=1; QUANT_BITS=2). Marks are checked against the engine's report computed here
in CPython; keyboard details, phone width and screenshots at 375 and 1440 px (tests/artifacts/chart-*.png,
LAB_SCREENSHOTS=1) too. Same harness as test_browser_charts.py (conftest.py: the session's build, server and Chromium).
"""
from __future__ import annotations


import pytest

from inference_lab.entrypoints.exercises import load_all
from chart_helpers import (CHARTS_DRAWN, assert_drawn, at_width, chart, labels_outside, redrawn,
                           run_and_wait_for_charts,
                           shoot, text_sizes)
from lab_browser import ARTIFACTS, RUN_MS, Lab, block_data, engine_report, expect, screenshot
from lab_site import ROOT

pytestmark = pytest.mark.browser

PLACES = [("tokens", 2), ("quantization", 9), ("quantization", 13), ("memory", 10)]
RUNS = {
    "default": {},
    "refused": {"SLOTS": 1},           # FOLLOW=C gets 429 at the gateway: never tokenized
    "bits2": {"QUANT_BITS": 2},        # the lowest width: 1 level each side of zero
}


def run_and_wait(lab: Lab, values: dict) -> None:
    run_and_wait_for_charts(lab, values, PLACES)


# ── the default run ─────────────────────────────────────────────────────────
def test_default_run_draws_the_three_pictures_from_the_report(lab):
    run_and_wait(lab, RUNS["default"])
    report = engine_report(RUNS["default"])
    for name, block in PLACES:
        assert_drawn(lab, name, block)

    b2 = block_data(report, 2)
    tok = chart(lab, "tokens", 2)
    merges = tok.locator(".merge-step").evaluate_all("els => els.map(e => e.dataset.merge)")
    assert merges == ["", "n</w>", "od", "ode", "odel", "odel</w>", "model</w>"]
    ids = tok.locator(".token-id").evaluate_all("els => els.map(e => [e.dataset.piece, +e.dataset.id])")
    assert ids == [[p, i] for p, i in b2["follow_ids"]]
    assert [i for _, i in ids] == [0, 4, 3, 16, 8, 17, 5, 2, 14]
    bars = tok.locator(".request").evaluate_all("els => els.map(e => [e.dataset.request, e.dataset.code])")
    assert bars == [["A", "OK"], ["B", "OK"], ["E", "400"], ["C", "OK"], ["D", "429"]]
    expect(tok.locator('.caption[data-request="E"]')).to_have_text("8 + 30 = 38 > 24 → 400 · bị chặn ở bước chuẩn bị "
                                                                   "đầu vào")
    expect(tok.locator(".max-context")).to_have_attribute("data-max-context", "24")

    sweep = block_data(report, 13)["sweep"]
    for block in (9, 13):
        q = chart(lab, "quantization", block)
        assert q.locator('.bar[data-metric="int_bytes"]').evaluate_all("els => els.map(e => +e.dataset.bits)") == [6,
                                                                                                                   7, 8]
        expect(q.locator('.bar[data-current="true"][data-metric="agreement"]')).to_contain_text("40/40 = 100.0% ✓")
        expect(q.locator('.bar[data-bits="6"][data-metric="agreement"]')).to_contain_text("37/40 = 92.5% ✗")
        expect(q.locator('.bar[data-bits="8"][data-metric="int_bytes"]')).to_contain_text("1192 byte")
        expect(q.locator('.bar[data-bits="8"][data-metric="logit_err"]')).to_contain_text("0.0385")
        expect(q.locator(".gate")).to_have_attribute("data-gate", "0.95")
        assert q.locator(".bar").count() == 3 * len(sweep)
    expect(chart(lab, "quantization", 9).locator("figcaption")).to_contain_text("Đổi bộ nhớ lấy sai số")
    expect(chart(lab, "quantization", 13).locator("figcaption")).to_contain_text("Cổng chất lượng")

    m = block_data(report, 10)["budget"]
    mem = chart(lab, "memory", 10)
    parts = mem.locator(".segment").evaluate_all("els => els.map(e => [e.dataset.part, +e.dataset.bytes])")
    assert parts == [["weights", 7936], ["kv_stored", 3072], ["kv_slack", 512], ["kv_free", 2560]]
    assert sum(b for _, b in parts) == m["total"] == 14080
    expect(mem.locator("svg.chart-svg")).to_contain_text("Tổng 14080 byte = trọng số 7936 + bể KV 6144")
    assert mem.locator(".kv-pool rect.used").count() == 7 and mem.locator(".kv-pool rect.free").count() == 5


# ── degenerate runs ─────────────────────────────────────────────────────────
def test_refused_followed_request_still_shows_how_its_text_would_be_split(lab):
    run_and_wait(lab, RUNS["refused"])
    report = engine_report(RUNS["refused"])
    assert report["follow"]["served"] is False and report["follow"]["code"] == "429"
    for name, block in PLACES:
        assert_drawn(lab, name, block)
    tok = chart(lab, "tokens", 2)
    expect(tok.locator(".chart-note")).to_contain_text("C bị từ chối 429 ở cổng nên engine chưa tách token")
    expect(tok.locator('.request[data-request="C"]')).to_have_attribute("data-code", "429")
    expect(tok.locator('.caption[data-request="C"]')).to_contain_text("(nếu tokenize) → 429 · từ chối ở cổng, chưa "
                                                                      "tokenize")
    assert tok.locator(".token-id").count() == len(block_data(report, 2)["follow_ids"]) == 9
    assert chart(lab, "memory", 10).locator(".kv-pool rect.used").count() == block_data(report,
                                                                                        10)["budget"]["peak_blocks"]


def test_two_bits_run_shows_the_lowest_width_and_its_neighbours(lab):
    run_and_wait(lab, RUNS["bits2"])
    report = engine_report(RUNS["bits2"])
    b13 = block_data(report, 13)
    for name, block in PLACES:
        assert_drawn(lab, name, block)
    for block in (9, 13):
        q = chart(lab, "quantization", block)
        assert q.locator('.bar[data-metric="agreement"]').evaluate_all("els => els.map(e => +e.dataset.bits)") == [2,
                                                                                                                   3, 4]
        expect(q.locator('.bar[data-current="true"][data-metric="agreement"]')).to_have_attribute("data-bits", "2")
        kept = f"{40 - b13['flips']}/40"
        expect(q.locator('.bar[data-bits="2"][data-metric="agreement"]')).to_contain_text(kept + " = ")
        expect(q.locator('.bar[data-bits="4"][data-metric="agreement"]')).to_contain_text("33/40 = 82.5% ✗")


# ── reading the pictures: keyboard, phone width, screenshots ────────────────
def test_keyboard_reads_every_new_picture(lab):
    run_and_wait(lab, RUNS["default"])
    for name, block in PLACES:
        root = chart(lab, name, block)
        root.locator(".chart-frame").focus()
        expect(root.locator(".chart-tip")).to_be_visible()
        first = root.locator(".chart-tip").inner_text()
        lab.page.keyboard.press("ArrowDown")
        expect(root.locator(".chart-tip")).not_to_have_text(first)
        expect(root.locator(".chart-live")).to_have_text(root.locator(".chart-tip").inner_text())
    expect(chart(lab, "tokens", 2).locator(".chart-tip")).to_contain_text("“n</w>”")


@pytest.mark.parametrize("run", ["default", "refused", "bits2"])
def test_legible_at_phone_width_and_screenshots(lab, run):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    run_and_wait(lab, RUNS[run])
    try:
        for width in (375, 1440):
            at_width(lab, width)
            for name, block in PLACES:
                svg = redrawn(lab, name, block, width)
                if width == 375:
                    sizes = text_sizes(svg)
                    assert sizes and min(sizes) >= 11, f"{name}: text drawn at {min(sizes):.1f} px"
                    over = labels_outside(svg)                     # no text runs past the drawing's edges
                    assert not over, f"{name} (block {block}): labels outside the drawing at 375 px: {over}"
                shoot(lab, name, block, ARTIFACTS / f"chart-{name}{block}-{run}-{width}.png")
            if width == 375:
                overflow = lab.page.evaluate("document.documentElement.scrollWidth - "
                                             "document.documentElement.clientWidth")
                assert overflow <= 0, "the page scrolls sideways at 375 px"
    finally:
        lab.page.set_viewport_size({"width": 1440, "height": 900})


# ── the guide's map of the nine learning points ─────────────────────────────
def test_learning_map_links_reach_their_targets(lab):
    run_and_wait(lab, RUNS["default"])
    expect(lab.page.locator("article[data-exercise]")).to_have_count(len(load_all(ROOT / "exercises")), timeout=RUN_MS)
    links = lab.page.locator("#guide [data-learning-link]").evaluate_all(
        "els => els.map(a => [a.closest('[data-learning-point]').dataset.learningPoint, a.dataset.learningLink,"
        " a.getAttribute('href').slice(1), a.dataset.chartName || null])")
    assert {(p, k) for p, k, _, _ in links} == {(str(n), k) for n in range(1, 10) for k in ("panel", "chart",
                                                                                            "exercise")}
    cards = lab.page.locator("article[data-exercise]").evaluate_all("els => els.map(e => e.id)")
    assert {t for _, k, t, _ in links if k == "exercise"} == set(cards)            # every exercise, 15-18 included
    for point, kind, target, name in links:
        expect(lab.page.locator(f"#{target}"), f"point {point}: #{target}").to_have_count(1)
        if kind == "chart":
            expect(lab.page.locator(f'#{target} > [data-chart="{name}"]'),
                   f"point {point}: {name} in #{target}").to_have_count(1)
        if kind == "panel":
            expect(lab.page.locator(f"#{target}")).to_have_attribute("data-block", target.split("-")[1])

    # following a picture link from the guide opens the closed panel that holds it
    guide = lab.page.locator("#guide details", has=lab.page.locator("#hoc-2"))
    # (an earlier module may have left it open: a click would close it)
    if guide.get_attribute("open") is None:
        guide.locator("summary").click()
    lab.page.locator("#khoi-2").evaluate("el => { el.open = false; }")
    lab.page.locator('#hoc-2 [data-lang="vi"] a[data-learning-link="chart"]').click()   # the page's language
    expect(lab.page.locator("#khoi-2")).to_have_attribute("open", "")
    expect(lab.page.locator('#hinh-khoi-2 [data-chart="tokens"]')).to_be_in_viewport()
    lab.page.locator('#hoc-2 [data-lang="vi"] a[data-learning-link="exercise"]').click()
    expect(lab.page.locator("#bai-tap-10")).to_be_in_viewport()
    lab.page.locator('#hoc-4 [data-lang="vi"] a[data-learning-link="exercise"][href="#bai-tap-15"]').click()
    expect(lab.page.locator("#bai-tap-15")).to_be_in_viewport()


def test_no_page_errors_and_nothing_refused_by_the_csp(lab):
    assert lab.page_errors == []
    assert [e for e in lab.console_errors if "Content Security Policy" in e or "Refused" in e or "chart" in e] == []
    assert lab.foreign == []


# ── Debian's default fonts only ─────────────────────────────────────────────
# Chart text is laid out for the page's own font ("Lab Mono", loaded before the first drawing), so a
# machine whose fonts are only Debian's DejaVu (wider than most) must draw every chart the same. This
# browser (conftest.chromium_dejavu) has no Python: the worker script is refused, so Pyodide never boots;
# the page's own chart module draws the engine's reports computed here in CPython into the page's panels.
DEJAVU_RUNS = {**RUNS, "preempt": {"SLOTS": 3, "POOL_BLOCKS": 7, "QUEUE_LIMIT": 2}}

DRAW_REPORT = """async ([report]) => {
    // static/charts/index.js with the build's version (the page's module script carries it)
    const version = new URL(document.querySelector('script[type="module"][src]').src).search;
    const charts = await import(new URL('static/charts/index.js' + version, document.baseURI).href);
    const items = Object.keys(charts.CHARTS)
      .map((n) => [document.querySelector(`details[data-block="${n}"]`), Number(n)]);
    items.forEach(([panel]) => { panel.open = true; });
    document.querySelectorAll('[data-chart]').forEach((el) => { el.dataset.stale = '1'; });
    await charts.placeAllCharts(items, report);
}"""
# every text of every chart drawing, in the drawing's own units, with transforms (rotated labels) applied
TEXTS_OUTSIDE = """() => [...document.querySelectorAll('[data-chart] svg.chart-svg')].flatMap((s) => {
    const box = s.getBoundingClientRect();
    const k = s.viewBox.baseVal.width / box.width;
    const where = s.closest('[data-chart]').dataset.chart + ' (block ' + s.closest('[data-block]').dataset.block + ')';
    return [...s.querySelectorAll('text')].filter((t) => t.textContent.trim()).map((t) => {
      const r = t.getBoundingClientRect();
      return [where, t.textContent, (r.left - box.left) * k, (r.right - box.left) * k, s.viewBox.baseVal.width];
    }).filter(([, , left, right, w]) => left < -1 || right > w + 1);
})"""


def test_every_chart_fits_with_only_debians_default_fonts(chromium_dejavu, server):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    lab = Lab(chromium_dejavu, server.origin)
    try:
        lab.context.route("**/static/worker/worker.js*", lambda route: route.abort())   # no Python in this page
        lab.page.goto(server.url)
        # this browser sees DejaVu only: a missing family falls back to the generic one, DejaVu Sans is there
        widths = lab.page.evaluate("""() => { const c = document.createElement('canvas').getContext('2d');
            return ['12px "Liberation Sans", serif', '12px serif', '12px "DejaVu Sans", serif'].map((f) => {
              c.font = f; return c.measureText('Inference Lab 0123456789').width; }); }""")
        assert widths[0] == widths[1] != widths[2], f"the browser does not see DejaVu only: {widths}"
        for run, config in DEJAVU_RUNS.items():
            report = engine_report(config)
            lab.page.set_viewport_size({"width": 1440, "height": 900})
            lab.page.evaluate(DRAW_REPORT, [report])
            lab.page.wait_for_function(CHARTS_DRAWN, timeout=RUN_MS)
            assert lab.page.evaluate("document.fonts.check('12px \"Lab Mono\"')"), "the chart font is not loaded"
            for width in (375, 1440):
                at_width(lab, width)
                lab.page.wait_for_function(CHARTS_DRAWN, timeout=RUN_MS)
                outside = lab.page.evaluate(TEXTS_OUTSIDE)
                assert outside == [], f"{run} at {width} px: labels outside their drawing: {outside}"
                if width == 375:
                    fonts = lab.page.evaluate("""() => [...document.querySelectorAll('[data-chart] svg.chart-svg text')]
                        .filter((t) => t.textContent.trim()).map((t) => getComputedStyle(t).fontFamily)""")
                    assert fonts and all(f.startswith('"Lab Mono"') for f in fonts), set(fonts)
                    overflow = lab.page.evaluate("document.documentElement.scrollWidth - "
                                                 "document.documentElement.clientWidth")
                    assert overflow <= 0, "the page scrolls sideways at 375 px"
                if run == "default":
                    for name, block in PLACES:
                        root = chart(lab, name, block)
                        root.scroll_into_view_if_needed()
                        screenshot(root, ARTIFACTS / f"chart-{name}{block}-dejavu-{width}.png")
    finally:
        lab.close()
    assert lab.page_errors == []
    assert [e for e in lab.console_errors if "chart" in e] == []
