// Charts for the block panels, drawn from the run's report data (never from its printed lines).
// static/core/panels.js calls placeAllCharts([[panel, n], ...], report) for the block panels after a run; the
// charts go into a <div class="charts"> above the panel's lines and are redrawn when the panel's
// width changes.
import * as timeline from './timeline.js';
import * as kvBlocks from './kv-blocks.js';
import * as attention from './attention.js';
import * as sampling from './sampling.js';
import * as ttft from './ttft.js';
import * as policies from './policies.js';
import * as tokens from './tokens.js';
import * as quantization from './quantization.js';
import * as memory from './memory.js';
import * as roofline from './roofline.js';
import * as speculation from './speculation.js';
import * as cluster from './cluster.js';
import * as clusterView from './cluster-view.js';
import * as distributions from './distributions.js';
import { markStep } from './step-link.js';
import { versioned } from '../core/versioned.js';
import { fontsReady } from './text-fit.js';
export { inkOn, requestColours } from './colours.js'; // for the step navigator (lab.charts())

/** Block number -> the chart modules drawn in its panel, in order. Each exports render(data, report, opts). */
export const CHARTS = {
  2: [tokens],
  3: [timeline, clusterView],
  5: [attention],
  6: [kvBlocks],
  7: [speculation],
  8: [sampling],
  9: [quantization],
  10: [memory, roofline],
  11: [ttft, cluster, distributions],
  12: [policies],
  13: [quantization],
};

const FALLBACK_WIDTH = 640;

// The lab API (static/core/lab-api.js), once the step navigator connected it: the charts with one column per
// step (charts/step-link.js) follow its selected step and report clicks through it.
let labApi = null;
export function connect(lab) {
  if (labApi === lab) return;
  labApi = lab;
  lab.on('step', (n) => {
    for (const figure of document.querySelectorAll('.chart.has-steps')) markStep(figure, n);
  });
}
const panels = new WeakMap(); // panel -> {report, n, width, frameWidth, observer, frame, near, pending}

// The stylesheet sits next to this module and carries the same cache-busting version. Nothing is drawn
// before it and the chart font (text-fit.js fontsReady) are in: layout measures text in that font.
let cssLoaded = false;
const cssReady = Promise.all([fontsReady, new Promise((resolve) => {
  const done = () => resolve();
  const href = versioned('charts.css', import.meta.url);
  if (document.querySelector('link[data-charts-css]')) { done(); return; }
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href;
  link.dataset.chartsCss = '';
  link.addEventListener('load', done);
  link.addEventListener('error', done);
  document.head.append(link);
})]).then(() => { cssLoaded = true; });

function blockOf(report, n) {
  return ((report && report.blocks) || []).find((b) => Number(b.number) === n) || null;
}

/** The chart elements for block n of `report` at `width` px (each chart's root carries data-chart). */
export function chartsFor(n, report, width = FALLBACK_WIDTH) {
  return (CHARTS[n] || []).flatMap((chart) => chartOf(chart, n, report, width));
}

// One chart module's element for block n ([] when the block is missing or the chart fails).
function chartOf(chart, n, report, width) {
  const block = blockOf(report, n);
  if (!block) return [];
  try {
    const steps = labApi ? { step: labApi.step(), selectStep: labApi.selectStep } : {};
    const el = chart.render(block.data || {}, report, { width, ...steps });
    return el ? [el] : [];
  } catch (err) {
    console.error('chart ' + (chart.NAME || '?') + ' (block ' + n + ') failed:', err);
    return [];
  }
}

function containerOf(panel) {
  let box = panel.querySelector(':scope > .charts');
  if (!box) {
    box = document.createElement('div');
    box.className = 'charts';
    const pre = panel.querySelector(':scope > pre');
    if (pre) pre.before(box);
    else panel.append(box);
  }
  return box;
}

// The drawing widths: the content box of a chart frame inside each panel's .charts (0 while closed).
// Measured for all the given panels at once (one layout however many panels), then kept: on a re-run
// the charts are drawn at the kept width without reading layout; the ResizeObserver below re-measures
// when a panel's width changes.
function measure(list) {
  // a box still hidden (the empty one build.py puts in each panel before the first run) has no width: shown while
  // measured, or every chart of a first run would be drawn at FALLBACK_WIDTH and again at its width (issue 39)
  const hidden = list.filter(({ box }) => box.hidden).map(({ box }) => box);
  hidden.forEach((box) => { box.hidden = false; });
  const probes = list.map(({ box }) => {
    const probe = document.createElement('figure');
    probe.className = 'chart';
    const frame = document.createElement('div');
    frame.className = 'chart-frame';
    probe.append(frame);
    box.append(probe);
    return probe;
  });
  list.forEach(({ state, box }, i) => {
    state.width = box.clientWidth;
    state.frameWidth = state.width ? probes[i].firstChild.clientWidth : 0;
  });
  probes.forEach((probe) => probe.remove());
  hidden.forEach((box) => { box.hidden = true; });
}

function draw(panel) {
  const state = panels.get(panel);
  const box = containerOf(panel);
  if (!state.frameWidth) measure([{ state, box }]);
  const started = performance.now();
  place(panel, chartsFor(state.n, state.report, state.frameWidth || FALLBACK_WIDTH), started);
}

// One more of a waiting panel's charts (the idle drawing: a panel with several charts takes one task per chart,
// issue 39); true once all are built and placed. The parts are dropped when the panel's report changed meanwhile.
function drawPart(panel) {
  const state = panels.get(panel);
  const charts = CHARTS[state.n] || [];
  if (!state.parts || state.parts.report !== state.report) {
    const box = containerOf(panel);
    if (!state.frameWidth) measure([{ state, box }]);
    state.parts = { report: state.report, width: state.frameWidth || FALLBACK_WIDTH, els: [], next: 0,
      started: performance.now() };
  }
  const parts = state.parts;
  if (parts.next < charts.length) parts.els.push(...chartOf(charts[parts.next++], state.n, state.report, parts.width));
  if (parts.next < charts.length) return false;
  place(panel, parts.els, parts.started);
  return true;
}

// The panel's charts in its box, at once (its drawing done: no longer pending).
function place(panel, els, started) {
  const state = panels.get(panel);
  const box = containerOf(panel);
  const hadFocus = box.contains(document.activeElement) ? document.activeElement.closest('[data-chart]') : null;
  const focusName = hadFocus ? hadFocus.dataset.chart : null;
  state.pending = false;
  state.parts = null;
  box.removeAttribute('aria-busy');
  box.replaceChildren(...els);
  // a chart built in an earlier task (drawPart) marks the step selected then: one the student selected since (the
  // 'step' event reached only the charts in the document) is marked now
  if (labApi) for (const figure of box.querySelectorAll('.chart.has-steps')) markStep(figure, labApi.step());
  // User Timing for bench/ (one entry per panel, the latest run's: cleared with lab:render in app.js)
  performance.measure('lab:charts ' + state.n, { start: started, end: performance.now() });
  box.hidden = box.childElementCount === 0;
  if (focusName) {
    const frame = box.querySelector('[data-chart="' + focusName + '"] .chart-frame');
    if (frame) frame.focus({ preventScroll: true });
  }
}

// ── panels far from the viewport get their charts a moment later ──────────
// After a run, the charts of panels on or near the screen are drawn at once, with the lines. The
// others (usually all of them: the panels sit below the controls) are drawn right after, while the
// page is idle (at most IDLE_TIMEOUT_MS later), one chart per task at least (a panel's charts are put in its
// box together, once all are built), or as soon as the panel comes within a screen of the viewport, whichever
// is first. Until then the box keeps the previous run's charts and says aria-busy="true".
const IDLE_TIMEOUT_MS = 200;
const NOW_BUDGET_MS = 50; // drawing in the result's own task stops after this (then one chart per task)
const nearby = typeof IntersectionObserver === 'undefined' ? null : new IntersectionObserver((entries) => {
  for (const entry of entries) {
    const state = panels.get(entry.target);
    if (!state) continue;
    state.near = entry.isIntersecting;
    if (state.near && state.pending) draw(entry.target);
  }
}, { rootMargin: '100% 0px' });

let idleHandle = null;
function drawPendingWhenIdle() {
  if (idleHandle !== null) return;
  const idle = window.requestIdleCallback
    ? (fn) => window.requestIdleCallback(fn, { timeout: IDLE_TIMEOUT_MS })
    : (fn) => setTimeout(() => fn({ timeRemaining: () => 0, didTimeout: true }), 0);
  const step = (deadline) => {
    idleHandle = null;
    const waiting = pendingPanels.filter((panel) => panels.get(panel).pending);
    pendingPanels.length = 0;
    let drawn = 0;
    for (const panel of waiting) {
      // one chart per callback at least; more while the browser says it has time to spare
      if (drawn && deadline.timeRemaining() < 4) { pendingPanels.push(panel); continue; }
      if (!drawPart(panel)) pendingPanels.push(panel); // more of its charts to build: first in the next callback
      drawn++;
    }
    if (pendingPanels.length) idleHandle = idle(step);
  };
  idleHandle = idle(step);
}
const pendingPanels = [];

function track(panel, n, report) {
  let state = panels.get(panel);
  if (!state) {
    state = { n, report, width: 0, frameWidth: 0, observer: null, frame: 0, near: undefined, pending: false,
      parts: null };
    panels.set(panel, state);
    if (typeof ResizeObserver !== 'undefined') {
      state.observer = new ResizeObserver(() => {
        const box = panel.querySelector(':scope > .charts');
        const w = box ? box.clientWidth : 0;
        if (!w || w === state.width) return;
        state.frameWidth = 0; // measured again at the next drawing
        // a panel still to draw (its first drawing, or one waiting its turn) is measured when drawn: the observer's
        // first report of every panel after a run must not draw them all in one frame (issue 39)
        if (state.pending) return;
        if (Math.abs(w - state.width) < 4) return;
        cancelAnimationFrame(state.frame);
        state.frame = requestAnimationFrame(() => draw(panel));
      });
      state.observer.observe(panel);
    }
    if (nearby) nearby.observe(panel);
  }
  state.n = n;
  state.report = report;
  return state;
}

/**
 * The charts of every [panel, n] in `items` for this run: once charts.css has loaded (a promise
 * before that), those of panels near the viewport (or not known to be far from it) are drawn now, as long
 * as NOW_BUDGET_MS allows, and the others when the page is idle, one panel per task (see above; their box
 * says aria-busy="true" until then). Widths not known yet are read in one pass first.
 */
export function placeAllCharts(items, report) {
  if (!cssLoaded) return cssReady.then(() => placeAllCharts(items, report));
  const todo = items.filter(([panel, n]) => panel && CHARTS[n])
    .map(([panel, n]) => ({ panel, state: track(panel, n, report), box: containerOf(panel) }));
  const now = todo.filter(({ state }) => state.near !== false || !state.frameWidth);
  const unknown = now.filter(({ state }) => !state.frameWidth);
  if (unknown.length) measure(unknown);
  // in this task: the panels near the screen until NOW_BUDGET_MS have gone (at least one); the others are
  // drawn one per task right after (drawPendingWhenIdle), so a big run's charts never hold the page in one
  // long task (issue 39: 1.9 s for the 1,000-request run when every panel's charts were drawn here)
  const started = performance.now();
  const drawnNow = new Set();
  for (const { panel } of now) {
    if (drawnNow.size && performance.now() - started > NOW_BUDGET_MS) break;
    draw(panel);
    drawnNow.add(panel);
  }
  for (const { panel, state, box } of todo) {
    if (drawnNow.has(panel)) continue;
    state.pending = true;
    box.setAttribute('aria-busy', 'true');
    if (!pendingPanels.includes(panel)) pendingPanels.push(panel);
  }
  if (pendingPanels.length) drawPendingWhenIdle();
  return Promise.resolve();
}
