"""The result of one lab run: printed lines plus the structured data behind them.

`Report.to_text()` is exactly what `python -m inference_lab` prints (and, with the
default constants, byte for byte what the seed program prints). `Report.to_dict()` is
plain JSON for the page and its charts; it holds every printed line once (no second copy of
the whole text: `Report.from_dict(d).to_text()` prints it again):

    {
      "config":  {NAME: value, ..., "REQUESTS": [{id, arrival, text, max_new, temperature, top_k, top_p, seed}]},
                                              # the run's constants: their ONE place (nothing below repeats them)
      "header":  [str],                       # the lines before block [1] (last one is "")
      "blocks":  [{"number": 1..13, "code": "1 · Gateway & admission", "title": str,
                   "lines": [str], "data": {...}}],   # printed as "[code] title", "   line", ""
      "summary": [str],                       # TỔNG KẾT lines; the last is "PASS: ..." or "FAIL: ..."
      "checks":  [{"name": str, "ok": bool, "detail": str, "label": str}],
      "passed":  bool,
      "follow":  {"id", "served", "served_ids", and when refused: "code", "stage", "reason", "facts"},
      "lang":    "vi" | "en",                 # the language of every str above and of the steps' words
      "notes":   {"header" | "1".."13" | "summary": [str]}   # notes beside lines the seed prints that are false or
                                              # incomplete for this run (words/text_notes.py); never in to_text()
      "header_data": {n_heads, d_model, vocab, clipped?},   # the model's sizes the header prints; clipped: a
                                                            # recorded trace's requests cut to fit MAX_CONTEXT
      "cluster": replicas, router decisions, KV transfers, goodput and percentiles (cluster_data.py)
      "steps":   the run log (core/serving/run_log.py: the one per-step record, its format frozen: new facts are
                 new keys) {"count", "priority_key", "landmarks", "items": [one dict per step, see run_log.py, plus
                  "title": str, "text": [str]], "after": [events after the last step], "after_text": [str],
                  "wait_labels": {why a request waits (run_log.py): words in "lang"}}
    }

Blocks are found by their number, never by their place in the list: `report.block(11)`.

Each block's "data" (see block_data.py, block<N>_data) — the keys the charts read. No block repeats the
steps (the charts and the step view read them from "steps" above), nor a constant of "config" (SLOTS,
POOL_BLOCKS, BLOCK_SIZE, MAX_CONTEXT, TOKEN_BUDGET, TTFT_SLO, ...: readers take them from "config").
  1  capacity, decisions[{request, stage, code, reason, facts, arrival}], offered, n_429, n_400, served, n_aborted,
     aborts[{step, time, request, cancel_at, stage ("waiting"|"running"|"gateway": cancelled at or before its
     arrival, never admitted), blocks, generated}]
  2  n_merges (merges learned: N_MERGES or fewer), vocab, first_merges, follow{id, text, tokens, ids, prompt_len,
     max_new}, prompt_lens, blocked, prep,
     merge_steps[{merge, rank, count, pieces}] (FOLLOW's text, merge by merge), follow_ids[[piece, id|null]],
     budget[{id, prompt, max_new, total, code, stage, reason, tokenized}] (every request vs MAX_CONTEXT),
     cached_tokens (FOLLOW's prompt tokens taken from the prefix cache), byte_fallback, shown{words, tokens} (only
     when FOLLOW's prompt has a stand-in: follow, merge_steps and follow_ids hold its first `words` words),
     byte_cost (BYTE_FALLBACK=on and some text needed byte tokens, else null: byte_cost.py) {rows[{id, text, plain,
     tokens, plain_tokens, prompt, plain_prompt, extra, chars[[char, [byte tokens]]], words, byte_tokens, blocks,
     plain_blocks, extra_time, ttft, plain_ttft}], base_vocab, n_bytes, block_size, cost_prefill, cost_tokenize}
  3  preemptions[{step, time, request, blocks, generated, recompute, needed_by, need, free, dropped, priority,
     arrival}] (the run log's "preempt" events), mixed, chunks, follow,
     overtakes[{step, time, request, priority, overtaken[{id, priority, arrival}]}], aborts,
     kv_waits[{step, time, request, why ("short"|"gives_way"|"behind"|"preempted"), by, need, free, blocks}]
     (the run log's "wait_kv" events: newcomers sent back to the waiting queue for lack of KV blocks)
  4  chunks, prompt_len, cached_tokens, k_shape, logits, top3, top3_tokens, top3_scores, first_time,
     arrival, ttft; stand_in{skip, keep, long, blocks, block_size} (only for a prompt of more than
     model.LONG_PROMPT tokens: the model computed its last `keep` tokens; k_shape is then theirs)
  5  token, token_text, position, context[token per position], heads[[w...], [w...]], sums, argmax, parity
  6  peak{used, tables, tokens, step (1-based step in which the peak happened)}, released, reused, owners, free,
     gather, preemptions,
     prefix_hits{id: prompt tokens taken from the cache}, hits[{step, request, blocks, tokens, recompute}],
     shared_blocks, max_shared, evictions[{step, block, hash}] (also the run log's "evict" events), cached_free,
     pool_problems[{step, code}] (invariant violations, codes in block_manager.BlockManager.audit), kv_waits (as [3])
  7  n_out, n_decode, cache_len, first_decode{token, position, weights, sum}, positions_cached, positions_naive;
     SPEC_METHOD != off (spec_data.py): spec{method, k, proposed, accepted, per_request{id: {proposed, accepted,
     alpha}}}, spec_rates{id: {verifies, tokens, per_step, expected}}, spec_follow[{step, proposed, accepted,
     rejected, token, bonus}], spec_compare{tpot_on, tpot_off, tput_on, tput_off, end_on, end_off, steps_on,
     steps_off}, spec_batch{rows[{batch, off_us, on_us, speedup, bound}], crossover, context, alpha, expected}
  8  tokens[id -> text], temperature, top_k, top_p, seed, mode, probs, filtered, top5, kept, kept_ids, token,
     token_text, stream, stops, aborted[{id, n, max_new, text, time, cancel_at}]
  9  bits, elements, scales, fp32_bytes, int_bytes, max_err, half_scale, logit_err, matrices; KV_BITS = 8: kv{k_max,
     k_mean, v_max, v_mean, within_half_step, k_scale, v_scale, attn_rel, logit_err, tokens} (quantization.
     kv_cache_error: the FP8 KV cache's error on the probe prompt, weights float)
  10 bytes_per_token, pool_bytes, weight_bytes, peak_used, example{...}, budget{weights, kv_stored, kv_slack,
     kv_free, kv_in_use, kv_pool, total, block_bytes, per_token, peak_blocks, peak_tokens, peak_step} (bytes)
     shadow{gpu, model, hbm, usable, weights, reserve, room, per_token, tokens, blocks, seqs, utilization, peak
     (dense FLOP/s at ACT_BITS), bandwidth (bytes/s), gpu_source, model_source, …} (the GPU and SHADOW_MODEL)
  11 requests[{id, status ("finished"|"aborted"), arrival, ready, start, first, finish, token_times,
     prep, queue, prefill, ttft, tpot, e2e, gap, n, preemptions}] (aborted: null where there is no value, no TTFT
     without a first token), rejected[{id, code, arrival}], preempted_at{id: [steps]},
     ttft_saved[{id, ttft, ttft_nocache, saved, cached_tokens}] (PREFIX_CACHE=on only), distributions (WORKLOAD_TRACE
     only: trace_workload.distributions) {requests, rate, trace|generator: {prompt, output: {mean, p50, p90, p99,
     max} (tokens), gap: {same in ms, cv, peak_1s}}}
  12 per[{id, ttft, tpot, e2e, n}], same (SPEC_METHOD != off: same_scope "greedy", greedy requests only),
     policies[{policy, tokens, span, throughput, mean_ttft, max_ttft,
     mean_tpot, worst_gap, preemptions, served, steps, memory_bound, mixed, decode_only, prefill_only, mixed_us,
     decode_us}], weights_read (bytes of the shadow model's weights one forward pass reads); CLOCK=roofline:
     economics{gpus, price_per_hour, dollars, usd_per_m_output, usd_per_m_tokens, span, output_tokens,
     input_tokens, joules, tdp, idle_watts, utilisation, busy_utilisation, mean_watts, joules_per_output_token,
     output_tokens_per_kwh} (the main run's cost and energy, core/cluster/economics.py)
  13 bits, rows[{id, agree, n, max_err, decisions}], skipped, decisions, flips, agreement, gate, passed, tight,
     probe, sweep[{bits, current, levels, fp32_bytes, int_bytes, max_err, logit_err, agreement, kept, decisions,
     passed}] (QUANT_BITS and its two neighbours); SPEC_METHOD != off: spec{greedy_same, compared, draws,
     false_alarm, probe, chi2, df, critical, distribution_ok, worst, worst_p, worst_seen}; KV_BITS = 8: kv{the
     same gate's keys for the FP8 KV cache against the original model, flipped[{id, step, token, token_q, text,
     text_q, margin, margin_q, err}], served{compared, changed[{id, at, n, n16, text, text16}]}: the finished
     requests' tokens against the same run with the 16-bit KV cache (Lab.with_float_kv_cache); null for a workload}
Times are simulated µs (integers); a value that does not exist is null.

A long run (its log has more than COMPACT_STEPS steps: a 1,000-request, 8-replica run has ~15,000) is written
compact (issue 39): `Report.to_compact_dict()` is what `--json` prints for it (one line, no indent) and the
page's answer holds it in part (entrypoints/web.py). Everything above stays, except:

    "form":  "compact"                        # (absent from the full form)
    "steps": {"count", "priority_key", "landmarks", "after", "after_text", "wait_labels",
              "form": "columns",
              "columns": {key: [its value at step 1, 2, …]}   # each run_log.py item key but "events", "title",
                                              # "text" and CHANGE_KEYS; a key a step lacks is null; a key whose
                                              # values are all objects with the same keys (cost) is
                                              # {subkey: [value per step]}
              "nulls":   {key: [1-based steps]}   # (only when some) the steps whose null is a real value
              "changes": {key: [change per step]}  # each CHANGE_KEYS key (running, waiting, tables, free,
                                              # cached_free) as what changed since the same replica's step before
                                              # (a replica's first step: since nothing); null = nothing did:
                  running, waiting  {"ids": id list change, "rows": [the rows that differ]}: "ids" absent when
                                    the ids and their order stay, else {"drop": [ids], "add": [[place, id]]} (the
                                    others keep their order) or the whole id list; running rows are compared with
                                    the step before's rows advanced by its tasks (a chunk adds its tokens, the
                                    prompt's last one and a decode add a generated token)
                  tables            {"ids": as above, over the holders, "tables": {id: [kept, *appended blocks]}}
                                    (the table keeps its first `kept` blocks; a new holder's kept is 0)
                  free, cached_free [[ranges gone], [ranges new]] (inclusive [first, last] runs)
              "events": {kind: {"step": [1-based step], field: [value per event],
                                "absent": {field: [rows that lack it]}}   # "absent" only when some do
                         "order": {step: [kinds]}}   # only the steps whose events are not in EVENT_ORDER
             }                                # no narration: `--steps` prints it, the page asks web.step_detail(n)
    block [6] data: no "kv_waits" (block [3]'s, the same list)

`expand_steps(compact)` gives the items back (without "title" and "text"), equal to the full record's; the
1,000-request, 8-replica run (14,616 steps) is 8.9 MB compact (24.2 MB with every step's state written whole).

    >>> steps = {"count": 2, "items": [{"start": 0, "events": [{"kind": "admit", "id": "A"}], "cost": {"s": 1}},
    ...                                {"start": 5, "events": [], "cost": {"s": 2}, "replica": 1}]}
    >>> compact_steps(steps) == {"count": 2, "form": "columns", "columns": {"start": [0, 5], "cost": {"s": [1, 2]},
    ...     "replica": [None, 1]}, "changes": {}, "events": {"admit": {"step": [1], "id": ["A"]}}}
    True
    >>> expand_steps(compact_steps(steps)) == steps["items"]
    True
    >>> a = {"tables": {"A": [0, 1]}, "free": [[2, 9]]}
    >>> b = {"tables": {"A": [0, 1, 4], "B": [5]}, "free": [[2, 3], [6, 9]]}
    >>> CHANGES["tables"][0](a, b), CHANGES["free"][0](a, b)
    ({'tables': {'A': [2, 4], 'B': [0, 5]}, 'ids': {'drop': [], 'add': [[1, 'B']]}}, [[[2, 9]], [[2, 3], [6, 9]]])
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field


COMPACT_STEPS = 400   # steps beyond which a run is written compact (--json) and sent titled, not narrated (web.py)

_NOT_COLUMNS = ("events", "title", "text")
# The state a step carries over from the same replica's step before it (run_log.py): written as its changes
CHANGE_KEYS = ("running", "waiting", "tables", "free", "cached_free")


def is_long(steps: dict) -> bool:
    """A run log of more than COMPACT_STEPS steps."""
    return len(steps.get("items", ())) > COMPACT_STEPS


def compact_steps(steps: dict) -> dict:
    """The run log as columns, changes and event tables (see the module's docstring): every key of `steps` but
    "items", plus "form", "columns", "changes" and "events" (and "nulls" when a step's value is a real null).
    `expand_steps` gives the items back."""
    items = steps["items"]
    changing = [k for k in CHANGE_KEYS if items and all(k in it for it in items)]
    keys = list(dict.fromkeys(k for it in items for k in it if k not in _NOT_COLUMNS and k not in changing))
    columns, nulls = {}, {}
    for key in keys:
        values = [it.get(key) for it in items]
        inner = {tuple(v) for v in values if isinstance(v, dict)}
        if len(inner) == 1 and all(isinstance(v, dict) for v in values):   # every step's value: the same keys
            columns[key] = {sub: [v[sub] for v in values] for sub in next(iter(inner))}
        else:
            columns[key] = values
            real = [n for n, it in enumerate(items, 1) if key in it and it[key] is None]
            if real:
                nulls[key] = real
    rest = {k: v for k, v in steps.items() if k != "items"}
    out = {**rest, "form": "columns", "columns": columns, "changes": step_changes(items, changing),
           "events": event_tables(items)}
    if nulls:
        out["nulls"] = nulls
    return out


def step_changes(items: list, keys) -> dict:
    """{key: [change per step]} of each key of CHANGE_KEYS: what differs from the same replica's step before
    (the first step of a replica: from nothing), null when nothing does (`CHANGES` words each kind)."""
    out = {k: [] for k in keys}
    last: dict = {}
    for it in items:
        before = last.get(it.get("replica"))
        for k in keys:
            out[k].append(CHANGES[k][0](before, it))
        last[it.get("replica")] = it
    return out


def event_tables(items: list) -> dict:
    """Each kind's events as a table {"step": [1-based step], field: [value per event]} (the module's docstring);
    "absent": {field: [rows that lack it]} when some do, and "order": {step: [kinds]} on the first kind's table for
    the steps whose events are not in EVENT_ORDER (run_log.py; arrive and abort share a rank)."""
    from ..core.serving.run_log import EVENT_ORDER
    rank = {kind: i for i, kind in enumerate(EVENT_ORDER)}
    events: dict = {}
    order = {}
    for n, it in enumerate(items, 1):
        kinds = [e["kind"] for e in it.get("events", ())]
        if kinds != sorted(kinds, key=lambda k: rank.get(k, len(rank))):
            order[str(n)] = kinds
        for e in it.get("events", ()):
            table = events.setdefault(e["kind"], {"step": []})
            row = len(table["step"])
            for name in e:
                if name != "kind" and name not in table:
                    table[name] = [None] * row
                    if row:
                        table.setdefault("absent", {})[name] = list(range(row))
            table["step"].append(n)
            for name, column in list(table.items()):
                if name in ("step", "absent"):
                    continue
                column.append(e.get(name))
                if name not in e:
                    table.setdefault("absent", {}).setdefault(name, []).append(row)
    if order:
        return {"order": order, **events}
    return events


def _ids_change(old: list, new: list):
    """How the id list `new` follows from `old`: null (the same), {"drop": [ids], "add": [[place, id]]} (the others
    kept in their order), or `new` itself."""
    if old == new:
        return None
    was, now = set(old), set(new)
    kept = [x for x in old if x in now]
    if kept != [x for x in new if x in was]:
        return list(new)
    return {"drop": [x for x in old if x not in now], "add": [[i, x] for i, x in enumerate(new) if x not in was]}


def _ids_after(old: list, change) -> list:
    if change is None:
        return list(old)
    if isinstance(change, list):
        return list(change)
    drop = set(change["drop"])
    out = [x for x in old if x not in drop]
    for i, x in change["add"]:
        out.insert(i, x)
    return out


def _advanced(before) -> list:
    """The running rows `before`'s tasks lead to: a prompt chunk adds its tokens (the last one samples the first
    token), a decode adds one token. A guess: the rows it misses are written whole."""
    if before is None:
        return []
    ran = {rid: (phase, n) for rid, phase, n in before["tasks"]}
    out = []
    for rid, phase, done, total, generated, preempted in before["running"]:
        task = ran.get(rid)
        if task and task[0] == "prefill":
            done += task[1]
            if done >= total:
                phase, generated = "decode", generated + 1
        elif task:
            generated += 1
        out.append([rid, phase, done, total, generated, preempted])
    return out


def _rows_change(guess: list, rows: list):
    """Rows keyed by their first value ([id, ...]) against the guessed ones: null, or {"ids": the id list's change
    (absent: the same), "rows": [the rows that differ from the guess]}."""
    if guess == rows:
        return None
    had = {r[0]: r for r in guess}
    out = {"rows": [r for r in rows if had.get(r[0]) != r]}
    ids = _ids_change([r[0] for r in guess], [r[0] for r in rows])
    if ids is not None:
        out["ids"] = ids
    return out


def _rows_after(guess: list, change) -> list:
    if change is None:
        return guess
    rows = {r[0]: r for r in guess} | {r[0]: r for r in change["rows"]}
    return [rows[i] for i in _ids_after([r[0] for r in guess], change.get("ids"))]


def _running_change(before, it):
    return _rows_change(_advanced(before), it["running"])


def _running_after(before, change):
    return _rows_after(_advanced(before), change)


def _waiting_change(before, it):
    return _rows_change(before["waiting"] if before else [], it["waiting"])


def _waiting_after(before, change):
    return _rows_after(before["waiting"] if before else [], change)


def _tables_change(before, it):
    """null, or {"ids": the holders' change (absent: the same), "tables": {id: [kept, *appended blocks]}}: each
    table that changed keeps its first `kept` blocks and appends the rest."""
    old, new = before["tables"] if before else {}, it["tables"]
    tables = {}
    for rid, table in new.items():
        was = old.get(rid, ())
        if table is was or table == was:
            continue
        kept = 0
        while kept < min(len(was), len(table)) and was[kept] == table[kept]:
            kept += 1
        tables[rid] = [kept, *table[kept:]]
    ids = _ids_change(list(old), list(new))
    if not tables and ids is None:
        return None
    return {"tables": tables, **({"ids": ids} if ids is not None else {})}


def _tables_after(before, change):
    old = before["tables"] if before else {}
    if change is None:
        return dict(old)
    tables = change["tables"]
    return {rid: (old.get(rid, [])[:tables[rid][0]] + tables[rid][1:] if rid in tables else old[rid])
            for rid in _ids_after(list(old), change.get("ids"))}


def _ranges_change(key):
    def change(before, it):
        """null, or [[ranges gone], [ranges new]]: the free lists' inclusive [first, last] runs that changed."""
        old, new = before[key] if before else [], it[key]
        if old is new or old == new:
            return None
        was, now = {tuple(r) for r in old}, {tuple(r) for r in new}
        return [[list(r) for r in old if tuple(r) not in now], [list(r) for r in new if tuple(r) not in was]]

    def after(before, change):
        old = before[key] if before else []
        if change is None:
            return list(old)
        gone = {tuple(r) for r in change[0]}
        return sorted([r for r in old if tuple(r) not in gone] + [list(r) for r in change[1]])
    return change, after


# key -> (its change from the step before, the value again from that step and the change)
CHANGES = {"running": (_running_change, _running_after), "waiting": (_waiting_change, _waiting_after),
           "tables": (_tables_change, _tables_after), "free": _ranges_change("free"),
           "cached_free": _ranges_change("cached_free")}


def expand_steps(compact: dict) -> list[dict]:
    """The run log's items back from `compact_steps`'s form (its JSON): each step's dict as the full record has it,
    but "title" and "text" (the narration). A column's null is a key the step lacks unless "nulls" lists the step."""
    columns, changes, tables = compact["columns"], compact.get("changes", {}), compact["events"]
    nulls = {k: set(v) for k, v in compact.get("nulls", {}).items()}
    items = []
    for i in range(compact["count"]):
        it = {}
        for key, column in columns.items():
            if isinstance(column, dict):
                it[key] = {sub: values[i] for sub, values in column.items()}
            elif column[i] is not None or i + 1 in nulls.get(key, ()):
                it[key] = column[i]
        it["events"] = []
        items.append(it)
    _expand_events(items, tables)
    last: dict = {}
    for i, it in enumerate(items):
        before = last.get(it.get("replica"))
        for key, column in changes.items():
            it[key] = CHANGES[key][1](before, column[i])
        last[it.get("replica")] = it
    return items


def _expand_events(items: list, tables: dict) -> None:
    from ..core.serving.run_log import EVENT_ORDER
    rank = {kind: i for i, kind in enumerate(EVENT_ORDER)}
    order = tables.get("order", {})
    per_step: dict = {}                       # step -> {kind: [events]}
    for kind, table in tables.items():
        if kind == "order":
            continue
        absent = {name: set(rows) for name, rows in table.get("absent", {}).items()}
        fields = [f for f in table if f not in ("step", "absent")]
        for row, n in enumerate(table["step"]):
            e = {"kind": kind}
            e.update((f, table[f][row]) for f in fields if row not in absent.get(f, ()))
            per_step.setdefault(n, {}).setdefault(kind, []).append(e)
    for n, by_kind in per_step.items():
        kinds = order.get(str(n)) or [k for k in sorted(by_kind, key=lambda k: rank.get(k, len(rank)))
                                      for _ in by_kind[k]]
        taken = {k: iter(v) for k, v in by_kind.items()}
        items[n - 1]["events"] = [next(taken[k]) for k in kinds]


@dataclass(slots=True)
class Block:
    number: int
    code: str
    title: str
    lines: list
    data: dict

    def to_text(self) -> str:
        return f"[{self.code}] {self.title}\n" + "".join(f"   {line}\n" for line in self.lines) + "\n"

    def to_dict(self) -> dict:
        return dict(number=self.number, code=self.code, title=self.title, lines=list(self.lines), data=self.data)

    @classmethod
    def from_dict(cls, d: dict) -> "Block":
        return cls(d["number"], d["code"], d["title"], list(d["lines"]), d["data"])


@dataclass(slots=True)
class Check:
    name: str
    ok: bool
    detail: str = ""
    label: str = ""

    def to_dict(self) -> dict:
        return dict(name=self.name, ok=bool(self.ok), detail=self.detail, label=self.label)

    @classmethod
    def from_dict(cls, d: dict) -> "Check":
        return cls(d["name"], d["ok"], d["detail"], d["label"])


@dataclass(slots=True)
class Report:
    config: dict
    header: list
    blocks: list
    summary: list
    checks: list
    follow: dict = field(default_factory=dict)
    steps: dict = field(default_factory=dict)   # the step record with its narration (lab.narrated)
    header_data: dict = field(default_factory=dict)   # the model's sizes header_lines words (block_data.header_data)
    lang: str = "vi"                            # the language of the lines (lab.TEXTS)
    notes: dict = field(default_factory=dict)   # {"header"|"1".."13"|"summary": [str]}: notes beside the seed's lines
    cluster: dict | None = None                 # replicas, router, disagg, goodput (cluster_data.py)

    @property
    def passed(self) -> bool:
        return all(c.ok for c in self.checks)

    def block(self, number: int) -> Block:
        """The block printed as [number · …]."""
        return next(b for b in self.blocks if b.number == number)

    def to_text(self) -> str:
        head = "".join(line + "\n" for line in self.header)
        return head + "".join(b.to_text() for b in self.blocks) + "".join(line + "\n" for line in self.summary)

    def to_dict(self) -> dict:
        return dict(config=self.config, header=list(self.header), blocks=[b.to_dict() for b in self.blocks],
                    summary=list(self.summary), checks=[c.to_dict() for c in self.checks], passed=self.passed,
                    follow=self.follow, steps=self.steps, lang=self.lang, header_data=self.header_data,
                    notes=self.notes, cluster=self.cluster)

    def to_compact_dict(self) -> dict:
        """to_dict() in the compact form of a long run (the module's docstring): the steps as columns, without
        narration; block [6] without block [3]'s kv_waits."""
        d = self.to_dict()
        d["form"] = "compact"
        bare = {k: v for k, v in self.steps.items() if k != "narration"}
        d["steps"] = compact_steps(dict(bare, items=[{k: v for k, v in it.items() if k not in ("title", "text")}
                                                     for it in bare["items"]]))
        blocks = []
        for b in d["blocks"]:
            if b["number"] == 6 and "kv_waits" in b["data"]:
                b = dict(b, data={k: v for k, v in b["data"].items() if k != "kv_waits"})
            blocks.append(b)
        d["blocks"] = blocks
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "Report":
        """The report again from to_dict()'s JSON (e.g. the page's): same lines, same to_text()."""
        return cls(config=d["config"], header=list(d["header"]), blocks=[Block.from_dict(b) for b in d["blocks"]],
                   summary=list(d["summary"]), checks=[Check.from_dict(c) for c in d["checks"]], follow=d["follow"],
                   steps=d.get("steps", {}), header_data=d.get("header_data", {}), lang=d.get("lang", "vi"),
                   notes=d.get("notes", {}), cluster=d.get("cluster"))

    def parts(self) -> list[tuple[str, str]]:
        """(part, its printed text) in order: "header", "1".."13", "summary"; joined they are to_text()."""
        return ([("header", "".join(line + "\n" for line in self.header))]
                + [(str(b.number), b.to_text()) for b in self.blocks]
                + [("summary", "".join(line + "\n" for line in self.summary))])

    def steps_text(self) -> str:
        """What `python -m inference_lab --steps` prints: each step's narration, a blank line between steps."""
        parts = ["\n".join(it["text"]) for it in self.steps["items"]]
        if self.steps["after_text"]:
            parts.append("\n".join(self.steps["after_text"]))
        return "\n\n".join(parts) + "\n"

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kw)
