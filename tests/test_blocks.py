"""py/inference_lab/words/blocks.py is the one source of the 13 blocks' names, mapping-table text and block → code map.

- every `source` reference resolves to a function or class of the package, with source code to show;
- the engine prints the table's codes ("[1 · Gateway & admission] ...");
- build.py renders the page's mapping rows, panel titles and guide list from it, HTML-escaped, with the
  data-block hooks the page's scripts use;
- README.md's "Khối → mô-đun" table and the package docstring equal what `python3 build.py docs` writes.
"""
from __future__ import annotations

import html
import inspect
import re
from types import SimpleNamespace

import pytest

import inference_lab
from inference_lab.layout import dotted
from inference_lab import run
from inference_lab.words import blocks, text_vi
from lab_site import ROOT, sitebuild

REFS = [(b.number, ref) for b in blocks.BLOCKS for ref in b.source]


def test_table_has_the_thirteen_blocks_in_order():
    assert [b.number for b in blocks.BLOCKS] == list(range(1, 14))
    assert blocks.BY_NUMBER[6].code == "6 · KV state manager"


@pytest.mark.parametrize("number, ref", REFS, ids=[f"{n}-{r}" for n, r in REFS])
def test_source_reference_resolves(number, ref):
    obj = ref.resolve()
    kind = type(obj).__name__
    assert inspect.isfunction(obj) or inspect.ismethod(obj) or inspect.isclass(obj), (f"block {number}: {ref} is a "
                                                                                      f"{kind}")
    assert (obj.__module__, obj.__qualname__) == (dotted(ref.module), ref.qualname)
    assert re.match(r"\s*(@\w+.*\n\s*)*(def|class) ", inspect.getsource(obj)), f"{ref}: no source to show"


def test_engine_prints_the_tables_codes():
    report = run({})
    assert text_vi.BLOCK_CODES == {b.number: b.code for b in blocks.BLOCKS}
    assert [(b.number, b.code) for b in report.blocks] == [(b.number, b.code) for b in blocks.BLOCKS]
    printed = [line.split("]")[0][1:] for line in report.to_text().splitlines() if re.match(r"\[\d+ · ", line)]
    assert printed == [b.code for b in blocks.BLOCKS]


# ── the page ───────────────────────────────────────────────────────────────
PAGE = sitebuild.render_blocks((ROOT / "index.html").read_text(encoding="utf-8"))


def cell(label: str, number: int, lang: str = "vi") -> str:
    """The text of a mapping row's cell (`label` is its Vietnamese data-label) for block `number`, in `lang`
    (a cell written in both languages holds <span data-lang="vi">…</span><span data-lang="en" …>…</span>)."""
    row = re.search(rf'<td data-label="Khối"[^>]*class="num">{number}</td>(.*?)</tr>', PAGE, re.S).group(1)
    inner = re.search(rf'data-label="{re.escape(label)}"[^>]*>(.*?)</t[dh]>', row, re.S).group(1)
    part = re.search(rf'<span data-lang="{lang}"[^>]*>(.*?)</span>', inner, re.S)
    return html.unescape(part.group(1) if part else inner)


def test_page_template_is_filled():
    assert "@blocks:" not in PAGE
    assert PAGE.count("<tbody>") == 13


@pytest.mark.parametrize("b", blocks.BLOCKS, ids=lambda b: str(b.number))
def test_page_row_and_panel_come_from_the_table(b):
    assert cell("Thành phần", b.number) == b.name
    assert cell("Lab dựng gì", b.number) == b.builds and cell("Lab dựng gì", b.number, "en") == b.en[0]
    assert cell("Cách đọc &amp; kiểm chứng", b.number) == b.reads
    assert cell("Cách đọc &amp; kiểm chứng", b.number, "en") == b.en[1]
    panel = re.search(rf'<details class="panel" data-block="{b.number}" id="khoi-{b.number}"><summary><span '
                      r'class="panel-title"[^>]*>(.*?)</span>',
                      PAGE).group(1)
    assert html.unescape(panel) == f"Output khối {b.code}"
    item = re.search(rf'<li><span data-lang="vi">Khối {b.number} (.*?)</li>', PAGE).group(1)
    text = html.unescape(re.sub(r'<span data-lang="en".*?</span>', "", item))
    text = re.sub(r"<[^>]+>", "", text)
    assert text.startswith(b.name) and b.seed in text
    assert all(ref.qualname.rpartition(".")[2] in text for ref in b.source) and str(b.source[0]) in text


def test_english_row_numbers_match_the_vietnamese():
    """The English mapping text quotes the same numbers as the Vietnamese (the default run's)."""
    number = re.compile(r"\d+(?:\.\d+)?")
    for b in blocks.BLOCKS:
        for vi, en in ((b.builds, b.en[0]), (b.reads, b.en[1])):
            assert sorted(number.findall(vi)) == sorted(number.findall(en)), (b.number, vi, en)


def test_block_six_names_both_classes():
    assert "BlockManager" in blocks.BY_NUMBER[6].builds and "KVPool" in blocks.BY_NUMBER[6].builds
    assert str(blocks.BY_NUMBER[6].source[0]) == "block_manager.BlockManager"


def test_inserted_text_is_escaped():
    bad = SimpleNamespace(number=1, name="<b>&", builds="a < b", reads="x > y", seed="<i>",
                          source=(blocks.SourceRef("engine", "Engine.admit"),), code="1 · <b>&",
                          en=("<xmp>", "<blink>", "<marquee>"))
    point = blocks.LearningPoint(1, "<u>tokens</u>", (1,), (("timeline", 1),), (1,), text_en="<tt>")
    table = SimpleNamespace(BLOCKS=[bad], BY_NUMBER={1: bad}, source_text=blocks.source_text, chart_blocks=lambda: [1],
                            LEARNING_INTRO="<p>", LEARNING_POINTS=[point], CHART_LABELS={"timeline": "<s>"},
                            LEARNING_INTRO_EN="<big>", CHART_LABELS_EN={"timeline": "<strike>"})
    page = sitebuild.render_blocks((ROOT / "index.html").read_text(encoding="utf-8"), table)
    assert "<b>" not in page and "<i>" not in page and "<u>" not in page and "<s>" not in page
    assert not any(tag in page for tag in ("<xmp>", "<blink>", "<marquee>", "<tt>", "<big>", "<strike>"))
    assert "&lt;b&gt;&amp;" in page and "a &lt; b" in page and "x &gt; y" in page
    assert "&lt;u&gt;tokens&lt;/u&gt;" in page and "&lt;s&gt; (khối 1)" in page


def test_missing_placeholder_is_a_build_error():
    with pytest.raises(sitebuild.BuildError, match="@blocks:NAME"):
        sitebuild.render_blocks("<table></table>\n")


# ── README.md and the package docstring ────────────────────────────────────
def test_docs_match_the_table():
    for path, text in sitebuild.synced_docs().items():
        assert path.read_text(encoding="utf-8") == text, (f"{path.name} drifted from blocks.py: run python3 build.py "
                                                          "docs")
    assert "\n".join(blocks.code_map_lines()) in inference_lab.__doc__
    assert "\n".join(blocks.readme_code_map()) in (ROOT / "README.md").read_text(encoding="utf-8")
