// The page's own check for a new build (static/core/offline.js watchUpdates): a failed install or a
// failed check is asked for again, RETRY_MS apart, then given up; a new build that installs is followed
// to the end; a check that finds the running build says "current" (issue 41: the new build was missed).
import { afterEach, beforeEach, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { watchUpdates, RETRY_MS } from '../../static/core/offline.js';

// A fake ServiceWorkerRegistration: update() answers from `outcomes` in turn: 'same' (sw.js unchanged),
// 'reject' (sw.js not fetched), 'broken' (a new worker whose install fails), 'good' (one that installs).
function registration(outcomes) {
  const listeners = [];
  const reg = {
    installing: null, waiting: null, active: {}, updates: 0,
    addEventListener: (type, fn) => { if (type === 'updatefound') listeners.push(fn); },
    update() {
      reg.updates += 1;
      const outcome = outcomes.shift() || 'same';
      if (outcome === 'same') return Promise.resolve(reg);
      if (outcome === 'reject') return Promise.reject(new TypeError('Failed to fetch sw.js'));
      const worker = newWorker();
      reg.installing = worker;
      listeners.forEach((fn) => fn());
      // the install runs on after update() resolved (as in the browser: the promise settles at install start)
      setTimeout(() => {
        reg.installing = null;
        worker.set(outcome === 'good' ? 'installed' : 'redundant');
        if (outcome === 'good') worker.set('activated');
      }, 100);
      return Promise.resolve(reg);
    },
  };
  return reg;
}

function newWorker() {
  const listeners = [];
  return {
    state: 'installing',
    addEventListener: (type, fn) => { if (type === 'statechange') listeners.push(fn); },
    set(state) { this.state = state; listeners.forEach((fn) => fn()); },
  };
}

beforeEach(() => mock.timers.enable({ apis: ['setTimeout'] }));
afterEach(() => mock.timers.reset());

async function settle(ms) {
  for (let t = 0; t < ms; t += 50) {
    await Promise.resolve();
    await Promise.resolve();
    mock.timers.tick(50);
  }
  await Promise.resolve();
}

const total = RETRY_MS.reduce((a, b) => a + b, 0) + 1000;

test('a check that finds the running build says current and asks nothing more', async () => {
  const reg = registration(['same']);
  const states = [];
  const check = watchUpdates(reg, (s) => states.push(s));
  await check();
  await settle(total);
  assert.deepEqual(states, ['current']);
  assert.equal(reg.updates, 1);
});

test('a new build that installs is followed to the end, once', async () => {
  const reg = registration(['good']);
  const states = [];
  watchUpdates(reg, (s) => states.push(s))();
  await settle(total);
  assert.deepEqual(states, ['installing', 'installed']);
  assert.equal(reg.updates, 1);
});

test('an install that failed once is asked for again and then installs', async () => {
  const reg = registration(['broken', 'good']);
  const states = [];
  watchUpdates(reg, (s) => states.push(s))();
  await settle(total);
  assert.deepEqual(states, ['installing', 'retrying', 'installing', 'installed']);
  assert.equal(reg.updates, 2);
});

test('an install that always fails is asked for RETRY_MS.length more times, then given up', async () => {
  const reg = registration(['broken', 'broken', 'broken', 'broken', 'broken']);
  const states = [];
  watchUpdates(reg, (s) => states.push(s))();
  await settle(total * 3);
  assert.equal(reg.updates, 1 + RETRY_MS.length);
  assert.equal(states.at(-1), 'failed');
  assert.equal(states.filter((s) => s === 'retrying').length, RETRY_MS.length);
});

test('a failed install started by the browser (not the page) is retried too', async () => {
  const reg = registration(['broken', 'good']);
  const states = [];
  watchUpdates(reg, (s) => states.push(s));
  reg.update(); // the browser's soft update after a navigation
  await settle(total);
  assert.deepEqual(states, ['installing', 'retrying', 'installing', 'installed']);
});

test('a check whose sw.js could not be fetched is asked for again', async () => {
  const reg = registration(['reject', 'good']);
  const states = [];
  watchUpdates(reg, (s) => states.push(s))();
  await settle(total);
  assert.deepEqual(states, ['retrying', 'installing', 'installed']);
});

test('a first install that failed is not asked for again (no worker to update: the next visit registers)', async () => {
  const reg = registration(['broken', 'good']);
  reg.active = null;
  const states = [];
  watchUpdates(reg, (s) => states.push(s));
  reg.update(); // stands for the install that register() started
  await settle(total);
  assert.deepEqual(states, ['installing', 'failed']);
  assert.equal(reg.updates, 1);
});

test('an install already under way when the page starts watching is followed, and retried when it fails', async () => {
  const reg = registration(['broken', 'good']);
  reg.update(); // the browser's check after the navigation, before the page was ready
  const states = [];
  watchUpdates(reg, (s) => states.push(s));
  await settle(total);
  assert.deepEqual(states, ['installing', 'retrying', 'installing', 'installed']);
});
