// The page's words (static/words/): both languages have the same keys and the same {placeholders} per
// key, every key a script asks for exists, and every key is asked for somewhere.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import vm from 'node:vm';
import { CATALOGUES, fill, t } from '../../static/words/i18n.js';

const STATIC = new URL('../../static/', import.meta.url).pathname;
const WORKER_SCRIPT = 'worker/worker.js';

// static/words/worker.js is a classic script (the worker loads it with importScripts): run it in a sandbox.
function workerWords() {
  const sandbox = { self: {} };
  vm.runInNewContext(readFileSync(join(STATIC, 'words/worker.js'), 'utf-8'), sandbox);
  return sandbox.self.WORKER_WORDS;
}

function scripts(dir = STATIC) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'vendor' || entry.name === 'words' ? [] : scripts(path);
    return entry.name.endsWith('.js') ? [relative(STATIC, path)] : [];
  });
}

// The keys each script asks for: t('key') and t('key', {...}); a key built at run time would be missed,
// so there are none.
function keysUsed(file) {
  const source = readFileSync(join(STATIC, file), 'utf-8');
  return [...source.matchAll(/\bt\(\s*'([^']+)'/g)].map((m) => m[1]);
}

const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

function assertTwins(words, where) {
  assert.deepEqual(Object.keys(words.en).sort(), Object.keys(words.vi).sort(), `${where}: vi and en keys differ`);
  for (const key of Object.keys(words.vi)) {
    assert.equal(typeof words.vi[key], 'string', `${where} vi ${key}`);
    assert.equal(typeof words.en[key], 'string', `${where} en ${key}`);
    assert.deepEqual([...new Set(placeholders(words.en[key]))], [...new Set(placeholders(words.vi[key]))], `${where}: placeholders of ${key}`);
  }
}

test('the page catalogues: vi and en have the same keys and placeholders', () => {
  assert.ok(Object.keys(CATALOGUES.vi).length > 100);
  assertTwins(CATALOGUES, 'static/words/{vi,en}');
});

test('the worker catalogue: vi and en have the same keys and placeholders', () => {
  assertTwins(workerWords(), 'static/words/worker.js');
});

test('every key a script uses exists, and every key is used', () => {
  const worker = workerWords();
  const used = { page: new Set(), worker: new Set() };
  for (const file of scripts()) {
    const side = file === WORKER_SCRIPT ? 'worker' : 'page';
    const known = side === 'worker' ? worker.vi : CATALOGUES.vi;
    for (const key of keysUsed(file)) {
      assert.ok(Object.hasOwn(known, key), `${file} uses ${key}, which static/words does not have`);
      used[side].add(key);
    }
  }
  assert.deepEqual(Object.keys(CATALOGUES.vi).filter((k) => !used.page.has(k)), [], 'keys no page script uses');
  assert.deepEqual(Object.keys(worker.vi).filter((k) => !used.worker.has(k)), [], 'keys worker.js does not use');
});

test('no script keeps an inline vi/en pair', () => {
  for (const file of scripts()) {
    assert.ok(!/\btl\(/.test(readFileSync(join(STATIC, file), 'utf-8')), `${file} still calls tl(vi, en)`);
  }
});

test('no script that uses t() names a local variable t (it would hide the words)', () => {
  const local = /\b(?:const|let|var)\s+t\b|\(\s*t\s*\)\s*=>|\bt\s*=>|[[(,]\s*t\s*[\]),]/;
  for (const file of scripts()) {
    if (file === WORKER_SCRIPT || !keysUsed(file).length) continue;
    const source = readFileSync(join(STATIC, file), 'utf-8').replace(/\/\/.*$|^import .*$/gm, '');
    assert.ok(!local.test(source), `${file} declares a local t: ${(source.match(local) || [])[0]}`);
  }
});

test('t() fills named placeholders once, in the page language (vi without a document)', () => {
  assert.equal(fill('{n} số đổi', { n: 3 }), '3 số đổi');
  assert.equal(fill('{a}{b}{a}', { a: '{b}', b: 1 }), '{b}1{b}');           // values are not scanned again
  assert.equal(fill('{missing} x', {}), '{missing} x');
  assert.equal(t('compare.changed', { n: 2 }), '2 số đổi');
  assert.throws(() => t('no.such.key'), /no message no\.such\.key/);
});

test('one fill: the page\'s and the worker\'s words fill {name} by static/words/fill.js', () => {
  assert.equal(fill, globalThis.labFill);
  assert.equal(fill('{a} and {b}', { a: 1 }), '1 and {b}');
});
