"""Speculative decoding's facts for blocks [7], [12] and [13] (SPEC_METHOD != off), read from the run log's `spec`.

- `spec_block7`: block [7]'s `spec` (the issue's --json keys, exactly) {"method", "k", "proposed", "accepted",
  "per_request": {id: {"proposed", "accepted", "alpha"}}} and beside it: `spec_rates` {id: {"verifies", "tokens",
  "per_step", "expected"}}, `spec_follow` (FOLLOW's verify steps), `spec_compare` (TPOT and throughput with and
  without speculation: the same trace run again with SPEC_METHOD = off) and `spec_batch` {"rows": the speedup
  against the batch size on the roofline clock, "crossover": the first batch size where it is below 1, "alpha",
  "expected", "context"}. `expected` is (1 − α^(k+1)) / (1 − α) (Leviathan et al. 2023, eq. 1) at the request's
  α and its mean k.
- `spec_gate`: block [13]'s check of the acceptance rule: the greedy requests' texts equal those of the run
  without speculation, and the rule, drawn DRAWS times against the target's distribution at FOLLOW's prompt
  (temperature 1) with a proposer that knows nothing (uniform q), gives the target's distribution: a chi-square
  test whose false-alarm rate is at most 0.1 % (rejection_sampler.FALSE_ALARM). A wrong rule (always accept)
  gives q instead and fails.

The batch picture is a model, not a run: for B sequences at the followed request's mean context L, one step
without speculation costs the roofline of B tokens, one with it the roofline of B·(k + 1) tokens (plus, for the
draft, k passes of B tokens at QUANT_BITS weights) and yields E(α, k) tokens per sequence:
speedup(B) = E · t_off(B) / t_on(B).

Leaves out: the words (words/text_spec.py), the engine (core/serving/speculative.py).
"""
from __future__ import annotations

import math

import numpy as np

from ..core.model import rejection_sampler as rs
from ..core.clock.hardware import GPUS, shadow_model
from ..core.serving.metrics import summarize
from ..core.clock.roofline import step_cost
from ..core.serving.speculative import verify_tokens

BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512)
DRAWS = 2000
GATE_SEED = 23
FLAT = dict(temperature=1.0, top_k=0, top_p=1.0)       # the gate's sampling: the target's own softmax


def expected_tokens(alpha: float, k: float) -> float:
    """(1 − α^(k+1)) / (1 − α): mean tokens per verify when each proposal is kept with probability α."""
    return k + 1 if alpha >= 1 else (1 - alpha ** (k + 1)) / (1 - alpha)


def verifies(main) -> list[tuple[int, str, dict]]:
    """(1-based step, request id, {"proposed", "accepted", "token"}) of every verify, in order."""
    return [(i + 1, rid, v) for i, it in enumerate(main.log.items) for rid, v in it.get("spec", {}).items()]


def per_request(rows) -> dict:
    out = {}
    for _, rid, v in rows:
        r = out.setdefault(rid, dict(proposed=0, accepted=0, verifies=0, tokens=0))
        r["proposed"] += len(v["proposed"])
        r["accepted"] += v["accepted"]
        r["verifies"] += 1
        r["tokens"] += v["accepted"] + (v["token"] is not None)
    for r in out.values():
        r["alpha"] = r["accepted"] / r["proposed"] if r["proposed"] else 0.0
        r["per_step"] = r["tokens"] / r["verifies"]
        r["expected"] = expected_tokens(r["alpha"], r["proposed"] / r["verifies"])
    return out


def follow_rows(lab, rows, fid) -> list[dict]:
    tok, out = lab.tokenizer, []
    for step, rid, v in rows:
        if rid != fid:
            continue
        n, t = v["accepted"], v["token"]
        rejected = v["proposed"][n] if n < len(v["proposed"]) and t is not None else None
        out.append(dict(step=step, proposed=[tok.token(x) for x in v["proposed"]], accepted=n,
                        rejected=None if rejected is None else tok.token(rejected),
                        token=None if t is None else tok.token(t), bonus=t is not None and n == len(v["proposed"])))
    return out


def compare(main, nospec) -> dict:
    on, off = summarize(main.done), summarize(nospec.done)
    return dict(tpot_on=on["mean_tpot"], tpot_off=off["mean_tpot"], tput_on=on["throughput"],
                tput_off=off["throughput"],
                end_on=main.end, end_off=nospec.end, steps_on=main.log.count, steps_off=nospec.log.count,
                tokens_on=sum(len(r.out) for r in main.done), tokens_off=sum(len(r.out) for r in nospec.done))


def seconds(cfg, cost, bits: int, overhead: bool) -> float:
    gpu = GPUS[cfg.GPU]
    terms = cost.terms(gpu, bits, cfg.FLOPS_FRACTION, cfg.BANDWIDTH_FRACTION)
    return max(terms) + (cfg.STEP_OVERHEAD / 1e6 if overhead else 0.0)


def batch_speedups(lab, alpha: float, k: int, context: int) -> list[dict]:
    """speedup(B) on the roofline of GPU and SHADOW_MODEL (module docstring)."""
    cfg = lab.cfg
    shape = shadow_model(cfg.SHADOW_MODEL, lab.tokenizer.vocab_size)
    out = []
    for b in BATCHES:
        off = seconds(cfg, step_cost(shape, [(1, context)] * b, cfg.WEIGHT_BITS, cfg.KV_BITS), cfg.ACT_BITS, True)
        verify = [(verify_tokens(k), context, verify_tokens(k))] * b    # a verify pass: 1 + k tokens, all sampled
        on = seconds(cfg, step_cost(shape, verify, cfg.WEIGHT_BITS, cfg.KV_BITS), cfg.ACT_BITS, True)
        if cfg.SPEC_METHOD == "draft":
            on += sum(seconds(cfg, step_cost(shape, [(1, context + j)] * b, cfg.QUANT_BITS, cfg.KV_BITS), cfg.ACT_BITS,
                              False) for j in range(k))
        bound = "compute" if step_cost(shape, verify, cfg.WEIGHT_BITS, cfg.KV_BITS).bound(
            GPUS[cfg.GPU], cfg.ACT_BITS, cfg.FLOPS_FRACTION, cfg.BANDWIDTH_FRACTION) == "compute" else "memory"
        out.append(dict(batch=b, off_us=off * 1e6, on_us=on * 1e6,
                        speedup=expected_tokens(alpha, k) * off / on, bound=bound))
    return out


def spec_block7(lab, main, nospec, info) -> dict:
    cfg, rows = lab.cfg, verifies(main)
    per = per_request(rows)
    proposed, accepted = sum(r["proposed"] for r in per.values()), sum(r["accepted"] for r in per.values())
    alpha = accepted / proposed if proposed else 0.0
    seqs = {r.id: r for r in main.done}
    f = seqs.get(info["id"]) or (next(iter(seqs.values())) if seqs else None)
    context = (f.prompt_len + len(f.out) // 2) if f else 16
    batch = batch_speedups(lab, alpha, cfg.SPEC_TOKENS, context)
    crossover = next((b["batch"] for b in batch if b["speedup"] < 1), None)
    order = sorted(per)
    spec = dict(method=cfg.SPEC_METHOD, k=cfg.SPEC_TOKENS, proposed=proposed, accepted=accepted,
                per_request={rid: {k: per[rid][k] for k in ("proposed", "accepted", "alpha")} for rid in order})
    return dict(spec=spec, spec_follow=follow_rows(lab, rows, info["id"]), spec_compare=compare(main, nospec),
                spec_rates={rid: {k: per[rid][k] for k in ("verifies", "tokens", "per_step", "expected")}
                            for rid in order},
                spec_batch=dict(rows=batch, crossover=crossover, context=context, alpha=alpha,
                                expected=expected_tokens(alpha, cfg.SPEC_TOKENS)))


def same_tokens(cfg, main, runs) -> tuple[bool, dict]:
    """Block [12]'s check: every request gets the same tokens under the 3 policies; with speculation on, the greedy
    ones (the budget cuts proposals differently per policy, so sampled draws differ while their distribution does
    not). Returns (same, {"same_scope": "greedy"} or {})."""
    by_id, greedy_only = {r.id: r for r in main.done}, cfg.SPEC_METHOD != "off"
    same = all(r.out == by_id[r.id].out for res in runs.values() for r in res.done
               if r.id in by_id and (r.temperature == 0 or not greedy_only))
    return same, ({"same_scope": "greedy"} if greedy_only else {})


def greedy_same(main, nospec) -> tuple[bool, int]:
    """(every greedy request served in both runs has the same tokens, how many were compared)."""
    off = {r.id: r.out for r in nospec.done}
    pairs = [(r.out, off[r.id]) for r in main.done if r.temperature == 0 and r.id in off]
    return all(a == b for a, b in pairs), len(pairs)


def spec_gate(lab, main, nospec, probe) -> dict:
    same, compared = greedy_same(main, nospec)
    d = dict(greedy_same=same, compared=compared, draws=DRAWS, false_alarm=rs.FALSE_ALARM)
    if probe is None:
        return dict(d, probe=None, distribution_ok=True)
    rid, ids = probe
    p = rs.sample_probs(lab.forward(list(ids), 0)[0][-1], FLAT)
    q = np.ones(len(p))
    q[0] = 0.0                                             # <bos> is never proposed
    q /= q.sum()
    counts = rs.rule_histogram(p, q, DRAWS, GATE_SEED)
    stat, df = rs.chi_square(counts, p)
    critical = rs.chi_square_critical(df)
    worst = int(np.argmax(np.abs(counts / DRAWS - p)))
    return dict(d, probe=rid, chi2=stat if math.isfinite(stat) else None, df=df, critical=critical,
                distribution_ok=bool(stat < critical), worst=lab.tokenizer.token(worst),
                worst_p=float(p[worst]), worst_seen=float(counts[worst] / DRAWS))
