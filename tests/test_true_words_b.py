"""Words true for every run, part B (issue 37 items 8-15, 17-19): speculation, greedy, the unmasked exercise,
roofline with KV_BITS = 8, byte fallback, --steps with 4 slots.

One table, CASES: (name, CLI args, sentences the run makes false in Vietnamese, the same in English, facts).
Each case runs the CLI three times in this process (vi and en text with their notes, and --json); no forbidden
sentence may appear in either language, and every fact (a function of the English text, the Vietnamese text
and the --json report, returning (what, stated, expected) triples) must hold: each count or time a block's text
states is the one --json holds. The shape is kept plain so the lead can merge the rows into
tests/test_true_words.py's table.
"""
from __future__ import annotations

import json
import re

import pytest

from cli_runner import run_cli


# ── reading the text ───────────────────────────────────────────────────────
def block(text: str, n: int) -> str:
    """Block [n]'s lines out of a whole run's text (its notes went to stderr: they follow the report)."""
    m = re.search(rf"^\[{n} · .*?(?=^\[{n + 1} · |^SUMMARY|^TỔNG KẾT|\Z)", text, re.S | re.M)
    assert m, f"no block [{n}]"
    return m.group(0)


def ms(us) -> str:
    return f"{us / 1000:.2f} ms"


STEP = re.compile(r"^\s+(?:step|bước)\s+(\d+): ([\d.]+) ms -> ([\d.]+) ms \| .*?\| (.*)$", re.M)
TASK = re.compile(r"(\w+):([pdv]):(\d+)(?:\+(\d+))?")


# ── facts: each returns (what, stated, expected) triples ───────────────────
def budget_adds_up(en, vi, data):
    """Block [3]: the tokens a step line shows (a verify counts 1 + k) are the budget the run log says it used."""
    items = data["steps"]["items"]
    out = []
    for m in STEP.finditer(block(en, 3)):
        i, work = int(m.group(1)), m.group(4)
        shown = sum(int(n) + int(k or 0) for _, _, n, k in TASK.findall(work))
        out.append((f"step {i} tokens", shown, items[i - 1]["budget"][0]))
    return out


def verifies_shown(en, vi, data):
    """Block [3]: every verify of the run log is shown as `id:v:1+k` with its k, and nothing else is."""
    shown = [(int(m.group(1)), rid, int(k)) for m in STEP.finditer(block(en, 3))
             for rid, ph, _, k in TASK.findall(m.group(4)) if ph == "v"]
    logged = [(i + 1, rid, len(v["proposed"])) for i, it in enumerate(data["steps"]["items"])
              for rid, v in it.get("spec", {}).items() if v["proposed"]]
    return [("verifies", sorted(shown), sorted(logged))]


def step_times(en, vi, data):
    items = data["steps"]["items"]
    return [(f"step {m.group(1)} times", (m.group(2), m.group(3)),
             (f"{items[int(m.group(1)) - 1]['start'] / 1000:.2f}", f"{items[int(m.group(1)) - 1]['end'] / 1000:.2f}"))
            for m in STEP.finditer(block(en, 3))]


def spec_compare(en, vi, data):
    """Block [7]: the TPOTs, faster or SLOWER, and the token counts of the two runs."""
    c = data["blocks"][6]["data"]["spec_compare"]
    b7 = block(en, 7)
    m = re.search(r"mean TPOT ([\d.]+ ms) against ([\d.]+ ms) \((SLOWER|[\d.]+x faster)", b7)
    out = [("TPOT", (m.group(1), m.group(2)), (ms(c["tpot_on"]), ms(c["tpot_off"]))),
           ("faster/slower", m.group(3) == "SLOWER", c["tpot_off"] < c["tpot_on"])]
    t = re.search(r"generated (\d+) tokens here and (\d+) without", b7)
    out.append(("tokens of both runs", (int(t.group(1)), int(t.group(2))) if t else None,
                None if c["tokens_on"] == c["tokens_off"] else (c["tokens_on"], c["tokens_off"])))
    return out


def steps_budget(en, vi, data):
    """--steps: "decodes first: A 1 + 3 proposals; 2 left for prompts" and "used N/M" add up."""
    out = []
    for it in data["steps"]["items"]:
        text = " ".join(it["text"])
        m = re.search(r"Ngân sách (\d+) token: (.*?) -> dùng (\d+)/\1", text)
        if not m:
            continue
        shares = sum(1 + int(k or 0)
                     for k in re.findall(r"\b[A-Z]\w* 1(?: \+ (\d+) đề xuất)?(?=,|$)", m.group(2).split(";")[0]))
        chunks = re.search(r"còn (\d+) cho prompt: (.*)", m.group(2))
        prompt = sum(int(n) for n in re.findall(r"\b\w+ (\d+)", chunks.group(2))) if chunks else 0
        out.append((f"step {it['start']} budget", shares + prompt, int(m.group(3))))
        if chunks:
            out.append((f"step {it['start']} left for prompts", int(chunks.group(1)), int(m.group(1)) - shares))
    return out


def draft_cost(en, vi, data):
    """--steps under a draft model: target pass + draft passes = the step's time, and the passes are named."""
    out = []
    for it in data["steps"]["items"]:
        text = " ".join(it["text"])
        m = re.search(r"lượt của mô hình đích tốn ([\d.]+) ms; các lượt của mô hình nháp thêm ([\d.]+) ms"
                      r" .*?bước tốn ([\d.]+) ms", text)
        if m:
            out.append(("target + draft", round(float(m.group(1)) + float(m.group(2)), 2), round(float(m.group(3)), 2)))
            out.append(("step time", m.group(3), f"{(it['end'] - it['start']) / 1000:.2f}"))
    assert out, "no draft cost line"
    return out


def admissions(en, vi, data):
    """--steps: each admission says the free slots at that admission (SLOTS − the sequences running before it)."""
    slots, out = data["config"]["SLOTS"], []
    for it in data["steps"]["items"]:
        admits = [e for e in it["events"] if e["kind"] == "admit"]
        said = [int(n) for n in re.findall(r"vào chạy: lúc xét còn (\d+)/\d+ chỗ trống", " ".join(it["text"]))]
        before = len(it["running"]) - len(admits)
        out += [("free slots", s, slots - before - i) for i, s in enumerate(said[:len(admits)])]
    return out


def greedy_token(en, vi, data):
    d = data["blocks"][7]["data"]
    m = re.search(r"The highest score is ID (\d+)", block(en, 8))
    return [("greedy token", int(m.group(1)) if m else None, d["token"])]


def greedy_note(en, vi, data):
    d = data["blocks"][7]["data"]
    m = re.search(r"the argmax of the logits, ID (\d+)", en)            # a note: on stderr, after the report
    return [("greedy note", int(m.group(1)) if m else None, d["token"])]


def parity(en, vi, data):
    x = data["blocks"][4]["data"]["parity"]
    m = re.search(r"largest difference is ([\d.e+-]+)", block(en, 5))
    return [("parity", m.group(1) if m else None, f"{x:.2e}")]


def prep_times(en, vi, data):
    """Block [2]'s ready time and block [3]'s late requests to the µs, from --json."""
    follow = data["follow"]["id"]
    b2 = data["blocks"][1]["data"]
    m = re.search(rf"{follow} is ready after ([\d.]+) ms", block(en, 2))
    out = [("prep", m.group(1) if m else None, f"{b2['prep'] / 1000:.3f}")]
    late = {r["id"]: r["ready"] for r in data["blocks"][2]["data"].get("late", [])}
    for rid, t in re.findall(r"(\w+) has arrived but is still in input preparation, ready at ([\d.]+) ms",
                             block(en, 3)):
        out.append((f"{rid} ready", t, f"{late[rid] / 1000:.3f}"))
    start = data["steps"]["items"][0]["start"]
    m = re.search(r"step 1 starts at ([\d.]+) ms", block(en, 3))
    return out + [("step 1 start", m.group(1), f"{start / 1000:.3f}")]


def stops(en, vi, data):
    d = data["blocks"][7]["data"]
    said = re.findall(r"^\s+(\w+): stopped on \S+ after (\d+)/\d+ tokens", block(en, 8), re.M)
    return [("stops", [(r, int(n)) for r, n in said], [(s["id"], s["n"]) for s in d["stops"]])]


# ── the table ──────────────────────────────────────────────────────────────
SPEC_VI = ["không đổi token sinh ra (đã so token và logits)", "trước BANDWIDTH_FRACTION", "thời gian tiết kiệm thật"]
SPEC_EN = ["does not change the generated tokens (tokens and logits compared)", "before BANDWIDTH_FRACTION",
           "the real time saved on a GPU", "scheduling does not change content"]
HEADS_EN = ["not because each head has its own K/V"]
HEADS_VI = ["không phải vì mỗi head có K/V riêng"]
CASES = [
    ("spec ngram", ["--spec-method", "ngram"], SPEC_VI + HEADS_VI, SPEC_EN + HEADS_EN + ["0.96x faster"],
     [budget_adds_up, verifies_shown, step_times, spec_compare, steps_budget, stops]),
    ("spec draft roofline", ["--spec-method", "draft", "--quant-bits", "4", "--clock", "roofline"],
     SPEC_VI + ["như bước chỉ decode"],
     SPEC_EN + ["as long as a decode-only step", "Chunking trades some TTFT for shorter stalls"],
     [budget_adds_up, verifies_shown, spec_compare, steps_budget, draft_cost]),
    ("exercise 30", ["--exercise", "30"], SPEC_VI, SPEC_EN, [budget_adds_up, verifies_shown, spec_compare, stops]),
    ("exercise 31", ["--exercise", "31"], SPEC_VI + ["như bước chỉ decode"],
     SPEC_EN + ["as long as a decode-only step", "Chunking trades some TTFT for shorter stalls"],
     [budget_adds_up, verifies_shown, spec_compare, draft_cost]),
    ("greedy roofline", ["--follow", "A", "--clock", "roofline"], ["Logits chia temperature", "Rút ngẫu nhiên (seed"],
     ["Logits divided by the temperature", "Random draw (seed"], [greedy_token, prep_times]),
    ("greedy seed", ["--follow", "A"], [], [], [greedy_note, stops]),
    ("exercise 11 unmasked", ["--exercise", "11"],
     ["vị trí tương lai bị mặt nạ nhân quả chặn", "phần dư chỉ là sai số làm tròn float64"],
     ["future positions are blocked by the causal mask", "what is left is float64 rounding only"], [parity]),
    ("roofline KV_BITS=8", ["--clock", "roofline", "--kv-bits", "8"],
     ["KV cache lượng tử hóa không được chạy", "POOL_BLOCKS của lab đặt thẳng", "sẵn sàng sau 0.21 ms"],
     ["A quantized KV cache is not simulated", "the lab's POOL_BLOCKS sets that number directly",
      "ready after 0.21 ms"],
     [prep_times, step_times, budget_adds_up]),
    ("byte fallback", ["--byte-fallback"], ["278 cột", "XÁC SUẤT trên 278 token"],
     ["278 columns", "PROBABILITIES over 278 tokens"], [stops, budget_adds_up]),
    ("steps 4 slots", ["--slots", "4", "--queue-limit", "3"], [], [], [admissions, budget_adds_up, step_times]),
    ("roofline least_loaded 3", ["--replicas", "3", "--router", "least_loaded", "--clock", "roofline"],
     ["đủ chứa mọi prompt"], ["holds every prompt"], [stops]),
    ("disagg 2 prefill prefix cache", ["--disagg", "on", "--replicas", "3", "--prefill-replicas", "2",
                                       "--prefix-cache", "on"],
     ["-> chờ chỗ chạy ở đó 2.00 ms"], ["waited 2.00 ms for a slot there"], [stops]),
    ("workload 40 ngram", ["--workload-requests", "40", "--spec-method", "ngram"],
     ["Việc mọi chính sách cho cùng token đúng ở đây"], ["The same tokens under every policy hold here"], [stops]),
]


def texts(args) -> tuple[str, str, dict]:
    """(vi text + notes, en text + notes, --json report) of one configuration; --steps narration comes with --json."""
    out = []
    for lang in ("vi", "en"):
        proc = run_cli([*args, "--lang", lang])
        assert proc.returncode in (0, 1), proc.stderr[-2000:]         # 1: a check fails (exercise 11's unmasked run)
        out.append(proc.stdout + proc.stderr)
    proc = run_cli([*args, "--json"])
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return out[0], out[1], json.loads(proc.stdout)


@pytest.mark.parametrize("name, args, forbid_vi, forbid_en, facts", CASES, ids=[c[0] for c in CASES])
def test_words_true_for_the_run(name, args, forbid_vi, forbid_en, facts):
    vi, en, data = texts(args)
    said = [s for s in forbid_vi if s in vi] + [s for s in forbid_en if s in en]
    assert not said, f"{name}: sentences this run makes false: {said}"
    checked = {fact.__name__: fact(en, vi, data) for fact in facts}
    assert all(checked.values()), \
        f"{name}: facts that found nothing to check: {[k for k, v in checked.items() if not v]}"
    wrong = [(what, stated, expected) for triples in checked.values() for what, stated, expected in triples
             if stated != expected]
    assert not wrong, f"{name}: stated facts that --json contradicts: {wrong}"


def test_seed_run_keeps_its_bytes_and_facts():
    """The default run (seed-identical) is in no row above but its block [3] facts hold the same way."""
    vi, en, data = texts([])
    wrong = [f for fact in (budget_adds_up, step_times) for f in fact(en, vi, data) if f[1] != f[2]]
    assert not wrong and ":v:" not in block(en, 3)
