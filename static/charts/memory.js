// memory (block 10): the lab's "HBM" budget in bytes at the KV peak as one stacked bar — weights, KV blocks
// in use (the tokens they hold, then the empty slots of partly filled blocks), free KV blocks — with each
// part listed underneath (its own swatch, bytes and share), then the pool as POOL_BLOCKS squares (in use at
// the peak / free). Patterns and the written list carry the parts, so colour is never the only cue.
import { ChartBuilder, OKABE_ITO, fitText, fittedText, round, s, swatches, text, textWidth } from './svg.js';
import { tl } from '../words/i18n.js';

export const NAME = 'memory';

const PAD = 6;
const BAR = 30;
const ITEM = 22;
const CELL_MAX = 22;
const FREE = '#eef0f3';
const PARTS = [
  { key: 'weights', label: tl('trọng số (float64)', 'weights (float64)'), short: tl('trọng số', 'weights'), colour: OKABE_ITO.blue, kind: null },
  { key: 'kv_stored', label: tl('KV đang giữ token', 'KV holding tokens'), short: tl('KV giữ token', 'KV tokens'), colour: OKABE_ITO.orange, kind: 'hatch' },
  { key: 'kv_slack', label: tl('KV: chỗ trống trong block đang dùng', 'KV: empty slots in blocks in use'), short: tl('KV: chỗ trống trong block', 'KV: empty slots'), colour: OKABE_ITO.yellow, kind: 'dots' },
  { key: 'kv_free', label: tl('KV: block trống', 'KV: free blocks'), short: tl('KV: block trống', 'KV: free blocks'), colour: FREE, kind: null },
];

function share(v, total) { return total ? Math.round((v / total) * 100) + '%' : '—'; }

export function render(data, report, opts = {}) {
  const m = data.budget || null;
  const chart = new ChartBuilder(NAME, tl('Ngân sách bộ nhớ của lab lúc KV cao điểm (byte): trọng số + KV đang dùng + KV trống', 'The lab\'s memory budget at the KV peak (bytes): weights + KV in use + free KV'), opts.width);
  chart.legend(PARTS.map((p) => ({ label: p.label, draw: swatches.box(p.colour, p.kind) })));
  if (!m || !m.total) {
    chart.root.dataset.empty = 'true';
    chart.note(tl('Lần chạy này không có số liệu bộ nhớ.', 'This run has no memory figures.'));
    return chart.finish();
  }
  const width = chart.width;
  const right = width - PAD;
  const x = (v) => PAD + (v / m.total) * (right - PAD);
  const pool = Number(data.pool_blocks) || 0;
  const barY = 30;
  const listY = barY + BAR + 26;
  const blocksTitleY = listY + PARTS.length * ITEM + 14;
  const cols = pool ? Math.min(pool, Math.max(1, Math.floor((right - PAD + 3) / 15))) : 0;
  const cell = pool ? Math.min(CELL_MAX, (right - PAD) / Math.min(pool, cols) - 3) : 0;
  const gridRows = pool ? Math.ceil(pool / cols) : 0;
  const gridY = blocksTitleY + 12;
  const height = pool && pool <= 256 ? gridY + gridRows * (cell + 3) + 8 : blocksTitleY;

  const summary = tl(`Lúc cao điểm (bước ${m.peak_step ?? '?'}): tổng ${m.total} byte = trọng số ${m.weights} + KV giữ ${m.peak_tokens} token ${m.kv_stored} + `, `At the peak (step ${m.peak_step ?? '?'}): total ${m.total} bytes = weights ${m.weights} + KV holding ${m.peak_tokens} tokens ${m.kv_stored} + `) +
    tl(`chỗ trống trong block đang dùng ${m.kv_slack} + block trống ${m.kv_free}. ${m.peak_blocks}/${pool} block × ${m.block_bytes} byte = ${m.kv_in_use} byte KV đang dùng.`, `empty slots in blocks in use ${m.kv_slack} + free blocks ${m.kv_free}. ${m.peak_blocks}/${pool} blocks × ${m.block_bytes} bytes = ${m.kv_in_use} bytes of KV in use.`);
  const svg = chart.svg(width, height, summary);
  svg.append(fittedText(PAD, 16, [
    tl(`Tổng ${m.total} byte = trọng số ${m.weights} + bể KV ${m.kv_pool}`, `Total ${m.total} bytes = weights ${m.weights} + KV pool ${m.kv_pool}`),
    tl(`${m.total} byte = trọng số ${m.weights} + KV ${m.kv_pool}`, `${m.total} bytes = weights ${m.weights} + KV ${m.kv_pool}`),
    `${m.total} = ${m.weights} + ${m.kv_pool}`,
  ], right - PAD, { class: 'panel-title' }, 12, true));

  // the stacked bar
  let at = 0;
  const segs = [];
  for (const part of PARTS) {
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
  svg.append(text(Math.min(kvX + 3, right - textWidth(tl('bể KV →', 'KV pool →'), 11) - 4), barY + BAR + 16, tl('bể KV →', 'KV pool →'), { class: 'value muted', 'aria-hidden': 'true' }));

  const details = {
    weights: (v) => tl(`Trọng số float64: ${v} byte (${share(v, m.total)} tổng). Đổi khi N_MERGES đổi số token trong từ vựng (bảng nhúng và LM head).`, `float64 weights: ${v} bytes (${share(v, m.total)} of the total). Changes when N_MERGES changes the vocabulary size (embedding table and LM head).`),
    kv_stored: (v) => tl(`KV đang giữ ${m.peak_tokens} token × ${m.per_token} byte = ${v} byte lúc cao điểm.`, `KV holding ${m.peak_tokens} tokens × ${m.per_token} bytes = ${v} bytes at the peak.`),
    kv_slack: (v) => tl(`Chỗ trống trong block cuối của từng chuỗi: ${v} byte (${m.peak_blocks} block × ${m.block_bytes} byte = ${m.kv_in_use} byte đang cấp, trừ phần đang giữ token).`, `Empty slots in each sequence's last block: ${v} bytes (${m.peak_blocks} blocks × ${m.block_bytes} bytes = ${m.kv_in_use} bytes allocated, minus what holds tokens).`),
    kv_free: (v) => tl(`Block trống lúc cao điểm: ${pool - m.peak_blocks} block × ${m.block_bytes} byte = ${v} byte.`, `Free blocks at the peak: ${pool - m.peak_blocks} blocks × ${m.block_bytes} bytes = ${v} bytes.`),
  };
  for (const [part, v, g] of segs) svg.append(chart.mark(g, details[part.key](v)));

  // the written list
  PARTS.forEach((part, i) => {
    const v = Number(m[part.key]) || 0;
    const y = listY + i * ITEM;
    const g = s('g', { class: 'part', 'data-part': part.key, 'aria-hidden': 'true' });
    g.append(s('rect', { x: PAD, y: y - 11, width: 18, height: 14, fill: part.colour, stroke: '#1b1f24', 'stroke-width': 0.6 }));
    if (part.kind) g.append(s('rect', { x: PAD, y: y - 11, width: 18, height: 14, fill: chart.hatchFor(part.colour, part.kind) }));
    const room = right - PAD - 26;
    const head = `${v} byte`;
    const tail = fitText([part.label, part.short].map((label) => ` · ${label} · ${share(v, m.total)}`), room - textWidth(head, 11, true), 11);
    const t = text(PAD + 26, y, '', { class: 'value' });
    t.append(s('tspan', { class: 'strong' }, head), tail);
    if (textWidth(head, 11, true) + textWidth(tail, 11) > room) {
      t.setAttribute('textLength', String(Math.floor(room)));
      t.setAttribute('lengthAdjust', 'spacingAndGlyphs');
    }
    g.append(t);
    svg.append(g);
  });

  // the pool as blocks
  if (pool && pool <= 256) {
    const long = tl(`Bể KV: ${m.peak_blocks}/${pool} block đang dùng lúc cao điểm, mỗi block ${data.block_size} token × ${m.per_token} byte = ${m.block_bytes} byte`, `KV pool: ${m.peak_blocks}/${pool} blocks in use at the peak, each block ${data.block_size} tokens × ${m.per_token} bytes = ${m.block_bytes} bytes`);
    const short = tl(`Bể KV: ${m.peak_blocks}/${pool} block dùng lúc cao điểm (${m.block_bytes} byte/block)`, `KV pool: ${m.peak_blocks}/${pool} blocks in use at the peak (${m.block_bytes} bytes/block)`);
    svg.append(fittedText(PAD, blocksTitleY, [long, short, tl(`Bể KV: ${m.peak_blocks}/${pool} block lúc cao điểm`, `KV pool: ${m.peak_blocks}/${pool} blocks at the peak`)], right - PAD, { class: 'panel-title' }, 12, true));
    const grid = s('g', { class: 'kv-pool', 'data-used': m.peak_blocks, 'data-pool': pool });
    for (let b = 0; b < pool; b++) {
      const cx = PAD + (b % cols) * (cell + 3);
      const cy = gridY + Math.floor(b / cols) * (cell + 3);
      const used = b < m.peak_blocks;
      const look = used ? PARTS[1] : PARTS[3];
      grid.append(s('rect', { x: round(cx), y: round(cy), width: round(cell), height: round(cell), fill: look.colour, stroke: '#1b1f24', 'stroke-width': 0.6, class: used ? 'used' : 'free' }));
      if (used) grid.append(s('rect', { x: round(cx), y: round(cy), width: round(cell), height: round(cell), fill: chart.hatchFor(look.colour, look.kind) }));
    }
    svg.append(chart.mark(grid, tl(`Bể KV ${pool} block: lúc cao điểm ${m.peak_blocks} block đang dùng (${m.kv_in_use} byte), ${pool - m.peak_blocks} block trống (${m.kv_free} byte). Thứ tự ô không phải số block vật lý.`, `KV pool of ${pool} blocks: at the peak ${m.peak_blocks} blocks in use (${m.kv_in_use} bytes), ${pool - m.peak_blocks} blocks free (${m.kv_free} bytes). The order of the cells is not the physical block number.`)));
  }

  chart.table(tl('Ngân sách bộ nhớ lúc KV cao điểm (byte)', 'Memory budget at the KV peak (bytes)'), [tl('Phần', 'Part'), 'Byte', tl('Tỉ lệ', 'Share')],
    [...PARTS.map((p) => [p.label, String(m[p.key]), share(Number(m[p.key]) || 0, m.total)]), [tl('tổng', 'total'), String(m.total), '100%']]);
  chart.altText(tl(`Một token cần ${m.per_token} byte KV; một block ${data.block_size} token = ${m.block_bytes} byte; bể ${pool} block = ${m.kv_pool} byte.`, `One token needs ${m.per_token} bytes of KV; one block of ${data.block_size} tokens = ${m.block_bytes} bytes; a pool of ${pool} blocks = ${m.kv_pool} bytes.`));
  return chart.finish();
}
