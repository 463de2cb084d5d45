// The shareable address's format: the constants that differ from their defaults as a query string
// (?SLOTS=3&QUEUE_LIMIT=2) and an edited trace under REQUESTS= as base64url JSON (one array per
// request, columns in describe()'s order). Pure functions, no DOM (tests/js/share-state.test.mjs).
// Leaves out: reading or changing the page address (static/core/address.js, which also keeps view
// parameters such as ?step=8) and the controls (static/tools/share.js).

import { formatValue, parseValue } from './fields.js';
import { t } from '../words/i18n.js';

export const REQUESTS = 'REQUESTS';

// UTF-8 text -> base64url without padding.
export function toBase64Url(text) {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// base64url (padding optional) -> UTF-8 text; throws on anything else.
export function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error(t('address.unexpectedCharacters'));
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

// One array per request; trailing optional columns a request leaves out are dropped, so a trace without
// them is encoded exactly as before those columns existed (older addresses keep working).
export function encodeRequests(requests, columns) {
  return toBase64Url(JSON.stringify(requests.map((r) => {
    const row = columns.map((c) => (r[c] === undefined ? null : r[c]));
    while (row.length && row[row.length - 1] === null) row.pop();
    return row;
  })));
}

// REQUESTS= back into request objects: {requests} or {error}. Values are checked by the caller
// (fields.validateRequests); only the shape is checked here. `required`: how many leading columns every
// row must have (the rest are optional and may be cut off or null); default all of them.
export function decodeRequests(raw, columns, required = columns.length) {
  let rows;
  try {
    rows = JSON.parse(fromBase64Url(raw));
  } catch (err) {
    return { error: t('address.cannotDecodedMust') };
  }
  const fits = (r) => Array.isArray(r) && r.length >= required && r.length <= columns.length;
  if (!Array.isArray(rows) || !rows.every(fits)) {
    const count = required === columns.length ? String(required) : required + '–' + columns.length;
    return { error: t('address.everyRequestMustList', { count, columns: columns.join(', ') }) };
  }
  const request = (r) => Object.fromEntries(
    columns.map((c, i) => [c, r[i]]).filter(([, v]) => v !== null && v !== undefined));
  return { requests: rows.map(request) };
}

function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

// The query string that restores `config`: only what differs from the defaults. trace: null, or
// {columns, sameAsDefault(requests)} when the page has a request table.
export function queryFor(config, fields, trace) {
  const params = new URLSearchParams();
  for (const field of fields) {
    if (field.name in config && !same(config[field.name], field.default)) {
      params.set(field.name, formatValue(config[field.name]));
    }
  }
  const requests = config[REQUESTS];
  if (trace && Array.isArray(requests) && !trace.sameAsDefault(requests)) {
    params.set(REQUESTS, encodeRequests(requests, trace.columns));
  }
  return params.toString();
}

// A constant's values in the address (every occurrence of its name): {value} or {error}.
export function parseAddressValue(field, values) {
  if (values.length > 1) return { error: t('address.appearsTimes', { nValues: values.length }) };
  return parseValue(field, values[0]);
}

// "…" after 37 characters: text from the address shown in a message.
export function shorten(text) {
  const s = String(text);
  return s.length > 40 ? s.slice(0, 37) + '…' : s;
}
