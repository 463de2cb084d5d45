// cluster (block 11; drawn when REPLICAS > 1 or DISAGG = on, else a one-line note): per replica the requests it served
// and the share of the run it was busy (two labelled bars), then TTFT and TPOT against their SLOs: one tick per
// request, the p50 / p90 / p99 marks per replica and for the whole cluster, and the SLO as a dashed line. Wide: the two
// latency panels side by side; narrow (a phone): one under the other, each the whole width.
// Reads report.cluster (entrypoints/cluster_data.py) and block 11's requests (with their replica keys).
// Leaves out: the time line of the replicas (cluster-view.js, block 3).
import { ChartBuilder } from './figure.js';
import { glyphs, round, s, swatches, text } from './svg.js';
import { FONT, textWidth } from './text-fit.js';
import { linear, ms, pct, ticks, xAxis, xGrid } from './axes.js';
import { OKABE_ITO } from './colours.js';
import { t } from '../words/i18n.js';

export const NAME = 'cluster';

const ROW = 24;
const BAR = 13;
const HEAD = 22;
const AXIS = 40;
const GAP = 20;
const SIDE_BY_SIDE_MIN = 700;
const TICK_MARKS = 200;   // requests up to which each latency tick is a shape of its own

/** True when the run has a cluster to show (REPLICAS > 1 or DISAGG = on). */
export function isCluster(report) {
  const c = (report && report.config) || {};
  return Number(c.REPLICAS) > 1 || c.DISAGG === 'on';
}

/** One engine: no cluster to draw, a note saying how to get one (the guide's map links here). */
export function off(name, title) {
  const chart = new ChartBuilder(name, title);
  chart.root.dataset.empty = 'true';
  chart.note(t('cluster.off'));
  return chart.finish();
}

export function roleName(role) {
  return { both: t('cluster.role.both'), prefill: t('cluster.role.prefill'), decode: t('cluster.role.decode') }[role] || role;
}

export function render(data, report, opts = {}) {
  if (!isCluster(report) || !report.cluster) return off(NAME, t('cluster.titleOff'));
  const c = report.cluster;
  const reps = c.replicas || [];
  const chart = new ChartBuilder(NAME, t('cluster.title', { n: reps.length }), opts.width);
  chart.legend([
    { label: t('cluster.served'), draw: swatches.box(OKABE_ITO.blue, null) },
    { label: t('cluster.utilization'), draw: swatches.box(OKABE_ITO.orange, 'hatch') },
    { label: t('cluster.requestsTick'), draw: swatches.shape((x, y) => s('rect', { x: x - 1, y: y - 6, width: 2, height: 12, fill: '#5a6470' })) },
    { label: t('cluster.percentileMarks'), draw: swatches.shape((x, y) => glyphs.diamond(x, y - 1)) },
    { label: t('cluster.sloLine'), draw: swatches.line('#000000', '4 3') },
  ]);
  const requests = (Array.isArray(data.requests) ? data.requests : []).filter((r) => r.status !== 'aborted');
  if (!requests.length) {
    chart.root.dataset.empty = 'true';
    chart.note(t('cluster.none'));
    return chart.finish();
  }
  const width = chart.width;
  const labelW = Math.min(150, Math.max(...reps.map((r) => textWidth(label(r), 12, true)), textWidth(t('cluster.whole'), 12, true)) + 10);
  const side = width >= SIDE_BY_SIDE_MIN;
  const barsH = HEAD + reps.length * ROW + 8;
  const rowsL = reps.length + 1;
  const latH = HEAD + rowsL * ROW + AXIS;
  const height = barsH + (side ? latH : 2 * latH + GAP);
  const g = c.goodput || {};
  const summary = t('cluster.summary', { met: g.met, served: g.served, pct: g.fraction === null || g.fraction === undefined ? 'n/a' : pct(g.fraction, 0) }) +
    reps.map((r) => t('cluster.servedDetail', details(r))).join(' ');
  const svg = chart.svg(width, height, summary);
  drawBars(chart, svg, reps, labelW, width);
  const panelW = side ? (width - GAP) / 2 : width;
  const cfg = report.config || {};
  const panels = [
    { metric: 'TTFT', key: 'ttft', slo: Number(cfg.TTFT_SLO), value: (r) => r.ttft },
    { metric: 'TPOT', key: 'tpot', slo: Number(cfg.TPOT_SLO), value: (r) => r.tpot },
  ];
  panels.forEach((p, k) => {
    const x0 = side ? k * (panelW + GAP) : 0;
    const y0 = barsH + (side ? 0 : k * (latH + GAP));
    drawLatency(chart, svg, {
      ...p, x0, y0, w: panelW, labelW: side && k ? 0 : labelW, labelAt: side ? 0 : x0, reps, c, requests,
    });
  });
  chart.table(t('cluster.table'), ['', t('cluster.served'), t('cluster.utilization'), 'TTFT p99 (ms)', 'TPOT p99 (ms)'],
    reps.map((r) => [label(r), String(r.served), pct(r.utilization), opt(r.ttft.p99), opt(r.tpot.p99)]));
  return chart.finish();
}

function label(r) { return t('cluster.replica', { id: r.id }) + (r.role === 'both' ? '' : ' · ' + roleName(r.role)); }
function opt(v) { return v === null || v === undefined ? '—' : ms(v); }
function details(r) {
  return {
    id: r.id, role: roleName(r.role), served: r.served, busy: ms(r.busy_us), util: pct(r.utilization),
    kv: r.kv_peak, hits: r.prefix_hits,
  };
}

// Requests served and busy share, one row per replica: two bars side by side in the row.
function drawBars(chart, svg, reps, labelW, width) {
  const colW = (width - labelW - GAP) / 2;
  const maxServed = Math.max(1, ...reps.map((r) => r.served));
  // the two column titles when they fit (the legend names both bars anyway)
  for (const [x0, title] of [[labelW, t('cluster.served')], [labelW + colW + GAP, t('cluster.utilization')]]) {
    if (x0 + textWidth(title, 12, true) <= Math.min(width, x0 + colW + GAP / 2)) svg.append(text(x0, 14, title, { class: 'panel-title' }));
  }
  reps.forEach((r, i) => {
    const y = HEAD + i * ROW;
    if (i % 2 === 0) svg.append(s('rect', { x: 0, y, width, height: ROW, fill: '#f6f7f9', 'aria-hidden': 'true' }));
    svg.append(text(labelW - 8, y + ROW / 2 + 4, label(r), { 'text-anchor': 'end' }));
    const g = s('g', { class: 'bar', 'data-replica': String(r.id) });
    const valueW = 44;
    const a = Math.max(r.served ? 1 : 0, (r.served / maxServed) * (colW - valueW));
    const b = Math.max(r.utilization ? 1 : 0, r.utilization * (colW - valueW));
    const by = y + (ROW - BAR) / 2;
    g.append(s('rect', { x: round(labelW), y: round(by), width: round(a), height: BAR, fill: OKABE_ITO.blue, stroke: '#1b1f24', 'stroke-width': 0.5 }));
    g.append(text(labelW + a + 4, by + BAR - 2, String(r.served), { class: 'value' }));
    const bx = labelW + colW + GAP;
    g.append(s('rect', { x: round(bx), y: round(by), width: round(b), height: BAR, fill: OKABE_ITO.orange, stroke: '#1b1f24', 'stroke-width': 0.5 }));
    g.append(s('rect', { x: round(bx), y: round(by), width: round(b), height: BAR, fill: chart.hatchFor(OKABE_ITO.orange, 'hatch') }));
    g.append(text(bx + b + 4, by + BAR - 2, pct(r.utilization, 0), { class: 'value' }));
    g.append(s('rect', { x: 0, y, width: round(width), height: ROW, fill: 'transparent' }));
    svg.append(chart.mark(g, t('cluster.servedDetail', details(r))));
  });
}

// One latency panel: a row per replica and one for the whole cluster.
function drawLatency(chart, svg, p) {
  const { x0, y0, w, reps, c, requests } = p;
  const labelW = p.labelW;
  const values = requests.map((r) => ({ r, v: p.value(r) })).filter((x) => x.v !== null && x.v !== undefined);
  const maxV = Math.max(p.slo || 0, ...values.map((x) => x.v), 1) / 1000;
  const left = x0 + labelW + 4;
  const right = x0 + w - 20;   // room for half of the last tick label
  const tk = ticks(0, maxV, Math.max(2, Math.floor((right - left) / 60)), true);
  const x = linear(0, tk.values[tk.values.length - 1], left, right);
  const rows = [...reps.map((r) => ({ who: label(r), spread: r[p.key], mine: (q) => placed(q, r.id, p.key) })),
    { who: t('cluster.whole'), spread: c[p.key], mine: () => true }];
  const axisY = y0 + HEAD + rows.length * ROW + 2;
  const title = t('cluster.latencyShort', { metric: p.metric });
  svg.append(text(x0, y0 + 14, title, { class: 'panel-title' }));
  chart.altText(t('cluster.latency', { metric: p.metric }));
  svg.append(xGrid(x, y0 + HEAD - 2, axisY, tk.values));
  svg.append(xAxis(x, axisY, tk.values, (v) => String(v), p.metric + ' (ms)', (left + right) / 2));
  rows.forEach((row, i) => {
    const y = y0 + HEAD + i * ROW;
    const mid = y + ROW / 2;
    if (labelW) svg.append(text(x0 + labelW - 8, mid + 4, row.who, { 'text-anchor': 'end', class: i === rows.length - 1 ? 'strong' : '' }));
    // a tick per request; past TICK_MARKS requests the row's ticks are one path (a 1,000-request run has thousands:
    // the document grows with the screen, issue 39; overlapping ticks then no longer darken)
    const ticksG = s('g', { class: 'ticks', 'aria-hidden': 'true' });
    let over = 0;
    let d = '';
    for (const { r, v } of values) {
      if (!row.mine(r)) continue;
      if (p.slo && v > p.slo) over++;
      const tx = round(x(v / 1000) - 0.6);
      if (values.length > TICK_MARKS) d += `M${tx} ${round(mid - 6)}h1.2v12h-1.2z`;
      else ticksG.append(s('rect', { x: tx, y: round(mid - 6), width: 1.2, height: 12, fill: '#5a6470', 'fill-opacity': 0.6 }));
    }
    if (d) ticksG.append(s('path', { d, fill: '#5a6470', 'fill-opacity': 0.6 }));
    svg.append(ticksG);
    const sp = row.spread || {};
    const g = s('g', { class: 'spread', 'data-metric': p.key, 'data-row': String(i) });
    if (sp.p50 !== null && sp.p50 !== undefined) {
      g.append(s('line', { x1: round(x(sp.p50 / 1000)), x2: round(x(sp.p99 / 1000)), y1: round(mid), y2: round(mid), stroke: '#000000', 'stroke-width': 1.5 }));
      g.append(glyphs.circle(x(sp.p50 / 1000), mid));
      g.append(glyphs.diamond(x(sp.p90 / 1000), mid));
      g.append(glyphs.square(x(sp.p99 / 1000), mid));
    }
    g.append(s('rect', { x: round(left), y: round(y), width: round(right - left), height: ROW, fill: 'transparent' }));
    svg.append(chart.mark(g, t('cluster.spreadDetail', { who: row.who, metric: p.metric, p50: opt(sp.p50), p90: opt(sp.p90), p99: opt(sp.p99), over, slo: ms(p.slo || 0) })));
  });
  if (p.slo) {
    const sx = x(p.slo / 1000);
    svg.append(s('line', { x1: round(sx), x2: round(sx), y1: y0 + HEAD - 4, y2: axisY, stroke: '#000000', 'stroke-width': 2, 'stroke-dasharray': '5 3', class: 'slo' }));
    const lab = t('cluster.slo', { slo: ms(p.slo) });
    const lw = textWidth(lab, 11, true);
    const titleEnd = x0 + textWidth(title, FONT, true) + 8;   // the label never sits on the panel's title
    const cx = Math.max(left + lw / 2, titleEnd + lw / 2, Math.min(sx, right - lw / 2));
    svg.append(text(cx, y0 + HEAD - 6, lab, { 'text-anchor': 'middle', class: 'value strong' }));
  }
}

// Whether request q counts on replica `id` for this metric: TTFT where its first token was made, TPOT where it decoded.
function placed(q, id, key) {
  if (q.replica !== undefined) return q.replica === id;
  return key === 'ttft' ? q.prefill_replica === id : (q.decode_replica !== undefined ? q.decode_replica === id : q.prefill_replica === id);
}
