// The selected step on a chart that draws one step column per step (charts/axes.js stepColumns: the timeline
// of block [3], the KV chart of block [6]; the cluster view of block [3]; the roofline of block [10] draws one box
// per point instead and says data-step-pick="marks": there a click selects only the point under it). The page
// state holds the selected step (static/core/store.js `step`); charts/index.js passes it in opts.step with
// opts.selectStep (the lab API's selectStep). A chart calls linkSteps(figure, opts) on its own drawing: markStep
// draws the mark in that chart's own frame, and a click on it reports the step under the pointer through
// opts.selectStep. Nothing watches another module's DOM.
// The step columns are boxes kept beside their <g class="step-cols"> (stepColumnGroup): up to STEP_RECTS steps
// each is also an unpainted .step-col rect (data-step), beyond that the boxes stay in JS only, so a 16,000-step
// run adds no element per step to the document (issue 39: the document grows with the screen, not with the run).
// The mark is an HTML box over the chart's scrolling frame (the frame is position: relative), so moving it
// never lays out the SVG again (a 1,000-step timeline has thousands of shapes).
// Leaves out: the step view (static/tools/steps.js) and what a step holds (static/core/run-log.js).

import { round, s } from './svg.js';

export const STEP_RECTS = 400; // steps up to which each step column is also a .step-col rect of its own

const boxesOf = new WeakMap(); // <g class="step-cols"> -> its boxes [{step, x, y, width, height}]
const columns = new WeakMap(); // figure -> {order: boxes in drawing order, byStep: box of step n at n - 1}

/** The step columns of a chart: boxes [{step, x, y, width, height}] in step order (x never decreasing, except
 *  on the roofline, where only a point selects its step). Returns the <g class="step-cols"> to append under the
 *  drawing; it holds a .step-col rect per step up to STEP_RECTS steps (none beyond: the boxes stay in JS). */
export function stepColumnGroup(boxes) {
  const list = boxes.map((b) => ({
    step: Number(b.step), x: round(b.x), y: round(b.y), width: round(b.width), height: round(b.height),
  }));
  const g = s('g', { class: 'step-cols', 'aria-hidden': 'true', 'data-steps': String(list.length) });
  if (list.length <= STEP_RECTS) {
    for (const b of list) g.append(s('rect', { class: 'step-col', 'data-step': b.step, x: b.x, y: b.y, width: b.width, height: b.height, fill: 'none' }));
  }
  boxesOf.set(g, list);
  return g;
}

function stepCols(figure) {
  if (!columns.has(figure)) {
    const svgEl = figure.querySelector('.chart-frame > svg'); // (the legend's swatches are svgs too)
    const order = [];
    for (const g of svgEl ? svgEl.querySelectorAll('.step-cols') : []) order.push(...(boxesOf.get(g) || []));
    const byStep = [];
    for (const b of order) byStep[b.step - 1] = b;
    columns.set(figure, { order, byStep, svgEl });
  }
  return columns.get(figure);
}

/** Makes `figure` follow the selected step (opts.step) and report clicks (opts.selectStep). */
export function linkSteps(figure, opts = {}) {
  figure.classList.add('has-steps');
  markStep(figure, opts.step || 0);
  if (!opts.selectStep) return figure;
  const frame = figure.querySelector('.chart-frame');
  if (frame) {
    frame.addEventListener('click', (ev) => {
      const step = stepUnder(figure, ev);
      if (step) opts.selectStep(step, { say: true });
    });
  }
  return figure;
}

/** Moves `figure`'s mark to step n (0 or a step it does not draw: hidden). */
export function markStep(figure, n) {
  const col = stepCols(figure).byStep[n - 1];
  const frame = figure.querySelector('.chart-frame');
  if (!frame) return;
  let mark = frame.querySelector(':scope > .step-mark');
  if (!col) { if (mark) mark.hidden = true; return; }
  if (!mark) {
    mark = document.createElement('div');
    mark.className = 'step-mark';
    mark.setAttribute('aria-hidden', 'true');
    frame.append(mark);
  }
  if (mark.dataset.step === String(n) && !mark.hidden) return;
  // a step change moves the mark by a transform only: its size is written when it changes (a size change lays
  // out; the mark's contain: strict keeps that to the mark itself)
  mark.style.transform = `translate(${col.x}px, ${col.y}px)`;
  const width = `${col.width}px`;
  const height = `${col.height}px`;
  if (mark.style.width !== width) mark.style.width = width;
  if (mark.style.height !== height) mark.style.height = height;
  mark.dataset.step = String(n);
  if (mark.hidden) mark.hidden = false;
}

// The step of a mark with data-step under the pointer, else of the column under it (binary search on x).
function stepUnder(figure, ev) {
  const hit = ev.target.closest && ev.target.closest('[data-step]');
  if (hit && !hit.classList.contains('step-col')) return Number(hit.dataset.step);
  if (figure.dataset.stepPick === 'marks') return 0; // a scatter (the roofline): only a point selects its step
  const { order: cols, svgEl } = stepCols(figure);
  if (!cols.length || !svgEl || !svgEl.getScreenCTM()) return 0;
  const x = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(svgEl.getScreenCTM().inverse()).x;
  if (x < cols[0].x) return 0;
  let lo = 0;
  let hi = cols.length - 1; // the last column whose left edge is at or before x
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (cols[mid].x <= x) lo = mid; else hi = mid - 1;
  }
  const col = cols[lo];
  return x <= col.x + col.width + 1 ? col.step : 0;
}
