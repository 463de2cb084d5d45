// The fields of describe() on the page side: which constants are headline controls, how a typed
// value is parsed and checked, and every message a student sees about a value they typed (the
// constants, the request table's cells, a trace from the page address). The one place on the JS
// side for parsing and validation messages; the engine checks again and has the last word.
// Pure functions, no DOM (tests/js/fields.test.mjs runs them in Node).
// Leaves out: the controls themselves (static/core/controls.js) and the request table (static/tools/editor.js).

import { t } from '../words/i18n.js';

const has = (v) => v !== null && v !== undefined;

// describe() entries -> {fields: those with a control, headline, advanced}. Which constants are headline and in
// what order is the schema's (py/inference_lab/core/inputs/schema.py: group "headline", in its order), never
// repeated here.
export function splitFields(schema) {
  const fields = (schema || []).filter((f) => f && f.name && f.type !== 'requests');
  const headline = fields.filter((f) => f.group === 'headline');
  const advanced = fields.filter((f) => f.group !== 'headline');
  return { fields, headline, advanced };
}

export function formatValue(value) {
  return has(value) ? String(value) : '';
}

// The text a control should hold after CLOCK changed to `clock`: a field with a roofline default (POOL_BLOCKS
// auto, COST_TOKENIZE_PER_TOKEN 1) swaps between its two defaults; a value the visitor typed stays (null).
export function clockDefault(field, clock, current) {
  if (field.roofline_default === null || field.roofline_default === undefined) return null;
  const [from, to] = clock === 'roofline' ? [field.default, field.roofline_default] : [field.roofline_default, field.default];
  return String(current).trim() === formatValue(from) ? formatValue(to) : null;
}

// "từ 1 đến 8", "ít nhất 1", "nhiều nhất 8" or '' (the bounds line under a control).
export function boundsText(field) {
  const lo = has(field.min);
  const hi = has(field.max);
  if (lo && hi) return t('fields.from', { min: field.min, max: field.max });
  if (lo) return t('fields.least', { min: field.min });
  if (hi) return t('fields.most', { max: field.max });
  return '';
}

// What a control's text means: {value} or {error} (Vietnamese, shown beside the control).
export function parseValue(field, raw) {
  const text = String(raw).trim();
  if (field.type === 'choice') {
    return (field.choices || []).includes(text) ? { value: text } : { error: t('fields.pickValueFromList') };
  }
  if (field.auto && text === 'auto') return { value: 'auto' }; // POOL_BLOCKS = auto: sized as vLLM does (Python)
  if (text === '') return { error: t('fields.enterNumber') };
  let value;
  if (field.type === 'int') {
    if (!/^[+-]?\d+$/.test(text)) return { error: t('fields.enterIntegerNoDecimal') };
    value = Number(text);
  } else {
    const normalized = text.replace(',', '.'); // accept 0,95 as well as 0.95
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(normalized)) return { error: t('fields.enterNumberExample095') };
    value = Number(normalized);
  }
  if (!Number.isFinite(value) || (field.type === 'int' && !Number.isSafeInteger(value))) return { error: t('fields.numberTooLarge') };
  if (has(field.min) && value < field.min) return { error: t('fields.smallestValue', { min: field.min }) };
  if (has(field.max) && value > field.max) return { error: t('fields.largestValue', { max: field.max }) };
  return { value };
}

// The text after ArrowUp (+1) or ArrowDown (-1) in a numeric control, or null when the text is not
// a valid number (then the key does nothing). Kept within the bounds; floats without binary noise.
export function stepValue(field, raw, direction) {
  const parsed = parseValue(field, raw);
  if (parsed.error) return null;
  const step = Number(field.step) || 1;
  let next = parsed.value + direction * step;
  if (has(field.min)) next = Math.max(field.min, next);
  if (has(field.max)) next = Math.min(field.max, next);
  if (field.type === 'float') next = Number(next.toFixed(10));
  return String(next);
}

// ── the request trace (describe()'s REQUESTS entry: columns, max_items, alphabet) ──
export const DEFAULT_ID_PATTERN = /^[A-Za-z0-9]{1,8}$/;

// The id column's pattern from describe() (schema.py), else the default.
export function idPattern(spec) {
  const column = spec && (spec.columns || []).find((c) => c.name === 'id');
  return column && column.pattern ? new RegExp(column.pattern) : DEFAULT_ID_PATTERN;
}

// "REQUESTS[2].text": the engine's own name for a cell.
export function cellName(specName, index, column) {
  return specName + '[' + index + '].' + column;
}

// "Dài 1–40 ký tự." / "Từ 0 đến 5000, số nguyên." / '' (the request table's legend).
export function columnBoundsText(col) {
  if (col.type === 'str') return has(col.max) ? t('fields.lengthCharacters', { min: has(col.min) ? col.min : 0, max: col.max }) : '';
  if (has(col.min) && has(col.max)) return t('fields.from2', { min: col.min, max: col.max }) + (col.type === 'int' ? t('fields.integer') : '.');
  return '';
}

// An optional column (schema.py RequestField.optional, e.g. priority, cancel_at) left empty: no value.
function isBlank(raw) {
  return raw === null || raw === undefined || String(raw).trim() === '';
}

// One cell: {value} or {error}; an empty optional cell is {value: undefined} (the request leaves the column
// out). ids: every row's id (for uniqueness); pattern: idPattern(spec).
export function parseCell(col, raw, ids, pattern = DEFAULT_ID_PATTERN) {
  if (col.optional && isBlank(raw)) return { value: undefined };
  if (col.type === 'int' || col.type === 'float') return parseValue(col, raw);
  const text = String(raw);
  if (col.name === 'id') {
    const id = text.trim();
    if (!pattern.test(id)) return { error: t('fields.id18AsciiLettersDigits') };
    if (ids.filter((x) => x === id).length > 1) return { error: t('fields.idTakenEveryRequest', { id }) };
    return { value: id };
  }
  const length = Array.from(text).length;
  if (text.trim() === '') return { error: t('fields.mustNotEmpty', { label: col.label || col.name }) };
  if (has(col.max) && length > col.max) {
    return { error: t('fields.mostCharactersLongHas', { label: col.label || col.name, max: col.max, length }) };
  }
  return { value: text };
}

// The table's texts (one per row and column) -> {requests, errors: [{field, message}]}.
export function parseTrace(spec, rows) {
  const pattern = idPattern(spec);
  const requests = [];
  const errors = [];
  const ids = rows.map((row) => String(row.id === undefined ? '' : row.id).trim());
  rows.forEach((row, i) => {
    const request = {};
    for (const col of spec.columns) {
      const parsed = parseCell(col, row[col.name] === undefined ? '' : row[col.name], ids, pattern);
      if (parsed.error) errors.push({ field: cellName(spec.name, i, col.name), message: parsed.error });
      else if (parsed.value !== undefined) request[col.name] = parsed.value;
    }
    requests.push(request);
  });
  if (rows.length === 0) errors.push({ field: spec.name, message: t('fields.traceNeedsLeast1') });
  return { requests, errors };
}

// A whole list of requests as data (from the page address): [] or [{field, message}].
export function validateRequests(spec, requests) {
  if (!Array.isArray(requests)) return [{ field: spec.name, message: t('fields.notListRequests') }];
  if (requests.length < 1 || requests.length > spec.max_items) {
    return [{ field: spec.name, message: t('fields.needs1RequestsHas', { max_items: spec.max_items, nRequests: requests.length }) }];
  }
  const pattern = idPattern(spec);
  const problems = [];
  const ids = requests.map((r) => (r && typeof r.id === 'string' ? r.id.trim() : ''));
  requests.forEach((r, i) => {
    if (!r || typeof r !== 'object') { problems.push({ field: spec.name + '[' + i + ']', message: t('fields.notRequest') }); return; }
    for (const col of spec.columns) {
      const value = r[col.name];
      if (col.optional && (value === null || value === undefined)) continue;
      const wrongType = col.type === 'str' ? typeof value !== 'string' : typeof value !== 'number';
      const parsed = wrongType ? { error: t('fields.missingWrongType') } : parseCell(col, String(value), ids, pattern);
      if (parsed.error) problems.push({ field: cellName(spec.name, i, col.name), message: parsed.error });
    }
  });
  return problems;
}

// Characters of `text` the tokenizer never saw (whitespace only separates words), in order.
export function unknownChars(alphabet, text) {
  if (!alphabet) return [];
  const out = [];
  for (const ch of String(text)) {
    if (!/\s/u.test(ch) && !alphabet.includes(ch) && !out.includes(ch)) out.push(ch);
  }
  return out;
}

// The warning beside a request's text with characters the tokenizer never saw ('' when none).
export function unknownCharsWarning(chars) {
  return chars.length ? t('fields.tokenizerNeverSaw', { chars: chars.map((c) => '“' + c + '”').join(', ') }) : '';
}
