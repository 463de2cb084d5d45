"""[7] Speculative decoding: propose K tokens cheaply, verify them in one target pass, keep what the rule accepts.

SPEC_METHOD chooses the proposer (vLLM's vllm/v1/spec_decode/: `NgramProposer`, draft-model proposers):
- "ngram" (`ngram_propose`, vLLM's prompt lookup, ngram_proposer.py `_find_longest_matched_ngram_and_propose_tokens`):
  find the last n tokens of the sequence (prompt + generated) earlier in it and propose the tokens that
  followed, at most K (fewer when the sequence ends first). n runs from NGRAM_MAX = 3 down to NGRAM_MIN = 1
  (vLLM's prompt_lookup_max / prompt_lookup_min; the lab's sequences are a few dozen tokens, so small n): the
  LONGEST n that matches wins, and among matches of that n the EARLIEST occurrence (vLLM's tie rule).
  Its q is one-hot (no draft probabilities, vLLM's IS_NGRAM).
- "draft" (`DraftModel`): a cheaper model proposes K tokens one after the other, each drawn as the request's
  sampler would (its own temperature / top-k / top-p) from the draft's distribution q, with a draft RNG of
  the request (seeded from its seed). The draft is the lab's own model with its weights quantized to
  QUANT_BITS (`quantization.quantize_weights`: self-speculation with a quantized draft; at 8 bits q ≈ p and α
  is near 1, at 4 or 2 bits the draft is weaker). Its K/V live in plain arrays, not in the paged pool (vLLM
  gives a draft model its own KV cache; the lab does not draw it).

The engine (engine.py, through its `Speculation` part) then, for every decoding sequence with proposals,
feeds the pending token and the k proposals through the target model in ONE forward pass over the paged KV
cache (the decode path with k + 1 new tokens: they write k + 1 KV slots), hands the k + 1 logits rows to
rejection_sampler.verify, emits the accepted tokens and the recovered or bonus token, and rolls the cache back
to the kept positions (`BlockManager.rollback`): the rejected tokens' slots are freed, a block left empty goes
back to the pool, and with the prefix cache on, blocks are hashed only after the rollback, so a rejected token
never enters a cached block's hash. Proposals live only inside a step (proposed when it is planned, verified
and rolled back when it runs): a cancellation at a step boundary never meets half-verified state; a sequence
preempted inside the step drops its proposals with its task.

How many: K = SPEC_TOKENS, cut (`spec_limit`) so a request never proposes past its limits: its emitted tokens
(at most k + 1) stay within max_new and MAX_CONTEXT. Budget (`split_budget`), as vLLM's scheduler: a verifying
sequence costs 1 + k tokens (`verify_tokens`) of the step's TOKEN_BUDGET; decodes come first, each takes 1 token,
then the proposals take what is left in running order and the prompt chunks get the rest. When the budget has less
room, a sequence gets fewer proposals this step (maybe none: a plain decode).

What a step costs:
- CLOCK = roofline: the verify pass is the step's forward pass with k + 1 new tokens for the sequence (more FLOPs,
  the same weight read: cheap while decode is memory-bound, dear once the step is compute-bound); the draft's
  passes (one per proposed position, the batch of sequences still proposing) cost the shadow model's roofline
  at the draft's weight bytes (QUANT_BITS bits per weight: weight-only, so it multiplies at the ACT_BITS peak)
  without the step overhead; every verified position is sampled (its logits are computed); n-gram lookup is
  free (CPU).
- CLOCK = seed: every scored position costs what a decoding sequence costs (COST_DECODE_PER_SEQ × (1 + k)
  instead of × 1, COST_DECODE_FIXED once), and each draft pass costs (COST_DECODE_FIXED + COST_DECODE_PER_SEQ ×
  its sequences) × QUANT_BITS / 32: the decode cost scaled by the draft's weight bytes against the lab's FP32
  weights (block [9]).

    >>> ngram_propose([0, 5, 6, 7, 9, 5, 6], 2)
    [7, 9]
    >>> ngram_propose([0, 5, 6, 7, 5, 8, 5], 3)       # n = 1 ties: the earliest 5 wins
    [6, 7, 5]

Leaves out: EAGLE / Medusa / MTP heads, token trees, proposing at the end of the previous step (vLLM overlaps
it; here it is part of the step), the draft's KV cache and its catching up on accepted tokens.
"""
from __future__ import annotations

import math

import numpy as np

from ..model import quantization
from ..model.tokenizer import EOS
from ..model.model import forward
from ..model.rejection_sampler import verify
from ..model.sampler import sample
from .scheduler import plan_tasks

NGRAM_MIN, NGRAM_MAX = 1, 3
LAB_WEIGHT_BITS = 32          # the lab's weights as block [9] counts them (FP32)


def ngram_propose(context: list, k: int, min_n: int = NGRAM_MIN, max_n: int = NGRAM_MAX) -> list:
    """Up to k tokens that followed the longest (then earliest) earlier match of the context's last n tokens."""
    for n in range(min(max_n, len(context) - 1), min_n - 1, -1):
        tail = context[-n:]
        for i in range(len(context) - n):                  # every start before the tail itself
            if context[i:i + n] == tail:
                return list(context[i + n:i + n + k])
    return []


def spec_limit(seq, k: int, max_context: int) -> int:
    """K cut so that the k + 1 tokens a verify may emit stay within max_new and MAX_CONTEXT."""
    done = len(seq.out)
    return max(0, min(k, seq.max_new - done - 1, max_context - seq.prompt_len - done - 1))


def split_budget(wants: list[tuple[object, int]], num_decode: int, budget_cap: int | None) -> dict:
    """{seq id: k} in running order: after one token per decode, the proposals take what the budget has left."""
    left = None if budget_cap is None else budget_cap - num_decode
    out = {}
    for seq, want in wants:
        k = want if left is None else max(0, min(want, left))
        out[seq.id] = k
        left = None if left is None else left - k
    return out


class DraftModel:
    """The lab's model with QUANT_BITS weights, proposing autoregressively with the request's sampling settings."""

    def __init__(self, W: dict, bits: int, vocab: int):
        self.W, self.vocab = quantization.quantize_weights(W, bits)[0], vocab
        self.rngs = {}                                     # request id -> its draft RNG

    def propose(self, seq, context: list, k: int) -> tuple[list, list]:
        """(k tokens, the k distributions q they were drawn from)."""
        rng = self.rngs.setdefault(seq.id, np.random.default_rng([seq.seed, 1]))
        logits, K, V, _ = forward(self.W, context, 0)
        tokens, qs = [], []
        for i in range(k):
            token, info = sample(logits[-1], seq.sampling, rng, self.vocab)
            tokens.append(token)
            qs.append(info["filtered"])
            if i + 1 < k:
                logits, kn, vn, _ = forward(self.W, [token], len(context) + i, K, V)
                K, V = np.concatenate([K, kn], axis=1), np.concatenate([V, vn], axis=1)
        return tokens, qs


def verify_tokens(k: int) -> int:
    """Tokens a decoding sequence with k proposals puts through the target model and takes of the step's budget:
    the pending token and its k proposals, verified in one pass (k = 0: a plain decode).

    >>> verify_tokens(0), verify_tokens(3)
    (1, 4)
    """
    return 1 + k


class Speculation:
    """The engine's speculative decoding (a part of engine.Engine, `engine.spec`): plan, propose, verify, roll
    back, charge. The step's proposals and its `spec` fact live in the step's scratch (step.StepScratch)."""

    def __init__(self, lab, method: str, pool, log, trace: dict, clock):
        cfg = self.cfg = lab.cfg
        self.lab, self.pool, self.log, self.trace, self.clock = lab, pool, log, trace, clock
        self.spec_method, self.spec_k = method, cfg.SPEC_TOKENS
        self.draft = (DraftModel(lab.W, cfg.QUANT_BITS, lab.W["U"].shape[1])
                      if method == "draft" else None)

    def plan(self, step, running: list, budget_cap: int | None) -> list:
        """scheduler.plan_tasks, after the decoding sequences' proposals took their share of the budget."""
        if self.spec_method == "off":
            return plan_tasks(running, budget_cap)
        decoding = [s for s in running if s.num_prefill_left == 0 and s.pending_token is not None]
        wants = [(s, spec_limit(s, self.spec_k, self.cfg.MAX_CONTEXT)) for s in decoding]
        ks = split_budget(wants, len(decoding), budget_cap)
        for seq in decoding:
            if ks[seq.id]:
                step.proposals[seq.id] = self.propose(seq, ks[seq.id])
        used = sum(len(t) for t, _ in step.proposals.values())
        return plan_tasks(running, None if budget_cap is None else budget_cap - used)

    def propose(self, seq, k: int) -> tuple[list, list]:
        context = list(seq.ids[seq.stand_in_skip:]) + list(seq.out)     # the model's context (a stand-in's)
        if self.draft is not None:
            return self.draft.propose(seq, context, k)
        tokens = ngram_propose(context, k)
        n_out = self.lab.W["U"].shape[1]                   # byte tokens are input-only: never proposed (p = 0)
        tokens = tokens[:next((i for i, x in enumerate(tokens) if x >= n_out), len(tokens))]
        return tokens, [None] * len(tokens)

    @staticmethod
    def proposed(step, seq) -> int:
        return len(step.proposals.get(seq.id, ((), ()))[0])

    @staticmethod
    def spec_work(step, work: dict) -> dict:
        """work_of's {id: (new tokens, cached, sampled)} with the verify passes' 1 + k tokens, all of them sampled."""
        return {rid: (verify_tokens(len(step.proposals[rid][0])), p, s + len(step.proposals[rid][0]))
                if rid in step.proposals else (n, p, s) for rid, (n, p, s) in work.items()}

    # ── verify in one pass, accept, roll back ──────────────────────────────
    def verify(self, step, seq) -> list:
        """Verify `seq`'s proposals in one target pass and roll the cache back; returns the tokens it emits."""
        tokens, qs = step.proposals.pop(seq.id)
        c, fed = seq.cached, [seq.pending_token] + tokens
        m = seq.model_position(c)                                  # c but for a long prompt's stand-in
        seq.history += fed
        K, V = self.pool.gather(seq)
        logits, kn, vn, prob = self.lab.forward(fed, m, K, V)     # (k+1, vocab), (heads, k+1, d_head) ×2
        if seq.id not in self.trace["first_decode"]:
            self.trace["first_decode"][seq.id] = dict(request=seq.id, token=fed[0], position=m,
                                                      prob=prob[:, :1, :m + 1], logits=logits[0])
        self.pool.write(seq, kn, vn, hash_now=False)
        self.trace["positions_cached"] += len(fed)
        self.trace["positions_naive"] += len(seq.history) - seq.stand_in_skip
        n, token = verify(logits, tokens, qs, seq.sampling, seq.rng)
        out = self.until_stop(seq, tokens[:n] + [token])
        kept = len(out)                                            # positions c .. c + kept − 1 stay cached
        seq.history = seq.history[:c + kept]
        freed = self.pool.rollback(seq, c + kept)
        if freed or kept < len(fed):
            self.log.event("rollback", id=seq.id, rejected=len(fed) - kept, blocks=freed)
        seq.checked_rows += [(m + i, logits[i]) for i in range(kept)]
        accepted = min(n, kept)
        step.spec[seq.id] = dict(proposed=list(tokens), accepted=accepted, token=token if kept > n else None)
        return out

    def until_stop(self, seq, tokens: list) -> list:
        """The tokens the stop check lets out: up to and with the first eos (unless IGNORE_EOS = on), at most
        max_new in all."""
        room = seq.max_new - len(seq.out)
        out = []
        for t in tokens[:room]:
            out.append(t)
            if t == EOS and self.cfg.IGNORE_EOS != "on":
                break
        return out

    # ── what the proposals cost ────────────────────────────────────────────
    def spec_micros(self, step, tasks) -> int:
        """µs the proposals add to a step with these tasks (module docstring, "What a step costs")."""
        if not (step.proposals or step.spec):               # no proposal this step (SPEC_METHOD = off): nothing
            return 0
        ks = [len(self.proposals_of(step, seq)) for phase, seq, _ in tasks if phase == "decode"]
        if not any(ks):
            return 0
        cfg = self.cfg
        drafting = self.spec_method == "draft"
        if cfg.CLOCK == "roofline":
            return self.draft_roofline(step, tasks) if drafting else 0
        extra = cfg.COST_DECODE_PER_SEQ * sum(verify_tokens(k) - 1 for k in ks)     # past the decode's own 1
        if drafting:
            passes = [sum(k >= j for k in ks) for j in range(1, max(ks) + 1)]    # sequences in each draft pass
            extra += math.ceil(sum(cfg.COST_DECODE_FIXED + cfg.COST_DECODE_PER_SEQ * b for b in passes)
                               * cfg.QUANT_BITS / LAB_WEIGHT_BITS)
        return extra

    @staticmethod
    def proposals_of(step, seq) -> list:
        """The step's proposals of `seq`, before or after its verify ran (the step's `spec` keeps them)."""
        if seq.id in step.proposals:
            return step.proposals[seq.id][0]
        return step.spec.get(seq.id, {}).get("proposed", [])

    def draft_roofline(self, step, tasks) -> int:
        cfg, clock = self.cfg, self.clock
        rows = [(len(self.proposals_of(step, seq)), step.work[seq.id][1]) for p, seq, _ in tasks if p == "decode"]
        seconds = 0.0
        for j in range(1, max(k for k, _ in rows) + 1):
            work = [(1, cached + j - 1) for k, cached in rows if k >= j]
            cost = clock.cost_at(work, cfg.QUANT_BITS)
            seconds += max(cost.terms(clock.gpu, cfg.ACT_BITS, cfg.FLOPS_FRACTION, cfg.BANDWIDTH_FRACTION)) + cost.comm
        return math.ceil(seconds * 1e6)
