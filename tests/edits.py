"""Students' edits of engine functions that several test modules run (test modules never import each other).

Each is the Python source a student would type into the page's code editor or pass with `--patch`:
- PREFILL_FIRST: scheduler.plan_tasks (py/inference_lab/core/serving/scheduler.py) with the two loops swapped, prompt
  chunks take the token budget first and decodes get what is left (exercise 15 makes the same edit);
- GREEDY: sampler.sample that always takes the most likely token (exercise 16's edit).

Leaves out: how they are run (test_patch.py runs them in CPython, test_browser_code.py types them into the
page's editor) and what they print (each test asserts its own numbers).
"""
from __future__ import annotations

PREFILL_FIRST = '''def plan_tasks(running, budget_cap):
    tasks = []
    budget = budget_cap
    for r in running:
        if r.num_prefill_left:
            n = r.num_prefill_left if budget is None else min(r.num_prefill_left, budget)
            if n > 0:
                tasks.append(("prefill", r, n))
                budget = None if budget is None else budget - n
    for r in running:
        if r.num_prefill_left == 0 and (budget is None or budget > 0):
            tasks.append(("decode", r, 1))
            budget = None if budget is None else budget - 1
    return tasks
'''

GREEDY = '''def sample(logits, params, rng, vocab):
    z = np.array(logits, dtype=float)
    z[BOS] = -np.inf
    token = int(np.argmax(z))
    return token, dict(probs=softmax(z), filtered=np.eye(vocab)[token], mode="greedy")
'''
