// quantization (blocks 9 and 13): QUANT_BITS and its two neighbours (computed by the engine: block 13
// sweep) in three small bar panels that share the rows — weight bytes (against FP32), the largest logit
// error on block 9's probe prompt, and the share of top-1 decisions the quality gate keeps, with the gate's
// threshold as a dashed line. The run's own width is banded and marked ▸; every bar is labelled, and the
// verdict is written (✓ ĐẠT / ✗ KHÔNG ĐẠT), so colour is never the only cue. Drawn in both panels: in
// block 9 the caption leads with memory vs error, in block 13 with the decisions kept.
import { ChartBuilder } from './figure.js';
import { round, s, swatches, text } from './svg.js';
import { textWidth } from './text-fit.js';
import { pct } from './axes.js';
import { OKABE_ITO } from './colours.js';
import { blockData } from './report-data.js';
import { byLang, t } from '../words/i18n.js';

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
// 'ĐẠT' / 'KHÔNG ĐẠT' of one bit width against the quality gate.
function verdict(p) { return p.passed ? t('chart.quantization.verdictPass') : t('chart.quantization.verdictFail'); }
// 'INT4' or 'INT4 (lần chạy này)'.
function bitsName(p) { return 'INT' + p.bits + (p.current ? t('chart.quantization.thisRun') : ''); }

const METRICS = byLang(() => ([
  {
    key: 'int_bytes', title: t('chart.quantization.weightSize'), unit: 'byte', better: t('chart.quantization.lessLighter'),
    value: (p) => Number(p.int_bytes), fmt: (p) => `${fmtBytes(p.int_bytes)} byte`,
    detail: (p) => t('chart.quantization.intBytesBitIntegersOne', { bits: p.bits, int_bytes: fmtBytes(p.int_bytes), fp32_bytes: p.fp32_bytes, ratio: (p.fp32_bytes / p.int_bytes).toFixed(2) }),
  },
  {
    key: 'logit_err', title: t('chart.quantization.largestLogitError'), unit: '', better: t('chart.quantization.smallerCloserOriginal'),
    value: (p) => Number(p.logit_err) || 0, fmt: (p) => (p.logit_err === null || p.logit_err === undefined ? '—' : Number(p.logit_err).toFixed(4)),
    detail: (p, probe) => (p.logit_err === null || p.logit_err === undefined ? t('chart.quantization.intNoPromptMeasure', { bits: p.bits })
      : t('chart.quantization.intLogitsPromptDiffer', { bits: p.bits, probe, logit_err: Number(p.logit_err).toFixed(4), levels: p.levels })),
  },
  {
    key: 'agreement', title: t('chart.quantization.top1DecisionsKept'), unit: '%', better: t('chart.quantization.higherMustGate'),
    value: (p) => Number(p.agreement) || 0, fmt: (p) => (p.agreement === null || p.agreement === undefined ? '—' : `${p.kept}/${p.decisions} = ${pct(p.agreement)} ${p.passed ? '✓' : '✗'}`),
    detail: (p, probe, gate) => (p.agreement === null || p.agreement === undefined ? t('chart.quantization.intNoPromptQualityGate', { bits: p.bits })
      : t('chart.quantization.agreementDetail', { bits: p.bits, kept: p.kept, decisions: p.decisions, agreement: pct(p.agreement), gate: pct(gate, 0), verdict: verdict(p) })),
  },
]));

export function render(data, report, opts = {}) {
  const b13 = blockData(report, 13) || {};
  const b9 = blockData(report, 9) || {};
  const sweep = Array.isArray(b13.sweep) ? b13.sweep : [];
  const gate = Number(b13.gate ?? (report.config && report.config.QUALITY_GATE));
  const probe = b13.probe || b9.probe || '?';
  const inGate = 'gate' in data;           // drawn in block 13's panel (else block 9's)
  const bits = Number(data.bits ?? b9.bits);
  const title = inGate
    ? t('chart.quantization.qualityGateBitWidthInt', { bits, gate: pct(gate, 0) })
    : t('chart.quantization.tradingMemoryErrorInt', { bits });
  const chart = new ChartBuilder(NAME, title, opts.width);
  chart.legend([
    { label: t('chart.quantization.quantBitsRun', { bits }), draw: swatches.box(CURRENT.colour) },
    { label: t('chart.quantization.neighbouringBitWidths'), draw: swatches.box(NEIGHBOUR.colour, NEIGHBOUR.kind) },
    { label: t('chart.quantization.qualityGateThreshold', { gate: pct(gate, 0) }), draw: swatches.line('#000000', '5 3') },
  ]);
  if (!sweep.length) {
    chart.root.dataset.empty = 'true';
    chart.note(t('chart.quantization.runHasNoBitWidth'));
    return chart.finish();
  }

  const cols = chart.width >= 760 ? 3 : 1;
  const colW = (chart.width - COL_GAP * (cols - 1)) / cols;
  const panelH = HEAD + sweep.length * ROW + PAD;
  const nRows = Math.ceil(METRICS().length / cols);
  const width = chart.width;
  const height = nRows * panelH;
  const labelW = Math.max(...sweep.map((p) => textWidth(`▸INT${p.bits}`, 12, true))) + 10;

  const summary = t('chart.quantization.bitWidthsFp32BytesGate', { nSweep: sweep.length, fp32_bytes: sweep[0].fp32_bytes, gate: pct(gate, 0) }) + sweep.map((p) =>
    t('chart.quantization.sweepSummary', { name: bitsName(p), bytes: fmtBytes(p.int_bytes), error: METRICS()[1].fmt(p), kept: METRICS()[2].fmt(p).replace(/ [✓✗]$/, ''), verdict: verdict(p) })).join('; ') + '.';
  const svg = chart.svg(width, height, summary);

  METRICS().forEach((m, k) => {
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
      svg.append(chart.mark(line, t('chart.quantization.qualityGateThreshold2', { gate: pct(gate, 0) }) +
        (passing.length ? t('chart.quantization.pass', { passing: passing.join(', ') }) : t('chart.quantization.noBitWidthPicture'))));
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

  chart.table(t('chart.quantization.intTwoNeighboursFp32', { bits, fp32_bytes: sweep[0].fp32_bytes }),
    [t('chart.quantization.bits'), t('chart.quantization.weightBytes'), t('chart.quantization.logitErrorPrompt', { probe }), t('chart.quantization.top1Kept'), t('chart.quantization.gate', { gate: pct(gate, 0) })],
    sweep.map((p) => [bitsName(p), fmtBytes(p.int_bytes), METRICS()[1].fmt(p),
      p.agreement === null || p.agreement === undefined ? '—' : `${p.kept}/${p.decisions} = ${pct(p.agreement)}`, verdict(p)]));
  chart.altText(t('chart.quantization.fewerBitsBytesBut'));
  return chart.finish();
}
