// Numbers and the horizontal axis: ms/pct formats, round tick values, a linear scale, the x axis with
// its tick labels (never overlapping), light grid lines, and the unpainted step columns the step
// navigator reads.
// Leaves out: the y side (each chart labels its own rows) and the figure around the drawing (figure.js).

import { round, s, text } from './svg.js';
import { textWidth } from './text-fit.js';
import { stepColumnGroup } from './step-link.js';

// ── numbers ───────────────────────────────────────────────────────────────
/** Simulated µs -> "22.00" (ms, two decimals, like the printed lines). */
export function ms(us, digits = 2) { return (Number(us) / 1000).toFixed(digits); }
/** 0.1234 -> "12.3%". */
export function pct(p, digits = 1) { return (Number(p) * 100).toFixed(digits) + '%'; }

/** Round tick values from lo up to hi (cover: up to the first tick >= hi): steps of 1, 2, 2.5 or 5 × 10^k. */
export function ticks(lo, hi, approx, cover = false) {
  if (!(hi > lo)) hi = lo + 1;
  const raw = (hi - lo) / Math.max(1, approx);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((st) => st >= raw) || 10 * mag;
  const out = [];
  const first = Math.ceil(lo / step - 1e-9) * step;
  for (let v = first; v <= hi + step * 1e-9; v += step) out.push(Number(v.toFixed(10)));
  if (cover && (!out.length || out[out.length - 1] < hi - step * 1e-9)) {
    out.push(Number((first + out.length * step).toFixed(10)));
  }
  return { values: out, step };
}

/** A linear scale [d0, d1] -> [r0, r1]. */
export function linear(d0, d1, r0, r1) {
  const span = d1 - d0 || 1;
  const f = (v) => r0 + ((v - d0) / span) * (r1 - r0);
  f.domain = [d0, d1];
  return f;
}

// ── the selected step (static/tools/steps.js) ───────────────────────────────────
/** Step columns for the step navigator (charts/step-link.js stepColumnGroup: a .step-col rect per step up to
 *  STEP_RECTS steps, boxes kept in JS beyond): step = the 1-based step; x, width = its column; it catches no
 *  pointer. The navigator reads them to mark the selected step and to find the step under a click.
 *  spans: [[x, width], ...] in step order; append it under the drawing. */
export function stepColumns(spans, y, height) {
  return stepColumnGroup(spans.map(([x, w], i) => ({ step: i + 1, x, y, width: Math.max(1, w), height })));
}

// ── axes ──────────────────────────────────────────────────────────────────
/** A horizontal axis at y with tick labels below; scale maps values to x. */
export function xAxis(scale, y, values, format, label, labelX) {
  const g = s('g', { class: 'axis axis-x', 'aria-hidden': 'true' });
  const [x0, x1] = [scale(scale.domain[0]), scale(scale.domain[1])];
  g.append(s('line', { x1: round(x0), x2: round(x1), y1: round(y), y2: round(y), class: 'axis-line' }));
  let lastRight = -Infinity;
  for (const v of values) {
    const x = scale(v);
    g.append(s('line', { x1: round(x), x2: round(x), y1: round(y), y2: round(y + 4), class: 'axis-line' }));
    const tick = format(v);
    const w = textWidth(tick);
    if (x - w / 2 < lastRight + 4) continue; // never overlap two labels
    g.append(text(x, y + 17, tick, { 'text-anchor': 'middle', class: 'tick' }));
    lastRight = x + w / 2;
  }
  if (label) g.append(text(labelX === undefined ? (x0 + x1) / 2 : labelX, y + 34, label, { 'text-anchor': 'middle', class: 'axis-label' }));
  return g;
}

/** Light vertical grid lines for the values. */
export function xGrid(scale, top, bottom, values) {
  const g = s('g', { class: 'grid', 'aria-hidden': 'true' });
  for (const v of values) {
    const x = round(scale(v));
    g.append(s('line', { x1: x, x2: x, y1: round(top), y2: round(bottom) }));
  }
  return g;
}
