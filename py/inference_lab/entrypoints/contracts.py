"""What each function a student may rewrite must return, checked at the boundary of a patched run.

`CONTRACTS["scheduler.plan_tasks"](result, running, budget_cap)` checks a return value (type, shape,
a token outside the vocabulary, a plan over the token budget, a victim that is not running) and gives
it back normalised (NumPy ints -> int, …), or raises `ContractError` saying what is wrong. A contract
takes the result and then the original function's parameters by name. `checked(fn, …)` wraps a
patched function so that a broken contract becomes a `Lesson` ("returns.<module.function>" in the
editor's tables says what it must return). Only patched functions are wrapped, so a run without
patches is exactly as fast as before.

    >>> draw_contract(np.int64(3), [0.25] * 4, None)
    3
    >>> draw_contract(4, [0.25] * 4, None)
    Traceback (most recent call last):
    ...
    inference_lab.entrypoints.contracts.ContractError: token 4 nằm ngoài 0..3.

Leaves out: loading and installing a patch (patch.py) and the words (words/patch_vi.py, patch_en.py).
"""
from __future__ import annotations

import functools
import inspect
import numbers

import numpy as np

from .lessons import Lesson, PatchError, say


class ContractError(Exception):
    """What a patched function returned breaks its contract; the message says what it must return."""


def checked(fn, qualname: str, unit, original):
    """fn, with its return value checked by CONTRACTS[qualname] (and normalised: NumPy ints → int, …).

    The contract gets the call's arguments by the names of `original`'s parameters."""
    contract = CONTRACTS.get(qualname)
    name = qualname.rpartition(".")[2]
    signature = inspect.signature(original)

    @functools.wraps(fn)
    def patched_function(*args, **kwargs):
        result = fn(*args, **kwargs)
        if contract is None:
            return result
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        try:
            return contract(result, **bound.arguments)
        except ContractError as exc:
            message = say("return.wrong", file=unit.name, function=name, error=exc, must=say(f"returns.{qualname}"))
            raise PatchError([Lesson(unit.key, "return", message, name, fn.__code__.co_firstlineno)]) from None
    return patched_function


# ── values, said in a message ──────────────────────────────────────────────
def shown(value) -> str:
    """A short description of a value for a message."""
    if isinstance(value, np.ndarray):
        return say("value.array", shape=value.shape)
    text = repr(value)
    return f"{type(value).__name__} {text[:60] + '…' if len(text) > 60 else text}"


def as_int(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ContractError(say("value.integer", what=what, value=shown(value)))
    return int(value)


def as_array(value, what: str, shape: tuple | None = None) -> np.ndarray:
    if not isinstance(value, np.ndarray) or not np.issubdtype(value.dtype, np.number):
        raise ContractError(say("value.numeric_array", what=what, value=shown(value)))
    if shape is not None and value.shape != tuple(shape):
        raise ContractError(say("value.shape", what=what, shape=tuple(shape), got=value.shape))
    if not np.all(np.isfinite(value)):
        raise ContractError(say("value.not_finite", what=what))
    return value


def as_distribution(value, what: str, n: int) -> np.ndarray:
    arr = as_array(value, what, (n,))
    if np.any(arr < 0) or abs(float(arr.sum()) - 1.0) > 1e-6:
        raise ContractError(say("value.distribution", what=what, total=float(arr.sum())))
    return arr


# ── one contract per editable function ─────────────────────────────────────
def gateway_admits_contract(result, num_in_system, slots, queue_limit):
    if not isinstance(result, (bool, np.bool_)):
        raise ContractError(say("gateway.not_bool", value=shown(result)))
    return bool(result)


def admission_room_contract(result, policy, slots, running, waiting, ready, pending):
    room = as_int(result, say("room.what"))
    if room < 0:
        raise ContractError(say("value.negative", value=room))
    if room == 0 and not running and not pending and ready and len(ready) == len(waiting):
        raise ContractError(say("room.forever", ready=", ".join(s.id for s in ready)))
    return room


def plan_task(i: int, task, running, seen: set) -> tuple:
    """Task number i (from 1) of a plan, checked: (phase, seq, n)."""
    if not isinstance(task, (list, tuple)) or len(task) != 3:
        raise ContractError(say("plan.not_triple", i=i, value=shown(task)))
    phase, seq, n = task
    if phase not in ("prefill", "decode"):
        raise ContractError(say("plan.phase", i=i, phase=phase))
    if not any(seq is r for r in running):
        raise ContractError(say("plan.not_running", i=i, value=shown(seq)))
    if id(seq) in seen:
        raise ContractError(say("plan.twice", seq=seq.id))
    seen.add(id(seq))
    n = as_int(n, say("plan.n", i=i))
    if phase == "decode" and (seq.num_prefill_left or n != 1):
        raise ContractError(say("plan.decode", seq=seq.id, left=seq.num_prefill_left, n=n))
    if phase == "prefill" and not 1 <= n <= seq.num_prefill_left:
        raise ContractError(say("plan.prefill", seq=seq.id, left=seq.num_prefill_left, n=n))
    return phase, seq, n


def plan_tasks_contract(result, running, budget_cap):
    if not isinstance(result, (list, tuple)):
        raise ContractError(say("plan.not_list", value=shown(result)))
    seen = set()
    tasks = [plan_task(i + 1, task, running, seen) for i, task in enumerate(result)]
    total = sum(n for _, _, n in tasks)
    if budget_cap is not None and any(p == "prefill" for p, _, _ in tasks) and total > budget_cap:
        raise ContractError(say("plan.over_budget", total=total, budget_cap=budget_cap))
    if running and not tasks:
        raise ContractError(say("plan.empty", n=len(running)))
    return tasks


def choose_victim_contract(result, running, seq):
    if not any(result is r for r in running):
        raise ContractError(say("victim.not_running", value=shown(result), running=", ".join(r.id for r in running)))
    return result


def step_duration_contract(result, cfg, tasks):
    duration = as_int(result, say("duration.what"))
    if duration < 0:
        raise ContractError(say("value.negative_us", value=duration))
    return duration


def sample_contract(result, logits, params, rng, vocab):
    if not isinstance(result, (list, tuple)) or len(result) != 2 or not isinstance(result[1], dict):
        raise ContractError(say("sample.not_pair", value=shown(result)))
    token, info = as_int(result[0], "token"), dict(result[1])
    if not 0 <= token < vocab:
        raise ContractError(say("sample.outside", token=token, last=vocab - 1))
    missing = [k for k in ("probs", "filtered", "mode") if k not in info]
    if missing:
        raise ContractError(say("sample.missing", keys=", ".join(missing)))
    as_array(info["probs"], "info['probs']", (vocab,))
    as_array(info["filtered"], "info['filtered']", (vocab,))
    if not isinstance(info["mode"], str):
        raise ContractError(say("sample.mode", value=shown(info["mode"])))
    info["token"] = token
    return token, info


def top_k_top_p_contract(result, probs, top_k, top_p):
    return as_distribution(result, say("value.result"), len(probs))


def softmax_contract(result, z):
    if np.ndim(z) == 1:
        return as_distribution(result, say("value.result"), np.shape(z)[-1])
    return as_array(result, say("value.result"), np.shape(z))


def draw_contract(result, probs, rng):
    token = as_int(result, "token")
    if not 0 <= token < len(probs):
        raise ContractError(say("draw.outside", token=token, last=len(probs) - 1))
    return token


QUANT_INFO = dict(elements=int, scales=int, max_err=float, half_scale=float, within_half_scale=bool)


def quant_info_row(info: dict, name: str) -> dict:
    """info[name] of quantize_weights, checked: {elements, scales, max_err, half_scale, within_half_scale}."""
    if not isinstance(info.get(name), dict):
        raise ContractError(say("quantize.no_entry", name=name))
    row = info[name]
    lost = [k for k in QUANT_INFO if k not in row]
    if lost:
        raise ContractError(say("quantize.entry_keys", name=name, keys=", ".join(lost)))
    try:
        out = {k: cast(row[k]) for k, cast in QUANT_INFO.items()}
    except (TypeError, ValueError):
        raise ContractError(say("quantize.numbers", name=name)) from None
    if not all(np.isfinite(out[k]) for k in ("max_err", "half_scale")):
        raise ContractError(say("quantize.finite", name=name))
    return out


def quantize_weights_contract(result, W, bits, names):
    if not isinstance(result, (list, tuple)) or len(result) != 2 or not all(isinstance(x, dict) for x in result):
        raise ContractError(say("quantize.not_pair", value=shown(result)))
    Wq, info = result
    missing = [k for k in W if k not in Wq]
    if missing:
        raise ContractError(say("quantize.missing", names=", ".join(missing)))
    Wq = {k: as_array(Wq[k], f"Wq[{k!r}]", W[k].shape) for k in W}
    return Wq, {name: quant_info_row(info, name) for name in names}


def accepts_contract(result, p_x, q_x, u):
    if not isinstance(result, (bool, np.bool_)):
        raise ContractError(say("accepts.not_bool", value=shown(result)))
    return bool(result)


def attention_contract(result, Qr, K, V, start):
    if not isinstance(result, (list, tuple)) or len(result) != 2:
        raise ContractError(say("attention.not_pair", value=shown(result)))
    H, T, d = Qr.shape
    ctx = as_array(result[0], "ctx", (T, H * d))           # (T, H·d_head)
    prob = as_array(result[1], "prob", (H, T, K.shape[1]))  # (H, T, source positions)
    return ctx, prob


CONTRACTS = {
    "engine.gateway_admits": gateway_admits_contract,
    "scheduler.admission_room": admission_room_contract,
    "scheduler.plan_tasks": plan_tasks_contract,
    "scheduler.choose_victim": choose_victim_contract,
    "scheduler.step_duration": step_duration_contract,
    "sampler.sample": sample_contract,
    "sampler.top_k_top_p": top_k_top_p_contract,
    "sampler.softmax": softmax_contract,
    "sampler.draw": draw_contract,
    "quantization.quantize_weights": quantize_weights_contract,
    "model.attention": attention_contract,
    "rejection_sampler.accepts": accepts_contract,
}
