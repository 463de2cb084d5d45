"""Chart helpers of the browser tests (the chart, roofline, speculation, cluster and learning-chart modules),
written once.

A chart is `[data-block="N"] [data-chart="name"]`; `run_and_wait_for_charts` marks every drawn chart stale,
runs, and waits until each expected chart is there again and none is stale or still to be drawn (a resize or
a new run redraws them a frame later: waiting on the old drawing would race). `mark_stale` first waits for
the charts the last run left to draw when the page is idle (static/charts/index.js: their box says
aria-busy): drawn after the marking, the last run's charts would pass for this one's. `assert_drawn`
checks what every chart has.
"""
from __future__ import annotations

from lab_browser import RUN_MS, Lab, expect, screenshot


def chart(lab: Lab, name: str, block: int):
    return lab.page.locator(f'[data-block="{block}"] [data-chart="{name}"]')


# Every chart of the last run drawn: none left for when the page is idle, none marked stale.
# (The block panels' charts: the capacity tools' charts under the runner, static/tools/sweep*.js, are a tool's answer,
# not the run's, and a run does not draw them again.)
CHARTS_DRAWN = ("() => document.querySelectorAll('.charts[aria-busy], [data-block] [data-chart][data-stale]').length"
                " === 0")


# The last run's charts all drawn: none left for when the page is idle (their box says aria-busy until then, and
# drawing replaces the box's elements: static/charts/index.js placeAllCharts).
CHARTS_SETTLED = "() => !document.querySelector('.charts[aria-busy]')"


def mark_stale(lab: Lab) -> None:
    """Once the last run's charts are all drawn, mark every chart stale: a chart drawn later comes without
    the mark."""
    lab.page.wait_for_function(CHARTS_SETTLED, timeout=RUN_MS)
    lab.page.evaluate("document.querySelectorAll('[data-block] [data-chart]').forEach(el => el.dataset.stale = '1')")


def run_and_wait_for_charts(lab: Lab, values: dict, places) -> None:
    """Run, then wait until every chart of the previous run has been replaced by this run's.
    places: [(chart name, block number)] that this run must draw."""
    mark_stale(lab)
    assert lab.run(values) == "done"
    for name, block in places:
        expect(chart(lab, name, block)).to_have_count(1, timeout=RUN_MS)
    lab.page.wait_for_function(CHARTS_DRAWN, timeout=RUN_MS)


def assert_drawn(lab: Lab, name: str, block: int) -> None:
    """Above the panel's lines, something drawn, an SVG with an accessible label, marks, a text
    alternative, a caption and axis or panel labels. Waits first for the run's charts drawn when the page is idle:
    on a busy machine a chart read sooner is the last run's, replaced while it is read."""
    lab.page.wait_for_function(CHARTS_SETTLED, timeout=RUN_MS)
    root = chart(lab, name, block)
    assert root.get_attribute("data-empty") is None, f"{name} in block {block} drew nothing"
    above = root.evaluate("""el => Boolean(el.compareDocumentPosition(
        el.closest('[data-block]').querySelector(':scope > pre')) & Node.DOCUMENT_POSITION_FOLLOWING)""")
    assert above, f"{name} is not above block {block}'s lines"
    svg = root.locator('svg[role="img"]')
    expect(svg).to_have_count(1)
    assert len(svg.get_attribute("aria-label").strip()) > 20
    assert root.locator("svg [data-mark]").count() > 0, f"{name} in block {block} has no marks"
    assert root.locator(".chart-alt").count() > 0 and root.locator(".chart-alt").first.text_content().strip()
    assert root.locator("figcaption").inner_text().strip()
    assert root.locator(".axis-label, .panel-title").count() > 0, f"{name} has no axis or panel labels"


# For svg.evaluate(...) on one chart drawing: its texts (in the drawing's own units, transforms applied) that
# run past the drawing's edges, and the pairs of texts whose boxes overlap (by more than a pixel each way).
SVG_TEXTS_OUTSIDE = """(s) => {
    const box = s.getBoundingClientRect(), k = s.viewBox.baseVal.width / box.width, h = s.viewBox.baseVal.height;
    return [...s.querySelectorAll('text')].filter((t) => t.textContent.trim()).map((t) => {
      const r = t.getBoundingClientRect();
      return [t.textContent, (r.left - box.left) * k, (r.right - box.left) * k, (r.top - box.top) * k,
              (r.bottom - box.top) * k];
    }).filter(([, l, r, top, bottom]) => l < -1 || r > s.viewBox.baseVal.width + 1 || top < -1 || bottom > h + 1);
}"""
SVG_TEXTS_OVERLAPPING = """(s) => {
    const boxes = [...s.querySelectorAll('text')].filter((t) => t.textContent.trim())
      .map((t) => [t.textContent, t.getBoundingClientRect()]);
    const out = [];
    boxes.forEach(([a, p], i) => boxes.slice(i + 1).forEach(([b, q]) => {
      const across = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const down = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      if (across > 1 && down > 1) out.push([a, b]);
    }));
    return out;
}"""


def at_width(lab: Lab, width: int) -> None:
    """Resize the page; every chart is marked stale first, so `redrawn` waits for the drawing at this width
    (a 375 px drawing still fits a 1440 px frame: waiting on the old one would race)."""
    mark_stale(lab)
    lab.page.set_viewport_size({"width": width, "height": 900})


def redrawn(lab: Lab, name: str, block: int, width: int):
    """The chart's SVG once drawn again for its panel's width after `at_width` (1:1, no sideways scroll inside)."""
    sel = f'[data-block="{block}"] [data-chart="{name}"]:not([data-stale]) svg[role=img]'
    lab.page.wait_for_function(
        """([sel, w]) => { const s = document.querySelector(sel); const f = s && s.closest('.chart-frame');
           return s && f && +s.getAttribute('width') <= f.clientWidth + 1 && (w > 400 || f.clientWidth < 400); }""",
        arg=[sel, width], timeout=RUN_MS)
    return lab.page.locator(sel)


def text_sizes(svg) -> list[float]:
    """The on-screen size (px) of every non-empty text of a drawn chart."""
    return svg.evaluate("""s => [...s.querySelectorAll('text')].filter(t => t.textContent.trim())
        .map(t => parseFloat(getComputedStyle(t).fontSize) * s.getBoundingClientRect().width
                  / s.viewBox.baseVal.width)""")


def labels_outside(svg) -> list[str]:
    """The non-empty texts of a drawn chart that run past its left or right edge."""
    return svg.evaluate("""s => [...s.querySelectorAll('text')].filter(t => t.textContent.trim())
        .filter(t => { const b = t.getBBox(); return b.x < -1 || b.x + b.width > s.viewBox.baseVal.width + 1; })
        .map(t => t.textContent)""")


def shoot(lab: Lab, name: str, block: int, path) -> None:
    """A screenshot of the chart's current drawing (scrolled into view) for people to look at (LAB_SCREENSHOTS=1)."""
    root = lab.page.locator(f'[data-block="{block}"] [data-chart="{name}"]:not([data-stale])')
    root.scroll_into_view_if_needed()
    screenshot(root, path)
