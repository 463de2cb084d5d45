// static/core/versioned.js: the build's ?v= carried from a module's URL to the files it loads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { versioned } from '../../static/core/versioned.js';

test('versioned keeps the base query and drops the url own', () => {
  const base = 'http://127.0.0.1:8000/static/core/app.js?v=ab7ba8b9954f';
  assert.equal(versioned('../worker/worker.js', base), 'http://127.0.0.1:8000/static/worker/worker.js?v=ab7ba8b9954f');
  assert.equal(versioned('../charts/index.js', base), 'http://127.0.0.1:8000/static/charts/index.js?v=ab7ba8b9954f');
  assert.equal(versioned('charts.css', 'http://h/static/charts/index.js?v=1'), 'http://h/static/charts/charts.css?v=1');
  assert.equal(versioned('x.js?v=old', base), 'http://127.0.0.1:8000/static/core/x.js?v=ab7ba8b9954f');
});

test('an unbuilt page (no query) gets plain URLs', () => {
  assert.equal(versioned('../worker/worker.js', 'http://h/static/core/dom.js'), 'http://h/static/worker/worker.js');
});

test('by default the base is static/core/, where versioned.js lives', () => {
  const url = new URL(versioned('../worker/worker.js'));
  assert.ok(url.pathname.endsWith('/static/worker/worker.js'), url.pathname);
  assert.equal(url.search, '');
});
