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
// Text from the address is only ever shown with textContent.

import { make } from '../core/dom.js';
import { formatValue } from '../core/fields.js';
import { REQUESTS, decodeRequests, parseAddressValue, queryFor, shorten } from '../core/share-state.js';
import { t } from '../words/i18n.js';

const TRACE_FILE = 'inference-lab-trace.json';

export function init(api) {
  const editor = api.tool('editor');
  let lastTrace = null;
  const ui = buildUi();

  api.address.register('*', { apply: applyConstants, write: constantsOf });
  api.on('ready', () => { ui.copy.disabled = false; });
  api.on('address', showOutcome);
  api.on('result', (result) => {
    lastTrace = result && result.trace ? result.trace : null;
    ui.download.disabled = !lastTrace;
    ui.addressNote.hidden = true;
  });

  // ── the toolbar under the status line ──────────────────────────────────────
  function buildUi() {
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
    copy.addEventListener('click', copyLink);
    download.addEventListener('click', downloadTrace);

    const addressNote = make('div', { class: 'address-note', id: 'address-note', role: 'alert', hidden: true });
    api.beforeControls(addressNote);
    return { copy, download, note, linkBox, linkField, addressNote };
  }

  // ── address <-> config ─────────────────────────────────────────────────────
  // The constants (and the trace) of `config` that differ from the defaults, as address parameters.
  function constantsOf(config) {
    const trace = editor && editor.name() ? { columns: editor.columns().map((c) => c.name), sameAsDefault: editor.sameAsDefault } : null;
    return Array.from(new URLSearchParams(queryFor(config, api.fields(), trace)));
  }

  // The address's constants and REQUESTS (the names no other part claimed) into the controls and
  // the request editor (static/core/address.js calls it once Python is ready, and again when the
  // visitor goes back or forward to another address); what is invalid goes to ctx.problem.
  function applyConstants(names, params, ctx) {
    const fields = api.fields();
    const report = (name, text, besideField) => {
      ctx.problem(name, text);
      if (besideField) api.setFieldError(name, besideField);
      const control = api.controlFor(name);
      if (control) api.openAdvanced(control);
    };

    if (names.includes(REQUESTS)) {
      const raw = params.getAll(REQUESTS).pop();
      if (!editor || !editor.name()) {
        report(REQUESTS, t('share.runnerHasNoRequest'));
      } else {
        const columns = editor.columns();
        const decoded = decodeRequests(raw, columns.map((c) => c.name), columns.filter((c) => !c.optional).length);
        const found = decoded.error ? [{ field: REQUESTS, message: decoded.error }] : editor.validate(decoded.requests);
        if (found.length) {
          const detail = found.slice(0, 4).map((p) => (p.field === REQUESTS ? '' : p.field + ': ') + p.message).join(' ');
          const more = found.length > 4 ? t('share.moreErrors', { found: found.length - 4 }) : '';
          report(REQUESTS, t('share.traceAddressInvalid', { detail, more }),
            t('share.traceAddressInvalid2', { detail, more }));
          editor.setTrace(editor.defaultTrace());
        } else {
          editor.setTrace(decoded.requests);
          editor.open();
          ctx.restored(REQUESTS + ' (' + decoded.requests.length + t('share.requests'));
        }
      }
    }
    for (const name of names) {
      if (name === REQUESTS) continue;
      const field = fields.find((f) => f.name === name);
      const values = params.getAll(name);
      const raw = values[values.length - 1];
      if (!field) { report(name, t('share.noConstantNameIgnored')); continue; }
      const control = api.controlFor(name);
      const parsed = parseAddressValue(field, values);
      if (parsed.error) {
        const fallback = formatValue(field.default);
        control.value = fallback;
        if (control.value !== fallback && control.options && control.options.length) control.selectedIndex = 0;
        report(name, t('share.invalidDefaultUsed', { raw: shorten(raw), error: parsed.error, value: control.value || fallback }),
          t('share.valueAddressInvalid', { raw: shorten(raw), error: parsed.error, value: control.value || fallback }));
      } else {
        control.value = formatValue(parsed.value);
        api.openAdvanced(control);
        ctx.restored(name + '=' + formatValue(parsed.value));
      }
    }
    // FOLLOW left at its default must still name a request of the restored trace.
    const follow = fields.find((f) => f.type === 'choice' && f.name === 'FOLLOW');
    if (follow && !names.includes(follow.name)) {
      const control = api.controlFor(follow.name);
      if (control && !(follow.choices || []).includes(formatValue(follow.default))) {
        report(follow.name, t('share.traceAddressHasNo', { default: follow.default, value: control.value }),
          t('share.traceAddressHasNo2', { default: follow.default, value: control.value }));
      }
    }
  }

  // What applying the address came to (app.js runs it when nothing was invalid).
  function showOutcome({ problems, restored }) {
    ui.addressNote.hidden = true;
    if (problems.length) {
      showAddressProblems(problems);
      api.setNote(t('share.notRunPageAddressHas'));
      return;
    }
    ui.note.textContent = restored.length ? t('share.restoredFromPage', { restored: restored.join(', ') }) : '';
  }

  function showAddressProblems(problems) {
    const box = ui.addressNote;
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
  async function copyLink() {
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
    let copied = false;
    try {
      if (navigator.clipboard && window.isSecureContext) {
        await navigator.clipboard.writeText(href);
        copied = true;
      }
    } catch (err) {
      copied = false;
    }
    if (!copied) {
      ui.linkField.focus();
      ui.linkField.select();
      try { copied = document.execCommand('copy'); } catch (err) { copied = false; }
    }
    ui.note.textContent = copied
      ? t('share.linkCopied')
      : t('share.browserDoesNotAllow');
    if (copied) ui.copy.dataset.copied = 'true';
  }

  // ── trace download ─────────────────────────────────────────────────────────
  function downloadTrace() {
    if (!lastTrace) return;
    const text = typeof lastTrace === 'string' ? lastTrace : JSON.stringify(lastTrace);
    const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
    const link = make('a', { href: url, download: TRACE_FILE, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 30000);
    ui.note.textContent = t('share.downloadedOpenPerfetto', { TRACE_FILE });
  }

  return { addressFor: api.address.href };
}
