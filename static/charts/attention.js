// attention (block 5): the followed request's attention weights (last prefill row) for both heads over
// source positions 0..t on one % scale (side-by-side panels, or grouped bars on a phone: bars.js). When the
// followed request was refused there are no weights: a short note says why and which request to follow instead.
import { ChartBuilder } from './figure.js';
import { swatches } from './svg.js';
import { pct } from './axes.js';
import { OKABE_ITO } from './colours.js';
import { refusedNote } from './report-data.js';
import { barRows } from './bars.js';
import { t } from '../words/i18n.js';

export const NAME = 'attention';

const HEADS = [
  { name: 'head 0', colour: OKABE_ITO.blue, kind: null },
  { name: 'head 1', colour: OKABE_ITO.orange, kind: 'hatch' },
];

export function render(data, report, opts = {}) {
  const f = report.follow || {};
  const heads = Array.isArray(data.heads) ? data.heads : null;
  if (!heads || !heads.length) {
    const chart = new ChartBuilder(NAME, t('chart.attention.attentionWeights'), opts.width);
    chart.root.dataset.empty = 'true';
    chart.note(refusedNote(report, t('chart.attention.attentionWeightsDraw')));
    return chart.finish();
  }
  const pos = Number(data.position ?? heads[0].length - 1);
  const n = heads[0].length;
  const context = Array.isArray(data.context) ? data.context : [];
  const chart = new ChartBuilder(NAME,
    t('chart.attention.attentionTokenPosition', { id: f.id || '?', token_text: data.token_text ?? '?', pos }), opts.width);
  chart.legend(HEADS.slice(0, heads.length).map((hd) => ({ label: hd.name, draw: swatches.box(hd.colour, hd.kind) })));

  const labels = Array.from({ length: n }, (_, i) => `${i === pos ? '▸' : ''}${i} ${context[i] ?? ''}`.trim());
  const argmax = heads.map((row) => row.indexOf(Math.max(...row)));
  const summary = t('chart.attention.attentionWeights2', { id: f.id, pos, n }) +
    heads.map((row, hIdx) => t('chart.attention.headLargestPosition', { hIdx, weight: pct(row[argmax[hIdx]]), argmax: argmax[hIdx], context: context[argmax[hIdx]] ?? '' })).join('; ') + '.';
  const rows = labels.map((label, i) => ({ label, strong: i === pos, position: i }));
  barRows(chart, {
    rows, summary, axisLabel: t('chart.attention.weight'),
    series: heads.map((row, hIdx) => {
      const hd = HEADS[hIdx] || { name: 'head ' + hIdx, colour: OKABE_ITO.green, kind: 'dots' };
      return {
        title: hd.name, colour: hd.colour, kind: hd.kind,
        value: (r) => row[r.position],
        strong: (r) => r.position === argmax[hIdx],
        attrs: (r) => ({ 'data-head': hIdx, 'data-position': r.position }),
        detail: (r) => t('chart.attention.positionWeight', { name: hd.name, position: r.position, context: context[r.position] ?? '?', weight: pct(row[r.position], 2) }) +
          (r.position === argmax[hIdx] ? t('chart.attention.headSLargest') : '.'),
      };
    }),
  });

  chart.table(t('chart.attention.attentionWeights3', { id: f.id, pos, token_text: data.token_text ?? '' }),
    [t('chart.attention.position'), 'Token', ...heads.map((_, hIdx) => `head ${hIdx} (%)`)],
    Array.from({ length: n }, (_, i) => [String(i), String(context[i] ?? ''), ...heads.map((row) => (row[i] * 100).toFixed(2))]));
  chart.altText(t('chart.attention.sumPerHead') + (data.sums || heads.map((r) => r.reduce((a, b) => a + b, 0))).map((v) => pct(v, 2)).join(', ') + '.');
  return chart.finish();
}
