"""Export a run's timeline as Chrome trace-event JSON (opens in Perfetto or chrome://tracing).

One track (thread) per request, one complete event ("ph": "X") per prefill chunk or
decode step on that request's track, instant events for arrival, ready, first token,
finish or abort, preemption and 429/400 refusals. Timestamps are the lab's SIMULATED microseconds.

    >>> from inference_lab import run
    >>> events = trace_events(run())["traceEvents"]
    >>> sorted({e["ph"] for e in events})
    ['M', 'X', 'i']

Labels come in the report's language (`TRACE` of text_vi.py / text_en.py).

Reads the run log (report.steps: the steps and their tasks) and block [11]'s requests.
Leaves out: flow arrows between steps, counters (KV use is in block [11]).
"""
from __future__ import annotations

import json

PID = 1


def _words(report) -> dict:
    """The trace's few labels in the report's language (text_vi.TRACE / text_en.TRACE)."""
    from .lab import TEXTS
    return TEXTS.get(report.lang, TEXTS["vi"])[0].TRACE


def _tids(report) -> dict:
    return {r["id"]: i + 1 for i, r in enumerate(report.config["REQUESTS"])}


def _meta(tids, w) -> list[dict]:
    events = [dict(ph="M", pid=PID, name="process_name", args=dict(name=w["process"]))]
    events += [dict(ph="M", pid=PID, tid=t, name="thread_name", args=dict(name=w["request"].format(id=rid)))
               for rid, t in tids.items()]
    return events


def _instant(name, ts, tid, **args) -> dict:
    return dict(ph="i", s="t", name=name, ts=ts, pid=PID, tid=tid, args=args)


def _slices(steps, tids) -> list[dict]:
    events = []
    for i, st in enumerate(steps):
        for rid, phase, n in st["tasks"]:
            name = f"prefill {n} token" if phase == "prefill" else "decode"
            events.append(dict(ph="X", name=name, cat=phase, ts=st["start"], dur=st["end"] - st["start"], pid=PID,
                               tid=tids[rid],
                               args=dict(step=i + 1, tokens=n,
                                         **({"replica": st["replica"]} if "replica" in st else {}))))
    return events


def trace_events(report) -> dict:
    tids, w = _tids(report), _words(report)
    data11 = report.block(11).data
    events = _meta(tids, w) + _slices(report.steps["items"], tids)
    for r in data11["requests"]:
        t = tids[r["id"]]
        events += [_instant(w["arrive"], r["arrival"], t), _instant(w["ready"], r["ready"], t)]
        if r["first"] is not None:           # an aborted request may have no first token (and no TTFT)
            events.append(_instant(w["first"], r["first"], t, ttft_us=r["ttft"]))
        events.append(_instant(w["abort"] if r.get("status") == "aborted" else w["finish"], r["finish"], t))
    events += [_instant(w["reject"].format(code=x["code"]), x["arrival"], tids[x["id"]]) for x in data11["rejected"]]
    events += [_instant("preempt", p["time"], tids[p["request"]], step=p["step"], blocks=p["blocks"])
               for p in report.block(3).data["preemptions"]]
    return dict(traceEvents=events, displayTimeUnit="ms", otherData=dict(clock="simulated µs"))


def write_trace(report, path: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(trace_events(report), fh, ensure_ascii=False)
