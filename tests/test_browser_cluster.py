"""The cluster on the page (issue 24), on the shared session page: the cluster view (data-chart="cluster-view",
block 3) and the cluster chart (data-chart="cluster", block 11) draw only when REPLICAS > 1 or DISAGG = on (else a
one-line note, which the guide's map links to), draw
one lane per replica with its KV strip, the router's decisions and the KV transfers, are legible at 375 and
1440 px; the step navigator's replica selector walks one replica's steps; a big cluster run shows its progress
and Stop ends it.
"""
from __future__ import annotations

import re

import pytest

from chart_helpers import (assert_drawn, at_width, chart, labels_outside, redrawn, run_and_wait_for_charts, shoot,
                           text_sizes)
from lab_browser import ARTIFACTS, READY_MS, RUN_MS, Lab, engine_report, expect

pytestmark = pytest.mark.browser

PLACES = [("cluster-view", 3), ("cluster", 11)]
DISAGG = {"REPLICAS": 3, "DISAGG": "on", "PREFILL_REPLICAS": 1}
PREFIX = {"REPLICAS": 2, "ROUTER": "prefix_aware", "PREFIX_CACHE": "on"}


def test_one_engine_draws_no_cluster_view_only_a_note(lab: Lab):
    run_and_wait_for_charts(lab, {}, PLACES)
    for name, block in PLACES:
        root = chart(lab, name, block)
        expect(root).to_have_attribute("data-empty", "true")
        expect(root.locator("svg")).to_have_count(0)
        expect(root.locator(".chart-note")).to_contain_text("REPLICAS > 1")
    expect(lab.page.locator("[data-step-replica]")).to_be_hidden()


def test_disagg_run_draws_lanes_kv_strips_routes_and_transfers(lab: Lab):
    run_and_wait_for_charts(lab, DISAGG, PLACES)
    for name, block in PLACES:
        assert_drawn(lab, name, block)
    report = engine_report(DISAGG)
    view = chart(lab, "cluster-view", 3)
    assert view.locator("text.lane-label").count() == 3                       # one lane per replica
    assert view.locator("g.step").count() == report["steps"]["count"]
    assert view.locator(".cluster-kv rect").count() == report["steps"]["count"]   # the KV strip, a cell per step
    routes = report["cluster"]["router"]["decisions"]
    assert view.locator("g.route").count() == len(routes)
    transfers = report["cluster"]["disagg"]["transfers"]
    assert transfers and view.locator("g.transfer").count() == len(transfers)
    first = transfers[0]
    assert view.locator(f'g.transfer[data-request="{first["request"]}"]').get_attribute("data-to") == str(first["to"])
    bars = chart(lab, "cluster", 11).locator("g.bar")
    assert bars.count() == 3 and chart(lab, "cluster", 11).locator("line.slo").count() == 2   # TTFT and TPOT SLO lines


def test_clicking_a_step_in_the_cluster_view_selects_it_and_the_replica_selector_walks_one_replica(lab: Lab):
    run_and_wait_for_charts(lab, DISAGG, PLACES)
    items = engine_report(DISAGG)["steps"]["items"]
    k = next(i for i, it in enumerate(items) if it["replica"] == 1) + 1
    chart(lab, "cluster-view", 3).locator(f'g.step[data-step="{k}"]').click()
    slider = lab.page.locator("[data-step-slider]")
    expect(slider).to_have_attribute("aria-valuenow", str(k))
    select = lab.page.locator("[data-step-replica]")
    expect(select).to_be_visible()
    select.select_option("1")
    lab.page.click('[data-step-action="next"]')
    after = next(i for i, it in enumerate(items) if i + 1 > k and it["replica"] == 1) + 1
    expect(slider).to_have_attribute("aria-valuenow", str(after))
    expect(lab.page.locator("[data-step-view] .step-head")).to_contain_text(re.compile("bản sao 1"))
    select.select_option("")
    slider.press("Home")                                          # leave the shared page at step 1, the address
    expect(slider).to_have_attribute("aria-valuenow", "1")        # written (the next module starts from there)
    expect(lab.page).to_have_url(re.compile(r"[?&]step=1(&|$)"))


def test_legible_at_phone_width_and_wide(lab: Lab):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for values in (DISAGG, PREFIX):
        run_and_wait_for_charts(lab, values, PLACES)
        try:
            for width in (375, 1440):
                at_width(lab, width)
                for name, block in PLACES:
                    svg = redrawn(lab, name, block, width)
                    sizes = text_sizes(svg)
                    assert sizes and min(sizes) >= 11, f"{name}: text drawn at {min(sizes):.1f} px"
                    over = labels_outside(svg)
                    assert not over, f"{name} (block {block}): labels outside the drawing at {width} px: {over}"
                    shoot(lab, name, block, ARTIFACTS / f"chart-{name}{block}-{values['REPLICAS']}-{width}.png")
                if width == 375:
                    overflow = lab.page.evaluate("document.documentElement.scrollWidth - "
                                                 "document.documentElement.clientWidth")
                    assert overflow <= 0, "the page scrolls sideways at 375 px"
        finally:
            lab.page.set_viewport_size({"width": 1440, "height": 900})


def test_the_big_cluster_run_shows_progress_and_stops(lab: Lab):
    """The scale target's shape (1,000 requests, 8 replicas) in the page: it runs (status running, Stop shown),
    and Stop ends it without losing what was typed."""
    big = {"WORKLOAD_REQUESTS": 1000, "WORKLOAD_PROMPT": 128, "WORKLOAD_OUTPUT": 32, "WORKLOAD_RATE": 200,
           "WORKLOAD_PREFIXES": 8, "WORKLOAD_SHARED": 64, "SLOTS": 32, "QUEUE_LIMIT": 256, "BLOCK_SIZE": 16,
           "PREFIX_CACHE": "on", "MAX_CONTEXT": 256, "REPLICAS": 8, "ROUTER": "prefix_aware"}
    lab.page.click('[data-action="reset"]')
    for name, value in big.items():
        lab.set_value(name, value)
    lab.page.click('[data-action="run"]')
    expect(lab.status).to_have_attribute("data-status", "running")
    expect(lab.page.locator('[data-action="stop"]')).to_be_visible()
    lab.page.click('[data-action="stop"]')
    lab.wait_status("loading|ready|stopped|done", RUN_MS)
    lab.wait_status("ready|stopped|done", READY_MS)
    expect(lab.control("REPLICAS")).to_have_value("8")
    slider = lab.page.locator("[data-step-slider]")               # the last finished run is still shown:
    slider.press("Home")                                          # leave it at step 1 for the next module
    expect(slider).to_have_attribute("aria-valuenow", "1")
