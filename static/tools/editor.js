// Request editor: the trace REQUESTS (A–E by default) as an editable table next to the constants.
// Built from describe()'s REQUESTS entry (columns with labels, help and bounds, max_items, default,
// alphabet = the characters the tokenizer knows), so nothing about the trace is written here twice.
// The table's inputs are the state; Run reads them through the 'config' event and sends REQUESTS.
// This module holds the editor's state (`ed`) and what changes it: the trace as data, adding, removing
// and editing rows, FOLLOW's choices and the "edited" badge.
// Leaves out: the elements and hooks (editor-table.js), the messages beside the cells (editor-notes.js),
// the cells' parsing and wording (static/core/fields.js). A tool of static/core/lab-api.js.
// Everything from the user or the engine goes in as textContent.

import { formatValue, idPattern, parseTrace, validateRequests } from '../core/fields.js';
import { t } from '../words/i18n.js';
import { addRow, buildFold, renumber } from './editor-table.js';
import { clearErrors, noteRefusals, placeError, setCellError, showWarning } from './editor-notes.js';

const ID_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export function init(api) {
  const ed = {
    api,
    spec: null,          // describe()'s REQUESTS entry
    idPattern: null,     // the id column's pattern from describe() (schema.py)
    rows: [],            // [{tr, inputs: {column: input}, syncedId, remove}]
    lastRun: null,       // the REQUESTS of the last run, to tell whether a run note still applies
    ui: {},
  };
  wireEvents(ed);
  return publicApi(ed);
}

function wireEvents(ed) {
  const { api } = ed;
  api.on('ready', ({ schema }) => onReady(ed, schema));
  api.on('config', (config, errors) => onConfig(ed, config, errors));
  api.on('reset', () => { if (ed.spec) { setTrace(ed, defaultTrace(ed)); say(ed, ''); } });
  api.on('clearErrors', () => clearErrors(ed));
  api.on('fieldError', (name, message) => placeError(ed, name, message));
  api.on('result', (result, config) => { if (ed.spec) noteRefusals(ed, result, config); });
}

// What the other tools (share.js, the lab API) call.
function publicApi(ed) {
  return {
    readTrace: () => readTrace(ed),
    setTrace: (requests) => setTrace(ed, requests),
    validate: (requests) => validateRequests(ed.spec, requests), // [] or [{field, message}]
    sameAsDefault: (requests) => sameAsDefault(ed, requests),
    defaultTrace: () => defaultTrace(ed),
    columns: () => (ed.spec ? ed.spec.columns : []),
    name: () => (ed.spec ? ed.spec.name : null),
    open: () => { if (ed.ui.fold) ed.ui.fold.open = true; },
  };
}

function onReady(ed, schema) {
  if (ed.spec) return; // a restarted worker: keep the table as the user left it
  const entry = (schema || []).find((f) => f && f.type === 'requests' && Array.isArray(f.columns));
  if (!entry) return;
  ed.spec = entry;
  ed.idPattern = idPattern(entry);
  buildFold(ed, { add: () => addRequest(ed), reset: () => restoreDefault(ed) });
  ed.api.insertControls(ed.ui.fold);
  setTrace(ed, defaultTrace(ed));
}

function onConfig(ed, config, errors) {
  if (!ed.spec) return;
  const read = readTrace(ed);
  if (read.errors.length) errors.push(...read.errors);
  else config[ed.spec.name] = read.requests;
}

// ── the trace as data ──────────────────────────────────────────────────────
function defaultTrace(ed) {
  return (ed.spec.default || []).map((r) => Object.assign({}, r));
}

// The table's rows are kept and refilled (a row added per request more, removed per request fewer): Mặc
// định before a run rebuilt ~50 inputs, and the browser then scans the whole form again (~0.2 s of CPU).
function setTrace(ed, requests) {
  ed.rows.splice(requests.length).forEach((row) => row.tr.remove());
  requests.forEach((r, i) => (i < ed.rows.length ? refill(ed, ed.rows[i], r) : addRow(ed, r, rowActions(ed))));
  renumber(ed);
  for (const row of ed.rows) showWarning(ed, row);
  syncFollow(ed, null);
  updateBadge(ed);
}

// A kept row as addRow would make it for `values`: no error beside a cell, FOLLOW's id taken from the cell.
function refill(ed, row, values) {
  for (const col of ed.spec.columns) {
    setCellError(ed, row, col.name, null);
    row.inputs[col.name].value = formatValue(values[col.name]);
  }
  row.syncedId = null;
}

// Parses every cell; {requests, errors: [{field, message}]} (errors name the engine's fields).
function readTrace(ed) {
  const { spec, rows } = ed;
  const values = (row) => Object.fromEntries(spec.columns.map((col) => [col.name, row.inputs[col.name].value]));
  return parseTrace(spec, rows.map(values));
}

function sameAsDefault(ed, requests) {
  return JSON.stringify(normalize(ed, requests)) === JSON.stringify(normalize(ed, defaultTrace(ed)));
}

function normalize(ed, requests) {
  return (requests || []).map((r) => ed.spec.columns.map((col) => (r ? r[col.name] : undefined)));
}

// ── editing ────────────────────────────────────────────────────────────────
function rowActions(ed) {
  return { input: (row, col) => onInput(ed, row, col), remove: (row) => removeRequest(ed, row) };
}

function onInput(ed, row, col) {
  setCellError(ed, row, col.name, null);
  if (col.name === 'id') { renumber(ed); syncFollow(ed, null); }
  if (col.name === 'text') showWarning(ed, row);
  updateBadge(ed);
}

function restoreDefault(ed) {
  clearErrors(ed);
  setTrace(ed, defaultTrace(ed));
  say(ed, t('editor.defaultTraceRestored', { ids: defaultTrace(ed).map((r) => r.id).join(', ') }));
}

function addRequest(ed) {
  if (ed.rows.length >= ed.spec.max_items) return;
  const template = newRequest(ed);
  const row = addRow(ed, template, rowActions(ed));
  renumber(ed);
  showWarning(ed, row);
  syncFollow(ed, null);
  updateBadge(ed);
  (row.inputs.text || row.inputs.id).focus();
  say(ed, t('editor.addedRequestRowEdit', { id: template.id, nRows: ed.rows.length }));
}

// The last default request under a free id, arriving 500 µs after the latest, with the next seed.
function newRequest(ed) {
  const defaults = defaultTrace(ed);
  const template = Object.assign({}, defaults[defaults.length - 1] || {});
  const arrivals = columnNumbers(ed, 'arrival');
  const seeds = columnNumbers(ed, 'seed');
  template.id = freeId(ed);
  if ('arrival' in template) template.arrival = (arrivals.length ? Math.max(...arrivals) : 0) + 500;
  if ('seed' in template) template.seed = (seeds.length ? Math.max(...seeds) : 0) + 1;
  return template;
}

// The first unused letter, then R1, R2, …
function freeId(ed) {
  const used = new Set(ed.rows.map((r) => r.inputs.id.value.trim()));
  let id = Array.from(ID_LETTERS).find((c) => !used.has(c));
  for (let n = 1; !id; n++) if (!used.has('R' + n)) id = 'R' + n;
  return id;
}

function columnNumbers(ed, name) {
  return ed.rows.map((r) => Number(r.inputs[name] ? r.inputs[name].value : NaN)).filter(Number.isFinite);
}

function removeRequest(ed, row) {
  const { rows } = ed;
  if (rows.length <= 1) return;
  const index = rows.indexOf(row);
  const id = row.inputs.id.value.trim() || t('editor.number', { index: index + 1 });
  rows.splice(index, 1);
  row.tr.remove();
  renumber(ed);
  const moved = syncFollow(ed, row);
  updateBadge(ed);
  const next = rows[Math.min(index, rows.length - 1)];
  (next.remove.disabled ? ed.ui.add : next.remove).focus();
  say(ed, t('editor.deletedRequest', { id, moved: moved ? ' ' + moved : '' }));
}

// FOLLOW's choices are the trace's ids. A row keeps its last good id while its cell is being edited,
// so the followed request stays followed through a rename; when it is removed, FOLLOW moves.
// Returns the sentence saying where FOLLOW moved ('' when it did not).
function syncFollow(ed, removedRow) {
  const select = ed.api.controlFor('FOLLOW');
  if (!select) return '';
  const current = select.value;
  const followed = ed.rows.find((r) => r.syncedId === current) || null;
  const choices = followChoices(ed);
  ed.api.setChoices('FOLLOW', choices);
  if (followed && choices.includes(followed.syncedId)) { select.value = followed.syncedId; return ''; }
  if (choices.includes(current)) { select.value = current; return ''; }
  const fallback = choices[0] || '';
  select.value = fallback;
  if (removedRow && current) return t('editor.followedRequestFollow', { fallback, current });
  return '';
}

// Each row's last good id (valid and unique), in row order, once each.
function followChoices(ed) {
  const ids = ed.rows.map((r) => r.inputs.id.value.trim());
  const choices = [];
  for (const row of ed.rows) {
    const id = row.inputs.id.value.trim();
    const good = ed.idPattern.test(id) && ids.filter((x) => x === id).length === 1;
    if (good) row.syncedId = id;
    if (row.syncedId && !choices.includes(row.syncedId)) choices.push(row.syncedId);
  }
  return choices;
}

function updateBadge(ed) {
  const read = readTrace(ed);
  ed.ui.badge.hidden = read.errors.length === 0 && sameAsDefault(ed, read.requests);
}

function say(ed, text) {
  ed.ui.note.textContent = text;
}
