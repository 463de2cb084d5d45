// policies (block 12): the three scheduling policies side by side, one small bar panel per metric (span,
// throughput, mean/max TTFT, worst gap, and preemptions when any) — each with its own unit and a note
// saying whether lower or higher is better. Every bar is labelled, so colour is never the only cue.
import { ChartBuilder } from './figure.js';
import { round, s, swatches, text } from './svg.js';
import { FONT, fittedText, textWidth } from './text-fit.js';
import { OKABE_ITO } from './colours.js';
import { byLang, t } from '../words/i18n.js';

export const NAME = 'policies';

const POLICY = byLang(() => ({
  static: { label: 'static', long: t('chart.policies.staticWaitsFullBatch'), colour: OKABE_ITO.vermillion, kind: 'dots' },
  nochunk: { label: 'continuous', long: t('chart.policies.continuousNoPrompt'), colour: OKABE_ITO.sky, kind: 'hatch' },
  chunked: { label: 'chunked', long: t('chart.policies.continuousChunkedRun'), colour: OKABE_ITO.blue, kind: null },
}));
const METRICS = byLang(() => ([
  { key: 'span', title: t('chart.policies.runTime'), unit: 'ms', better: t('chart.policies.lowerBetter'), fmt: (v) => (v / 1000).toFixed(2) },
  { key: 'throughput', title: 'Throughput', unit: 'token/s', higher: true, better: t('chart.policies.higherBetter'), fmt: (v) => Number(v).toFixed(1) },
  { key: 'mean_ttft', title: t('chart.policies.meanTtft'), unit: 'ms', better: t('chart.policies.lowerBetter'), fmt: (v) => (v / 1000).toFixed(2) },
  { key: 'max_ttft', title: t('chart.policies.maxTtft'), unit: 'ms', better: t('chart.policies.lowerBetter'), fmt: (v) => (v / 1000).toFixed(2) },
  { key: 'worst_gap', title: t('chart.policies.longestStallBetween2'), short: t('chart.policies.largestItl'), unit: 'ms', better: t('chart.policies.lowerBetter'), fmt: (v) => (v / 1000).toFixed(2) },
  { key: 'preemptions', title: t('chart.policies.preemptions'), unit: t('chart.policies.times'), better: t('chart.policies.lowerBetter'), fmt: (v) => String(v), onlyIfAny: true },
]));
const ROW = 22;
const BAR = 14;
const HEAD = 36;     // metric title + "better" note
const PAD = 12;
const COL_GAP = 20;

export function render(data, report, opts = {}) {
  // a deferred big run (data.deferred, py/inference_lab/entrypoints/lab.py run_deferred): no replays yet
  const list = Array.isArray(data.policies) && !data.deferred ? data.policies : [];
  const chart = new ChartBuilder(NAME, t('chart.policies.threeScheduling'), opts.width);
  chart.legend(list.map((p) => {
    const look = POLICY()[p.policy] || { long: p.policy, colour: OKABE_ITO.green, kind: null };
    return { label: look.long, draw: swatches.box(look.colour, look.kind) };
  }));
  if (!list.length) {
    chart.root.dataset.empty = 'true';
    chart.note(data.deferred ? t('chart.policies.deferred') : t('chart.policies.runHasNoPolicy'));
    return chart.finish();
  }
  const metrics = METRICS().filter((m) => !m.onlyIfAny || list.some((p) => Number(p[m.key]) > 0));
  const cols = chart.width >= 900 ? 3 : chart.width >= 560 ? 2 : 1;
  const colW = (chart.width - COL_GAP * (cols - 1)) / cols;
  const panelH = HEAD + list.length * ROW + PAD;
  const nRows = Math.ceil(metrics.length / cols);
  const width = chart.width;
  const height = nRows * panelH;
  const labelW = Math.max(...list.map((p) => textWidth((POLICY()[p.policy] || { label: p.policy }).label))) + 10;

  const summary = t('chart.policies.threePoliciesCompared') + list.map((p) => {
    const look = POLICY()[p.policy] || { label: p.policy };
    return t('chart.policies.runsMsTokensSMeanTtft', { label: look.label, span: (p.span / 1000).toFixed(2), throughput: Number(p.throughput).toFixed(1), mean_ttft: (p.mean_ttft / 1000).toFixed(2), max_ttft: (p.max_ttft / 1000).toFixed(2), worst_gap: (p.worst_gap / 1000).toFixed(2) });
  }).join('; ') + '.';
  const svg = chart.svg(width, height, summary);

  metrics.forEach((m, k) => {
    const col = k % cols;
    const row = Math.floor(k / cols);
    const x0 = col * (colW + COL_GAP);
    const y0 = row * panelH;
    const values = list.map((p) => Number(p[m.key]) || 0);
    const maxV = Math.max(...values) || 1;
    const best = m.higher ? Math.max(...values) : Math.min(...values);
    const valueW = Math.max(...values.map((v) => textWidth(m.fmt(v) + ' ' + m.unit + ' ★', 11, true))) + 8;
    const barX = x0 + labelW;
    const barMax = Math.max(20, colW - labelW - valueW);
    svg.append(fittedText(x0, y0 + 14, [`${m.title} (${m.unit})`, `${m.short || m.title} (${m.unit})`], colW, { class: 'panel-title' }, FONT, true));
    svg.append(text(x0, y0 + 29, m.better, { class: 'value muted' }));
    svg.append(s('line', { x1: round(barX), x2: round(barX), y1: y0 + HEAD - 2, y2: y0 + HEAD + list.length * ROW, class: 'axis-line', 'aria-hidden': 'true' }));
    list.forEach((p, i) => {
      const look = POLICY()[p.policy] || { label: p.policy, colour: OKABE_ITO.green, kind: null };
      const v = values[i];
      const y = y0 + HEAD + i * ROW + (ROW - BAR) / 2;
      const bw = Math.max(v > 0 ? 1 : 0, (v / maxV) * barMax);
      const isBest = v === best && values.filter((w) => w === best).length < values.length;
      const g = s('g', { class: 'bar', 'data-policy': p.policy, 'data-metric': m.key });
      g.append(text(barX - 6, y + BAR - 2.5, look.label, { 'text-anchor': 'end' }));
      if (bw > 0) {
        g.append(s('rect', { x: round(barX), y: round(y), width: round(bw), height: BAR, fill: look.colour, stroke: '#1b1f24', 'stroke-width': 0.5 }));
        if (look.kind) g.append(s('rect', { x: round(barX), y: round(y), width: round(bw), height: BAR, fill: chart.hatchFor(look.colour, look.kind) }));
      }
      g.append(text(barX + bw + 4, y + BAR - 2.5, `${m.fmt(v)} ${m.unit}${isBest ? ' ★' : ''}`, { class: 'value' + (isBest ? ' strong' : '') }));
      g.append(s('rect', { x: round(x0), y: round(y0 + HEAD + i * ROW), width: round(colW), height: ROW, fill: 'transparent' }));
      svg.append(chart.mark(g, t('chart.policies.markValue', { policy: look.long || look.label, metric: m.title, value: m.fmt(v), unit: m.unit, best: isBest ? t('chart.policies.bestOfThree', { better: m.better }) : '' })));
    });
  });

  chart.table(t('chart.policies.threeScheduling2'), [t('chart.policies.policy'), ...metrics.map((m) => `${m.title} (${m.unit})`)],
    list.map((p) => [
      (POLICY()[p.policy] || { long: p.policy }).long, ...metrics.map((m) => m.fmt(Number(p[m.key]) || 0)),
    ]));
  chart.altText(t('chart.policies.bestThreeMetric'));
  return chart.finish();
}
