// The PATCH= address part of static/tools/code.js: the student's edited functions as base64url JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodePatches, encodePatches } from '../../static/tools/code.js';

test('edited functions survive the address, Vietnamese comments included', () => {
  const patches = { 'scheduler.plan_tasks': 'def plan_tasks(running, budget_cap):\n    return []  # rỗng\n' };
  const raw = encodePatches(patches);
  assert.match(raw, /^[A-Za-z0-9_-]+$/);
  assert.deepEqual(decodePatches(raw), { patches });
});

test('a damaged or foreign PATCH= is an error, not an edit', () => {
  assert.ok(decodePatches('%%%').error);
  assert.ok(decodePatches(encodePatches(['x'])).error);
  assert.ok(decodePatches(Buffer.from('{"plan_tasks": "x"}').toString('base64url')).error);   // no module
  assert.ok(decodePatches(Buffer.from('{"scheduler.plan_tasks": 1}').toString('base64url')).error);
});
