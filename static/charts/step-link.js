// The selected step on a chart that draws one .step-col per step (charts/axes.js stepColumns: the timeline
// of block [3], the KV chart of block [6]; the roofline of block [10] draws one box per point instead and
// says data-step-pick="marks": there a click selects only the point under it). The page state holds the
// selected step (static/core/store.js `step`); charts/index.js passes it in opts.step with opts.selectStep
// (the lab API's selectStep). A chart calls linkSteps(figure, opts) on its own drawing: markStep draws the
// mark in that chart's own frame, and a click on it reports the step under the pointer through
// opts.selectStep. Nothing watches another module's DOM.
// The mark is an HTML box over the chart's scrolling frame (the frame is position: relative), so moving it
// never lays out the SVG again (a 1,000-step timeline has thousands of shapes).
// Leaves out: the step view (static/tools/steps.js) and what a step holds (static/core/run-log.js).

const columns = new WeakMap(); // figure -> its .step-col rects in step order (looked up once per drawing)

function stepCols(figure) {
  if (!columns.has(figure)) {
    const svgEl = figure.querySelector('.chart-frame > svg'); // (the legend's swatches are svgs too)
    columns.set(figure, svgEl ? Array.from(svgEl.querySelectorAll('.step-col')) : []);
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
  const col = stepCols(figure)[n - 1];
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
  const num = (k) => Number(col.getAttribute(k));
  mark.style.transform = `translate(${num('x')}px, ${num('y')}px)`;
  mark.style.width = `${num('width')}px`;
  mark.style.height = `${num('height')}px`;
  mark.dataset.step = String(n);
  mark.hidden = false;
}

// The step of a mark with data-step under the pointer, else of the column under it (binary search on x).
function stepUnder(figure, ev) {
  const hit = ev.target.closest && ev.target.closest('[data-step]');
  if (hit && !hit.classList.contains('step-col')) return Number(hit.dataset.step);
  if (figure.dataset.stepPick === 'marks') return 0; // a scatter (the roofline): only a point selects its step
  const cols = stepCols(figure);
  const svgEl = cols.length ? cols[0].ownerSVGElement : null;
  if (!svgEl || !svgEl.getScreenCTM()) return 0;
  const x = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(svgEl.getScreenCTM().inverse()).x;
  if (x < Number(cols[0].getAttribute('x'))) return 0;
  let lo = 0;
  let hi = cols.length - 1; // the last column whose left edge is at or before x
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (Number(cols[mid].getAttribute('x')) <= x) lo = mid; else hi = mid - 1;
  }
  const col = cols[lo];
  return x <= Number(col.getAttribute('x')) + Number(col.getAttribute('width')) + 1 ? Number(col.dataset.step) : 0;
}
