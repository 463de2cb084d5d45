"""The lab: run the engine once (and twice more for the policy benchmark), then gather each block's facts.

`run(config)` → `Report`. The engine runs the trace with continuous batching + chunked
prefill (the run every block reads), then again with "static" batching and with
continuous batching without chunking (block [12] compares the three). Each of the 13
blocks gets a plain-JSON `data` dict of what it shows; text.py turns that data into lines with the
Vietnamese sentences of `text_vi.py`, the seed program's (or the English ones of `text_en.py`: `run(cfg, lang="en")`),
so the mechanics never hold a sentence. `render(report, lang)` words the same run again in the
other language from the report's data alone (the page's language switch: no engine run).

`run_deferred(config)` leaves the replays of blocks [11] and [12] for later (the page's big runs, web.defers): blocks
[6], [11], [12] are marked deferred and the checks that read the replays wait; its `Later.finish()` plays them and gives
run()'s Report.

Where the seed program crashes, this module does better: a followed request that was
refused (429/400) is reported as such and the invariant checks use a served request
instead (and say so); a run where nobody is served still prints all 13 blocks.

The blocks' facts are gathered by block_data.py (what byte fallback costs: byte_cost.py), the cached tokenizer and
weights live in weights.py.
Leaves out: the words (text.py and text_steps.py with their sentence tables text_vi/en.py, text_steps_vi/en.py), the
arithmetic of serving (engine, scheduler, block_manager, model, sampler, quantization, metrics).
"""
from __future__ import annotations

import contextlib
import functools
import gc
from dataclasses import dataclass, replace

import numpy as np

from ..words import text_en, text_steps, text_steps_en, text_steps_vi, text_vi
from ..words.limits import run_facts, seed_identical
from ..core.inputs.config import Config
from ..core.cluster.cluster import Cluster, run_cluster
from ..core.serving.engine import Engine, RunOptions, run_engine
from ..core.serving.replay import recorded, replay_engine
from ..core.serving.metrics import summarize
from ..core.serving.run_log import step_rows
from .block_data import (block1_data, block2_data, block3_data, block4_data, block5_data, block6_data, block7_data,
                         block8_data, block9_data, block10_data, block11_data, block12_data, block13_data,
                         follow_info, gates_of, header_data, served_against, stand_in)
from .byte_cost import byte_cost_data
from .forks import Feeder, Forked, StreamedTokens, can_fork, slim
from .cluster_data import cluster_checks, cluster_data, colocated, is_cluster, placement
from .spec_data import spec_block7, spec_gate
from .report import Block, Check, Report
from .weights import (GATE_STEPS, Lab, quantized_for, quantized_logit_err, reference_for,  # noqa: F401 (the caches, for patch.py)
                      teacher_forced_for, tokenizer_for, weights_for)

STEP_BLOCKS = (3, 11)                      # the blocks whose lines walk the steps (one line each, from the run log)
LANGS = ("vi", "en")                       # the first is the default: the seed's language
TEXTS = {"vi": (text_vi, text_steps_vi), "en": (text_en, text_steps_en)}   # lang -> (blocks' words, steps' words)


# ── invariant checks ───────────────────────────────────────────────────────
def run_checks(lab, main, info, blocks, S, nocache=None) -> list[Check]:
    """The invariant checks; with speculation on, block [13]'s two checks of the acceptance rule too."""
    cfg, tr = lab.cfg, main.trace
    b1, b6, b12 = blocks[1], blocks[6], blocks[12]
    checks = [
        Check("offered", b1["offered"] == b1["served"] + b1["n_429"] + b1["n_400"] + b1["n_aborted"]),
        Check("parity", tr["parity"] <= 1e-9),
        Check("gather", tr["gather"] <= 1e-9),
        Check("blocks_returned", b6["free"] == cfg.POOL_BLOCKS and b6["free_sorted"]),
        Check("same_tokens", b12["same"]),
        Check("positions", tr["positions_cached"] <= tr["positions_naive"]
              and (tr["positions_cached"] < tr["positions_naive"]
                  or not any(t[1] == "decode" for st in main.log.items for t in st["tasks"]))),
        Check("tokens_counted", S["tokens"] == sum(len(r.out) for r in main.done)),
        Check("quantization_error", blocks[9]["within_half_scale"]),
        Check("pool_invariants", not main.problems),                # the violations: block [6] pool_problems
    ]
    if nocache is not None:
        checks.append(Check("prefix_cache_same_text", same_text(main, nocache)))
    gate = blocks[13].get("spec")
    if gate is not None:
        checks += [Check("spec_greedy_text", gate["greedy_same"]), Check("spec_distribution", gate["distribution_ok"])]
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
def other_run(lab, main, cluster: bool = False):
    """How blocks [11] and [12] play the trace again under another policy: the model in full (the seed's trace),
    or, for a generated workload, the clock-only replay of the main run's tokens (core/serving/replay.py); on the
    cluster (cluster.py) when the run has one."""
    return replayer(lab, recorded(main) if replaying(lab.cfg) else None, cluster)


def replaying(cfg) -> bool:
    """The other policies' runs replay the main run's tokens (a generated workload; speculation has its own verify
    path) rather than run the model."""
    return bool(cfg.WORKLOAD_REQUESTS) and cfg.SPEC_METHOD == "off"


def replayer(lab, tokens, cluster: bool):
    """other_run's function with the main run's `tokens` (a dict, or forks.StreamedTokens as they come)."""
    replay = replaying(lab.cfg)
    play = run_cluster if cluster else replay_engine if replay else run_engine
    return lambda options: play(lab, replace(options, check=False, tokens=tokens if replay else None))


def replay_child(lab, cluster: bool, options, feed=None):
    """One replay in a forked child (forks.py): its tokens streamed from the main run (`feed`), its result slim."""
    if feed is None:
        return slim(replayer(lab, None, cluster)(options))
    tokens = StreamedTokens(feed)
    res = replayer(lab, tokens, cluster)(options)
    if not tokens.consistent():              # a request's tokens changed after it was sent: the final ones decide
        res = replayer(lab, tokens.ended(), cluster)(options)
    return slim(res)


@contextlib.contextmanager
def collector_paused():
    """Python's cyclic garbage collector off for the duration (then as it was). A run makes no cyclic garbage
    (gc.collect() after a 300-request cluster run finds 0 objects: reference counting frees everything), but
    it keeps millions of small lists and dicts alive in its logs, and the collector's passes over them cost
    about a fifth of a 1,000-request run's CPU time."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def run(config: Config | dict | None = None, lang: str = "vi", progress=None, narrate: bool = True,
        fork: bool = True) -> Report:
    """Run the lab with `config` (a Config, a partial {NAME: value} dict, or None for the seed's defaults),
    worded in `lang` ("vi", the seed's words, or "en"). `progress(run, steps, settled, requests)`, if given,
    hears after every engine step which run it is ("chunked", "static", "nochunk", "nocache", "nospec", "kv16")
    and how far.
    `narrate=False` leaves the steps' words out (report.steps is then the bare run log: what the printed blocks
    need; the command line's text output never prints a step's narration, which costs a fifth of a 1,000-request
    run). The garbage collector pauses meanwhile (collector_paused).
    `fork=False` (or LAB_PROCESSES=1, a `progress` callback, Pyodide) plays the replays of blocks [11] and [12] in
    this process after the main run; otherwise each runs in a forked child beside the parent's other blocks
    (forks.py). The Report is the same either way."""
    with collector_paused():
        return run_unpaused(config, lang, progress, narrate, fork)[0]


def run_deferred(config: Config | dict | None = None, lang: str = "vi", progress=None,
                 narrate: bool = True) -> tuple[Report, "Later"]:
    """run() without the replays of blocks [11] and [12] (the page's big runs, web.defers): (report, later).
    Blocks [6], [11] (prefix cache on), [12] (deferred_blocks) have data["deferred"] = True and say in one line what
    waits for the replays, computed when the student asks; the checks that need them wait (Check.waiting).
    `later.finish(lang)` plays the replays one after the other and gives the Report run() gives for the same config
    (the same data and lines)."""
    with collector_paused():
        return run_unpaused(config, lang, progress, narrate, fork=False, defer=True)


def deferred_blocks(wanted: dict) -> tuple[int, ...]:
    """The blocks that read the replays `wanted`: [6] (did any policy run out of blocks), [11] with the prefix cache
    on (the TTFT it saves, against "nocache"), [12] (the policies compared)."""
    return (6, 11, 12) if "nocache" in wanted else (6, 12)


WAITING_CHECKS = ("same_tokens", "prefix_cache_same_text")  # the checks that read them


def forked_replays(lab, cluster: bool, wanted: dict) -> dict:
    """{name: forks.Forked} for the replays of blocks [11] and [12] (`wanted`: name -> RunOptions), each forked
    before the main run: a replay of recorded tokens gets them through its feed as the main run's requests finish
    (forks.Feeder), the seed's trace's full runs need nothing from it."""
    feed = replaying(lab.cfg)
    return {name: Forked(functools.partial(replay_child, lab, cluster, options), feed=feed)
            for name, options in wanted.items()}


def replays(lab, again, wanted: dict, heard) -> dict:
    """{name: Done(result)} of the replays of blocks [11] and [12] played one after the other in this process
    after the main run (`again`: other_run's function), each heard by the progress callback."""
    jobs = {}
    for name, options in wanted.items():
        lab.progress = heard(name)
        jobs[name] = Done(again(options))
    return jobs


def main_run(lab, cluster: bool, jobs: dict):
    """The run every block reads (continuous batching, chunked prefill); with forked replays that replay its
    tokens, each finished request's tokens go to them as it finishes (forks.Feeder), and the final ones at the end."""
    options = RunOptions("continuous", lab.cfg.TOKEN_BUDGET)
    feeding = [job for job in jobs.values() if job.feed is not None]
    if not feeding:
        return (run_cluster if cluster else run_engine)(lab, options)
    runner = Cluster(lab, options) if cluster else Engine(lab, options)
    feeder = Feeder(feeding, [r.engine for r in runner.replicas] if cluster else [runner])
    lab.progress = feeder
    main = runner.run()
    lab.progress = None
    feeder.end(recorded(main))
    return main


@dataclass(slots=True)
class Done:
    """A replay run in this process: `result()` is its result (the sequential twin of forks.Forked)."""
    value: object

    def result(self, fallback=None):
        return self.value

    def stop(self) -> None:
        pass


def run_unpaused(config, lang: str, progress, narrate: bool = True, fork: bool = True,
                 defer: bool = False) -> tuple[Report, "Later | None"]:
    """(report, None), or with `defer` (report of the deferred blocks, Later): run()'s and run_deferred()'s work."""
    if lang not in TEXTS:
        raise ValueError(f"lang must be one of {', '.join(LANGS)} (got {lang!r})")
    cfg = config if isinstance(config, Config) else Config.from_values(config or {})
    lab = Lab.build(cfg)
    heard = (lambda name: functools.partial(progress, name)) if progress else (lambda name: None)
    lab.progress = heard("chunked")
    cluster = is_cluster(cfg)                                     # REPLICAS > 1 or DISAGG = on: cluster.py
    engine = run_cluster if cluster else run_engine
    wanted = {"static": RunOptions("static", None), "nochunk": RunOptions("continuous", None)}
    if cfg.PREFIX_CACHE == "on":                                  # the main run's pool caches (engine.Engine)
        wanted["nocache"] = RunOptions("continuous", cfg.TOKEN_BUDGET, prefix_cache=False)
    fork = fork and not defer and can_fork(progress)
    pending = forked_replays(lab, cluster, wanted) if fork else {}
    gates = Forked(functools.partial(gates_of, lab)) if fork else None     # block [13]'s gates: config only
    try:
        main = main_run(lab, cluster, pending)
        if not pending and not defer:
            pending = replays(lab, other_run(lab, main, cluster), wanted, heard)
        lab.progress = heard("nospec")
        nospec = (engine(lab, RunOptions("continuous", cfg.TOKEN_BUDGET, check=False, spec="off"))
                  if cfg.SPEC_METHOD != "off" else None)
        lab.progress = heard("kv16")
        kv16 = (engine(lab.with_float_kv_cache(), RunOptions("continuous", cfg.TOKEN_BUDGET, check=False))
                if cfg.KV_BITS == 8 and not cfg.WORKLOAD_REQUESTS else None)   # a workload: the model twice is too dear
        lab.progress = None
        told = writing(progress)
        told()
        S = summarize(main.done)
        info = follow_info(cfg, main)
        qinfo = quantized_for(cfg.SEED, cfg.N_MERGES, cfg.QUANT_BITS, lab.tokenizer.byte_fallback)[1]
        data = {0: header_data(lab), 1: block1_data(lab, main), 2: block2_data(lab, main, info, S),
                3: block3_data(lab, main, info, S)}
        told()
        data.update({4: block4_data(lab, main, info, S, data[3]["chunks"]), 5: block5_data(lab, main, info),
                     7: block7_data(lab, main, info), 8: block8_data(lab, main, info),
                     9: block9_data(lab, main, info, qinfo), 10: block10_data(lab, main)})
        told()
        data[13] = block13_data(lab, main, info, gates.result(functools.partial(gates_of, lab)) if gates
                                else gates_of(lab, told))
        again = other_run(lab, main, cluster)          # a child that died without an answer: its replay here
        done = {name: job.result(functools.partial(lambda o: slim(again(o)), wanted[name]))
                for name, job in pending.items()}                          # the replays' results (forks.py)
    finally:
        for job in [*pending.values(), *([gates] if gates else [])]:
            job.stop()
    data[2].update(byte_fallback=lab.tokenizer.byte_fallback, byte_cost=byte_cost_data(lab, main, S))
    if nospec is not None:                        # speculative decoding: blocks [7] and [13] (spec_data.py)
        data[7].update(spec_block7(lab, main, nospec, info))
        data[13]["spec"] = spec_gate(lab, main, nospec, data[13]["probe_ids"])
    if cfg.KV_BITS == 8:                          # the served tokens against the 16-bit KV cache's (not for a workload)
        data[13]["kv"]["served"] = served_against(lab, main, kv16) if kv16 is not None else None
    data[13].pop("probe_ids", None)
    later = Later(lab, main, cluster, wanted, S, info, data, cluster_data(lab, main))
    told()
    if defer:
        return render(later.facts(None), lang, narrate, told), later
    return render(later.facts(done), lang, narrate, told), None


def writing(progress):
    """What the page hears while the report is written after the engine runs (the blocks' facts, block [13]'s gates,
    the words, and web.py's answer): progress("report", 0, 0, 0) at each stage (static/app.js: "writing the blocks"),
    so that a big run's last seconds move too (issue 39: progress at least once a second). A no-op when nobody
    listens (`progress` None)."""
    return (lambda: progress("report", 0, 0, 0)) if progress else (lambda: None)


@dataclass(slots=True)
class Later:
    """A run's facts but blocks [6], [11], [12] and their checks: the main run's result (`main`: what those blocks
    and the replays of recorded(main) read), its summary, FOLLOW's info, the other blocks' data."""
    lab: Lab
    main: object
    cluster: bool
    wanted: dict                  # replay name -> RunOptions ("static", "nochunk", and "nocache" with the cache on)
    S: dict
    info: dict
    data: dict                    # block number -> data, without 6, 11, 12 (0: the header's)
    cluster_facts: dict | None

    def finish(self, lang: str = "vi", progress=None, narrate: bool = True) -> Report:
        """The replays played one after the other in this process (`progress` as run()'s), then the whole Report."""
        with collector_paused():
            heard = (lambda name: functools.partial(progress, name)) if progress else (lambda name: None)
            try:
                done = replays(self.lab, other_run(self.lab, self.main, self.cluster), self.wanted, heard)
            finally:
                self.lab.progress = None
            told = writing(progress)
            told()
            return render(self.facts({name: job.result() for name, job in done.items()}), lang, narrate, told)

    def facts(self, done: dict | None) -> Report:
        """The bare Report (no words) with the replays' results `done` ({name: result}); None: blocks [6], [11],
        [12] deferred (their data from the main run alone, marked) and WAITING_CHECKS waiting."""
        lab, main, S, info, cfg = self.lab, self.main, self.S, self.info, self.lab.cfg
        runs = {"static": done["static"], "nochunk": done["nochunk"], "chunked": main} if done else {"chunked": main}
        nocache = done.get("nocache") if done else (main if "nocache" in self.wanted else None)
        data = dict(self.data)
        data.update({6: block6_data(lab, main, runs), 11: block11_data(lab, main, S, nocache if done else None),
                     12: block12_data(lab, main, runs, S)})
        checks = run_checks(lab, main, info, data, S, nocache)
        if done is None:
            checks = [replace(c, waiting=True) if c.name in WAITING_CHECKS else c for c in checks]
            for n in deferred_blocks(self.wanted):
                data[n] = dict(data[n], deferred=True)
        if self.cluster:
            data[11]["requests"] = placement(main, data[11]["requests"])
            if cfg.DISAGG == "on":
                data[12]["colocated"] = colocated(lab, main)
            checks += cluster_checks(main)
        return Report(config=cfg.to_dict(), header=[],
                      blocks=[Block(n, text_vi.BLOCK_CODES[n], "", [], data[n]) for n in range(1, 14)],
                      summary=[], checks=checks, follow=info, steps=main.log.to_dict(), header_data=data[0],
                      cluster=self.cluster_facts)


def bare_record(steps) -> dict:
    """The run log without any words (what RunLog.to_dict() gave), from a narrated one."""
    items = [{k: v for k, v in it.items() if k not in ("title", "text")} for it in steps["items"]]
    return {**{k: v for k, v in steps.items() if k not in ("after_text", "wait_labels", "narration")}, "items": items}


def narrated(record, step_text, cfg) -> dict:
    """The step record with each step's title and narration lines added (a new dict; the record is kept)."""
    items = [dict(it, title=title, text=lines) for it, (title, lines) in zip(record["items"],
                                                                             step_text.narrate(record, cfg))]
    return dict(record, items=items, after_text=step_text.after_lines(record), wait_labels=dict(step_text.WAIT_WHY))


def titled(record, step_text) -> dict:
    """The step record with each step's title only (a few words: the step slider's spoken value): the compact form
    the page gets for a long run, whose narration is worded step by step on request (narration())."""
    w = step_text.WORDS
    items = [dict(it, title=text_steps.title(w, it)) for it in record["items"]]
    return dict(record, items=items, after_text=step_text.after_lines(record), wait_labels=dict(step_text.WAIT_WHY))


def narration(record, lang: str, cfg, n: int, ready: dict | None = None) -> tuple[str, list[str]]:
    """(title, lines) of step n (1-based) of a bare `record` in `lang`, exactly as narrated() words that step.
    `ready` (text_steps.ready_times(record)) may be given once for many calls."""
    w = TEXTS[lang][1].WORDS
    return text_steps.narrate_step(w, record, cfg, n, text_steps.ready_times(record) if ready is None else ready)


def worded_data(block, rows: list[dict], mixed: list[int] = ()) -> dict:
    """What a block's words read: its data, for blocks [3] and [11] one row per step (run_log.step_rows), for block
    [12] block [3]'s mixed steps (the seed clock charges them twice)."""
    if block.number == 12:
        return dict(block.data, mixed=list(mixed))
    return dict(block.data, steps=rows) if block.number in STEP_BLOCKS else block.data


def follow_metrics(report) -> dict | None:
    """FOLLOW's TTFT parts (prep, queue, prefill, ttft), read back from block [11]'s timeline."""
    return next((m for m in report.block(11).data["requests"]
                 if m["id"] == report.follow["id"] and m.get("status", "finished") == "finished"), None)


def render(report: Report, lang: str = "vi", narrate: bool = True, told=None) -> Report:
    """`report` worded in `lang`: every line comes from the report's data (blocks' data, header_data, config,
    follow, checks, the step record), so a report from `to_dict()` JSON renders exactly like a new run.
    `narrate=False`: the steps stay the bare record (no title, text, after_text, wait_labels). `told()`, if given,
    hears each block worded (writing)."""
    if lang not in TEXTS:
        raise ValueError(f"lang must be one of {', '.join(LANGS)} (got {lang!r})")
    text, step_text = TEXTS[lang]
    parts = {"header": report.header_data, **{b.number: b.data for b in report.blocks}}
    record = bare_record(report.steps)
    seed = seed_identical(report.config, run_facts(parts, report.follow, report.checks))
    ctx = text.Context(cfg=report.config, follow=report.follow, follow_metrics=follow_metrics(report),
                       cluster=report.cluster, seed=seed, record=record)
    blocks = []
    rows = step_rows(report.steps)
    for row, it in zip(rows, report.steps["items"]):         # a cluster's merged log says which replica ran each step
        if "replica" in it:
            row["replica"] = it["replica"]
    for b in report.blocks:
        title, lines = text.BLOCKS[b.number](worded_data(b, rows, parts[3]["mixed"]), ctx)
        blocks.append(Block(b.number, b.code, title, lines, b.data))
        if told:
            told()
    checks = [replace(c, label="") for c in report.checks]
    summary = text.summary_lines(ctx, checks)
    checks = [replace(c, label=text.CHECK_LABELS[c.name]) for c in checks]
    return Report(config=report.config, header=text.header_lines(report.header_data, report.config, seed),
                  blocks=blocks, summary=summary, checks=checks, follow=report.follow,
                  steps=narrated(record, step_text, report.config) if narrate else record,
                  header_data=report.header_data, lang=lang, notes=text.notes(parts, ctx, record),
                  cluster=report.cluster)
