"""The compact form of a long run's steps (issue 39): columns, changes and event tables instead of one dict per
step, and the way back (`expand_steps`). Leaves out: the rest of the report (report.py, whose docstring
describes the full form this one shortens) and what the page asks for a step (web.py).

A long run (its log has more than COMPACT_STEPS steps: a 1,000-request, 8-replica run has ~15,000) is written
compact: `Report.to_compact_dict()` is what `--json` prints for it (one line, no indent) and the
page's answer holds it in part (entrypoints/web.py). Everything report.py's docstring lists stays, except:

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
