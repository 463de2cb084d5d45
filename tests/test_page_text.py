"""Every number the page's own text quotes is one the default run prints, as the exercise answers are checked.

The page's text is index.html rendered by build.py (the mapping rows and the guide's block → code list
filled from py/inference_lab/words/blocks.py), read from its three text sections: the introduction
(#gioi-thieu: intro, "Bài lab gồm", "Làm xong, bạn có thể", "Phạm vi", "Cách dùng bài lab"), the
mapping table (#mapping) and the guide (#guide). The default run is `run({})`, whose text is
byte for byte ../shared/golden/default.txt (`python -m inference_lab`; tests/test_golden.py checks that).

A number is any run of digits with its decimal part, exponent (1e-9) or fraction (7/12), or a whole
tuple like (2, 9, 4) or [5, 4]; digits glued to letters or a hyphen (INT8, p95, block10_data, L2, top-1)
are not numbers.
Not numbers either, and removed first: block references ("khối 3", "khối 4 đến 7", "[3 · Iteration
scheduler]"), exercise labels ("bài 15", "bài tập 5", "exercise 15": which exercise to do, not a number the
engine prints), the mapping table's block-number column and the guide's list markers "(1)".."(9)".
Single digits are checked too, but nearly any output prints them, so they prove little; decimals,
fractions, tuples and integers ≥ 10 are the strong part of this test.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from inference_lab import run
from lab_site import GOLDEN, ROOT, sitebuild
from helpers import printed

SECTIONS = ("gioi-thieu", "mapping", "guide")

# Numbers the page may quote although the default run does not print them: {number: reason}. Empty today:
# the page's other non-output numbers are removed above as block references and list markers, and "Tab 01",
# "13 khối" and the diagram cell "L2·1" happen to be printed too (the header names "sơ đồ Tab 01").
# An entry the output does print fails test_allow_list_is_needed, so the list cannot go stale.
NOT_OUTPUT: dict[str, str] = {}

BLOCK_REF = re.compile(r"\[\d+\s*·[^\]]*\]|\b[Kk]hối\s+\d+(?:\s*(?:đến|và|,)\s*\d+)*")
EXERCISE_REF = re.compile(r"\b(?:[Bb]ài(?:\s+tập)?|[Ee]xercises?)\s+\d+\b(?:\s*→\s*\d+\b)*")  # a track: bài 2 → 14 → 1
LIST_MARKER = re.compile(r"\((\d)\)")
NUMBER = re.compile(r"\(\d+(?:, \d+)+\)|\[\d+(?:, \d+)+\]|(?<![\w./-])\d+(?:\.\d+)?(?:e-?\d+)?(?:/\d+(?:\.\d+)?)*")


class SectionText(HTMLParser):
    """Text of the <section id=...> elements named in `ids`, without <td class="num"> cells, in `lang`: text
    written in both languages ([data-lang="vi"] / [data-lang="en"] siblings) counts only in its own language,
    and an element with data-en="…" reads as that text in English."""

    def __init__(self, ids, lang="vi"):
        super().__init__(convert_charrefs=True)
        self.ids, self.texts, self.lang = set(ids), {}, lang
        self.stack = []            # (tag, section id or None, skipped)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        section = attrs.get("id") if tag == "section" and attrs.get("id") in self.ids else None
        other = attrs.get("data-lang") not in (None, self.lang)
        swapped = self.lang == "en" and "data-en" in attrs
        skipped = (tag == "td" and "num" in (attrs.get("class") or "").split()) or other or swapped
        if swapped and not other:
            self.handle_data_now(attrs["data-en"])
        if tag not in ("br", "meta", "link", "input", "img", "hr", "source"):
            self.stack.append((tag, section, skipped))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data_now(self, data):
        if any(skipped for _, _, skipped in self.stack):
            return
        sections = [s for _, s, _ in self.stack if s]
        if sections:
            self.texts[sections[0]] = self.texts.get(sections[0], "") + " " + data + " "

    def handle_data(self, data):
        if any(skipped for _, _, skipped in self.stack):
            return
        sections = [s for _, s, _ in self.stack if s]
        if sections:
            self.texts[sections[0]] = self.texts.get(sections[0], "") + data


def page_texts(lang: str = "vi") -> dict[str, str]:
    parser = SectionText(SECTIONS, lang)
    parser.feed(sitebuild.render_blocks((ROOT / "index.html").read_text(encoding="utf-8")))
    return {name: re.sub(r"\s+", " ", text) for name, text in parser.texts.items()}


def quoted_numbers(text: str) -> list[str]:
    """
    >>> quoted_numbers("khối 4 đến 7: shape (2, 9, 4), [5, 4], 7/12, 1e-9, (3) 22.00 ms, INT8, p95, top-1, [6 · KV]")
    ['(2, 9, 4)', '[5, 4]', '7/12', '1e-9', '22.00']
    >>> quoted_numbers("làm bài 15, bài tập 5; do exercise 16 and Exercises 17: 18 ms")
    ['18']
    >>> quoted_numbers("lập lịch: bài 2 → 14 → 1; exercises 10 → 11, 7 ms")
    ['7']
    """
    return NUMBER.findall(LIST_MARKER.sub(" ", EXERCISE_REF.sub(" ", BLOCK_REF.sub(" ", text))))


TEXTS = page_texts()
OUTPUT = run({}).to_text()
TEXTS_EN = page_texts("en")
OUTPUT_EN = run({}, lang="en").to_text()
EN_BLOCK_REF = re.compile(r"\[\d+\s*·[^\]]*\]|\b[Bb]locks?\s+\d+(?:\s*(?:to|and|,)\s*\d+)*")


def test_default_run_is_the_golden():
    assert OUTPUT == GOLDEN.read_text(encoding="utf-8")


def test_every_section_was_read():
    assert set(TEXTS) == set(SECTIONS)
    assert "Làm xong, bạn có thể" in TEXTS["gioi-thieu"] and "Cách dùng bài lab" in TEXTS["gioi-thieu"]
    assert "Lớp BlockManager" in TEXTS["mapping"] and "engine.Engine.admit" in TEXTS["guide"]


@pytest.mark.parametrize("section", SECTIONS)
def test_numbers_on_the_page_are_printed_by_the_default_run(section):
    numbers = quoted_numbers(TEXTS[section])
    assert numbers, f"#{section} quotes no number"
    unprinted = sorted({n for n in numbers if not printed(n, OUTPUT)} - set(NOT_OUTPUT))
    assert not unprinted, f"#{section} quotes numbers the default run does not print: {unprinted}"


@pytest.mark.parametrize("section", SECTIONS)
def test_english_page_quotes_the_same_numbers(section):
    """The English page's text quotes numbers the English default run prints, and the same ones as the Vietnamese."""
    text = EN_BLOCK_REF.sub(" ", TEXTS_EN[section])
    numbers = quoted_numbers(text)
    unprinted = sorted({n for n in numbers if not printed(n, OUTPUT_EN)} - set(NOT_OUTPUT))
    assert not unprinted, f"#{section} (English) quotes numbers the default run does not print: {unprinted}"
    assert sorted(set(numbers)) == sorted(set(quoted_numbers(TEXTS[section]))), (f"#{section}: other numbers than the "
                                                                                 "Vietnamese")
    assert not re.search(r"[\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u024F\u1E00-\u1EFF]",
                         TEXTS_EN[section]), f"#{section}: Vietnamese left"


def test_allow_list_is_needed():
    assert not [n for n in NOT_OUTPUT if printed(n, OUTPUT)], "allow-listed numbers the run prints: remove them"


def test_number_extraction_is_strict():
    # a decimal that differs from the output in its last digit is caught
    assert not printed("22.0", OUTPUT) and not printed("14.56", OUTPUT)
    assert quoted_numbers("C chờ 14.56 ms") == ["14.56"]
