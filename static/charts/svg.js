// The charts' SVG primitives: the element builders (from static/core/dom.js), round() for coordinates,
// text() for a <text>, the common legend swatches and the marker glyphs. No library, no inline style
// strings (the page's CSP forbids them): presentation goes through SVG attributes and the classes in
// charts.css.
// Leaves out: measuring and fitting text (text-fit.js), colours (colours.js), numbers, scales and axes
// (axes.js), what charts read from the report (report-data.js) and the figure around a drawing
// (figure.js, marks.js).

import { SVG_NS, h, svg as s } from '../core/dom.js';

export { SVG_NS, h, s }; // the element builders live in static/core/dom.js

/** SVG <text>; anchor: start | middle | end. */
export function text(x, y, content, attrs) {
  return s('text', { x: round(x), y: round(y), ...attrs }, content);
}

export function round(v) { return Math.round(v * 10) / 10; }

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
