// speculation (block 7, SPEC_METHOD != off): three panels stacked in one figure —
// 1. per verify step, the proposals (outlined bar) and how many were accepted (filled, with its number);
// 2. α per request (accepted ÷ proposed), with its tokens per verify step against (1 − α^(k+1)) / (1 − α);
// 3. the second picture: speedup against batch size on the roofline clock (block 7's spec_batch, a model from
//    the measured α), with the "no gain" line at 1× and the first batch size where speculation loses.
// Every bar and point is labelled or has its number beside it, so colour is never the only cue.
// Leaves out: the per-token colours of one step (the step view, static/tools/step-view.js).
import { ChartBuilder } from './figure.js';
import { round, s, swatches, text, glyphs } from './svg.js';
import { fittedText, textWidth } from './text-fit.js';
import { linear, ticks } from './axes.js';
import { OKABE_ITO } from './colours.js';
import { t } from '../words/i18n.js';

export const NAME = 'speculation';

const MAX_WIDTH = 900;      // wider panels only make the eye travel
const LEFT = 40;
const GAP = 30;             // between panels
const STEPS_H = 130;
const ROW = 22;
const BATCH_H = 150;

/** [{step, proposed, accepted}] summed over the requests that verified at each step. */
export function verifySteps(report) {
  const items = (report && report.steps && report.steps.items) || [];
  const out = [];
  items.forEach((it, i) => {
    const spec = it.spec || {};
    const ids = Object.keys(spec);
    if (!ids.length) return;
    out.push({
      step: i + 1,
      proposed: ids.reduce((n, id) => n + spec[id].proposed.length, 0),
      accepted: ids.reduce((n, id) => n + spec[id].accepted, 0),
      ids,
    });
  });
  return out;
}

export function render(data, report, opts = {}) {
  if (!data.spec) {                           // speculation off: a note saying how to turn it on (the guide links here)
    const off = new ChartBuilder(NAME, t('chart.spec.titleOff'), opts.width);
    off.root.dataset.empty = 'true';
    off.note(t('chart.spec.off'));
    return off.finish();
  }
  const chart = new ChartBuilder(NAME, t('chart.spec.title', { method: data.spec.method, k: data.spec.k }), opts.width);
  chart.legend([
    { label: t('chart.spec.proposed'), draw: swatches.box('#ffffff', null) },
    { label: t('chart.spec.accepted'), draw: swatches.box(OKABE_ITO.green, null) },
    { label: t('chart.spec.speedup'), draw: swatches.line(OKABE_ITO.blue) },
  ]);
  const steps = verifySteps(report);
  const rates = Object.entries(data.spec.per_request || {});
  const batch = (data.spec_batch && data.spec_batch.rows) || [];
  const width = Math.min(chart.width, MAX_WIDTH);
  const plotW = width - LEFT - 12;
  const ratesTop = STEPS_H + GAP;
  const batchTop = ratesTop + 24 + rates.length * ROW + GAP;
  const height = batchTop + BATCH_H + 44;
  const summary = t('chart.spec.summary', {
    accepted: data.spec.accepted, proposed: data.spec.proposed, n: steps.length,
    alphas: rates.map(([id, r]) => `${id} ${r.alpha.toFixed(2)}`).join(', '),
    crossover: data.spec_batch && data.spec_batch.crossover ? t('chart.spec.crossoverAt', { b: data.spec_batch.crossover }) : t('chart.spec.noCrossover'),
  });
  const svg = chart.svg(width, height, summary);
  drawSteps(chart, svg, steps, plotW);
  drawRates(chart, svg, rates, data.spec_rates || {}, ratesTop, plotW);
  drawBatch(chart, svg, batch, data.spec_batch || {}, batchTop, plotW, report);

  chart.table(t('chart.spec.tableRates'), [t('chart.spec.request'), t('chart.spec.proposed'), t('chart.spec.accepted'), 'α'],
    rates.map(([id, r]) => [id, String(r.proposed), String(r.accepted), r.alpha.toFixed(2)]));
  chart.table(t('chart.spec.tableBatch'), [t('chart.spec.batch'), t('chart.spec.offUs'), t('chart.spec.onUs'), t('chart.spec.speedup')],
    batch.map((b) => [String(b.batch), b.off_us.toFixed(0), b.on_us.toFixed(0), b.speedup.toFixed(2) + '×']));
  return chart.finish();
}

// 1. proposals and accepted tokens per verify step
function drawSteps(chart, svg, steps, plotW) {
  svg.append(fittedText(0, 14, [t('chart.spec.perStep'), t('chart.spec.perStepShort')], plotW + LEFT, { class: 'panel-title' }, 12, true));
  const top = 24;
  const bottom = STEPS_H - 22;
  const maxV = Math.max(1, ...steps.map((x) => x.proposed));
  const y = linear(0, maxV, bottom, top + 10);
  const axis = s('g', { class: 'axis', 'aria-hidden': 'true' });
  axis.append(s('line', { x1: LEFT, x2: LEFT + plotW, y1: bottom, y2: bottom, class: 'axis-line' }));
  axis.append(text(LEFT - 6, y(maxV) + 4, String(maxV), { 'text-anchor': 'end', class: 'tick' }));
  axis.append(text(LEFT - 6, bottom + 4, '0', { 'text-anchor': 'end', class: 'tick' }));
  axis.append(text(LEFT + plotW / 2, STEPS_H, t('chart.spec.stepAxis'), { 'text-anchor': 'middle', class: 'axis-label' }));
  svg.append(axis);
  if (!steps.length) {
    svg.append(text(LEFT + 8, (top + bottom) / 2, t('chart.spec.noVerify'), { class: 'value muted' }));
    return;
  }
  const slot = plotW / steps.length;
  const bw = Math.max(2, Math.min(28, slot - 3));
  let lastLabel = -Infinity;
  steps.forEach((st, i) => {
    const x0 = LEFT + i * slot + (slot - bw) / 2;
    const g = s('g', { class: 'bar spec-step', 'data-step': String(st.step), 'data-proposed': String(st.proposed), 'data-accepted': String(st.accepted) });
    g.append(s('rect', { x: round(x0), y: round(y(st.proposed)), width: round(bw), height: round(bottom - y(st.proposed)), fill: '#ffffff', stroke: '#1b1f24', 'stroke-width': 1 }));
    if (st.accepted) g.append(s('rect', { x: round(x0), y: round(y(st.accepted)), width: round(bw), height: round(bottom - y(st.accepted)), fill: OKABE_ITO.green, stroke: '#1b1f24', 'stroke-width': 0.6 }));
    if (bw >= 12) g.append(text(x0 + bw / 2, y(st.proposed) - 3, `${st.accepted}/${st.proposed}`, { 'text-anchor': 'middle', class: 'value' }));
    const label = String(st.step);
    const cx = x0 + bw / 2;
    if (cx - textWidth(label) / 2 > lastLabel + 4) {
      g.append(text(cx, bottom + 14, label, { 'text-anchor': 'middle', class: 'tick' }));
      lastLabel = cx + textWidth(label) / 2;
    }
    g.append(s('rect', { x: round(LEFT + i * slot), y: top, width: round(slot), height: round(bottom - top), fill: 'transparent' }));
    svg.append(chart.mark(g, t('chart.spec.stepMark', { step: st.step, ids: st.ids.join(', '), accepted: st.accepted, proposed: st.proposed })));
  });
}

// 2. α per request
function drawRates(chart, svg, rates, extra, top, plotW) {
  svg.append(fittedText(0, top + 14, [t('chart.spec.alphaTitle'), t('chart.spec.alphaShort')], plotW + LEFT, { class: 'panel-title' }, 12, true));
  const x = linear(0, 1, LEFT, LEFT + plotW * 0.55);
  rates.forEach(([id, r], i) => {
    const y0 = top + 24 + i * ROW;
    const g = s('g', { class: 'bar spec-alpha', 'data-request': id, 'data-alpha': r.alpha.toFixed(4) });
    g.append(text(LEFT - 6, y0 + 14, id, { 'text-anchor': 'end', class: 'lane-label' }));
    g.append(s('rect', { x: LEFT, y: y0 + 3, width: round(x(1) - LEFT), height: ROW - 8, fill: '#f1f1f1', stroke: '#1b1f24', 'stroke-width': 0.5 }));
    if (r.alpha > 0) g.append(s('rect', { x: LEFT, y: y0 + 3, width: round(x(r.alpha) - LEFT), height: ROW - 8, fill: OKABE_ITO.green, stroke: '#1b1f24', 'stroke-width': 0.6 }));
    const e = extra[id] || {};
    const words = [t('chart.spec.alphaValue', { alpha: r.alpha.toFixed(2), per: (e.per_step || 0).toFixed(2), expected: (e.expected || 0).toFixed(2) }),
      `α ${r.alpha.toFixed(2)} · ${(e.per_step || 0).toFixed(2)}`];
    g.append(fittedText(x(1) + 6, y0 + 14, words, LEFT + plotW - x(1) - 6, { class: 'value' }));
    g.append(s('rect', { x: 0, y: y0, width: round(LEFT + plotW), height: ROW, fill: 'transparent' }));
    svg.append(chart.mark(g, t('chart.spec.alphaMark', { id, accepted: r.accepted, proposed: r.proposed, alpha: r.alpha.toFixed(2), per: (e.per_step || 0).toFixed(2), expected: (e.expected || 0).toFixed(2) })));
  });
}

// 3. speedup against batch size (roofline model)
function drawBatch(chart, svg, rows, b, top, plotW, report) {
  const cfg = (report && report.config) || {};
  svg.append(fittedText(0, top + 14, [t('chart.spec.batchTitle', { gpu: cfg.GPU, model: cfg.SHADOW_MODEL }), t('chart.spec.batchShort')], plotW + LEFT, { class: 'panel-title' }, 12, true));
  if (!rows.length) return;
  const plotTop = top + 26;
  const bottom = top + BATCH_H;
  const maxV = Math.max(1.2, ...rows.map((r) => r.speedup));
  const tk = ticks(0, maxV, 3, true);
  const y = linear(0, tk.values[tk.values.length - 1], bottom, plotTop);
  const x = (i) => LEFT + 10 + (i / Math.max(1, rows.length - 1)) * (plotW - 20);
  const axis = s('g', { class: 'axis', 'aria-hidden': 'true' });
  axis.append(s('line', { x1: LEFT, x2: LEFT + plotW, y1: bottom, y2: bottom, class: 'axis-line' }));
  for (const v of tk.values) axis.append(text(LEFT - 6, y(v) + 4, v + '×', { 'text-anchor': 'end', class: 'tick' }));
  let lastRight = -Infinity;
  rows.forEach((r, i) => {
    const label = String(r.batch);
    if (x(i) - textWidth(label) / 2 > lastRight + 3) {
      axis.append(text(x(i), bottom + 15, label, { 'text-anchor': 'middle', class: 'tick' }));
      lastRight = x(i) + textWidth(label) / 2;
    }
  });
  axis.append(text(LEFT + plotW / 2, bottom + 32, t('chart.spec.batchAxis'), { 'text-anchor': 'middle', class: 'axis-label' }));
  svg.append(s('g', { class: 'grid', 'aria-hidden': 'true' }, ...tk.values.map((v) => s('line', { x1: LEFT, x2: LEFT + plotW, y1: round(y(v)), y2: round(y(v)) }))));
  svg.append(axis);
  const even = s('g', { class: 'break-even' });
  even.append(s('line', { x1: LEFT, x2: LEFT + plotW, y1: round(y(1)), y2: round(y(1)), stroke: '#000000', 'stroke-width': 1.5, 'stroke-dasharray': '5 3' }));
  // under the dashed line at the left: the curve starts above 1× there (a gain at batch 1), so nothing is in the way
  even.append(text(LEFT + 4, y(1) + 14, t('chart.spec.noGain'), { class: 'value strong', stroke: '#ffffff', 'stroke-width': 3, 'paint-order': 'stroke' }));
  svg.append(chart.mark(even, t('chart.spec.noGainMark')));
  const path = rows.map((r, i) => `${i ? 'L' : 'M'}${round(x(i))} ${round(y(r.speedup))}`).join(' ');
  svg.append(s('path', { d: path, fill: 'none', stroke: OKABE_ITO.blue, 'stroke-width': 2.5, 'aria-hidden': 'true' }));
  rows.forEach((r, i) => {
    const lose = r.speedup < 1;
    const g = s('g', { class: 'point spec-batch', 'data-batch': String(r.batch), 'data-speedup': r.speedup.toFixed(3), 'data-bound': r.bound });
    g.append(lose ? glyphs.cross(x(i), y(r.speedup)) : glyphs.circle(x(i), y(r.speedup)));
    if (i === 0 || r.batch === b.crossover) {
      const label = r.speedup.toFixed(2) + '×';
      const anchor = i === 0 ? 'start' : 'middle';
      const below = lose ? 20 : -8;        // a loss: under its cross, away from the falling line
      g.append(text(x(i) + (i === 0 ? 6 : 0), y(r.speedup) + below, label, { 'text-anchor': anchor, class: 'value strong', stroke: '#ffffff', 'stroke-width': 3, 'paint-order': 'stroke' }));
    }
    g.append(s('rect', { x: round(x(i) - 10), y: plotTop, width: 20, height: round(bottom - plotTop), fill: 'transparent' }));
    svg.append(chart.mark(g, t('chart.spec.batchMark', { batch: r.batch, speedup: r.speedup.toFixed(2), off: r.off_us.toFixed(0), on: r.on_us.toFixed(0), bound: r.bound === 'compute' ? t('chart.spec.bound.compute') : t('chart.spec.bound.memory') })));
  });
}
