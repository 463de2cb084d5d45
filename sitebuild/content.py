"""The page's content, rendered at build time: the exercises, the blocks' text and the code views.

- dist/exercises.json: the exercises/NN-slug.md files (parsed by the engine's entrypoints/exercises.py), their
  sections rendered to HTML with markdown-it-py ("commonmark", raw HTML off, tables on), so the
  page never parses Markdown.
- index.html is a template: each line "<!-- @blocks:NAME ... -->" becomes the HTML of NAME, from
  the engine's words/blocks.py (the mapping table's rows and the block panels under them, the guide's
  block → code list and its learning map). `python3 build.py docs` writes the same block → code
  map into README.md and the package docstring (write_docs).
- dist/code.json: for each of the 13 blocks, the exact source of the engine functions and classes
  blocks.py names for it (cut from the package's files with `ast`, the lines inspect.getsource
  gives; file name and line numbers), highlighted by Pygments into runs of [CSS class, text] that
  the page puts in with textContent (static/tools/code.css colours the classes).
The engine modules are loaded on their own (standard library only): the build needs no NumPy.
Left out: the CSP, minifying and the static files (page.py); installing markdown-it-py and Pygments
(`python3 -m pip install -r requirements.txt`; a missing one stops the build before dist/ changes).
"""
from __future__ import annotations

import ast
import functools
import html
import importlib.util
import json
import re
import sys
from pathlib import Path

from .common import ROOT, BuildError

# ── the exercises: Markdown rendered to HTML here, so the page never parses it ─
EXERCISES_DIR = ROOT / "exercises"
EXERCISES_JSON = "exercises.json"
ENGINE_PACKAGE = ROOT / "py" / "inference_lab"
NEED_MARKDOWN = ("markdown-it-py is not installed. Install what the build needs: python3 -m pip install -r "
                 "requirements.txt")


def engine_file(stem: str) -> Path:
    """py/inference_lab/<sub-package>/<stem>.py: where the package's layout.py says the module lives."""
    if stem == "layout":
        return ENGINE_PACKAGE / "layout.py"
    return ROOT / "py" / engine_module("layout").path(stem)


def engine_module(stem: str):
    """py/inference_lab/…/<stem>.py loaded on its own (standard library only; the build needs no NumPy)."""
    name = f"_inference_lab_{stem}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, engine_file(stem))
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up here
        spec.loader.exec_module(module)
    return sys.modules[name]


def exercise_parser():
    return engine_module("exercises")


def markdown_renderer():
    """CommonMark with raw HTML off (anything like <script> comes out as text), tables on.

    Images are off too: the page's CSP admits no other host and the build copies no image files.
    """
    try:
        from markdown_it import MarkdownIt
    except ModuleNotFoundError as exc:
        raise BuildError(NEED_MARKDOWN) from exc
    return MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")


def render_markdown(md, text: str) -> str:
    """HTML of `text`; a table column's alignment becomes class="align-…" (the CSP forbids style="")."""
    tokens = md.parse(text)
    for token in tokens:
        style = token.attrGet("style") if token.type in ("th_open", "td_open") else None
        if style:
            del token.attrs["style"]
            token.attrSet("class", "align-" + style.rsplit(":", 1)[-1].strip())
    return md.renderer.render(tokens, md.options, {})


@functools.lru_cache(maxsize=1024)
def section_html(text: str) -> str:
    """render_markdown with the build's one renderer, kept per text: a process that builds several sites (the
    tests, a rebuild) renders each exercise section once."""
    return render_markdown(shared_renderer(), text)


@functools.lru_cache(maxsize=1)
def shared_renderer():
    """markdown_renderer(), made once for section_html (render_exercises still asks markdown_renderer() itself:
    a missing markdown-it-py stops every build)."""
    return markdown_renderer()


def render_exercises(directory: Path = EXERCISES_DIR) -> list[dict]:
    """[{number, slug, title, title_en, constants, expect, sections: {name: html}}] for every NN-slug.md
    (sections: "Câu hỏi", "Dự đoán", "Đáp án" and, when the file has them, "Question", "Prediction", "Answer")."""
    markdown_renderer()  # a missing markdown-it-py stops the build here, whatever section_html has kept
    parser = exercise_parser()
    try:
        exercises = parser.load_all(directory)
    except (ValueError, OSError) as exc:
        raise BuildError(f"Cannot read the exercises in {directory}: {exc}") from exc
    rendered = []
    for ex in exercises:
        item = ex.to_dict()
        item["sections"] = {name: section_html(ex.sections[name]) for name in parser.SECTIONS}
        # the English edition's sections under their English names (the page falls back to Vietnamese)
        item["sections"].update({name: section_html(ex.sections[name]) for name in parser.SECTIONS_EN
                                 if name in ex.sections})
        rendered.append(item)
    return rendered


def write_exercises(dist: Path, exercises: list[dict]) -> None:
    data = json.dumps(exercises, separators=(",", ":"), ensure_ascii=False) + "\n"
    (dist / EXERCISES_JSON).write_text(data, encoding="utf-8")


# ── the blocks' text: py/inference_lab/words/blocks.py rendered into the page and the docs ─
# index.html is a template: the build replaces each line "<!-- @blocks:NAME ... -->" with the HTML of NAME
# (one <tbody> per block with its output panel; the guide's block → code list). Nothing serves the
# template unbuilt: the page needs build-info.json and the engine wheel, which only dist/ has.
BLOCKS_PLACEHOLDER = re.compile(r"^([ \t]*)<!-- @blocks:([\w-]+)\b[^\n]*?-->\n", re.M)
README_BEGIN = ("<!-- @blocks:code-map: `python3 build.py docs` writes this table from "
                "py/inference_lab/words/blocks.py -->")
README_END = "<!-- /@blocks:code-map -->"
DOCSTRING_MAP = re.compile(r"(^Block → module map[^\n]*(?:\n[^\n]+)*\n\n)((?:  \[\d+\][^\n]*\n)+)", re.M)


def blocks_table():
    """py/inference_lab/words/blocks.py: the 13 blocks' codes, mapping-table text and block → code map."""
    return engine_module("blocks")


def text_html(text: str) -> str:
    return html.escape(text, quote=False)


def both(vi: str, en: str) -> str:
    """Text in both languages (already HTML): the page shows the reader's (static/words/i18n.js, style.css)."""
    return f'<span data-lang="vi">{vi}</span><span data-lang="en" lang="en">{en}</span>'


def mapping_rows(table) -> list[str]:
    """One <tbody> per block: its mapping row, then the panel its output goes to (data-block="N", id khoi-N),
    with an empty box (id hinh-khoi-N) where static/charts/ draws the block's pictures after a run.
    The row's text comes in both languages (blocks.py `en`); labels carry their English in data-en*."""
    out, charts = [], set(table.chart_blocks())
    for b in table.BLOCKS:
        builds, reads, _ = b.en
        out += [
            "<tbody>",
            "  <tr>",
            f'    <td data-label="Khối" data-en-data-label="Block" class="num">{b.number}</td>',
            f'    <th scope="row" data-label="Thành phần" data-en-data-label="Component">{text_html(b.name)}</th>',
            '    <td data-label="Lab dựng gì" data-en-data-label="What the lab '
            f'builds">{both(text_html(b.builds), text_html(builds))}</td>',
            '    <td data-label="Cách đọc &amp; kiểm chứng" data-en-data-label="How to read &amp; '
            f'check">{both(text_html(b.reads), text_html(reads))}</td>',
            "  </tr>",
            f'  <tr class="panel-row"><td colspan="4"><details class="panel" data-block="{b.number}" '
            f'id="khoi-{b.number}">'
            f'<summary><span class="panel-title" data-en="Output of block {text_html(b.code)}">Output khối '
            f'{text_html(b.code)}</span></summary>'
            + (f'<div class="charts" id="hinh-khoi-{b.number}" hidden></div>' if b.number in charts else '')
            + '<pre class="lines"><span class="line placeholder" data-en="Not run yet. Press Run to see it.">Chưa '
              'chạy. Bấm Chạy để xem.</span></pre></details></td></tr>',
            "</tbody>",
        ]
    return out


def code_map_items(table) -> list[str]:
    """The guide's list: where each block is in the seed program and in this package."""
    def code(name):
        return f"<code>{text_html(name)}</code>"
    def head(b):
        return both(f"Khối {b.number} {text_html(b.name)} — chương trình gốc: {text_html(b.seed)}; engine: ",
                    f"Block {b.number} {text_html(b.name)} — seed program: {text_html(b.en[2])}; engine: ")
    items = [f"<li>{head(b)}{table.source_text(b, code)}.</li>" for b in table.BLOCKS]
    return ['<ul class="code-map">', *("  " + item for item in items), "</ul>"]


def exercise_numbers(directory: Path = EXERCISES_DIR) -> set[int]:
    return {int(p.name[:2]) for p in directory.glob("*.md") if exercise_parser().FILENAME.match(p.name)}


def learning_map(table) -> list[str]:
    """The guide's nine learning points, each linking to its panel(s), picture(s) and exercise(s)."""
    known = exercise_numbers()
    missing = sorted({n for p in table.LEARNING_POINTS for n in p.exercises} - known)
    if missing:
        raise BuildError("py/inference_lab/words/blocks.py LEARNING_POINTS names exercises that exercises/ lacks: "
                         f"{missing}")

    def link(href, kind, label, **data):
        extra = "".join(f' data-{k.replace("_", "-")}="{html.escape(str(v))}"' for k, v in data.items())
        return f'<a href="#{href}" data-learning-link="{kind}"{extra}>{text_html(label)}</a>'

    items = []
    for p in table.LEARNING_POINTS:
        def links(lang):
            en = lang == "en"
            labels = table.CHART_LABELS_EN if en else table.CHART_LABELS
            block, pic = ("block", "block") if en else ("khối", "khối")
            panels = ", ".join(link(f"khoi-{n}", "panel", f"{block} {table.BY_NUMBER[n].code}") for n in p.blocks)
            charts = ", ".join(link(f"hinh-khoi-{n}", "chart", f"{labels[name]} ({pic} {n})", chart_name=name)
                               for name, n in p.charts)
            exercises = ", ".join(link(f"bai-tap-{n:02d}", "exercise", f"{'exercise' if en else 'bài'} {n}")
                                  for n in p.exercises)
            return (f"Read {panels}; look at {charts}; do {exercises}." if en
                    else f"Đọc {panels}; xem hình {charts}; làm {exercises}.")
        vi_text, en_text = p.text[:1].upper() + p.text[1:], p.text_en[:1].upper() + p.text_en[1:]
        items += [f'  <li id="hoc-{p.number}" data-learning-point="{p.number}">'
                  f'<span data-lang="vi">{text_html(vi_text)}.\n    <span '
                  f'class="learning-links">{links("vi")}</span></span>'
                  f'<span data-lang="en" lang="en">{text_html(en_text)}.\n    <span '
                  f'class="learning-links">{links("en")}</span></span></li>']
    return [f'<p><span data-lang="vi">{text_html(table.LEARNING_INTRO)}</span><span data-lang="en" '
            f'lang="en">{text_html(table.LEARNING_INTRO_EN)}</span></p>',
            '<ol class="learning-map">', *items, "</ol>", *track_map(known)]


def track_map(known: set[int]) -> list[str]:
    """The exercises' two tracks (entrypoints/exercises.py TRACKS), in order, each exercise a link to its card."""
    tracks = exercise_parser().TRACKS
    missing = sorted({n for t in tracks for n in t.numbers} - known)
    if missing:
        raise BuildError("py/inference_lab/entrypoints/exercises.py TRACKS names exercises that exercises/ lacks: "
                         f"{missing}")

    def line(t, en):
        links = " → ".join(f'<a href="#bai-tap-{n:02d}" data-track-link="{t.id}">{n}</a>' for n in t.numbers)
        return f"{text_html(t.title_en if en else t.title)}: {'exercises' if en else 'bài'} {links}"
    vi = "; ".join(line(t, False) for t in tracks)
    en = "; ".join(line(t, True) for t in tracks)
    return [f'<p class="learning-tracks"><span data-lang="vi">Bài tập đi theo hai lộ trình. {vi}.</span>'
            f'<span data-lang="en" lang="en">The exercises follow two tracks. {en}.</span></p>']


def render_blocks(source: str, table=None) -> str:
    """index.html with its <!-- @blocks:NAME --> lines filled from the blocks table (all text HTML-escaped)."""
    table = table or blocks_table()
    parts = {"mapping-rows": mapping_rows, "code-map": code_map_items, "learning-map": learning_map}
    found = [m.group(2) for m in BLOCKS_PLACEHOLDER.finditer(source)]
    if sorted(found) != sorted(parts):
        raise BuildError(f"index.html must contain each of the lines <!-- @blocks:NAME --> once for NAME in "
                         f"{sorted(parts)}; found {found}.")

    def fill(m):
        return "".join(f"{m.group(1)}{line}\n" for line in parts[m.group(2)](table))
    return BLOCKS_PLACEHOLDER.sub(fill, source)


def synced_docs(table=None) -> dict[Path, str]:
    """README.md and the package docstring with their block → code map written from the blocks table."""
    table = table or blocks_table()
    readme_path, init_path = ROOT / "README.md", ENGINE_PACKAGE / "__init__.py"
    readme, init = readme_path.read_text(encoding="utf-8"), init_path.read_text(encoding="utf-8")
    begin, end = readme.find(README_BEGIN), readme.find(README_END)
    if begin < 0 or end < begin:
        raise BuildError(f"README.md must contain the lines {README_BEGIN} and {README_END}.")
    body = "\n".join(table.readme_code_map())
    readme = readme[:begin + len(README_BEGIN)] + "\n" + body + "\n" + readme[end:]
    if not DOCSTRING_MAP.search(init):
        raise BuildError(f"{init_path}: its docstring must have a 'Block → module map' paragraph.")
    init = DOCSTRING_MAP.sub(lambda m: m.group(1) + "".join(line + "\n" for line in table.code_map_lines()), init,
                             count=1)
    return {readme_path: readme, init_path: init}


def write_docs() -> list[Path]:
    """Rewrite the block → code map in README.md and the package docstring; returns the files changed."""
    changed = []
    for path, text in synced_docs().items():
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            changed.append(path)
    return changed


# ── the code views: each block's engine source, highlighted here ─────────────
CODE_JSON = "code.json"
NEED_PYGMENTS = "Pygments is not installed. Install what the build needs: python3 -m pip install -r requirements.txt"


@functools.lru_cache(maxsize=64)
def module_body(text: str) -> list:
    """ast.parse(text).body, parsed once per module text (a module holds several blocks' functions)."""
    return ast.parse(text).body


def source_of(text: str, qualname: str) -> tuple[int, str]:
    """(first line, source) of a function or class in a module's text: from its first decorator to its
    last statement, the lines inspect.getsource returns."""
    body, node = module_body(text), None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            raise BuildError(f"py/inference_lab/words/blocks.py names {qualname}, which is not in its module.")
        body = node.body
    start = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return start, "".join(text.splitlines(keepends=True)[start - 1:node.end_lineno])


# Pygments token type -> the page's class (static/tools/code.css); the first match walking up the type's parents.
TOKEN_CLASSES = {"Keyword": "k", "Operator.Word": "k", "Name.Function": "f", "Name.Class": "f", "Name.Builtin": "b",
                 "Name.Decorator": "b", "Literal.String.Doc": "sd", "Literal.String": "s", "Comment": "c",
                 "Literal.Number": "m"}


def token_class(kind) -> str:
    while kind.parent is not None:
        name = str(kind).removeprefix("Token.")
        if name in TOKEN_CLASSES:
            return "tok-" + TOKEN_CLASSES[name]
        kind = kind.parent
    return ""


def highlighted_lines(source: str) -> list[list[str]]:
    """Pygments' Python tokens as one flat [class, text, class, text, …] list per line ("" = plain text).

    >>> highlighted_lines("def f(x):\\n    return x + 1  # one\\n")  # doctest: +NORMALIZE_WHITESPACE
    [['tok-k', 'def', '', ' ', 'tok-f', 'f', '', '(x):'],
     ['', '    ', 'tok-k', 'return', '', ' x + ', 'tok-m', '1', '', '  ', 'tok-c', '# one']]
    """
    try:
        from pygments.lexers import PythonLexer
    except ModuleNotFoundError as exc:
        raise BuildError(NEED_PYGMENTS) from exc
    lines: list[list[str]] = [[]]
    for kind, value in PythonLexer(stripnl=False, ensurenl=False).get_tokens(source):
        css = token_class(kind)
        for i, piece in enumerate(value.split("\n")):
            if i:
                lines.append([])
            if not piece:
                continue
            line = lines[-1]
            if line and line[-2] == css:
                line[-1] += piece
            else:
                line += [css, piece]
    if source.endswith("\n"):
        lines.pop()
    return lines


@functools.lru_cache(maxsize=256)
def highlighted(source: str) -> tuple[tuple[str, ...], ...]:
    """highlighted_lines(source), kept per source text (Pygments is most of a build's own time)."""
    return tuple(tuple(line) for line in highlighted_lines(source))


def code_views() -> dict:
    """{"blocks": {n: [ref, …]}, "editable": {n: [ref, …]}, "sources": {ref: {file, start, lines}}}."""
    table = blocks_table()
    texts: dict[str, str] = {}
    sources, blocks, editable = {}, {}, {}
    for block in table.BLOCKS:
        refs = list(dict.fromkeys(block.source + block.editable))
        blocks[block.number] = [str(ref) for ref in refs]
        editable[block.number] = [str(ref) for ref in block.editable]
        for ref in refs:
            if str(ref) in sources:
                continue
            path = engine_file(ref.module)
            if path not in texts:
                texts[path] = path.read_text(encoding="utf-8")
            start, source = source_of(texts[path], ref.qualname)
            sources[str(ref)] = dict(module=ref.module, qualname=ref.qualname,
                                     file=engine_module("layout").path(ref.module),
                                     start=start, lines=[list(line) for line in highlighted(source)])
    return dict(blocks=blocks, editable=editable, sources=sources)


def write_code_views(dist: Path, views: dict) -> None:
    data = json.dumps(views, separators=(",", ":"), ensure_ascii=False) + "\n"
    (dist / CODE_JSON).write_text(data, encoding="utf-8")

