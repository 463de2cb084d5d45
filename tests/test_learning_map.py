"""The guide's map of the nine learning points (py/inference_lab/words/blocks.py LEARNING_POINTS, rendered by build.py):
the seed's nine points in its words and order, each linking to a panel, a picture and an exercise that exist.

Panels (#khoi-N) and picture boxes (#hinh-khoi-N) are in the built page itself; exercise cards (#bai-tap-NN)
are made by static/tools/exercises.js from exercises.json, so their targets are checked against the exercise files
and the card id exercises.js gives. tests/test_browser_learning_charts.py follows the links in Chromium.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from types import SimpleNamespace

import pytest

from inference_lab.words import blocks
from inference_lab.entrypoints.exercises import load_all
from lab_site import ROOT, SHARED, sitebuild

PAGE = sitebuild.render_blocks((ROOT / "index.html").read_text(encoding="utf-8"))
SEED = SHARED / "seeds" / "000_566534ff014c7e96.txt"


class Links(HTMLParser):
    """Every id in the page, and the learning map's links as (point, kind, target, chart name)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.links, self.point = set(), [], None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if "data-learning-point" in a:
            self.point = int(a["data-learning-point"])
        if tag == "a" and "data-learning-link" in a:
            self.links.append((self.point, a["data-learning-link"], a["href"].lstrip("#"), a.get("data-chart-name")))


@pytest.fixture(scope="module")
def page() -> Links:
    parser = Links()
    parser.feed(PAGE)
    return parser


def registry() -> set[tuple[str, int]]:
    """(chart name, block) pairs of static/charts/index.js CHARTS."""
    js = (ROOT / "static" / "charts" / "index.js").read_text(encoding="utf-8")
    modules = dict(re.findall(r"import \* as (\w+) from '\./([\w-]+)\.js';", js))
    body = re.search(r"export const CHARTS = \{(.*?)\n\};", js, re.S).group(1)
    return {(modules[m], int(n)) for n, ms in re.findall(r"(\d+): \[([\w, ]+)\]", body) for m in re.findall(r"\w+", ms)}


def test_the_seeds_nine_points_in_its_words():
    assert [p.number for p in blocks.LEARNING_POINTS] == list(range(1, 10))
    if not SEED.exists():
        pytest.skip(f"no seed page at {SEED}")
    seed = re.sub(r"\s+", " ", SEED.read_text(encoding="utf-8"))
    para = seed[seed.index(blocks.LEARNING_INTRO):]
    for p in blocks.LEARNING_POINTS:
        assert f"({p.number}) {p.text}" in para, f"point {p.number} is not the seed's wording"


def test_every_point_links_a_panel_a_picture_and_an_exercise(page):
    kinds = {n: {k for p, k, _, _ in page.links if p == n} for n in range(1, 10)}
    assert all(kinds[n] == {"panel", "chart", "exercise"} for n in kinds), kinds
    assert [f"hoc-{n}" in page.ids for n in range(1, 10)] == [True] * 9


def test_panel_and_picture_targets_exist_in_the_built_page(page):
    for point, kind, target, name in page.links:
        if kind in ("panel", "chart"):
            assert target in page.ids, f"point {point}: #{target} is not in the page"
    assert re.search(r'<details class="panel" data-block="2" id="khoi-2"><summary>.*?</summary>'
                     r'<div class="charts" id="hinh-khoi-2" hidden></div><pre', PAGE)


def test_pictures_are_drawn_in_the_panel_they_link_to(page):
    drawn = registry()
    linked = {(name, int(target.rsplit("-", 1)[1])) for _, kind, target, name in page.links if kind == "chart"}
    assert linked <= drawn, f"linked pictures no chart module draws there: {linked - drawn}"
    assert linked == drawn, f"pictures no learning point links to: {drawn - linked}"
    assert ("tokens", 2) in linked and ("quantization", 9) in linked and ("quantization",
                                                                          13) in linked and ("memory", 10) in linked


def test_exercise_targets_are_cards_exercises_js_makes(page):
    numbers = {e.number for e in load_all(ROOT / "exercises")}
    js = (ROOT / "static" / "tools" / "exercises.js").read_text(encoding="utf-8")
    assert "const id = 'bai-tap-' + pad(ex.number);" in js and "padStart(2, '0')" in js
    for point, kind, target, _ in page.links:
        if kind == "exercise":
            assert re.fullmatch(r"bai-tap-\d{2}", target) and int(target[-2:]) in numbers, f"point {point}: #{target}"


def test_every_exercise_is_linked_from_the_point_it_teaches(page):
    numbers = {e.number for e in load_all(ROOT / "exercises")}
    linked = [int(t[-2:]) for _, k, t, _ in page.links if k == "exercise"]
    assert set(linked) == numbers, f"exercises no learning point links to: {sorted(numbers - set(linked))}"
    point_of = {int(t[-2:]): p for p, k, t, _ in page.links if k == "exercise" and int(t[-2:]) >= 14}
    # step by step, prefill first, greedy, prefix cache, cancel, roofline x3, chunk size, TP, W8A8, MHA/GQA/KV8,
    # long context
    assert point_of == {14: 3, 15: 4, 16: 7, 17: 6, 18: 3, 19: 4, 20: 4, 21: 9, 22: 8, 23: 8, 24: 9,
                        25: 9, 26: 4,
                        30: 4, 31: 4, 32: 7,                                               # speculative decoding x3
                        40: 3, 41: 8, 42: 8,                                               # the cluster x3
                        43: 8, 44: 8,                                                      # cost, energy
                        45: 8, 46: 8}                                                      # knee, search


def test_unknown_exercise_is_a_build_error():
    bad = blocks.LearningPoint(1, "x", (1,), (("timeline", 3),), (99,))
    table = SimpleNamespace(**{**vars(blocks), "LEARNING_POINTS": (bad,)})
    with pytest.raises(sitebuild.BuildError, match=r"\[99\]"):
        sitebuild.learning_map(table)


def test_the_two_tracks_link_every_exercise_in_order():
    """The guide lists the exercises' two tracks (entrypoints/exercises.py TRACKS) in their order, both languages."""
    from inference_lab.entrypoints.exercises import TRACKS
    numbers = {e.number for e in load_all()}
    for t in TRACKS:
        hrefs = re.findall(rf'<a href="#bai-tap-(\d\d)" data-track-link="{t.id}">', PAGE)
        assert [int(h) for h in hrefs] == list(t.numbers) * 2        # once per language
        assert set(t.numbers) <= numbers
    assert sorted(n for t in TRACKS for n in t.numbers) == sorted(numbers), "every exercise is in exactly one track"
    assert [t.numbers for t in TRACKS] == [(10, 11, 12, 16, 6, 32),
                                           (2, 14, 1, 3, 15, 4, 13, 5, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26,
                                            30, 31, 40, 41, 42, 43, 44, 45, 46)]
