#!/usr/bin/env python3
"""The frozen format of `--json`'s top-level `steps`: dump it for a set of configurations, then compare.

    python3 tests/run_log_format.py dump DIR      # one DIR/<name>.json per configuration (the whole --json report)
    python3 tests/run_log_format.py check DIR     # the current code against DIR: exit 1 on any difference

`check` allows only NEW keys in `steps` and in its items and events (issue 20: "new facts are new keys"):
every key, value, event kind and shape the dump had must be there, equal. Two exceptions:
- one new event kind, "evict" (the prefix cache gave a cached free block a new owner): an item's
  `events` may hold "evict" events the dump lacks; every other event must be there, in order;
- the run's constants left `steps` and `header_data` (`config` is their one place): a key of
  CONFIG_COPIES may be gone when the dump's value was the config's (checked against the dump's config).
It also reports the blocks' data keys that disappeared (blocks [3] and [11] no longer repeat the steps,
no block repeats a constant), and checks every other block fact is unchanged.
Leaves out: the words (the goldens check them).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
from inference_lab.entrypoints.lab import run  # noqa: E402

BASE = [
    dict(id="A", arrival=0, text="xin chao model", max_new=10, temperature=0.0, top_k=0, top_p=1.0, seed=1),
    dict(id="B", arrival=0, text="model hoc token", max_new=7, temperature=0.8, top_k=4, top_p=0.9, seed=2),
    dict(id="E", arrival=500, text="xin chao ban", max_new=30, temperature=0.0, top_k=0, top_p=1.0, seed=3),
    dict(id="C", arrival=1000, text="ban hoc model", max_new=8, temperature=0.8, top_k=5, top_p=0.9, seed=4),
    dict(id="D", arrival=1500, text="xin chao token", max_new=5, temperature=0.0, top_k=0, top_p=1.0, seed=5),
]


def trace(**columns) -> list[dict]:
    return [dict(r, **{k: v[r["id"]] for k, v in columns.items() if r["id"] in v}) for r in BASE]


CONFIGS = {
    "default": {},
    "prefix_cache": {"PREFIX_CACHE": "on"},
    "prefix_cache_queue_2": {"QUEUE_LIMIT": 2, "FOLLOW": "D", "PREFIX_CACHE": "on"},
    "prefix_cache_preempt": {"SLOTS": 3, "POOL_BLOCKS": 7, "QUEUE_LIMIT": 2, "PREFIX_CACHE": "on"},
    "priority": {"QUEUE_LIMIT": 2, "SCHED_POLICY": "priority",
                 "REQUESTS": trace(priority={"A": 1, "B": 1, "E": 1, "C": 0, "D": 0})},
    "priority_preempt": {"SLOTS": 3, "POOL_BLOCKS": 7, "QUEUE_LIMIT": 2, "SCHED_POLICY": "priority",
                         "REQUESTS": trace(priority={"A": 5})},
    "cancel": {"QUEUE_LIMIT": 2, "REQUESTS": trace(cancel_at={"A": 8000, "D": 2000})},
    "cancel_follow": {"REQUESTS": trace(cancel_at={"C": 18000})},
    "cancel_before_ready": {"FOLLOW": "A", "REQUESTS": [dict(BASE[0], cancel_at=100)]},
    "cancel_recompute": {"SLOTS": 3, "POOL_BLOCKS": 7, "QUEUE_LIMIT": 2, "PREFIX_CACHE": "on",
                         "REQUESTS": trace(cancel_at={"A": 8301, "E": 12000})},
    "abort_while_recomputing": {"FOLLOW": "A", "BLOCK_SIZE": 1, "REQUESTS": [
        dict(id="A", arrival=0, text="xin", max_new=6, temperature=0.0, top_k=0, top_p=0.5, seed=0),
        dict(id="B", arrival=0, text="xin xin xin", max_new=4, temperature=0.0, top_k=0, top_p=0.5, seed=0,
             cancel_at=8301)]},
    "pool_7": {"POOL_BLOCKS": 7},
    "pool_4": {"POOL_BLOCKS": 4},
    "block_8_pool_4": {"BLOCK_SIZE": 8, "POOL_BLOCKS": 4},
    "pool_6_block_2_slots_4": {"POOL_BLOCKS": 6, "BLOCK_SIZE": 2, "SLOTS": 4},
    "block_1_pool_40": {"BLOCK_SIZE": 1, "POOL_BLOCKS": 40},
    "budget_1_slots_3": {"SLOTS": 3, "TOKEN_BUDGET": 1},
    "slots_1_queue_4": {"SLOTS": 1, "QUEUE_LIMIT": 4},
    "max_context_17": {"MAX_CONTEXT": 17},
    "unknown_chars": {"REQUESTS": trace(**{"text": {"B": "Model hoc token!"}})},
    "everything": {"SLOTS": 3, "POOL_BLOCKS": 6, "QUEUE_LIMIT": 3, "PREFIX_CACHE": "on", "SCHED_POLICY": "priority",
                   "REQUESTS": trace(priority={"A": 2, "C": 0}, cancel_at={"E": 9000})},
}


NEW_EVENT_KINDS = ("evict",)       # event kinds added since the format was frozen
CONFIG_COPIES = {                  # a key that repeated a constant -> that constant's value in a report's config
    "slots": lambda c: c["SLOTS"], "queue_limit": lambda c: c["QUEUE_LIMIT"],
    "token_budget": lambda c: c["TOKEN_BUDGET"], "block_size": lambda c: c["BLOCK_SIZE"],
    "pool_blocks": lambda c: c["POOL_BLOCKS"], "max_context": lambda c: c["MAX_CONTEXT"], "seed": lambda c: c["SEED"],
    "prefix_cache": lambda c: c["PREFIX_CACHE"] == "on", "sched_policy": lambda c: c["SCHED_POLICY"],
    "requests": lambda c: c["REQUESTS"], "follow": lambda c: c["FOLLOW"],
    "cancels": lambda c: any(r.get("cancel_at") is not None for r in c["REQUESTS"]),
}


def report_of(values) -> dict:
    return json.loads(run(values).to_json())


def without_new_events(steps: dict) -> dict:
    """`steps` with the events of NEW_EVENT_KINDS left out of every item and of `after`."""
    def keep(events):
        return [e for e in events if e.get("kind") not in NEW_EVENT_KINDS]
    items = [dict(it, events=keep(it["events"])) for it in steps.get("items", [])]
    return dict(steps, items=items, after=keep(steps.get("after", [])))


def config_copies_gone(old: dict, new: dict, config: dict, where: str) -> tuple[dict, list[str]]:
    """`old` without the CONFIG_COPIES keys `new` dropped, and a problem for each one that was not a copy."""
    gone = [k for k in old if k not in new and k in CONFIG_COPIES]
    bad = [f"{where}.{k} gone but {old[k]!r} was not the config's {CONFIG_COPIES[k](config)!r}"
           for k in gone if old[k] != CONFIG_COPIES[k](config)]
    return {k: v for k, v in old.items() if k not in gone}, bad


def missing(old, new, where="") -> list[str]:
    """Where `new` lacks or changes something `old` has (new dict keys are allowed)."""
    if isinstance(old, dict) and isinstance(new, dict):
        return [p for k in old
                for p in (missing(old[k], new[k], f"{where}.{k}") if k in new else [f"{where}.{k} gone"])]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [p for i, (a, b) in enumerate(zip(old, new)) for p in missing(a, b, f"{where}[{i}]")]
    return [] if old == new and type(old) is type(new) else [f"{where}: {str(old)[:80]} != {str(new)[:80]}"]


def check(folder: Path) -> int:
    bad = 0
    for name, values in CONFIGS.items():
        old = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
        new = report_of(values)
        old_steps, problems = config_copies_gone(old["steps"], new["steps"], old["config"], "steps")
        old_head, not_copies = config_copies_gone(old.get("header_data", {}), new.get("header_data", {}),
                                                  old["config"], "header_data")
        problems += not_copies + missing(old_steps, without_new_events(new["steps"]), "steps")
        problems += missing(old_head, new.get("header_data", {}), "header_data")
        for ob, nb in zip(old["blocks"], new["blocks"]):
            gone = sorted(set(ob["data"]) - set(nb["data"]))
            kept = {k: v for k, v in ob["data"].items() if k in nb["data"]}
            problems += missing(kept, nb["data"], f"block{ob['number']}")
            if gone:
                print(f"{name}: block {ob['number']} no longer has {gone}")
        problems += missing({k: v for k, v in old.items() if k not in ("steps", "blocks", "header_data")},
                            {k: v for k, v in new.items() if k not in ("steps", "blocks", "header_data")}, "report")
        print(f"{name}: {'ok' if not problems else 'DIFFERENT'} ({len(old['steps']['items'])} steps, "
              f"{len(json.dumps(old))} -> {len(json.dumps(new))} bytes)")
        for p in problems[:10]:
            print("   ", p)
        bad += bool(problems)
    return 1 if bad else 0


def main(argv) -> int:
    if len(argv) != 3 or argv[1] not in ("dump", "check"):
        print(__doc__)
        return 2
    folder = Path(argv[2])
    if argv[1] == "check":
        return check(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for name, values in CONFIGS.items():
        (folder / f"{name}.json").write_text(json.dumps(report_of(values)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
