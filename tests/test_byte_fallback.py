"""BYTE_FALLBACK (issue 27 §2): off keeps the seed's 400 for an unknown character, on spells it as UTF-8 byte
tokens <0xC3> … as SentencePiece's byte fallback does, and the request is served.

Counts are checked by hand: 'à' (U+00E0) is 2 UTF-8 bytes C3 A0, 'ạ' (U+1EA1) is 3 bytes E1 BA A1, and a byte
takes part in no merge, so "chào" also loses the merge "ha": c h <0xC3> <0xA0> o</w> (5) against c ha o</w> (3).
"""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from inference_lab import run
from inference_lab.core.inputs.config import DEFAULT_REQUESTS, FIELD_BY_NAME
from inference_lab.core.model.model import make_weights
from inference_lab.core.model.tokenizer import CORPUS, BPETokenizer
from inference_lab.entrypoints.byte_cost import strip_accents
from inference_lab.words import text_schema
from make_golden import ROOT

ACCENTED = "xin chào bạn"


def trace(text=ACCENTED):
    reqs = [dict(r) for r in DEFAULT_REQUESTS]
    next(r for r in reqs if r["id"] == "C")["text"] = text
    return reqs


def test_schema_field_off_by_default():
    f = FIELD_BY_NAME["BYTE_FALLBACK"]
    assert (f.default, f.choices, f.flag, f.is_switch) == ("off", ("off", "on"), "--byte-fallback", True)
    assert all(text_schema.label(f.name, lang) and text_schema.help_text(f.name, lang) for lang in ("vi", "en"))


def test_tokens_by_hand():
    on = BPETokenizer.train(CORPUS, 10, byte_fallback=True)
    off = BPETokenizer.train(CORPUS, 10)
    assert on.vocab_size == off.vocab_size + 256 == 278
    assert on.id_to_token[:off.vocab_size] == off.id_to_token            # the seed's IDs stay put
    assert on.pieces("xin chao") == ["<bos>", "xin</w>", "c", "ha", "o</w>"]
    assert on.pieces("xin chào") == ["<bos>", "xin</w>", "c", "h", "<0xC3>", "<0xA0>", "o</w>"]
    assert len(on.pieces(ACCENTED)) == 12 and len(on.pieces("xin chao ban")) == 8
    assert on.unknown(ACCENTED) == [] and off.unknown(ACCENTED) == ["à", "ạ"]
    assert on.decode(on.encode(ACCENTED)[1]) == ACCENTED
    assert strip_accents("Đường phố xin chào bạn") == "Duong pho xin chao ban"


def test_weights_keep_the_seed_rows():
    base, grown = make_weights(7, 22), make_weights(7, 22, 256)
    assert grown["E"].shape == (278, 8) and grown["U"].shape == (8, 22)          # byte tokens are input-only
    assert np.array_equal(grown["E"][:22], base["E"]) and np.array_equal(grown["U"], base["U"])
    assert all(np.array_equal(grown[k], base[k]) for k in base if k not in ("E", "U"))


def test_off_still_gives_400():
    report = run({"REQUESTS": trace()})
    assert report.follow["code"] == "400" and report.block(1).data["n_400"] == 2     # C (unknown) and E (context)
    text = report.to_text()
    assert "ký tự tokenizer chưa từng thấy: 'à', 'ạ'" in text
    assert "Tokenizer thật không trả 400 vì ký tự lạ" in text and "BYTE_FALLBACK=on" in text
    assert "Real tokenizers do not answer 400" in run({"REQUESTS": trace()}, lang="en").to_text()


def test_on_serves_xin_chao_ban_with_byte_tokens():
    report = run({"REQUESTS": trace(), "BYTE_FALLBACK": "on"})
    assert report.follow["served"] and report.passed
    b2 = report.block(2).data
    assert b2["follow"]["tokens"] == ["<bos>", "xin</w>", "c", "h", "<0xC3>", "<0xA0>", "o</w>",
                                      "b", "<0xE1>", "<0xBA>", "<0xA1>", "n</w>"]
    assert b2["vocab"] == 278
    (row,) = b2["byte_cost"]["rows"]
    # 12 tokens vs 8; BLOCK_SIZE 4: ceil(12/4) = 3 prompt blocks vs 2; 4 tokens x (400 + 50) µs = 1800 µs
    assert (row["prompt"], row["plain_prompt"], row["extra"], row["byte_tokens"]) == (12, 8, 4, 5)
    assert (row["blocks"], row["plain_blocks"], row["extra_time"]) == (3, 2, 1800)
    assert row["chars"] == [["à", ["<0xC3>", "<0xA0>"]], ["ạ", ["<0xE1>", "<0xBA>", "<0xA1>"]]]
    assert row["ttft"] > row["plain_ttft"]                                  # measured, not assumed
    text = report.to_text()
    assert "Byte fallback BẬT (BYTE_FALLBACK=on): từ vựng = 22 token BPE + 256 token byte" in text
    assert "C: 'à' = <0xC3> <0xA0>, 'ạ' = <0xE1> <0xBA> <0xA1>." in text
    assert "Chat template ở đây chỉ thêm <bos>" in text
    en = run({"REQUESTS": trace(), "BYTE_FALLBACK": "on"}, lang="en").to_text()
    assert "12 tokens (5 byte tokens; 3.7 tokens per word, <bos> left out)" in en
    assert "the prompt takes 3 KV blocks instead of 2" in en


def test_on_without_unknown_characters_says_no_cost():
    report = run({"BYTE_FALLBACK": "on"})
    assert report.block(2).data["byte_cost"] is None and report.passed
    assert report.block(2).data["vocab"] == 278


@pytest.mark.parametrize("flag", [["--byte-fallback"], ["--byte-fallback", "on"]])
def test_cli_flag(flag, tmp_path):
    import json
    path = tmp_path / "r.json"
    path.write_text(json.dumps(trace(), ensure_ascii=False), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "inference_lab", "--requests", str(path), *flag], cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT / "py"), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-1000:]
    assert "<0xC3>" in proc.stdout and "PASS" in proc.stdout


def test_on_keeps_the_unaccented_requests_texts():
    """Byte tokens are input-only (model.make_weights: the LM head keeps the seed's columns), so turning byte
    fallback on changes nothing for a trace without accents: the same tokens, the same logits row."""
    off, on = run({}), run({"BYTE_FALLBACK": "on"})
    texts = lambda r: [(s["id"], s["text"], s["n"]) for s in r.block(8).data["stops"]]   # noqa: E731
    assert texts(on) == texts(off)
    assert on.block(4).data["logits"] == off.block(4).data["logits"] and on.block(8).data["vocab"] == 22
    assert "the 256 byte tokens are input-only" in run({"BYTE_FALLBACK": "on"}, lang="en").to_text()


def test_on_with_ngram_speculation_never_proposes_a_byte_token():
    report = run({"BYTE_FALLBACK": "on", "SPEC_METHOD": "ngram", "REQUESTS": trace()})
    assert report.passed
    assert all(x < 22 for it in report.steps["items"] for v in it.get("spec", {}).values() for x in v["proposed"])
