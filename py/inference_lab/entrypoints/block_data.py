"""The blocks' facts: one plain-JSON `data` dict per block (0 = the run header, 1..13), from the main engine
run, its run log and the comparison runs; words/text.py words them.

Each `blockN_data(lab, main, ...)` reads the main run (`engine.EngineResult`: finished and refused sequences,
the block pool, the snapshots of `trace`, the run log `main.log`). The steps themselves are not repeated
here: report.steps (the run log, run_log.py) holds them, and blocks [3] and [11] word their step lines
from it. Nor are the run's constants (SLOTS, POOL_BLOCKS, TTFT_SLO, ...): report.config is their one place.
Where the seed program crashes, this module does better: a followed request that was refused (429/400)
or aborted is reported as such, and the checks use a served stand-in (`follow_info`, `stand_in`).

Leaves out: running the engine and the invariant checks (lab.py), the cached weights (weights.py), the words.
"""
from __future__ import annotations

from ..core.clock import calibration
from ..core.clock.hardware import GPUS, MiB, MODELS, kv_budget, shadow_model

import numpy as np

from ..core.cluster.economics import economics
from ..core.inputs import trace_workload
from ..core.inputs.config import FIELD_BY_NAME
from ..core.serving.engine import Decision
from ..core.serving.metrics import step_mix, summarize
from ..core.model.model import D_HEAD, D_MODEL, KV_SCALE, LINEAR, LONG, LONG_PROMPT, N_HEADS, stand_in_ids
from ..core.model.tokenizer import CORPUS
from .forks import Tally
from .spec_data import same_tokens
from .weights import (GATE_PROMPTS, GATE_STEPS, kv_error_for, kv_teacher_forced_for, quantized_for,
                      quantized_logit_err, teacher_forced_for)


def arr(a) -> list:
    return np.asarray(a, dtype=float).tolist()


# ── who is followed ────────────────────────────────────────────────────────
def follow_info(cfg, main) -> dict:
    """The followed request's fate; when it was refused or aborted, a served stand-in for the checks."""
    order = order_of(cfg)
    served = [r.id for r in sorted(main.done, key=lambda r: order[r.id])]
    info = dict(id=cfg.FOLLOW, served=cfg.FOLLOW in served, served_ids=served)
    abort = next((a for a in main.log.happenings("abort") if a["request"] == cfg.FOLLOW), None)
    if abort is not None:
        info.update(code="aborted", stage="cancel", reason="cancel", facts=abort)
    elif not info["served"]:
        d = next(d for d in reversed(main.decisions) if d.request == cfg.FOLLOW)
        info.update(code=d.code, stage=d.stage, reason=d.reason, facts=d.facts)
    return info


def order_of(cfg) -> dict:
    """{request id: its first place in REQUESTS} (one dict: a lookup per request in the list was 1,000 × 1,000
    steps for a 1,000-request run)."""
    out = {}
    for i, r in enumerate(cfg.REQUESTS):
        out.setdefault(r["id"], i)
    return out


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
    """The model's sizes the header prints; the run's constants it prints are report.config's. A recorded trace
    (WORKLOAD_TRACE) adds `clipped`: how many of its requests were cut to fit MAX_CONTEXT (trace_workload.fitted),
    and with MAX_CONTEXT = auto `max_context_auto`: how it was resolved (context.max_context)."""
    sizes = dict(n_heads=N_HEADS, d_model=D_MODEL, vocab=lab.tokenizer.vocab_size)
    v = lab.cfg.to_dict()
    if v.get("WORKLOAD_REQUESTS") and v.get("WORKLOAD_TRACE", "off") != "off":
        sizes["clipped"] = trace_workload.clipped(v)
    if lab.cfg.max_context_auto:
        sizes["max_context_auto"] = dict(lab.cfg.max_context_auto)
    return sizes


def decision_dict(d) -> dict:
    return dict(request=d.request, stage=d.stage, code=d.code, reason=d.reason, facts=d.facts)


def block1_data(lab, main) -> dict:
    cfg = lab.cfg
    arrival = {r["id"]: r["arrival"] for r in reversed(cfg.REQUESTS)}
    gate = [dict(decision_dict(d), arrival=arrival[d.request]) for d in main.decisions if d.stage == "gateway"]
    if getattr(main, "replicas", None):   # a cluster merges its replicas' decisions: put them in arrival order again
        order = {r["id"]: i for i, r in enumerate(cfg.REQUESTS)}
        gate.sort(key=lambda x: (x["arrival"], order[x["request"]]))
    codes = [c for _, c in main.rejected]
    return dict(capacity=cfg.SLOTS + cfg.QUEUE_LIMIT, decisions=gate, offered=len(cfg.REQUESTS),
                n_429=codes.count("429"), n_400=codes.count("400"), served=len(main.done),
                n_aborted=len(main.aborted), aborts=main.log.happenings("abort"))


def seq_brief(seq) -> dict:
    return dict(id=seq.id, text=seq.text, tokens=list(seq.tokens), ids=list(seq.ids), prompt_len=seq.prompt_len,
                max_new=seq.max_new)


SHOWN_WORDS = 24     # the words of a long prompt (one with a stand-in) block [2] prints and draws: a screen's worth


def block2_data(lab, main, info, S) -> dict:
    cfg, tok = lab.cfg, lab.tokenizer
    follow = next(s for s in main.done + main.aborted + [s for s, _ in main.rejected] if s.id == cfg.FOLLOW)
    brief, text, shown = seq_brief(follow), follow.text, {}
    if follow.stand_in_skip:             # a prompt of more than model.LONG_PROMPT tokens: its first SHOWN_WORDS words
        text = " ".join(text.split()[:SHOWN_WORDS])
        n = len(tok.pieces(text))
        brief.update(text=text + " …", tokens=brief["tokens"][:n], ids=brief["ids"][:n])
        shown = dict(shown=dict(words=SHOWN_WORDS, tokens=n))
    return dict(cached_tokens=follow.num_cached_tokens or 0,
                n_merges=len(tok.merges), n_corpus=len(CORPUS), vocab=tok.vocab_size,
                first_merges=["".join(m) for m in tok.merges[:5]], follow=brief,
                prompt_lens=[(r.id, r.prompt_len) for r in main.done],
                blocked=[decision_dict(d) for d in main.decisions if d.stage == "input" and d.code == "400"],
                prep=S["per"][cfg.FOLLOW]["prep"] if info["served"] else None,
                merge_steps=tok.merge_steps(text), follow_ids=piece_ids(tok, text),
                budget=budget_rows(lab, main), **shown)


def piece_ids(tok, text) -> list:
    """The template's pieces of `text` with their IDs (None for a piece the vocabulary lacks)."""
    return [[p, tok.token_to_id.get(p)] for p in tok.pieces(text)]


def budget_rows(lab, main) -> list[dict]:
    """Every request's prompt + max_new against MAX_CONTEXT and its fate, in REQUESTS order. A request
    refused at the gateway was never tokenized: its prompt length is what the tokenizer would give; nor was
    one cancelled at or before its arrival (code "aborted", stage "cancel": no decision at all)."""
    tok, last = lab.tokenizer, {d.request: d for d in main.decisions}
    rows = []
    for r in lab.cfg.REQUESTS:
        d = last.get(r["id"]) or Decision(r["id"], "cancel", "aborted", "cancel", {})
        prompt = None if tok.unknown(r["text"]) else len(tok.pieces(r["text"]))
        rows.append(dict(id=r["id"], prompt=prompt, max_new=r["max_new"],
                         total=None if prompt is None else prompt + r["max_new"], code=d.code, stage=d.stage,
                         reason=d.reason, tokenized=d.stage == "input"))
    return rows


def preemptions(lab, main) -> list[dict]:
    """The run log's preemptions, each with the victim's (priority, arrival) the scheduler compared."""
    req = {r["id"]: r for r in lab.cfg.REQUESTS}
    return [dict(p, priority=req[p["request"]].get("priority") or 0, arrival=req[p["request"]]["arrival"])
            for p in main.log.happenings("preempt")]


def block3_data(lab, main, info, S) -> dict:
    """Block [3]'s facts beside the run log (report.steps, which holds every step): preemptions, overtakes, chunks."""
    cfg, steps = lab.cfg, main.log.items
    phases = [{p for _, p, _ in st["tasks"]} for st in steps]
    d = dict(preemptions=preemptions(lab, main),
             mixed=[i + 1 for i, ph in enumerate(phases) if ph == {"decode", "prefill"}],
             chunks=[n for st in steps for rid, p, n in st["tasks"] if p == "prefill" and rid == cfg.FOLLOW],
             overtakes=main.log.happenings("overtake"),
             aborts=main.log.happenings("abort"), kv_waits=main.kv_waits)
    if steps:
        lone = steps[0]["tasks"][0][0]
        d.update(lone=lone, late=[dict(id=r.id, ready=r.ready, **first_replica(main, r.id)) for r in main.done
                                  if r.id != lone and r.arrival <= steps[0]["start"]])
    if info["served"]:
        f = {r.id: r for r in main.done}[cfg.FOLLOW]
        d["follow"] = dict(prompt_len=f.prompt_len, ready=f.ready, start=f.start, queue=S["per"][f.id]["queue"],
                           preempted=f.num_preemptions, **first_replica(main, f.id))
    return d


def first_replica(main, rid) -> dict:
    """{"replica": i}: the replica that admitted and prefilled `rid` on a cluster; {} on one engine."""
    placed = getattr(main, "served_by", {}).get(rid)
    if not placed:
        return {}
    return dict(replica=placed.get("replica", placed.get("prefill_replica")))


def block4_data(lab, main, info, S, chunks) -> dict:
    if not info["served"]:
        return dict(chunks=chunks)
    f = {r.id: r for r in main.done}[info["id"]]
    fs = main.trace["first_sample"][f.id]
    row = fs["logits"]
    top3 = np.argsort(row)[::-1][:3]
    d = dict(chunks=chunks, preempted=f.num_preemptions, prompt_len=f.prompt_len,
             cached_tokens=f.num_cached_tokens or 0, k_shape=[N_HEADS, f.prompt_len, D_HEAD], logits=arr(row),
             top3=top3.tolist(), top3_tokens=[lab.tokenizer.token(i) for i in top3], top3_scores=arr(row[top3]),
             first_time=f.token_times[0], arrival=f.arrival, ttft=S["per"][f.id]["ttft"])
    if f.stand_in_skip:                   # a long prompt: the model computed its stand-in only (model.py)
        d["stand_in"] = dict(skip=f.stand_in_skip, keep=f.stand_in_len, long=LONG_PROMPT,
                             blocks=-(-f.prompt_len // lab.cfg.BLOCK_SIZE), block_size=lab.cfg.BLOCK_SIZE)
        d["k_shape"] = [N_HEADS, f.stand_in_len, D_HEAD]          # the K the model computed and the pool holds
    return d


def block5_data(lab, main, info) -> dict:
    d = dict(parity=main.trace["parity"], vocab=lab.tokenizer.vocab_size)
    if info["served"]:
        lp = main.trace["last_prefill"][info["id"]]
        a0, a1 = lp["prob"][0], lp["prob"][1]
        f = {r.id: r for r in main.done}[info["id"]]
        d.update(token=int(lp["token"]), token_text=lab.tokenizer.token(lp["token"]), position=lp["position"],
                 context=[lab.tokenizer.token(i) for i in stand_in_ids(f.ids)[:lp["position"] + 1]],
                 heads=[arr(a0), arr(a1)], sums=[float(a0.sum()), float(a1.sum())],
                 argmax=[int(np.argmax(a0)), int(np.argmax(a1))])
    return d


def peak_of(main) -> dict:
    """The moment with the most KV blocks in use (the pool's last "peak" note): used, tables, tokens, step."""
    notes = main.log.noted("peak", main.shown)
    if not notes:
        return dict(used=0, tables={}, tokens=0, step=None)
    step, used, tables, tokens = notes[-1]
    return dict(used=used, tables=tables, tokens=tokens, step=step)


def block6_data(lab, main, runs) -> dict:
    pool, cfg = main.pool, lab.cfg
    pk = peak_of(main)
    owners = {}                                           # physical block -> requests that held it, in order
    for _, rid, block, _ in main.log.noted("hold", main.shown):
        owners.setdefault(block, []).append(rid)
    return dict(peak=dict(used=pk["used"], tables={k: list(v) for k, v in pk["tables"].items()}, tokens=pk["tokens"],
                          step=pk["step"]),
                released=[[rid, list(b)] for _, rid, b in main.log.noted("release", main.shown)],
                reused=[[b, list(o)] for b, o in sorted(owners.items()) if len(o) > 1],
                owners={str(b): list(o) for b, o in sorted(owners.items())},
                free=len(pool.free), free_sorted=sorted(pool.free) == list(range(cfg.POOL_BLOCKS)),
                gather=main.trace["gather"], preemptions=preemptions(lab, main), kv_waits=main.kv_waits,
                any_preemption=any(res.preemptions for res in runs.values()), served=len(main.done),
                any_kv_wait=any(res.kv_waits for res in runs.values()),
                **prefix_cache_data(main))


def prefix_cache_data(main) -> dict:
    """Block [6]'s prefix-cache facts: hits per request, shared blocks, evictions (empty when it is off), read from
    the run log (the "cache_hit" and "evict" events, the pool's "hold" notes) and the pool's free queue."""
    pool, log = main.pool, main.log
    ran = sorted(main.done + main.aborted, key=lambda r: r.id)
    shared = [(block, ref) for _, _, block, ref in log.noted("hold", main.shown) if ref > 1]
    return dict(prefix_hits={r.id: r.num_cached_tokens or 0 for r in ran if r.num_cached_tokens is not None},
                hits=[dict(step=h["step"], request=h["request"], blocks=list(h["blocks"]),
                           tokens=len(h["blocks"]) * pool.block_size, recompute=h["recompute"])
                      for h in log.happenings("cache_hit", main.shown)],
                shared_blocks=sorted({b for b, _ in shared}), max_shared=max((r for _, r in shared), default=0),
                evictions=[dict(step=e["step"], block=e["block"], hash=e["hash"])
                           for e in log.happenings("evict", main.shown)],
                cached_free=pool.cached_free(),
                pool_problems=[dict(step=st, code=code) for st, code in main.problems])


def block7_data(lab, main, info) -> dict:
    tr = main.trace
    d = dict(positions_cached=tr["positions_cached"], positions_naive=tr["positions_naive"])
    if not info["served"]:
        return d
    f = {r.id: r for r in main.done}[info["id"]]
    n_dec = sum(1 for st in main.log.items for rid, p, n in st["tasks"] if p == "decode" and rid == f.id)
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
    # the LM head's tokens
    d = dict(vocab=lab.W["U"].shape[1], tokens=list(tok.id_to_token), stops=stops, aborted=aborted)
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
    d = dict(bits=cfg.QUANT_BITS, n_linear=len(LINEAR), elements=n_el, scales=n_sc,
             levels=2 ** (cfg.QUANT_BITS - 1) - 1, fp32_bytes=fp32_bytes, int_bytes=int_bytes,
             max_err=max(i["max_err"] for i in qinfo.values()), half_scale=max(i["half_scale"] for i in qinfo.values()),
             within_half_scale=all(i["within_half_scale"] for i in qinfo.values()),
             matrices={k: dict(v) for k, v in qinfo.items()}, probe=probe[0] if probe else None)
    if probe:
        d["logit_err"] = quantized_logit_err(cfg.SEED, cfg.N_MERGES, cfg.QUANT_BITS, tuple(probe[1]),
                                             lab.tokenizer.byte_fallback)
        if cfg.KV_BITS == 8:                    # the FP8 KV cache's error on the same prompt, weights kept float
            d["kv"] = kv_error_for(cfg.SEED, cfg.N_MERGES, tuple(probe[1]), lab.tokenizer.byte_fallback)
    return d


def weight_bytes(W: dict) -> int:
    """The lab's float64 weight bytes (KV_BITS = 8's per-head KV scales, 2 × 2 numbers, are not weights here)."""
    return sum(w.nbytes for name, w in W.items() if name != KV_SCALE)


def probe_prompt(lab, main, info):
    """(request id, prompt ids) for block [9]: FOLLOW's prompt, or a stand-in when it has none."""
    by_id = {r.id: r for r in main.done + main.aborted + [s for s, _ in main.rejected]}
    for rid in [info["id"]] + info["served_ids"] + [r["id"] for r in lab.cfg.REQUESTS]:
        if by_id[rid].ids:
            return rid, stand_in_ids(by_id[rid].ids)          # a long prompt: what the model computes of it
    return None


def block10_data(lab, main) -> dict:
    pool = main.pool
    layers, ctx, kvh, hd, bpe = 32, 4096, 8, 128, 2
    return dict(bytes_per_token=2 * N_HEADS * D_HEAD * pool.K.itemsize, itemsize=pool.K.itemsize,
                pool_bytes=pool.K.nbytes + pool.V.nbytes, weight_bytes=weight_bytes(lab.W),
                n_heads=N_HEADS, d_head=D_HEAD,
                peak_used=pool.peak_used, example=dict(layers=layers, ctx=ctx, kv_heads=kvh, head_dim=hd,
                                                       bytes=bpe, hbm_gib=80, weights_gib=16),
                budget=memory_budget(lab, pool, peak_of(main)), shadow=shadow_budget(lab.cfg),
                **({"calibration": calibration_data()} if lab.cfg.CLOCK == "roofline" else {}))


def calibration_data() -> dict:
    """Block [10] under CLOCK = roofline: "how far to trust these milliseconds", the lab against published
    measurements (core/clock/calibration.py): every row and the summary."""
    rows = [dict(r) for r in calibration.rows()]
    return dict(rows=rows, summary=calibration.summary(rows), tolerance=calibration.TOLERANCE,
                goal=calibration.MEDIAN_GOAL)


def shadow_budget(cfg) -> dict:
    """Block [10] under CLOCK = roofline: the named GPU's HBM, the shadow model's weights and KV per token, and
    the tokens and MAX_CONTEXT sequences of KV that fit (hardware.kv_budget, vLLM's sizing); with the GPU's
    dense peak FLOP/s at ACT_BITS and its bandwidth (the roofline chart draws them under either clock). Under
    TENSOR_PARALLEL > 1: each GPU's share (kv_budget's room_gpu, weights_gpu, kv_heads_gpu), the GPUs of the
    run (REPLICAS × TENSOR_PARALLEL) and the link the all-reduces use."""
    shape = MODELS[cfg.SHADOW_MODEL]
    b = kv_budget(GPUS[cfg.GPU], shape, cfg.WEIGHT_BITS, cfg.KV_BITS, cfg.BLOCK_SIZE, cfg.GPU_MEMORY_UTILIZATION,
                  cfg.TENSOR_PARALLEL)
    gpu = GPUS[cfg.GPU]
    return dict(b, gpu=cfg.GPU, model=shape.name, layers=shape.layers, kv_heads=shape.kv_heads,
                kv_heads_gpu=shape.kv_heads_per_gpu(cfg.TENSOR_PARALLEL), gpus=cfg.REPLICAS * cfg.TENSOR_PARALLEL,
                link=gpu.link, link_latency=gpu.link_latency, link_source=gpu.link_source,
                head_dim=shape.head_dim, kv_bytes=cfg.KV_BITS // 8, seqs=b["tokens"] // cfg.MAX_CONTEXT,
                mib=round(gpu.hbm / MiB), profile=cfg.ENGINE_PROFILE, act_bits=cfg.ACT_BITS,
                peak=gpu.peak(cfg.ACT_BITS), bandwidth=gpu.bandwidth,
                gpu_source=gpu.source, model_source=shape.source)


def memory_budget(lab, pool, peak: dict) -> dict:
    """The lab's "HBM" in bytes at the KV peak: weights + KV blocks in use (the tokens they hold and the
    empty slots of partly filled blocks) + free KV blocks; the parts add up to `total`."""
    per_token = 2 * N_HEADS * D_HEAD * pool.K.itemsize                     # K and V of one position
    block_bytes = lab.cfg.BLOCK_SIZE * per_token
    weights, kv_pool = weight_bytes(lab.W), pool.K.nbytes + pool.V.nbytes
    in_use, stored = peak["used"] * block_bytes, peak["tokens"] * per_token
    return dict(weights=weights, kv_stored=stored, kv_slack=in_use - stored, kv_free=kv_pool - in_use,
                kv_in_use=in_use, kv_pool=kv_pool, total=weights + kv_pool, block_bytes=block_bytes,
                per_token=per_token, peak_blocks=peak["used"], peak_tokens=peak["tokens"], peak_step=peak["step"])


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
    by_id = {r.id: r for r in main.done}
    lost = {}
    for p in main.preemptions:
        lost.setdefault(p["request"], []).append(p["step"])
    d = dict(requests=[request_timeline(by_id[rid], m) for rid, m in sorted(S["per"].items())]
             + [aborted_timeline(r) for r in main.aborted],
             rejected=[dict(id=s.id, code=c, arrival=s.arrival) for s, c in main.rejected],
             preempted_at=lost)
    if nocache is not None:
        d["ttft_saved"] = ttft_saved(main, nocache)
    v = lab.cfg.to_dict()
    if v.get("WORKLOAD_REQUESTS") and v.get("WORKLOAD_TRACE", "off") != "off":    # a recorded trace's tails
        d["distributions"] = trace_workload.distributions(v)
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


def policy_steps(log) -> dict:
    """What block [12] reads of a policy's run log: its step count, its memory-bound steps and step_mix (a forked
    replay's child reads them, forks.slim: its steps do not cross back)."""
    return dict(steps=log.count, memory_bound=sum(it["cost"]["bound"] == "memory" for it in log.items),
                **step_mix(log.items))


def block12_data(lab, main, runs, S) -> dict:
    same, scope = same_tokens(lab.cfg, main, runs)         # speculation on: the greedy requests (spec_data.py)
    per = [dict(id=rid, ttft=m["ttft"], tpot=m["tpot"], e2e=m["e2e"], n=m["n"]) for rid, m in sorted(S["per"].items())]
    policies = [dict(policy=name, **summary_dict(summarize(res.done)), preemptions=len(res.preemptions),
                     served=len(res.done), **(res.log.steps if isinstance(res.log, Tally) else policy_steps(res.log)))
                for name, res in runs.items()]
    replayed = {"replayed": True} if lab.cfg.WORKLOAD_REQUESTS and lab.cfg.SPEC_METHOD == "off" else {}  # lab.other_run
    money = economics(lab.cfg, main.done, main.log.items)               # CLOCK=roofline only: dollars and joules
    if money:
        replayed["economics"] = money
    return dict(per=per, same=same, policies=policies,
                weights_read=shadow_model(lab.cfg.SHADOW_MODEL, lab.tokenizer.vocab_size).matmul_params
                * lab.cfg.WEIGHT_BITS / 8,
                **scope, **replayed)


def gate_result(lab, bits: int, kv: bool = False) -> dict:
    """The quality gate at `bits`: every prompt's top-1 decisions, original vs quantized (teacher forcing); with
    `kv`, original vs the model whose KV cache is FP8 (KV_BITS = 8, float weights)."""
    cfg, tok = lab.cfg, lab.tokenizer
    rows, skipped, tight, flips, decisions, flipped = [], [], None, 0, 0, []
    gated = cfg.REQUESTS[:GATE_PROMPTS] if cfg.WORKLOAD_REQUESTS else sorted(cfg.REQUESTS, key=lambda r: r["id"])
    for r in gated:
        unknown = tok.unknown(r["text"])
        if unknown:
            skipped.append(dict(id=r["id"], pieces=unknown, chars=tok.unknown_chars(r["text"])))
            continue
        ids = tuple(stand_in_ids(tok.encode(r["text"])[1]))
        res = (kv_teacher_forced_for(cfg.SEED, cfg.N_MERGES, ids, tok.byte_fallback) if kv else
               teacher_forced_for(cfg.SEED, cfg.N_MERGES, bits, ids, tok.byte_fallback))
        agree = sum(x["token"] == x["token_q"] for x in res)
        flips += len(res) - agree
        decisions += len(res)
        low = min(res, key=lambda x: x["margin"])
        if tight is None or low["margin"] < tight["margin"]:
            tight = dict(low, id=r["id"])
        rows.append(dict(id=r["id"], agree=agree, n=len(res), max_err=max(x["err"] for x in res), decisions=list(res)))
        flipped += [dict(x, id=r["id"], text=tok.token(x["token"]), text_q=tok.token(x["token_q"]))
                    for x in res if x["token"] != x["token_q"]] if kv else []
    agreement = (decisions - flips) / decisions if decisions else None
    long = any(len(tok.pieces(r["text"])) > LONG for r in gated) if cfg.WORKLOAD_REQUESTS else False
    sample = dict(sample=[len(gated), len(cfg.REQUESTS)]) if len(gated) < len(cfg.REQUESTS) else {}
    return dict(bits=bits, steps=GATE_STEPS, rows=rows, skipped=skipped, decisions=decisions, flips=flips,
                agreement=agreement, gate=cfg.QUALITY_GATE,
                passed=agreement is not None and agreement >= cfg.QUALITY_GATE, tight=tight,
                **(dict(last_row=LONG) if long else {}), **sample,   # quantization.prompt_pass: the last row only
                **(dict(flipped=flipped) if kv else {}))             # the FP8 KV cache's flipped decisions


def served_against(lab, main, kv16) -> dict:
    """KV_BITS = 8: the tokens each finished request was served against those of the same run with the 16-bit KV
    cache (Lab.with_float_kv_cache: same config, pool and clock): where the first one differs, and both texts."""
    tok, other = lab.tokenizer, {s.id: s for s in kv16.done}
    changed, compared = [], 0
    for seq in sorted(main.done, key=lambda s: s.id):
        twin = other.get(seq.id)
        if twin is None:
            continue
        compared += 1
        if seq.out != twin.out:
            at = next((i for i, (a, b) in enumerate(zip(seq.out, twin.out)) if a != b),
                      min(len(seq.out), len(twin.out)))                 # the first differing token (or one ends)
            changed.append(dict(id=seq.id, at=at, n=len(seq.out), n16=len(twin.out),
                                text=tok.decode(seq.out), text16=tok.decode(twin.out)))
    return dict(compared=compared, changed=changed)


def sweep_bits(bits: int) -> list[int]:
    """QUANT_BITS and its two neighbours, shifted to stay inside the schema's bounds (8 -> 6, 7, 8)."""
    f = FIELD_BY_NAME["QUANT_BITS"]
    lo = min(max(int(f.min), bits - 1), int(f.max) - 2)
    return [lo, lo + 1, lo + 2]


def gates_of(lab, told=None) -> dict:
    """Block [13]'s quality gates: {bits: gate_result(lab, bits)} for QUANT_BITS and its sweep neighbours, with
    "kv" the FP8 KV cache's gate when KV_BITS = 8. They read the config alone (the gated prompts, the weights), never
    a run, so the command line computes them in a child forked before the main run (lab.py, forks.py). `told()`, if
    given, hears each gate done (the page's progress: lab.writing)."""
    cfg, gates = lab.cfg, {}
    for bits in sweep_bits(cfg.QUANT_BITS):
        gates[bits] = gate_result(lab, bits)
        if told:
            told()
    if cfg.KV_BITS == 8:
        gates["kv"] = gate_result(lab, cfg.QUANT_BITS, kv=True)
    return gates


def quant_sweep(lab, probe, current: dict, gates: dict | None = None) -> list[dict]:
    """The trade-off of blocks [9] and [13] at QUANT_BITS and its neighbours: weight bytes against the
    largest logit error on block [9]'s probe prompt and the share of top-1 decisions the gate keeps.
    The neighbours' runs are cached like the current one's (lru caches keyed by seed, merges, bits); `gates`
    (gates_of) holds them when they were computed already."""
    cfg, out = lab.cfg, []
    for bits in sweep_bits(cfg.QUANT_BITS):
        qinfo = quantized_for(cfg.SEED, cfg.N_MERGES, bits, lab.tokenizer.byte_fallback)[1]
        n_el, n_sc = sum(i["elements"] for i in qinfo.values()), sum(i["scales"] for i in qinfo.values())
        gate = current if bits == cfg.QUANT_BITS else gates[bits] if gates else gate_result(lab, bits)
        out.append(dict(bits=bits, current=bits == cfg.QUANT_BITS, levels=2 ** (bits - 1) - 1,
                        fp32_bytes=4 * n_el, int_bytes=n_el * bits / 8 + 4 * n_sc,
                        max_err=max(i["max_err"] for i in qinfo.values()),
                        logit_err=quantized_logit_err(cfg.SEED, cfg.N_MERGES, bits, tuple(probe[1]),
                                                      lab.tokenizer.byte_fallback) if probe else None,
                        agreement=gate["agreement"], kept=gate["decisions"] - gate["flips"],
                        decisions=gate["decisions"], passed=gate["passed"]))
    return out


def block13_data(lab, main, info, gates: dict | None = None) -> dict:
    """Block [13]'s facts; `gates` (gates_of(lab)) when they were computed already (in a forked child)."""
    d = dict(gates[lab.cfg.QUANT_BITS]) if gates else gate_result(lab, lab.cfg.QUANT_BITS)
    probe = probe_prompt(lab, main, info)
    d.update(sweep=quant_sweep(lab, probe, d, gates), probe=probe[0] if probe else None, probe_ids=probe)
    if lab.cfg.KV_BITS == 8:                    # the same gate for the FP8 KV cache (block [9]'s "kv")
        d["kv"] = gates["kv"] if gates else gate_result(lab, lab.cfg.QUANT_BITS, kv=True)
    return d
