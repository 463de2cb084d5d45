// The step navigator's view (static/tools/steps.js): for one scheduler step of the run log, the running
// slots and the waiting queue (with why), the step's token budget as a bar, the physical KV blocks (one
// labelled cell each, or over 64 blocks a canvas of small squares) and the step's decisions in the
// engine's own sentences. makeView() builds it once per run; drawView() rewrites only what a step changes
// (a cell whose state string is unchanged is left alone). With speculative decoding (SPEC_METHOD != off) a part
// shows each verify: the proposed tokens accepted (✓), the first rejected and the unchecked ones after it (✗),
// the recovered (↺) or bonus (★) token, each with its own colour AND mark. Everything from the engine goes in
// with textContent.
// Leaves out choosing the step, the slider and the charts' marks (steps.js) and the arithmetic
// (static/core/run-log.js, pure).

import { make } from '../core/dom.js';
import { blockMap, budgetParts } from '../core/run-log.js';
import { t } from '../words/i18n.js';

const DENSE = 64;        // pools larger than this are drawn on a canvas
const DENSE_COLS = 64;
const CELL_PX = 8;
const FREE_FILL = '#dde1e7';
const CACHED_DOT = '#8a94a1'; // a free block that still holds a prefix-cache hash (the cells' dotted background)
const KEY_FILL = '#7f7f7f';   // an owned block in the legend

/** The slider's spoken value: "Bước 8/12: C bắt đầu prefill 5 token". */
export function valueText(item, n, count) {
  return t('steps.step2', { n, count, item: item && item.title ? ': ' + item.title : '' });
}

/**
 * The view of `record` (the run log's steps) with the run's `config` (report.config: SLOTS, POOL_BLOCKS,
 * BLOCK_SIZE, PREFIX_CACHE, CLOCK): {nodes, parts, record, config, colours, inkOn, gpu}; nodes go into the page,
 * parts are what drawView() rewrites. colours(id) -> {colour} and inkOn(colour) come from charts/colours.js;
 * gpu = {gpu, model, peak, bandwidth} (block [10]'s shadow figures) or null; tokens = block [8]'s id -> text
 * (the speculation part's token names).
 */
export function makeView(record, colours, inkOn, config = {}, gpu = null, tokens = []) {
  const v = { record, config, colours, inkOn, gpu, tokens, parts: null, nodes: null };
  const head = make('p', { class: 'step-head' });
  const slots = make('ol', { class: 'step-slots', 'aria-label': t('steps.runningSlots') });
  const queue = make('ol', { class: 'step-queue', 'aria-label': t('steps.waitingQueueOrder') });
  const budget = make('div', { class: 'step-budget' });
  const pool = config.POOL_BLOCKS;
  // up to DENSE blocks: one labelled cell each; more (up to 1,024): a canvas of small squares, one
  // paint for the whole map however many blocks change
  const dense = pool > DENSE;
  const kv = dense
    ? make('canvas', { class: 'step-kv is-dense', role: 'img', width: DENSE_COLS * CELL_PX, height: Math.ceil(pool / DENSE_COLS) * CELL_PX })
    : make('div', { class: 'step-kv', role: 'img' });
  const cells = [];
  for (let b = 0; b < (dense ? 0 : pool); b++) {
    const cell = make('span', { class: 'kv-cell is-free', 'data-kv-block': String(b) });
    cell.append(make('span', { class: 'kv-no' }, String(b)), make('span', { class: 'kv-owner' }));
    cells.push(cell);
  }
  kv.append(...cells);
  const free = make('p', { class: 'step-free' });
  const decisions = make('ul', { class: 'step-decisions' });
  const speculating = record.items.some((item) => item.spec);
  const spec = speculating ? make('ul', { class: 'step-spec', 'data-step-spec': '' }) : null;
  const nodes = [
    head,
    section(t('steps.runningSlotsWaiting'), slots, queue),
    section(record.items.every((item) => item.decodes_first !== false)
      ? t('steps.stepSTokenBudget')
      : t('steps.stepSTokenBudgetOrder'), budget),
    section(t('steps.kvPoolPhysicalBlocks', { pool, block_size: config.BLOCK_SIZE }), kv, free, legend(v, dense)),
    ...(spec ? [section(t('steps.specTitle'), spec, specLegend())] : []),
    section(t('steps.decisionsReasons'), decisions),
  ];
  v.parts = { head, slots, queue, budget, kv, cells, shown: new Array(pool).fill(undefined), free, decisions, spec };
  v.nodes = nodes;
  return v;
}

function section(title, ...children) {
  const box = make('div', { class: 'step-part' });
  box.append(make('p', { class: 'step-part-title' }, title), ...children);
  return box;
}

// The legend's swatches: the cells' own classes, or (canvas) the same paint as a block on the canvas.
function legend(v, dense) {
  const key = (classes, look) => {
    if (!dense) return make('span', { class: 'kv-cell kv-key ' + classes });
    const c = make('canvas', { class: 'kv-key is-painted', width: CELL_PX - 1, height: CELL_PX - 1, 'data-key': classes });
    paintBlock(c.getContext('2d'), 0, 0, Object.assign({ fill: KEY_FILL, ink: v.inkOn(KEY_FILL) }, look));
    return c;
  };
  const box = make('p', { class: 'step-legend' });
  box.append(key('is-free', { fill: FREE_FILL }), t('steps.free'),
    key('is-alloc', { frame: 'solid' }), t('steps.justAllocated'),
    key('is-freed is-free', { fill: FREE_FILL, frame: 'solid' }), t('steps.justFreed'));
  if (v.config.PREFIX_CACHE === 'on') {
    box.append(' ', key('is-shared', { shared: true }), t('steps.sharedN'),
      key('is-reused', { frame: 'dotted' }), t('steps.justTakenBackFrom'),
      key('is-free is-cached', { fill: FREE_FILL, cached: true }), t('steps.freeStillHashed'));
  }
  return box;
}

/** Draws step `step` of `count` from its whole run-log item (with its narration, item.text). */
export function drawView(v, item, step, count) {
  const p = v.parts;
  for (const part of [p.slots, p.queue, p.decisions]) part.removeAttribute('aria-busy');
  p.head.textContent = item.text && item.text.length ? item.text[0] : valueText(item, step, count);
  drawSlots(v, item);
  drawBudget(v, item);
  drawKv(v, item);
  if (p.spec) drawSpec(v, item);
  const lines = (item.text || []).slice(1).map((line) => make('li', {}, line));
  const cost = v.config.CLOCK === 'roofline' ? null : seedCostLine(v, item); // under roofline the engine says it
  p.decisions.replaceChildren(...lines, ...(cost ? [make('li', { class: 'step-cost-seed' }, cost)] : []));
}

/** A long run's step before its whole item comes from the worker (static/tools/steps.js asks for it): its head from
 *  the title the page has, the rest of the view marked busy (it still shows the step drawn before) and a line saying
 *  what is coming; drawView() draws the step when it comes. */
export function drawPending(v, item, step, count) {
  const p = v.parts;
  p.head.textContent = valueText(item, step, count);
  for (const part of [p.slots, p.queue, p.decisions]) part.setAttribute('aria-busy', 'true');
  p.decisions.replaceChildren(make('li', { class: 'step-text-wait' }, t('steps.narrationComing')));
}

// CLOCK = seed: the step's cost on the chosen GPU and SHADOW_MODEL (the run log's `cost`, computed under either
// clock) in the words of the roofline clock's "Cost" line (py/inference_lab/words/text_steps.py cost_line):
// the bound, the physical floor before the efficiencies, and the time the roofline clock would charge.
export function seedCostLine(v, item) {
  const c = item.cost;
  if (!v.gpu || !c || !(c.flops > 0) || !(c.bytes > 0)) return '';
  const { gpu, model, peak, bandwidth } = v.gpu;
  const cfg = v.config;
  const decode = (item.tasks || []).filter((tk) => tk[1] === 'decode').length;
  const prefill = (item.tasks || []).filter((tk) => tk[1] === 'prefill').reduce((a, tk) => a + Number(tk[2]), 0);
  // "1 token", "3 tokens" (en)
  const decodes = decode === 1 ? t('steps.costDecodeOne', { n: decode }) : t('steps.costDecode', { n: decode });
  const prompt = prefill === 1 ? t('steps.costPrefillOne', { n: prefill }) : t('steps.costPrefill', { n: prefill });
  // speculative decoding: the proposals verified in the same pass, and a draft model's passes on top of it
  const proposals = Object.values(item.spec || {}).reduce((a, x) => a + (x.proposed || []).length, 0);
  const verified = proposals ? decodes + t('steps.costProposals', { k: proposals }) : decodes;
  const what = [decode ? verified : '', prefill ? prompt : ''].filter(Boolean).join(', ');
  const gb = (c.bytes / 1e9).toFixed(2);
  const gflop = (c.flops / 1e9).toFixed(0);
  const g = (x) => String(parseFloat(x.toPrecision(6))); // Python's {:g}
  const memory = c.bound === 'memory';
  const floor = memory ? c.bytes / bandwidth : c.flops / peak;
  const term = memory ? t('steps.costByBytes', { gb, tbs: g(bandwidth / 1e12) }) : t('steps.costByFlops', { gflop, tflops: g(peak / 1e12) });
  const roof = c.seconds; // the record's: the roofline formula's time on this GPU (core/clock/roofline.py)
  const fields = {
    gpu, model, what, gb, gflop, bound: memory ? t('steps.memoryBound') : t('steps.computeBound'),
    floor: (floor * 1e3).toFixed(2), term,
    bwf: cfg.BANDWIDTH_FRACTION, ff: cfg.FLOPS_FRACTION, overhead: cfg.STEP_OVERHEAD,
    roof: (roof * 1e3).toFixed(2),
  };
  // a draft model's passes are not in the target's cost: said, not added
  return proposals && cfg.SPEC_METHOD === 'draft' ? t('steps.costSeedDraft', fields) : t('steps.costSeed', fields);
}

function chip(v, id, extra) {
  const c = v.colours(id);
  const el = make('span', { class: 'step-chip' }, id);
  el.style.setProperty('--chip', c.colour);
  el.style.setProperty('--chip-ink', v.inkOn(c.colour));
  return extra ? [el, ' ', extra] : [el];
}

// ── speculative decoding: one row per verify ─────────────────────────────
const SPEC_MARK = { accepted: '✓', rejected: '✗', unchecked: '✗', recovered: '↺', bonus: '★' };
const SPEC_WORD = {
  accepted: () => t('steps.spec.accepted'), rejected: () => t('steps.spec.rejected'), unchecked: () => t('steps.spec.unchecked'),
  recovered: () => t('steps.spec.recovered'), bonus: () => t('steps.spec.bonus'),
};

function specToken(v, id, kind) {
  const text = v.tokens[id] !== undefined ? v.tokens[id] : '#' + id;
  const el = make('span', { class: 'spec-tok is-' + kind, 'data-spec': kind }, SPEC_MARK[kind] + ' ' + text);
  el.title = SPEC_WORD[kind]() + ': ' + text;
  return el;
}

function specLegend() {
  const box = make('p', { class: 'step-legend spec-legend' });
  for (const kind of ['accepted', 'rejected', 'recovered', 'bonus']) {
    box.append(make('span', { class: 'spec-tok is-' + kind }, SPEC_MARK[kind]), ' ' + SPEC_WORD[kind]() + ' ');
  }
  return box;
}

/** Each verify of the step: proposed tokens (accepted, first rejected, unchecked), then the recovered or bonus
 *  token. */
export function specRows(item) {
  return Object.entries((item && item.spec) || {}).map(([id, s]) => {
    const kinds = s.proposed.map((tok, i) => [tok, i < s.accepted ? 'accepted' : (i === s.accepted ? 'rejected' : 'unchecked')]);
    if (s.token !== null && s.token !== undefined) kinds.push([s.token, s.accepted === s.proposed.length ? 'bonus' : 'recovered']);
    return { id, accepted: s.accepted, proposed: s.proposed.length, tokens: kinds };
  });
}

function drawSpec(v, item) {
  const rows = specRows(item).map((row) => {
    const li = make('li', { class: 'spec-row', 'data-request': row.id });
    li.append(...chip(v, row.id, t('steps.spec.row', { accepted: row.accepted, proposed: row.proposed })), ' ',
      ...row.tokens.map(([tok, kind]) => specToken(v, tok, kind)));
    return li;
  });
  v.parts.spec.replaceChildren(...(rows.length ? rows : [make('li', { class: 'spec-row is-empty' }, t('steps.spec.none'))]));
}

// The running slots and the waiting queue: a row whose words did not change keeps its element (a big cluster
// run has dozens of slots, mostly empty: rebuilt on every step they would all be laid out and painted again).
function drawSlots(v, item) {
  const p = v.parts;
  const rows = [];
  for (const [id, phase, done, total, gen, preempted] of item.running) {
    const what = phase === 'decode' ? t('steps.decodeTokensGenerated', { gen }) : `prefill · prompt ${done}/${total}` + (preempted ? t('steps.recompute') : '');
    rows.push({ key: `${id}|${phase}|${what}`, make: () => {
      const li = make('li', { class: 'step-slot', 'data-request': id, 'data-phase': phase });
      li.append(...chip(v, id, what));
      return li;
    } });
  }
  for (let i = item.running.length; i < v.config.SLOTS; i++) rows.push({ key: 'free', make: () => make('li', { class: 'step-slot is-empty' }, t('steps.freeSlot')) });
  keepRows(p.slots, rows);
  const labels = v.record.wait_labels || {};
  keepRows(p.queue, item.waiting.length ? item.waiting.map(([id, why, preempted]) => {
    const what = (labels[why] || why) + (preempted ? t('steps.preemptedWaiting') : '');
    return { key: `${id}|${why}|${what}`, make: () => {
      const li = make('li', { class: 'step-wait', 'data-request': id, 'data-why': why });
      li.append(...chip(v, id, what));
      return li;
    } };
  }) : [{ key: 'empty', make: () => make('li', { class: 'step-wait is-empty' }, t('steps.emptyQueue')) }]);
}

// `list`'s children become `rows` ({key, make}) in order: the child at a place whose key is the same stays.
function keepRows(list, rows) {
  const old = [...list.children];
  rows.forEach((row, i) => {
    const here = old[i];
    if (here && here.dataset.rowKey === row.key) return;
    const el = row.make();
    el.dataset.rowKey = row.key;
    if (here) here.replaceWith(el);
    else list.append(el);
  });
  for (const el of old.slice(rows.length)) el.remove();
}

function drawBudget(v, item) {
  const { parts, used, cap, left } = budgetParts(item);
  const key = JSON.stringify([parts, used, cap, left]);   // the same split as the step before: left as drawn
  if (v.parts.budget.dataset.rowKey === key) return;
  v.parts.budget.dataset.rowKey = key;
  const bar = make('div', { class: 'budget-bar', role: 'img' });
  const total = cap || used || 1;
  for (const part of parts) {
    const seg = make('span', { class: 'budget-seg', 'data-phase': part.phase }, part.phase === 'decode' ? `${part.id} d` + (part.n > 1 ? `+${part.n - 1}` : '') : `${part.id} ${part.n}`);
    seg.style.setProperty('--share', String(part.n / total));
    const c = v.colours(part.id);
    seg.style.setProperty('--chip', c.colour);
    seg.style.setProperty('--chip-ink', v.inkOn(c.colour));
    seg.title = part.phase === 'decode' ? `${part.id}: decode ${part.n} token` : `${part.id}: prefill ${part.n} token`;
    bar.append(seg);
  }
  if (left) {
    const seg = make('span', { class: 'budget-seg is-left' }, t('steps.left', { left }));
    seg.style.setProperty('--share', String(left / total));
    bar.append(seg);
  }
  const said = parts.map((x) => (x.phase === 'decode' ? `${x.id} decode ${x.n}` : `${x.id} prefill ${x.n}`)).join(', ');
  bar.setAttribute('aria-label', t('steps.budgetLabel', { used, cap: cap ? '/' + cap : '', said: said || t('steps.noWork') }) + (left ? t('steps.left2', { left }) : '.'));
  v.parts.budget.replaceChildren(bar, make('p', { class: 'step-budget-note' }, cap ? t('steps.usedTokensLeft', { used, cap, left }) : t('steps.usedTokens', { used })));
}

function drawKv(v, item) {
  const p = v.parts;
  const pool = v.config.POOL_BLOCKS;
  const map = blockMap(item, pool);
  for (let b = 0; b < pool; b++) {
    const owner = map.owners[b];
    const shared = map.holders[b].length > 1;
    const state = `${map.holders[b].join(',')}|${map.logical[b]}|${map.alloc.has(b) ? 1 : 0}|${map.freed.has(b) ? 1 : 0}|${map.reused.has(b) ? 1 : 0}|${map.cached.has(b) ? 1 : 0}`;
    if (p.shown[b] === state) continue;
    p.shown[b] = state;
    if (!p.cells.length) { paintCell(v, p.kv, b, owner, map); continue; }
    const cell = p.cells[b];
    cell.classList.toggle('is-free', owner === null);
    cell.classList.toggle('is-alloc', map.alloc.has(b));
    cell.classList.toggle('is-freed', map.freed.has(b));
    cell.classList.toggle('is-shared', shared);
    cell.classList.toggle('is-reused', map.reused.has(b));
    cell.classList.toggle('is-cached', map.cached.has(b));
    if (owner === null) {
      cell.style.removeProperty('--chip');
      cell.style.removeProperty('--chip-ink');
    } else {
      const c = v.colours(owner);
      cell.style.setProperty('--chip', c.colour);
      cell.style.setProperty('--chip-ink', v.inkOn(c.colour));
    }
    if (cell.lastChild && cell.lastChild.className === 'kv-owner') cell.lastChild.textContent = owner === null ? '' : (shared ? `${owner}×${map.holders[b].length}` : owner);
    cell.title = `block ${b}: ` + (owner === null ? (map.cached.has(b) ? t('steps.freeStillCarrying') : t('steps.free2')) : shared ? t('steps.sharedPrefixCache', { holders: map.holders[b].join(', ') }) : t('steps.heldLogicalBlock', { owner, logical: map.logical[b] })) +
      (map.alloc.has(b) ? t('steps.justAllocated2') : '') + (map.reused.has(b) ? t('steps.justTakenBackFrom2') : '') + (map.freed.has(b) ? t('steps.justFreed2') : '');
  }
  const tables = Object.entries(item.tables).map(([id, table]) => t('steps.holdsBlocks', { id, n: table.length })).join(', ');
  const nFree = map.owners.filter((o) => o === null).length;
  p.kv.setAttribute('aria-label', t('steps.poolLabel', { pool, tables: tables || t('steps.nobodyHolds'), nFree }) + cacheSaid(v, map) + '.');
  const reused = (item.reused || []).length;
  p.free.textContent = t('steps.free3', { nFree, pool }) + (item.alloc.length ? t('steps.justAllocated3', { nAlloc: item.alloc.length }) : '') +
    (reused ? t('steps.takenBackFromPrefix', { reused }) : '') + (item.freed.length ? t('steps.justFreed3', { nFreed: item.freed.length }) : '');
}

// PREFIX_CACHE=on: the shared blocks (with their holders) and the free blocks still hashed, in words
// (the canvas has no per-block titles; the cells say it in each title too).
function cacheSaid(v, map) {
  if (v.config.PREFIX_CACHE !== 'on') return '';
  const shared = [];
  map.holders.forEach((ids, b) => { if (ids.length > 1) shared.push(`${b} (${ids.join(', ')})`); });
  return t('steps.cacheLabel', { shared: shared.length ? 'block ' + shared.join(', ') : t('steps.none'), nCached: map.cached.size });
}

function paintCell(v, canvas, b, owner, map) {
  const fill = owner === null ? FREE_FILL : v.colours(owner).colour;
  paintBlock(canvas.getContext('2d'), (b % DENSE_COLS) * CELL_PX, Math.floor(b / DENSE_COLS) * CELL_PX, {
    fill,
    ink: v.inkOn(fill),
    frame: map.alloc.has(b) || map.freed.has(b) ? 'solid' : map.reused.has(b) ? 'dotted' : null,
    shared: map.holders[b].length > 1,
    cached: map.cached.has(b),
  });
}

// One block of the canvas at (x, y): a (CELL_PX - 1)² square of `fill`, with the marks the cells show:
// frame 'solid' (just allocated or just freed: a black frame), 'dotted' (just taken back from the prefix
// cache: every other pixel of the edge), shared (held by several tables: two lines "=" in `ink`, as the
// cells' double outline), cached (free but still hashed: a grey dot, as the cells' dotted background).
function paintBlock(g, x, y, look) {
  const side = CELL_PX - 1;
  g.clearRect(x, y, CELL_PX, CELL_PX);
  g.fillStyle = look.fill;
  g.fillRect(x, y, side, side);
  if (look.cached) {
    g.fillStyle = CACHED_DOT;
    g.fillRect(x + 2, y + 2, 3, 3);
  }
  if (look.shared) {
    g.fillStyle = look.ink;
    g.fillRect(x + 1, y + 2, side - 2, 1);
    g.fillRect(x + 1, y + 4, side - 2, 1);
  }
  if (look.frame === 'solid') {
    g.strokeStyle = '#000000';
    g.lineWidth = 2;
    g.strokeRect(x + 1, y + 1, side - 2, side - 2);
  } else if (look.frame === 'dotted') {
    g.fillStyle = '#000000';
    for (let i = 0; i < side; i += 2) {
      g.fillRect(x + i, y, 1, 1);
      g.fillRect(x + i, y + side - 1, 1, 1);
      g.fillRect(x, y + i, 1, 1);
      g.fillRect(x + side - 1, y + i, 1, 1);
    }
  }
}
