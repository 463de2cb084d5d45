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
      "checks":  [{"name": str, "ok": bool, "detail": str, "label": str, "waiting"?: true}],
                                              # waiting: a deferred run's check not run yet (lab.Later; ok true)
      "passed":  bool,                        # no check failed (a waiting one has not failed)
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

A long run (more than compact.COMPACT_STEPS steps) is written in the compact form of compact.py (issue 39):
`Report.to_compact_dict()`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from .compact import compact_steps


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
    waiting: bool = False     # a deferred run's check that needs blocks [11]/[12]'s replays (lab.Later): not run yet

    def to_dict(self) -> dict:
        d = dict(name=self.name, ok=bool(self.ok), detail=self.detail, label=self.label)
        return dict(d, waiting=True) if self.waiting else d

    @classmethod
    def from_dict(cls, d: dict) -> "Check":
        return cls(d["name"], d["ok"], d["detail"], d["label"], bool(d.get("waiting", False)))


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
