// Shareable runs and trace export.
// - The constants that differ from their defaults live in the page address as a query string,
//   e.g. ?SLOTS=3&QUEUE_LIMIT=2; an edited request trace goes under REQUESTS= as base64url JSON
//   (one array per request, columns in describe()'s order). This tool is the address's '*' part
//   (static/core/address.js owns the address; other tools register their own parameters, such as
//   PATCH= and ?step=N): after each run the owner writes the address; opening an address (or going
//   back to one) restores the controls and runs once Python is ready. A value that is not valid is
//   reported (near the controls and beside its field), replaced by its default, and nothing runs.
// - "Sao chép liên kết" (data-action="copy-link") copies the address of the current controls.
// - "Tải trace (Perfetto)" (data-action="download-trace") saves the last run's Chrome trace-event
//   JSON (web.run's "trace") as inference-lab-trace.json.
// A tool of static/core/lab-api.js (uses the 'editor' tool); the address format is static/core/share-state.js.
// Text from the address is only ever shown with textContent. The tool's state is one object (`sh`) that
// the functions below take explicitly.

import { make } from '../core/dom.js';
import { formatValue } from '../core/fields.js';
import { REQUESTS, decodeRequests, parseAddressValue, queryFor, shorten } from '../core/share-state.js';
import { t } from '../words/i18n.js';

const TRACE_FILE = 'inference-lab-trace.json';
const CLOCK = 'CLOCK'; // the constant whose change moves other controls' defaults (schema.py roofline_default)

export function init(api) {
  const sh = { api, editor: api.tool('editor'), lastTrace: null, ui: null };
  sh.ui = buildUi(sh);
  api.address.register('*', { apply: (names, params, ctx) => applyConstants(sh, names, params, ctx), write: (config) => constantsOf(sh, config) });
  api.on('ready', () => { sh.ui.copy.disabled = false; });
  api.on('address', (outcome) => finishRestore(sh, outcome));
  api.on('result', (result) => onResult(sh, result));
  return { addressFor: api.address.href };
}

function onResult(sh, result) {
  sh.lastTrace = result && result.trace ? result.trace : null;
  // a long run's result has no trace: the worker words it when asked (py/inference_lab/entrypoints/web.py trace_json)
  const steps = result && result.report && result.report.steps;
  sh.traceOnRequest = !sh.lastTrace && Boolean(steps && steps.narration === 'on_request');
  sh.ui.download.disabled = !sh.lastTrace && !sh.traceOnRequest;
  sh.ui.addressNote.hidden = true;
}

// ── the toolbar under the status line ──────────────────────────────────────
function buildUi(sh) {
  const { api } = sh;
  const copy = make('button', { type: 'button', class: 'btn', 'data-action': 'copy-link', disabled: true }, t('share.copyLink'));
  const download = make('button', {
    type: 'button', class: 'btn', 'data-action': 'download-trace', disabled: true,
    title: t('share.traceLastRunChrome'),
  }, t('share.downloadTracePerfetto'));
  const note = make('span', { class: 'tools-note', 'aria-live': 'polite' });
  const linkBox = make('p', { class: 'share-link', hidden: true });
  const linkField = make('input', { type: 'text', id: 'share-url', readonly: true, 'data-share-url': '', spellcheck: 'false' });
  linkBox.append(make('label', { for: 'share-url' }, t('share.linkCurrentConfig')), linkField);
  const group = make('div', { class: 'tool-group share-tools' });
  group.append(copy, download, note);
  api.addToToolbar(group, 0);
  api.addToToolbar(linkBox, 9);
  copy.addEventListener('click', () => copyLink(sh));
  download.addEventListener('click', () => downloadTrace(sh));
  const addressNote = make('div', { class: 'address-note', id: 'address-note', role: 'alert', hidden: true });
  api.beforeControls(addressNote);
  return { copy, download, note, linkBox, linkField, addressNote };
}

// ── address <-> config ─────────────────────────────────────────────────────
// The constants (and the trace) of `config` that differ from the defaults, as address parameters.
function constantsOf(sh, config) {
  const { api, editor } = sh;
  const trace = editor && editor.name()
    ? { columns: editor.columns().map((c) => c.name), sameAsDefault: editor.sameAsDefault }
    : null;
  return Array.from(new URLSearchParams(queryFor(config, api.fields(), trace)));
}

// The address's constants and REQUESTS (the names no other part claimed) into the controls and the
// request editor (static/core/address.js calls it once Python is ready, and again when the visitor
// goes back or forward to another address); what is invalid or restored goes to ctx.
function applyConstants(sh, names, params, ctx) {
  const log = restoreLog(sh.api);
  if (names.includes(REQUESTS)) applyTrace(sh, params.getAll(REQUESTS).pop(), log);
  // CLOCK first, as if the visitor picked it: the fields with a roofline default follow it (POOL_BLOCKS=auto…),
  // then the address's own values of those fields win
  const ordered = [
    ...names.filter((name) => name === CLOCK), ...names.filter((name) => name !== CLOCK && name !== REQUESTS),
  ];
  for (const name of ordered) applyConstant(sh, name, params.getAll(name), log);
  checkFollow(sh, names, log);
  for (const p of log.problems) ctx.problem(p.name, p.text);
  for (const text of log.restored) ctx.restored(text);
}

// What restoring found: problems [{name, text}] for the note near the controls (report() also puts
// `besideField` beside the field and opens its group), and what was restored.
function restoreLog(api) {
  const log = { problems: [], restored: [] };
  log.report = (name, text, besideField) => {
    log.problems.push({ name, text });
    if (besideField) api.setFieldError(name, besideField);
    const control = api.controlFor(name);
    if (control) api.openAdvanced(control);
  };
  return log;
}

// REQUESTS=: into the request editor when valid, else the default trace and a problem.
function applyTrace(sh, raw, log) {
  const { editor } = sh;
  if (!editor || !editor.name()) { log.report(REQUESTS, t('share.runnerHasNoRequest')); return; }
  const columns = editor.columns();
  const decoded = decodeRequests(raw, columns.map((c) => c.name), columns.filter((c) => !c.optional).length);
  const found = decoded.error ? [{ field: REQUESTS, message: decoded.error }] : editor.validate(decoded.requests);
  if (found.length) {
    const detail = found.slice(0, 4).map((p) => (p.field === REQUESTS ? '' : p.field + ': ') + p.message).join(' ');
    const more = found.length > 4 ? t('share.moreErrors', { found: found.length - 4 }) : '';
    log.report(REQUESTS, t('share.traceAddressInvalid', { detail, more }),
      t('share.traceAddressInvalid2', { detail, more }));
    editor.setTrace(editor.defaultTrace());
    return;
  }
  editor.setTrace(decoded.requests);
  editor.open();
  log.restored.push(REQUESTS + ' (' + decoded.requests.length + t('share.requests'));
}

// NAME=value: into its control when valid, else its default and a problem.
function applyConstant(sh, name, values, log) {
  const { api } = sh;
  const field = api.fields().find((f) => f.name === name);
  const raw = values[values.length - 1];
  if (!field) { log.report(name, t('share.noConstantNameIgnored')); return; }
  const control = api.controlFor(name);
  const parsed = parseAddressValue(field, values);
  if (parsed.error) {
    const fallback = formatValue(field.default);
    control.value = fallback;
    if (control.value !== fallback && control.options && control.options.length) control.selectedIndex = 0;
    log.report(name, t('share.invalidDefaultUsed', { raw: shorten(raw), error: parsed.error, value: control.value || fallback }),
      t('share.valueAddressInvalid', { raw: shorten(raw), error: parsed.error, value: control.value || fallback }));
    return;
  }
  control.value = formatValue(parsed.value);
  if (name === CLOCK) control.dispatchEvent(new Event('change')); // its defaults follow (static/core/controls.js)
  api.openAdvanced(control);
  log.restored.push(name + '=' + formatValue(parsed.value));
}

// FOLLOW left at its default must still name a request of the restored trace.
function checkFollow(sh, names, log) {
  const { api } = sh;
  const follow = api.fields().find((f) => f.type === 'choice' && f.name === 'FOLLOW');
  if (!follow || names.includes(follow.name)) return;
  const control = api.controlFor(follow.name);
  if (control && !(follow.choices || []).includes(formatValue(follow.default))) {
    log.report(follow.name, t('share.traceAddressHasNo', { default: follow.default, value: control.value }),
      t('share.traceAddressHasNo2', { default: follow.default, value: control.value }));
  }
}

// What applying the address came to (app.js runs it when nothing was invalid).
function finishRestore(sh, { problems, restored }) {
  sh.ui.addressNote.hidden = true;
  if (problems.length) {
    showAddressProblems(sh.ui.addressNote, problems);
    sh.api.setNote(t('share.notRunPageAddressHas'));
    return;
  }
  sh.ui.note.textContent = restored.length ? t('share.restoredFromPage', { restored: restored.join(', ') }) : '';
}

function showAddressProblems(box, problems) {
  box.replaceChildren(make('p', { class: 'error-title' },
    t('share.pageAddressHasInvalid', { nProblems: problems.length })));
  const list = make('ul');
  for (const p of problems) {
    const item = make('li');
    item.append(make('code', {}, shorten(p.name)), ': ' + p.text);
    list.append(item);
  }
  box.append(list, make('p', {}, t('share.thoseFieldsWereReset')));
  box.hidden = false;
}

// ── copy link ──────────────────────────────────────────────────────────────
async function copyLink(sh) {
  const { api, ui } = sh;
  ui.note.textContent = '';
  const { config, errors } = api.readConfig();
  if (errors.length) {
    for (const e of errors) api.setFieldError(e.field, e.message);
    ui.note.textContent = t('share.notCopiedFirstFix', { nErrors: errors.length });
    return;
  }
  const href = api.address.href(config);
  api.address.replace(href);
  ui.linkField.value = href;
  ui.linkBox.hidden = false;
  const copied = await copyText(href, ui.linkField);
  ui.note.textContent = copied
    ? t('share.linkCopied')
    : t('share.browserDoesNotAllow');
  if (copied) ui.copy.dataset.copied = 'true';
}

// The clipboard API where the page may use it, else the selected field and execCommand('copy').
async function copyText(text, field) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch (err) {
    // fall back to the field below
  }
  field.focus();
  field.select();
  try { return document.execCommand('copy'); } catch (err) { return false; }
}

// ── trace download ─────────────────────────────────────────────────────────
async function downloadTrace(sh) {
  if (!sh.lastTrace && sh.traceOnRequest && sh.api.traceText) sh.lastTrace = await sh.api.traceText();
  const { lastTrace } = sh;
  if (!lastTrace) return;
  const text = typeof lastTrace === 'string' ? lastTrace : JSON.stringify(lastTrace);
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const link = make('a', { href: url, download: TRACE_FILE, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30000);
  sh.ui.note.textContent = t('share.downloadedOpenPerfetto', { TRACE_FILE });
}
