// Request editor: the trace REQUESTS (A–E by default) as an editable table next to the constants.
// Built from describe()'s REQUESTS entry (columns with labels, help and bounds, max_items, default,
// alphabet = the characters the tokenizer knows), so nothing about the trace is written here twice.
// The table's inputs are the state; Run reads them through the 'config' event and sends REQUESTS.
// Hooks: each cell's input carries data-request-field="<index>.<column>"; an error beside a cell
// carries data-error-for="REQUESTS[<index>].<column>" (the engine's own field names).
// A tool of static/core/lab-api.js; the cells' parsing and messages are static/core/fields.js's.
// Everything from the user or the engine goes in as textContent.

import { make } from '../core/dom.js';
import { cellName, columnBoundsText, formatValue, idPattern, parseTrace, unknownChars, unknownCharsWarning, validateRequests } from '../core/fields.js';
import { t } from '../words/i18n.js';

const ID_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const FIELD_NAME = /^REQUESTS(?:\[(\d+)\](?:\.(\w+))?)?$/;

export function init(api) {
  let ID_PATTERN = null;    // the id column's pattern from describe() (schema.py)
  let spec = null;          // describe()'s REQUESTS entry
  let rows = [];            // [{tr, inputs: {column: input}, syncedId}]
  let lastRun = null;       // the REQUESTS of the last run, to tell whether a run note still applies
  const ui = {};

  api.on('ready', ({ schema }) => {
    if (spec) return; // a restarted worker: keep the table as the user left it
    const entry = (schema || []).find((f) => f && f.type === 'requests' && Array.isArray(f.columns));
    if (!entry) return;
    spec = entry;
    ID_PATTERN = idPattern(entry);
    build();
    setTrace(defaultTrace());
  });
  api.on('config', (config, errors) => {
    if (!spec) return;
    const read = readTrace();
    if (read.errors.length) errors.push(...read.errors);
    else config[spec.name] = read.requests;
  });
  api.on('reset', () => { if (spec) { setTrace(defaultTrace()); say(''); } });
  api.on('clearErrors', clearErrors);
  api.on('fieldError', placeError);
  api.on('result', (result, config) => { if (spec) noteRefusals(result, config); });

  // ── building ───────────────────────────────────────────────────────────────
  function build() {
    const columns = spec.columns;
    ui.fold = make('details', { class: 'requests-editor', id: 'requests-editor' });
    ui.badge = make('span', { class: 'edited-badge', hidden: true }, t('editor.edited'));
    const summary = make('summary');
    summary.append(make('span', { class: 'editor-title' }, t('editor.requestTrace')), ' ',
      make('span', { class: 'summary-note' }, t('editor.editAddRemoveRequests', { name: spec.name })), ' ', ui.badge);
    const intro = make('p', { class: 'help' }, t('editor.mostRequestsEditCells', { help: spec.help ? spec.help + ' ' : '', max_items: spec.max_items }));
    if (spec.alphabet) {
      intro.append(t('editor.tokenizerOnlyKnows'), make('code', {}, spec.alphabet.split('').join(' ')),
        t('editor.learnedFrom5Sample'));
    }
    const headRow = make('tr');
    for (const col of columns) {
      const th = make('th', { scope: 'col', title: col.help || '' }, col.label || col.name);
      if (col.label && col.label !== col.name) th.append(make('span', { class: 'col-name' }, col.name));
      headRow.append(th);
    }
    const removeHead = make('th', { scope: 'col', class: 'col-remove' });
    removeHead.append(make('span', { class: 'visually-hidden' }, t('editor.delete')));
    headRow.append(removeHead);
    ui.tbody = make('tbody');
    const table = make('table', { class: 'requests-table' });
    const caption = make('caption', { class: 'visually-hidden' }, t('editor.traceSRequestsOnePer'));
    const thead = make('thead');
    thead.append(headRow);
    table.append(caption, thead, ui.tbody);
    const scroller = make('div', { class: 'requests-scroll' });
    scroller.append(table);
    ui.listErrors = make('div', { class: 'requests-errors' });
    ui.add = make('button', { type: 'button', class: 'btn', 'data-action': 'add-request' }, t('editor.addRequest'));
    ui.reset = make('button', { type: 'button', class: 'btn', 'data-action': 'reset-requests' }, t('editor.restoreDefaultTrace'));
    ui.note = make('span', { class: 'editor-note', 'aria-live': 'polite' });
    const actions = make('div', { class: 'editor-actions' });
    actions.append(ui.add, ui.reset, ui.note);
    ui.fold.append(summary, intro, scroller, ui.listErrors, actions, legend(columns));
    ui.add.addEventListener('click', addRequest);
    ui.reset.addEventListener('click', () => {
      clearErrors();
      setTrace(defaultTrace());
      say(t('editor.defaultTraceRestored', { ids: defaultTrace().map((r) => r.id).join(', ') }));
    });
    api.insertControls(ui.fold);
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

  function addRow(values) {
    const index = rows.length;
    const tr = make('tr');
    const row = { tr, inputs: {}, syncedId: null };
    for (const col of spec.columns) {
      const td = make('td', { 'data-label': col.label || col.name, class: 'col-' + col.name });
      const numeric = col.type === 'int' || col.type === 'float';
      const input = make('input', {
        type: 'text', autocomplete: 'off', spellcheck: 'false',
        inputmode: numeric ? (col.type === 'int' ? 'numeric' : 'decimal') : undefined,
        'data-request-field': index + '.' + col.name,
      });
      input.value = formatValue(values[col.name]);
      input.addEventListener('input', () => onInput(row, col));
      td.append(input);
      tr.append(td);
      row.inputs[col.name] = input;
    }
    const remove = make('button', { type: 'button', class: 'btn small', 'data-action': 'remove-request' }, t('editor.delete'));
    remove.addEventListener('click', () => removeRequest(row));
    const td = make('td', { class: 'col-remove' });
    td.append(remove);
    tr.append(td);
    row.remove = remove;
    rows.push(row);
    ui.tbody.append(tr);
    return row;
  }

  // Indexes, names and labels follow the row order (after a removal too).
  function renumber() {
    rows.forEach((row, i) => {
      const id = row.inputs.id ? row.inputs.id.value.trim() : '';
      const who = t('editor.request', { number: i + 1, id: id ? ' (' + id + ')' : '' });
      for (const col of spec.columns) {
        const input = row.inputs[col.name];
        input.dataset.requestField = i + '.' + col.name;
        input.id = 'req-' + i + '-' + col.name;
        input.setAttribute('aria-label', who + ': ' + (col.label || col.name));
        const error = input.parentNode.querySelector('.field-error');
        if (error) { error.dataset.errorFor = fieldName(i, col.name); error.id = input.id + '-error'; }
        const warning = input.parentNode.querySelector('.field-warning');
        if (warning) { warning.dataset.warningFor = fieldName(i, col.name); warning.id = input.id + '-warning'; }
        describe(input);
      }
      row.remove.setAttribute('aria-label', t('editor.delete2', { who: who.toLowerCase() }));
      row.remove.disabled = rows.length <= 1;
    });
    ui.add.disabled = rows.length >= spec.max_items;
    ui.add.title = ui.add.disabled ? t('editor.alreadyRequestsMaximum', { max_items: spec.max_items }) : '';
  }

  function fieldName(index, column) {
    return cellName(spec.name, index, column);
  }

  // ── the trace as data ──────────────────────────────────────────────────────
  function defaultTrace() {
    return (spec.default || []).map((r) => Object.assign({}, r));
  }

  function setTrace(requests) {
    rows = [];
    ui.tbody.replaceChildren();
    for (const r of requests) addRow(r);
    renumber();
    for (const row of rows) showWarning(row);
    syncFollow(null);
    updateBadge();
  }

  // Parses every cell; {requests, errors: [{field, message}]} (errors name the engine's fields).
  function readTrace() {
    return parseTrace(spec, rows.map((row) => Object.fromEntries(spec.columns.map((col) => [col.name, row.inputs[col.name].value]))));
  }

  // Validates a whole list of requests (from the address): [] or [{field, message}].
  function validate(requests) {
    return validateRequests(spec, requests);
  }

  function sameAsDefault(requests) {
    return JSON.stringify(normalize(requests)) === JSON.stringify(normalize(defaultTrace()));
  }

  function normalize(requests) {
    return (requests || []).map((r) => spec.columns.map((col) => (r ? r[col.name] : undefined)));
  }

  // ── editing ────────────────────────────────────────────────────────────────
  function onInput(row, col) {
    setCellError(row, col.name, null);
    if (col.name === 'id') { renumber(); syncFollow(null); }
    if (col.name === 'text') showWarning(row);
    updateBadge();
  }

  function addRequest() {
    if (rows.length >= spec.max_items) return;
    const used = new Set(rows.map((r) => r.inputs.id.value.trim()));
    let id = Array.from(ID_LETTERS).find((c) => !used.has(c));
    for (let n = 1; !id; n++) if (!used.has('R' + n)) id = 'R' + n;
    const defaults = defaultTrace();
    const template = Object.assign({}, defaults[defaults.length - 1] || {});
    const numbers = (name) => rows.map((r) => Number(r.inputs[name] ? r.inputs[name].value : NaN)).filter(Number.isFinite);
    const arrivals = numbers('arrival');
    const seeds = numbers('seed');
    template.id = id;
    if ('arrival' in template) template.arrival = (arrivals.length ? Math.max(...arrivals) : 0) + 500;
    if ('seed' in template) template.seed = (seeds.length ? Math.max(...seeds) : 0) + 1;
    const row = addRow(template);
    renumber();
    showWarning(row);
    syncFollow(null);
    updateBadge();
    (row.inputs.text || row.inputs.id).focus();
    say(t('editor.addedRequestRowEdit', { id, nRows: rows.length }));
  }

  function removeRequest(row) {
    if (rows.length <= 1) return;
    const index = rows.indexOf(row);
    const id = row.inputs.id.value.trim() || t('editor.number', { index: index + 1 });
    rows.splice(index, 1);
    row.tr.remove();
    renumber();
    const moved = syncFollow(row);
    updateBadge();
    const next = rows[Math.min(index, rows.length - 1)];
    (next.remove.disabled ? ui.add : next.remove).focus();
    say(t('editor.deletedRequest', { id, moved: moved ? ' ' + moved : '' }));
  }

  // FOLLOW's choices are the trace's ids. A row keeps its last good id while its cell is being edited,
  // so the followed request stays followed through a rename; when it is removed, FOLLOW moves.
  function syncFollow(removedRow) {
    const select = api.controlFor('FOLLOW');
    if (!select) return '';
    const current = select.value;
    const followed = rows.find((r) => r.syncedId === current) || null;
    const ids = rows.map((r) => r.inputs.id.value.trim());
    const choices = [];
    for (const row of rows) {
      const id = row.inputs.id.value.trim();
      const good = ID_PATTERN.test(id) && ids.filter((x) => x === id).length === 1;
      if (good) row.syncedId = id;
      if (row.syncedId && !choices.includes(row.syncedId)) choices.push(row.syncedId);
    }
    api.setChoices('FOLLOW', choices);
    if (followed && choices.includes(followed.syncedId)) { select.value = followed.syncedId; return ''; }
    if (choices.includes(current)) { select.value = current; return ''; }
    const fallback = choices[0] || '';
    select.value = fallback;
    if (removedRow && current) return t('editor.followedRequestFollow', { fallback, current });
    return '';
  }

  function updateBadge() {
    const read = readTrace();
    ui.badge.hidden = read.errors.length === 0 && sameAsDefault(read.requests);
  }

  function say(text) {
    ui.note.textContent = text;
  }

  // ── messages beside the cells ──────────────────────────────────────────────
  function setCellError(row, column, message) {
    const input = row.inputs[column];
    if (!input) return null;
    const td = input.parentNode;
    const old = td.querySelector('.field-error');
    if (old) old.remove();
    if (!message) {
      input.removeAttribute('aria-invalid');
      describe(input);
      return null;
    }
    const index = rows.indexOf(row);
    const error = make('p', { class: 'field-error', id: input.id + '-error', 'data-error-for': fieldName(index, column) }, message);
    input.after(error);
    input.setAttribute('aria-invalid', 'true');
    describe(input);
    return input;
  }

  function setCellWarning(row, column, message) {
    const input = row.inputs[column];
    if (!input) return;
    const old = input.parentNode.querySelector('.field-warning');
    if (old) old.remove();
    if (message) {
      const index = rows.indexOf(row);
      const warning = make('p', { class: 'field-warning', id: input.id + '-warning', 'data-warning-for': fieldName(index, column) }, message);
      input.parentNode.append(warning);
    }
    describe(input);
  }

  function describe(input) {
    const ids = ['.field-error', '.field-warning'].map((sel) => input.parentNode.querySelector(sel)).filter(Boolean).map((node) => node.id);
    if (ids.length) input.setAttribute('aria-describedby', ids.join(' '));
    else input.removeAttribute('aria-describedby');
  }

  // Unknown characters: a warning, not an error — the run goes ahead and block 2 shows the 400,
  // which is exactly what the lab teaches (the engine names the characters too).
  function showWarning(row, runNote) {
    if (!row.inputs.text) return;
    const message = unknownCharsWarning(unknownChars(spec.alphabet, row.inputs.text.value)) || runNote || '';
    setCellWarning(row, 'text', message);
  }

  // After a run: requests refused 400 for pieces the vocabulary lacks although every character is
  // known (e.g. the word "xi") get the engine's reason beside their text, while the text is unchanged.
  function noteRefusals(result, config) {
    lastRun = config && Array.isArray(config[spec.name]) ? config[spec.name] : null;
    const report = result && result.report;
    const block2 = report && Array.isArray(report.blocks) ? report.blocks.find((b) => b && b.number === 2) : null;
    const blocked = block2 && block2.data && Array.isArray(block2.data.blocked) ? block2.data.blocked : [];
    for (const row of rows) {
      const id = row.inputs.id.value.trim();
      const hit = blocked.find((b) => b && b.request === id && b.reason === 'unknown');
      const ran = lastRun && lastRun.find((r) => r && r.id === id);
      let note = '';
      if (hit && ran && ran.text === row.inputs.text.value) {
        const pieces = (hit.facts && Array.isArray(hit.facts.pieces) ? hit.facts.pieces : []).map((p) => '“' + p + '”');
        note = t('editor.rejectedPieces', { pieces: pieces.join(', ') || t('editor.pieces') });
      }
      showWarning(row, note);
    }
  }

  function clearErrors() {
    if (!spec) return;
    for (const row of rows) for (const col of spec.columns) setCellError(row, col.name, null);
    ui.listErrors.replaceChildren();
  }

  // Errors named REQUESTS, REQUESTS[i] or REQUESTS[i].column (from Run, the engine or the address).
  function placeError(name, message) {
    if (!spec) return null;
    const match = FIELD_NAME.exec(String(name));
    if (!match || !String(name).startsWith(spec.name)) return null;
    const index = match[1] === undefined ? null : Number(match[1]);
    const row = index === null ? null : rows[index];
    if (row && match[2] && row.inputs[match[2]]) {
      const input = setCellError(row, match[2], message);
      if (message) ui.fold.open = true;
      return input;
    }
    const existing = ui.listErrors.querySelector('[data-error-for="' + CSS.escape(name) + '"]');
    if (existing) existing.remove();
    if (!message) return null;
    const prefix = index === null ? '' : t('editor.request2', { index: index + 1 });
    const text = message.startsWith(t('editor.request3')) || message.startsWith(spec.name) ? message : prefix + message;
    ui.listErrors.append(make('p', { class: 'field-error', 'data-error-for': name }, text));
    ui.fold.open = true;
    return row ? row.inputs.id || ui.add : (rows[0] && rows[0].inputs.id) || ui.add;
  }

  return {
    readTrace, setTrace, validate, sameAsDefault, defaultTrace,
    columns: () => (spec ? spec.columns : []),
    name: () => (spec ? spec.name : null),
    open: () => { if (ui.fold) ui.fold.open = true; },
  };
}
