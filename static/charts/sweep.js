// sweep (the sweep tool, static/tools/sweep.js): one full run per value of one constant (web.sweep's answer,
// entrypoints/sweep.py). Three panels over the swept values, evenly spaced in the order swept: throughput
// (output tokens/s), TTFT p90 and p99 (simulated ms) and goodput (requests/s within the SLOs); the knee
// (sweep.knee: the last value where throughput still followed the load) is a dashed line through all three.
// The text alternative: a sentence (the knee, Little's law's largest gap) and a table of the rows.
// Also exports yAxis and the point scale, which search.js and distributions.js draw with.
// Leaves out: the lines the command line prints (the tool shows them beside the chart).
import { ChartBuilder } from './figure.js';
import { glyphs, round, s, swatches, text } from './svg.js';
import { linear, ms, pct, ticks } from './axes.js';
import { OKABE_ITO } from './colours.js';
import { t } from '../words/i18n.js';

export const NAME = 'sweep';

const LEFT = 64;
const RIGHT = 18;
const PANEL = 120;
const GAP = 30;
const TOP = 24;

/** A vertical axis at x with round tick labels on its left and light grid lines to `right`. */
export function yAxis(scale, x, right, values, format, label) {
  const g = s('g', { class: 'axis axis-y', 'aria-hidden': 'true' });
  const [y0, y1] = [scale(scale.domain[0]), scale(scale.domain[1])];
  g.append(s('line', { x1: round(x), x2: round(x), y1: round(y0), y2: round(y1), class: 'axis-line' }));
  for (const v of values) {
    const y = scale(v);
    g.append(s('line', { x1: round(x), x2: round(right), y1: round(y), y2: round(y), class: 'grid-line', stroke: '#d0d4da', 'stroke-width': 0.6 }));
    g.append(text(x - 5, y + 4, format(v), { 'text-anchor': 'end', class: 'tick' }));
  }
  if (label) g.append(text(x - LEFT + 4, y1 - 8, label, { class: 'axis-label' }));
  return g;
}

/** Round ticks from 0 up to cover `max` (at least 1 when max is 0). */
export function upTo(max, approx = 4) {
  const tk = ticks(0, max > 0 ? max : 1, approx, true);
  return { values: tk.values, top: tk.values[tk.values.length - 1] };
}

const num = (v, digits = 1) => (v === null || v === undefined ? '—' : Number(v).toFixed(digits));
const msOf = (v) => (v === null || v === undefined ? '—' : ms(v));

export function render(sweep, opts = {}) {
  const name = String(sweep.name || '');
  const rows = Array.isArray(sweep.points) ? sweep.points : [];
  const chart = new ChartBuilder(NAME, t('chart.sweep.title', { name }), opts.width);
  const served = rows.filter((r) => r.served);
  chart.legend([
    { label: t('chart.sweep.p90'), draw: swatches.line(OKABE_ITO.blue, '') },
    { label: t('chart.sweep.p99'), draw: swatches.line(OKABE_ITO.vermillion, '6 3') },
    { label: t('chart.sweep.kneeLine'), draw: swatches.line('#000000', '4 3') },
  ]);
  const knee = Number.isInteger(sweep.knee) ? sweep.knee : null;
  const worstGap = Math.max(0, ...served.map((r) => (r.little ? Number(r.little.gap) : 0)));
  const said = [knee !== null ? t('chart.sweep.summaryKnee', { name, value: rows[knee].value })
    : t('chart.sweep.summaryNoKnee'), t('chart.sweep.summaryLittle', { gap: pct(worstGap, 3) })].join(' ');
  if (!served.length) {
    chart.root.dataset.empty = 'true';
    chart.note(t('chart.sweep.empty'));
  } else {
    draw(chart, rows, name, knee, said);
  }
  chart.altText(said);
  chart.table(t('chart.sweep.alt'), [t('sweep.col.value', { name }), t('sweep.col.throughput'), t('sweep.col.ttft'),
    t('sweep.col.tpot'), t('sweep.col.goodput'), t('sweep.col.little')], rows.map((r, i) => rowCells(r, i === knee)));
  if (knee !== null) chart.root.dataset.knee = String(rows[knee].value);
  chart.root.dataset.points = String(rows.length);
  return chart.finish();
}

/** One row of the sweep as table cells (the chart's text alternative and the tool's visible table). */
export function rowCells(r, isKnee) {
  const value = String(r.value) + (isKnee ? ' ← ' + t('sweep.knee') : '');
  if (!r.served) return [value, t('sweep.noneServed'), '—', '—', '—', '—'];
  const spread = (d) => [d.p50, d.p90, d.p99].map(msOf).join(' / ');
  return [value, num(r.throughput), spread(r.ttft || {}), spread(r.tpot || {}),
    num(r.goodput && r.goodput.per_s, 2), r.little ? `${r.little.L} / ${r.little.lam_W}` : '—'];
}

function draw(chart, rows, name, knee, said) {
  const width = chart.width;
  const height = TOP + 3 * PANEL + 2 * GAP + 40;
  const svg = chart.svg(width, height, said);
  const step = rows.length > 1 ? (width - LEFT - RIGHT - 30) / (rows.length - 1) : 0;
  const xAt = (i) => LEFT + 15 + (rows.length > 1 ? i * step : (width - LEFT - RIGHT - 30) / 2);
  const panels = [
    { key: 'tput', label: t('chart.sweep.throughput'), lines: [{ of: (r) => r.throughput, colour: OKABE_ITO.black, dash: '' }] },
    { key: 'ttft', label: t('chart.sweep.ttft'), lines: [
      { of: (r) => r.ttft && r.ttft.p90 / 1000, colour: OKABE_ITO.blue, dash: '' },
      { of: (r) => r.ttft && r.ttft.p99 / 1000, colour: OKABE_ITO.vermillion, dash: '6 3' }] },
    { key: 'good', label: t('chart.sweep.goodput'), lines: [{ of: (r) => r.goodput && r.goodput.per_s, colour: OKABE_ITO.green, dash: '' }] },
  ];
  panels.forEach((panel, k) => {
    const top = TOP + k * (PANEL + GAP);
    const values = rows.flatMap((r) => (r.served ? panel.lines.map((l) => Number(l.of(r)) || 0) : []));
    const axis = upTo(Math.max(0, ...values), 3);
    const y = linear(0, axis.top, top + PANEL, top + 6);
    svg.append(yAxis(y, LEFT, width - RIGHT, axis.values, (v) => String(v), panel.label));
    const g = s('g', { class: 'sweep-panel', 'data-panel': panel.key });
    for (const line of panel.lines) {
      const pts = rows.map((r, i) => (r.served ? [xAt(i), y(Number(line.of(r)) || 0)] : null)).filter(Boolean);
      if (pts.length > 1) {
        g.append(s('polyline', { points: pts.map(([a, b]) => `${round(a)},${round(b)}`).join(' '), fill: 'none',
          stroke: line.colour, 'stroke-width': 2.2, 'stroke-dasharray': line.dash || null }));
      }
    }
    rows.forEach((r, i) => {
      if (!r.served) return;
      for (const line of panel.lines) {
        const dot = glyphs.circle(xAt(i), y(Number(line.of(r)) || 0), { stroke: line.colour });
        g.append(k === 0 ? chart.mark(dot, pointText(r, name)) : dot);
      }
    });
    svg.append(g);
  });
  const bottom = TOP + 3 * PANEL + 2 * GAP;
  const axis = s('g', { class: 'axis axis-x', 'aria-hidden': 'true' });
  rows.forEach((r, i) => axis.append(text(xAt(i), bottom + 18, String(r.value), { 'text-anchor': 'middle', class: 'tick' })));
  axis.append(text((LEFT + width - RIGHT) / 2, bottom + 36, name, { 'text-anchor': 'middle', class: 'axis-label' }));
  svg.append(axis);
  if (knee !== null) {
    const kx = xAt(knee);
    const g = s('g', { class: 'knee', 'data-knee': String(rows[knee].value) });
    g.append(s('line', { x1: round(kx), x2: round(kx), y1: TOP, y2: bottom, stroke: '#000000', 'stroke-width': 1.6, 'stroke-dasharray': '4 3' }));
    const late = kx > chart.width * 0.7; // the label on the line's left near the right edge
    g.append(text(late ? kx - 4 : kx + 4, TOP - 8, t('sweep.knee') + ' ' + rows[knee].value,
      { class: 'strong', 'text-anchor': late ? 'end' : 'start' }));
    svg.append(g);
  }
}

function pointText(r, name) {
  return t('chart.sweep.point', { name, value: r.value, tput: num(r.throughput), p90: msOf(r.ttft && r.ttft.p90),
    p99: msOf(r.ttft && r.ttft.p99), good: num(r.goodput && r.goodput.per_s, 2),
    L: r.little ? r.little.L : '—', lamW: r.little ? r.little.lam_W : '—' });
}
