// ChartBuilder — the figure every chart returns: title, legend, SVG (with its hatch and dot patterns),
// the focusable frame with tooltip and live region, and a visually hidden text alternative.
// Leaves out: what is drawn inside the SVG (the chart modules), hover/keyboard on the marks (marks.js)
// and the placement of figures in the panels (index.js).

import { SVG_NS, h, s } from './svg.js';
import { inkOn } from './colours.js';
import { wireMarks } from './marks.js';
import { t } from '../words/i18n.js';

export const ALT_ROWS = 200; // rows of a chart's text-alternative table at most (the rest counted in one row)
export const MAX_ROWS = 48;  // request rows (lanes, bars) a chart draws at most

/** The requests a chart gives a row of its own (issue 39: the document grows with the screen, not with the run):
 *  all of `list` up to `max`; beyond, the first `max` in order with the followed request (idOf(item) === follow)
 *  in the last row if it is not among them. The chart says in a note how many it leaves out; its text
 *  alternative still lists them (up to ALT_ROWS).
 *
 *      rowsShown(['A', 'B', 'C'], (id) => id, 'C', 2)  // ['A', 'C']
 */
export function rowsShown(list, idOf, follow, max = MAX_ROWS) {
  if (list.length <= max) return list;
  const shown = list.slice(0, max);
  const followed = follow === undefined || follow === null ? null : String(follow);
  const item = followed === null ? undefined : list.find((x) => String(idOf(x)) === followed);
  if (item !== undefined && !shown.includes(item)) shown[max - 1] = item;
  return shown;
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
    // text grows with what a reader can take in, not with the run (issue 39): a 16,000-step run's table lists its
    // first ALT_ROWS rows and says how many more there are (the step navigator of block [3] shows each step)
    const shown = rows.length > ALT_ROWS ? rows.slice(0, ALT_ROWS) : rows;
    const body = h('tbody', {}, shown.map((row) => h('tr', {}, row.map((cell, i) => (i === 0 ? h('th', { scope: 'row' }, cell) : h('td', {}, cell))))));
    if (shown.length < rows.length) {
      body.append(h('tr', { class: 'chart-alt-more' }, h('td', { colspan: headers.length },
        t('chart.altMoreRows', { more: rows.length - shown.length, shown: shown.length }))));
    }
    table.append(body);
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
