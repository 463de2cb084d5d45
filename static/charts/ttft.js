// ttft (block 11): one stacked bar per served request — input preparation, waiting for a slot, prefill
// (up to the first token) — on a simulated-ms axis, with the assumed TTFT_SLO as a dashed line.
import { ChartBuilder, rowsShown } from './figure.js';
import { round, s, swatches, text } from './svg.js';
import { fitText, textWidth } from './text-fit.js';
import { linear, ms, ticks, xAxis, xGrid } from './axes.js';
import { OKABE_ITO } from './colours.js';
import { byLang, t } from '../words/i18n.js';

export const NAME = 'ttft';

const ROW = 44;
const BAR = 20;
const LEFT = 34;
const TOP = 26;
const AXIS = 44;
const PARTS = byLang(() => ([
  { key: 'prep', label: t('chart.ttft.inputPreparation'), colour: OKABE_ITO.sky, kind: 'dots' },
  { key: 'queue', label: t('chart.ttft.waitingSlot'), colour: OKABE_ITO.orange, kind: 'hatch' },
  { key: 'prefill', label: t('chart.ttft.prefillUpFirstToken'), colour: OKABE_ITO.blue, kind: null },
]));

export function render(data, report, opts = {}) {
  // served requests only: an aborted one (status "aborted") has no TTFT to split, or is not a served request
  const requests = (Array.isArray(data.requests) ? data.requests : []).filter((r) => r.status !== 'aborted');
  const slo = Number((report.config || {}).TTFT_SLO);
  const follow = report.follow && report.follow.id;
  const chart = new ChartBuilder(NAME, t('chart.ttft.ttftEachServedRequest'), opts.width);
  chart.legend([
    ...PARTS().map((p) => ({ label: p.label, draw: swatches.box(p.colour, p.kind) })),
    { label: t('chart.ttft.assumedTtftSloTarget'), draw: swatches.line('#000000', '4 3') },
  ]);
  if (!requests.length) {
    chart.root.dataset.empty = 'true';
    chart.note(t('chart.ttft.noRequestServedRunTtft'));
    return chart.finish();
  }

  // a bar per request up to MAX_ROWS (figure.js rowsShown: the followed one kept); the note and the table say the rest
  const shown = rowsShown(requests, (r) => r.id, follow);
  if (shown.length < requests.length) chart.note(t('chart.ttft.rowsShown', { shown: shown.length, total: requests.length }));
  const right = 16;
  const width = chart.width;
  const maxV = Math.max(slo || 0, ...requests.map((r) => r.ttft)) / 1000;
  const plotRight = width - right;
  const tk = ticks(0, maxV, Math.max(2, Math.floor((plotRight - LEFT) / 60)), true);
  const top = tk.values[tk.values.length - 1];
  const x = linear(0, top, LEFT + 2, plotRight);
  const height = TOP + shown.length * ROW + AXIS;
  const axisY = TOP + shown.length * ROW + 2;
  const over = requests.filter((r) => slo && r.ttft > slo).map((r) => r.id);

  const summary = t('chart.ttft.ttftSimulatedMs') + requests.map((r) => `${r.id} ${ms(r.ttft)} = ${ms(r.prep)} + ${ms(r.queue)} + ${ms(r.prefill)}`).join('; ') +
    (slo ? t('chart.ttft.sloSummary', { slo: ms(slo), over: over.length ? over.join(', ') : t('chart.ttft.noRequest') }) : '.');
  const svg = chart.svg(width, height, summary);
  svg.append(xGrid(x, TOP - 4, axisY, tk.values));
  svg.append(xAxis(x, axisY, tk.values, (v) => String(v), t('chart.ttft.ttftSimulatedMs2'), (LEFT + plotRight) / 2));

  const labels = s('g', { class: 'labels', 'aria-hidden': 'true' }); // drawn last, above the SLO line
  shown.forEach((r, i) => {
    const y = TOP + i * ROW + 4;
    const g = s('g', { class: 'request', 'data-request': r.id });
    svg.append(g);
    if (r.id === follow) g.append(s('rect', { x: 0, y: TOP + i * ROW + 1, width, height: ROW - 2, fill: '#fff4d6' }));
    g.append(text(LEFT - 8, y + BAR / 2 + 5, (r.id === follow ? '▸' : '') + r.id, { 'text-anchor': 'end', class: 'lane-label' }));
    let at = 0;
    for (const part of PARTS()) {
      const v = Number(r[part.key]) || 0;
      const x0 = x(at / 1000);
      const x1 = x((at + v) / 1000);
      at += v;
      if (v <= 0) continue;
      const seg = s('g', { class: 'segment', 'data-part': part.key });
      seg.append(s('rect', { x: round(x0), y: round(y), width: round(Math.max(0.8, x1 - x0)), height: BAR, fill: part.colour, stroke: '#1b1f24', 'stroke-width': 0.6 }));
      if (part.kind) seg.append(s('rect', { x: round(x0), y: round(y), width: round(Math.max(0.8, x1 - x0)), height: BAR, fill: chart.hatchFor(part.colour, part.kind) }));
      const label = ms(v);
      if (textWidth(label, 11, true) + 8 <= x1 - x0) {
        labels.append(s('rect', { x: round((x0 + x1) / 2 - textWidth(label, 11, true) / 2 - 3), y: round(y + 3), width: round(textWidth(label, 11, true) + 6), height: BAR - 6, rx: 2, fill: '#ffffff', 'fill-opacity': 0.9 }));
        labels.append(text((x0 + x1) / 2, y + BAR / 2 + 4, label, { 'text-anchor': 'middle', class: 'in-box' }));
      }
      const extra = part.key === 'prefill' && r.preemptions ? t('chart.ttft.includesTimeLost', { preemptions: r.preemptions }) : '';
      g.append(chart.mark(seg, `${r.id}: ${part.label} ${ms(v)} ms${extra}; TTFT ${ms(r.ttft)} ms.`));
    }
    // under the bar: the total and the verdict against the SLO
    const total = text(x(0), y + BAR + 14, '', { class: 'value', stroke: r.id === follow ? '#fff4d6' : '#ffffff', 'stroke-width': 4, 'paint-order': 'stroke', 'stroke-linejoin': 'round' });
    const head = `TTFT ${ms(r.ttft)} ms`;
    total.append(s('tspan', { class: 'strong' }, head));
    // the verdict and the preemptions in shorter words when the full ones would run past the edge
    const n = r.preemptions || 0;
    const verdict = !slo ? ['', ''] : r.ttft > slo ? [t('chart.ttft.missesSlo'), ' · ✗ SLO'] : [t('chart.ttft.meetsSlo'), ' · ✓ SLO'];
    const pre = !n ? ['', ''] : [n === 1 ? t('chart.ttft.preemptedOnce') : t('chart.ttft.preemptedTimesShort', { n }), ` · preempt ×${n}`];
    const room = width - 2 - x(0) - textWidth(head, 11, true);
    const tail = fitText([verdict[0] + pre[0], verdict[1] + pre[0], verdict[1] + pre[1]], room, 11);
    total.append(tail);
    if (textWidth(tail, 11) > room) {
      total.setAttribute('textLength', String(Math.floor(width - 2 - x(0))));
      total.setAttribute('lengthAdjust', 'spacingAndGlyphs');
    }
    labels.append(total);
  });

  if (slo) {
    const sx = x(slo / 1000);
    const g = s('g', { class: 'slo' });
    g.append(s('line', { x1: round(sx), x2: round(sx), y1: TOP - 6, y2: axisY, stroke: '#000000', 'stroke-width': 2, 'stroke-dasharray': '5 3' }));
    const label = `SLO ${ms(slo)} ms`;
    const lw = textWidth(label, 12, true);
    const lx = Math.max(lw / 2 + 2, Math.min(sx, width - lw / 2 - 2));
    g.append(text(lx, TOP - 10, label, { 'text-anchor': 'middle', class: 'strong' }));
    svg.append(chart.mark(g, t('chart.ttft.sloMark', { slo: ms(slo), verdict: over.length ? t('chart.ttft.overSlo', { over: over.join(', ') }) : t('chart.ttft.allMeet') })));
  }
  svg.append(labels);

  chart.table(t('chart.ttft.ttftBreakdownSimulated'), [t('chart.ttft.request'), t('chart.ttft.preparation'), t('chart.ttft.waitingSlot2'), 'Prefill', 'TTFT', t('chart.ttft.againstSlo')],
    requests.map((r) => [r.id, ms(r.prep), ms(r.queue), ms(r.prefill), ms(r.ttft), slo ? (r.ttft > slo ? t('chart.ttft.misses') : t('chart.ttft.meets')) + ' ' + ms(slo) : '—']));
  return chart.finish();
}
