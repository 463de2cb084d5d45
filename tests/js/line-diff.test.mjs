// static/tools/line-diff.js: compare's line pairing and number diff.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { align, changedNumbers, diffRuns, split } from '../../static/tools/line-diff.js';

test('split separates numbers from the text around them', () => {
  const parts = split('TTFT của C: 22.00 ms, chờ 14.55 ms');
  assert.deepEqual(parts.numbers, ['22.00', '14.55']);
  assert.deepEqual(parts.texts, ['TTFT của C: ', ' ms, chờ ', ' ms']);
  assert.equal(parts.label, 'TTFT của C:');
  // numbers inside words (K2, x1) and after a decimal point are not numbers of their own
  assert.deepEqual(split('K2 x1 -3 1e-9').numbers, ['-3', '1e-9']);
  // a line without letters before its first number is labelled by all its texts
  assert.equal(split('12 / 12').label, '#/#');
});

test('align pairs equal labels in order (longest common subsequence)', () => {
  assert.deepEqual(align(['a', 'b', 'c'], ['a', 'b', 'c']), [[0, 0], [1, 1], [2, 2]]);
  assert.deepEqual(align(['a', 'b', 'c'], ['a', 'x', 'b', 'c']), [[0, 0], [1, 2], [2, 3]]);
  assert.deepEqual(align(['a', 'b', 'c'], ['a', 'c']), [[0, 0], [2, 1]]);
  assert.deepEqual(align([], ['a']), []);
});

test('changedNumbers compares from the start and from the end', () => {
  const marks = (a, b) => Object.fromEntries(changedNumbers(split(a), split(b)));
  assert.deepEqual(marks('cao điểm 7/12 block', 'cao điểm 9/12 block'), { 0: '7' });
  assert.deepEqual(marks('a 1 b 2 c 3', 'a 1 b 5 c 3'), { 1: '2' });
  // a number added in the middle: the ends still line up, the new one is not marked
  assert.deepEqual(marks('x 1 y 2', 'x 1 z 9 y 3'), { 2: '2' });
  assert.deepEqual(marks('same 1', 'same 1'), {});
});

test('diffRuns returns the changed lines of each section', () => {
  const section = (key, texts) => ({ key, lines: texts.map((text) => ({ text, parts: split(text) })) });
  const before = [section('1', ['D: nhận 429', 'offered 5 = 3 + 2']), section('summary', ['PASS 4/4'])];
  const after = [section('1', ['D: nhận 429', 'offered 5 = 4 + 1']), section('summary', ['PASS 4/4'])];
  const out = diffRuns(before, after);
  assert.equal(out.length, 1);
  assert.equal(out[0].section.key, '1');
  assert.equal(out[0].line.text, 'offered 5 = 4 + 1');
  assert.deepEqual(Object.fromEntries(out[0].marks), { 1: '3', 2: '2' });
});
