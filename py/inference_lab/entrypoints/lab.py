"""The lab: run the engine once (and twice more for the policy benchmark), then gather each block's facts.

`run(config)` → `Report`. The engine runs the trace with continuous batching + chunked
prefill (the run every block reads), then again with "static" batching and with
continuous batching without chunking (block [12] compares the three). Each of the 13
blocks gets a plain-JSON `data` dict of what it shows; text.py turns that data into lines with the
Vietnamese sentences of `text_vi.py`, the seed program's (or the English ones of `text_en.py`: `run(cfg, lang="en")`),
so the mechanics never hold a sentence. `render(report, lang)` words the same run again in the
other language from the report's data alone (the page's language switch: no engine run).

Where the seed program crashes, this module does better: a followed request that was
refused (429/400) is reported as such and the invariant checks use a served request
instead (and say so); a run where nobody is served still prints all 13 blocks.

Leaves out: the words (text.py and text_steps.py with their sentence tables text_vi/en.py, text_steps_vi/en.py), the arithmetic of serving (engine, scheduler,
block_manager, model, sampler, quantization, metrics).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np

from ..words import text_en, text_steps_en, text_steps_vi, text_vi
from ..core.config import CORPUS, FIELD_BY_NAME, Config
from ..core.engine import run_engine
from ..core.metrics import summarize
from ..core.model import D_HEAD, D_MODEL, LINEAR, N_HEADS, ForwardCache, forward, make_weights
from ..core.quantization import compare_to_reference, greedy_reference, quantize_weights
from .report import Block, Check, Report
from ..core.steps import StepRecorder
from ..core.tokenizer import BPETokenizer

GATE_STEPS = 8
LANGS = ("vi", "en")                       # the first is the default: the seed's language
TEXTS = {"vi": (text_vi, text_steps_vi), "en": (text_en, text_steps_en)}   # lang -> (blocks' words, steps' words)


@functools.lru_cache(maxsize=8)
def tokenizer_for(n_merges: int) -> BPETokenizer:
    return BPETokenizer.train(CORPUS, n_merges)


@functools.lru_cache(maxsize=8)
def weights_for(seed: int, vocab: int) -> dict:
    W = make_weights(seed, vocab)
    for w in W.values():
        w.setflags(write=False)           # cached across runs: nobody may change them
    return W


@functools.lru_cache(maxsize=8)
def quantized_for(seed: int, n_merges: int, bits: int):
    W = weights_for(seed, tokenizer_for(n_merges).vocab_size)
    Wq, info = quantize_weights(W, bits)
    for w in Wq.values():
        w.setflags(write=False)
    return Wq, info


@functools.lru_cache(maxsize=64)
def reference_for(seed: int, n_merges: int, ids: tuple) -> dict:
    """The original model's greedy decode of one prompt: the same for every QUANT_BITS, so computed once."""
    return greedy_reference(weights_for(seed, tokenizer_for(n_merges).vocab_size), list(ids), GATE_STEPS)


@functools.lru_cache(maxsize=256)
def teacher_forced_for(seed: int, n_merges: int, bits: int, ids: tuple) -> tuple:
    """The quality gate's decisions for one prompt; cached because re-runs rarely change its inputs."""
    return tuple(compare_to_reference(reference_for(seed, n_merges, ids), quantized_for(seed, n_merges, bits)[0], list(ids)))


@functools.lru_cache(maxsize=256)
def quantized_logit_err(seed: int, n_merges: int, bits: int, ids: tuple) -> float:
    """Block [9]'s probe: the largest logit change (without <bos>) quantization makes on one prompt; cached likewise."""
    lg_fp, lg_q = reference_for(seed, n_merges, ids)["prompt_logits"], forward(quantized_for(seed, n_merges, bits)[0], list(ids), 0)[0]
    return float(np.max(np.abs(lg_fp[:, 1:] - lg_q[:, 1:])))


@dataclass(slots=True)
class Lab:
    """Everything one run needs: the config, the tokenizer, the weights and the run's forward()."""
    cfg: Config
    tokenizer: BPETokenizer
    W: dict
    forward: ForwardCache  # shared by the three engine runs of block [12], new for every run

    @classmethod
    def build(cls, cfg: Config) -> "Lab":
        tok = tokenizer_for(cfg.N_MERGES)
        W = weights_for(cfg.SEED, tok.vocab_size)
        return cls(cfg, tok, W, ForwardCache(W))


def arr(a) -> list:
    return np.asarray(a, dtype=float).tolist()


# ── who is followed ────────────────────────────────────────────────────────
def follow_info(cfg, main) -> dict:
    """The followed request's fate; when it was refused or aborted, a served stand-in for the checks."""
    served = [r.id for r in sorted(main.done, key=lambda r: order_of(cfg, r.id))]
    info = dict(id=cfg.FOLLOW, served=cfg.FOLLOW in served, served_ids=served)
    abort = next((a for a in main.aborts if a.request == cfg.FOLLOW), None)
    if abort is not None:
        info.update(code="aborted", stage="cancel", reason="cancel", facts=abort_dict(abort))
    elif not info["served"]:
        d = next(d for d in reversed(main.decisions) if d.request == cfg.FOLLOW)
        info.update(code=d.code, stage=d.stage, reason=d.reason, facts=d.facts)
    return info


def order_of(cfg, rid) -> int:
    return next(i for i, r in enumerate(cfg.REQUESTS) if r["id"] == rid)


def stand_in(main, info, need_decode=False):
    """The served sequence whose snapshots the checks read: FOLLOW, else the first served one."""
    by_id = {r.id: r for r in main.done}
    ids = ([info["id"]] if info["served"] else []) + info["served_ids"]
    for rid in ids:
        if not need_decode or rid in main.trace["first_decode"]:
            return by_id[rid]
    return None


# ── the blocks' facts ──────────────────────────────────────────────────────
def header_data(lab) -> dict:
    cfg = lab.cfg
    return dict(requests=[dict(r) for r in cfg.REQUESTS], follow=cfg.FOLLOW, slots=cfg.SLOTS,
                queue_limit=cfg.QUEUE_LIMIT, token_budget=cfg.TOKEN_BUDGET, block_size=cfg.BLOCK_SIZE,
                pool_blocks=cfg.POOL_BLOCKS, max_context=cfg.MAX_CONTEXT, n_heads=N_HEADS, d_model=D_MODEL,
                vocab=lab.tokenizer.vocab_size, seed=cfg.SEED, prefix_cache=cfg.PREFIX_CACHE == "on",
                sched_policy=cfg.SCHED_POLICY, cancels=any(r.get("cancel_at") is not None for r in cfg.REQUESTS))


def abort_dict(a) -> dict:
    return dict(step=a.step, time=a.time, request=a.request, cancel_at=a.cancel_at, stage=a.stage,
                blocks=list(a.blocks), generated=a.generated)


def overtake_dict(o) -> dict:
    return dict(step=o.step, time=o.time, request=o.request, priority=o.priority, overtaken=[dict(x) for x in o.overtaken])


def decision_dict(d) -> dict:
    return dict(request=d.request, stage=d.stage, code=d.code, reason=d.reason, facts=d.facts)


def block1_data(lab, main) -> dict:
    cfg = lab.cfg
    arrival = {r["id"]: r["arrival"] for r in reversed(cfg.REQUESTS)}
    gate = [dict(decision_dict(d), arrival=arrival[d.request]) for d in main.decisions if d.stage == "gateway"]
    codes = [c for _, c in main.rejected]
    return dict(capacity=cfg.SLOTS + cfg.QUEUE_LIMIT, decisions=gate, offered=len(cfg.REQUESTS),
                n_429=codes.count("429"), n_400=codes.count("400"), served=len(main.done),
                n_aborted=len(main.aborted), aborts=[abort_dict(a) for a in main.aborts])


def seq_brief(seq) -> dict:
    return dict(id=seq.id, text=seq.text, tokens=list(seq.tokens), ids=list(seq.ids), prompt_len=seq.prompt_len,
                max_new=seq.max_new)


def block2_data(lab, main, info, S) -> dict:
    cfg, tok = lab.cfg, lab.tokenizer
    follow = next(s for s in main.done + main.aborted + [s for s, _ in main.rejected] if s.id == cfg.FOLLOW)
    return dict(prefix_cache=main.pool.enable_caching, cached_tokens=follow.num_cached_tokens or 0,
                n_merges=len(tok.merges), n_corpus=len(CORPUS), vocab=tok.vocab_size,
                first_merges=["".join(m) for m in tok.merges[:5]], follow=seq_brief(follow),
                prompt_lens=[(r.id, r.prompt_len) for r in main.done],
                blocked=[decision_dict(d) for d in main.decisions if d.stage == "input" and d.code == "400"],
                cost_gateway=cfg.COST_GATEWAY, cost_tokenize=cfg.COST_TOKENIZE_PER_TOKEN, max_context=cfg.MAX_CONTEXT,
                prep=S["per"][cfg.FOLLOW]["prep"] if info["served"] else None,
                merge_steps=tok.merge_steps(follow.text), follow_ids=piece_ids(tok, follow.text),
                budget=budget_rows(lab, main), block_size=cfg.BLOCK_SIZE, pool_blocks=cfg.POOL_BLOCKS)


def piece_ids(tok, text) -> list:
    """The template's pieces of `text` with their IDs (None for a piece the vocabulary lacks)."""
    return [[p, tok.token_to_id.get(p)] for p in tok.pieces(text)]


def budget_rows(lab, main) -> list[dict]:
    """Every request's prompt + max_new against MAX_CONTEXT and its fate, in REQUESTS order. A request
    refused at the gateway was never tokenized: its prompt length is what the tokenizer would give."""
    tok, last = lab.tokenizer, {d.request: d for d in main.decisions}
    rows = []
    for r in lab.cfg.REQUESTS:
        d = last[r["id"]]
        prompt = None if tok.unknown(r["text"]) else len(tok.pieces(r["text"]))
        rows.append(dict(id=r["id"], prompt=prompt, max_new=r["max_new"],
                         total=None if prompt is None else prompt + r["max_new"], code=d.code, stage=d.stage,
                         reason=d.reason, tokenized=d.stage == "input"))
    return rows


def step_dict(st) -> dict:
    return dict(start=st.start, end=st.end, waiting=st.waiting, running=st.running,
                tasks=[list(t) for t in st.tasks], decode=st.decode, prefill=st.prefill, kv_used=st.kv_used,
                preempted=list(st.preempted), block_owners=dict(st.block_owners),
                shared={b: list(ids) for b, ids in st.shared.items()}, cached_free=list(st.cached_free))


def preemption_dict(p) -> dict:
    return dict(step=p.step, time=p.time, request=p.request, blocks=list(p.blocks), generated=p.generated,
                recompute=p.recompute, priority=p.priority, arrival=p.arrival)


def block3_data(lab, main, info, S) -> dict:
    cfg, steps = lab.cfg, main.steps
    d = dict(steps=[step_dict(s) for s in steps], token_budget=cfg.TOKEN_BUDGET,
             preemptions=[preemption_dict(p) for p in main.preemptions],
             mixed=[i + 1 for i, st in enumerate(steps) if st.decode and st.prefill],
             chunks=[n for st in steps for rid, p, n in st.tasks if p == "prefill" and rid == cfg.FOLLOW],
             sched_policy=cfg.SCHED_POLICY, overtakes=[overtake_dict(o) for o in main.overtakes],
             aborts=[abort_dict(a) for a in main.aborts])
    if steps:
        lone = steps[0].tasks[0][0]
        d.update(lone=lone, late=[dict(id=r.id, ready=r.ready) for r in main.done
                                  if r.id != lone and r.arrival <= steps[0].start])
    if info["served"]:
        f = {r.id: r for r in main.done}[cfg.FOLLOW]
        d["follow"] = dict(prompt_len=f.prompt_len, ready=f.ready, start=f.start, queue=S["per"][f.id]["queue"],
                           preempted=f.num_preemptions)
    return d


def block4_data(lab, main, info, S, chunks) -> dict:
    if not info["served"]:
        return dict(chunks=chunks)
    f = {r.id: r for r in main.done}[info["id"]]
    fs = main.trace["first_sample"][f.id]
    row = fs["logits"]
    top3 = np.argsort(row)[::-1][:3]
    return dict(chunks=chunks, preempted=f.num_preemptions, prompt_len=f.prompt_len,
                prefix_cache=main.pool.enable_caching, cached_tokens=f.num_cached_tokens or 0, k_shape=[N_HEADS, f.prompt_len, D_HEAD], logits=arr(row),
                top3=top3.tolist(), top3_tokens=[lab.tokenizer.token(i) for i in top3], top3_scores=arr(row[top3]),
                first_time=f.token_times[0], arrival=f.arrival, ttft=S["per"][f.id]["ttft"])


def block5_data(lab, main, info) -> dict:
    d = dict(parity=main.trace["parity"], vocab=lab.tokenizer.vocab_size)
    if info["served"]:
        lp = main.trace["last_prefill"][info["id"]]
        a0, a1 = lp["prob"][0], lp["prob"][1]
        f = {r.id: r for r in main.done}[info["id"]]
        d.update(token=int(lp["token"]), token_text=lab.tokenizer.token(lp["token"]), position=lp["position"],
                 context=[lab.tokenizer.token(i) for i in f.ids[:lp["position"] + 1]],
                 heads=[arr(a0), arr(a1)], sums=[float(a0.sum()), float(a1.sum())],
                 argmax=[int(np.argmax(a0)), int(np.argmax(a1))])
    return d


def block6_data(lab, main, runs) -> dict:
    pool, cfg = main.pool, lab.cfg
    pk = pool.peak
    return dict(block_size=cfg.BLOCK_SIZE, pool_blocks=cfg.POOL_BLOCKS, max_context=cfg.MAX_CONTEXT, slots=cfg.SLOTS,
                peak=dict(used=pk["used"], tables={k: list(v) for k, v in pk["tables"].items()}, tokens=pk["tokens"],
                          step=pk["step"]),
                released=[[rid, list(b)] for rid, b in pool.released],
                reused=[[b, list(o)] for b, o in sorted(pool.owners.items()) if len(o) > 1],
                owners={str(b): list(o) for b, o in sorted(pool.owners.items())},
                free=len(pool.free), free_sorted=sorted(pool.free) == list(range(cfg.POOL_BLOCKS)),
                gather=main.trace["gather"], preemptions=[preemption_dict(p) for p in main.preemptions],
                any_preemption=any(res.preemptions for res in runs.values()), served=len(main.done),
                **prefix_cache_data(main))


def prefix_cache_data(main) -> dict:
    """Block [6]'s prefix-cache facts: hits per request, shared blocks, evictions (empty when it is off)."""
    pool = main.pool
    ran = sorted(main.done + main.aborted, key=lambda r: r.id)
    return dict(prefix_cache=pool.enable_caching,
                prefix_hits={r.id: r.num_cached_tokens or 0 for r in ran if r.num_cached_tokens is not None},
                hits=[dict(step=st, request=rid, blocks=list(b), tokens=len(b) * pool.block_size, recompute=rc)
                      for st, rid, b, rc in pool.hits],
                shared_blocks=sorted(pool.shared_blocks), max_shared=pool.max_shared,
                evictions=[dict(step=st, block=b, hash=h) for st, b, h in pool.evictions],
                cached_free=pool.cached_free(),
                pool_problems=[dict(step=st, code=code) for st, code in pool.problems])


def block7_data(lab, main, info) -> dict:
    tr = main.trace
    d = dict(positions_cached=tr["positions_cached"], positions_naive=tr["positions_naive"])
    if not info["served"]:
        return d
    f = {r.id: r for r in main.done}[info["id"]]
    n_dec = sum(1 for st in main.steps for rid, p, n in st.tasks if p == "decode" and rid == f.id)
    d.update(n_out=len(f.out), n_decode=n_dec, cache_len=f.prompt_len + len(f.out) - 1, preempted=f.num_preemptions)
    fd = tr["first_decode"].get(f.id)
    if fd is not None:
        d0 = fd["prob"][0, 0]
        d.update(first_decode=dict(token=int(fd["token"]), token_text=lab.tokenizer.token(fd["token"]),
                                   position=fd["position"], weights=arr(d0), sum=float(d0.sum())))
    return d


def block8_data(lab, main, info) -> dict:
    tok = lab.tokenizer
    stops = [dict(id=r.id, reason=r.reason, n=len(r.out), max_new=r.max_new, text=tok.decode(r.out)) for r in main.done]
    aborted = [dict(id=r.id, n=len(r.out), max_new=r.max_new, text=tok.decode(r.out), time=r.finish,
                    cancel_at=r.cancel_at) for r in main.aborted]
    d = dict(vocab=tok.vocab_size, tokens=list(tok.id_to_token), stops=stops, aborted=aborted)
    if not info["served"]:
        return d
    f = {r.id: r for r in main.done}[info["id"]]
    fs = main.trace["first_sample"][f.id]
    kept = np.flatnonzero(fs["filtered"] > 0)
    top = np.argsort(fs["probs"])[::-1][:5]
    d.update(temperature=f.temperature, top_k=f.top_k, top_p=f.top_p, seed=f.seed, mode=fs["mode"],
             probs=arr(fs["probs"]), filtered=arr(fs["filtered"]), probs_sum=float(fs["probs"].sum()),
             top5=[[tok.token(i), float(fs["probs"][i])] for i in top],
             kept=[[tok.token(i), float(fs["filtered"][i])] for i in kept], kept_ids=kept.tolist(),
             token=fs["token"], token_text=tok.token(fs["token"]),
             stream=[[t, tok.token(x)] for t, x in zip(f.token_times, f.out)])
    return d


def block9_data(lab, main, info, qinfo) -> dict:
    cfg = lab.cfg
    n_el = sum(i["elements"] for i in qinfo.values())
    n_sc = sum(i["scales"] for i in qinfo.values())
    fp32_bytes, int_bytes = 4 * n_el, n_el * cfg.QUANT_BITS / 8 + 4 * n_sc
    probe = probe_prompt(lab, main, info)
    d = dict(bits=cfg.QUANT_BITS, n_linear=len(LINEAR), elements=n_el, scales=n_sc, levels=2 ** (cfg.QUANT_BITS - 1) - 1,
             fp32_bytes=fp32_bytes, int_bytes=int_bytes,
             max_err=max(i["max_err"] for i in qinfo.values()), half_scale=max(i["half_scale"] for i in qinfo.values()),
             within_half_scale=all(i["within_half_scale"] for i in qinfo.values()),
             matrices={k: dict(v) for k, v in qinfo.items()}, probe=probe[0] if probe else None)
    if probe:
        d["logit_err"] = quantized_logit_err(cfg.SEED, cfg.N_MERGES, cfg.QUANT_BITS, tuple(probe[1]))
    return d


def probe_prompt(lab, main, info):
    """(request id, prompt ids) for block [9]: FOLLOW's prompt, or a stand-in when it has none."""
    by_id = {r.id: r for r in main.done + main.aborted + [s for s, _ in main.rejected]}
    for rid in [info["id"]] + info["served_ids"] + [r["id"] for r in lab.cfg.REQUESTS]:
        if by_id[rid].ids:
            return rid, by_id[rid].ids
    return None


def block10_data(lab, main) -> dict:
    cfg, pool = lab.cfg, main.pool
    layers, ctx, kvh, hd, bpe = 32, 4096, 8, 128, 2
    return dict(bytes_per_token=2 * N_HEADS * D_HEAD * pool.K.itemsize, itemsize=pool.K.itemsize,
                pool_bytes=pool.K.nbytes + pool.V.nbytes, weight_bytes=sum(w.nbytes for w in lab.W.values()),
                pool_blocks=cfg.POOL_BLOCKS, block_size=cfg.BLOCK_SIZE, n_heads=N_HEADS, d_head=D_HEAD,
                peak_used=pool.peak["used"], example=dict(layers=layers, ctx=ctx, kv_heads=kvh, head_dim=hd,
                                                          bytes=bpe, hbm_gib=80, weights_gib=16),
                budget=memory_budget(lab, pool))


def memory_budget(lab, pool) -> dict:
    """The lab's "HBM" in bytes at the KV peak: weights + KV blocks in use (the tokens they hold and the
    empty slots of partly filled blocks) + free KV blocks; the parts add up to `total`."""
    per_token = 2 * N_HEADS * D_HEAD * pool.K.itemsize                     # K and V of one position
    block_bytes = lab.cfg.BLOCK_SIZE * per_token
    weights, kv_pool = sum(w.nbytes for w in lab.W.values()), pool.K.nbytes + pool.V.nbytes
    in_use, stored = pool.peak["used"] * block_bytes, pool.peak["tokens"] * per_token
    return dict(weights=weights, kv_stored=stored, kv_slack=in_use - stored, kv_free=kv_pool - in_use,
                kv_in_use=in_use, kv_pool=kv_pool, total=weights + kv_pool, block_bytes=block_bytes,
                per_token=per_token, peak_blocks=pool.peak["used"], peak_tokens=pool.peak["tokens"],
                peak_step=pool.peak["step"])


def request_timeline(r, m) -> dict:
    return dict(id=r.id, status="finished", arrival=r.arrival, ready=r.ready, start=r.start, first=r.token_times[0],
                finish=r.finish, token_times=list(r.token_times), preemptions=r.num_preemptions, **m)


def aborted_timeline(r) -> dict:
    """An aborted request: what it got before the abort; no TTFT without a first token."""
    first = r.token_times[0] if r.token_times else None
    return dict(id=r.id, status="aborted", arrival=r.arrival, ready=r.ready, start=r.start, first=first,
                finish=r.finish, token_times=list(r.token_times), preemptions=r.num_preemptions,
                prep=r.ready - r.arrival, queue=None if r.start is None else r.start - r.ready,
                prefill=None if first is None else first - r.start, ttft=None if first is None else first - r.arrival,
                tpot=None, e2e=None, gap=None, n=len(r.out), cancel_at=r.cancel_at)


def block11_data(lab, main, S, nocache=None) -> dict:
    cfg = lab.cfg
    by_id = {r.id: r for r in main.done}
    lost = {}
    for p in main.preemptions:
        lost.setdefault(p.request, []).append(p.step)
    d = dict(steps=[step_dict(s) for s in main.steps], pool_blocks=cfg.POOL_BLOCKS, ttft_slo=cfg.TTFT_SLO,
             requests=[request_timeline(by_id[rid], m) for rid, m in sorted(S["per"].items())]
             + [aborted_timeline(r) for r in main.aborted],
             rejected=[dict(id=s.id, code=c, arrival=s.arrival) for s, c in main.rejected],
             preempted_at=lost)
    if nocache is not None:
        d["ttft_saved"] = ttft_saved(main, nocache)
    return d


def ttft_saved(main, nocache) -> list[dict]:
    """TTFT with and without the prefix cache, for the requests with a first token in both runs."""
    with_cache = {r.id: r for r in main.done + main.aborted if r.token_times}
    without = {r.id: r for r in nocache.done + nocache.aborted if r.token_times}
    return [dict(id=rid, ttft=with_cache[rid].token_times[0] - with_cache[rid].arrival,
                 ttft_nocache=without[rid].token_times[0] - without[rid].arrival,
                 saved=without[rid].token_times[0] - with_cache[rid].token_times[0],
                 cached_tokens=with_cache[rid].num_cached_tokens or 0)
            for rid in sorted(with_cache) if rid in without]


def summary_dict(S) -> dict:
    return {k: v for k, v in S.items() if k != "per"}


def block12_data(lab, main, runs, S) -> dict:
    by_id = {r.id: r for r in main.done}
    same = all(r.out == by_id[r.id].out for res in runs.values() for r in res.done if r.id in by_id)
    per = [dict(id=rid, ttft=m["ttft"], tpot=m["tpot"], e2e=m["e2e"], n=m["n"]) for rid, m in sorted(S["per"].items())]
    policies = [dict(policy=name, **summary_dict(summarize(res.done)), preemptions=len(res.preemptions),
                     served=len(res.done)) for name, res in runs.items()]
    return dict(per=per, same=same, policies=policies, token_budget=lab.cfg.TOKEN_BUDGET)


def gate_result(lab, bits: int) -> dict:
    """The quality gate at `bits`: every prompt's top-1 decisions, original vs quantized (teacher forcing)."""
    cfg, tok = lab.cfg, lab.tokenizer
    rows, skipped, tight, flips, decisions = [], [], None, 0, 0
    for r in sorted(cfg.REQUESTS, key=lambda r: r["id"]):
        unknown = tok.unknown(r["text"])
        if unknown:
            skipped.append(dict(id=r["id"], pieces=unknown, chars=tok.unknown_chars(r["text"])))
            continue
        res = teacher_forced_for(cfg.SEED, cfg.N_MERGES, bits, tuple(tok.encode(r["text"])[1]))
        agree = sum(x["token"] == x["token_q"] for x in res)
        flips += len(res) - agree
        decisions += len(res)
        low = min(res, key=lambda x: x["margin"])
        if tight is None or low["margin"] < tight["margin"]:
            tight = dict(low, id=r["id"])
        rows.append(dict(id=r["id"], agree=agree, n=len(res), max_err=max(x["err"] for x in res), decisions=list(res)))
    agreement = (decisions - flips) / decisions if decisions else None
    return dict(bits=bits, steps=GATE_STEPS, rows=rows, skipped=skipped, decisions=decisions, flips=flips,
                agreement=agreement, gate=cfg.QUALITY_GATE,
                passed=agreement is not None and agreement >= cfg.QUALITY_GATE, tight=tight)


def sweep_bits(bits: int) -> list[int]:
    """QUANT_BITS and its two neighbours, shifted to stay inside the schema's bounds (8 -> 6, 7, 8)."""
    f = FIELD_BY_NAME["QUANT_BITS"]
    lo = min(max(int(f.min), bits - 1), int(f.max) - 2)
    return [lo, lo + 1, lo + 2]


def quant_sweep(lab, probe, current: dict) -> list[dict]:
    """The trade-off of blocks [9] and [13] at QUANT_BITS and its neighbours: weight bytes against the
    largest logit error on block [9]'s probe prompt and the share of top-1 decisions the gate keeps.
    The neighbours' runs are cached like the current one's (lru caches keyed by seed, merges, bits)."""
    cfg, out = lab.cfg, []
    for bits in sweep_bits(cfg.QUANT_BITS):
        qinfo = quantized_for(cfg.SEED, cfg.N_MERGES, bits)[1]
        n_el, n_sc = sum(i["elements"] for i in qinfo.values()), sum(i["scales"] for i in qinfo.values())
        gate = current if bits == cfg.QUANT_BITS else gate_result(lab, bits)
        out.append(dict(bits=bits, current=bits == cfg.QUANT_BITS, levels=2 ** (bits - 1) - 1,
                        fp32_bytes=4 * n_el, int_bytes=n_el * bits / 8 + 4 * n_sc,
                        max_err=max(i["max_err"] for i in qinfo.values()),
                        logit_err=quantized_logit_err(cfg.SEED, cfg.N_MERGES, bits, tuple(probe[1])) if probe else None,
                        agreement=gate["agreement"], kept=gate["decisions"] - gate["flips"], decisions=gate["decisions"],
                        passed=gate["passed"]))
    return out


def block13_data(lab, main, info) -> dict:
    d = gate_result(lab, lab.cfg.QUANT_BITS)
    probe = probe_prompt(lab, main, info)
    d.update(sweep=quant_sweep(lab, probe, d), probe=probe[0] if probe else None)
    return d


# ── invariant checks ───────────────────────────────────────────────────────
def run_checks(lab, main, info, blocks, S, nocache=None) -> list[Check]:
    cfg, tr = lab.cfg, main.trace
    b1, b6, b12 = blocks[1], blocks[6], blocks[12]
    checks = [
        Check("offered", b1["offered"] == b1["served"] + b1["n_429"] + b1["n_400"] + b1["n_aborted"]),
        Check("parity", tr["parity"] <= 1e-9),
        Check("gather", tr["gather"] <= 1e-9),
        Check("blocks_returned", b6["free"] == cfg.POOL_BLOCKS and b6["free_sorted"]),
        Check("same_tokens", b12["same"]),
        Check("positions", tr["positions_cached"] <= tr["positions_naive"]
              and (tr["positions_cached"] < tr["positions_naive"] or not any(st.decode for st in main.steps))),
        Check("tokens_counted", S["tokens"] == sum(len(r.out) for r in main.done)),
        Check("quantization_error", blocks[9]["within_half_scale"]),
        Check("pool_invariants", not main.pool.problems),             # the violations: block [6] pool_problems
    ]
    if nocache is not None:
        checks.append(Check("prefix_cache_same_text", same_text(main, nocache)))
    return checks + distribution_checks(main, info)


def same_text(main, other) -> bool:
    """Every request generates the same tokens in both runs (an aborted one: a prefix of the other's)."""
    a = {r.id: r.out for r in main.done + main.aborted}
    b = {r.id: r.out for r in other.done + other.aborted}
    finished = {r.id for r in main.done} & {r.id for r in other.done}
    return all(a[k] == b[k] if k in finished else a[k][:len(b[k])] == b[k][:len(a[k])] for k in a.keys() & b.keys())


def distribution_checks(main, info) -> list[Check]:
    """Probabilities and attention rows sum to 1: on FOLLOW, or on a served stand-in (said in `detail`)."""
    tr, out = main.trace, []
    seq = stand_in(main, info)
    if seq is None:
        return [Check(n, True, "skipped") for n in ("probabilities", "attention")]
    fs, lp = tr["first_sample"][seq.id], tr["last_prefill"][seq.id]
    ok = (abs(fs["probs"].sum() - 1.0) < 1e-9 and abs(fs["filtered"].sum() - 1.0) < 1e-9
          and bool(np.all(fs["filtered"][fs["probs"] == 0] == 0)))
    out.append(Check("probabilities", ok, seq.id))
    rows = [lp["prob"][0], lp["prob"][1]]
    dseq = stand_in(main, info, need_decode=True)
    if dseq is not None:
        rows.append(tr["first_decode"][dseq.id]["prob"][0, 0])
    out.append(Check("attention", all(abs(a.sum() - 1.0) < 1e-9 for a in rows),
                     seq.id if dseq is None or dseq.id == seq.id else f"{seq.id},{dseq.id}"))
    return out


# ── the whole run ──────────────────────────────────────────────────────────
def run(config: Config | dict | None = None, lang: str = "vi") -> Report:
    """Run the lab with `config` (a Config, a partial {NAME: value} dict, or None for the seed's defaults),
    worded in `lang` ("vi", the seed's words, or "en")."""
    if lang not in TEXTS:
        raise ValueError(f"lang must be one of {', '.join(LANGS)} (got {lang!r})")
    cfg = config if isinstance(config, Config) else Config.from_values(config or {})
    lab = Lab.build(cfg)
    recorder = StepRecorder(cfg)              # only the main run is recorded: the one block [3] prints
    main = run_engine(lab, "continuous", cfg.TOKEN_BUDGET, recorder=recorder)
    runs = {"static": run_engine(lab, "static", None, check=False), "nochunk": run_engine(lab, "continuous", None, check=False),
            "chunked": main}
    nocache = run_engine(lab, "continuous", cfg.TOKEN_BUDGET, check=False, prefix_cache=False) if main.pool.enable_caching else None
    S = summarize(main.done)
    info = follow_info(cfg, main)
    qinfo = quantized_for(cfg.SEED, cfg.N_MERGES, cfg.QUANT_BITS)[1]
    data = {0: header_data(lab), 1: block1_data(lab, main), 2: block2_data(lab, main, info, S),
            3: block3_data(lab, main, info, S)}
    data.update({4: block4_data(lab, main, info, S, data[3]["chunks"]), 5: block5_data(lab, main, info),
                 6: block6_data(lab, main, runs), 7: block7_data(lab, main, info), 8: block8_data(lab, main, info),
                 9: block9_data(lab, main, info, qinfo), 10: block10_data(lab, main),
                 11: block11_data(lab, main, S, nocache), 12: block12_data(lab, main, runs, S),
                 13: block13_data(lab, main, info)})
    checks = run_checks(lab, main, info, data, S, nocache)
    facts = Report(config=cfg.to_dict(), header=[], blocks=[Block(n, text_vi.BLOCK_CODES[n], "", [], data[n]) for n in range(1, 14)],
                   summary=[], checks=checks, follow=info, steps=recorder.to_dict(), header_data=data[0])
    return render(facts, lang)


def bare_record(steps) -> dict:
    """The step record without any words (what StepRecorder.to_dict() gave), from a narrated one."""
    items = [{k: v for k, v in it.items() if k not in ("title", "text")} for it in steps["items"]]
    return {**{k: v for k, v in steps.items() if k not in ("after_text", "wait_labels")}, "items": items}


def narrated(record, step_text) -> dict:
    """The step record with each step's title and narration lines added (a new dict; the record is kept)."""
    items = [dict(it, title=title, text=lines) for it, (title, lines) in zip(record["items"], step_text.narrate(record))]
    return dict(record, items=items, after_text=step_text.after_lines(record), wait_labels=dict(step_text.WAIT_WHY))


def follow_metrics(report) -> dict | None:
    """FOLLOW's TTFT parts (prep, queue, prefill, ttft), read back from block [11]'s timeline."""
    return next((m for m in report.block(11).data["requests"]
                 if m["id"] == report.follow["id"] and m.get("status", "finished") == "finished"), None)


def render(report: Report, lang: str = "vi") -> Report:
    """`report` worded in `lang`: every line comes from the report's data (blocks' data, header_data, config,
    follow, checks, the step record), so a report from `to_dict()` JSON renders exactly like a new run."""
    if lang not in TEXTS:
        raise ValueError(f"lang must be one of {', '.join(LANGS)} (got {lang!r})")
    text, step_text = TEXTS[lang]
    ctx = text.Context(cfg=report.config, follow=report.follow, follow_metrics=follow_metrics(report))
    blocks = []
    for b in report.blocks:
        title, lines = text.BLOCKS[b.number](b.data, ctx)
        blocks.append(Block(b.number, b.code, title, lines, b.data))
    checks = [replace(c, label="") for c in report.checks]
    summary = text.summary_lines(ctx, checks)
    checks = [replace(c, label=text.CHECK_LABELS[c.name]) for c in checks]
    return Report(config=report.config, header=text.header_lines(report.header_data), blocks=blocks, summary=summary,
                  checks=checks, follow=report.follow, steps=narrated(bare_record(report.steps), step_text),
                  header_data=report.header_data, lang=lang)
