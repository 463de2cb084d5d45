// static/core/run-log.js: the run log's reader (the step navigator's arithmetic and the charts' rows), on steps
// 5–7 of the run SLOTS=3, POOL_BLOCKS=8
// (exercise 5: C is preempted at step 6), as report.steps.items holds them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  blockMap, budgetParts, clampStep, eventSteps, expandRanges, hasEvent, stepFromSearch, stepRows, stripOwners,
  stripRows, targetStep,
} from '../../static/core/run-log.js';

const STEP5 = {
  tasks: [['A', 'decode', 1], ['B', 'decode', 1], ['C', 'prefill', 4]], budget: [6, 6],
  tables: { A: [0, 1, 5], B: [2, 3, 4], C: [6, 7] }, free: [], alloc: [7], freed: [],
  events: [{ kind: 'budget', id: 'C', got: 4, left: 5, cap: 6 }, { kind: 'chunk', id: 'C', n: 4, done: 8, total: 9, first: false, recompute: false }],
  title: 'A decode, B decode, C prefill 4 token',
};
const STEP6 = {
  tasks: [['A', 'decode', 1], ['B', 'decode', 1]], budget: [2, 6],
  tables: { A: [0, 1, 5], B: [2, 3, 4, 6] }, free: [[7, 7]], alloc: [6], freed: [6, 7],
  events: [{ kind: 'preempt', id: 'C', blocks: [6, 7], generated: 0, recompute: 9, needed_by: 'B', need: 1, free: 0, dropped: 1 }],
  title: 'preempt C',
};
const STEP7 = {
  tasks: [['A', 'decode', 1], ['B', 'decode', 1], ['C', 'prefill', 4]], budget: [6, 6],
  tables: { A: [0, 1, 5], C: [2] }, free: [[3, 4], [6, 7]], alloc: [2], freed: [2, 3, 4, 6],
  events: [{ kind: 'admit', id: 'C', why: 'free_slot', room: 1 }, { kind: 'finish', id: 'B', reason: 'eos', n: 4, blocks: [2, 3, 4, 6] }],
  title: 'C bắt đầu prefill lại 4 token, B xong',
};
const PLAIN = { tasks: [['A', 'decode', 1]], budget: [1, 6], tables: { A: [0] }, free: [[1, 7]], alloc: [], freed: [], events: [], title: 'A decode' };
const ITEMS = [PLAIN, PLAIN, PLAIN, PLAIN, STEP5, STEP6, STEP7, PLAIN, PLAIN];
// the record's landmarks (report.steps.landmarks, run_log.LANDMARKS: tests/test_steps.py pins which kinds)
const KINDS = ['arrive', 'abort', 'admit', 'overtake', 'cache_hit', 'wait_kv', 'preempt', 'first', 'finish'];

test('steps with an event: arrivals, admissions, preemptions, first tokens, finishes (not budget or chunk)', () => {
  assert.equal(hasEvent(STEP5, KINDS), false);
  assert.equal(hasEvent(STEP6, KINDS), true);
  assert.deepEqual(eventSteps(ITEMS, KINDS), [6, 7]);
});

test('slider keys: arrows ±1 and clamped, Home/End, PageUp/PageDown to the previous/next step with an event', () => {
  assert.equal(targetStep('ArrowRight', 4, ITEMS, KINDS), 5);
  assert.equal(targetStep('ArrowUp', 9, ITEMS, KINDS), 9);
  assert.equal(targetStep('ArrowLeft', 1, ITEMS, KINDS), 1);
  assert.equal(targetStep('ArrowDown', 5, ITEMS, KINDS), 4);
  assert.equal(targetStep('Home', 5, ITEMS, KINDS), 1);
  assert.equal(targetStep('End', 2, ITEMS, KINDS), 9);
  assert.equal(targetStep('PageDown', 1, ITEMS, KINDS), 6);
  assert.equal(targetStep('PageDown', 6, ITEMS, KINDS), 7);
  assert.equal(targetStep('PageDown', 7, ITEMS, KINDS), 9);   // no later event: the last step
  assert.equal(targetStep('PageUp', 9, ITEMS, KINDS), 7);
  assert.equal(targetStep('PageUp', 6, ITEMS, KINDS), 1);     // no earlier event: the first step
  assert.equal(targetStep('Enter', 3, ITEMS, KINDS), null);
  assert.equal(targetStep('End', 1, []), null);
});

test('the budget bar: decodes first, then prompt chunks, then what is left', () => {
  assert.deepEqual(budgetParts(STEP5), {
    parts: [{ id: 'A', phase: 'decode', n: 1 }, { id: 'B', phase: 'decode', n: 1 }, { id: 'C', phase: 'prefill', n: 4 }],
    used: 6, cap: 6, left: 0,
  });
  assert.equal(budgetParts(STEP6).left, 4);               // C's task did not run: it was preempted
  assert.equal(budgetParts({ tasks: [['A', 'prefill', 9]], budget: [9, null] }).left, null);
});

test('an edited plan_tasks: the bar keeps the order the tasks ran in', () => {
  const swapped = { tasks: [['B', 'prefill', 5], ['A', 'decode', 1]], budget: [6, 6], events: [] };
  assert.deepEqual(budgetParts(swapped).parts.map((p) => p.id + p.phase), ['Bprefill', 'Adecode']);
  assert.deepEqual(budgetParts(swapped).left, 0);
});

test('block owners after the step, and the blocks just taken or given back', () => {
  const m = blockMap(STEP6, 8);
  assert.deepEqual(m.owners, ['A', 'A', 'B', 'B', 'B', 'A', 'B', null]);
  assert.deepEqual(m.logical, [0, 1, 0, 1, 2, 2, 3, -1]);
  assert.deepEqual([...m.alloc], [6]);
  assert.deepEqual([...m.freed], [6, 7]);                 // 6 went from C to B within the step
  assert.deepEqual(expandRanges(STEP7.free), [3, 4, 6, 7]);
});

test('a block shared through the prefix cache keeps its first holder and lists every holder', () => {
  // SLOTS=3, QUEUE_LIMIT=2, PREFIX_CACHE=on, step 8: D took A's first block (block 0) from the cache
  const item = { tables: { A: [0, 1, 5, 10], C: [6, 7, 9], D: [0, 11] }, alloc: [10, 11], freed: [], reused: [0] };
  const m = blockMap(item, 12);
  assert.equal(m.owners[0], 'A');
  assert.equal(m.logical[0], 0);
  assert.deepEqual(m.holders[0], ['A', 'D']);
  assert.deepEqual(m.holders[11], ['D']);
  assert.deepEqual([...m.reused], [0]);
  assert.deepEqual([...blockMap({ ...item, cached_free: [[2, 4]] }, 12).cached], [2, 3, 4]);
  assert.deepEqual([...blockMap(STEP6, 8).reused], []);     // records without prefix caching
});

test('a step is worth stopping at for the kinds the record names, and only those', () => {
  for (const kind of ['abort', 'overtake', 'cache_hit']) assert.ok(hasEvent({ events: [{ kind, id: 'A' }] }, KINDS), kind);
  assert.ok(!hasEvent({ events: [{ kind: 'chunk', id: 'A' }] }, KINDS));
  assert.ok(hasEvent({ events: [{ kind: 'chunk', id: 'A' }] }, ['chunk']));
  assert.ok(!hasEvent(STEP6, undefined));                  // a record without landmarks: no step stands out
});

test('?step=N is clamped to the run; anything else is ignored', () => {
  assert.equal(stepFromSearch('?SLOTS=3&step=8', 12), 8);
  assert.equal(stepFromSearch('?step=99', 12), 12);
  assert.equal(stepFromSearch('?step=0', 12), 1);
  assert.equal(stepFromSearch('?step=x', 12), null);
  assert.equal(stepFromSearch('?SLOTS=3', 12), null);
  assert.equal(stepFromSearch('?step=3', 0), null);
  assert.equal(clampStep(2.6, 5), 3);
});

test('the charts\' rows: owners (a shared block: its first holder), blocks in use, shared and cached blocks', () => {
  const item = { start: 0, end: 5, tasks: [['A', 'decode', 1]], tables: { A: [0, 1], D: [0, 3] }, free: [[2, 2], [4, 7]],
    cached_free: [[5, 6]], kv_used: 3 }; // kv_used: the record's (run_log.page_keys), never counted again here
  const [row] = stepRows({ steps: { items: [item] } });
  assert.deepEqual(row.owners, { 0: 'A', 1: 'A', 3: 'D' });
  assert.deepEqual(row.shared, { 0: ['A', 'D'] });
  assert.equal(row.kvUsed, 3);
  assert.deepEqual(row.cachedFree, [5, 6]);
  assert.deepEqual(stepRows({ blocks: [] }), []);
});

test('a long run\'s KV strip (web.py kv_strip): the drawn steps\' tables as runs, owners as stepRows gives them', () => {
  const items = [{ start: 0, end: 5, kv_used: 3 }, { start: 5, end: 9, kv_used: 0 }];
  const kv_strip = { steps: [1, 2], tables: [[['A', 0, 1], ['D', 0, 0, 3, 3]], []], cached_free: [[[5, 6]], []],
    holders: ['A', 'D'], max_block: 3 };
  const rows = stripRows({ steps: { items, kv_strip } });
  assert.deepEqual(rows.map((r) => [r.step, r.end, r.kvUsed, r.cached]), [[1, 5, 3, [[5, 6]]], [2, 9, 0, []]]);
  const { owners, shared } = stripOwners(rows[0]);
  assert.deepEqual(owners, stepRows({ steps: { items: [{ tables: { A: [0, 1], D: [0, 3] } }] } })[0].owners);
  assert.deepEqual(shared, { 0: ['A', 'D'] });
  assert.equal(stripRows({ steps: { items } }), null);
});

test('budgetParts: a speculative verify takes 1 + its proposals of the budget (SPEC_METHOD != off)', () => {
  const item = {
    tasks: [['A', 'decode', 1], ['C', 'prefill', 1]], budget: [5, 6],
    spec: { A: { proposed: [12, 12, 12], accepted: 3, token: 12 } },
  };
  const got = budgetParts(item);
  assert.deepEqual(got.parts, [{ id: 'A', phase: 'decode', n: 4 }, { id: 'C', phase: 'prefill', n: 1 }]);
  assert.equal(got.parts.reduce((s, p) => s + p.n, 0), got.used);
  assert.equal(got.left, 1);
});
