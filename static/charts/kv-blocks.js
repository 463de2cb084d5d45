// kv-blocks (block 6): physical KV blocks (rows) × scheduler steps (columns), coloured and lettered by the
// request that holds the block at the end of the step (the run log's tables: core/run-log.js stepRows). A ◤
// corner marks a block reused by another request, a dashed frame the peak step (block 6 peak), a ⏸ badge a
// preemption.
// With PREFIX_CACHE=on (report.config): a thick frame with "×n" marks a block shared by n running
// requests (shared, reference count > 1) and dots mark a free block that still holds its prefix-cache
// hash (cachedFree: a later request with the same prompt prefix can take it back).
// One draw helper per layer (grid, axes, runs, prefix cache, peak, preemptions, text alternative), in drawing order.
// Leaves out: the figure, legend and marks' hover (figure.js, marks.js) and the selected step (step-link.js).
import { ChartBuilder } from './figure.js';
import { glyphs, h, round, s, swatches, text } from './svg.js';
import { textWidth } from './text-fit.js';
import { stepColumns } from './axes.js';
import { inkClass, inkOn, requestColours } from './colours.js';
import { blockData } from './report-data.js';
import { linkSteps } from './step-link.js';
import { drawRaster } from './kv-raster.js';
import { stepRows, stripOwners, stripRows } from '../core/run-log.js';
import { t } from '../words/i18n.js';

export const NAME = 'kv-blocks';

const LEFT = 44;
const RIGHT = 10;
const TOP = 34;        // peak label + preemption badges
const AXIS = 40;
const MIN_COL = 9;     // px per step before the drawing scrolls sideways
const FREE = '#eef0f3';
// Up to DENSE_STEPS steps: one mark per run of a block's owner (hover, keyboard) and a white line between steps.
// Beyond (a 1,000-request cluster run has ~16,000): the chart fits the frame and the pool is one raster image, one
// pixel column per screen column of steps (the state at the end of the column's last step), so the document grows
// with the screen, not with the run (issue 39); the step columns still select a step on click.
const DENSE_STEPS = 400;
const CACHED = '#b8c0cc'; // a free block still holding its prefix-cache hash, on the raster (kv-raster.js)
// A long run's pool taller than this (32,768-token prompts: ~28,000 blocks) is drawn this high, several blocks a pixel
// row (a row takes the colour of the first table holding one of its blocks, else cached, else free).
const DENSE_HEIGHT = 2560;
const LEGEND_IDS = 12;    // requests with a swatch of their own in the legend at most

function sameTables(owners, tables) {
  const want = new Map();
  for (const [id, blocks] of Object.entries(tables || {})) for (const b of blocks) want.set(String(b), String(id));
  const have = Object.entries(owners || {});
  return have.length === want.size && have.every(([b, id]) => want.get(String(b)) === String(id));
}

// The layout the layers share: rows (the whole pool when it is small, else the blocks ever used), one column
// per step, the peak step (0-based; -1 when none) and whether the peak fell inside its step.
function layout(data, report, chart) {
  const b3 = blockData(report, 3) || {};
  const steps = stepRows(report); // the run log, one row per step: owners, shared, cachedFree, kvUsed
  // a long run's items carry no tables: its pool at the steps drawn (web.py kv_strip), a row per drawn step
  const strip = stripRows(report);
  const config = report.config || {}; // the run's constants: their one place in a report
  const pool = Number(config.POOL_BLOCKS) || 0;
  const peak = data.peak || {};
  let maxUsed = strip ? Number(report.steps.kv_strip.max_block) : -1;
  if (!strip) for (const st of steps) for (const b of Object.keys(st.owners)) maxUsed = Math.max(maxUsed, Number(b));
  for (const blocks of Object.values(peak.tables || {})) {
    for (const b of blocks) maxUsed = Math.max(maxUsed, Number(b));
  }
  const rows = pool && pool <= 48 ? pool : Math.max(1, maxUsed + 1);
  const cols = Math.max(1, steps.length);
  const dense = cols > DENSE_STEPS || !!strip;
  let rowH = rows <= 24 ? 18 : Math.max(5, Math.min(18, Math.floor(480 / rows)));
  if (dense && rows * rowH > DENSE_HEIGHT) rowH = DENSE_HEIGHT / rows;
  const colW = dense ? (chart.width - LEFT - RIGHT) / cols : Math.max(MIN_COL, (chart.width - LEFT - RIGHT) / cols);
  const gridH = rows * rowH;
  // peak step: the engine records the 1-based step in which the peak happened (block 6 peak.step).
  // The peak can fall inside a step, before a finishing sequence returns its blocks: then that step's
  // end-of-step column differs from the peak tables, and the tooltip says so.
  const peakStep = Number.isInteger(peak.step) ? peak.step - 1 : -1;
  const peakRow = strip ? strip.find((row) => row.step === peakStep + 1) : steps[peakStep];
  const peakOwners = strip ? (peakRow ? stripOwners(peakRow).owners : {}) : (peakRow || {}).owners;
  return {
    data, report, chart, steps, strip, pool, peak, rows, cols, rowH, colW, gridH, peakStep, dense,
    peakInside: peakStep >= 0 && !sameTables(peakOwners, peak.tables),
    preemptions: Array.isArray(data.preemptions) ? data.preemptions : (b3.preemptions || []),
    colourOf: requestColours(report),
    caching: config.PREFIX_CACHE === 'on',
    width: Math.max(chart.width, LEFT + RIGHT + cols * colW),
    height: TOP + gridH + AXIS,
    cx: (i) => LEFT + i * colW,
    ry: (b) => TOP + b * rowH,
  };
}

// ── legend ───────────────────────────────────────────────────────────────────
function legendItems(k) {
  const { steps, report, colourOf } = k;
  const owners = new Set(k.strip ? report.steps.kv_strip.holders.map(String) : []);
  if (!k.strip) for (const st of steps) for (const id of Object.values(st.owners)) owners.add(String(id));
  const order = new Map(((report.config && report.config.REQUESTS) || []).map((r, i) => [String(r.id), i]));
  const ids = [...owners].sort((a, b) => (order.get(a) ?? -1) - (order.get(b) ?? -1));
  // a swatch per request up to LEGEND_IDS (a 1,000-request run colours hundreds): the rest counted (legendMore)
  k.legendMore = Math.max(0, ids.length - LEGEND_IDS);
  return [
    ...ids.slice(0, LEGEND_IDS).map((id) => ({ label: t('chart.kvBlocks.block', { id }), draw: swatches.box(colourOf(id).colour) })),
    { label: t('chart.kvBlocks.free'), draw: swatches.box(FREE) },
    ...(k.dense ? [] : [{ label: t('chart.kvBlocks.reusedEarlierHeld'), draw: swatches.shape(reusedSwatch) }]),
    { label: t('chart.kvBlocks.peakStep'), draw: swatches.shape(peakSwatch) },
    { label: 'preempt', draw: swatches.shape((x, y) => glyphs.pause(x, y)) },
    ...(k.caching && k.dense ? [{ label: t('chart.kvBlocks.freeButStillHashed'), draw: swatches.box(CACHED) }] : []),
    ...(k.caching && !k.dense ? [
      { label: t('chart.kvBlocks.sharedHeldSeveral'), draw: swatches.shape(sharedSwatch) },
      { label: t('chart.kvBlocks.freeButStillHashed'), draw: cachedSwatch },
    ] : []),
  ];
}

function reusedSwatch() {
  return s('g', {},
    s('rect', { x: 4, y: 1, width: 16, height: 12, fill: FREE, stroke: '#1b1f24', 'stroke-width': 0.6 }),
    s('path', { d: 'M4 1 h8 l-8 8 z', fill: '#000000' }));
}

function peakSwatch() {
  return s('rect', {
    x: 3, y: 1, width: 18, height: 12, fill: 'none', stroke: '#000000', 'stroke-width': 2, 'stroke-dasharray': '3 2',
  });
}

function sharedSwatch() {
  return s('g', {},
    s('rect', { x: 3, y: 1, width: 18, height: 12, fill: '#ffffff', stroke: '#000000', 'stroke-width': 2.5 }),
    s('text', { x: 12, y: 11, 'text-anchor': 'middle', 'font-size': 9, 'font-weight': 700 }, '×2'));
}

function cachedSwatch(svg, fill) {
  svg.append(
    s('rect', {
      x: 3, y: 1, width: 18, height: 12, fill: FREE,
      stroke: '#5f6b7a', 'stroke-width': 0.8, 'stroke-dasharray': '2 1.5',
    }),
    s('rect', { x: 3, y: 1, width: 18, height: 12, fill: fill(FREE, 'dots') }));
}

// The drawing's accessible label: pool, steps, peak, reuses, preemptions, rows left out, shared blocks.
function summary(k) {
  const { data, pool, peak, peakStep, preemptions, rows } = k;
  const preempted = preemptions.length
    ? t('chart.kvBlocks.preemptionsSteps', {
      nPreemptions: preemptions.length, preemptions: preemptions.map((p) => p.step).join(', '),
    })
    : t('chart.kvBlocks.noPreemption');
  return t('chart.kvBlocks.poolKvBlocksOverSteps', { pool, nSteps: k.steps.length, used: peak.used ?? '?' }) +
    (peakStep >= 0 ? t('chart.kvBlocks.step', { peakStep: peakStep + 1 }) : '') +
    t('chart.kvBlocks.blocksReusedAnother', { reused: (data.reused || []).length }) +
    preempted +
    (rows < pool ? t('chart.kvBlocks.onlyBlocks0DrawnEver', { rows: rows - 1 }) : '') +
    (k.caching ? t('chart.kvBlocks.prefixCacheBlocksWere', { shared_blocks: (data.shared_blocks || []).length }) : '') +
    '.';
}

// ── free background, grid lines and the step columns ─────────────────────────
function drawGrid(svg, k) {
  const { rows, cols, rowH, colW, gridH, cx, ry } = k;
  const right = round(LEFT + cols * colW);
  svg.append(s('rect', { x: LEFT, y: TOP, width: round(cols * colW), height: gridH, fill: FREE }));
  const grid = s('g', { 'aria-hidden': 'true' });
  const white = { stroke: '#ffffff', 'stroke-width': 1 };
  if (rowH >= 8) {
    for (let b = 1; b < rows; b++) grid.append(s('line', { x1: LEFT, x2: right, y1: ry(b), y2: ry(b), ...white }));
  }
  if (colW >= 6 && !k.dense) {
    for (let i = 1; i < cols; i++) {
      grid.append(s('line', { x1: round(cx(i)), x2: round(cx(i)), y1: TOP, y2: TOP + gridH, ...white }));
    }
  }
  svg.append(grid);
  svg.append(stepColumns(k.steps.map((st, i) => [cx(i), colW]), TOP, gridH));
}

// ── axes: block numbers down the side, step numbers along the bottom ──────────
function drawAxes(svg, k) {
  const { rows, cols, rowH, colW, gridH, cx, ry } = k;
  const axes = s('g', { class: 'axis', 'aria-hidden': 'true' });
  const tick = (anchor) => ({ 'text-anchor': anchor, class: 'tick' });
  const yEvery = Math.max(1, Math.ceil(14 / rowH));
  for (let b = 0; b < rows; b += yEvery) axes.append(text(LEFT - 6, ry(b) + rowH / 2 + 4, String(b), tick('end')));
  const labelW = textWidth(String(cols)) + 6;
  const xEvery = Math.max(1, Math.ceil(labelW / colW));
  for (let i = 0; i < cols; i += xEvery) {
    axes.append(text(cx(i) + colW / 2, TOP + gridH + 15, String(i + 1), tick('middle')));
  }
  axes.append(text(LEFT + (cols * colW) / 2, TOP + gridH + 33, t('chart.kvBlocks.stepStateEnd'),
    { 'text-anchor': 'middle', class: 'axis-label' }));
  const midY = TOP + gridH / 2;
  axes.append(text(12, midY, t('chart.kvBlocks.physicalBlock'),
    { 'text-anchor': 'middle', class: 'axis-label', transform: `rotate(-90 12 ${round(midY)})` }));
  svg.append(axes);
}

// ── runs: consecutive steps where a block has the same owner ──────────────────
function ownerRuns(k) {
  const runs = [];
  for (let b = 0; b < k.rows; b++) {
    let cur = null;
    let prevOwner = null; // last non-free owner of this block
    k.steps.forEach((st, i) => {
      const owner = st.owners[String(b)];
      const id = owner === undefined ? null : String(owner);
      if (cur && cur.id === id) { cur.to = i; return; }
      if (cur) runs.push(cur);
      cur = null;
      if (id !== null) {
        cur = { block: b, id, from: i, to: i, reusedFrom: prevOwner !== null && prevOwner !== id ? prevOwner : null };
        prevOwner = id;
      }
    });
    if (cur) runs.push(cur);
  }
  return runs;
}

function stepText(i) { return t('chart.kvBlocks.step2', { i: i + 1 }); }

function spanText(from, to) { return from === to ? stepText(from) : `${stepText(from)} → ${to + 1}`; }

// One mark per run (its box, a ◤ corner when reused); the request letters go to labelLayer, which the caller
// appends last (above the peak and preemption lines).
function drawRuns(svg, k, labelLayer) {
  const { chart, steps, colW, rowH, cx, ry } = k;
  const timeText = (i) => steps[i] ? `${(steps[i].end / 1000).toFixed(2)} ms` : '';
  const runLayer = s('g', { class: 'runs' });
  svg.append(runLayer);
  for (const run of ownerRuns(k)) {
    const { colour } = k.colourOf(run.id);
    const x0 = cx(run.from) + 0.5;
    const w = (run.to - run.from + 1) * colW - 1;
    const y0 = ry(run.block) + 0.5;
    const hgt = rowH - 1;
    const g = s('g', { class: 'run', 'data-request': run.id, 'data-kv-block': run.block });
    g.append(s('rect', {
      x: round(x0), y: round(y0), width: round(Math.max(1, w)), height: round(Math.max(1, hgt)), fill: colour,
    }));
    if (run.reusedFrom) g.append(reuseCorner(x0, y0, Math.min(9, hgt * 0.6, w * 0.6), colour));
    if (rowH >= 13 && textWidth(run.id, 11, true) + 6 <= w) {
      labelLayer.append(text(x0 + w / 2 + (run.reusedFrom ? 2 : 0), y0 + hgt / 2 + 4, run.id, {
        'text-anchor': 'middle', class: 'in-box ' + inkClass(colour),
        stroke: colour, 'stroke-width': 3, 'paint-order': 'stroke', 'stroke-linejoin': 'round',
      }));
    }
    const reuse = run.reusedFrom ? t('chart.kvBlocks.reusedBlockBelonged', { reusedFrom: run.reusedFrom }) : '';
    const detail = t('chart.kvBlocks.blockHeldUntil', {
      block: run.block, id: run.id, span: spanText(run.from, run.to), to: timeText(run.to), reuse,
    });
    runLayer.append(chart.mark(g, detail));
  }
}

function reuseCorner(x0, y0, c, colour) {
  return s('path', {
    d: `M${round(x0)} ${round(y0)} h${round(c)} l${round(-c)} ${round(c)} z`,
    fill: inkOn(colour) === '#000000' ? '#000000' : '#ffffff', stroke: '#000000', 'stroke-width': 0.6, class: 'reuse',
  });
}

// ── prefix cache: free blocks that keep their hash (dots), blocks held by several requests (frame + ×n) ──
// Spans of consecutive steps where cellsOf(step, block) gives the same non-null key, block by block.
function cellSpans(k, cellsOf) {
  const out = [];
  for (let b = 0; b < k.rows; b++) {
    let cur = null;
    k.steps.forEach((st, i) => {
      const key = cellsOf(st, b);
      if (cur && key !== null && cur.key === key) { cur.to = i; return; }
      if (cur) out.push(cur);
      cur = key === null ? null : { block: b, key, from: i, to: i };
    });
    if (cur) out.push(cur);
  }
  return out;
}

function drawCachedFree(svg, k) {
  const { chart, colW, rowH, cx, ry } = k;
  const cachedLayer = s('g', { class: 'cached-free-blocks' });
  for (const sp of cellSpans(k, (st, b) => (st.cachedFree.includes(b) ? 'cached' : null))) {
    const x0 = cx(sp.from) + 0.5;
    const w = (sp.to - sp.from + 1) * colW - 1;
    const g = s('g', {
      class: 'cached', 'data-kv-block': sp.block, 'data-from-step': sp.from + 1, 'data-to-step': sp.to + 1,
    }, s('rect', {
      x: round(x0), y: round(ry(sp.block) + 0.5), width: round(Math.max(1, w)), height: round(Math.max(1, rowH - 1)),
      fill: chart.hatchFor(FREE, 'dots'), stroke: '#5f6b7a', 'stroke-width': 0.8, 'stroke-dasharray': '2 1.5',
    }));
    const detail = t('chart.kvBlocks.blockFreeButStill', { block: sp.block, span: spanText(sp.from, sp.to) });
    cachedLayer.append(chart.mark(g, detail));
  }
  svg.append(cachedLayer);
}

function sharedKey(st, b) {
  const ids = st.shared[String(b)];
  return ids && ids.length > 1 ? ids.map(String).join(',') : null;
}

function drawShared(svg, k) {
  const { chart, colW, rowH, cx, ry } = k;
  const sharedLayer = s('g', { class: 'shared-blocks' });
  for (const sp of cellSpans(k, sharedKey)) {
    const ids = sp.key.split(',');
    const x0 = cx(sp.from) + 1.5;
    const w = Math.max(1, (sp.to - sp.from + 1) * colW - 3);
    const hgt = Math.max(1, rowH - 3);
    const g = s('g', {
      class: 'shared', 'data-kv-block': sp.block, 'data-shared': ids.join(','),
      'data-from-step': sp.from + 1, 'data-to-step': sp.to + 1,
    }, s('rect', {
      x: round(x0), y: round(ry(sp.block) + 1.5), width: round(w), height: round(hgt),
      fill: 'none', stroke: '#000000', 'stroke-width': 2.5,
    }));
    const label = '×' + ids.length;
    if (rowH >= 13 && textWidth(label, 11, true) + 4 <= w) {
      g.append(text(x0 + w - 2, ry(sp.block) + rowH / 2 + 4, label,
        { 'text-anchor': 'end', class: 'strong', stroke: '#ffffff', 'stroke-width': 3, 'paint-order': 'stroke' }));
    }
    const detail = t('chart.kvBlocks.blockSharedReference',
      { block: sp.block, ids: ids.join(', '), nIds: ids.length, span: spanText(sp.from, sp.to) });
    sharedLayer.append(chart.mark(g, detail));
  }
  svg.append(sharedLayer);
}

// ── the peak column: a dashed frame and its label above the grid ───────────────
function drawPeak(svg, k) {
  const { chart, peak, peakStep, pool, colW, gridH } = k;
  if (peakStep < 0) return;
  const px = k.cx(peakStep);
  const tables = Object.entries(peak.tables || {}).map(([id, bl]) => `${id}→[${bl.join(', ')}]`).join('; ');
  const frame = s('g', { class: 'peak', 'data-step': peakStep + 1 },
    s('rect', {
      x: round(px - 1), y: TOP - 3, width: round(colW + 2), height: gridH + 6,
      fill: 'none', stroke: '#000000', 'stroke-width': 2, 'stroke-dasharray': '4 3',
    }));
  const label = t('chart.kvBlocks.peak', { used: peak.used, pool });
  const lw = textWidth(label, 12, true);
  const lx = Math.max(LEFT + lw / 2, Math.min(px + colW / 2, k.width - RIGHT - lw / 2));
  frame.append(text(lx, TOP - 20, label, { 'text-anchor': 'middle', class: 'strong' }));
  const inside = k.peakInside ? t('chart.kvBlocks.midStepBeforeFinished') : '';
  svg.append(chart.mark(frame, t('chart.kvBlocks.peakStepBlocksUse',
    { peakStep: peakStep + 1, inside, used: peak.used, pool, tokens: peak.tokens ?? '?', tables })));
}

// ── preemptions: a dashed line and a ⏸ badge at the start of step p.step (its left edge) ──
function drawPreemptions(svg, k) {
  const byStep = new Map();
  for (const p of k.preemptions) {
    if (!byStep.has(p.step)) byStep.set(p.step, []);
    byStep.get(p.step).push(p);
  }
  for (const [step, list] of byStep) {
    const px = k.cx(step - 1);
    const g = s('g', { class: 'preemption', 'data-step': step });
    g.append(s('line', {
      x1: round(px), x2: round(px), y1: TOP - 2, y2: TOP + k.gridH,
      stroke: '#000000', 'stroke-width': 2, 'stroke-dasharray': '3 2',
    }));
    g.append(glyphs.pause(px, TOP - 8));
    svg.append(k.chart.mark(g, list.map((p) => preemptionText(step, p)).join(' ')));
  }
}

function preemptionText(step, p) {
  const held = p.blocks && p.blocks.length
    ? t('chart.kvBlocks.freesBlocks', { blocks: p.blocks.join(', ') })
    : t('chart.kvBlocks.heldNoBlockYet');
  return t('chart.kvBlocks.preemptStartStepMsOut',
    { step, time: (p.time / 1000).toFixed(2), request: p.request, held, recompute: p.recompute });
}

// ── text alternative: a table of each step's blocks, then reuses and preemptions in words ──
function textAlternative(k) {
  const { chart, data, pool, peakStep, preemptions } = k;
  // a long run: its drawn steps (kv_strip), each table as runs of blocks
  const rows = k.strip ? k.strip.map((row) => [row.step - 1, row.kvUsed, stripTables(row)])
    : k.steps.map((st, i) => [i, st.kvUsed, stepTables(st)]);
  chart.table(t('chart.kvBlocks.kvBlocksEndEachStep', { pool }),
    [t('chart.kvBlocks.step3'), t('chart.kvBlocks.blocksUsed'), t('chart.kvBlocks.blockTablesRequest')],
    rows.map(([i, used, tables]) => [
      String(i + 1) + (i === peakStep ? t('chart.kvBlocks.peak2') : ''), `${used}/${pool}`, tables,
    ]));
  const reused = (data.reused || []).map((r) => `block ${r[0]}: ${r[1].join(' → ')}`).join('; ');
  const each = preemptions.map((p) => t('chart.kvBlocks.step4', { step: p.step, request: p.request }));
  const preempted = preemptions.length ? 'Preempt: ' + each.join('; ') + '.' : t('chart.kvBlocks.noPreemption2');
  const reuses = reused ? t('chart.kvBlocks.blocksReused', { reused }) : t('chart.kvBlocks.noBlockReused');
  chart.altText(reuses + preempted);
}

// One step's block tables in words: "A: 0, 1; B: 2; block 0 shared A+D" (or "free").
function stepTables(st) {
  const by = new Map();
  for (const [b, id] of Object.entries(st.owners)) {
    if (!by.has(id)) by.set(id, []);
    by.get(id).push(Number(b));
  }
  const shared = Object.entries(st.shared)
    .map(([b, ids]) => t('chart.kvBlocks.blockShared', { b, ids: ids.join('+') }));
  return [...by].map(([id, bl]) => `${id}: ${bl.sort((a, b) => a - b).join(', ')}`).concat(shared).join('; ') ||
    t('chart.kvBlocks.free');
}

// A drawn step of a long run's tables in words: "A: 0–2047; B: 2048–2050, 7" (or "free").
function stripTables(row) {
  return row.tables.map(([id, ...runs]) => {
    const parts = [];
    for (let r = 0; r < runs.length; r += 2) parts.push(runs[r] === runs[r + 1] ? `${runs[r]}` : `${runs[r]}–${runs[r + 1]}`);
    return `${id}: ${parts.join(', ')}`;
  }).join('; ') || t('chart.kvBlocks.free');
}

export function render(data, report, opts = {}) {
  const chart = new ChartBuilder(NAME, t('chart.kvBlocks.physicalKvBlocksStep'), opts.width);
  const k = layout(data, report, chart);
  const legend = chart.legend(legendItems(k));
  if (k.legendMore) legend.append(h('li', { class: 'legend-more' }, t('chart.kvBlocks.legendMore', { more: k.legendMore })));
  const svg = chart.svg(k.width, k.height, summary(k));
  drawGrid(svg, k);
  drawAxes(svg, k);
  const labelLayer = s('g', { class: 'labels', 'aria-hidden': 'true' }); // letters above the peak/preemption lines
  if (k.dense) {
    drawRaster(svg, k, { left: LEFT, top: TOP, free: FREE, cached: CACHED });
  } else {
    drawRuns(svg, k, labelLayer);
    if (k.caching) {
      drawCachedFree(svg, k);
      drawShared(svg, k);
    }
  }
  drawPeak(svg, k);
  drawPreemptions(svg, k);
  svg.append(labelLayer);
  textAlternative(k);
  return linkSteps(chart.finish(), opts);
}
