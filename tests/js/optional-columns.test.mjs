// Optional request columns (config.py RequestField.optional: priority, cancel_at): an empty cell leaves the
// column out of the request, the address encodes a trace without them exactly as before they existed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCell, parseTrace, validateRequests } from '../../static/core/fields.js';
import { decodeRequests, encodeRequests, fromBase64Url } from '../../static/core/share-state.js';

const SPEC = {
  name: 'REQUESTS', type: 'requests', max_items: 3,
  columns: [
    { name: 'id', type: 'str', label: 'Mã', pattern: '^[A-Za-z0-9]{1,8}$' },
    { name: 'arrival', type: 'int', label: 'Đến', min: 0, max: 100 },
    { name: 'priority', type: 'int', label: 'priority', min: 0, max: 100, optional: true },
    { name: 'cancel_at', type: 'int', label: 'Hủy lúc', min: 0, max: 5000, optional: true },
  ],
};
const NAMES = SPEC.columns.map((c) => c.name);

test('an empty optional cell is no value; a filled one is checked like any number', () => {
  const [, , priority] = SPEC.columns;
  assert.deepEqual(parseCell(priority, '  '), { value: undefined });
  assert.deepEqual(parseCell(priority, '3'), { value: 3 });
  assert.deepEqual(parseCell(priority, '101'), { error: 'Giá trị lớn nhất là 100.' });
  assert.ok(parseCell(SPEC.columns[1], '').error, 'a required number cell may not be empty');
});

test('parseTrace leaves empty optional columns out of the request', () => {
  const { requests, errors } = parseTrace(SPEC, [{ id: 'A', arrival: '0', priority: '', cancel_at: '800' }]);
  assert.deepEqual(errors, []);
  assert.deepEqual(requests, [{ id: 'A', arrival: 0, cancel_at: 800 }]);
});

test('validateRequests accepts absent or null optional values, names a bad one', () => {
  assert.deepEqual(validateRequests(SPEC, [{ id: 'A', arrival: 0 }, { id: 'B', arrival: 1, priority: null }]), []);
  assert.deepEqual(validateRequests(SPEC, [{ id: 'A', arrival: 0, cancel_at: 9999 }]),
    [{ field: 'REQUESTS[0].cancel_at', message: 'Giá trị lớn nhất là 5000.' }]);
});

test('the address drops trailing absent columns and reads old and new rows', () => {
  const requests = [{ id: 'A', arrival: 0 }, { id: 'B', arrival: 5, cancel_at: 800 }];
  const coded = encodeRequests(requests, NAMES);
  assert.equal(fromBase64Url(coded), '[["A",0],["B",5,null,800]]');
  assert.deepEqual(decodeRequests(coded, NAMES, 2), { requests });
  assert.match(decodeRequests(encodeRequests([{ id: 'A' }], NAMES), NAMES, 2).error, /2–4 giá trị/);
});
