"""The page's capacity tools in the worker (issue 42): a load sweep and a small configuration search with the page's
constants, several full runs one after another (web.py hands them to the worker as web.sweep, web.search, web.limits).

`sweep(config_json, axis, lang)` and `search(config_json, axes, attainment, lang)` run at most PAGE_POINTS points,
answering the command line's rows and lines (sweep.py, search.py, tables.sweep_lines / search_lines); each point is
heard with the answer so far (`progress(i, n, partial_json)`), and a Stop ends them keeping the points done.
`limits()` says the page's limit and the search axes, before the page is ready: it imports none of the engine.

    >>> json.loads(limits())["points"]
    12

A mistake in the tool's input is an error beside it, in both languages (field "sweep", "search" or
"search-attainment"), as the page's constants' errors are (web.run):

    >>> [e["field"] for e in json.loads(sweep('{}', "SLOTS=1\\nQUANT_BITS=8"))["errors"]]
    ['sweep']

Leaves out: running points in parallel (the command line's --search does: search.py), the page's side
(static/tools/sweep.js, static/charts/sweep.js) and the run itself (web.run).
"""
from __future__ import annotations

import json
import math

from ..core.inputs.config import Config, ConfigError, Problem

PAGE_POINTS = 12   # runs a sweep or a search makes in the page's worker at most (the command line: any number)


def limits() -> str:
    """What the page's tools say before they run: {"points": PAGE_POINTS, "axes": search.AXES}."""
    from .search import AXES
    return json.dumps({"points": PAGE_POINTS, "axes": list(AXES)})


def _said(field: str, key: str, **facts) -> dict:
    """An error beside a tool's input (`field`: "sweep", "search" or "search-attainment"), both languages."""
    from .cli import WORDS
    return {"field": field, "message": WORDS["vi"](key, **facts), "message_en": WORDS["en"](key, **facts)}


def _base(config_json: str):
    """(the page's constants as it sent them, checked, None) or (None, the errors' answer). As sent, not resolved:
    a point's "auto" (GPU_PRICE_PER_HOUR, POOL_BLOCKS…) follows the point's own GPU, as on the command line."""
    from .web import _errors, as_declared      # web imports this module: not at the top
    try:
        values = as_declared(json.loads(config_json))
    except json.JSONDecodeError as exc:
        return None, _errors([Problem("config", "bad_json", dict(detail=exc.msg))])
    try:
        Config.from_values(values)
    except ConfigError as exc:
        return None, _errors(exc.problems)
    return values, None


def _axes(text: str, field: str) -> tuple[list, list]:
    """The tool's text as axes, one NAME=V1,V2,… per line (or separated by ';'): (axes, errors)."""
    from .sweep import parse_axis
    axes, errors = [], []
    for raw in [part.strip() for line in str(text).splitlines() for part in line.split(";")]:
        if not raw:
            continue
        try:
            axes.append(parse_axis(raw))
        except ValueError:
            errors.append(_said(field, "page_syntax", raw=raw))
    if not axes and not errors:
        errors.append(_said(field, "page_empty"))
    return axes, errors


def _points_checked(base: dict, points: list, field: str) -> list:
    """The errors of the points whose constants do not make a valid configuration (as --sweep checks them)."""
    from ..words.text_schema import problem_text
    errors = []
    for point in points:
        try:
            Config.from_values({**base, **point})
        except ConfigError as exc:
            name = ", ".join(f"{k}" for k in point)
            value = ", ".join(f"{v}" for v in point.values())
            errors += [{"field": field, "message": _said(field, "page_point", name=name, value=value,
                                                          problem=problem_text(p, "vi"))["message"],
                        "message_en": _said(field, "page_point", name=name, value=value,
                                            problem=problem_text(p, "en"))["message_en"]} for p in exc.problems]
    return errors


def _sent(send):
    """on_point for sweep.sweep / search.run_in_order: the answer so far (JSON) to the page's `send(i, n, json)`,
    and kept, so a Stop that lands outside a point still answers with the points done."""
    kept = [None]

    def on_point(partial: dict):
        kept[0] = partial
        if send is not None:
            send(len(partial["points"]), len(partial["values"]) if "values" in partial else
                 math.prod(len(a["values"]) for a in partial["axes"]), json.dumps(partial, ensure_ascii=False))
    return on_point, kept


def _stopped(stop_seen) -> None:
    """A Stop ended the points: tell the page it reached the lab's code, and empty the caches a point may have left
    half filled (web.empty_caches)."""
    from .sandbox import tell
    from .web import empty_caches
    tell(stop_seen)
    empty_caches()


def sweep(config_json: str, axis: str, lang: str = "vi", progress=None, stop_seen=None) -> str:
    """The sweep tool's run: the page's constants, one axis "NAME=V1,V2,…" (sweep.parse_axis: the command line's
    --sweep syntax) over a numeric constant, at most PAGE_POINTS values, each point a full main run (sweep.sweep).
    Answers {"ok": true, "sweep": sweep.result (stopped: a Stop ended it, the points done kept), "lines": the
    command line's lines (tables.sweep_lines)}, or {"ok": false, "errors": [{field: "sweep" | a constant, message,
    message_en}]}. `progress(i, n, partial_json)` hears each point with the answer so far.

        >>> out = json.loads(sweep('{}', "SLOTS=1,2"))
        >>> [p["value"] for p in out["sweep"]["points"]], out["sweep"]["stopped"], out["lines"][0]
        ([1, 2], False, 'QUÉT SLOTS: mỗi dòng một lần chạy (ms mô phỏng).')
        >>> json.loads(sweep('{}', "SLOTS=0"))["errors"][0]["message_en"][:8]
        'SLOTS=0:'
    """
    from ..core.inputs.config import FIELD_BY_NAME
    from . import sweep as sweeps
    from .tables import sweep_lines
    lang = lang if lang in ("vi", "en") else "vi"
    base, bad = _base(config_json)
    if bad:
        return bad
    axes, errors = _axes(axis, "sweep")
    if not errors and len(axes) != 1:
        errors.append(_said("sweep", "page_one_axis", n=len(axes)))
    if errors:
        return json.dumps({"ok": False, "errors": errors}, ensure_ascii=False)
    name, xs = axes[0]
    if FIELD_BY_NAME[name].type not in ("int", "float"):
        errors.append(_said("sweep", "page_numeric", name=name))
    elif len(xs) > PAGE_POINTS:
        errors.append(_said("sweep", "page_points", max=PAGE_POINTS, n=len(xs), flag="--sweep"))
    else:
        errors = _points_checked(base, [{name: x} for x in xs], "sweep")
    if errors:
        return json.dumps({"ok": False, "errors": errors}, ensure_ascii=False)
    on_point, kept = _sent(progress)
    try:
        result = sweeps.sweep(base, name, xs, on_point=on_point, keep_on_interrupt=True)
    except KeyboardInterrupt:                            # between two points: the answer so far
        result = kept[0] or sweeps.result(name, xs, [])
    if result["stopped"]:
        _stopped(stop_seen)
    lines = sweep_lines(result, lang, Config.from_values(base))
    return json.dumps({"ok": True, "sweep": result, "lines": lines}, ensure_ascii=False, allow_nan=False)


def search(config_json: str, axes_text: str, attainment=None, lang: str = "vi", progress=None,
           stop_seen=None) -> str:
    """The search tool's run: the page's constants (CLOCK = roofline), the axes one per line in the --search syntax
    (search.AXES), the SLO attainment (None: search.ATTAINMENT), at most PAGE_POINTS points, run one after another
    (search.run_in_order). Answers {"ok": true, "search": search.summary (backend "page"), "lines": the command
    line's lines (tables.search_lines)}, or {"ok": false, "errors": [{field: "search" | "search-attainment" | a
    constant, message, message_en}]}; `progress(i, n, partial_json)` as sweep's, and once before the first point
    as progress(0, n, "null"): the grid's size as Python parsed it (the page's running title counts from it).

        >>> bad = json.loads(search('{"CLOCK": "roofline"}', "SLOTS=1,2\\nSEED=1,2", 2))
        >>> [(e["field"], e["message_en"][:21]) for e in bad["errors"]]
        [('search', 'SEED is not a search '), ('search-attainment', 'The SLO attainment mu')]
    """
    from . import search as searches
    from .tables import search_lines
    lang = lang if lang in ("vi", "en") else "vi"
    base, bad = _base(config_json)
    if bad:
        return bad
    axes, errors = _axes(axes_text, "search")
    seen = set()
    for name, _ in axes:
        if name not in searches.AXES:
            errors.append(_said("search", "page_axis", name=name, axes=", ".join(searches.AXES)))
        elif name in seen:
            errors.append(_said("search", "page_twice", name=name))
        seen.add(name)
    target = searches.ATTAINMENT
    if attainment not in (None, ""):
        try:
            target = float(attainment)
            if not 0 < target <= 1:
                raise ValueError
        except (TypeError, ValueError):
            errors.append(_said("search-attainment", "page_attainment", raw=str(attainment)))
    if Config.from_values(base).CLOCK != "roofline":
        errors.append(_said("search", "page_clock"))
    n = math.prod(len(xs) for _, xs in axes) if axes else 0
    if not errors and n > PAGE_POINTS:
        errors.append(_said("search", "page_points", max=PAGE_POINTS, n=n, flag="--search"))
    if errors:
        return json.dumps({"ok": False, "errors": errors}, ensure_ascii=False)
    if progress is not None:                             # the grid's size, before its first point (the title)
        progress(0, n, "null")
    on_point, kept = _sent(progress)
    try:
        result = searches.run_in_order(base, axes, target, on_point=on_point)
    except KeyboardInterrupt:                            # between two points: the answer so far
        result = kept[0] or searches.summary(axes, target, [], "page")
    if result["stopped"]:
        _stopped(stop_seen)
    return json.dumps({"ok": True, "search": result, "lines": search_lines(result, Config.from_values(base), lang)},
                      ensure_ascii=False, allow_nan=False)
