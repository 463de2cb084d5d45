// static/core/fields.js: the constants' parsing and the request editor's validation (hand-checkable cases).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  boundsText, clockDefault, formatValue, parseCell, parseTrace, parseValue, splitFields, stepValue, unknownChars,
  validateRequests,
} from '../../static/core/fields.js';

const SLOTS = { name: 'SLOTS', type: 'int', default: 2, min: 1, max: 8 };
const TOP_P = { name: 'TOP_P', type: 'float', default: 0.9, min: 0.05, max: 1, step: 0.05 };
const FOLLOW = { name: 'FOLLOW', type: 'choice', default: 'C', choices: ['A', 'B', 'C'] };
const SPEC = {
  name: 'REQUESTS', type: 'requests', max_items: 3, alphabet: 'abc',
  columns: [
    { name: 'id', type: 'str', label: 'Mã', pattern: '^[A-Za-z0-9]{1,8}$' },
    { name: 'text', type: 'str', label: 'Văn bản', min: 1, max: 5 },
    { name: 'arrival', type: 'int', label: 'Đến lúc', min: 0, max: 100 },
  ],
};

test('parseValue reads ints, floats with a comma, and choices', () => {
  assert.deepEqual(parseValue(SLOTS, ' 3 '), { value: 3 });
  assert.deepEqual(parseValue(SLOTS, '+4'), { value: 4 });
  assert.deepEqual(parseValue(TOP_P, '0,95'), { value: 0.95 });
  assert.deepEqual(parseValue(TOP_P, '.5'), { value: 0.5 });
  assert.deepEqual(parseValue(TOP_P, '1e-1'), { value: 0.1 });
  assert.deepEqual(parseValue(FOLLOW, 'B'), { value: 'B' });
});

test('parseValue takes the word auto only where the schema allows it (POOL_BLOCKS)', () => {
  assert.deepEqual(parseValue({ ...SLOTS, name: 'POOL_BLOCKS', auto: true }, ' auto '), { value: 'auto' });
  assert.ok(parseValue(SLOTS, 'auto').error);
});

test('clockDefault swaps a field between its seed and roofline defaults, never a typed value', () => {
  const pool = { name: 'POOL_BLOCKS', type: 'int', default: 12, roofline_default: 'auto', auto: true };
  assert.equal(clockDefault(pool, 'roofline', '12'), 'auto');
  assert.equal(clockDefault(pool, 'seed', 'auto'), '12');
  assert.equal(clockDefault(pool, 'roofline', '20'), null);
  assert.equal(clockDefault({ ...SLOTS, roofline_default: null }, 'roofline', '2'), null);
});

test('parseValue says what is wrong, in Vietnamese', () => {
  assert.deepEqual(parseValue(SLOTS, ''), { error: 'Hãy nhập một số.' });
  assert.deepEqual(parseValue(SLOTS, '2.5'), { error: 'Hãy nhập một số nguyên (không có dấu phẩy hay chữ).' });
  assert.deepEqual(parseValue(SLOTS, '0'), { error: 'Giá trị nhỏ nhất là 1.' });
  assert.deepEqual(parseValue(SLOTS, '9'), { error: 'Giá trị lớn nhất là 8.' });
  assert.deepEqual(parseValue(SLOTS, '99999999999999999999'), { error: 'Số quá lớn.' });
  assert.deepEqual(parseValue(TOP_P, 'abc'), { error: 'Hãy nhập một số, ví dụ 0.95.' });
  assert.deepEqual(parseValue(FOLLOW, 'Z'), { error: 'Hãy chọn một giá trị trong danh sách.' });
});

test('formatValue and boundsText', () => {
  assert.equal(formatValue(null), '');
  assert.equal(formatValue(undefined), '');
  assert.equal(formatValue(0.9), '0.9');
  assert.equal(boundsText(SLOTS), 'từ 1 đến 8');
  assert.equal(boundsText({ min: 0 }), 'ít nhất 0');
  assert.equal(boundsText({ max: 5 }), 'nhiều nhất 5');
  assert.equal(boundsText({}), '');
});

test('stepValue steps within the bounds and without float noise', () => {
  assert.equal(stepValue(SLOTS, '2', 1), '3');
  assert.equal(stepValue(SLOTS, '8', 1), '8');
  assert.equal(stepValue(SLOTS, '1', -1), '1');
  assert.equal(stepValue(TOP_P, '0.1', 1), '0.15'); // 0.1 + 0.05 = 0.15000000000000002 in floats
  assert.equal(stepValue(SLOTS, 'x', 1), null);
});

test('splitFields: the headline constants are the schema\'s group "headline", in the schema\'s order', () => {
  const extra = { name: 'SEED', type: 'int', default: 7, group: 'advanced' };
  const head = (f) => ({ ...f, group: 'headline' });
  const { fields, headline, advanced } = splitFields([head(FOLLOW), extra, head(SLOTS), FOLLOW, SPEC, null]);
  assert.deepEqual(fields.map((f) => f.name), ['FOLLOW', 'SEED', 'SLOTS', 'FOLLOW']);
  assert.deepEqual(headline.map((f) => f.name), ['FOLLOW', 'SLOTS']);
  assert.deepEqual(advanced.map((f) => f.name), ['SEED', 'FOLLOW']);
});

test('parseCell checks ids, texts and numbers of the request table', () => {
  const [id, text, arrival] = SPEC.columns;
  assert.deepEqual(parseCell(id, ' F ', ['F', 'A']), { value: 'F' });
  assert.deepEqual(parseCell(id, 'F', ['F', 'F']), { error: 'Mã F bị trùng: mỗi yêu cầu cần một mã riêng.' });
  assert.deepEqual(parseCell(id, 'Ă', ['Ă']), { error: 'Mã gồm 1–8 chữ cái hoặc chữ số không dấu, ví dụ F.' });
  assert.deepEqual(parseCell(text, '  ', []), { error: 'Văn bản không được rỗng.' });
  assert.deepEqual(parseCell(text, 'abcdef', []), { error: 'Văn bản dài tối đa 5 ký tự (đang có 6).' });
  assert.deepEqual(parseCell(text, 'ab c', []), { value: 'ab c' });
  assert.deepEqual(parseCell(arrival, '101', []), { error: 'Giá trị lớn nhất là 100.' });
});

test('parseTrace names the engine fields of the bad cells', () => {
  const good = parseTrace(SPEC, [{ id: 'A', text: 'ab', arrival: '0' }, { id: 'B', text: 'c', arrival: '5' }]);
  assert.deepEqual(good, { requests: [{ id: 'A', text: 'ab', arrival: 0 }, { id: 'B', text: 'c', arrival: 5 }], errors: [] });
  const bad = parseTrace(SPEC, [{ id: 'A', text: 'ab', arrival: '0' }, { id: 'A', text: '', arrival: '-1' }]);
  assert.deepEqual(bad.errors.map((e) => e.field), ['REQUESTS[0].id', 'REQUESTS[1].id', 'REQUESTS[1].text', 'REQUESTS[1].arrival']);
  assert.deepEqual(parseTrace(SPEC, []).errors, [{ field: 'REQUESTS', message: 'Trace cần ít nhất 1 yêu cầu.' }]);
});

test('validateRequests checks a list from the address', () => {
  assert.deepEqual(validateRequests(SPEC, [{ id: 'A', text: 'ab', arrival: 0 }]), []);
  assert.deepEqual(validateRequests(SPEC, 'x'), [{ field: 'REQUESTS', message: 'không phải một danh sách yêu cầu.' }]);
  assert.deepEqual(validateRequests(SPEC, []), [{ field: 'REQUESTS', message: 'cần từ 1 đến 3 yêu cầu (có 0).' }]);
  assert.deepEqual(validateRequests(SPEC, [{ id: 'A', text: 'ab', arrival: '0' }, 7]), [
    { field: 'REQUESTS[0].arrival', message: 'thiếu hoặc sai kiểu.' },
    { field: 'REQUESTS[1]', message: 'không phải một yêu cầu.' },
  ]);
});

test('unknownChars lists the characters the tokenizer never saw, once each', () => {
  assert.deepEqual(unknownChars('abc', 'ab  ca'), []);
  assert.deepEqual(unknownChars('abc', 'xa yx'), ['x', 'y']);
  assert.deepEqual(unknownChars('', 'xyz'), []);
});
