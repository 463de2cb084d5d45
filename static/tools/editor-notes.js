// The request editor's messages: an error or a warning beside a cell (wired to its input through
// aria-describedby and aria-invalid), the unknown-characters warning, the run's refusals for pieces the
// vocabulary lacks, and errors named REQUESTS, REQUESTS[i] or REQUESTS[i].column placed where they belong.
// Hooks: an error beside a cell carries data-error-for="REQUESTS[<index>].<column>" (the engine's names).
// Leaves out: the wording of the checks (static/core/fields.js) and the table itself (editor-table.js).

import { make } from '../core/dom.js';
import { cellName, unknownChars, unknownCharsWarning } from '../core/fields.js';
import { t } from '../words/i18n.js';

const FIELD_NAME = /^REQUESTS(?:\[(\d+)\](?:\.(\w+))?)?$/;

/** The engine's name of one cell: REQUESTS[<index>].<column>. */
export function fieldName(ed, index, column) {
  return cellName(ed.spec.name, index, column);
}

/** Puts `message` beside the cell (none: clears it); the input when there is one. */
export function setCellError(ed, row, column, message) {
  const input = row.inputs[column];
  if (!input) return null;
  const old = input.parentNode.querySelector('.field-error');
  if (old) old.remove();
  if (!message) {
    input.removeAttribute('aria-invalid');
    describe(input);
    return null;
  }
  const index = ed.rows.indexOf(row);
  const error = make('p', { class: 'field-error', id: input.id + '-error', 'data-error-for': fieldName(ed, index, column) }, message);
  input.after(error);
  input.setAttribute('aria-invalid', 'true');
  describe(input);
  return input;
}

function setCellWarning(ed, row, column, message) {
  const input = row.inputs[column];
  if (!input) return;
  const old = input.parentNode.querySelector('.field-warning');
  if (old) old.remove();
  if (message) {
    const index = ed.rows.indexOf(row);
    const warning = make('p', { class: 'field-warning', id: input.id + '-warning', 'data-warning-for': fieldName(ed, index, column) }, message);
    input.parentNode.append(warning);
  }
  describe(input);
}

/** aria-describedby of an input: the error and warning beside it, if any. */
export function describe(input) {
  const ids = ['.field-error', '.field-warning'].map((sel) => input.parentNode.querySelector(sel)).filter(Boolean).map((node) => node.id);
  if (ids.length) input.setAttribute('aria-describedby', ids.join(' '));
  else input.removeAttribute('aria-describedby');
}

// Unknown characters: a warning, not an error — the run goes ahead and block 2 shows the 400,
// which is exactly what the lab teaches (the engine names the characters too).
export function showWarning(ed, row, runNote) {
  if (!row.inputs.text) return;
  const message = unknownCharsWarning(unknownChars(ed.spec.alphabet, row.inputs.text.value)) || runNote || '';
  setCellWarning(ed, row, 'text', message);
}

// After a run: requests refused 400 for pieces the vocabulary lacks although every character is
// known (e.g. the word "xi") get the engine's reason beside their text, while the text is unchanged.
export function noteRefusals(ed, result, config) {
  ed.lastRun = config && Array.isArray(config[ed.spec.name]) ? config[ed.spec.name] : null;
  const blocked = unknownPieceRefusals(result && result.report);
  for (const row of ed.rows) showWarning(ed, row, refusalNote(ed, row, blocked));
}

function unknownPieceRefusals(report) {
  const block2 = report && Array.isArray(report.blocks) ? report.blocks.find((b) => b && b.number === 2) : null;
  return block2 && block2.data && Array.isArray(block2.data.blocked) ? block2.data.blocked : [];
}

function refusalNote(ed, row, blocked) {
  const id = row.inputs.id.value.trim();
  const hit = blocked.find((b) => b && b.request === id && b.reason === 'unknown');
  const ran = ed.lastRun && ed.lastRun.find((r) => r && r.id === id);
  if (!(hit && ran && ran.text === row.inputs.text.value)) return '';
  const pieces = (hit.facts && Array.isArray(hit.facts.pieces) ? hit.facts.pieces : []).map((p) => '“' + p + '”');
  return t('editor.rejectedPieces', { pieces: pieces.join(', ') || t('editor.pieces') });
}

export function clearErrors(ed) {
  if (!ed.spec) return;
  for (const row of ed.rows) for (const col of ed.spec.columns) setCellError(ed, row, col.name, null);
  ed.ui.listErrors.replaceChildren();
}

// Errors named REQUESTS, REQUESTS[i] or REQUESTS[i].column (from Run, the engine or the address).
// Returns the element to focus (or null).
export function placeError(ed, name, message) {
  if (!ed.spec) return null;
  const match = FIELD_NAME.exec(String(name));
  if (!match || !String(name).startsWith(ed.spec.name)) return null;
  const index = match[1] === undefined ? null : Number(match[1]);
  const row = index === null ? null : ed.rows[index];
  if (row && match[2] && row.inputs[match[2]]) {
    const input = setCellError(ed, row, match[2], message);
    if (message) ed.ui.fold.open = true;
    return input;
  }
  return placeListError(ed, name, message, index, row);
}

// An error of the whole list or of a row: under the table.
function placeListError(ed, name, message, index, row) {
  const { ui, rows } = ed;
  const existing = ui.listErrors.querySelector('[data-error-for="' + CSS.escape(name) + '"]');
  if (existing) existing.remove();
  if (!message) return null;
  const prefix = index === null ? '' : t('editor.request2', { index: index + 1 });
  const text = message.startsWith(t('editor.request3')) || message.startsWith(ed.spec.name) ? message : prefix + message;
  ui.listErrors.append(make('p', { class: 'field-error', 'data-error-for': name }, text));
  ui.fold.open = true;
  return row ? row.inputs.id || ui.add : (rows[0] && rows[0].inputs.id) || ui.add;
}
