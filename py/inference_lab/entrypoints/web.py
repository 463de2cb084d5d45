"""The page's door into the engine: JSON in, JSON out (called from the Web Worker via Pyodide).

    >>> import json
    >>> out = json.loads(run('{"SLOTS": 0, "QUANT_BITS": 9}'))
    >>> out["ok"], [e["field"] for e in out["errors"]]
    (False, ['SLOTS', 'QUANT_BITS'])
    >>> json.loads(run('{}'))["report"]["passed"]
    True

`describe()` returns the config schema (see config.describe), with the characters the tokenizer knows
added to REQUESTS as "alphabet" (the page's request editor warns about any other character):

    >>> [d["alphabet"] for d in json.loads(describe()) if d["name"] == "REQUESTS"]
    ['abcdehiklmnotx']

`run(config_json, lang)` returns
{"ok": true, "report": Report.to_dict(), "trace": Chrome trace-event JSON of the timeline}
or {"ok": false, "errors": [{field, message, message_en}]}; `lang` ("vi" or "en") words the report.
`render(report_json, lang)` words an earlier run's report (its to_dict() JSON) in `lang` without
running the engine again (the page's language switch), with the same answer shape.
Strings keep the worker free of Python source and the messages small and typed.

`run(config_json, patches, lang)` runs the lab with the student's edited functions (patch.py; sandbox.py puts
back whatever else the edited code changed, so the next unedited run is a fresh page's): `patches`
is JSON (or the same as Python objects) of {module: source} or of a list of
{module, source, name, first_line, key, function}. The answer then says which functions ran edited
("patched": ["scheduler.plan_tasks"]) and what the student's code printed ("printed"); a mistake in a patch is an
error with field "patch:<key>" and kind / function / line / col (see patch.Lesson), e.g. a syntax error:

    >>> bad = json.loads(run('{}', {"scheduler": "def plan_tasks(running, budget_cap)\\n    return []"}))
    >>> bad["ok"], [(e["field"], e["kind"], e["line"]) for e in bad["errors"]]
    (False, [('patch:scheduler.py', 'syntax', 1)])

A long run (more than compact.COMPACT_STEPS steps: a 1,000-request cluster run has ~16,000) goes to the page compact
(issue 39: the worker sends what the page shows): each step of report.steps carries its title but not its
narration, and the page asks for the narration of the step it shows with `step_detail(n)`, worded from the run log
kept here until the next run (or render) replaces it; a shorter run's steps carry their narration as before.
The page's copy of a long run's steps also leaves out what only the step view reads (DETAIL_KEYS: the queue, the
slots, the block tables and free lists; the events that are no landmark, and the landmarks' block lists):
`step_detail(n)` gives the whole step with its narration, and the KV chart draws the pool from `kv_strip` (at most
STRIP_COLUMNS steps, each table as runs of blocks). The 1,000-request, 8-replica run's answer: 21.6 → 9.2 MB; the
long-context run's (64 × 32,768-token prompts: 113 MB of block tables): 129 → 15 MB. Its "trace" is null and
`trace_json()` gives the trace when the student downloads it.

    >>> out = json.loads(run('{}'))
    >>> "text" in out["report"]["steps"]["items"][0], json.loads(step_detail(1))["ok"]   # short: narrated, none kept
    (True, False)

A big run (issue 39: `defers(cfg)`, a generated workload of at least DEFER_REQUESTS requests whose replays replay its
tokens) comes deferred: blocks [6], [11], [12] say in one line that their comparison is computed when asked
(data["deferred"]) and the checks that need the replays wait (lab.run_deferred); `replays(config_json, lang)` plays
them when the student asks (the page's button: the worker's 'replays' message) and answers like run() — the report
run() gives without deferral — with the same progress and Stop (a Stop keeps the deferred run). The command line
never defers: it forks the replays (forks.py).

A run stopped by a KeyboardInterrupt (the page's Stop raises one through Pyodide's interrupt buffer,
static/worker/worker.js) answers {"ok": false, "stopped": <the sentence naming the line it was on>, "errors":
[the lesson beside the edited function, if any]}; `stopped` (a string, or a function giving one) says who
stopped it. The lab's caches are emptied after a stop (one may have been filled half-way), so the next run
prints what a fresh page prints, byte for byte (tests/test_interrupt.py).

The capacity tools (issue 42): `sweep(config_json, axis, lang)` and `search(config_json, axes, attainment, lang)`
run a load sweep or a small configuration search with the page's constants, and `limits()` says the page's limit and
the search axes: they live in page_tools.py, and the worker calls them here.

The page's engine wheel ships bytecode only (sitebuild/wheel.py): `source_lines_from(fetch)` lets the tracebacks
of an engine failure still quote the engine's lines, fetching the sources (one JSON file) the first time one is
needed.

Leaves out: anything about the browser (the worker hands in what fetches); this module is plain Python and is
tested in CPython.
"""
from __future__ import annotations

import contextlib
import functools
from dataclasses import replace
import io
import json
import math
import time

from ..core.inputs.config import FIELDS, REQUEST_FIELDS, Config, ConfigError, Problem
from ..core.model.tokenizer import CORPUS, WORD_END, BPETokenizer
from ..words.text_schema import describe as describe_schema, problem_dict
from .page_tools import PAGE_POINTS, limits, search, sweep  # noqa: F401  (the worker's web.sweep, web.search, web.limits)

# The pipeline (lab, engine, model, …) is imported by the first run(), not here: the page needs only
# describe() to show its controls, and the worker's idle warm-up run imports the rest after that.


def alphabet() -> str:
    """The characters the tokenizer learned from the corpus (any other one makes a request 400), sorted."""
    tok = BPETokenizer.train(CORPUS, 0)
    return "".join(sorted(set("".join(tok.id_to_token[2:]).replace(WORD_END, ""))))


def describe() -> str:
    schema = describe_schema()
    for d in schema:
        if d["name"] == "REQUESTS":
            d["alphabet"] = alphabet()
    return json.dumps(schema, ensure_ascii=False)


def as_declared(values):
    """JavaScript writes 1.0 as 1 in JSON: float constants and float request columns get floats back,
    so the page prints "top_p 1.0" exactly as the command line does. Anything else is left to validate().

    >>> as_declared({"QUALITY_GATE": 1, "SLOTS": 2, "REQUESTS": [{"temperature": 0, "top_k": 0, "top_p": 1}]})
    {'QUALITY_GATE': 1.0, 'SLOTS': 2, 'REQUESTS': [{'temperature': 0.0, 'top_k': 0, 'top_p': 1.0}]}
    """
    def floated(value):
        if isinstance(value, int) and not isinstance(value, bool):
            try:
                return float(value)
            except OverflowError:  # validate() then says it is not a (finite) number
                return math.inf if value > 0 else -math.inf
        return value

    if not isinstance(values, dict):
        return values
    out = dict(values)
    for f in FIELDS:
        if f.type == "float" and f.name in out:
            out[f.name] = floated(out[f.name])
    columns = [c.name for c in REQUEST_FIELDS if c.type == "float"]
    if isinstance(out.get("REQUESTS"), list):
        out["REQUESTS"] = [{k: floated(v) if k in columns else v for k, v in r.items()} if isinstance(r, dict) else r
                           for r in out["REQUESTS"]]
    return out


def _errors(problems) -> str:
    """The answer to a config that cannot run: each problem (a config.Problem, or a dict already worded)."""
    errors = [p if isinstance(p, dict) else problem_dict(p) for p in problems]
    return json.dumps({"ok": False, "errors": errors}, ensure_ascii=False)


def patch_units(patches) -> list:
    """{module: source} or [{module, source, name?, first_line?, key?, function?}] (or their JSON) as patch.Unit
    objects (the page sends one per editor: key "module.function", function: the one it must define)."""
    from ..layout import short
    from .lessons import say
    from .patch import Unit
    if isinstance(patches, str):
        try:
            patches = json.loads(patches)
        except json.JSONDecodeError as exc:
            raise ValueError(say("unit.not_json", msg=exc.msg)) from None
    if isinstance(patches, dict):
        patches = [dict(module=m, source=s) for m, s in patches.items()]
    if not isinstance(patches, list) or not all(isinstance(p, dict) for p in patches):
        raise ValueError(say("unit.not_patches"))
    units = []
    for p in patches:
        module = str(p.get("module", ""))
        name = p.get("name") or short(module.removesuffix(".py")) + ".py"
        units.append(Unit(module, p.get("source"), str(name), p.get("first_line", 1), str(p.get("key") or name),
                          str(p.get("function") or "")))
    return units


PRINTED_MAX = 4000  # characters of the student's print() output sent back to the page


def shorten(text: str, lang: str = "vi") -> str:
    from .lessons import WORDS
    cut = len(text) - PRINTED_MAX
    return text if cut <= 0 else text[:PRINTED_MAX] + WORDS["en" if lang == "en" else "vi"]("run.printed_cut", cut=cut)


PROGRESS_EVERY = 0.1   # seconds between two progress messages of a run (none for a run shorter than that)


def throttled(send, every: float = PROGRESS_EVERY):
    """lab.run's `progress` for the page: calls send(run, steps, settled, requests) at most once every `every`
    seconds, the first `every` seconds after the run started (the worker posts each as a small typed message).

        >>> heard = []
        >>> tick = throttled(lambda *a: heard.append(a), every=0)
        >>> tick("chunked", 1, 0, 5); tick("static", 1, 0, 5); heard
        [('chunked', 1, 0, 5), ('static', 1, 0, 5)]
        >>> quiet = throttled(lambda *a: heard.append(a), every=3600)
        >>> quiet("chunked", 2, 0, 5); len(heard)
        2
    """
    last = [time.monotonic()]

    def tick(name, steps, settled, requests):
        now = time.monotonic()
        if now - last[0] >= every:
            last[0] = now
            send(name, steps, settled, requests)
    return tick


def run(config_json: str, patches=None, lang: str = "vi", stopped="Ctrl-C", progress=None, stop_seen=None,
        defer: bool = True) -> str:
    """The worker hands over its own functions (static/worker/worker.js); None: nobody is told (CPython).
    `progress`: send(run, steps, settled, requests), called through `throttled`. `stop_seen()`: a Stop reached
    the lab's code and an answer follows (entrypoints/sandbox.py). `defer=False`: never deferred (defers)."""
    try:
        return _run(config_json, patches, lang, stopped, progress, stop_seen, defer)
    except KeyboardInterrupt as exc:          # anywhere in the run, even outside the engine
        from .sandbox import tell
        tell(stop_seen)
        return _stopped(exc, lang, stopped)


DEFER_REQUESTS = 200   # a generated workload this big plays blocks [11]/[12]'s replays when asked (defers)


def defers(cfg) -> bool:
    """The page's run of `cfg` leaves blocks [6], [11], [12]'s replays for later (lab.run_deferred; web.replays
    plays them): a generated workload of at least DEFER_REQUESTS requests whose replays replay its tokens
    (lab.replaying). The command line never defers; a seed-sized run is as before.

        >>> from ..core.inputs.config import Config
        >>> [defers(Config.from_values(v)) for v in ({}, {"WORKLOAD_REQUESTS": 199}, {"WORKLOAD_REQUESTS": 200})]
        [False, False, True]
    """
    from .lab import replaying
    return cfg.WORKLOAD_REQUESTS >= DEFER_REQUESTS and replaying(cfg)


def _run(config_json: str, patches, lang: str, stopped, progress=None, stop_seen=None, defer: bool = True) -> str:
    global _later
    release()
    _later = None
    try:
        values = json.loads(config_json)
    except json.JSONDecodeError as exc:
        return _errors([Problem("config", "bad_json", dict(detail=exc.msg))])
    try:
        cfg = Config.from_values(as_declared(values))      # validates: every problem at once
    except ConfigError as exc:
        return _errors(exc.problems)
    from .lab import run as run_lab, run_deferred, writing
    from .trace import trace_events
    lang = lang if lang in ("vi", "en") else "vi"
    heard = throttled(progress) if progress is not None else None
    run_lab = functools.partial(run_lab, progress=heard)
    if not patches and defer and defers(cfg):
        report, later = run_deferred(cfg, lang=lang, progress=heard, narrate=False)
        _later = later
        return _answer(report, writing(heard))
    if not patches:
        return _answer(run_lab(cfg, lang=lang, narrate=False), writing(heard))
    from . import patch, sandbox
    try:
        with patch.language(lang):
            units = patch_units(patches)
    except ValueError as exc:
        return _errors([dict(field="patch", message=f"{exc}.", message_en="")])
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed), patch.language(lang), sandbox.kept(stop_seen):
            report, names = patch.run(units, functools.partial(run_lab, lang=lang), cfg, stopped=stopped,
                                      stop_seen=stop_seen)
        return json.dumps({"ok": True, "report": report.to_dict(), "trace": trace_events(report), "patched": names,
                           "printed": shorten(printed.getvalue(), lang)}, ensure_ascii=False, allow_nan=False)
    except patch.PatchError as exc:
        out = {"ok": False, "errors": [lesson.to_dict() for lesson in exc.lessons],
               "printed": shorten(printed.getvalue(), lang)}
        said = [lesson.message for lesson in exc.lessons if lesson.kind == "stopped"]
        if said:
            empty_caches()
            out["stopped"] = said[0]
        return json.dumps(out, ensure_ascii=False)
    except (TypeError, ValueError) as exc:      # a value from the student's code JSON cannot hold
        with patch.language(lang):
            lesson = patch.Lesson(units[0].key, "engine", patch.say("run.unsendable", error=exc))
        return json.dumps({"ok": False, "errors": [lesson.to_dict()]}, ensure_ascii=False)


def _stopped(exc: KeyboardInterrupt, lang: str, stopped) -> str:
    from .lessons import engine_stopped
    from .patch import language
    empty_caches()
    with language(lang if lang in ("vi", "en") else "vi"):
        said = engine_stopped(exc, stopped() if callable(stopped) else str(stopped))
    return json.dumps({"ok": False, "stopped": said, "errors": []}, ensure_ascii=False)


def empty_caches() -> None:
    """Every lru_cache of the package emptied: a stop may have come while one was being filled."""
    import sys
    for name, module in list(sys.modules.items()):
        if module is not None and (name == "inference_lab" or name.startswith("inference_lab.")):
            for value in list(vars(module).values()):
                if isinstance(value, functools._lru_cache_wrapper):
                    value.cache_clear()


# a long run's step keys sent on request only (step_detail); the KV chart draws the pool from `kv_strip`
DETAIL_KEYS = ("running", "waiting", "alloc", "freed", "reused", "tables", "free", "cached_free")
STRIP_COLUMNS = 2000   # a long run's steps whose KV pool the page gets (kv_strip): more than a screen's columns


def strip_steps(count: int, also=(), columns: int = STRIP_COLUMNS) -> list[int]:
    """The 1-based steps of kv_strip: every k-th step (k the fewest that keeps them within `columns`), the last,
    and `also` (the peak step).

    >>> strip_steps(10, columns=4), strip_steps(10, also=[4], columns=4), strip_steps(3)
    ([3, 6, 9, 10], [3, 4, 6, 9, 10], [1, 2, 3])
    """
    every = max(1, -(-count // columns))
    return sorted({*range(every, count + 1, every), count, *(n for n in also if 1 <= n <= count)})


def kv_strip(items: list, also=()) -> dict:
    """The KV pool of a long run at the steps the page's KV chart draws (static/charts/kv-blocks.js; strip_steps):
    {"steps": [1-based step], "tables": [[[id, first, last, first, last, ...] per holder in table order] per
    step], "cached_free": [ranges per step], "holders": [every id that held a block, first seen first],
    "max_block": the highest block ever held (-1: none)}. A table's blocks as sorted inclusive runs (a 2,048-block
    table is a few numbers); the chart gives a block shared by several tables to the first, as for a short run.

    >>> it = {"tables": {"A": [3, 4, 5], "B": [9]}, "cached_free": [[0, 1]]}
    >>> strip = kv_strip([it, dict(it, tables={})])
    >>> strip["steps"], strip["tables"], strip["holders"], strip["max_block"]
    ([1, 2], [[['A', 3, 5], ['B', 9, 9]], []], ['A', 'B'], 9)
    """
    from ..core.serving.run_log import free_ranges
    runs: dict = {}                          # id(table list) -> (table, its sorted runs, flat): unchanged tables
    holders: dict = {}                       # are the same list object from step to step (run_log.RunLog.kv_state)

    def flat(table):
        got = runs.get(id(table))
        if got is None or got[0] is not table:
            got = runs[id(table)] = (table, [b for r in free_ranges(sorted(table)) for b in r])
        return got[1]
    top = -1
    for it in items:
        for rid, table in it["tables"].items():
            holders.setdefault(rid, None)
            if table:
                top = max(top, flat(table)[-1])
    steps = strip_steps(len(items), also)
    return {"steps": steps, "tables": [[[rid, *flat(t)] for rid, t in items[n - 1]["tables"].items() if t]
                                       for n in steps],
            "cached_free": [items[n - 1].get("cached_free", []) for n in steps], "holders": list(holders),
            "max_block": top}


class Kept:
    """The last long run's bare step record, its constants and language: what step_detail() words a step from."""

    def __init__(self, record: dict, config: dict, lang: str, report=None):
        from ..words.text_steps import ready_times
        self.record, self.config, self.lang = record, config, lang
        self.ready = ready_times(record)
        self.report = report          # the run's Report (bare steps): its trace on request (trace_json)


_kept: Kept | None = None   # released by the next run or render (a new run never holds two run logs)


def source_lines_from(fetch) -> None:
    """Tracebacks quote the engine's lines although its files are bytecode only (sitebuild/wheel.py): the first
    time linecache finds no source for a file of this package, it calls `fetch()` once for the sources as JSON text
    ({"inference_lab/core/serving/engine.py": text, …}; the worker: a synchronous request for build-info.json's
    engine.sources, which the service worker keeps for offline use) and keeps them. A failed fetch (an exception, or
    None) leaves tracebacks without lines, as Python does for any file it cannot read, and is not retried.

        >>> import linecache, os
        >>> calls = []
        >>> here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "x_lab_test.py")
        >>> source_lines_from(lambda: calls.append(1) or json.dumps({"inference_lab/x_lab_test.py": "a = 1"}))
        >>> linecache.getline(here, 1), linecache.getline(here, 1), len(calls)
        ('a = 1\\n', 'a = 1\\n', 1)
        >>> linecache.updatecache = linecache.updatecache.original   # this test's hook removed again
    """
    import linecache
    import os
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # …/site-packages/inference_lab
    root = os.path.dirname(package) + os.sep
    original = getattr(linecache.updatecache, "original", linecache.updatecache)
    sources = []                                                            # [the fetched {name: text}]

    def updatecache(filename, module_globals=None):
        lines = original(filename, module_globals)
        if lines or not filename.startswith(package + os.sep):
            return lines
        if not sources:
            try:
                sources.append(json.loads(fetch() or "{}"))
            except Exception:                                               # any failure: no lines
                sources.append({})
        text = sources[0].get(filename[len(root):].replace(os.sep, "/"))
        if text is None:
            return []
        lines = text.splitlines(keepends=True)
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"                                                 # as linecache does
        linecache.cache[filename] = (len(text), None, lines, filename)     # mtime None: checkcache keeps it
        return lines

    updatecache.original = original
    linecache.updatecache = updatecache


def release() -> None:
    """Forgets the kept run log (the next run's starts from nothing; the page's copy has all it draws)."""
    global _kept
    _kept = None


_later = None   # lab.Later of the last run if it was deferred (defers): what replays() plays; the next run replaces it


def replays(config_json: str, lang: str = "vi", progress=None, stop_seen=None, stopped="Ctrl-C") -> str:
    """Blocks [6], [11], [12] of the last run, deferred (defers), computed now: their replays played one after the
    other (lab.Later.finish), answered like run() — the same report run() gives without deferral, in `lang`.
    `config_json`: the deferred report's config; when no deferred run of it is kept (a restarted worker), the
    same run again, whole. `progress` as run()'s; a Stop answers {"ok": false, "stopped"} and keeps the deferred run
    (the page still shows its report; the comparison can be asked again)."""
    global _later
    lang = lang if lang in ("vi", "en") else "vi"
    later = _later
    try:
        config = json.loads(config_json)
    except json.JSONDecodeError as exc:
        return _errors([Problem("config", "bad_json", dict(detail=exc.msg))])
    if later is None or later.lab.cfg.to_dict() != config:
        return run(config_json, lang=lang, stopped=stopped, progress=progress, stop_seen=stop_seen, defer=False)
    from .lab import writing
    heard = throttled(progress) if progress is not None else None
    try:
        report = later.finish(lang, heard, narrate=False)
    except KeyboardInterrupt as exc:
        from .sandbox import tell
        tell(stop_seen)
        return _stopped(exc, lang, stopped)
    _later = None
    return _answer(report, writing(heard))


def page_item(item: dict, landmarks) -> dict:
    """A long run's step as the page gets it: its title, times, tasks, budget, cost and the like (what the charts
    draw), without DETAIL_KEYS and with only its landmark events (the slider's ticks and PageUp/PageDown), without
    their block lists (a finished 32,768-token prompt gives back 2,048 blocks): the step view asks for the rest of the
    step it shows (step_detail), the KV chart reads the steps' pools from kv_strip."""
    out = {k: v for k, v in item.items() if k not in DETAIL_KEYS}
    out["events"] = [{k: v for k, v in e.items() if k != "blocks"} for e in item["events"] if e["kind"] in landmarks]
    return out


def _answer(report, told=None) -> str:
    """The page's answer to a run: `report` has the bare step record (lab.run(narrate=False)); a short run's steps
    are narrated (lab.narrated), a long one's titled and cut to page_item, its record kept for step_detail().
    The garbage collector pauses meanwhile (lab.collector_paused: the answer makes millions of small objects and
    no cycles; the 1,000-request run's answer in CPython 0.49–0.54 s paused, 0.50–0.99 s with a full collection).
    `told()`, if given, hears each stage (the page's progress while a big answer is written: writing)."""
    from .lab import collector_paused
    with collector_paused():
        return _answer_unpaused(report, told or (lambda: None))


def _answer_unpaused(report, told) -> str:
    global _kept
    from .lab import TEXTS, narrated, titled
    from .compact import is_long
    from .trace import trace_events
    step_words = TEXTS[report.lang][1]
    if is_long(report.steps):                 # the trace too on request (trace_json): megabytes nobody may download
        trace = None
        _kept = Kept(report.steps, report.config, report.lang, replace(report))
        steps = titled(report.steps, step_words)
        told()
        landmarks = set(steps.get("landmarks") or ())
        peak = report.block(6).data.get("peak") or {}
        strip = kv_strip(steps["items"], [peak["step"]] if isinstance(peak.get("step"), int) else ())
        told()
        report.steps = dict(steps, items=[page_item(it, landmarks) for it in steps["items"]], narration="on_request",
                            kv_strip=strip)
        told()
    else:
        _kept = None
        trace = trace_events(report)
        report.steps = narrated(report.steps, step_words, report.config)
    return json.dumps({"ok": True, "report": report.to_dict(), "trace": trace}, ensure_ascii=False)


def trace_json() -> str:
    """The Chrome trace of the last long run (trace.py; a short run's answer carries it as "trace"), as JSON text;
    "null" when no long run is kept."""
    from .trace import trace_events
    kept = _kept
    return json.dumps(trace_events(kept.report) if kept is not None else None, ensure_ascii=False)


def step_detail(n) -> str:
    """Step n (1-based) of the last long run, whole, with its narration in the run's language: {"ok": true, "n",
    "item": the run log's item with "title" and "text" — what its step would carry in a short run}; {"ok": false,
    "n"} when no long run is kept or n is not one of its steps."""
    kept = _kept
    try:
        n = int(n)
    except (TypeError, ValueError):
        return json.dumps({"ok": False, "n": None})
    if kept is None or not 1 <= n <= len(kept.record["items"]):
        return json.dumps({"ok": False, "n": n})
    from .lab import narration
    title, lines = narration(kept.record, kept.lang, kept.config, n, kept.ready)
    item = dict(kept.record["items"][n - 1], title=title, text=lines)
    return json.dumps({"ok": True, "n": n, "item": item}, ensure_ascii=False)


def render(report_json: str, lang: str) -> str:
    """The same run in `lang`: every line worded again from the report's data (no engine run)."""
    from .lab import render as render_lab
    from .report import Report
    lang = lang if lang in ("vi", "en") else "vi"
    report = Report.from_dict(json.loads(report_json))
    if report.steps.get("narration") == "on_request":   # a long run's page copy: the whole log is the kept one
        kept = _kept
        if kept is None or kept.config != report.config:    # (a restarted worker): the same run again, same facts
            return run(json.dumps(report.config, ensure_ascii=False), lang=lang)
        report.steps = kept.record
    release()
    return _answer(render_lab(report, lang, narrate=False))
