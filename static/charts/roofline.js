// roofline (block 10): every step of the run as one point on the named GPU's roofline, log-log: arithmetic
// intensity (FLOP per byte of HBM traffic) on x, the FLOP/s the step reaches on y. Two roofs: the solid one is
// what the clock charges (FLOPS_FRACTION × dense peak, BANDWIDTH_FRACTION × bandwidth), the dashed one the
// datasheet's peak; the ridge point (where the slope meets the ceiling) is labelled. A point's colour and
// shape say its mix (decode only ○, prompt only □, both ◇); a click selects that step (charts/step-link.js).
// Under CLOCK=seed the lab's ms come from COST_*, so a point's FLOP/s is what the roofline formula gives
// for that step on the GPU (the caption says which clock).
// Leaves out: the formula itself (py/inference_lab/core/clock/roofline.py; the step's `cost` is its output) and
// per-layer or per-kernel rooflines (one point per forward pass).
import { ChartBuilder } from './figure.js';
import { round, s, swatches } from './svg.js';
import { fitText, fittedText, textWidth } from './text-fit.js';
import { xAxis } from './axes.js';
import { OKABE_ITO } from './colours.js';
import { blockData } from './report-data.js';
import { linkSteps, stepColumnGroup } from './step-link.js';
import { logItems } from '../core/run-log.js';
import { t } from '../words/i18n.js';

export const NAME = 'roofline';

const TOP = 24;        // the y axis' title above the plot
const LEFT = 44;       // y tick labels
const RIGHT = 14;
const AXIS = 44;       // x tick labels + axis title
const HIT = 16;        // px: the box a point is clicked in (and the selected step's mark)
const DENSE_STEPS = 400; // steps beyond which points on the same spot are drawn once (issue 39: DOM size)
const SPOT_PX = 3;     // px: the spot size of that grouping
const MIX = {
  decode: { colour: OKABE_ITO.blue, glyph: 'circle' },
  prefill: { colour: OKABE_ITO.orange, glyph: 'square' },
  mixed: { colour: OKABE_ITO.green, glyph: 'diamond' },
};

/** 2.4e12 -> "2.4T" (a tick), or with a unit "2.4 TFLOP/s" (SI prefixes, 3 significant digits at most). */
export function si(v, unit) {
  const prefixes = [[1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
  const [div, prefix] = prefixes.find(([d]) => Math.abs(v) >= d) || [1, ''];
  const x = v / div;
  const num = x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1).replace(/\.0$/, '') : x.toFixed(2).replace(/\.?0+$/, '');
  return unit === undefined ? num + prefix : num + ' ' + prefix + unit;
}

/** A log10 scale [d0, d1] -> [r0, r1] (values at or below 0 go to r0). */
function logScale(d0, d1, r0, r1) {
  const [l0, l1] = [Math.log10(d0), Math.log10(d1)];
  const f = (v) => (v > 0 ? r0 + ((Math.log10(v) - l0) / (l1 - l0 || 1)) * (r1 - r0) : r0);
  f.domain = [d0, d1];
  return f;
}

function decades(lo, hi) {
  const out = [];
  for (let e = Math.ceil(Math.log10(lo) - 1e-9); e <= Math.floor(Math.log10(hi) + 1e-9); e++) out.push(Math.pow(10, e));
  return out;
}

/** What the figures say: the GPU (block 10's `shadow`) and the run's efficiencies (report.config). */
function machine(report) {
  const cfg = report.config || {};
  const sh = (blockData(report, 10) || {}).shadow || {};
  if (!(sh.peak > 0 && sh.bandwidth > 0)) return null;
  const ff = Number(cfg.FLOPS_FRACTION) || 1;
  const bwf = Number(cfg.BANDWIDTH_FRACTION) || 1;
  return {
    gpu: sh.gpu, model: sh.model, clock: cfg.CLOCK || 'seed', peak: sh.peak, bandwidth: sh.bandwidth, ff, bwf,
    peakA: sh.peak * ff, bwA: sh.bandwidth * bwf,
  };
}

/** One point per step with a cost: {n, flops, bytes, intensity, seconds, comm, perf, bound, mix, decode, prefill};
 * under TENSOR_PARALLEL > 1 flops and bytes are one GPU's and comm the step's all-reduce seconds (parallel.py). */
export function stepPoints(report) {
  return logItems(report).map((it, i) => {
    const c = it.cost;
    if (!c || !(c.flops > 0) || !(c.bytes > 0) || !(c.seconds > 0)) return null;
    const decode = (it.tasks || []).filter((tk) => tk[1] === 'decode').length;
    const prefill = (it.tasks || []).filter((tk) => tk[1] === 'prefill').reduce((a, tk) => a + Number(tk[2]), 0);
    // the record's (run_log.page_keys): under roofline the step's own duration; under seed the formula's on this GPU
    const seconds = c.seconds;
    return {
      n: i + 1, flops: c.flops, bytes: c.bytes, intensity: c.flops / c.bytes, seconds, perf: c.flops / seconds,
      comm: Number(c.communication) || 0,
      bound: c.bound, decode, prefill, mix: decode && prefill ? 'mixed' : prefill ? 'prefill' : 'decode',
    };
  }).filter(Boolean);
}

function boundWord(p) {
  return p.bound === 'compute' ? t('chart.roofline.compute') : t('chart.roofline.memory');
}

function what(p) {
  return [p.decode ? t('chart.roofline.decodeN', { n: p.decode }) : '', p.prefill ? t('chart.roofline.prefillN', { n: p.prefill }) : '']
    .filter(Boolean).join(' + ');
}

export function render(data, report, opts = {}) {
  const m = machine(report);
  const title = m ? t('chart.roofline.title', { gpu: m.gpu, model: m.model, clock: m.clock, ff: m.ff, bwf: m.bwf })
    : t('chart.roofline.titleNoGpu');
  const chart = new ChartBuilder(NAME, title, opts.width);
  const points = m ? stepPoints(report) : [];
  if (!m || !points.length) {
    chart.root.dataset.empty = 'true';
    chart.note(t('chart.roofline.noSteps'));
    return chart.finish();
  }
  chart.legend([
    { label: t('chart.roofline.decodeOnly'), draw: swatches.shape((x, y) => glyph('decode', x, y)) },
    { label: t('chart.roofline.prefillOnly'), draw: swatches.shape((x, y) => glyph('prefill', x, y)) },
    { label: t('chart.roofline.mixed'), draw: swatches.shape((x, y) => glyph('mixed', x, y)) },
    { label: t('chart.roofline.roofAchievable', { peakA: si(m.peakA, 'FLOP/s'), bwA: si(m.bwA, 'B/s') }), draw: swatches.line('#1b1f24') },
    { label: t('chart.roofline.roofPeak', { peak: si(m.peak, 'FLOP/s'), bw: si(m.bandwidth, 'B/s') }), draw: swatches.line('#4a5260', '5 4') },
  ]);
  chart.note(m.clock === 'roofline' ? t('chart.roofline.clockRoofline', m) : t('chart.roofline.clockSeed', m));

  const width = chart.width;
  const plotH = Math.round(Math.min(340, Math.max(210, width * 0.5)));
  const height = TOP + plotH + AXIS;
  const right = width - RIGHT;
  const axisY = TOP + plotH;
  const ridgeA = m.peakA / m.bwA;
  const ridgeP = m.peak / m.bandwidth;
  const xs = points.map((p) => p.intensity);
  const ys = points.map((p) => p.perf);
  const xlo = Math.pow(10, Math.floor(Math.log10(Math.min(...xs, ridgeA))));
  const xhi = Math.pow(10, Math.ceil(Math.log10(Math.max(...xs, ridgeP) * 1.5)));
  const ylo = Math.pow(10, Math.floor(Math.log10(Math.min(...ys))));
  const yhi = m.peak * 2.2; // room above the peak for its label
  const x = logScale(xlo, xhi, LEFT + 4, right);
  const y = logScale(ylo, yhi, axisY, TOP);

  const memory = points.filter((p) => p.bound === 'memory').length;
  const summary = t('chart.roofline.summary', { ...m, n: points.length, memory, compute: points.length - memory, ridge: Math.round(ridgeA), ridgeP: Math.round(ridgeP) });
  const svg = chart.svg(width, height, summary);

  // grid and axes
  const grid = s('g', { class: 'grid', 'aria-hidden': 'true' });
  for (const v of decades(xlo, xhi)) grid.append(s('line', { x1: round(x(v)), x2: round(x(v)), y1: TOP, y2: axisY }));
  for (const v of decades(ylo, yhi)) grid.append(s('line', { x1: LEFT + 4, x2: right, y1: round(y(v)), y2: round(y(v)) }));
  svg.append(grid);
  svg.append(xAxis(x, axisY, decades(xlo, xhi), si, fitText([t('chart.roofline.xTitle'), t('chart.roofline.xTitleShort')], right - LEFT), (LEFT + right) / 2));
  svg.append(yAxis(y, decades(ylo, yhi)));
  svg.append(fittedText(4, 14, [t('chart.roofline.yTitle'), t('chart.roofline.yTitleShort')], width - 8, { class: 'axis-label' }));

  // the two roofs: min(intensity × bandwidth, ceiling), from where the slope enters the plot
  svg.append(roof(x, y, xlo, xhi, ylo, m.bandwidth, m.peak, { stroke: '#4a5260', 'stroke-width': 1.5, 'stroke-dasharray': '5 4', class: 'roof roof-peak' }));
  svg.append(roof(x, y, xlo, xhi, ylo, m.bwA, m.peakA, { stroke: '#1b1f24', 'stroke-width': 2, class: 'roof roof-achievable' }));
  const rx = x(ridgeA);
  const ry = y(m.peakA);
  svg.append(s('line', { x1: round(rx), x2: round(rx), y1: round(ry), y2: axisY, stroke: '#4a5260', 'stroke-dasharray': '2 3', 'aria-hidden': 'true' }));
  const ridgeDot = s('circle', { cx: round(rx), cy: round(ry), r: 4, fill: '#ffffff', stroke: '#1b1f24', 'stroke-width': 2, class: 'ridge' });
  svg.append(chart.mark(ridgeDot, t('chart.roofline.ridgeDetail', { ...m, ridge: Math.round(ridgeA), ridgeP: Math.round(ridgeP), peakA: si(m.peakA, 'FLOP/s'), bwA: si(m.bwA, 'B/s') })));
  svg.append(labelBeside(rx, axisY - 6, [
    t('chart.roofline.ridgeLabel', { ridge: Math.round(ridgeA) }), t('chart.roofline.ridgeLabelShort', { ridge: Math.round(ridgeA) }), String(Math.round(ridgeA)),
  ], LEFT + 4, right, 'ridge-label'));
  svg.append(labelBeside(right, y(m.peak) - 5, [
    t('chart.roofline.peakLabel', { peak: si(m.peak, 'FLOP/s') }), si(m.peak),
  ], LEFT + 4, right, 'peak-label', 'end'));

  // the steps, in step order (keyboard order); each with an unpainted .step-col box for the selected step's mark
  const cols = [];
  const dots = s('g', { class: 'points' });
  // over DENSE_STEPS steps, one point per spot on the screen (the first step there; its tooltip counts the others)
  const spots = new Map();
  for (const p of points) {
    const px = x(p.intensity);
    const py = y(p.perf);
    cols.push({ step: p.n, x: px - HIT / 2, y: py - HIT / 2, width: HIT, height: HIT });
    const spot = points.length > DENSE_STEPS ? `${p.mix}:${Math.round(px / SPOT_PX)}:${Math.round(py / SPOT_PX)}` : p.n;
    if (spots.has(spot)) { spots.get(spot).others += 1; continue; }
    spots.set(spot, { p, px, py, others: 0 });
  }
  for (const { p, px, py, others } of spots.values()) {
    const g = s('g', { class: 'point', 'data-step': p.n, 'data-mix': p.mix, 'data-bound': p.bound },
      s('rect', { x: round(px - HIT / 2), y: round(py - HIT / 2), width: HIT, height: HIT, fill: 'transparent' }), glyph(p.mix, px, py));
    dots.append(chart.mark(g, t('chart.roofline.pointDetail', {
      n: p.n, what: what(p), gflop: si(p.flops, 'FLOP'), gb: si(p.bytes, 'B'), intensity: p.intensity.toFixed(1),
      bound: boundWord(p),
      ms: (p.seconds * 1e3).toFixed(2), perf: si(p.perf, 'FLOP/s'),
    }) + (p.comm > 0 ? t('chart.roofline.commDetail', { comm: (p.comm * 1e3).toFixed(2) }) : '')
      + (others ? t('chart.roofline.sameSpot', { others }) : '')));
  }
  svg.append(stepColumnGroup(cols), dots);

  // compute / memory / communication: the all-reduce column only when the run is tensor-parallel
  const comm = points.some((p) => p.comm > 0);
  chart.table(t('chart.roofline.tableCaption', m), [t('chart.roofline.step'), t('chart.roofline.work'), 'FLOP', 'byte',
    t('chart.roofline.intensity'), t('chart.roofline.bound'), ...(comm ? [t('chart.roofline.comm')] : []), 'ms',
    'FLOP/s'],
  points.map((p) => [String(p.n), what(p), si(p.flops), si(p.bytes), p.intensity.toFixed(1),
    boundWord(p), ...(comm ? [(p.comm * 1e3).toFixed(2)] : []), (p.seconds * 1e3).toFixed(2), si(p.perf)]));
  const root = chart.finish();
  root.dataset.stepPick = 'marks'; // a click selects the point under it, never "the column" under it
  return linkSteps(root, opts);
}

function glyph(mix, x, y) {
  const { colour } = MIX[mix];
  if (mix === 'prefill') return s('rect', { x: round(x - 5), y: round(y - 5), width: 10, height: 10, fill: colour, stroke: '#000000', 'stroke-width': 1.2 });
  if (mix === 'mixed') return s('path', { d: `M${round(x)} ${round(y - 6.5)} l6.5 6.5 l-6.5 6.5 l-6.5 -6.5 z`, fill: colour, stroke: '#000000', 'stroke-width': 1.2 });
  return s('circle', { cx: round(x), cy: round(y), r: 5, fill: colour, stroke: '#000000', 'stroke-width': 1.2 });
}

// min(I × bw, ceiling) over [xlo, xhi], starting where the slope rises above the plot's floor ylo.
function roof(x, y, xlo, xhi, ylo, bw, ceiling, attrs) {
  const start = Math.max(xlo, ylo / bw);
  const ridge = ceiling / bw;
  const pts = ridge > start ? [[start, start * bw], [ridge, ceiling], [xhi, ceiling]]
    : [[start, ceiling], [xhi, ceiling]];
  return s('polyline', { points: pts.map(([i, p]) => `${round(x(i))},${round(y(p))}`).join(' '), fill: 'none', 'aria-hidden': 'true', ...attrs });
}

// The y axis: decade ticks and SI labels left of the plot.
function yAxis(y, values) {
  const g = s('g', { class: 'axis axis-y', 'aria-hidden': 'true' });
  g.append(s('line', { x1: LEFT + 4, x2: LEFT + 4, y1: round(y(y.domain[1])), y2: round(y(y.domain[0])), class: 'axis-line' }));
  let lastTop = Infinity;
  for (const v of values) {
    const py = y(v);
    g.append(s('line', { x1: LEFT, x2: LEFT + 4, y1: round(py), y2: round(py), class: 'axis-line' }));
    if (py + 6 > lastTop - 2) continue; // never overlap two labels
    g.append(fittedText(LEFT - 2, py + 4, [si(v)], LEFT - 4, { 'text-anchor': 'end', class: 'tick' }));
    lastTop = py - 8;
  }
  return g;
}

// A label at (x, baseline): start-anchored right of x when it fits before `right`, else end-anchored
// left of it; the longest variant that fits the side it goes on.
function labelBeside(x, baseline, variants, left, right, cls, prefer = 'start') {
  const roomRight = right - (x + 5);
  const roomLeft = x - 5 - left;
  const fitsRight = textWidth(variants[0], 11, true) <= roomRight;
  const anchor = prefer === 'end' ? (roomLeft >= textWidth(variants[variants.length - 1], 11, true) ? 'end' : 'start')
    : (fitsRight || roomRight >= roomLeft ? 'start' : 'end');
  const room = anchor === 'start' ? roomRight : roomLeft;
  const at = anchor === 'start' ? x + 5 : x - 5;
  return fittedText(at, baseline, variants, Math.max(room, 0), { 'text-anchor': anchor, class: 'value strong ' + cls, 'aria-hidden': 'true' }, 11, true);
}
