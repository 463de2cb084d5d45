"""A recorded workload: the requests of a real trace (arrival time, prompt and output lengths) replayed by the lab.

With WORKLOAD_TRACE set (and WORKLOAD_REQUESTS = N > 0) the engine plays N requests of a production trace instead
of the generator's identical ones (workload.py):

- WORKLOAD_TRACE = azure-conv | azure-code: a sample shipped with the lab (traces/: the first 1,000 requests of the
  Azure LLM inference trace 2023, conversation or code service, CC-BY 4.0, attribution in traces/README.md); on
  the command line a path FILE.csv reads any file of the same columns (TIMESTAMP, ContextTokens,
  GeneratedTokens), e.g. the whole trace in ../shared/traces/;
- the window: WORKLOAD_TRACE_START seconds after the trace's first request, WORKLOAD_TRACE_DURATION seconds long
  (0 = to the end); WORKLOAD_REQUESTS = N takes the first N requests of the window;
- WORKLOAD_TIME_SCALE = s divides every gap: s = 2 replays the same requests at twice the rate;
- request i (0-based, R1 first) arrives (t_i − t_first_in_window) ÷ s after 0, its prompt is exactly
  ContextTokens tokens (words the tokenizer knows, drawn as workload.fill draws them, seeded by WORKLOAD_SEED) and
  it asks for GeneratedTokens tokens (max_new); a request that does not fit MAX_CONTEXT is clipped (prompt to
  MAX_CONTEXT − 1 tokens, output to what is left: vLLM would refuse a prompt longer than max_model_len; the lab
  keeps the request so the arrival pattern stays the trace's) and `clipped` counts them;
- sampling greedy, seed WORKLOAD_SEED + i, as the generator's.

Worked example (the conversation sample's first three requests, N_MERGES = 10):

    >>> rows = read_rows("azure-conv")
    >>> rows[:3].tolist()
    [[0, 374, 44], [4314579, 396, 109], [4541877, 879, 55]]
    >>> v = dict(WORKLOAD_TRACE="azure-conv", WORKLOAD_TRACE_START=0.0, WORKLOAD_TRACE_DURATION=0.0,
    ...          WORKLOAD_TIME_SCALE=2.0, WORKLOAD_REQUESTS=3, WORKLOAD_SEED=0, N_MERGES=10, MAX_CONTEXT=2048)
    >>> [(r["id"], r["arrival"], r["max_new"]) for r in trace_for(v)]
    [('R1', 0, 44), ('R2', 2157290, 109), ('R3', 2270938, 55)]

By hand: R2 came 4.314579 s after R1 in the trace; at 2× it comes 2.1572895 s after, 2,157,290 µs (rounded to
the µs, half to even).

`distributions(v)` sets the played requests beside what the generator (workload.py) would play with the same
number of requests, mean rate and mean lengths (block [11] prints it, the chart "distributions" draws it): the
generator's prompts and outputs all have the mean length and its gaps are a Poisson process's, so its p99 is its
mean and its gaps' coefficient of variation (standard deviation ÷ mean) is about 1; a production trace's tails and
bursts are what averages hide.

Leaves out: the prompts' words (the trace records only lengths; the texts are random words of exactly that many
tokens, so the lab's model computes on them as on any prompt), multi-turn structure and prefix sharing between
requests (the trace does not record them), and the rows past the first 1,000 in the page's sample.
"""
from __future__ import annotations

import functools
from datetime import datetime
from pathlib import Path

import numpy as np

from .workload import NAME, arrivals, fill, tokenizer, words_of

HERE = Path(__file__).parent / "traces"
SAMPLES = {"azure-conv": "azure_conv_sample.csv", "azure-code": "azure_code_sample.csv"}
COLUMNS = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")
MIN_PROMPT = 2                                  # <bos> and one token: the generator's smallest prompt


class TraceError(ValueError):
    """A trace file that cannot be read: its path and what is wrong (the config check words it)."""


def path_of(name: str) -> Path:
    """The file a WORKLOAD_TRACE value names: a shipped sample, or the path itself (command line)."""
    return HERE / SAMPLES[name] if name in SAMPLES else Path(name)


def _seconds(stamp: str) -> float:
    """'2023-11-16 18:15:46.6805900' → seconds since the epoch (the fraction cut to the µs)."""
    day, _, frac = stamp.strip().partition(".")
    return datetime.fromisoformat(day).timestamp() + float("0." + (frac or "0")[:6])


@functools.lru_cache(maxsize=4)
def read_rows(name: str) -> np.ndarray:
    """The trace's rows as (R, 3) int64: arrival in µs after its first request, prompt tokens, output tokens."""
    try:
        lines = path_of(name).read_text(encoding="utf-8-sig").splitlines()
    except OSError as exc:
        raise TraceError(f"{name}: {exc.strerror or exc}") from None
    header = [c.strip() for c in lines[0].split(",")] if lines else []
    if header[:3] != list(COLUMNS):
        raise TraceError(f"{name}: the first line must be {','.join(COLUMNS)}")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        try:
            stamp, prompt, output = line.split(",")[:3]
            rows.append((_seconds(stamp), int(prompt), int(output)))
        except ValueError:
            raise TraceError(f"{name}: line {number} is not TIMESTAMP,ContextTokens,GeneratedTokens") from None
    if not rows:
        raise TraceError(f"{name}: no requests")
    t = np.array([r[0] for r in rows])                                      # (R,) seconds
    out = np.empty((len(rows), 3), dtype=np.int64)
    out[:, 0] = np.rint((t - t.min()) * 1e6)
    out[:, 1:] = [(r[1], r[2]) for r in rows]
    return out[np.argsort(out[:, 0], kind="stable")]


def window(v: dict) -> np.ndarray:
    """The rows the run plays, (N, 3): the window's first WORKLOAD_REQUESTS rows, arrivals from 0, scaled."""
    rows = read_rows(v["WORKLOAD_TRACE"])
    start = int(round(v["WORKLOAD_TRACE_START"] * 1e6))
    end = start + int(round(v["WORKLOAD_TRACE_DURATION"] * 1e6)) if v["WORKLOAD_TRACE_DURATION"] > 0 else None
    inside = rows[(rows[:, 0] >= start) & ((rows[:, 0] < end) if end is not None else True)]
    picked = inside[:v["WORKLOAD_REQUESTS"]].copy()
    if len(picked):
        picked[:, 0] = np.rint((picked[:, 0] - picked[0, 0]) / float(v["WORKLOAD_TIME_SCALE"]))
    return picked


def fitted(rows: np.ndarray, max_context: int) -> np.ndarray:
    """Prompt and output lengths clipped to fit MAX_CONTEXT (prompt ≥ 2, output ≥ 1), (N, 2)."""
    prompt = np.clip(rows[:, 1], MIN_PROMPT, max_context - 1)
    output = np.clip(rows[:, 2], 1, np.maximum(max_context - prompt, 1))
    return np.stack([prompt, output], axis=1)


def clipped(v: dict) -> int:
    """How many of the run's requests were clipped to fit MAX_CONTEXT."""
    rows = window(v)
    return int((fitted(rows, v["MAX_CONTEXT"]) != rows[:, 1:]).any(axis=1).sum())


def trace_for(v: dict) -> tuple[dict, ...]:
    """The requests for a config's values (WORKLOAD_TRACE and its window, N_MERGES, MAX_CONTEXT); cached."""
    return _cached(v["WORKLOAD_TRACE"], float(v["WORKLOAD_TRACE_START"]), float(v["WORKLOAD_TRACE_DURATION"]),
                   float(v["WORKLOAD_TIME_SCALE"]), v["WORKLOAD_REQUESTS"], v["WORKLOAD_SEED"], v["N_MERGES"],
                   v["MAX_CONTEXT"])


@functools.lru_cache(maxsize=8)
def _cached(name, start, duration, scale, n, seed, n_merges, max_context) -> tuple[dict, ...]:
    v = dict(WORKLOAD_TRACE=name, WORKLOAD_TRACE_START=start, WORKLOAD_TRACE_DURATION=duration,
             WORKLOAD_TIME_SCALE=scale, WORKLOAD_REQUESTS=n)
    rows = window(v)
    sizes = fitted(rows, max_context)
    tok = tokenizer(n_merges)
    words, costs = words_of(tok)
    rng = np.random.default_rng(seed)
    return tuple(dict(id=NAME.format(i + 1), arrival=int(rows[i, 0]),
                      text=" ".join(fill(rng, words, costs, int(sizes[i, 0]) - 1)), max_new=int(sizes[i, 1]),
                      temperature=0.0, top_k=0, top_p=1.0, seed=seed + i)
                 for i in range(len(rows)))


def stats(lengths) -> dict:
    """Mean, median, p90, p99 and max of a list of lengths (or gaps): what a trace's tail looks like.

    >>> stats([1, 2, 3, 4, 100])
    {'mean': 22.0, 'p50': 3.0, 'p90': 61.6, 'p99': 96.16, 'max': 100.0}
    """
    a = np.asarray(lengths, dtype=float)
    q = np.percentile(a, [50, 90, 99]) if len(a) else [0.0] * 3
    return dict(mean=round(float(a.mean()), 2) if len(a) else 0.0, p50=round(float(q[0]), 2),
                p90=round(float(q[1]), 2), p99=round(float(q[2]), 2), max=float(a.max()) if len(a) else 0.0)


def burst(at_us: np.ndarray, window_us: int = 1_000_000) -> int:
    """The most arrivals in any window of `window_us` (1 s) starting at an arrival: how bursty the traffic is.

    >>> burst(np.array([0, 100, 200, 2_000_000]))
    3
    """
    if not len(at_us):
        return 0
    ends = np.searchsorted(at_us, at_us + window_us, side="left")       # (N,) first arrival past each window
    return int((ends - np.arange(len(at_us))).max())


def gap_stats(at_us: np.ndarray) -> dict:
    """The gaps between arrivals in ms: stats() plus cv (standard deviation ÷ mean) and the busiest second."""
    gaps = np.diff(at_us) / 1000.0                                         # (N - 1,) ms
    cv = float(gaps.std() / gaps.mean()) if len(gaps) and gaps.mean() > 0 else 0.0
    return dict(stats(gaps), cv=round(cv, 3), peak_1s=burst(at_us))


def distributions(v: dict) -> dict:
    """The played trace's prompt and output lengths (as played: clipped to MAX_CONTEXT) and gaps between arrivals,
    beside the generator's with the same count, mean rate ((N − 1) ÷ span) and mean lengths (rounded): {requests,
    rate, trace: {prompt, output, gap}, generator: {prompt, output, gap}} (stats(); gap in ms with cv, peak_1s).
    The generator's gaps are workload.arrivals with WORKLOAD_SEED, as a run of the generator would draw them."""
    rows = window(v)
    sizes = fitted(rows, v["MAX_CONTEXT"])                                # (N, 2)
    n = len(rows)
    span = (rows[-1, 0] - rows[0, 0]) / 1e6 if n else 0.0                 # s
    rate = (n - 1) / span if span > 0 else 0.0
    prompt, output = (int(round(float(sizes[:, k].mean()))) if n else 0 for k in (0, 1))
    generated = arrivals(np.random.default_rng(v["WORKLOAD_SEED"]), n, rate)
    return dict(requests=n, rate=round(rate, 4),
                trace=dict(prompt=stats(sizes[:, 0]), output=stats(sizes[:, 1]), gap=gap_stats(rows[:, 0])),
                generator=dict(prompt=stats([prompt] * n), output=stats([output] * n), gap=gap_stats(generated)))
