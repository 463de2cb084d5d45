// Shared helpers for the charts: element builders, the Okabe–Ito palette, number formats, scales, axes,
// and ChartBuilder — the figure every chart returns (title, legend, SVG, hover/keyboard details and a
// visually hidden text alternative). No library, no inline style strings (the page's CSP forbids them):
// presentation goes through SVG attributes and the classes in charts.css.

import { SVG_NS, h, setAttrs, svg as s } from '../core/dom.js';
import { t } from '../words/i18n.js';

export { SVG_NS, h, s }; // the element builders live in static/core/dom.js

// Okabe & Ito (2008), "Color Universal Design": eight colours that readers with any common form of
// colour-vision deficiency can tell apart. Charts never rely on colour alone (labels, patterns, shapes).
export const OKABE_ITO = {
  black: '#000000', orange: '#E69F00', sky: '#56B4E9', green: '#009E73',
  yellow: '#F0E442', blue: '#0072B2', vermillion: '#D55E00', purple: '#CC79A7',
};
const REQUEST_COLOURS = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00', '#F0E442', '#7F7F7F'];

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

/** SVG <text>; anchor: start | middle | end. */
export function text(x, y, content, attrs) {
  return s('text', { x: round(x), y: round(y), ...attrs }, content);
}

export function round(v) { return Math.round(v * 10) / 10; }

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

// ── numbers ───────────────────────────────────────────────────────────────
/** Simulated µs -> "22.00" (ms, two decimals, like the printed lines). */
export function ms(us, digits = 2) { return (Number(us) / 1000).toFixed(digits); }
/** 0.1234 -> "12.3%". */
export function pct(p, digits = 1) { return (Number(p) * 100).toFixed(digits) + '%'; }

/** Round tick values from lo up to hi (cover: up to the first tick >= hi): steps of 1, 2, 2.5 or 5 × 10^k. */
export function ticks(lo, hi, approx, cover = false) {
  if (!(hi > lo)) hi = lo + 1;
  const raw = (hi - lo) / Math.max(1, approx);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((st) => st >= raw) || 10 * mag;
  const out = [];
  const first = Math.ceil(lo / step - 1e-9) * step;
  for (let v = first; v <= hi + step * 1e-9; v += step) out.push(Number(v.toFixed(10)));
  if (cover && (!out.length || out[out.length - 1] < hi - step * 1e-9)) out.push(Number((first + out.length * step).toFixed(10)));
  return { values: out, step };
}

/** A linear scale [d0, d1] -> [r0, r1]. */
export function linear(d0, d1, r0, r1) {
  const span = d1 - d0 || 1;
  const f = (v) => r0 + ((v - d0) / span) * (r1 - r0);
  f.domain = [d0, d1];
  return f;
}

let measureCtx = null;
/** Width in px of `str` at `size` px in the chart font (bold optional). */
export function textWidth(str, size = FONT, bold = false) {
  if (!measureCtx) measureCtx = document.createElement('canvas').getContext('2d');
  if (!measureCtx) return String(str).length * size * 0.6;
  measureCtx.font = (bold ? '700 ' : '') + size + 'px ' + chartFontFamily();
  return measureCtx.measureText(String(str)).width;
}

// ── colours ───────────────────────────────────────────────────────────────
function luminance(hex) {
  const c = hex.replace('#', '');
  const [r, g, b] = [0, 2, 4].map((i) => {
    const v = parseInt(c.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** '#000' or '#fff', whichever reads better on `hex`. */
export function inkOn(hex) {
  const l = luminance(hex);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000000' : '#ffffff';
}

/** The class that gives text on `hex` its readable ink (CSS beats fill attributes, so it is a class). */
export function inkClass(hex) { return inkOn(hex) === '#ffffff' ? 'ink-light' : 'ink-dark'; }

/** {id: {colour, ink, index}} for every request of the run, in REQUESTS order (ids beyond 8 repeat colours). */
export function requestColours(report) {
  const ids = ((report && report.config && report.config.REQUESTS) || []).map((r) => String(r.id));
  const map = new Map();
  ids.forEach((id, i) => {
    const colour = REQUEST_COLOURS[i % REQUEST_COLOURS.length];
    map.set(id, { colour, ink: inkOn(colour), index: i });
  });
  return (id) => map.get(String(id)) || { colour: '#7F7F7F', ink: '#ffffff', index: map.size };
}

export function blockData(report, n) {
  const block = ((report && report.blocks) || []).find((b) => Number(b.number) === n);
  return block ? block.data || {} : null;
}

/** Why a followed-request chart has nothing to draw (report.follow says where it was refused). */
export function refusedNote(report, what) {
  const f = report.follow || {};
  const where = f.stage === 'gateway' ? t('chart.gateway') : f.stage === 'input' ? t('chart.duringInputPreparation') : '';
  const others = (f.served_ids || []).join(', ');
  return t('chart.followedRequest', { id: f.id || '?', code: f.code || '', where, what }) +
    (others ? t('chart.setFollowServedRequest', { others }) : '');
}

// ── the selected step (static/tools/steps.js) ───────────────────────────────────
/** Step columns for the step navigator: one unpainted .step-col rect per step (data-step = the 1-based
 *  step; x, width = its column; it catches no pointer). The navigator reads them to mark the selected
 *  step and to find the step under a click. spans: [[x, width], ...] in step order; append it under
 *  the drawing. */
export function stepColumns(spans, y, height) {
  const cols = s('g', { class: 'step-cols', 'aria-hidden': 'true' });
  spans.forEach(([x, w], i) => cols.append(s('rect', { class: 'step-col', 'data-step': i + 1, x: round(x), y: round(y), width: round(Math.max(1, w)), height: round(height), fill: 'none' })));
  return cols;
}

// ── axes ──────────────────────────────────────────────────────────────────
/** A horizontal axis at y with tick labels below; scale maps values to x. */
export function xAxis(scale, y, values, format, label, labelX) {
  const g = s('g', { class: 'axis axis-x', 'aria-hidden': 'true' });
  const [x0, x1] = [scale(scale.domain[0]), scale(scale.domain[1])];
  g.append(s('line', { x1: round(x0), x2: round(x1), y1: round(y), y2: round(y), class: 'axis-line' }));
  let lastRight = -Infinity;
  for (const v of values) {
    const x = scale(v);
    g.append(s('line', { x1: round(x), x2: round(x), y1: round(y), y2: round(y + 4), class: 'axis-line' }));
    const tick = format(v);
    const w = textWidth(tick);
    if (x - w / 2 < lastRight + 4) continue; // never overlap two labels
    g.append(text(x, y + 17, tick, { 'text-anchor': 'middle', class: 'tick' }));
    lastRight = x + w / 2;
  }
  if (label) g.append(text(labelX === undefined ? (x0 + x1) / 2 : labelX, y + 34, label, { 'text-anchor': 'middle', class: 'axis-label' }));
  return g;
}

/** Light vertical grid lines for the values. */
export function xGrid(scale, top, bottom, values) {
  const g = s('g', { class: 'grid', 'aria-hidden': 'true' });
  for (const v of values) {
    const x = round(scale(v));
    g.append(s('line', { x1: x, x2: x, y1: round(top), y2: round(bottom) }));
  }
  return g;
}

// ── the figure ────────────────────────────────────────────────────────────
let uid = 0;

export class ChartBuilder {
  /**
   * name: the data-chart value; title: visible caption; width: px available to the drawing.
   */
  constructor(name, title, width) {
    this.id = 'chart-' + ++uid;
    this.name = name;
    this.width = Math.max(200, Math.floor(width || 640));
    this.marks = [];
    this.root = h('figure', { class: 'chart', 'data-chart': name, 'aria-labelledby': this.id + '-title' });
    this.root.append(h('figcaption', { class: 'chart-title', id: this.id + '-title' }, title));
  }

  /** Pattern ids for this chart's SVG: hatch/dots in white (on dark fills) and black (on light fills). */
  get patterns() {
    const p = this.id + '-';
    return { hatchLight: p + 'hl', hatchDark: p + 'hd', dotsLight: p + 'dl', dotsDark: p + 'dd' };
  }

  /** fill url for a hatch (or dots) overlay that reads on `colour`. */
  hatchFor(colour, kind = 'hatch') {
    const light = inkOn(colour) === '#ffffff';
    const p = this.patterns;
    return 'url(#' + (kind === 'dots' ? (light ? p.dotsLight : p.dotsDark) : (light ? p.hatchLight : p.hatchDark)) + ')';
  }

  defs(prefix) {
    const p = prefix ? {
      hatchLight: prefix + 'hl', hatchDark: prefix + 'hd', dotsLight: prefix + 'dl', dotsDark: prefix + 'dd',
    } : this.patterns;
    const hatch = (id, ink, opacity) => s('pattern', { id, width: 6, height: 6, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      s('rect', { x: 0, y: 0, width: 2.2, height: 6, fill: ink, 'fill-opacity': opacity }));
    const dots = (id, ink, opacity) => s('pattern', { id, width: 5, height: 5, patternUnits: 'userSpaceOnUse' },
      s('circle', { cx: 2.5, cy: 2.5, r: 1.1, fill: ink, 'fill-opacity': opacity }));
    return s('defs', {}, hatch(p.hatchLight, '#ffffff', 0.6), hatch(p.hatchDark, '#000000', 0.45),
      dots(p.dotsLight, '#ffffff', 0.75), dots(p.dotsDark, '#000000', 0.5));
  }

  /**
   * items: [{label, draw(svg, fill) }] where fill(colour, kind) returns the overlay url inside the swatch.
   * Helpers below build the common kinds.
   */
  legend(items) {
    const list = h('ul', { class: 'chart-legend' });
    items.forEach((item, i) => {
      const prefix = this.id + '-lg' + i + '-';
      const icon = s('svg', { width: 24, height: 14, viewBox: '0 0 24 14', 'aria-hidden': 'true', class: 'swatch', focusable: 'false' });
      icon.append(this.defs(prefix));
      const fill = (colour, kind) => {
        const light = inkOn(colour) === '#ffffff';
        return 'url(#' + prefix + (kind === 'dots' ? (light ? 'dl' : 'dd') : (light ? 'hl' : 'hd')) + ')';
      };
      item.draw(icon, fill);
      list.append(h('li', {}, icon, item.label));
    });
    this.root.append(list);
    return list;
  }

  /** The drawing: width × height px (wider than the room -> the frame scrolls sideways). */
  svg(width, height, label) {
    const w = Math.ceil(width);
    const hgt = Math.ceil(height);
    this.svgEl = s('svg', {
      xmlns: SVG_NS, viewBox: `0 0 ${w} ${hgt}`, width: w, height: hgt, role: 'img', 'aria-label': label,
      class: w > this.width + 1 ? 'chart-svg wide' : 'chart-svg', focusable: 'false',
    });
    this.svgEl.append(this.defs());
    return this.svgEl;
  }

  /** Register a hoverable/focusable mark with its detail text (order = keyboard order). */
  mark(el, detail) {
    el.classList.add('mark');
    el.dataset.mark = String(this.marks.length);
    this.marks.push({ el, detail });
    return el;
  }

  /** A short visible note under the caption (e.g. why there is nothing to draw). */
  note(message) {
    const p = h('p', { class: 'chart-note' }, message);
    this.root.append(p);
    return p;
  }

  /** The text alternative: a visually hidden table (caption, header row, rows of cells). */
  table(caption, headers, rows) {
    // a table ignores width/overflow, so the visually hidden box is a <div> around it
    const table = h('table', { class: 'chart-alt' });
    table.append(h('caption', {}, caption));
    const head = h('tr', {}, headers.map((cell) => h('th', { scope: 'col' }, cell)));
    table.append(h('thead', {}, head));
    table.append(h('tbody', {}, rows.map((row) => h('tr', {}, row.map((cell, i) => (i === 0 ? h('th', { scope: 'row' }, cell) : h('td', {}, cell)))))));
    this.altEls = (this.altEls || []).concat(h('div', { class: 'visually-hidden' }, table));
    return table;
  }

  /** Extra visually hidden sentences for the text alternative. */
  altText(sentence) {
    const p = h('p', { class: 'chart-alt visually-hidden' }, sentence);
    this.altEls = (this.altEls || []).concat(p);
    return p;
  }

  /** Assemble: frame (focusable, scrolls if needed) + tooltip + live region + text alternative. */
  finish() {
    if (this.svgEl) {
      const body = h('div', { class: 'chart-body' });
      const hint = this.marks.length ? t('chart.useArrowKeysReadEach') : '';
      const frame = h('div', {
        class: 'chart-frame', tabindex: this.marks.length ? 0 : null, role: 'group',
        'aria-label': this.root.querySelector('.chart-title').textContent + '.' + hint,
      });
      frame.append(this.svgEl);
      const tip = h('div', { class: 'chart-tip', 'aria-hidden': 'true', hidden: true });
      const live = h('p', { class: 'visually-hidden chart-live', 'aria-live': 'polite' });
      body.append(frame, tip);
      this.root.append(body, live);
      if (this.svgEl.classList.contains('wide')) {
        this.root.append(h('p', { class: 'chart-note chart-scroll-note' }, t('chart.chartWiderThanFrame')));
      }
      if (this.marks.length) wireMarks(this, frame, tip, live);
    }
    for (const el of this.altEls || []) this.root.append(el);
    return this.root;
  }
}

// Hover (mouse, pen, touch) and keyboard (arrows on the focused frame) share one "active mark".
function wireMarks(chart, frame, tip, live) {
  const svg = chart.svgEl;
  const marks = chart.marks;
  const highlight = s('rect', { class: 'mark-highlight', 'aria-hidden': 'true', visibility: 'hidden', rx: 2 });
  svg.append(highlight);
  let active = -1;
  let viaKeyboard = false;

  function place(i) {
    const { el, detail } = marks[i];
    if (active >= 0 && marks[active]) marks[active].el.classList.remove('is-active');
    active = i;
    el.classList.add('is-active');
    const box = el.getBBox();
    const pad = 2;
    setAttrs(highlight, { x: round(box.x - pad), y: round(box.y - pad), width: round(box.width + 2 * pad), height: round(box.height + 2 * pad), visibility: 'visible' });
    svg.append(highlight); // on top
    tip.textContent = detail;
    tip.hidden = false;
    const body = frame.parentElement.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    const tipW = tip.offsetWidth;
    const tipH = tip.offsetHeight;
    let left = r.left - body.left + r.width / 2 - tipW / 2;
    left = Math.max(0, Math.min(left, body.width - tipW));
    let top = r.top - body.top - tipH - 8;
    if (top < 0) top = r.bottom - body.top + 8;
    // CSSOM positioning (not a style attribute string), which the CSP allows.
    tip.style.left = Math.round(left) + 'px';
    tip.style.top = Math.round(top) + 'px';
    if (viaKeyboard) {
      live.textContent = detail;
      el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    }
  }

  function clear() {
    if (active >= 0 && marks[active]) marks[active].el.classList.remove('is-active');
    highlight.setAttribute('visibility', 'hidden');
    tip.hidden = true;
  }

  function markFrom(event) {
    const el = event.target instanceof Element ? event.target.closest('[data-mark]') : null;
    return el && svg.contains(el) ? Number(el.dataset.mark) : -1;
  }

  svg.addEventListener('pointermove', (event) => {
    const i = markFrom(event);
    if (i < 0) { if (!viaKeyboard) clear(); return; }
    if (i !== active || tip.hidden) { viaKeyboard = false; place(i); }
  });
  svg.addEventListener('pointerdown', (event) => {
    const i = markFrom(event);
    if (i >= 0) { viaKeyboard = false; place(i); }
  });
  svg.addEventListener('pointerleave', () => { if (!viaKeyboard) clear(); });

  frame.addEventListener('focus', () => { viaKeyboard = true; place(active >= 0 ? active : 0); });
  frame.addEventListener('blur', () => { viaKeyboard = false; clear(); });
  frame.addEventListener('keydown', (event) => {
    const last = marks.length - 1;
    let next = null;
    if (event.key === 'ArrowRight' || event.key === 'ArrowDown') next = Math.min(last, active + 1);
    else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') next = Math.max(0, active - 1);
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = last;
    else if (event.key === 'Escape') { clear(); return; }
    if (next === null) return;
    event.preventDefault();
    viaKeyboard = true;
    place(next);
  });
}

// ── common legend swatches ────────────────────────────────────────────────
export const swatches = {
  box(colour, kind) {
    return (icon, fill) => {
      icon.append(s('rect', { x: 1, y: 1, width: 22, height: 12, fill: colour, stroke: '#1b1f24', 'stroke-width': 0.8 }));
      if (kind) icon.append(s('rect', { x: 1, y: 1, width: 22, height: 12, fill: fill(colour, kind) }));
    };
  },
  shape(draw) { return (icon) => icon.append(draw(12, 7)); },
  line(colour, dash) {
    return (icon) => icon.append(s('line', { x1: 1, x2: 23, y1: 7, y2: 7, stroke: colour, 'stroke-width': 2.5, 'stroke-dasharray': dash }));
  },
};

// Small glyphs used as markers (all outlined in white so they read on any fill).
export const glyphs = {
  circle: (x, y, attrs) => s('circle', { cx: round(x), cy: round(y), r: 4.5, fill: '#ffffff', stroke: '#000000', 'stroke-width': 1.8, ...attrs }),
  diamond: (x, y, attrs) => s('path', { d: `M${round(x)} ${round(y - 6)} l6 6 l-6 6 l-6 -6 z`, fill: '#000000', stroke: '#ffffff', 'stroke-width': 1.2, ...attrs }),
  square: (x, y, attrs) => s('rect', { x: round(x - 4.5), y: round(y - 4.5), width: 9, height: 9, fill: '#000000', stroke: '#ffffff', 'stroke-width': 1.2, ...attrs }),
  tick: (x, y, attrs) => s('rect', { x: round(x - 1.5), y: round(y - 7), width: 3, height: 14, fill: '#000000', stroke: '#ffffff', 'stroke-width': 0.8, ...attrs }),
  cross: (x, y, attrs) => s('path', { d: `M${round(x - 5)} ${round(y - 5)} l10 10 m0 -10 l-10 10`, stroke: '#000000', 'stroke-width': 2.6, fill: 'none', 'stroke-linecap': 'round', ...attrs }),
  // preemption: a black badge with a white pause sign
  pause: (x, y, attrs) => s('g', { ...attrs },
    s('rect', { x: round(x - 7), y: round(y - 7), width: 14, height: 14, rx: 3, fill: '#000000', stroke: '#ffffff', 'stroke-width': 1 }),
    s('rect', { x: round(x - 3.5), y: round(y - 4), width: 2.4, height: 8, fill: '#ffffff' }),
    s('rect', { x: round(x + 1.1), y: round(y - 4), width: 2.4, height: 8, fill: '#ffffff' })),
};
