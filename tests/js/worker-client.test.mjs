// static/core/worker-client.js's checkMessage: the worker runs student code, so the page checks each
// message's type and shape before any handler sees it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkMessage, withResult } from '../../static/core/worker-client.js';
import { sameEdits } from '../../static/tools/link-code.js';

test('the protocol messages pass', () => {
  for (const msg of [
    { type: 'progress', stage: 'engine', detail: 'x', fraction: 0.5 },
    { type: 'progress', stage: 'run', id: 3, run: 'chunked', step: 120, done: 30, total: 64, fraction: 30 / 64 },
    { type: 'ready', schema: [], versions: { pyodide: '0.27.7' }, timings: {} },
    { type: 'started', id: 3 },
    { type: 'result', id: 3, result: { ok: true, report: {} } },
    { type: 'error', id: 3, message: 'Python error: x', details: '…', fatal: false },
    { type: 'error', message: 'no id' },
    { type: 'fatal', title: 't', message: 'm', details: 'd' },
    { type: 'log', stream: 'info', text: 'warm' },
    { type: 'refused', blocked: ['http://127.0.0.1:9/x'] },
  ]) assert.equal(checkMessage(msg), null, JSON.stringify(msg));
});

test('anything else is named, never handled', () => {
  assert.match(checkMessage(null), /not an object/);
  assert.match(checkMessage('<img src=x onerror=alert(1)>'), /not an object/);
  assert.match(checkMessage({ type: 'html', html: '<b>' }), /unknown type/);
  assert.match(checkMessage({ type: '__proto__' }), /unknown type/);
  assert.match(checkMessage({ type: 'result', id: 1, result: '<b>' }), /result/);
  assert.match(checkMessage({ type: 'result', id: '1', result: { ok: true } }), /id/);
  assert.match(checkMessage({ type: 'error', id: 1, message: { toString: 1 } }), /message/);
  assert.match(checkMessage({ type: 'refused', blocked: [1] }), /blocked/);
  assert.match(checkMessage({ type: 'progress', stage: 1 }), /stage/);
  assert.match(checkMessage({ type: 'progress', stage: 'run', id: 3, step: -1, done: '<b>', total: 1.5 }), /step, done, total/);
});

test('a reload of one’s own edits is not someone else’s code', () => {
  assert.ok(sameEdits({ 'a.b': 'x' }, { 'a.b': 'x' }));
  assert.ok(!sameEdits({ 'a.b': 'x' }, { 'a.b': 'y' }));
  assert.ok(!sameEdits({ 'a.b': 'x' }, {}));
});

test('one protocol both sides load: what the page sends, and the worker\'s stats answer, have their shapes', () => {
  const { TO_WORKER, checkMessage: check } = globalThis.labProtocol; // static/worker/protocol.js, as worker.js reads it
  for (const msg of [
    { id: 1, type: 'run', config: { SLOTS: 3 }, lang: 'vi' },
    { id: 2, type: 'run', config: {}, patches: [{ module: 'sampler' }], lang: 'en' },
    { id: 3, type: 'render', report: {}, lang: 'en' },
    { id: 4, type: 'stats' },
  ]) assert.equal(check(msg, TO_WORKER), null, JSON.stringify(msg));
  assert.match(check({ id: 1, type: 'run', config: 'x' }, TO_WORKER), /config/);
  assert.match(check({ type: 'ready', schema: [], versions: {} }, TO_WORKER), /unknown type/);
  assert.equal(checkMessage({ id: 4, type: 'stats', stats: { wasmBytes: 1 } }), null);
});

test('a result sent as JSON text in an ArrayBuffer is checked as the object it holds', () => {
  const sent = (text) => ({ type: 'result', id: 4, json: new TextEncoder().encode(text).buffer });
  const ok = withResult(sent('{"ok": true, "report": {"passed": true}}'));
  assert.deepEqual(ok, { type: 'result', id: 4, result: { ok: true, report: { passed: true } } });
  assert.equal(checkMessage(ok), null);
  assert.match(checkMessage(withResult(sent('<b>not json'))), /result/);
  assert.match(checkMessage(withResult(sent('"a string"'))), /result/);
  const other = { type: 'log', text: 'x' };
  assert.equal(withResult(other), other);
});
