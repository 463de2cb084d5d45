// static/core/store.js: the page's one store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createStore } from '../../static/core/store.js';

test('set changes state and tells change listeners which keys changed', () => {
  const store = createStore({ ready: false, fields: [] });
  const seen = [];
  store.on('change', (keys) => seen.push(keys));
  store.set({ ready: true });
  store.set({ ready: true }); // no change: no event
  assert.equal(store.get().ready, true);
  assert.deepEqual(seen, [['ready']]);
});

test('emit returns what listeners returned; a throwing one does not stop the rest', (t) => {
  const store = createStore({});
  t.mock.method(console, 'error', () => {});
  store.on('fieldError', () => { throw new Error('boom'); });
  store.on('fieldError', (name) => 'placed ' + name);
  assert.deepEqual(store.emit('fieldError', 'REQUESTS[0].id'), ['placed REQUESTS[0].id']);
  assert.equal(console.error.mock.callCount(), 1);
});

test('on returns an unsubscribe function', () => {
  const store = createStore({});
  let calls = 0;
  const off = store.on('reset', () => calls++);
  store.emit('reset');
  off();
  store.emit('reset');
  assert.equal(calls, 1);
});

test('the selected step is page state: selectStep tells step listeners once per change, or always when forced', () => {
  const store = createStore({});
  const seen = [];
  store.on('step', (n, how) => seen.push([n, how.say === true]));
  assert.equal(store.get().step, 0);
  store.selectStep(3, { say: true });
  store.selectStep(3);
  store.selectStep(3, { force: true });
  assert.equal(store.get().step, 3);
  assert.deepEqual(seen, [[3, true], [3, false]]);
});
