"""web.py's helpers for the page's request editor: the tokenizer's alphabet in describe(), and
JSON from JavaScript (which writes 1.0 as 1) printing exactly like the command line."""
from __future__ import annotations

import json
import string

from inference_lab.entrypoints import web
from inference_lab.core.inputs.config import DEFAULT_REQUESTS
from inference_lab.core.model.tokenizer import CORPUS
from inference_lab.entrypoints.lab import tokenizer_for


def test_the_alphabet_is_exactly_what_the_tokenizer_knows():
    spec = next(d for d in json.loads(web.describe()) if d["name"] == "REQUESTS")
    alphabet = spec["alphabet"]
    assert alphabet == web.alphabet() and set(alphabet) == set("".join(CORPUS)) - {" "}
    tok = tokenizer_for(10)
    for ch in string.printable.strip() + "àáạăâđêôơưÀĐ…“”":
        assert (ch in alphabet) == (tok.unknown_chars(ch) == []), ch
    assert spec["max_items"] == 12 and [c["name"] for c in spec["columns"]][:3] == ["id", "arrival", "text"]


def test_integers_from_javascript_print_like_the_command_line():
    as_js = [{k: (int(v) if isinstance(v, float) and v.is_integer() else v) for k, v in r.items()}
             for r in DEFAULT_REQUESTS]
    assert as_js[0]["temperature"] == 0 and isinstance(as_js[0]["top_p"], int)
    sampling = {"A": "A: temperature 0.0, top_k 0, top_p 1.0, seed 1",
                "C": "C: temperature 0.8, top_k 5, top_p 0.9, seed 4"}
    for follow, line in sampling.items():
        page = json.loads(web.run(json.dumps({"REQUESTS": as_js, "FOLLOW": follow, "QUALITY_GATE": 1})))
        cli = json.loads(web.run(json.dumps({"FOLLOW": follow, "QUALITY_GATE": 1.0})))
        assert page["ok"] and json.dumps(page["report"]) == json.dumps(cli["report"])   # 1 came back as 1.0
        block8 = next(b for b in page["report"]["blocks"] if b["number"] == 8)
        assert block8["lines"][0].startswith(line + "; ")


def test_out_of_range_numbers_are_still_reported_not_converted_into_crashes():
    bad = json.loads(web.run(json.dumps({"QUALITY_GATE": 10**400,
                                         "REQUESTS": [dict(DEFAULT_REQUESTS[0], top_p=10**400)]})))
    assert not bad["ok"]
    assert {e["field"] for e in bad["errors"]} >= {"QUALITY_GATE", "REQUESTS[0].top_p"}

