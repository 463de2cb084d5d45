"""The result of one lab run: printed lines plus the structured data behind them.

`Report.to_text()` is exactly what `python -m inference_lab` prints (and, with the
default constants, byte for byte what the seed program prints). `Report.to_dict()` is
plain JSON for the page and its charts; it holds every printed line once (no second copy of
the whole text: `Report.from_dict(d).to_text()` prints it again):

    {
      "config":  {NAME: value, ..., "REQUESTS": [{id, arrival, text, max_new, temperature, top_k, top_p, seed}]},
      "header":  [str],                       # the lines before block [1] (last one is "")
      "blocks":  [{"number": 1..13, "code": "1 · Gateway & admission", "title": str,
                   "lines": [str], "data": {...}}],   # printed as "[code] title", "   line", ""
      "summary": [str],                       # TỔNG KẾT lines; the last is "PASS: ..." or "FAIL: ..."
      "checks":  [{"name": str, "ok": bool, "detail": str, "label": str}],
      "passed":  bool,
      "follow":  {"id", "served", "served_ids", and when refused: "code", "stage", "reason", "facts"}
    }

Blocks are found by their number, never by their place in the list: `report.block(11)`.

Each block's "data" (see lab.py, block<N>_data) — the keys the charts read:
  1  capacity, decisions[{request, stage, code, reason, facts, arrival}], offered, n_429, n_400, served
  2  n_merges, vocab, first_merges, follow{id, text, tokens, ids, prompt_len, max_new}, prompt_lens, blocked, prep
  3  steps[{start, end, waiting, running, tasks[[id, phase, n]], decode, prefill, kv_used, preempted,
     block_owners{block: id}}], preemptions[{step, time, request, blocks, generated, recompute}], mixed, chunks, follow
  4  chunks, prompt_len, k_shape, logits, top3, top3_tokens, top3_scores, first_time, arrival, ttft
  5  token, token_text, position, context[token per position], heads[[w...], [w...]], sums, argmax, parity
  6  peak{used, tables, tokens, step (1-based step in which the peak happened)}, released, reused, owners, free, gather, preemptions
  7  n_out, n_decode, cache_len, first_decode{token, position, weights, sum}, positions_cached, positions_naive
  8  tokens[id -> text], temperature, top_k, top_p, seed, mode, probs, filtered, top5, kept, kept_ids, token,
     token_text, stream, stops
  9  bits, elements, scales, fp32_bytes, int_bytes, max_err, half_scale, logit_err, matrices
  10 bytes_per_token, pool_bytes, weight_bytes, peak_used, example{...}
  11 steps, ttft_slo, requests[{id, arrival, ready, start, first, finish, token_times, prep, queue, prefill, ttft,
     tpot, e2e, gap, n, preemptions}], rejected[{id, code, arrival}], preempted_at{id: [steps]}
  12 per[{id, ttft, tpot, e2e, n}], same, policies[{policy, tokens, span, throughput, mean_ttft, max_ttft,
     mean_tpot, worst_gap, preemptions, served}]
  13 bits, rows[{id, agree, n, max_err, decisions}], skipped, decisions, flips, agreement, gate, passed, tight
Times are simulated µs (integers); a value that does not exist is null.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field


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
                    follow=self.follow)

    @classmethod
    def from_dict(cls, d: dict) -> "Report":
        """The report again from to_dict()'s JSON (e.g. the page's): same lines, same to_text()."""
        return cls(config=d["config"], header=list(d["header"]), blocks=[Block.from_dict(b) for b in d["blocks"]],
                   summary=list(d["summary"]), checks=[Check.from_dict(c) for c in d["checks"]], follow=d["follow"])

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, **kw)
