// The load sweep on the page (issue 42): one numeric constant and its values in the command line's --sweep syntax
// ("WORKLOAD_RATE=1,2,4,8", parsed by Python: entrypoints/sweep.py parse_axis through web.sweep, one source of
// truth), a button (data-action="sweep"), the points run in the worker one after another with the page's
// constants (the status line says point i of n; Stop keeps the points done), then the chart
// (data-chart="sweep", static/charts/sweep.js: throughput, TTFT p90/p99 and goodput, the knee marked; its text
// alternative), a table of the rows and the command line's own lines (Little's law checked per point).
// A sweep is an explicit action: no address part runs it.
// Leaves out: the box, the task's life and the errors' places (sweep-panel.js), the search (sweep-search.js).
import { h, make } from '../core/dom.js';
import { lang, t } from '../words/i18n.js';
import { chartModule, linesBox, runTool, toolBox, totalOf } from './sweep-panel.js';

export const DEFAULT_AXIS = 'WORKLOAD_RATE=1,2,4,8';

// What the student typed and the last answer shown: this module outlives a language switch (app.js mounts the
// tools again on a fresh body), so the remounted tool shows them again, worded in the new language.
const kept = { axis: DEFAULT_AXIS, answer: null, result: null };

export function init(lab) {
  const input = make('input', { type: 'text', spellcheck: 'false', autocomplete: 'off', 'data-sweep-axis': '',
    value: kept.axis, class: 'capacity-input' });
  input.addEventListener('input', () => { kept.axis = input.value; });
  const box = toolBox(lab, { name: 'sweep', summary: t('sweep.summary'), button: t('sweep.button'),
    inputs: [{ field: 'sweep', label: t('sweep.label'), help: t('sweep.help'), node: input }] });
  box.button.addEventListener('click', () => {
    const axis = input.value;
    const name = axis.split('=')[0].trim().toUpperCase();
    runTool(lab, box, {
      type: 'sweep', errorText: t('sweep.error'), fields: { axis }, title: t('sweep.running', { name }),
      progress: (partial, msg) => {
        const last = partial && partial.points.length ? partial.points[partial.points.length - 1].value : '';
        return t('sweep.progress', { done: msg.done, total: msg.total, name, value: last });
      },
      show: (answer, result) => {
        Object.assign(kept, { answer, result, lang });
        return show(lab, box, answer, result);
      },
      stoppedText: (answer) => t('sweep.stoppedStatus', { done: answer ? answer.points.length : 0,
        total: answer ? totalOf(answer) : 0 }),
      doneText: (answer, seconds) => t('sweep.done', { n: answer.points.length, seconds }),
    });
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !box.button.disabled) { event.preventDefault(); box.button.click(); }
  });
  // the last answer again (after a language switch, or at a new width); its lines (Python's words): same language
  const again = () => kept.answer && show(lab, box, kept.answer, kept.lang === lang ? kept.result : null);
  again();
  box.onResize(again);
  return { input: () => input, box: () => box };
}

let drawing = 0; // the latest draw wins (a point's partial answer may arrive while the previous one loads)

async function show(lab, box, answer, result) {
  const ticket = ++drawing;
  const lines = result && Array.isArray(result.lines) ? result.lines : null;
  const module = await chartModule(lab, 'sweep');
  if (ticket !== drawing || lab.disposed()) return;
  const width = Math.max(320, Math.min(900, box.out.clientWidth || box.root.clientWidth || 640));
  const parts = [];
  if (module) parts.push(module.render(answer, { width }));
  if (module) parts.push(rowsTable(answer, module.rowCells));
  if (answer.stopped) parts.push(make('p', { class: 'note capacity-stopped', 'data-capacity-stopped': '' },
    t('capacity.stopped', { done: answer.points.length, total: totalOf(answer) })));
  if (lines) parts.push(linesBox(t('sweep.lines'), lines, 'sweep'));
  box.out.replaceChildren(...parts);
}

function rowsTable(answer, rowCells) {
  const name = String(answer.name || '');
  const headers = [t('sweep.col.value', { name }), t('sweep.col.throughput'), t('sweep.col.ttft'), t('sweep.col.tpot'),
    t('sweep.col.goodput'), t('sweep.col.little')];
  const knee = Number.isInteger(answer.knee) ? answer.knee : null;
  return h('div', { class: 'capacity-table' }, h('table', { class: 'capacity-rows', 'data-sweep-rows': '' },
    h('caption', {}, t('sweep.rows')),
    h('thead', {}, h('tr', {}, headers.map((cell) => h('th', { scope: 'col' }, cell)))),
    h('tbody', {}, answer.points.map((r, i) => h('tr', { 'data-knee': i === knee ? 'true' : null },
      rowCells(r, i === knee).map((cell, k) => (k === 0 ? h('th', { scope: 'row' }, cell) : h('td', {}, cell))))))));
}
