// Stop's fallback (static/core/stop.js): a restart of Python only when the student's code holds the
// KeyboardInterrupt, never because a slow machine took more than FALLBACK_MS to answer.
import { afterEach, beforeEach, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { createStop, FALLBACK_MS, ANSWER_MS } from '../../static/core/stop.js';

// A page with one run in flight; `seenAfter`: the ms after the interrupt when Python says it has the Stop
// in hand (worker-client.js stopSeen), null for never (a bare `except:` swallowed it); `takenAfter`: the ms
// when the worker's Python takes the signal at all (worker-client.js stopPending until then: a starved thread).
function pageWithARun(seenAfter, takenAfter = 0) {
  let now = 0;
  const inflight = { id: 7, patched: true };
  let state = { inflight };
  const store = {
    get: () => state, set: (patch) => { state = { ...state, ...patch }; }, emit: (...args) => events.push(args),
  };
  const events = [];
  const restarts = [];
  const worker = {
    interrupt: (id) => id === 7,
    stopSeen: (id) => id === 7 && seenAfter !== null && now >= seenAfter,
    stopPending: (id) => id === 7 && now < takenAfter,
  };
  const page = {
    store, worker, watchdogMs: 8000,
    restartWorker: (message) => { restarts.push(message); state = { ...state, inflight: null }; },
    finishRun: () => { state = { ...state, inflight: null }; },
    setStatus: () => {}, setNote: () => {}, showFieldErrors: () => {},
  };
  // time passes in steps of 100 ms (a timer set while the mock clock ticks fires on a later tick)
  const tick = (ms) => {
    for (let left = ms; left > 0; left -= 100) {
      now += Math.min(100, left);
      mock.timers.tick(Math.min(100, left));
    }
  };
  return { stop: createStop(page), tick, restarts, events, answer: () => page.finishRun() };
}

beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
afterEach(() => mock.timers.reset());

test('a swallowed interrupt restarts Python after FALLBACK_MS', () => {
  const lab = pageWithARun(null);
  lab.stop.stopRun('user');
  lab.tick(FALLBACK_MS - 1);
  assert.equal(lab.restarts.length, 0);
  lab.tick(1);
  assert.equal(lab.restarts.length, 1);
  assert.equal(lab.events.at(-1)[1].restarted, true);
});

test('a stop Python has in hand waits for the answer, however slow', () => {
  const lab = pageWithARun(500);
  lab.stop.stopRun('watchdog');
  lab.tick(FALLBACK_MS * 5);
  assert.equal(lab.restarts.length, 0);   // still waiting: the answer is on its way
  lab.answer();                           // it came
  lab.tick(ANSWER_MS);
  assert.equal(lab.restarts.length, 0);
});

test('an answer that never comes still ends in a restart after ANSWER_MS', () => {
  const lab = pageWithARun(0);
  lab.stop.stopRun('user');
  lab.tick(ANSWER_MS - FALLBACK_MS);
  assert.equal(lab.restarts.length, 0);
  lab.tick(FALLBACK_MS);
  assert.equal(lab.restarts.length, 1);
});

test('a worker thread too busy to take the signal is waited for, not restarted (issue 41)', () => {
  const lab = pageWithARun(2960, 2950);   // the thread runs its next Python line ~3 s after the Stop
  lab.stop.stopRun('user');
  lab.tick(FALLBACK_MS * 4);
  assert.equal(lab.restarts.length, 0);
  lab.answer();
  lab.tick(ANSWER_MS);
  assert.equal(lab.restarts.length, 0);
});

test('a signal taken and then swallowed still restarts at the next check', () => {
  const lab = pageWithARun(null, 1500);   // taken at 1.5 s, never in the lab's hands
  lab.stop.stopRun('user');
  lab.tick(FALLBACK_MS);
  assert.equal(lab.restarts.length, 0);
  lab.tick(FALLBACK_MS);
  assert.equal(lab.restarts.length, 1);
});
