// memory (block 10): the lab's "HBM" budget in bytes at the KV peak as one stacked bar — weights, KV blocks
// in use (the tokens they hold, then the empty slots of partly filled blocks), free KV blocks — with each
// part listed underneath (its own swatch, bytes and share), then the pool as POOL_BLOCKS squares (in use at
// the peak / free). Patterns and the written list carry the parts, so colour is never the only cue.
import { ChartBuilder } from './figure.js';
import { round, s, swatches, text } from './svg.js';
import { fitText, fittedText, textWidth } from './text-fit.js';
import { OKABE_ITO } from './colours.js';
import { byLang, t } from '../words/i18n.js';

export const NAME = 'memory';

const PAD = 6;
const BAR = 30;
const ITEM = 22;
const CELL_MAX = 22;
const FREE = '#eef0f3';
const PARTS = byLang(() => ([
  { key: 'weights', label: t('chart.memory.weightsFloat64'), short: t('chart.memory.weights'), colour: OKABE_ITO.blue, kind: null },
  { key: 'kv_stored', label: t('chart.memory.kvHoldingTokens'), short: t('chart.memory.kvTokens'), colour: OKABE_ITO.orange, kind: 'hatch' },
  { key: 'kv_slack', label: t('chart.memory.kvEmptySlotsBlocksUse'), short: t('chart.memory.kvEmptySlots'), colour: OKABE_ITO.yellow, kind: 'dots' },
  { key: 'kv_free', label: t('chart.memory.kvFreeBlocks'), short: t('chart.memory.kvFreeBlocks'), colour: FREE, kind: null },
]));

function share(v, total) { return total ? Math.round((v / total) * 100) + '%' : '—'; }

export function render(data, report, opts = {}) {
  const m = data.budget || null;
  const chart = new ChartBuilder(NAME, t('chart.memory.labSMemoryBudgetKvPeak'), opts.width);
  chart.legend(PARTS().map((p) => ({ label: p.label, draw: swatches.box(p.colour, p.kind) })));
  if (!m || !m.total) {
    chart.root.dataset.empty = 'true';
    chart.note(t('chart.memory.runHasNoMemoryFigures'));
    return chart.finish();
  }
  const width = chart.width;
  const right = width - PAD;
  const x = (v) => PAD + (v / m.total) * (right - PAD);
  const config = report.config || {}; // the run's constants: their one place in a report
  const pool = Number(config.POOL_BLOCKS) || 0;
  const barY = 30;
  const listY = barY + BAR + 26;
  const blocksTitleY = listY + PARTS().length * ITEM + 14;
  const cols = pool ? Math.min(pool, Math.max(1, Math.floor((right - PAD + 3) / 15))) : 0;
  const cell = pool ? Math.min(CELL_MAX, (right - PAD) / Math.min(pool, cols) - 3) : 0;
  const gridRows = pool ? Math.ceil(pool / cols) : 0;
  const gridY = blocksTitleY + 12;
  const height = pool && pool <= 256 ? gridY + gridRows * (cell + 3) + 8 : blocksTitleY;

  const summary = t('chart.memory.peakStepTotalBytes', { peak_step: m.peak_step ?? '?', total: m.total, weights: m.weights, peak_tokens: m.peak_tokens, kv_stored: m.kv_stored, kv_slack: m.kv_slack, kv_free: m.kv_free, peak_blocks: m.peak_blocks, pool, block_bytes: m.block_bytes, kv_in_use: m.kv_in_use });
  const svg = chart.svg(width, height, summary);
  svg.append(fittedText(PAD, 16, [
    t('chart.memory.totalBytesWeightsKv', { total: m.total, weights: m.weights, kv_pool: m.kv_pool }),
    t('chart.memory.bytesWeightsKv', { total: m.total, weights: m.weights, kv_pool: m.kv_pool }),
    `${m.total} = ${m.weights} + ${m.kv_pool}`,
  ], right - PAD, { class: 'panel-title' }, 12, true));

  // the stacked bar
  let at = 0;
  const segs = [];
  for (const part of PARTS()) {
    const v = Number(m[part.key]) || 0;
    const x0 = x(at);
    at += v;
    if (v <= 0) continue;
    const w = Math.max(1, x(at) - x0);
    const g = s('g', { class: 'segment', 'data-part': part.key, 'data-bytes': v });
    g.append(s('rect', { x: round(x0), y: barY, width: round(w), height: BAR, fill: part.colour, stroke: '#1b1f24', 'stroke-width': 0.6 }));
    if (part.kind) g.append(s('rect', { x: round(x0), y: barY, width: round(w), height: BAR, fill: chart.hatchFor(part.colour, part.kind) }));
    const label = share(v, m.total);
    if (textWidth(label, 11, true) + 8 <= w) {
      g.append(s('rect', { x: round(x0 + w / 2 - textWidth(label, 11, true) / 2 - 3), y: barY + 8, width: round(textWidth(label, 11, true) + 6), height: BAR - 16, rx: 2, fill: '#ffffff', 'fill-opacity': 0.9 }));
      g.append(text(x0 + w / 2, barY + BAR / 2 + 4, label, { 'text-anchor': 'middle', class: 'in-box' }));
    }
    segs.push([part, v, g]);
  }
  // brace-like ticks under the bar: where the KV pool starts
  const kvX = x(m.weights);
  svg.append(s('line', { x1: round(kvX), x2: round(kvX), y1: barY - 6, y2: barY + BAR + 4, stroke: '#000000', 'stroke-width': 1.5, 'aria-hidden': 'true' }));
  svg.append(text(Math.min(kvX + 3, right - textWidth(t('chart.memory.kvPool'), 11) - 4), barY + BAR + 16, t('chart.memory.kvPool'), { class: 'value muted', 'aria-hidden': 'true' }));

  const details = {
    weights: (v) => t('chart.memory.float64WeightsBytes', { v, share: share(v, m.total) }),
    kv_stored: (v) => t('chart.memory.kvHoldingTokensBytes', { peak_tokens: m.peak_tokens, per_token: m.per_token, v }),
    kv_slack: (v) => t('chart.memory.emptySlotsEachSequence', { v, peak_blocks: m.peak_blocks, block_bytes: m.block_bytes, kv_in_use: m.kv_in_use }),
    kv_free: (v) => t('chart.memory.freeBlocksPeakBytes', { nFree: pool - m.peak_blocks, block_bytes: m.block_bytes, v }),
  };
  for (const [part, v, g] of segs) svg.append(chart.mark(g, details[part.key](v)));

  // the written list
  PARTS().forEach((part, i) => {
    const v = Number(m[part.key]) || 0;
    const y = listY + i * ITEM;
    const g = s('g', { class: 'part', 'data-part': part.key, 'aria-hidden': 'true' });
    g.append(s('rect', { x: PAD, y: y - 11, width: 18, height: 14, fill: part.colour, stroke: '#1b1f24', 'stroke-width': 0.6 }));
    if (part.kind) g.append(s('rect', { x: PAD, y: y - 11, width: 18, height: 14, fill: chart.hatchFor(part.colour, part.kind) }));
    const room = right - PAD - 26;
    const head = `${v} byte`;
    const tail = fitText([part.label, part.short].map((label) => ` · ${label} · ${share(v, m.total)}`), room - textWidth(head, 11, true), 11);
    const line = text(PAD + 26, y, '', { class: 'value' });
    line.append(s('tspan', { class: 'strong' }, head), tail);
    if (textWidth(head, 11, true) + textWidth(tail, 11) > room) {
      line.setAttribute('textLength', String(Math.floor(room)));
      line.setAttribute('lengthAdjust', 'spacingAndGlyphs');
    }
    g.append(line);
    svg.append(g);
  });

  // the pool as blocks
  if (pool && pool <= 256) {
    const long = t('chart.memory.kvPoolBlocksUsePeak', { peak_blocks: m.peak_blocks, pool, block_size: config.BLOCK_SIZE, per_token: m.per_token, block_bytes: m.block_bytes });
    const short = t('chart.memory.kvPoolBlocksUsePeak2', { peak_blocks: m.peak_blocks, pool, block_bytes: m.block_bytes });
    svg.append(fittedText(PAD, blocksTitleY, [long, short, t('chart.memory.kvPoolBlocksPeak', { peak_blocks: m.peak_blocks, pool })], right - PAD, { class: 'panel-title' }, 12, true));
    const grid = s('g', { class: 'kv-pool', 'data-used': m.peak_blocks, 'data-pool': pool });
    for (let b = 0; b < pool; b++) {
      const cx = PAD + (b % cols) * (cell + 3);
      const cy = gridY + Math.floor(b / cols) * (cell + 3);
      const used = b < m.peak_blocks;
      const look = used ? PARTS()[1] : PARTS()[3];
      grid.append(s('rect', { x: round(cx), y: round(cy), width: round(cell), height: round(cell), fill: look.colour, stroke: '#1b1f24', 'stroke-width': 0.6, class: used ? 'used' : 'free' }));
      if (used) grid.append(s('rect', { x: round(cx), y: round(cy), width: round(cell), height: round(cell), fill: chart.hatchFor(look.colour, look.kind) }));
    }
    svg.append(chart.mark(grid, t('chart.memory.kvPoolBlocksPeakUse', { pool, peak_blocks: m.peak_blocks, kv_in_use: m.kv_in_use, nFree: pool - m.peak_blocks, kv_free: m.kv_free })));
  }

  chart.table(t('chart.memory.memoryBudgetKvPeak'), [t('chart.memory.part'), 'Byte', t('chart.memory.share')],
    [...PARTS().map((p) => [p.label, String(m[p.key]), share(Number(m[p.key]) || 0, m.total)]), [t('chart.memory.total'), String(m.total), '100%']]);
  chart.altText(t('chart.memory.oneTokenNeedsBytesKv', { per_token: m.per_token, block_size: config.BLOCK_SIZE, block_bytes: m.block_bytes, pool, kv_pool: m.kv_pool }));
  return chart.finish();
}
