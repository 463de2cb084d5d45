"""Work beside the main run: the replays of blocks [11] and [12] and block [13]'s quality gates in forked child
processes (the command line).

Besides the main run, the lab plays the trace again under other policies: "static" and "nochunk" for block [12],
"nocache" for block [11] (lab.other_run). Each replay reads only the lab, its options and the main run's recorded
tokens (core/serving/replay.py), and nothing reads the replay but blocks [6], [11], [12] and the check
"prefix_cache_same_text". Block [13]'s quality gates (teacher forcing at QUANT_BITS and its neighbours:
block_data.gates_of) read the config alone. So on CPython where `os.fork` exists, `run_unpaused` forks one child
per replay and one for the gates right after building the lab, before the main run; they run on the machine's
second core while the main run runs on the first:

    Lab.build ─ fork ─┬─ parent: main run ─────────────┬─ blocks 1–5, 7–10, 13 ─┬─ blocks 6, 11, 12, checks, words
                      │     │ each finished request's tokens (Feeder)         │
                      ├─ child: replay "static"  ◄──────┤ … "end" ─► result ───┤
                      ├─ child: replay "nochunk" ◄──────┤ … "end" ─► result ───┤
                      ├─ child: replay "nocache" ◄──────┘ … "end" ─► result ───┤
                      └─ child: block [13]'s gates ──────────────────► result ─┘

A replay needs a request's tokens only when it samples that request's next token: the parent's progress hook
(`Feeder`) sends each request's tokens through a pipe once the main run finished it (a few dozen requests at a
time: the pipe's buffer, `Forked.send`), and a look-up in the
child (`StreamedTokens`) waits until they came, or until the main run ended ("end" with recorded(main): a
request the main run never served is then the replay's own, `replay.solo`, as on the sequential path). The
replays follow the main run's clock roughly in arrival order, so they are done soon after it is.

Why the results cannot differ from the sequential path: a forked child starts as an exact copy of the parent at
that moment (the lab, its caches, the NumPy state) and runs the very same function the sequential path runs
(lab.replayer: the replay engine, no randomness shared with the parent); the only thing it takes from the main
run is the tokens of recorded(main), and every one it reads is the final one: the main run never changes a
finished request's tokens, and should one sent early differ from recorded(main) all the same
(`StreamedTokens.consistent`), the child plays its replay again on recorded(main). What crosses back is a pickle
of `slim(result)`: the replay's requests cut to the fields blocks [6], [11] and [12] read and its steps to the
figures block [12] reads of them (`Replayed`), with the same values (pickle keeps ints, floats and strings exactly),
and the gates' plain dicts.
tests/test_forks.py runs both paths on cluster and single-engine workloads and on the seed's trace and compares
the Reports; the 1,000-request run's text output is the same bytes (bench/cli_speed.py --base).

The sequential path stays where forking is impossible or unwanted: Pyodide (no fork: sys.platform ==
"emscripten"), a `progress` callback (the page hears each replay's steps), a student's patch (its print()s keep
their order: cli.run_patched), and LAB_PROCESSES=1 in the environment (for debugging: one process, as before).
A child that dies without an answer (killed, out of memory) has its work done by the parent (`Forked.result`).

Leaves out: a process pool (one fork per job is enough on two cores), the speculation and 16-bit-KV reruns
(their results are read in depth by blocks [7] and [13]; neither runs for a workload without speculation), and
the block data that reads the main run (in the parent, after it).
"""
from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
from dataclasses import dataclass

try:
    import fcntl                           # not in Pyodide (nor Windows): the feed pipe keeps its default room
except ImportError:
    fcntl = None

PIPE_BYTES = 1 << 20                # a feed pipe's room (Linux: F_SETPIPE_SZ; the default 64 kB elsewhere)
ENV = "LAB_PROCESSES"              # LAB_PROCESSES=1: run every replay in this process (the sequential path)


def can_fork(progress=None) -> bool:
    """True when the replays may run in forked children: os.fork exists (CPython on Linux or macOS, never
    Pyodide), nobody listens to the steps' progress, and LAB_PROCESSES is not 1."""
    return (progress is None and hasattr(os, "fork") and sys.platform != "emscripten"
            and os.environ.get(ENV, "").strip() != "1")


@dataclass(slots=True)
class Request:
    """What blocks [11] and [12] and the checks read of a replayed request (metrics.request_metrics, ttft_saved,
    same_tokens, same_text)."""
    id: str
    arrival: int
    ready: int | None
    start: int | None
    finish: int | None
    out: list
    token_times: list
    temperature: float
    num_cached_tokens: int | None


@dataclass(slots=True)
class Tally:
    """A replay's run log as block [12] reads it, read in the child: block_data.policy_steps (the step count, the
    memory-bound steps, metrics.step_mix), not its 15,000 steps of a 1,000-request run, to unpickle in the parent."""
    steps: dict


@dataclass(slots=True)
class Replayed:
    """A replay's result cut to what crosses back from its child (`slim`): the interface of engine.EngineResult
    that blocks [6], [11], [12] and the checks use."""
    done: list
    aborted: list
    preemptions: list
    kv_waits: list
    log: Tally


def slim_request(r) -> Request:
    return Request(r.id, r.arrival, r.ready, r.start, r.finish, list(r.out), list(r.token_times), r.temperature,
                   r.num_cached_tokens)


def slim(res) -> Replayed:
    """`res` (an EngineResult or ClusterResult) with only what the blocks read of a replay."""
    from .block_data import policy_steps      # block_data reads Tally: imported when a child needs it
    return Replayed(done=[slim_request(r) for r in res.done], aborted=[slim_request(r) for r in res.aborted],
                    preemptions=res.preemptions, kv_waits=res.kv_waits, log=Tally(policy_steps(res.log)))


class StreamedTokens:
    """The main run's recorded tokens (replay.recorded) as they come, in a replay's child: the parent sends
    ("tokens", {id: tokens}) as requests finish, then ("end", recorded(main)). A look-up waits until the request's
    tokens came or the main run ended (then: the final dict; a request it never served is the replay's own, `solo`).
    The sequential path's dict in another form: `in`, `[]`, `[] =` and `copy()` answer what that dict would."""

    def __init__(self, feed):
        self.feed = feed                     # the reading end of the parent's pipe (a binary file)
        self.known, self.own, self.final = {}, {}, None

    def _more(self) -> None:
        kind, value = pickle.load(self.feed)
        if kind == "end":
            self.final = value
        else:
            self.known.update(value)

    def __contains__(self, rid) -> bool:
        while rid not in self.own and self.final is None and rid not in self.known:
            self._more()
        return rid in self.own or rid in (self.known if self.final is None else self.final)

    def __getitem__(self, rid):
        if rid not in self:
            raise KeyError(rid)
        return self.own[rid] if rid in self.own else (self.known if self.final is None else self.final)[rid]

    def __setitem__(self, rid, tokens) -> None:
        self.own[rid] = tokens

    def copy(self):
        return self                          # one replay per child: nobody else reads it

    def ended(self) -> dict:
        """The final recorded tokens (waiting for the main run's end)."""
        while self.final is None:
            self._more()
        return self.final

    def consistent(self) -> bool:
        """Every request's tokens sent while the main run ran are its final ones (else the replay runs again on
        the final dict: the main run's result decides, as on the sequential path)."""
        final = self.ended()
        return all(final.get(rid) == tokens for rid, tokens in self.known.items())


class Feeder:
    """The main run's progress hook on the forked path: after each step that settled a request, the newly finished
    requests' tokens go to every replay child (`Forked.send`)."""

    def __init__(self, jobs: list, engines: list):
        self.jobs, self.engines = jobs, engines
        self.sent, self.settled = [0] * len(engines), 0

    def __call__(self, steps: int, settled: int, requests: int) -> None:
        if settled == self.settled:
            return
        self.settled = settled
        new = {}
        for i, engine in enumerate(self.engines):
            done = engine.done
            for seq in done[self.sent[i]:]:
                new[seq.id] = list(seq.out)
            self.sent[i] = len(done)
        if new:
            for job in self.jobs:
                job.send(("tokens", new), flush=False)

    def end(self, recorded: dict) -> None:
        for job in self.jobs:
            job.send(("end", recorded))
            job.close_feed()


LIVE = []                                    # this process's Forked jobs with open pipes (a child closes them)


class Forked:
    """`fn()` run in a forked child (with `feed`: `fn(its reading end)` of a pipe from the parent, `send`);
    `result()` waits for its value (or raises its exception). Where the child dies without an answer (killed, out
    of memory), `result(fallback)` runs `fallback()` in this process instead (or `fn()` without a feed)."""

    def __init__(self, fn, feed: bool = False):
        self.fn = fn
        read, write = os.pipe()
        into = os.pipe() if feed else None
        if into is not None:
            with contextlib.suppress(OSError, AttributeError):      # a roomy pipe: the parent rarely waits on it
                fcntl.fcntl(into[1], fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        pid = os.fork()
        if pid == 0:                                     # the child: answer through the pipe, then leave at once
            for job in LIVE:
                job.forget()
            os.close(read)
            code = 0
            try:
                if into is not None:
                    os.close(into[1])
                    value = fn(os.fdopen(into[0], "rb"))
                else:
                    value = fn()
                payload = pickle.dumps((True, value), protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException as exc:                 # the parent raises it
                try:
                    payload = pickle.dumps((False, exc), protocol=pickle.HIGHEST_PROTOCOL)
                except Exception:                        # an unpicklable error: its text
                    payload = pickle.dumps((False, RuntimeError(repr(exc))))
            try:
                with os.fdopen(write, "wb") as pipe:
                    pipe.write(payload)
            except BaseException:                        # the parent left: nobody to answer
                code = 1
            os._exit(code)                               # no atexit handlers, no flush of the parent's buffers
        os.close(write)
        self.pid, self.fd = pid, read
        self.feed = None
        if into is not None:
            os.close(into[0])
            self.feed = os.fdopen(into[1], "wb")
        LIVE.append(self)

    def send(self, message, flush: bool = True) -> None:
        """`message` to the child's feed; a child that is gone (its pipe broken) is left alone: result() does
        its work here. `flush=False`: it may wait in the feed's 8 kB buffer (the main run's tokens go ~50 requests
        at a time, not one write and one wake-up of the child per finished request: those cost the 1,000-request
        run's main process ~7% of its time, at load 15), until more fill it or the "end" message flushes it."""
        if self.feed is not None:
            try:
                pickle.dump(message, self.feed, protocol=pickle.HIGHEST_PROTOCOL)
                if flush:
                    self.feed.flush()
            except OSError:
                self.close_feed()

    def close_feed(self) -> None:
        if self.feed is not None:
            feed, self.feed = self.feed, None
            with contextlib.suppress(OSError):
                feed.close()

    def forget(self) -> None:
        """In a newer child: close this job's pipe ends (they are the parent's)."""
        with contextlib.suppress(OSError):
            if self.fd is not None:
                os.close(self.fd)
            if self.feed is not None:
                os.close(self.feed.fileno())

    def result(self, fallback=None):
        self.close_feed()
        with os.fdopen(self.fd, "rb") as pipe:
            self.fd = None
            payload = pipe.read()
        os.waitpid(self.pid, 0)
        self.pid = None
        LIVE.remove(self)
        if not payload:
            return (fallback or self.fn)()
        ok, value = pickle.loads(payload)
        if not ok:
            raise value
        return value

    def stop(self) -> None:
        """Kill and reap the child if it has not answered yet (the parent is leaving early: Ctrl-C, an error)."""
        self.close_feed()
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.pid = None
        if self in LIVE:
            LIVE.remove(self)
