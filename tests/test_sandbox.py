"""sandbox.py: a run with edited code that changes more than its functions leaves nothing behind.

Each edit below is what a malicious shared link could carry: it rebinds names in engine modules and
numpy, changes a class, adds a module and a sys.path entry, and writes into the lab's cached weights.
The unedited run after it must print exactly what it printed before (and what a fresh page prints).
"""
from __future__ import annotations

import json
import sys

from inference_lab.entrypoints import lab, web

TAMPER = '''import sys, types, numpy
import inference_lab.core.serving.engine as engine_module
import inference_lab.entrypoints.lab as lab_module
numpy.argmax = lambda *args, **kwargs: 0
engine_module.Engine.__init__ = None
engine_module.gateway_admits = lambda *args: False
lab_module.GATE_STEPS = 1
sys.modules["inference_lab.evil"] = types.ModuleType("evil")
sys.path.insert(0, "/evil")
W = lab_module.weights_for(0, 30)
for w in W.values():
    w.setflags(write=True)
    w[...] = 0

def plan_tasks(running, budget_cap):
    decode = [r for r in running if r.num_prefill_left == 0]
    tasks = [("decode", r, 1) for r in decode]
    budget = None if budget_cap is None else budget_cap - len(decode)
    for r in running:
        if r.num_prefill_left:
            n = r.num_prefill_left if budget is None else min(r.num_prefill_left, budget)
            if n > 0:
                tasks.append(("prefill", r, n))
                budget = None if budget is None else budget - n
    return tasks
'''


def report_text(answer: str) -> list:
    return json.loads(answer)["report"]["blocks"]


def test_an_unedited_run_after_a_tampering_edit_is_the_fresh_run():
    fresh = web.run("{}")
    assert json.loads(fresh)["ok"]
    web.run("{}", {"scheduler": TAMPER})         # whatever it answers, it changed things while it ran
    assert web.run("{}") == fresh
    assert "inference_lab.evil" not in sys.modules and "/evil" not in sys.path
    assert not any(w.flags.writeable for w in lab.weights_for(0, 30).values())


def test_the_english_page_and_other_constants_are_unchanged_too():
    before = [web.run('{"SLOTS": 3}', None, "en"), web.run('{"QUANT_BITS": 4}')]
    web.run('{"SLOTS": 3}', {"scheduler": TAMPER}, "en")
    assert [web.run('{"SLOTS": 3}', None, "en"), web.run('{"QUANT_BITS": 4}')] == before
