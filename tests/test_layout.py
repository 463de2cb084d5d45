"""py/inference_lab/layout.py names every module of the package once, where it lives (core/'s folders, words/, …)."""
from __future__ import annotations

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
