// The capacity tools' messages (static/worker/protocol.js): a sweep's or search's progress carries the answer so
// far (the page keeps it through a Stop that restarts Python), 'ready' the tools' limits, and the page's requests
// to the worker have their checked shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkMessage } from '../../static/core/worker-client.js';

const { TO_WORKER } = globalThis.labProtocol;
const toWorker = (msg) => globalThis.labProtocol.checkMessage(msg, TO_WORKER);

test('a sweep or search point and the ready limits pass; a partial that is not an object does not', () => {
  const partial = { name: 'WORKLOAD_RATE', values: [1, 2], points: [{ value: 1 }], knee: null, stopped: true };
  assert.equal(checkMessage({ type: 'progress', stage: 'sweep', id: 4, done: 1, total: 2, fraction: 0.5, partial }), null);
  assert.equal(checkMessage({ type: 'progress', stage: 'search', id: 5, done: 2, total: 2, fraction: 1, partial: {} }), null);
  assert.equal(checkMessage({ type: 'ready', schema: [], versions: {}, limits: { points: 12, axes: ['GPU'] } }), null);
  assert.equal(checkMessage({ type: 'progress', stage: 'sweep', id: 4, done: 1, total: 2, partial: '[1]' }),
    'progress: bad partial');
});

test('the page sends a sweep with its axis and a search with its axes and attainment', () => {
  const config = { SLOTS: 2 };
  assert.equal(toWorker({ type: 'sweep', id: 1, config, axis: 'SLOTS=1,2', lang: 'en' }), null);
  assert.equal(toWorker({ type: 'search', id: 2, config, axes: 'GPU=L4', attainment: '0.9' }), null);
  assert.equal(toWorker({ type: 'sweep', id: 1, config, axis: ['SLOTS'] }), 'sweep: bad axis');
  assert.equal(toWorker({ type: 'search', id: 2, config, axes: 'GPU=L4', attainment: 0.9 }),
    'search: bad attainment');
});
