// policies (block 12): the three scheduling policies side by side, one small bar panel per metric (span,
// throughput, mean/max TTFT, worst gap, and preemptions when any) — each with its own unit and a note
// saying whether lower or higher is better. Every bar is labelled, so colour is never the only cue.
import { ChartBuilder, OKABE_ITO, round, s, swatches, text, textWidth } from './svg.js';
import { tl } from '../words/i18n.js';

export const NAME = 'policies';

const POLICY = {
  static: { label: 'static', long: tl('static (đợi đủ nhóm)', 'static (waits for a full batch)'), colour: OKABE_ITO.vermillion, kind: 'dots' },
  nochunk: { label: 'continuous', long: tl('continuous, không chia prompt', 'continuous, no prompt chunking'), colour: OKABE_ITO.sky, kind: 'hatch' },
  chunked: { label: 'chunked', long: tl('continuous + chunked (lần chạy này)', 'continuous + chunked (this run)'), colour: OKABE_ITO.blue, kind: null },
};
const METRICS = [
  { key: 'span', title: tl('Thời gian chạy', 'Run time'), unit: 'ms', better: tl('thấp hơn tốt hơn', 'lower is better'), fmt: (v) => (v / 1000).toFixed(2) },
  { key: 'throughput', title: 'Throughput', unit: 'token/s', better: tl('cao hơn tốt hơn', 'higher is better'), fmt: (v) => Number(v).toFixed(1) },
  { key: 'mean_ttft', title: tl('TTFT trung bình', 'Mean TTFT'), unit: 'ms', better: tl('thấp hơn tốt hơn', 'lower is better'), fmt: (v) => (v / 1000).toFixed(2) },
  { key: 'max_ttft', title: tl('TTFT lớn nhất', 'Max TTFT'), unit: 'ms', better: tl('thấp hơn tốt hơn', 'lower is better'), fmt: (v) => (v / 1000).toFixed(2) },
  { key: 'worst_gap', title: tl('Khoảng đứng lớn nhất giữa 2 token', 'Longest stall between 2 tokens'), unit: 'ms', better: tl('thấp hơn tốt hơn', 'lower is better'), fmt: (v) => (v / 1000).toFixed(2) },
  { key: 'preemptions', title: tl('Số lần preempt', 'Preemptions'), unit: tl('lần', 'times'), better: tl('thấp hơn tốt hơn', 'lower is better'), fmt: (v) => String(v), onlyIfAny: true },
];
const ROW = 22;
const BAR = 14;
const HEAD = 36;     // metric title + "better" note
const PAD = 12;
const COL_GAP = 20;

export function render(data, report, opts = {}) {
  const list = Array.isArray(data.policies) ? data.policies : [];
  const chart = new ChartBuilder(NAME, tl('Ba chính sách lập lịch trên cùng trace (đồng hồ mô phỏng, chi phí giả định)', 'Three scheduling policies on the same trace (simulated clock, assumed costs)'), opts.width);
  chart.legend(list.map((p) => {
    const look = POLICY[p.policy] || { long: p.policy, colour: OKABE_ITO.green, kind: null };
    return { label: look.long, draw: swatches.box(look.colour, look.kind) };
  }));
  if (!list.length) {
    chart.root.dataset.empty = 'true';
    chart.note(tl('Lần chạy này không có số liệu so sánh chính sách.', 'This run has no policy comparison.'));
    return chart.finish();
  }
  const metrics = METRICS.filter((m) => !m.onlyIfAny || list.some((p) => Number(p[m.key]) > 0));
  const cols = chart.width >= 900 ? 3 : chart.width >= 560 ? 2 : 1;
  const colW = (chart.width - COL_GAP * (cols - 1)) / cols;
  const panelH = HEAD + list.length * ROW + PAD;
  const nRows = Math.ceil(metrics.length / cols);
  const width = chart.width;
  const height = nRows * panelH;
  const labelW = Math.max(...list.map((p) => textWidth((POLICY[p.policy] || { label: p.policy }).label))) + 10;

  const summary = tl('So sánh ba chính sách: ', 'Three policies compared: ') + list.map((p) => {
    const look = POLICY[p.policy] || { label: p.policy };
    return tl(`${look.label}: chạy ${(p.span / 1000).toFixed(2)} ms, ${Number(p.throughput).toFixed(1)} token/s, TTFT trung bình ${(p.mean_ttft / 1000).toFixed(2)} ms, lớn nhất ${(p.max_ttft / 1000).toFixed(2)} ms, khoảng đứng lớn nhất ${(p.worst_gap / 1000).toFixed(2)} ms`, `${look.label}: runs ${(p.span / 1000).toFixed(2)} ms, ${Number(p.throughput).toFixed(1)} tokens/s, mean TTFT ${(p.mean_ttft / 1000).toFixed(2)} ms, max ${(p.max_ttft / 1000).toFixed(2)} ms, longest stall ${(p.worst_gap / 1000).toFixed(2)} ms`);
  }).join('; ') + '.';
  const svg = chart.svg(width, height, summary);

  metrics.forEach((m, k) => {
    const col = k % cols;
    const row = Math.floor(k / cols);
    const x0 = col * (colW + COL_GAP);
    const y0 = row * panelH;
    const values = list.map((p) => Number(p[m.key]) || 0);
    const maxV = Math.max(...values) || 1;
    const best = m.better.startsWith('cao') ? Math.max(...values) : Math.min(...values);
    const valueW = Math.max(...values.map((v) => textWidth(m.fmt(v) + ' ' + m.unit + ' ★', 11, true))) + 8;
    const barX = x0 + labelW;
    const barMax = Math.max(20, colW - labelW - valueW);
    svg.append(text(x0, y0 + 14, `${m.title} (${m.unit})`, { class: 'panel-title' }));
    svg.append(text(x0, y0 + 29, m.better, { class: 'value muted' }));
    svg.append(s('line', { x1: round(barX), x2: round(barX), y1: y0 + HEAD - 2, y2: y0 + HEAD + list.length * ROW, class: 'axis-line', 'aria-hidden': 'true' }));
    list.forEach((p, i) => {
      const look = POLICY[p.policy] || { label: p.policy, colour: OKABE_ITO.green, kind: null };
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
      svg.append(chart.mark(g, tl(`${look.long || look.label} — ${m.title}: ${m.fmt(v)} ${m.unit}${isBest ? ' (tốt nhất trong ba, ' + m.better + ')' : ''}.`, `${look.long || look.label} — ${m.title}: ${m.fmt(v)} ${m.unit}${isBest ? ' (best of the three, ' + m.better + ')' : ''}.`)));
    });
  });

  chart.table(tl('Ba chính sách lập lịch (ms mô phỏng, token/s mô phỏng)', 'Three scheduling policies (simulated ms, simulated tokens/s)'), [tl('Chính sách', 'Policy'), ...metrics.map((m) => `${m.title} (${m.unit})`)],
    list.map((p) => [(POLICY[p.policy] || { long: p.policy }).long, ...metrics.map((m) => m.fmt(Number(p[m.key]) || 0))]));
  chart.altText(tl('★ = tốt nhất trong ba ở chỉ số đó. Các chênh lệch là hệ quả của công thức chi phí giả định, không phải tốc độ GPU thật.', '★ = best of the three on that metric. The differences follow from the assumed cost formula, not from real GPU speed.'));
  return chart.finish();
}
