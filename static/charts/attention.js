// attention (block 5): the followed request's attention weights (last prefill row) for both heads over
// source positions 0..t on one % scale (side-by-side panels, or grouped bars on a phone: bars.js). When the followed request
// was refused there are no weights: a short note says why and which request to follow instead.
import { ChartBuilder, OKABE_ITO, pct, refusedNote, swatches } from './svg.js';
import { barRows } from './bars.js';
import { tl } from '../words/i18n.js';

export const NAME = 'attention';

const HEADS = [
  { name: 'head 0', colour: OKABE_ITO.blue, kind: null },
  { name: 'head 1', colour: OKABE_ITO.orange, kind: 'hatch' },
];

export function render(data, report, opts = {}) {
  const f = report.follow || {};
  const heads = Array.isArray(data.heads) ? data.heads : null;
  if (!heads || !heads.length) {
    const chart = new ChartBuilder(NAME, tl('Trọng số attention của yêu cầu theo dõi', 'Attention weights of the followed request'), opts.width);
    chart.root.dataset.empty = 'true';
    chart.note(refusedNote(report, tl('trọng số attention để vẽ', 'attention weights to draw')));
    return chart.finish();
  }
  const t = Number(data.position ?? heads[0].length - 1);
  const n = heads[0].length;
  const context = Array.isArray(data.context) ? data.context : [];
  const chart = new ChartBuilder(NAME,
    tl(`Attention của ${f.id || '?'}: token “${data.token_text ?? '?'}” ở vị trí ${t} nhìn lại vị trí 0..${t} (mỗi head cộng lại = 100%)`, `Attention of ${f.id || '?'}: token “${data.token_text ?? '?'}” at position ${t} looks back at positions 0..${t} (each head sums to 100%)`), opts.width);
  chart.legend(HEADS.slice(0, heads.length).map((hd) => ({ label: hd.name, draw: swatches.box(hd.colour, hd.kind) })));

  const labels = Array.from({ length: n }, (_, i) => `${i === t ? '▸' : ''}${i} ${context[i] ?? ''}`.trim());
  const argmax = heads.map((row) => row.indexOf(Math.max(...row)));
  const summary = tl(`Trọng số attention của ${f.id} ở vị trí ${t} trên ${n} vị trí nguồn. `, `Attention weights of ${f.id} at position ${t} over ${n} source positions. `) +
    heads.map((row, hIdx) => tl(`Head ${hIdx}: lớn nhất ${pct(row[argmax[hIdx]])} ở vị trí ${argmax[hIdx]} (${context[argmax[hIdx]] ?? ''})`, `Head ${hIdx}: largest ${pct(row[argmax[hIdx]])} at position ${argmax[hIdx]} (${context[argmax[hIdx]] ?? ''})`)).join('; ') + '.';
  const rows = labels.map((label, i) => ({ label, strong: i === t, position: i }));
  barRows(chart, {
    rows, summary, axisLabel: tl('trọng số (%)', 'weight (%)'),
    series: heads.map((row, hIdx) => {
      const hd = HEADS[hIdx] || { name: 'head ' + hIdx, colour: OKABE_ITO.green, kind: 'dots' };
      return {
        title: hd.name, colour: hd.colour, kind: hd.kind,
        value: (r) => row[r.position],
        strong: (r) => r.position === argmax[hIdx],
        attrs: (r) => ({ 'data-head': hIdx, 'data-position': r.position }),
        detail: (r) => tl(`${hd.name}, vị trí ${r.position} (${context[r.position] ?? '?'}): trọng số ${pct(row[r.position], 2)}`, `${hd.name}, position ${r.position} (${context[r.position] ?? '?'}): weight ${pct(row[r.position], 2)}`) +
          (r.position === argmax[hIdx] ? tl(' — lớn nhất của head này.', ' — this head\'s largest.') : '.'),
      };
    }),
  });

  chart.table(tl(`Trọng số attention của ${f.id} (vị trí ${t}, token ${data.token_text ?? ''})`, `Attention weights of ${f.id} (position ${t}, token ${data.token_text ?? ''})`),
    [tl('Vị trí', 'Position'), 'Token', ...heads.map((_, hIdx) => `head ${hIdx} (%)`)],
    Array.from({ length: n }, (_, i) => [String(i), String(context[i] ?? ''), ...heads.map((row) => (row[i] * 100).toFixed(2))]));
  chart.altText(tl('Tổng mỗi head: ', 'Sum per head: ') + (data.sums || heads.map((r) => r.reduce((a, b) => a + b, 0))).map((v) => pct(v, 2)).join(', ') + '.');
  return chart.finish();
}
