// Chart text: the one font every label is laid out for (fontsReady waits for it), textWidth() to measure
// a string in it, and fitText()/fittedText() to pick the longest variant of a label that fits its room.
// Leaves out: drawing anything but the fitted <text> (svg.js builds it) and the words themselves
// (static/words/ catalogues, through t()).

import { text } from './svg.js';

export const FONT = 12;            // px; the SVG is drawn 1:1 with the page, so this is the real size
// Chart text is laid out for the metrics of one font, the same on every machine: the page's own
// "Lab Mono" (JetBrains Mono, vendored into fonts/ by build.py; style.css's --mono, which charts.css
// gives every .chart-svg text). A system font would make a label that fits here run past the edge on
// a machine whose sans-serif is wider (DejaVu Sans). fontsReady below loads it before the first
// drawing; the few characters it lacks (→ ≤ ✓ ✗ ▸) come from the next fonts of the stack and are
// measured like the rest.
export const FONT_FAMILY_FALLBACK = '"Lab Mono", ui-monospace, "Liberation Mono", "DejaVu Sans Mono", monospace';
let fontFamily = null;
function chartFontFamily() {
  if (fontFamily === null) {
    const mono = typeof getComputedStyle === 'function' ? getComputedStyle(document.documentElement).getPropertyValue('--mono').trim() : '';
    fontFamily = mono || FONT_FAMILY_FALLBACK;
  }
  return fontFamily;
}

// Text in both of the font's files (Latin, Vietnamese), so that document.fonts.load fetches both.
const FONT_SAMPLE = 'Aa0→ ăâđêôơư ấầẩẫậữ';
const FONT_WAIT_MS = 5000; // a font that never comes (offline, blocked): draw with the fallback after this
/** Resolves once the chart font is loaded (or has failed, or FONT_WAIT_MS passed): charts/index.js
 *  draws nothing before, so no label is measured in one font and drawn in another. */
export const fontsReady = (typeof document !== 'undefined' && document.fonts && document.fonts.load)
  ? Promise.race([
    Promise.all([400, 700].map((w) => document.fonts.load(`${w} ${FONT}px "Lab Mono"`, FONT_SAMPLE))).catch(() => null),
    new Promise((resolve) => setTimeout(resolve, FONT_WAIT_MS)),
  ]).then(() => { fontFamily = null; })
  : Promise.resolve();

/** The first of `variants` (longest first) that is at most `room` px wide at `size` px (bold optional),
 *  else the last one. */
export function fitText(variants, room, size = FONT, bold = false) {
  const list = (Array.isArray(variants) ? variants : [variants]).filter((v) => v !== null && v !== undefined);
  return list.find((v) => textWidth(v, size, bold) <= room) ?? list[list.length - 1] ?? '';
}

/**
 * A <text> at (x, y) holding the first of `variants` that fits in `room` px (see fitText); `size` and
 * `bold` must be the ones the text is drawn with (its class in charts.css). When even the last variant
 * is wider (a very narrow drawing), it is squeezed into `room` (textLength) rather than cut or run past
 * the edge: every label stays inside the drawing, whatever the width.
 */
export function fittedText(x, y, variants, room, attrs = {}, size = FONT, bold = false) {
  const chosen = fitText(variants, room, size, bold);
  const el = text(x, y, chosen, attrs);
  if (textWidth(chosen, size, bold) > room && room > 0) {
    el.setAttribute('textLength', String(Math.floor(room)));
    el.setAttribute('lengthAdjust', 'spacingAndGlyphs');
  }
  return el;
}

let measureCtx = null;
/** Width in px of `str` at `size` px in the chart font (bold optional). */
export function textWidth(str, size = FONT, bold = false) {
  if (!measureCtx) measureCtx = document.createElement('canvas').getContext('2d');
  if (!measureCtx) return String(str).length * size * 0.6;
  measureCtx.font = (bold ? '700 ' : '') + size + 'px ' + chartFontFamily();
  return measureCtx.measureText(String(str)).width;
}
