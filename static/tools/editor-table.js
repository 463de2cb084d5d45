// The request editor's elements: the fold with its table head, the column legend, one row of inputs per
// request, and renumber() which keeps every row's hooks and labels in row order.
// Hooks: each cell's input carries data-request-field="<index>.<column>".
// Leaves out: what the rows hold and when they change (editor.js) and the messages beside the cells
// (editor-notes.js). Everything from the user or the engine goes in as textContent.

import { make } from '../core/dom.js';
import { columnBoundsText, formatValue } from '../core/fields.js';
import { t } from '../words/i18n.js';
import { describe, fieldName } from './editor-notes.js';

/** Builds the fold into ed.ui (fold, badge, tbody, listErrors, add, reset, note); on.add / on.reset
 *  are the two buttons' actions. */
export function buildFold(ed, on) {
  const { spec, ui } = ed;
  ui.fold = make('details', { class: 'requests-editor', id: 'requests-editor' });
  ui.badge = make('span', { class: 'edited-badge', hidden: true }, t('editor.edited'));
  ui.tbody = make('tbody');
  ui.listErrors = make('div', { class: 'requests-errors' });
  ui.add = make('button', { type: 'button', class: 'btn', 'data-action': 'add-request' }, t('editor.addRequest'));
  ui.reset = make('button', { type: 'button', class: 'btn', 'data-action': 'reset-requests' }, t('editor.restoreDefaultTrace'));
  ui.note = make('span', { class: 'editor-note', 'aria-live': 'polite' });
  const actions = make('div', { class: 'editor-actions' });
  actions.append(ui.add, ui.reset, ui.note);
  ui.fold.append(summary(ed), intro(spec), tableScroller(spec, ui.tbody), ui.listErrors, actions, legend(spec.columns));
  ui.add.addEventListener('click', on.add);
  ui.reset.addEventListener('click', on.reset);
}

function summary(ed) {
  const el = make('summary');
  el.append(make('span', { class: 'editor-title' }, t('editor.requestTrace')), ' ',
    make('span', { class: 'summary-note' }, t('editor.editAddRemoveRequests', { name: ed.spec.name })), ' ', ed.ui.badge);
  return el;
}

function intro(spec) {
  const el = make('p', { class: 'help' }, t('editor.mostRequestsEditCells', { help: spec.help ? spec.help + ' ' : '', max_items: spec.max_items }));
  if (spec.alphabet) {
    el.append(t('editor.tokenizerOnlyKnows'), make('code', {}, spec.alphabet.split('').join(' ')),
      t('editor.learnedFrom5Sample'));
  }
  return el;
}

function tableScroller(spec, tbody) {
  const table = make('table', { class: 'requests-table' });
  const caption = make('caption', { class: 'visually-hidden' }, t('editor.traceSRequestsOnePer'));
  const thead = make('thead');
  thead.append(headRow(spec.columns));
  table.append(caption, thead, tbody);
  const scroller = make('div', { class: 'requests-scroll' });
  scroller.append(table);
  return scroller;
}

function headRow(columns) {
  const row = make('tr');
  for (const col of columns) {
    const th = make('th', { scope: 'col', title: col.help || '' }, col.label || col.name);
    if (col.label && col.label !== col.name) th.append(make('span', { class: 'col-name' }, col.name));
    row.append(th);
  }
  const removeHead = make('th', { scope: 'col', class: 'col-remove' });
  removeHead.append(make('span', { class: 'visually-hidden' }, t('editor.delete')));
  row.append(removeHead);
  return row;
}

// What each column means and its bounds, from the schema (also the only place bounds are shown).
function legend(columns) {
  const fold = make('details', { class: 'requests-legend' });
  fold.append(make('summary', {}, t('editor.whatEachColumnMeans')));
  const list = make('dl');
  for (const col of columns) {
    const bounds = columnBoundsText(col);
    list.append(make('dt', {}, (col.label || col.name) + (col.label && col.label !== col.name ? ' (' + col.name + ')' : '')),
      make('dd', {}, [col.help, bounds].filter(Boolean).join(' ')));
  }
  fold.append(list);
  return fold;
}

/** Appends a row for `values` to the table and to ed.rows: {tr, inputs: {column: input}, syncedId, remove};
 *  on.input(row, col) and on.remove(row) are its cells' and button's actions. */
export function addRow(ed, values, on) {
  const tr = make('tr');
  const row = { tr, inputs: {}, syncedId: null };
  for (const col of ed.spec.columns) tr.append(cell(ed.rows.length, col, values, row, on));
  const remove = make('button', { type: 'button', class: 'btn small', 'data-action': 'remove-request' }, t('editor.delete'));
  remove.addEventListener('click', () => on.remove(row));
  const td = make('td', { class: 'col-remove' });
  td.append(remove);
  tr.append(td);
  row.remove = remove;
  ed.rows.push(row);
  ed.ui.tbody.append(tr);
  return row;
}

function cell(index, col, values, row, on) {
  const td = make('td', { 'data-label': col.label || col.name, class: 'col-' + col.name });
  const numeric = col.type === 'int' || col.type === 'float';
  const input = make('input', {
    type: 'text', autocomplete: 'off', spellcheck: 'false',
    inputmode: numeric ? (col.type === 'int' ? 'numeric' : 'decimal') : undefined,
    'data-request-field': index + '.' + col.name,
  });
  input.value = formatValue(values[col.name]);
  input.addEventListener('input', () => on.input(row, col));
  td.append(input);
  row.inputs[col.name] = input;
  return td;
}

// Indexes, names and labels follow the row order (after a removal too).
export function renumber(ed) {
  const { rows, spec, ui } = ed;
  rows.forEach((row, i) => renumberRow(ed, row, i));
  ui.add.disabled = rows.length >= spec.max_items;
  ui.add.title = ui.add.disabled ? t('editor.alreadyRequestsMaximum', { max_items: spec.max_items }) : '';
}

function renumberRow(ed, row, i) {
  const id = row.inputs.id ? row.inputs.id.value.trim() : '';
  const who = t('editor.request', { number: i + 1, id: id ? ' (' + id + ')' : '' });
  for (const col of ed.spec.columns) renumberCell(ed, row.inputs[col.name], i, col, who);
  row.remove.setAttribute('aria-label', t('editor.delete2', { who: who.toLowerCase() }));
  row.remove.disabled = ed.rows.length <= 1;
}

function renumberCell(ed, input, i, col, who) {
  input.dataset.requestField = i + '.' + col.name;
  input.id = 'req-' + i + '-' + col.name;
  input.setAttribute('aria-label', who + ': ' + (col.label || col.name));
  const error = input.parentNode.querySelector('.field-error');
  if (error) { error.dataset.errorFor = fieldName(ed, i, col.name); error.id = input.id + '-error'; }
  const warning = input.parentNode.querySelector('.field-warning');
  if (warning) { warning.dataset.warningFor = fieldName(ed, i, col.name); warning.id = input.id + '-warning'; }
  describe(input);
}
