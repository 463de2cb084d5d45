// quantization (blocks 9 and 13): QUANT_BITS and its two neighbours (computed by the engine: block 13
// sweep) in three small bar panels that share the rows — weight bytes (against FP32), the largest logit
// error on block 9's probe prompt, and the share of top-1 decisions the quality gate keeps, with the gate's
// threshold as a dashed line. The run's own width is banded and marked ▸; every bar is labelled, and the
// verdict is written (✓ ĐẠT / ✗ KHÔNG ĐẠT), so colour is never the only cue. Drawn in both panels: in
// block 9 the caption leads with memory vs error, in block 13 with the decisions kept.
import { ChartBuilder, OKABE_ITO, blockData, pct, round, s, swatches, text, textWidth } from './svg.js';
import { tl } from '../words/i18n.js';

export const NAME = 'quantization';

const CURRENT = { colour: OKABE_ITO.blue, kind: null };
const NEIGHBOUR = { colour: OKABE_ITO.sky, kind: 'dots' };
const BAND = '#fff4d6';
const ROW = 24;
const BAR = 14;
const HEAD = 38;
const PAD = 10;
const COL_GAP = 22;

function fmtBytes(v) { return Number.isInteger(Number(v)) ? String(v) : Number(v).toFixed(1); }

const METRICS = [
  {
    key: 'int_bytes', title: tl('Dung lượng trọng số', 'Weight size'), unit: 'byte', better: tl('ít hơn = nhẹ hơn', 'less = lighter'),
    value: (p) => Number(p.int_bytes), fmt: (p) => `${fmtBytes(p.int_bytes)} byte`,
    detail: (p) => tl(`INT${p.bits}: ${fmtBytes(p.int_bytes)} byte (số nguyên ${p.bits} bit + một scale FP32 mỗi cột), so với FP32 ${p.fp32_bytes} byte — nhỏ hơn ${(p.fp32_bytes / p.int_bytes).toFixed(2)} lần.`, `INT${p.bits}: ${fmtBytes(p.int_bytes)} bytes (${p.bits}-bit integers + one FP32 scale per column), against FP32 ${p.fp32_bytes} bytes — ${(p.fp32_bytes / p.int_bytes).toFixed(2)} times smaller.`),
  },
  {
    key: 'logit_err', title: tl('Sai số logits lớn nhất', 'Largest logit error'), unit: '', better: tl('nhỏ hơn = gần bản gốc', 'smaller = closer to the original'),
    value: (p) => Number(p.logit_err) || 0, fmt: (p) => (p.logit_err === null || p.logit_err === undefined ? '—' : Number(p.logit_err).toFixed(4)),
    detail: (p, probe) => (p.logit_err === null || p.logit_err === undefined ? tl(`INT${p.bits}: không có prompt để đo sai số logits.`, `INT${p.bits}: no prompt to measure the logit error on.`)
      : tl(`INT${p.bits}: logits trên prompt ${probe} lệch bản gốc tối đa ${Number(p.logit_err).toFixed(4)} (bỏ <bos>); bước lượng tử = max|w| / ${p.levels}.`, `INT${p.bits}: logits on prompt ${probe} differ from the original by at most ${Number(p.logit_err).toFixed(4)} (without <bos>); quantization step = max|w| / ${p.levels}.`)),
  },
  {
    key: 'agreement', title: tl('Quyết định top-1 giữ nguyên', 'Top-1 decisions kept'), unit: '%', better: tl('cao hơn; phải ≥ ngưỡng cổng', 'higher; must be ≥ the gate threshold'),
    value: (p) => Number(p.agreement) || 0, fmt: (p) => (p.agreement === null || p.agreement === undefined ? '—' : `${p.kept}/${p.decisions} = ${pct(p.agreement)} ${p.passed ? '✓' : '✗'}`),
    detail: (p, probe, gate) => (p.agreement === null || p.agreement === undefined ? tl(`INT${p.bits}: không có prompt nào để cổng chất lượng so.`, `INT${p.bits}: no prompt for the quality gate to compare.`)
      : tl(`INT${p.bits}: ${p.kept}/${p.decisions} quyết định top-1 giống bản gốc = ${pct(p.agreement)}; ngưỡng ${pct(gate, 0)} → ${p.passed ? 'ĐẠT' : 'KHÔNG ĐẠT'}.`, `INT${p.bits}: ${p.kept}/${p.decisions} top-1 decisions match the original = ${pct(p.agreement)}; threshold ${pct(gate, 0)} → ${p.passed ? 'PASS' : 'FAIL'}.`)),
  },
];

export function render(data, report, opts = {}) {
  const b13 = blockData(report, 13) || {};
  const b9 = blockData(report, 9) || {};
  const sweep = Array.isArray(b13.sweep) ? b13.sweep : [];
  const gate = Number(b13.gate ?? (report.config && report.config.QUALITY_GATE));
  const probe = b13.probe || b9.probe || '?';
  const inGate = 'gate' in data;           // drawn in block 13's panel (else block 9's)
  const bits = Number(data.bits ?? b9.bits);
  const title = inGate
    ? tl(`Cổng chất lượng theo số bit: INT${bits} và hai mức lân cận — quyết định top-1 giữ nguyên so với ngưỡng ${pct(gate, 0)}, đổi lấy bao nhiêu byte`, `Quality gate by bit width: INT${bits} and its two neighbours — top-1 decisions kept against the ${pct(gate, 0)} threshold, for how many bytes`)
    : tl(`Đổi bộ nhớ lấy sai số: INT${bits} và hai mức lân cận — byte trọng số, sai số logits, quyết định top-1 giữ nguyên`, `Trading memory for error: INT${bits} and its two neighbours — weight bytes, logit error, top-1 decisions kept`);
  const chart = new ChartBuilder(NAME, title, opts.width);
  chart.legend([
    { label: tl(`QUANT_BITS = ${bits} (lần chạy này)`, `QUANT_BITS = ${bits} (this run)`), draw: swatches.box(CURRENT.colour) },
    { label: tl('mức bit lân cận (engine tính thêm)', 'neighbouring bit widths (computed by the engine as well)'), draw: swatches.box(NEIGHBOUR.colour, NEIGHBOUR.kind) },
    { label: tl(`ngưỡng cổng chất lượng ${pct(gate, 0)}`, `quality gate threshold ${pct(gate, 0)}`), draw: swatches.line('#000000', '5 3') },
  ]);
  if (!sweep.length) {
    chart.root.dataset.empty = 'true';
    chart.note(tl('Lần chạy này không có số liệu so các mức bit.', 'This run has no bit-width comparison.'));
    return chart.finish();
  }

  const cols = chart.width >= 760 ? 3 : 1;
  const colW = (chart.width - COL_GAP * (cols - 1)) / cols;
  const panelH = HEAD + sweep.length * ROW + PAD;
  const nRows = Math.ceil(METRICS.length / cols);
  const width = chart.width;
  const height = nRows * panelH;
  const labelW = Math.max(...sweep.map((p) => textWidth(`▸INT${p.bits}`, 12, true))) + 10;

  const summary = tl(`${sweep.length} mức bit (FP32 = ${sweep[0].fp32_bytes} byte, ngưỡng cổng ${pct(gate, 0)}): `, `${sweep.length} bit widths (FP32 = ${sweep[0].fp32_bytes} bytes, gate threshold ${pct(gate, 0)}): `) + sweep.map((p) =>
    tl(`INT${p.bits}${p.current ? ' (lần chạy này)' : ''} ${fmtBytes(p.int_bytes)} byte, sai số logits ${METRICS[1].fmt(p)}, giữ ${METRICS[2].fmt(p).replace(/ [✓✗]$/, '')} → ${p.passed ? 'ĐẠT' : 'KHÔNG ĐẠT'}`, `INT${p.bits}${p.current ? ' (this run)' : ''} ${fmtBytes(p.int_bytes)} bytes, logit error ${METRICS[1].fmt(p)}, kept ${METRICS[2].fmt(p).replace(/ [✓✗]$/, '')} → ${p.passed ? 'PASS' : 'FAIL'}`)).join('; ') + '.';
  const svg = chart.svg(width, height, summary);

  METRICS.forEach((m, k) => {
    const col = k % cols;
    const row = Math.floor(k / cols);
    const x0 = col * (colW + COL_GAP);
    const y0 = row * panelH;
    const values = sweep.map(m.value);
    const top = m.key === 'agreement' ? 1 : Math.max(...values) || 1;
    const valueW = Math.max(...sweep.map((p) => textWidth(m.fmt(p), 11, true))) + 8;
    const barX = x0 + labelW;
    const barMax = Math.max(30, colW - labelW - valueW);
    const xs = (v) => barX + (v / top) * barMax;
    svg.append(text(x0, y0 + 14, m.title + (m.key === 'logit_err' ? ` (prompt ${probe})` : m.unit ? ` (${m.unit})` : ''), { class: 'panel-title' }));
    svg.append(text(x0, y0 + 29, m.better, { class: 'value muted' }));
    svg.append(s('line', { x1: round(barX), x2: round(barX), y1: y0 + HEAD - 2, y2: y0 + HEAD + sweep.length * ROW, class: 'axis-line', 'aria-hidden': 'true' }));
    sweep.forEach((p, i) => {
      if (p.current) svg.append(s('rect', { x: round(x0), y: round(y0 + HEAD + i * ROW), width: round(colW), height: ROW, fill: BAND, class: 'current-band', 'aria-hidden': 'true' }));
    });
    // the threshold next: bars and their labels (with a halo) are drawn over it
    if (m.key === 'agreement' && gate >= 0 && gate <= 1) {
      const gx = xs(gate);
      const line = s('g', { class: 'gate', 'data-gate': gate });
      line.append(s('line', { x1: round(gx), x2: round(gx), y1: y0 + HEAD - 4, y2: y0 + HEAD + sweep.length * ROW, stroke: '#000000', 'stroke-width': 2, 'stroke-dasharray': '5 3' }));
      const passing = sweep.filter((p) => p.passed).map((p) => 'INT' + p.bits);
      svg.append(chart.mark(line, tl(`Ngưỡng cổng chất lượng (QUALITY_GATE) ${pct(gate, 0)}: `, `Quality gate threshold (QUALITY_GATE) ${pct(gate, 0)}: `) +
        (passing.length ? tl(`${passing.join(', ')} đạt.`, `${passing.join(', ')} pass.`) : tl('không mức nào trong hình đạt.', 'no bit width in the picture passes.'))));
    }
    sweep.forEach((p, i) => {
      const look = p.current ? CURRENT : NEIGHBOUR;
      const v = values[i];
      const yr = y0 + HEAD + i * ROW;
      const y = yr + (ROW - BAR) / 2;
      const g = s('g', { class: 'bar', 'data-bits': p.bits, 'data-metric': m.key, 'data-current': p.current ? 'true' : 'false' });
      g.append(text(barX - 6, y + BAR - 2.5, (p.current ? '▸' : '') + `INT${p.bits}`, { 'text-anchor': 'end', class: p.current ? 'strong' : '' }));
      const bw = v > 0 ? Math.max(1, xs(v) - barX) : 0;
      if (bw > 0) {
        g.append(s('rect', { x: round(barX), y: round(y), width: round(bw), height: BAR, fill: look.colour, stroke: '#1b1f24', 'stroke-width': p.current ? 1.6 : 0.5 }));
        if (look.kind) g.append(s('rect', { x: round(barX), y: round(y), width: round(bw), height: BAR, fill: chart.hatchFor(look.colour, look.kind) }));
      }
      g.append(text(barX + bw + 4, y + BAR - 2.5, m.fmt(p), {
        class: 'value' + (p.current ? ' strong' : ''), stroke: p.current ? BAND : '#ffffff', 'stroke-width': 4, 'paint-order': 'stroke', 'stroke-linejoin': 'round',
      }));
      g.append(s('rect', { x: round(x0), y: round(yr), width: round(colW), height: ROW, fill: 'transparent' }));
      svg.append(chart.mark(g, m.detail(p, probe, gate)));
    });
  });

  chart.table(tl(`INT${bits} và hai mức lân cận (FP32 = ${sweep[0].fp32_bytes} byte)`, `INT${bits} and its two neighbours (FP32 = ${sweep[0].fp32_bytes} bytes)`),
    [tl('Số bit', 'Bits'), tl('Byte trọng số', 'Weight bytes'), tl(`Sai số logits (prompt ${probe})`, `Logit error (prompt ${probe})`), tl('Top-1 giữ nguyên', 'Top-1 kept'), tl(`Cổng ${pct(gate, 0)}`, `Gate ${pct(gate, 0)}`)],
    sweep.map((p) => [tl(`INT${p.bits}${p.current ? ' (lần chạy này)' : ''}`, `INT${p.bits}${p.current ? ' (this run)' : ''}`), fmtBytes(p.int_bytes), METRICS[1].fmt(p),
      p.agreement === null || p.agreement === undefined ? '—' : `${p.kept}/${p.decisions} = ${pct(p.agreement)}`, p.passed ? tl('ĐẠT', 'PASS') : tl('KHÔNG ĐẠT', 'FAIL')]));
  chart.altText(tl('Ít bit hơn: ít byte hơn, nhưng bước lượng tử to hơn nên sai số logits tăng, và khi sai số đảo thứ tự hai token cao nhất thì quyết định top-1 đổi. Các mức lân cận do engine tính thêm với cùng trọng số và cùng prompt.', 'Fewer bits: fewer bytes, but a larger quantization step, so the logit error grows, and when the error swaps the two highest tokens the top-1 decision changes. The neighbouring widths are computed by the engine with the same weights and the same prompts.'));
  return chart.finish();
}
