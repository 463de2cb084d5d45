// Charts for the block panels, drawn from the run's report data (never from its printed lines).
// app.js calls placeCharts(panel, n, report) for every block panel after a run; the charts go into a
// <div class="charts"> above the panel's lines and are redrawn when the panel's width changes.
import * as timeline from './timeline.js';
import * as kvBlocks from './kv-blocks.js';
import * as attention from './attention.js';
import * as sampling from './sampling.js';
import * as ttft from './ttft.js';
import * as policies from './policies.js';

/** Block number -> the chart modules drawn in its panel, in order. Each exports render(data, report, opts). */
export const CHARTS = {
  3: [timeline],
  5: [attention],
  6: [kvBlocks],
  8: [sampling],
  11: [ttft],
  12: [policies],
};

const FALLBACK_WIDTH = 640;
const panels = new WeakMap(); // panel -> {report, n, width, observer}

// The stylesheet sits next to this module and carries the same cache-busting version.
const cssReady = new Promise((resolve) => {
  const here = new URL(import.meta.url);
  const href = new URL('charts.css', here);
  href.search = here.search;
  if (document.querySelector('link[data-charts-css]')) { resolve(); return; }
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = href.href;
  link.dataset.chartsCss = '';
  link.addEventListener('load', () => resolve());
  link.addEventListener('error', () => resolve());
  document.head.append(link);
});

function blockOf(report, n) {
  return ((report && report.blocks) || []).find((b) => Number(b.number) === n) || null;
}

/** The chart elements for block n of `report` at `width` px (each chart's root carries data-chart). */
export function chartsFor(n, report, width = FALLBACK_WIDTH) {
  const block = blockOf(report, n);
  if (!block) return [];
  const out = [];
  for (const chart of CHARTS[n] || []) {
    try {
      const el = chart.render(block.data || {}, report, { width });
      if (el) out.push(el);
    } catch (err) {
      console.error('chart ' + (chart.NAME || '?') + ' (block ' + n + ') failed:', err);
    }
  }
  return out;
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

// The drawing width: the content box of a chart frame inside this panel's .charts (0 while closed).
function frameWidth(box) {
  if (!box.clientWidth) return 0;
  const probe = document.createElement('figure');
  probe.className = 'chart';
  const frame = document.createElement('div');
  frame.className = 'chart-frame';
  probe.append(frame);
  box.append(probe);
  const w = frame.clientWidth;
  probe.remove();
  return w;
}

function draw(panel) {
  const state = panels.get(panel);
  const box = containerOf(panel);
  state.width = box.clientWidth;
  const width = frameWidth(box) || FALLBACK_WIDTH;
  const hadFocus = box.contains(document.activeElement) ? document.activeElement.closest('[data-chart]') : null;
  const focusName = hadFocus ? hadFocus.dataset.chart : null;
  box.replaceChildren(...chartsFor(state.n, state.report, width));
  box.hidden = box.childElementCount === 0;
  if (focusName) {
    const frame = box.querySelector('[data-chart="' + focusName + '"] .chart-frame');
    if (frame) frame.focus({ preventScroll: true });
  }
}

/** Draw (or clear) the charts of block n in its panel for this run. */
export async function placeCharts(panel, n, report) {
  if (!panel) return;
  await cssReady;
  if (!CHARTS[n]) return;
  let state = panels.get(panel);
  if (!state) {
    state = { n, report, width: 0, observer: null, frame: 0 };
    panels.set(panel, state);
    if (typeof ResizeObserver !== 'undefined') {
      state.observer = new ResizeObserver(() => {
        const box = panel.querySelector(':scope > .charts');
        const w = box ? box.clientWidth : 0;
        if (!w || Math.abs(w - state.width) < 4) return;
        cancelAnimationFrame(state.frame);
        state.frame = requestAnimationFrame(() => draw(panel));
      });
      state.observer.observe(panel);
    }
  }
  state.n = n;
  state.report = report;
  draw(panel);
}
