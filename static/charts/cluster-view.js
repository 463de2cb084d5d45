// cluster-view (block 3; drawn when REPLICAS > 1 or DISAGG = on, else a one-line note): the cluster on one simulated
// time axis. One lane per replica: its steps as bars (prefill-only, decode-only or mixed), under them a KV strip (the
// share of the replica's pool in use after each step: darker = fuller), above them the router's decisions (a tick where
// a request arrived and was sent to that replica) and, under DISAGG = on, each KV transfer as a bar in the decode
// replica's lane from the moment it left the prefill replica to its arrival. A click on a step selects it in the step
// view (step-link.js; the steps are the run log's items, ordered by (start, replica)).
// Reads report.steps (items carry `replica`) and report.cluster (router decisions, transfers).
// Leaves out: requests and latencies per replica (cluster.js, block 11), what a step holds (the step view).
import { ChartBuilder } from './figure.js';
import { round, s, swatches, text } from './svg.js';
import { textWidth } from './text-fit.js';
import { linear, ms, ticks, xAxis, xGrid } from './axes.js';
import { OKABE_ITO } from './colours.js';
import { linkSteps, stepColumnGroup } from './step-link.js';
import { isCluster, off, roleName } from './cluster.js';
import { t } from '../words/i18n.js';

export const NAME = 'cluster-view';

const LANE = 44;       // one replica: route ticks 8, step bar 16, transfer bar 6, KV strip 8, gaps
const LEFT_MIN = 34;
const KV_INK = '#4b2a6b';   // the KV strip: one dark ink, its opacity = share of the pool in use
const TOP = 8;
const AXIS = 42;
const KIND = {
  prefill: { colour: OKABE_ITO.blue, hatch: null },
  decode: { colour: OKABE_ITO.orange, hatch: null },
  mixed: { colour: OKABE_ITO.blue, hatch: 'hatch' },
};

function kindOf(item) {
  const phases = new Set(item.tasks.map((task) => task[1]));
  return phases.size > 1 ? 'mixed' : (phases.has('decode') ? 'decode' : 'prefill');
}

// the blocks in use after the step: the record's kv_used (a long run's items carry no free list: web.py page_item)
function usedCount(item, pool) {
  return item.kv_used !== undefined ? item.kv_used : pool - item.free.reduce((n, [lo, hi]) => n + hi - lo + 1, 0);
}

export function render(data, report, opts = {}) {
  if (!isCluster(report) || !report.cluster || !report.steps) return off(NAME, t('cluster.view.titleOff'));
  const items = report.steps.items || [];
  const c = report.cluster;
  const reps = c.replicas || [];
  const pool = Number((report.config || {}).POOL_BLOCKS) || 1;
  const transfers = (c.disagg && c.disagg.transfers) || [];
  const routes = (c.router && c.router.decisions) || [];
  const chart = new ChartBuilder(NAME, t('cluster.view.title'), opts.width);
  const legend = [
    { label: t('cluster.view.prefill'), draw: swatches.box(KIND.prefill.colour, null) },
    { label: t('cluster.view.decode'), draw: swatches.box(KIND.decode.colour, null) },
    { label: t('cluster.view.mixed'), draw: swatches.box(KIND.mixed.colour, 'hatch') },
    { label: t('cluster.view.kv'), draw: swatches.box(KV_INK, null) },
    { label: t('cluster.view.route'), draw: swatches.shape((x, y) => s('rect', { x: x - 1.5, y: y - 6, width: 3, height: 12, fill: '#000000' })) },
  ];
  if (transfers.length) legend.push({ label: t('cluster.view.transfer'), draw: swatches.box(OKABE_ITO.green, 'dots') });
  chart.legend(legend);
  const width = chart.width;
  const short = width < 520;
  const names = reps.map((r) => (short ? '#' + r.id : t('cluster.replica', { id: r.id })));
  const roles = reps.map((r) => (r.role === 'both' ? '' : roleName(r.role)));
  const left = Math.max(LEFT_MIN, Math.min(width * 0.3, 12 + Math.max(...names.map((n) => textWidth(n, 13, true)),
    ...roles.map((n) => textWidth(n, 11)))));
  const right = width - 20;   // room for half of the last tick label
  const end = Math.max(1, c.end || 0, ...items.map((it) => it.end), ...transfers.map((tr) => tr.arrive));
  const tk = ticks(0, end / 1000, Math.max(2, Math.floor((right - left) / 70)), true);
  const x = linear(0, tk.values[tk.values.length - 1], left, right);
  const height = TOP + reps.length * LANE + AXIS;
  const axisY = TOP + reps.length * LANE + 2;
  const summary = t('cluster.view.summary', { n: reps.length, steps: items.length, routes: routes.length, transfers: transfers.length, end: ms(end) });
  const svg = chart.svg(width, height, summary);
  svg.append(xGrid(x, TOP, axisY, tk.values));
  svg.append(xAxis(x, axisY, tk.values, (v) => String(v), t('cluster.view.time'), (left + right) / 2));
  const laneY = (r) => TOP + r * LANE;
  reps.forEach((r, i) => {
    const y = laneY(i);
    if (i % 2 === 0) svg.append(s('rect', { x: 0, y, width, height: LANE, fill: '#f6f7f9', 'aria-hidden': 'true' }));
    svg.append(text(left - 6, y + 25, names[i], { 'text-anchor': 'end', class: 'lane-label' }));
    if (roles[i]) svg.append(text(left - 6, y + 39, roles[i], { 'text-anchor': 'end', class: 'value muted' }));
  });
  drawSteps(chart, svg, items, x, laneY, pool);
  drawRoutes(chart, svg, routes, x, laneY);
  drawTransfers(chart, svg, transfers, x, laneY);
  chart.table(t('cluster.view.table'), ['', '#', 'ms', 'KV'], reps.map((r) => [t('cluster.replica', { id: r.id }), String(r.steps), ms(r.busy_us), `${r.kv_peak}/${pool}`]));
  return linkSteps(chart.finish(), opts);
}

// Up to DENSE_STEPS steps, each step is a mark of its own (hover, keyboard); beyond (a 1,000-request run has ~16,000),
// each lane's bars are one path per kind and its KV strip one path per shade (KV_SHADES), so the document grows with
// the screen, not with the run (issue 39); the step columns still select a step on click.
const DENSE_STEPS = 400;
const KV_SHADES = 8;

// The steps (bars, each a step column for the step view) and the KV strip under them.
function drawSteps(chart, svg, items, x, laneY, pool) {
  if (items.length > DENSE_STEPS) { drawDenseSteps(chart, svg, items, x, laneY, pool); return; }
  const bars = s('g', { class: 'cluster-steps' });
  const strip = s('g', { class: 'cluster-kv', 'aria-hidden': 'true' });
  const cols = [];
  items.forEach((it, k) => {
    const y = laneY(it.replica || 0);
    const x0 = x(it.start / 1000);
    const w = Math.max(1, x(it.end / 1000) - x0);
    const kind = KIND[kindOf(it)];
    const g = s('g', { class: 'step', 'data-step': String(k + 1), 'data-replica': String(it.replica || 0) });
    g.append(s('rect', { x: round(x0), y: y + 10, width: round(w), height: 16, fill: kind.colour, stroke: '#1b1f24', 'stroke-width': w > 3 ? 0.4 : 0 }));
    if (kind.hatch) g.append(s('rect', { x: round(x0), y: y + 10, width: round(w), height: 16, fill: chart.hatchFor(kind.colour, kind.hatch) }));
    const used = usedCount(it, pool);
    strip.append(s('rect', { x: round(x0), y: y + 34, width: round(w), height: 7, fill: KV_INK, 'fill-opacity': round(0.08 + 0.92 * used / pool) }));
    cols.push({ step: k + 1, x: x0, y: y + 8, width: w, height: 34 });
    const tasks = it.tasks.map(([id, phase, n]) => (phase === 'decode' ? `${id} decode` : `${id} prefill ${n}`)).join(', ');
    bars.append(chart.mark(g, t('cluster.view.step', { n: k + 1, r: it.replica || 0, start: ms(it.start), end: ms(it.end), tasks, used, pool })));
  });
  svg.append(bars, strip, stepColumnGroup(cols));
}

function drawDenseSteps(chart, svg, items, x, laneY, pool) {
  const bars = new Map(); // kind -> path data over every lane
  const shades = new Map(); // shade (0..KV_SHADES-1) -> path data of the KV strip
  const cols = [];
  const add = (map, key, d) => { map.set(key, (map.get(key) || '') + d); };
  items.forEach((it, k) => {
    const y = laneY(it.replica || 0);
    const x0 = round(x(it.start / 1000));
    const w = round(Math.max(0.5, x(it.end / 1000) - x0));
    add(bars, kindOf(it), `M${x0} ${y + 10}h${w}v16h${-w}z`);
    const shade = Math.min(KV_SHADES - 1, Math.floor((KV_SHADES * usedCount(it, pool)) / pool));
    add(shades, shade, `M${x0} ${y + 34}h${w}v7h${-w}z`);
    cols.push({ step: k + 1, x: x0, y: y + 8, width: w, height: 34 });
  });
  const barLayer = s('g', { class: 'cluster-steps is-dense', 'aria-hidden': 'true' });
  for (const [kind, d] of bars) {
    const { colour, hatch } = KIND[kind];
    barLayer.append(s('path', { d, fill: colour, 'data-kind': kind }));
    if (hatch) barLayer.append(s('path', { d, fill: chart.hatchFor(colour, hatch) }));
  }
  const strip = s('g', { class: 'cluster-kv is-dense', 'aria-hidden': 'true' });
  for (const [shade, d] of shades) {
    strip.append(s('path', { d, fill: KV_INK, 'fill-opacity': round(0.08 + (0.92 * (shade + 0.5)) / KV_SHADES) }));
  }
  svg.append(barLayer, strip, stepColumnGroup(cols));
}

function why(d) {
  if (d.policy === 'prefix_aware') return t('cluster.view.why.prefix_aware', { cached: d.cached, blocks: d.blocks, load: d.load });
  return d.policy === 'least_loaded' ? t('cluster.view.why.least_loaded') : t('cluster.view.why.round_robin');
}

function drawRoutes(chart, svg, routes, x, laneY) {
  const g = s('g', { class: 'cluster-routes' });
  for (const d of routes) {
    const mark = s('g', { class: 'route', 'data-request': d.request, 'data-replica': String(d.replica) });
    mark.append(s('rect', { x: round(x(d.arrival / 1000) - 1), y: laneY(d.replica) + 1, width: 2, height: 8, fill: '#000000' }));
    g.append(chart.mark(mark, t('cluster.view.routeDetail', { request: d.request, at: ms(d.arrival), r: d.replica, why: why(d) })));
  }
  svg.append(g);
}

function drawTransfers(chart, svg, transfers, x, laneY) {
  const g = s('g', { class: 'cluster-transfers' });
  for (const tr of transfers) {
    const x0 = x(tr.start / 1000);
    const w = Math.max(1.5, x(tr.arrive / 1000) - x0);
    const y = laneY(tr.to) + 27;
    const bar = s('g', { class: 'transfer', 'data-request': tr.request, 'data-from': String(tr.from), 'data-to': String(tr.to) });
    bar.append(s('rect', { x: round(x0), y, width: round(w), height: 6, fill: OKABE_ITO.green, stroke: '#1b1f24', 'stroke-width': 0.4 }));
    bar.append(s('line', { x1: round(x0), x2: round(x0), y1: laneY(tr.from) + 26, y2: y, stroke: OKABE_ITO.green, 'stroke-width': 1, 'stroke-dasharray': '2 2' }));
    g.append(chart.mark(bar, t('cluster.view.transferDetail', {
      request: tr.request, positions: tr.positions, bytes: tr.bytes, from: tr.from, to: tr.to, start: ms(tr.start),
      arrive: ms(tr.arrive), admitted: tr.admitted === null ? '—' : ms(tr.admitted),
    })));
  }
  svg.append(g);
}
