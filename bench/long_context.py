#!/usr/bin/env python3
"""Issue 40's long-context target, timed (a command, not a test): `python -m inference_lab` in a new interpreter.

    python3 bench/long_context.py              # the long-context command once: wall, CPU, peak memory, load
    python3 bench/long_context.py --repeat 3   # 3 times (the best wall time is printed)
    python3 bench/long_context.py --requests 8 --output 16    # a smaller version (tests/test_long_context.py's)

The command: 64 generated requests × 32,768-token prompts × 128 output tokens (IGNORE_EOS = on), CLOCK = roofline
on an H100 with Llama-3.1-8B's sizes, TP 1; 64 slots, BLOCK_SIZE 16 (vLLM's default), POOL_BLOCKS auto (vLLM's
num_gpu_blocks: gpu_memory_utilization 0.9 × 81,559 MiB − weights − activations, / 128 KiB per token), MAX_CONTEXT
32,896 (vLLM's max_model_len: prompt + output), TOKEN_BUDGET 8,192 (vLLM's max_num_batched_tokens: chunked
prefill cuts each prompt into 4 chunks). Target: under a minute on a 2-core machine.

The scheduler, block tables, KV accounting and the clock see every prompt's 32,768 tokens; the lab's NumPy model
computes each prompt's stand-in, its last 1,024 tokens (model.STAND_IN; block [4] says so).

Prints, per run, the wall time and the CPU time of the child (user + system: on a machine shared with other jobs
the wall time can be several times the CPU time, so the 1-minute load average is printed too) and the child's
peak resident memory.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def command(requests: int, prompt: int, output: int) -> list[str]:
    return ["--clock", "roofline", "--gpu", "H100-SXM5-80GB", "--shadow-model", "Llama-3.1-8B",
            "--tensor-parallel", "1", "--workload-requests", str(requests), "--workload-prompt", str(prompt),
            "--workload-output", str(output), "--ignore-eos", "on", "--slots", "64", "--queue-limit", "64",
            "--block-size", "16", "--pool-blocks", "auto", "--max-context", str(prompt + 128),
            "--token-budget", "8192"]


def timed(args: list[str]) -> tuple[float, float, float, bytes]:
    """(wall s, child CPU s, child peak RSS MiB, stdout) of one `python -m inference_lab ARGS`."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "py"))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "inference_lab", *args], cwd=ROOT, env=env, capture_output=True,
                         check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024, out.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--requests", type=int, default=64)
    ap.add_argument("--prompt", type=int, default=32768)
    ap.add_argument("--output", type=int, default=128)
    a = ap.parse_args()
    args = command(a.requests, a.prompt, a.output)
    print(f"python -m inference_lab {' '.join(args)}")
    best = None
    for i in range(a.repeat):
        load = os.getloadavg()[0]
        wall, cpu, rss, out = timed(args)
        best = wall if best is None else min(best, wall)
        passed = out.decode().rstrip().splitlines()[-1].startswith("PASS")
        print(f"run {i + 1}: wall {wall:.1f} s, CPU {cpu:.1f} s, peak RSS {rss:.0f} MiB, load average {load:.1f} "
              f"on {os.cpu_count()} cores, {'PASS' if passed else 'not PASS'}")
    print(f"best wall: {best:.1f} s (target: under 60 s on a 2-core machine)")


if __name__ == "__main__":
    main()
