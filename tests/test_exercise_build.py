"""The build's exercises.json (sitebuild/content.py): every exercises/NN-slug.md, its sections rendered by
markdown-it-py with raw HTML off (no browser, no Pyodide: a --pyodide cdn build vendors nothing)."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from lab_site import ROOT, sitebuild

pytest.importorskip("markdown_it")

EXERCISE = """+++
title = "<b>T</b>"
constants = {{ SLOTS = 3 }}
expect = ["x"]
+++

## Câu hỏi

{question}

## Dự đoán

Xem [1 · Gateway & admission].

## Đáp án

| Mã | Nghĩa |
|:---|---:|
| 429 | đầy |
"""


def write_exercise(folder, question: str, name: str = "07-thu.md"):
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(EXERCISE.format(question=question), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def cdn_site(tmp_path_factory):
    return sitebuild.build(tmp_path_factory.mktemp("ex-build") / "dist", "cdn")


def test_exercises_json_has_every_exercise_with_html_sections(cdn_site):
    data = json.loads((cdn_site / "exercises.json").read_text(encoding="utf-8"))
    files = sorted(p.name for p in (ROOT / "exercises").glob("[0-9][0-9]-*.md"))
    assert sorted(f"{e['number']:02d}-{e['slug']}.md" for e in data) == files
    assert len(data) >= 6
    # in track order (entrypoints/exercises.py TRACKS): the model track, then the serving track
    assert [e["number"] for e in data] == [10, 11, 12, 16, 6, 32, 2, 14, 1, 3, 15, 4, 13, 5, 17, 18, 19, 20, 21, 22,
                                           23, 24, 25, 26, 30, 31, 40, 41, 42, 43, 44, 45, 46]
    assert [(e["track"]["id"], e["track"]["place"]) for e in data[5:7]] == [("model", 6), ("serving", 1)]
    for item in data:
        assert set(item) == {"number", "slug", "title", "title_en", "constants", "expect", "sections", "patch", "track",
                             "sweep", "search"}
        assert item["track"]["title"] and item["track"]["title_en"]
        assert (item["constants"] or item["patch"]) and item["expect"] and item["title"] and item["title_en"]
        assert set(item["sections"]) == {"Câu hỏi", "Dự đoán", "Đáp án", "Question", "Prediction", "Answer"}
        for name, html in item["sections"].items():
            assert html.startswith("<") and "<p>" in html
            # every header cell says what its row or column is (axe-core: empty-table-header)
            assert not re.search(r"<th\b[^>]*>\s*</th>", html), f"{item['slug']}, {name}: a table header cell is empty"
    greedy = next(e for e in data if e["patch"].keys() == {"sampler.sample"})   # the editor's source, as written
    assert greedy["patch"]["sampler.sample"].startswith("def sample(logits, params, rng, vocab):\n")
    queue = next(e for e in data if e["number"] == 2)
    assert queue["constants"] == {"QUEUE_LIMIT": 0}
    assert "<table>" in queue["sections"]["Đáp án"]          # tables are on
    assert "<code>QUEUE_LIMIT = 0</code>" in queue["sections"]["Câu hỏi"]


def test_exercises_json_is_in_the_manifest(cdn_site):
    manifest = json.loads((cdn_site / sitebuild.MANIFEST).read_text(encoding="utf-8"))
    assert sitebuild.EXERCISES_JSON in manifest["files"]


def test_raw_html_in_markdown_comes_out_escaped(tmp_path):
    folder = write_exercise(tmp_path / "ex", 'Hỏi <script>alert("x")</script> và <img src=x onerror=alert(1)>\n\n'
                                             '<div onclick="x()">khối</div>\n\n[liên kết](javascript:alert(1))')
    [item] = sitebuild.render_exercises(folder)
    question = item["sections"]["Câu hỏi"]
    assert "<script" not in question and "<img" not in question and "<div" not in question
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in question
    assert "&lt;div onclick" in question
    assert 'href="javascript' not in question
    assert item["title"] == "<b>T</b>"  # plain text in the JSON; the page inserts it as text


def test_table_alignment_becomes_a_class_not_a_style(tmp_path):
    [item] = sitebuild.render_exercises(write_exercise(tmp_path / "ex", "Q"))
    answer = item["sections"]["Đáp án"]
    assert 'class="align-left"' in answer and 'class="align-right"' in answer
    assert "style=" not in answer  # the page's CSP forbids inline styles


@pytest.mark.parametrize("text", ["+++\ntitle = 'T'\n+++\n", "+++\ntitle = \n+++\n", "no front matter"])
def test_a_broken_exercise_stops_the_build_with_its_name(tmp_path, text):
    folder = tmp_path / "ex"
    folder.mkdir()
    (folder / "08-hong.md").write_text(text, encoding="utf-8")
    with pytest.raises(sitebuild.BuildError, match="08-hong.md"):
        sitebuild.render_exercises(folder)


def test_missing_markdown_it_stops_the_build_and_says_what_to_install(tmp_path, monkeypatch):
    out = tmp_path / "dist"
    out.mkdir()
    (out / sitebuild.MANIFEST).write_text("{}")           # an earlier build
    monkeypatch.setitem(sys.modules, "markdown_it", None)  # import markdown_it now fails
    with pytest.raises(sitebuild.BuildError, match=r"python3 -m pip install -r requirements\.txt"):
        sitebuild.build(out, "cdn")
    assert (out / sitebuild.MANIFEST).is_file(), "the earlier build is kept"
    # the command (build.py) says so in one line, without a traceback, and exits with 1
    code = ("import runpy, sys; sys.modules['markdown_it'] = None; build_py = sys.argv[1]; "
            "sys.argv = [build_py, '--pyodide', 'cdn', '--out', sys.argv[2]]; runpy.run_path(build_py, "
            "run_name='__main__')")
    result = subprocess.run([sys.executable, "-c", code, str(ROOT / "build.py"), str(out)], capture_output=True,
                            text=True)
    assert result.returncode == 1 and result.stderr.startswith("build.py: error:"), result.stderr
    assert "requirements.txt" in result.stderr and "Traceback" not in result.stderr
