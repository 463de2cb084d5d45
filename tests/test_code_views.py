"""dist/code.json: each block's engine source, as build.py cuts it from py/inference_lab/ and highlights it.

The shown source must be exactly the package's (what inspect.getsource gives for the installed module,
at the same line numbers): the page never shows retyped code. Every function the editor offers has a
return-value contract in patch.py.
"""
from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

import sitebuild
from lab_site import mirror_env
from inference_lab.entrypoints import patch
from inference_lab.words.blocks import BLOCKS

VIEWS = sitebuild.code_views()


def shown_source(entry: dict) -> str:
    return "".join("".join(line[1::2]) + "\n" for line in entry["lines"])


def test_every_block_has_code():
    assert sorted(map(int, VIEWS["blocks"])) == list(range(1, 14))
    for number, refs in VIEWS["blocks"].items():
        assert refs and all(ref in VIEWS["sources"] for ref in refs), number


@pytest.mark.parametrize("ref", sorted({str(r) for b in BLOCKS for r in b.source + b.editable}))
def test_shown_source_is_the_installed_packages(ref):
    entry = VIEWS["sources"][ref]
    obj = next(r for b in BLOCKS for r in b.source + b.editable if str(r) == ref).resolve()
    lines, start = inspect.getsourcelines(obj)
    assert shown_source(entry) == "".join(lines)
    assert entry["start"] == start
    assert Path(inspect.getsourcefile(obj)).as_posix().endswith(entry["file"])


def test_highlighting_uses_the_page_classes_only():
    classes = {line[i] for e in VIEWS["sources"].values() for line in e["lines"] for i in range(0, len(line), 2)}
    assert classes <= {"", *("tok-" + c for c in sitebuild.TOKEN_CLASSES.values())}
    css = (sitebuild.ROOT / "static" / "tools" / "code.css").read_text(encoding="utf-8")
    for css_class in classes - {""}:
        assert f".{css_class}" in css, f"static/tools/code.css does not colour .{css_class}"
    first = VIEWS["sources"]["scheduler.plan_tasks"]["lines"][0]
    assert first[:6] == ["tok-k", "def", "", " ", "tok-f", "plan_tasks"]


def test_editable_functions_are_shown_and_have_contracts():
    assert VIEWS["editable"] == {n: list(refs) for n, refs in patch.EDITABLE.items()} | {
        n: [] for n in VIEWS["blocks"] if n not in patch.EDITABLE}
    for number, refs in VIEWS["editable"].items():
        assert set(refs) <= set(VIEWS["blocks"][number])
        assert set(refs) <= set(patch.CONTRACTS)
    assert "scheduler.plan_tasks" in VIEWS["editable"][3] and "sampler.sample" in VIEWS["editable"][8]


def test_code_json_is_built_and_listed(tmp_path):

    with mirror_env():
        dist = sitebuild.build(tmp_path / "dist", "cdn")
    data = json.loads((dist / sitebuild.CODE_JSON).read_text(encoding="utf-8"))
    assert data == json.loads(json.dumps(VIEWS))
    assert sitebuild.CODE_JSON in json.loads((dist / sitebuild.MANIFEST).read_text(encoding="utf-8"))["files"]
