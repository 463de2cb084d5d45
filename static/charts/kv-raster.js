// kv-raster (block 6, a long run): the KV pool as one raster image, a pixel per (screen column of steps, block),
// so that a 16,000-step run draws as many pixels as the screen shows, not a mark per step and block (issue 39).
// A pixel column shows the state at the end of its last step; a pixel row several blocks (the first table holding
// one of them gives its colour, else cached-free, else free).
// Leaves out: the grid, axes, legend, marks and step columns (kv-blocks.js draws them around this image).
import { s } from './svg.js';

// [r, g, b] of a CSS colour, normalised by a canvas (cached per colour).
function rgbOf(ctx, colour, cache) {
  if (!cache.has(colour)) {
    ctx.fillStyle = '#000000';
    ctx.fillStyle = colour;
    const hex = /^#([0-9a-f]{6})$/i.exec(ctx.fillStyle);
    const n = hex ? parseInt(hex[1], 16) : 0x7f7f7f;
    cache.set(colour, [n >> 16, (n >> 8) & 255, n & 255]);
  }
  return cache.get(colour);
}

// The pool a pixel column shows: its last step's tables as runs [[id, first, last, ...]] in table order and its
// cached-free ranges; a long run's from its strip (the last drawn step up to the column's last step).
function columnSource(k) {
  if (k.strip) {
    let at = 0;
    return (last) => {   // `last`: the column's last step (0-based), rising from column to column
      while (at + 1 < k.strip.length && k.strip[at + 1].step <= last + 1) at++;
      return k.strip[at];
    };
  }
  return (last) => {
    const st = k.steps[last];
    return { tables: Object.entries(st.owners).map(([b, id]) => [id, Number(b), Number(b)]),
      cached: st.cachedFree.map((b) => [b, b]) };
  };
}

// The pool as one <image> over the grid's box (style: the chart's left/top margins and its free/cached colours).
export function drawRaster(svg, k, style) {
  const { rows, cols, gridH } = k;
  const plotW = Math.max(1, Math.round(cols * k.colW));
  const width = Math.min(cols, plotW); // pixel columns: at most one per step, at most one per screen pixel
  const height = Math.max(1, Math.min(rows, Math.round(gridH))); // pixel rows: at most one per block, one per pixel
  const canvas = document.createElement('canvas');
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  const image = ctx.createImageData(width, height);
  const cache = new Map();
  // 0 free, 1 cached, 2.. a request's colour
  const palette = [rgbOf(ctx, style.free, cache), rgbOf(ctx, style.cached, cache)];
  const index = new Map();
  const colourIndex = (id) => {
    if (!index.has(id)) {
      index.set(id, palette.length);
      palette.push(rgbOf(ctx, k.colourOf(String(id)).colour, cache));
    }
    return index.get(id);
  };
  const pixelRow = (b) => Math.min(height - 1, Math.floor((b * height) / rows));
  const cell = new Int32Array(height);
  const source = columnSource(k);
  for (let c = 0; c < width; c++) {
    const src = source(Math.min(cols - 1, Math.floor(((c + 1) * cols) / width) - 1)); // the column's last step
    cell.fill(0);
    for (const [id, ...runs] of src.tables) {  // the first table holding a block of the row gives its colour
      const colour = colourIndex(id);
      for (let r = 0; r < runs.length; r += 2) {
        if (runs[r] >= rows) continue;
        for (let p = pixelRow(runs[r]), end = pixelRow(Math.min(rows - 1, runs[r + 1])); p <= end; p++) {
          if (cell[p] < 2) cell[p] = colour;
        }
      }
    }
    if (k.caching) {
      for (const [lo, hi] of src.cached) {
        if (lo >= rows) continue;
        const end = pixelRow(Math.min(rows - 1, hi));
        for (let p = pixelRow(lo); p <= end; p++) if (cell[p] === 0) cell[p] = 1;
      }
    }
    for (let p = 0; p < height; p++) {
      const rgb = palette[cell[p]];
      const at = (p * width + c) * 4;
      image.data[at] = rgb[0];
      image.data[at + 1] = rgb[1];
      image.data[at + 2] = rgb[2];
      image.data[at + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
  svg.append(s('image', {
    class: 'kv-raster', href: canvas.toDataURL('image/png'), x: style.left, y: style.top, width: plotW, height: gridH,
    preserveAspectRatio: 'none', 'image-rendering': 'pixelated', 'aria-hidden': 'true',
  }));
}
