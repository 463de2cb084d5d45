// static/core/share-state.js: the shareable address's format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  decodeRequests, encodeRequests, fromBase64Url, parseAddressValue, queryFor, shorten, toBase64Url,
} from '../../static/core/share-state.js';

test('base64url round trip, Vietnamese included, without padding or + /', () => {
  for (const text of ['', 'a', 'ab', 'abc', '[["A","xin chào",0]]', 'Tiếng Việt có dấu ư ơ đ', '\u{1F600}>>>???']) {
    const coded = toBase64Url(text);
    assert.match(coded, /^[A-Za-z0-9_-]*$/);
    assert.equal(fromBase64Url(coded), text);
  }
  assert.equal(toBase64Url('ab'), 'YWI');          // "YWI=" without padding
  assert.equal(toBase64Url('>>>???'), 'Pj4-Pz8_');  // "Pj4+Pz8/" made URL-safe
  assert.throws(() => fromBase64Url('YWI='));       // '=' is not in the address alphabet
});

test('fromBase64Url refuses other characters and invalid UTF-8', () => {
  assert.throws(() => fromBase64Url('a+b'));
  assert.throws(() => fromBase64Url('_w')); // 0xFF: not UTF-8
});

test('requests go in as one array per request, columns in order', () => {
  const columns = ['id', 'text', 'arrival'];
  const requests = [{ id: 'A', text: 'xin chào', arrival: 0 }, { id: 'F', text: 'ab', arrival: 1500 }];
  const coded = encodeRequests(requests, columns);
  assert.equal(fromBase64Url(coded), '[["A","xin chào",0],["F","ab",1500]]');
  assert.deepEqual(decodeRequests(coded, columns), { requests });
  assert.deepEqual(decodeRequests('%%', columns), { error: 'không giải mã được (cần base64url của JSON).' });
  assert.deepEqual(decodeRequests(toBase64Url('[["A"]]'), columns),
    { error: 'mỗi yêu cầu phải là một danh sách 3 giá trị (id, text, arrival).' });
});

test('queryFor keeps only what differs from the defaults', () => {
  const fields = [{ name: 'SLOTS', type: 'int', default: 2 }, { name: 'TOP_P', type: 'float', default: 0.9 }];
  assert.equal(queryFor({ SLOTS: 2, TOP_P: 0.9 }, fields, null), '');
  assert.equal(queryFor({ SLOTS: 3, TOP_P: 0.9 }, fields, null), 'SLOTS=3');
  const trace = { columns: ['id'], sameAsDefault: (r) => r.length === 1 };
  assert.equal(queryFor({ SLOTS: 2, REQUESTS: [{ id: 'A' }] }, fields, trace), '');
  assert.equal(queryFor({ SLOTS: 2, REQUESTS: [{ id: 'A' }, { id: 'B' }] }, fields, trace),
    'REQUESTS=' + toBase64Url('[["A"],["B"]]'));
});

test('parseAddressValue: one value, parsed as in the controls', () => {
  const slots = { name: 'SLOTS', type: 'int', min: 1, max: 8 };
  assert.deepEqual(parseAddressValue(slots, ['3']), { value: 3 });
  assert.deepEqual(parseAddressValue(slots, ['3', '4']), { error: 'xuất hiện 2 lần.' });
  assert.deepEqual(parseAddressValue(slots, ['abc']), { error: 'Hãy nhập một số nguyên (không có dấu phẩy hay chữ).' });
  assert.deepEqual(parseAddressValue(slots, ['0']), { error: 'Giá trị nhỏ nhất là 1.' });
});

test('shorten cuts long address text', () => {
  assert.equal(shorten('x'.repeat(40)), 'x'.repeat(40));
  assert.equal(shorten('x'.repeat(41)), 'x'.repeat(37) + '…');
});
