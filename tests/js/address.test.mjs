// static/core/address.js: the page address's one owner (parts registered by the tools).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAddress } from '../../static/core/address.js';

/* global location */
// A stand-in for the page's location and history (Node has neither).
function at(href) {
  globalThis.location = new URL(href);
  globalThis.history = { state: null, replaceState: (_s, _t, to) => { globalThis.location = new URL(to); } };
}

function page() {
  const address = createAddress();
  const seen = {};
  address.register('PATCH', { apply: (v) => { seen.PATCH = v; }, write: (config) => config.patch || null });
  address.register('*', { apply: (names, params) => { seen.constants = names.map((n) => [n, params.get(n)]); },
    write: (config) => Object.entries(config).filter(([n]) => n !== 'patch') });
  address.register('step', { view: true, apply: (v) => { seen.step = v; } });
  address.register('lang', { view: true, runs: false });
  return { address, seen };
}

test('every part gets its parameters; the rest go to the * part', () => {
  at('http://x/?SLOTS=3&step=8&PATCH=abc&lang=en');
  const { address, seen } = page();
  const out = address.apply(location.search);
  assert.deepEqual(seen, { PATCH: ['abc'], step: ['8'], constants: [['SLOTS', '3']] });
  assert.deepEqual(out, { problems: [], restored: [], runs: true });
});

test('no parameters, or lang alone, asks for no run; step alone or PATCH alone does', () => {
  const { address } = page();
  assert.equal(address.apply('').runs, false);
  assert.equal(address.apply('?lang=en').runs, false);
  assert.equal(address.apply('?step=3').runs, true);
  assert.equal(address.apply('?PATCH=x&lang=en').runs, true);
});

test('a run rewrites the address: its constants and PATCH, the view parameters kept as they are', () => {
  at('http://x/?SLOTS=2&step=8&lang=en');
  const { address } = page();
  address.write({ SLOTS: '3', patch: 'p' });
  assert.equal(location.search, '?SLOTS=3&PATCH=p&step=8&lang=en');
  address.write({});
  assert.equal(location.search, '?step=8&lang=en');
  at('http://x/?SLOTS=2');
  assert.equal(new URL(page().address.href({})).search, '');
});

test('set changes one view parameter at once, or once changes pause', async () => {
  at('http://x/?SLOTS=3');
  const { address } = page();
  address.set('step', 4);
  assert.equal(location.search, '?SLOTS=3&step=4');
  address.set('step', 5, 5);
  address.set('step', 6, 5);
  assert.equal(location.search, '?SLOTS=3&step=4');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(location.search, '?SLOTS=3&step=6');
  address.set('step', null);
  assert.equal(location.search, '?SLOTS=3');
});

test('a new address drops a view change still waiting (back/forward right after an arrow key in the step view)', async () => {
  at('http://x/?SLOTS=3&step=2');
  const { address, seen } = page();
  address.set('step', 3, 5);                 // the step view's arrow key: written once changes pause
  at('http://x/?SLOTS=3&step=6');            // then the visitor goes back to an address with step=6
  address.apply(location.search);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(location.search, '?SLOTS=3&step=6');
  assert.deepEqual(seen.step, ['6']);
});

test('a part that holds (a link\'s edited code) keeps everything but the constants from running at once', () => {
  at('http://x/?PATCH=abc&step=2');
  const address = createAddress();
  let held = false;
  const early = [];
  address.register('PATCH', { apply: (v) => { early.push(v); held = v.length > 0; }, holds: () => held, early: true });
  address.register('step', { view: true, apply: () => {} });
  address.register('*', { apply: () => {} });
  assert.deepEqual(early, [['abc']]);                      // applied as the page starts
  assert.equal(address.apply('?PATCH=abc&step=2').runs, false);
  assert.equal(address.apply('?PATCH=abc&SLOTS=3').runs, true);
  assert.equal(address.apply('?step=2').runs, true);        // no PATCH: nothing held
});
