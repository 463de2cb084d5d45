// search (the search tool, static/tools/sweep-search.js): a small grid's configurations (web.search's answer,
// entrypoints/search.py) as points of cost per hour (x, US$) against goodput (y, requests/s within the SLOs):
// a filled circle meets the SLO attainment target, a cross misses it, the answer (the cheapest meeting it) is a
// large diamond, and the Pareto front (search.pareto: no other point both cheaper and higher in goodput) a
// staircase through its points. Points that cannot run are not drawn (the table says why).
// The text alternative: a sentence (the front, the answer) and a table of every configuration.
// Leaves out: the reasons for rejected points (the tool prints the command line's lines under the chart).
import { ChartBuilder } from './figure.js';
import { glyphs, round, s, swatches, text } from './svg.js';
import { linear, pct, xAxis, xGrid } from './axes.js';
import { OKABE_ITO } from './colours.js';
import { upTo, yAxis } from './sweep.js';
import { t } from '../words/i18n.js';

export const NAME = 'search';

const LEFT = 64;
const RIGHT = 24;
const TOP = 20;
const PLOT = 260;

/** "REPLICAS=2 GPU=L4": a configuration as the command line writes it. */
export function pointText(point) {
  return Object.entries(point || {}).map(([k, v]) => `${k}=${v}`).join(' ');
}

const money = (v) => Number(v).toFixed(2);

export function render(search, opts = {}) {
  const rows = Array.isArray(search.points) ? search.points : [];
  const front = Array.isArray(search.pareto) ? search.pareto : [];
  const answer = Number.isInteger(search.answer) ? search.answer : null;
  const chart = new ChartBuilder(NAME, t('chart.search.title'), opts.width);
  chart.legend([
    { label: t('chart.search.meets'), draw: swatches.shape((x, y) => glyphs.circle(x, y, { fill: OKABE_ITO.green })) },
    { label: t('chart.search.misses'), draw: swatches.shape((x, y) => glyphs.cross(x, y)) },
    { label: t('chart.search.answer'), draw: swatches.shape((x, y) => glyphs.diamond(x, y)) },
    { label: t('chart.search.front'), draw: swatches.line(OKABE_ITO.blue, '') },
  ]);
  const valid = rows.map((r, i) => ({ r, i })).filter(({ r }) => r.ok);
  const answerText = answer !== null ? t('search.answer', answerFacts(rows[answer], answer)) : t('search.noAnswer');
  const said = t('chart.search.summary', { n: valid.length,
    front: front.map((i) => '#' + (i + 1) + ' ' + pointText(rows[i].point)).join(', ') || '—', answer: answerText });
  if (!valid.length) {
    chart.root.dataset.empty = 'true';
    chart.note(t('chart.search.empty'));
  } else {
    draw(chart, valid, front, answer, rows, said);
  }
  chart.altText(said);
  chart.table(t('chart.search.alt'), ['#', t('chart.search.col.point'), t('chart.search.col.cost'),
    t('chart.search.col.goodput'), t('chart.search.col.both'), t('chart.search.col.verdict')],
  rows.map((r, i) => rowCells(r, i, answer, front)));
  if (answer !== null) chart.root.dataset.answer = pointText(rows[answer].point);
  chart.root.dataset.points = String(rows.length);
  return chart.finish();
}

/** The facts the answer's sentence fills (search.answer). */
export function answerFacts(r, i) {
  return { i: i + 1, config: pointText(r.point), gpus: r.gpus, cost: money(r.cost_per_hour),
    both: pct(r.attainment.both, 0) };
}

/** One configuration as table cells (the chart's text alternative and the tool's visible table). */
export function rowCells(r, i, answer, front) {
  if (!r.ok) return ['#' + (i + 1), pointText(r.point), '—', '—', '—', t('chart.search.invalid')];
  const verdict = [i === answer ? t('chart.search.answer') : r.meets ? t('chart.search.meets') : t('chart.search.misses')];
  if (front.includes(i)) verdict.push(t('chart.search.front.yes'));
  return ['#' + (i + 1), pointText(r.point), money(r.cost_per_hour), String(r.goodput), pct(r.attainment.both, 0),
    verdict.join('; ')];
}

function draw(chart, valid, front, answer, rows, said) {
  const width = chart.width;
  const height = TOP + PLOT + 48;
  const svg = chart.svg(width, height, said);
  const costs = valid.map(({ r }) => Number(r.cost_per_hour));
  const xTicks = upTo(Math.max(...costs) * 1.1, Math.max(2, Math.floor((width - LEFT - RIGHT) / 80)));
  const yTicks = upTo(Math.max(0, ...valid.map(({ r }) => Number(r.goodput))) * 1.1, 4);
  const x = linear(0, xTicks.top, LEFT, width - RIGHT);
  const y = linear(0, yTicks.top, TOP + PLOT, TOP);
  svg.append(xGrid(x, TOP, TOP + PLOT, xTicks.values));
  svg.append(yAxis(y, LEFT, width - RIGHT, yTicks.values, (v) => String(v), t('chart.search.y')));
  svg.append(xAxis(x, TOP + PLOT, xTicks.values, (v) => String(v), t('chart.search.x'), (LEFT + width - RIGHT) / 2));
  if (front.length) { // a staircase: each front point's goodput holds until the next, dearer one
    const pts = front.map((i) => [x(rows[i].cost_per_hour), y(rows[i].goodput)]);
    const path = pts.map(([a, b], k) => (k === 0 ? `M${round(a)} ${round(b)}` : `H${round(a)} V${round(b)}`)).join(' ');
    svg.append(s('path', { d: path, class: 'pareto', fill: 'none', stroke: OKABE_ITO.blue, 'stroke-width': 2.2 }));
  }
  for (const { r, i } of valid) {
    const px = x(r.cost_per_hour);
    const py = y(r.goodput);
    const g = s('g', { class: 'point', 'data-point': String(i + 1), 'data-meets': r.meets ? 'true' : 'false' });
    if (i === answer) g.append(glyphs.diamond(px, py, { transform: null }));
    else if (r.meets) g.append(glyphs.circle(px, py, { fill: OKABE_ITO.green }));
    else g.append(glyphs.cross(px, py));
    g.append(text(px + 8, py - 8, '#' + (i + 1), { class: 'tick' }));
    const verdict = i === answer ? t('chart.search.answer') : r.meets ? t('chart.search.meets') : t('chart.search.misses');
    svg.append(chart.mark(g, t('chart.search.point', { i: i + 1, config: pointText(r.point), cost: money(r.cost_per_hour),
      good: r.goodput, both: pct(r.attainment.both, 0), verdict })));
  }
}
