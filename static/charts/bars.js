// Labelled horizontal bar rows with two or more series (attention: head 0/1; sampling: before/after),
// on one shared % scale. Wide: one panel per series, side by side. Narrow (a phone): the series' bars
// grouped inside each row, so every bar gets the whole width.
import { round, s, text } from './svg.js';
import { textWidth } from './text-fit.js';
import { pct, ticks } from './axes.js';

const SIDE_BY_SIDE_MIN = 520; // px; below this the series share each row
const MAX_WIDTH = 860;        // wider bars only make the eye travel
const TOP = 24;
const AXIS = 40;
const GAP = 16;

/**
 * chart: ChartBuilder; rows: [{label, strong, band, muted}]; series: [{key, title, colour, kind, value(row, i),
 * empty(row) -> text shown when the value is 0, attrs(row, i) -> data-* for the bar, detail(row, i) -> tooltip,
 * strong(row, i) -> bold outline}]; axisLabel: under the axis. Returns the SVG element.
 */
export function barRows(chart, { rows, series, axisLabel, summary, valueWidth = 48 }) {
  const side = chart.width >= SIDE_BY_SIDE_MIN;
  const labelW = Math.min(140, Math.max(...rows.map((r) => textWidth(r.label, 12, true))) + 10);
  const room = Math.min(chart.width, MAX_WIDTH);
  const panelW = side
    ? Math.max(90, (room - labelW - GAP * (series.length - 1)) / series.length)
    : Math.max(120, chart.width - labelW);
  const width = side ? labelW + panelW * series.length + GAP * (series.length - 1) : labelW + panelW;
  const bar = side ? 13 : 11;
  const rowH = side ? 22 : series.length * (bar + 3) + 7;
  const top = side ? TOP : 6;
  const height = top + rows.length * rowH + AXIS;
  let maxV = 0;
  rows.forEach((r, i) => series.forEach((se) => { maxV = Math.max(maxV, se.value(r, i)); }));
  const tk = ticks(0, maxV * 100, 2, true);
  const scaleTop = tk.values[tk.values.length - 1] || 1;
  const svg = chart.svg(width, height, summary);

  rows.forEach((r, i) => {
    const y = top + i * rowH;
    if (r.band) svg.append(s('rect', { x: 0, y, width, height: rowH, fill: r.band, stroke: '#d9a400', 'aria-hidden': 'true', class: r.bandClass || '' }));
    else if (i % 2 === 0) svg.append(s('rect', { x: 0, y, width, height: rowH, fill: '#f6f7f9', 'aria-hidden': 'true' }));
    svg.append(text(labelW - 8, y + rowH / 2 + 4, r.label, { 'text-anchor': 'end', class: r.strong ? 'strong' : (r.muted ? 'muted' : '') }));
  });

  const panels = side
    ? series.map((se, k) => ({ se, x0: labelW + k * (panelW + GAP), list: [se] }))
    : [{ x0: labelW, list: series }];
  for (const panel of panels) {
    const x0 = panel.x0;
    const barMax = panelW - valueWidth - (side ? 0 : 4);
    const xs = (v) => x0 + (v * 100 / scaleTop) * barMax;
    if (side) svg.append(text(x0, TOP - 8, panel.se.title, { class: 'panel-title' }));
    const axisY = top + rows.length * rowH + 2;
    const axis = s('g', { class: 'axis', 'aria-hidden': 'true' });
    axis.append(s('line', { x1: round(x0), x2: round(x0 + barMax), y1: axisY, y2: axisY, class: 'axis-line' }));
    axis.append(s('line', { x1: round(x0), x2: round(x0), y1: top, y2: axisY, class: 'axis-line' }));
    for (const v of tk.values) {
      const showLabel = v === 0 || v === scaleTop || barMax >= 160;
      axis.append(s('line', { x1: round(xs(v / 100)), x2: round(xs(v / 100)), y1: axisY, y2: axisY + 4, class: 'axis-line' }));
      if (showLabel) axis.append(text(xs(v / 100), axisY + 16, v + '%', { 'text-anchor': v === scaleTop ? 'end' : (v ? 'middle' : 'start'), class: 'tick' }));
    }
    axis.append(text(x0 + barMax / 2, axisY + 32, axisLabel, { 'text-anchor': 'middle', class: 'axis-label' }));
    svg.append(axis);
    rows.forEach((r, i) => {
      panel.list.forEach((se, k) => {
        const v = se.value(r, i);
        const y = side ? top + i * rowH + (rowH - bar) / 2 : top + i * rowH + 4 + k * (bar + 3);
        const g = s('g', { class: 'bar', ...se.attrs(r, i) });
        const bw = Math.max(0.8, xs(v) - x0);
        const strong = se.strong ? se.strong(r, i) : false;
        if (v > 0) {
          g.append(s('rect', { x: round(x0), y: round(y), width: round(bw), height: bar, fill: se.colour, stroke: '#1b1f24', 'stroke-width': strong ? 1.8 : 0.5 }));
          if (se.kind) g.append(s('rect', { x: round(x0), y: round(y), width: round(bw), height: bar, fill: chart.hatchFor(se.colour, se.kind) }));
          g.append(text(x0 + bw + 4, y + bar - 2, pct(v), { class: 'value' + (strong ? ' strong' : '') }));
        } else {
          g.append(text(x0 + 4, y + bar - 2, se.empty ? se.empty(r, i) : '0%', { class: 'value muted' }));
        }
        // the whole row slice is the hit area, so short bars are easy to hover or tap
        const hitY = side ? top + i * rowH : y - 1.5;
        g.append(s('rect', { x: round(x0), y: round(hitY), width: round(panelW), height: side ? rowH : bar + 3, fill: 'transparent' }));
        svg.append(chart.mark(g, se.detail(r, i)));
      });
    });
  }
  return svg;
}
