// Compare with the previous run: after a re-run, every number in the output that changed is wrapped
// in <span class="changed" data-changed="OLD">NEW</span>; the old value is drawn by CSS
// (::before, "OLD → NEW"), so the line's text stays exactly the engine's text. A checkbox
// (data-action="toggle-changes") removes or restores the marks; a line says how many numbers changed.
//
// Which numbers changed is static/tools/line-diff.js's (pure); this module reads the panels (lab.sections())
// and draws. A tool of static/core/lab-api.js; built with DOM nodes and textContent only. Its state is one
// object (`cmp`) that the functions below take explicitly.

import { make } from '../core/dom.js';
import { diffRuns, split } from './line-diff.js';
import { t } from '../words/i18n.js';

export function init(api) {
  const cmp = {
    api,
    previous: null,   // [{key, label, lines: [{text, parts}]}] of the last run shown (parts: split(text))
    changes: [],      // [{key, label, element, text, marks: Map(numberIndex -> old)}] of the current run
    show: true,
    ui: null,
  };
  cmp.ui = buildUi(cmp);
  // On 'lines' rather than 'result': the marks are drawn before the other tools' result hooks, one
  // of which reads layout (share.js changes the address), so the page is laid out once per run.
  api.on('lines', () => onLines(cmp));
  return { count: () => totalMarks(cmp.changes) };
}

function onLines(cmp) {
  const current = snapshot(cmp);
  cmp.changes = cmp.previous ? diffRuns(cmp.previous, current).map(({ section, line, marks }) => ({
    key: section.key, label: section.label, summary: section.summary,
    element: line.element, text: line.text, parts: line.parts, marks,
  })) : [];
  const first = cmp.previous === null;
  cmp.previous = current.map(({ key, label, lines }) => ({
    key, label, lines: lines.map((l) => ({ text: l.text, parts: l.parts })),
  }));
  render(cmp, first);
}

function buildUi(cmp) {
  const label = make('label', { class: 'toggle-changes' });
  const box = make('input', { type: 'checkbox', 'data-action': 'toggle-changes', checked: true });
  label.append(box, t('compare.showChangesSince'));
  const count = make('span', { class: 'changes-count', 'data-changes-count': '', 'aria-live': 'polite' },
    t('compare.changeConstantRunAgain'));
  const group = make('div', { class: 'tool-group compare-tools' });
  group.append(label, count);
  cmp.api.addToToolbar(group, 1);
  box.addEventListener('change', () => { cmp.show = box.checked; render(cmp, false); });
  return { box, count };
}

const totalMarks = (changes) => changes.reduce((sum, c) => sum + c.marks.size, 0);

// ── reading the panels ─────────────────────────────────────────────────────
// The lines shown now, each with its parts (split(); taken from the previous run's line when the
// text is the same, which is most lines).
function snapshot(cmp) {
  const known = new Map();
  for (const section of cmp.previous || []) for (const line of section.lines) known.set(line.text, line.parts);
  return cmp.api.sections().map((s) => Object.assign(s, {
    lines: Array.from(s.pre.querySelectorAll(':scope > .line')).map((element) => {
      const text = element.textContent;
      return { element, text, parts: known.get(text) || split(text) };
    }),
  }));
}

// ── drawing ────────────────────────────────────────────────────────────────
function render(cmp, first) {
  const { changes, show } = cmp;
  for (const section of cmp.api.sections()) if (section.summary) section.summary.removeAttribute('data-changes-badge');
  for (const change of changes) {
    if (!change.element.isConnected || change.element.textContent !== change.text) continue;
    if (show) drawLine(change);
    else change.element.textContent = change.text;
  }
  const where = [];
  for (const change of changes) if (!where.includes(change.label)) where.push(change.label);
  if (show) for (const label of where) badgeSection(changes.filter((c) => c.label === label));
  sayCount(cmp, first, totalMarks(changes), where);
}

// The panel's "n changed" badge: drawn by CSS from data-changes-badge, so the panel's text stays the engine's.
function badgeSection(inSection) {
  const summary = inSection[0].summary;
  if (summary) summary.dataset.changesBadge = t('compare.changed', { n: totalMarks(inSection) });
}

function sayCount(cmp, first, total, where) {
  const { count } = cmp.ui;
  count.dataset.changesCount = String(total);
  if (first) count.textContent = t('compare.changeConstantRunAgain');
  else if (total === 0) count.textContent = t('compare.noNumberChangedSince');
  else count.textContent = t('compare.numbersChanged', { total, where: where.join(', ') }) + (cmp.show ? '.' : t('compare.hidden'));
}

function drawLine(change) {
  const { texts, numbers } = change.parts;
  const nodes = [];
  numbers.forEach((number, k) => {
    if (texts[k]) nodes.push(document.createTextNode(texts[k]));
    nodes.push(change.marks.has(k) ? changedNumber(number, change.marks.get(k)) : document.createTextNode(number));
  });
  if (texts[numbers.length]) nodes.push(document.createTextNode(texts[numbers.length]));
  change.element.replaceChildren(...nodes);
}

// <span class="changed" data-changed="OLD"><span class="changed-new">NEW</span></span>
function changedNumber(number, old) {
  const mark = document.createElement('span');
  mark.className = 'changed';
  mark.dataset.changed = old;
  mark.title = t('compare.previousRun', { old, number });
  const now = document.createElement('span');
  now.className = 'changed-new';
  now.textContent = number;
  mark.append(now);
  return mark;
}
