#!/usr/bin/env python3
"""Issue 24's scale target, a command, not a test: 1,000 generated requests on 8 replicas behind the router, the
whole lab run (13 blocks, the main run on the NumPy model, block 12's other policies replayed on the clock).

    python3 bench/cluster_bench.py                          # prefix_aware, the issue's constants
    python3 bench/cluster_bench.py --router round_robin --disagg on --prefill-replicas 2
    python3 bench/cluster_bench.py --requests 200           # a smaller run
    python3 bench/cluster_bench.py --token-budget 128       # whole 128-token prompts in one step (fewer steps)
    python3 bench/cluster_bench.py --narrate                # with every step's words (what --json, --steps,
                                                            # the page get)
    python3 bench/cluster_bench.py --json-size              # also `--json`'s size (issue 39: at most 10 MB)

The constants are the issue's command (`--workload-requests 1000 --workload-prompt 128 --workload-output 32
--workload-rate 200 --workload-prefixes 8 --workload-shared 64 --slots 32 --queue-limit 256 --block-size 16
--pool-blocks auto --prefix-cache on`, each replica's pool sized by auto) plus `--max-context 256`: the default
MAX_CONTEXT (24) would refuse every 128 + 32-token request with 400. Prints the wall-clock and CPU seconds of
`lab.run` as the command line's text output calls it (narrate=False: it prints no step's words; `--narrate` for
the page's and `--json`'s run), CPU time being the fairer figure on a shared machine, then the steps, goodput and each
replica's share.

Issue 39 (halve the CPU time) measured back to back on the shared 2-core machine at load ~7: 26.2 s CPU before,
25.1 s after its first speed-ups (again: 26.0 against 25.3, 25.2 against 23.4); see README.en.md "Scale" for what
they are and what is left. bench/cli_speed.py times the command line itself (a fresh process, text output; --base for
an interleaved A/B against an older checkout).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
from inference_lab.core.inputs.config import Config  # noqa: E402
from inference_lab.entrypoints.lab import run  # noqa: E402

ISSUE = dict(WORKLOAD_PROMPT=128, WORKLOAD_OUTPUT=32, WORKLOAD_RATE=200.0, WORKLOAD_PREFIXES=8,
             WORKLOAD_SHARED=64, SLOTS=32, QUEUE_LIMIT=256, BLOCK_SIZE=16, POOL_BLOCKS="auto", PREFIX_CACHE="on",
             MAX_CONTEXT=256)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--replicas", type=int, default=8)
    ap.add_argument("--router", default="prefix_aware")
    ap.add_argument("--disagg", default="off")
    ap.add_argument("--prefill-replicas", type=int, default=1)
    ap.add_argument("--clock", default="seed")
    ap.add_argument("--json-size", action="store_true", help="print the size of --json's text (cli.json_text)")
    ap.add_argument("--token-budget", type=int, default=None, help="TOKEN_BUDGET (default: the lab's 6)")
    ap.add_argument("--narrate", action="store_true", help="word every step too (--json, --steps, the page)")
    a = ap.parse_args()
    cfg = Config.from_values(dict(ISSUE, WORKLOAD_REQUESTS=a.requests, REPLICAS=a.replicas, ROUTER=a.router,
                                  DISAGG=a.disagg, PREFILL_REPLICAS=a.prefill_replicas, CLOCK=a.clock,
                                  **({"TOKEN_BUDGET": a.token_budget} if a.token_budget else {})))
    wall, cpu = time.perf_counter(), time.process_time()
    report = run(cfg, narrate=a.narrate)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    c = report.cluster
    print(f"{a.requests} requests, {a.replicas} replicas, ROUTER={a.router}, DISAGG={a.disagg}, CLOCK={a.clock}: "
          f"lab.run(narrate={a.narrate}) {wall:.1f} s wall, {cpu:.1f} s CPU; {report.steps['count']} steps; checks "
          f"{'PASS' if report.passed else 'FAIL'}")
    g = c["goodput"]
    print(f"goodput {g['met']}/{g['served']} ({g['fraction']}), {g['per_s']} req/s; TTFT p50/p90/p99 {c['ttft']}; "
          f"TPOT {c['tpot']}")
    for r in c["replicas"]:
        print(f"  replica {r['id']} ({r['role']}): served {r['served']}, busy {r['utilization']:.0%}, "
              f"KV peak {r['kv_peak']} blocks, prefix hits {r['prefix_hits']} tokens, {r['steps']} steps")
    if a.json_size:
        from inference_lab.entrypoints.cli import json_text
        from inference_lab.entrypoints.compact import is_long
        wall = time.perf_counter()
        size = len(json_text(report).encode())
        print(f"--json: {size / 1e6:.1f} MB ({'compact' if is_long(report.steps) else 'full'} form), written in "
              f"{time.perf_counter() - wall:.1f} s")


if __name__ == "__main__":
    main()
