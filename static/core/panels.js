// What the page shows of a run and of itself: the run header and the 13 block panels (one <pre> of
// lines each), TỔNG KẾT with the PASS/FAIL verdict and the list of checks, the status line (the
// data-status hook: loading, ready, running, done, error), the page error banner and the versions
// line. Charts (static/charts/, loaded on the first run by the loader app.js hands over) go above a panel's lines.
// Leaves out: deciding when to show what (static/app.js) and the tools' marks (static/tools/compare.js).

import { make } from './dom.js';
import { t } from '../words/i18n.js';

export const BLOCKS = 13;

// Lines go into a <pre>, one block <span> each (hanging indent when a long line wraps). The hidden
// newline between them makes textContent equal the command-line text too (innerText already does).
// A re-run mostly prints the same lines with a few numbers changed, so the spans this function made
// last time are kept and only the text of the lines that differ is replaced (which also clears the
// marks static/tools/compare.js drew in them); lines are added or removed at the end.
const shownLines = new WeakMap(); // pre -> [the .line spans fillLines left in it]

export function fillLines(pre, lines, prefix) {
  const p = prefix || '';
  const old = shownLines.get(pre);
  const stale = !old || !old.length || old[0].parentNode !== pre || pre.childNodes.length !== 2 * old.length - 1;
  if (stale || !lines.length) {
    const frag = document.createDocumentFragment();
    const spans = lines.map((line, i) => {
      if (i > 0) frag.append(make('span', { class: 'nl' }, '\n'));
      return frag.appendChild(make('span', { class: 'line' }, p + line));
    });
    pre.replaceChildren(frag);
    shownLines.set(pre, spans);
    return;
  }
  const keep = Math.min(old.length, lines.length);
  for (let i = 0; i < keep; i++) {
    const span = old[i];
    const text = p + lines[i];
    const only = span.firstChild;
    const same = only && only === span.lastChild && only.nodeType === Node.TEXT_NODE && only.data === text;
    if (!same) span.textContent = text;
  }
  const spans = old.slice(0, keep);
  if (lines.length > keep) {
    const frag = document.createDocumentFragment();
    for (let i = keep; i < lines.length; i++) {
      frag.append(make('span', { class: 'nl' }, '\n'));
      spans.push(frag.appendChild(make('span', { class: 'line' }, p + lines[i])));
    }
    pre.append(frag);
  }
  for (let i = keep; i < old.length; i++) {
    old[i].previousSibling.remove(); // its newline
    old[i].remove();
  }
  shownLines.set(pre, spans);
}

// The run's notes beside the seed's lines (report.notes, words/text_notes.py): where a line the seed prints
// is false or incomplete for this run, a marked note after the section's lines says what is true.
export function fillNotes(pre, notes, part) {
  if (!pre) return;
  let box = pre.nextElementSibling;
  if (!box || !box.classList.contains('run-notes')) box = null;
  const list = Array.isArray(notes) ? notes.map(String) : [];
  if (!list.length) { if (box) box.remove(); return; }
  if (!box) {
    box = make('div', { class: 'run-notes', role: 'note', 'data-notes-for': part }); // a note, not a landmark: it sits inside the block
    pre.after(box);
  }
  box.replaceChildren(...list.map((n) => make('p', { class: 'run-note' }, n)));
}

function asLines(value) {
  return Array.isArray(value) ? value.map(String) : [];
}

// el: {status, statusText, statusDetail, progress, pageError, verdict, summaryLines, checks,
//      checksList, versions, jump, runHeader}
// loadCharts(): a promise of the charts module (static/charts/index.js) or null; its owner is static/app.js.
export function createPanels(el, loadCharts) {
  const blockPanel = (n) => document.querySelector('[data-block="' + n + '"]');

  // ── status line and page error ───────────────────────────────────────────
  function setStatus(status, text, detail, fraction) {
    el.status.dataset.status = status;
    el.statusText.textContent = text;
    el.statusDetail.textContent = detail || '';
    if (fraction === undefined || fraction === null) el.progress.hidden = true;
    else { el.progress.hidden = false; el.progress.value = Math.max(0, Math.min(1, fraction)); }
  }

  // steps: optional [{text, command}] shown as an explanation followed by a command to copy.
  // action: optional {label, onClick} for a button under the message.
  function showPageError(title, message, details, steps, action) {
    el.pageError.replaceChildren(make('p', { class: 'error-title' }, title));
    if (message) el.pageError.append(make('p', {}, message));
    for (const step of steps || []) {
      const line = make('p', { class: 'command' });
      line.append(make('code', {}, step.command));
      el.pageError.append(make('p', {}, step.text), line);
    }
    if (details) {
      const fold = make('details');
      fold.append(make('summary', {}, t('panels.technicalDetails')), make('pre', { class: 'trace', tabindex: '0' }, details));
      el.pageError.append(fold);
    }
    if (action) {
      const button = make('button', { type: 'button', class: 'btn' }, action.label);
      button.addEventListener('click', action.onClick);
      el.pageError.append(button);
    }
    el.pageError.hidden = false;
  }

  function clearPageError() {
    el.pageError.hidden = true;
    el.pageError.replaceChildren();
  }

  function showVersions(versions) {
    el.versions.textContent = t('panels.pythonRunsBrowser', { pyodide: versions.pyodide || '', engine: versions.engine || '' });
  }

  // aria-busy on the panels while a run is in the worker.
  function setBusy(busy) {
    if (busy) document.querySelectorAll('[data-block], #run-header').forEach((node) => node.setAttribute('aria-busy', 'true'));
    else document.querySelectorAll('[aria-busy]').forEach((node) => node.removeAttribute('aria-busy'));
  }

  // ── a run's report ───────────────────────────────────────────────────────
  function renderReport(report) {
    fillLines(el.runHeader.querySelector('pre'), asLines(report.header));
    const notes = report.notes || {};
    fillNotes(el.runHeader.querySelector('pre'), notes.header, 'header');
    if (!el.runHeader.open) el.runHeader.open = true;
    const blocks = new Map((report.blocks || []).map((b) => [String(b.number), b]));
    const panels = [];
    for (let n = 1; n <= BLOCKS; n++) {
      const panel = blockPanel(n);
      const block = blocks.get(String(n));
      const title = panel.querySelector('.panel-title');
      if (block) {
        const heading = '[' + block.code + '] ' + block.title;
        if (title.textContent !== heading) title.textContent = heading;
        fillLines(panel.querySelector('pre'), asLines(block.lines), '   ');
        fillNotes(panel.querySelector('pre'), notes[String(n)], String(n));
        replaysButton(panel, Boolean(block.data && block.data.deferred));
      } else {
        fillLines(panel.querySelector('pre'), [t('panels.runDoesNotPrintBlock', { n })]);
      }
      if (!panel.open) panel.open = true;
      panels.push([panel, n]);
    }
    renderSummary(report);
    showCharts(panels, report);
    el.jump.hidden = false;
  }

  // A deferred block (its data.deferred: Python decides, lab.run_deferred) gets a button data-replays that asks
  // for its replays (static/app.js listens: the worker's 'replays'); any other block has none.
  function replaysButton(panel, deferred) {
    const old = panel.querySelector('[data-replays]');
    if (!deferred) { if (old) old.remove(); return; }
    if (old) return;
    const button = make('button', { type: 'button', class: 'btn', 'data-replays': '',
      title: t('panels.computeReplaysHint') }, t('panels.computeReplays'));
    panel.append(button);
  }

  function renderSummary(report) {
    fillLines(el.summaryLines, asLines(report.summary));
    fillNotes(el.summaryLines, (report.notes || {}).summary, 'summary');
    for (const line of el.summaryLines.querySelectorAll('.line')) {
      const verdict = /^(PASS|FAIL)\b/.exec(line.textContent);
      line.classList.toggle('pass', Boolean(verdict) && verdict[1] === 'PASS');
      line.classList.toggle('fail', Boolean(verdict) && verdict[1] === 'FAIL');
    }
    const checks = Array.isArray(report.checks) ? report.checks : [];
    const waiting = checks.some((c) => c.waiting); // a deferred run's checks not run yet (Python's Check.waiting)
    el.verdict.hidden = false;
    el.verdict.className = 'verdict ' + (!report.passed ? 'fail' : waiting ? 'pass waiting' : 'pass');
    el.verdict.textContent = !report.passed ? t('panels.failMechanismCheck')
      : waiting ? t('panels.passSoFar') : t('panels.passEveryMechanism');
    el.checks.hidden = checks.length === 0;
    el.checksList.replaceChildren(...checks.map((c) => {
      // waiting: a deferred run's check that needs the replays (py/inference_lab/entrypoints/report.py Check)
      const state = c.waiting ? 'waiting' : c.ok ? 'ok' : 'not-ok';
      const mark = c.waiting ? t('panels.waiting') : c.ok ? t('panels.passed') : t('panels.failed');
      const item = make('li', { class: state, 'data-check': String(c.name) });
      item.append(make('span', { class: 'mark' }, mark), ' ', make('code', {}, c.name), ' ', c.detail ? String(c.detail) : '');
      return item;
    }));
  }

  // Charts drawn from each block's data (static/charts/, ES modules), above the panel's lines.
  // Loaded on the first run; the lines never depend on them. Once loaded, the charts of panels on or
  // near the screen are drawn in the same task as the lines (after them, so that the page is laid
  // out once for both); charts/index.js draws the others right after, when the page is idle.
  let charts = null; // the module, once loaded
  function showCharts(panels, report) {
    if (charts) { charts.placeAllCharts(panels, report); return; }
    loadCharts().then((module) => {
      charts = module;
      if (module) module.placeAllCharts(panels, report);
    });
  }

  // The output sections as shown now, for the tools: [{key, label, pre, summary}] (the run header,
  // blocks 1–13, TỔNG KẾT; summary: the <summary> element of the section's fold, if it has one).
  function sections() {
    const out = [{ key: 'header', label: t('panels.input'), pre: el.runHeader.querySelector('pre.lines'), summary: el.runHeader.querySelector(':scope > summary') }];
    for (let n = 1; n <= BLOCKS; n++) {
      const panel = blockPanel(n);
      out.push({ key: String(n), label: t('panels.block', { n }), pre: panel && panel.querySelector('pre.lines'), summary: panel && panel.querySelector(':scope > summary') });
    }
    out.push({ key: 'summary', label: t('panels.summary'), pre: el.summaryLines, summary: null });
    return out.filter((s) => s.pre);
  }

  return { setStatus, showPageError, clearPageError, showVersions, setBusy, renderReport, sections };
}
