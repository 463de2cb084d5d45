// The configuration search on the page (issue 42): a small grid in the command line's --search syntax, one axis per
// line ("REPLICAS=1,2" then "GPU=L4,H100-SXM5-80GB"; checked by Python: web.search, entrypoints/search.py AXES),
// the SLO attainment to meet, a button (data-action="search"); the points run in the worker one after another
// (at most web.PAGE_POINTS: the page says so and points to --search for more), then the answer (the cheapest
// configuration meeting the target), the chart (data-chart="search", static/charts/search.js: cost per hour
// against goodput, the Pareto front; its text alternative), a table and the command line's lines with the
// rejected points' reasons. A search is an explicit action: no address part runs it.
// Leaves out: the box, the task's life and the errors' places (sweep-panel.js), the sweep (sweep.js).
import { h, make } from '../core/dom.js';
import { lang, t } from '../words/i18n.js';
import { chartModule, linesBox, runTool, toolBox, totalOf } from './sweep-panel.js';

export const DEFAULT_AXES = 'REPLICAS=1,2\nGPU=L4,H100-SXM5-80GB';

// What the student typed and the last answer shown (kept across a language switch, as sweep.js keeps its own).
const kept = { axes: DEFAULT_AXES, attainment: '0.9', answer: null, result: null };

export function init(lab) {
  const axes = make('textarea', { rows: 3, spellcheck: 'false', 'data-search-axes': '' });
  axes.value = kept.axes;
  const attainment = make('input', { type: 'text', inputmode: 'decimal', value: kept.attainment,
    class: 'capacity-input', 'data-search-attainment': '' });
  axes.addEventListener('input', () => { kept.axes = axes.value; });
  attainment.addEventListener('input', () => { kept.attainment = attainment.value; });
  const box = toolBox(lab, { name: 'search', summary: t('search.summary'), button: t('search.button'), inputs: [
    { field: 'search', label: t('search.label'), help: t('search.help', { axes: '…' }), node: axes },
    { field: 'search-attainment', label: t('search.attainment'), node: attainment }] });
  lab.on('ready', (info) => { // the axes Python accepts (web.limits: search.AXES), named in the help
    const names = info && info.limits && info.limits.axes;
    const note = box.root.querySelector('#capacity-search-help');
    if (Array.isArray(names) && note) note.textContent = t('search.help', { axes: names.join(', ') });
  });
  box.button.addEventListener('click', () => {
    // the grid's size comes from Python (web.search's first progress, before the first point: done 0), which
    // parses the axes: the page does not count them itself
    runTool(lab, box, {
      type: 'search', errorText: t('search.error'), fields: { axes: axes.value, attainment: attainment.value },
      title: t('search.starting'),
      progress: (partial, msg) => {
        if (!msg.done) return t('search.running', { n: msg.total });
        const last = partial && partial.points.length ? partial.points[partial.points.length - 1].point : {};
        return t('search.progress', { done: msg.done, total: msg.total,
          config: Object.entries(last).map(([k, v]) => `${k}=${v}`).join(' ') });
      },
      show: (answer, result) => {
        Object.assign(kept, { answer, result, lang });
        return show(lab, box, answer, result);
      },
      stoppedText: (answer) => t('search.stoppedStatus', { done: answer ? answer.points.length : 0,
        total: answer ? totalOf(answer) : 0 }),
      doneText: (answer, seconds) => t('search.done', { n: answer.points.length, seconds }),
    });
  });
  // the last answer again (after a language switch, or at a new width); its lines (Python's words): same language
  const again = () => kept.answer && show(lab, box, kept.answer, kept.lang === lang ? kept.result : null);
  again();
  box.onResize(again);
  return { axes: () => axes, box: () => box };
}

let drawing = 0; // the latest draw wins

async function show(lab, box, answer, result) {
  const ticket = ++drawing;
  const lines = result && Array.isArray(result.lines) ? result.lines : null;
  const module = await chartModule(lab, 'search');
  if (ticket !== drawing || lab.disposed()) return;
  const width = Math.max(320, Math.min(900, box.out.clientWidth || box.root.clientWidth || 640));
  const parts = [];
  if (module) {
    const i = Number.isInteger(answer.answer) ? answer.answer : null;
    parts.push(make('p', { class: 'capacity-answer', 'data-search-answer': i === null ? '' : module.pointText(answer.points[i].point) },
      i === null ? t('search.noAnswer') : t('search.answer', module.answerFacts(answer.points[i], i))));
    parts.push(module.render(answer, { width }));
    parts.push(rowsTable(answer, module));
  }
  if (answer.stopped) parts.push(make('p', { class: 'note capacity-stopped', 'data-capacity-stopped': '' },
    t('capacity.stopped', { done: answer.points.length, total: totalOf(answer) })));
  if (lines) parts.push(linesBox(t('search.lines'), lines, 'search'));
  box.out.replaceChildren(...parts);
}

function rowsTable(answer, module) {
  const front = Array.isArray(answer.pareto) ? answer.pareto : [];
  const best = Number.isInteger(answer.answer) ? answer.answer : null;
  const headers = ['#', t('chart.search.col.point'), t('chart.search.col.cost'), t('chart.search.col.goodput'),
    t('chart.search.col.both'), t('chart.search.col.verdict')];
  return h('div', { class: 'capacity-table' }, h('table', { class: 'capacity-rows', 'data-search-rows': '' },
    h('caption', {}, t('chart.search.alt')),
    h('thead', {}, h('tr', {}, headers.map((cell) => h('th', { scope: 'col' }, cell)))),
    h('tbody', {}, answer.points.map((r, i) => h('tr', { 'data-answer': i === best ? 'true' : null },
      module.rowCells(r, i, best, front).map((cell, k) => (k === 0 ? h('th', { scope: 'row' }, cell) : h('td', {}, cell))))))));
}
