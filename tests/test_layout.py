"""py/inference_lab/layout.py names every module of the package once, where it lives (core/'s folders, words/, …)."""
from __future__ import annotations

import ast
from pathlib import Path

from inference_lab.layout import LAYOUT, SUBPACKAGE, dotted

PACKAGE = Path(__file__).resolve().parents[1] / "py" / "inference_lab"


def test_layout_lists_exactly_the_modules_on_disk():
    on_disk = {(".".join(p.relative_to(PACKAGE).parent.parts), p.stem) for p in PACKAGE.glob("*/**/*.py")
               if p.stem != "__init__"}
    assert on_disk == {(sub, name) for name, sub in SUBPACKAGE.items()}
    assert sum(len(names) for names in LAYOUT.values()) == len(SUBPACKAGE)     # no short name twice


def test_the_patchable_modules_keep_their_short_names():
    # --patch MODULE= and the page's PATCH= name these, wherever the files move (issue 20)
    for name, sub in (("engine", "serving"), ("scheduler", "serving"), ("sampler", "model"), ("quantization", "model"),
                      ("model", "model"), ("metrics", "serving")):
        assert dotted(name) == f"inference_lab.core.{sub}.{name}"


def test_core_folders_import_only_the_floors_below():
    # layout.py's order is the floors: clock/, model/, serving/, inputs/, cluster/ (issue 38: no circle, no upward
    # arrow)
    floors = [sub for sub in LAYOUT if sub.startswith("core.")]
    for name, sub in SUBPACKAGE.items():
        if sub not in floors:
            continue
        tree = ast.parse((PACKAGE / sub.replace(".", "/") / f"{name}.py").read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                parts = (node.module or "").split(".")
                target = sub if node.level == 1 else f"core.{parts[0]}"
                assert floors.index(target) <= floors.index(sub), (f"{sub}.{name} imports "
                                                                   f"{'.' * node.level}{node.module}")
