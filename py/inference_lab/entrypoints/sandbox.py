"""What a run with edited code may leave behind, put back: `kept()` wraps every patched run (web.run).

The student's code (or a shared link's, once its visitor pressed run) runs in the same interpreter as
the engine, so it can rebind or add names in any module (`engine.X = …`, `np.argmax = …`), change a
class (`Engine.step = …`), add modules, or reach the lab's caches and change what they hold. Inside
`kept()`:
- the lab's caches (every functools.lru_cache of the package) are fresh, empty ones, so nothing the
  edited code computes or changes stays in the caches that unedited runs read;
- on leaving, every watched namespace (the package's modules and classes, numpy's main namespaces,
  builtins, math, json, random) gets back exactly the names it had, bound to the same objects;
  sys.modules, sys.path and sys.meta_path get back their entries.
So the next unedited run prints what a fresh page prints, byte for byte (tests/test_sandbox.py).
`uninterrupted()` holds back a KeyboardInterrupt (the page's Stop, Ctrl-C) while the namespaces are put
back, and raises it after, so a Stop never leaves them half restored (tests/test_interrupt.py).
`seen`, the page's stop_seen that web.run is handed (the worker's, static/worker/interrupt.js), tells the page
that a Stop reached the lab's own code (noted here, or caught by patch.run or web.run), not a student's bare
`except:`: the answer is then on its way, however slow the machine, and the page waits for it instead of
starting Python again (static/core/stop.js). None (CPython, tests): nobody is told.

    >>> import json
    >>> from inference_lab.entrypoints import web
    >>> fresh = web.run("{}")
    >>> evil = ("def plan_tasks(running, budget_cap):\\n    import numpy\\n"
    ...         "    numpy.argmax = lambda *a, **k: 0\\n    return []\\n")
    >>> json.loads(web.run("{}", {"scheduler": evil}))["ok"]
    False
    >>> web.run("{}") == fresh
    True

Leaves out: the network (the page's CSP refuses it, static/worker/worker.js reports what it refused)
and changes inside objects that are not namespaces, such as an array a module holds changed in place;
the engine keeps the arrays it shares read-only.
"""
from __future__ import annotations

import builtins
import contextlib
import functools
import importlib
import json
import math
import random
import sys

import numpy as np

from ..layout import LAYOUT, dotted

PACKAGE = "inference_lab"
OTHER_MODULES = (np, np.random, np.linalg, builtins, math, json, random, functools)
SYS_LISTS = ("path", "meta_path", "path_hooks")
NOT_IMPORTED = ("cli", "exercises")  # the command line's own modules


def package_modules() -> list:
    """Every module of the package, imported first (one imported inside kept() would be dropped after it)."""
    for names in LAYOUT.values():
        for name in names:
            if name not in NOT_IMPORTED:
                importlib.import_module(dotted(name))
    return [m for n, m in sorted(sys.modules.items())
            if m is not None and (n == PACKAGE or n.startswith(PACKAGE + "."))]


def namespaces() -> list:
    """Every watched object whose attributes are put back: modules, and the package's own classes."""
    out = list(OTHER_MODULES)
    for module in package_modules():
        out.append(module)
        out += [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__]
    return out


def snapshot() -> dict:
    """{"spaces": [(object, {name: value})], "modules": dict(sys.modules), "lists": {name: list}}."""
    return {"spaces": [(space, dict(vars(space))) for space in namespaces()],
            "modules": dict(sys.modules),
            "lists": {name: list(getattr(sys, name)) for name in SYS_LISTS}}


def put_back(space, before: dict) -> None:
    now = vars(space)
    for name in [n for n in now if n not in before]:
        with contextlib.suppress(AttributeError, TypeError):
            delattr(space, name)
    for name, value in before.items():
        if now.get(name, _MISSING) is not value:
            with contextlib.suppress(AttributeError, TypeError):
                setattr(space, name, value)


_MISSING = object()


def restore(state: dict) -> None:
    for name, items in state["lists"].items():
        getattr(sys, name)[:] = items
    for name in [n for n in sys.modules if n not in state["modules"]]:
        del sys.modules[name]
    sys.modules.update(state["modules"])
    for space, before in state["spaces"]:
        put_back(space, before)


def fresh_caches() -> None:
    """Every lru_cache binding in the package replaced by a new, empty cache of the same function."""
    made = {}
    for module in package_modules():
        for name, value in list(vars(module).items()):
            if isinstance(value, functools._lru_cache_wrapper):
                if value not in made:
                    made[value] = functools.lru_cache(**value.cache_parameters())(value.__wrapped__)
                setattr(module, name, made[value])


def tell(seen) -> None:
    """seen(), the page's word that a Stop is in the lab's hands and will be answered; None: nobody to tell."""
    if seen is not None:
        seen()


@contextlib.contextmanager
def uninterrupted(seen=None):
    """Inside, SIGINT (a KeyboardInterrupt: Stop through Pyodide's interrupt buffer, Ctrl-C) is only noted
    (and `seen` told); it is raised when the block is done. Outside the main thread (no signal handlers
    there) a plain block."""
    import signal
    noted = []

    def note(signum, frame):
        noted.append(signum)
        tell(seen)
    try:
        previous = signal.signal(signal.SIGINT, note)
    except (ValueError, OSError, AttributeError):
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if noted:
        raise KeyboardInterrupt


@contextlib.contextmanager
def kept(seen=None):
    """Inside: fresh caches; after: the watched namespaces as they were before (see the module's docstring).
    seen: the page's stop_seen (see there), told when a Stop waits for the namespaces."""
    with uninterrupted(seen):
        state = snapshot()
    try:
        with uninterrupted(seen):
            fresh_caches()
        yield
    finally:
        with uninterrupted(seen):
            restore(state)
