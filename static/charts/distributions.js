// distributions (block 11, a recorded trace only: data.distributions, trace_workload.distributions): the trace's
// prompt and output lengths and gaps between arrivals against the generator's with the same count, mean rate and
// mean lengths. One panel per distribution, two lanes (trace, generator): a line from 0 to the maximum with p50,
// p90, p99 and max marked and the mean as a dashed tick, on one linear scale per panel, so the tail the mean
// hides is as long as it is. The text alternative: a sentence and a table of every percentile (with the gaps'
// coefficient of variation). A run without a recorded trace gets a note saying how to choose one (the learning
// guide's point 8 links here).
// Leaves out: the TTFT these tails cause (the ttft chart beside it) and the block's lines (text_measure.py).
import { ChartBuilder } from './figure.js';
import { glyphs, round, s, swatches, text } from './svg.js';
import { linear, xAxis } from './axes.js';
import { OKABE_ITO } from './colours.js';
import { upTo } from './sweep.js';
import { t } from '../words/i18n.js';

export const NAME = 'distributions';

const LEFT = 150;
const RIGHT = 24;
const LANE = 26;
const PANEL = 2 * LANE + 62;
const TOP = 8;
const STATS = [['p50', glyphs.circle], ['p90', glyphs.square], ['p99', glyphs.diamond], ['max', glyphs.tick]];
const WHO = [['trace', OKABE_ITO.vermillion, () => t('chart.dist.trace')],
  ['generator', OKABE_ITO.blue, () => t('chart.dist.generator')]];

const fmt = (v) => (Number.isInteger(v) ? String(v) : Number(v).toFixed(2).replace(/\.?0+$/, ''));

export function render(data, report, opts = {}) {
  const d = data && data.distributions;
  if (!d || !d.trace || !d.generator) {       // no recorded trace: a note saying how to choose one
    const off = new ChartBuilder(NAME, t('chart.dist.titleOff'), opts.width);
    off.root.dataset.empty = 'true';
    off.note(t('chart.dist.off'));
    return off.finish();
  }
  const chart = new ChartBuilder(NAME, t('chart.dist.title'), opts.width);
  const panels = [['prompt', t('chart.dist.prompt')], ['output', t('chart.dist.output')], ['gap', t('chart.dist.gap')]];
  chart.legend([
    ...WHO.map(([, colour, name]) => ({ label: name(), draw: swatches.line(colour, '') })),
    ...STATS.map(([stat, glyph]) => ({ label: stat, draw: swatches.shape((x, y) => glyph(x, y)) })),
    { label: t('chart.dist.mean'), draw: swatches.line('#000000', '3 2') },
  ]);
  const trio = (x) => [x.p50, x.p99, x.max].map(fmt).join(' / ');
  const said = t('chart.dist.summary', { tp: trio(d.trace.prompt), gp: trio(d.generator.prompt),
    to: trio(d.trace.output), go: trio(d.generator.output), tg: trio(d.trace.gap), gg: trio(d.generator.gap),
    tcv: fmt(d.trace.gap.cv), gcv: fmt(d.generator.gap.cv) });
  const width = chart.width;
  const svg = chart.svg(width, TOP + panels.length * PANEL, said);
  panels.forEach(([key, label], k) => {
    const top = TOP + k * PANEL;
    const room = Math.max(2, Math.floor((width - LEFT - RIGHT) / 70));
    const axis = upTo(Math.max(d.trace[key].max, d.generator[key].max), room);
    const x = linear(0, axis.top, LEFT, width - RIGHT);
    const g = s('g', { class: 'dist-panel', 'data-panel': key });
    g.append(text(4, top + 14, label, { class: 'strong' }));
    WHO.forEach(([who, colour, name], lane) => {
      const stats = d[who][key];
      const y = top + 30 + lane * LANE;
      g.append(text(LEFT - 8, y + 4, name().split(',')[0], { 'text-anchor': 'end', class: 'lane-label' }));
      g.append(s('line', { x1: round(x(0)), x2: round(x(stats.max)), y1: y, y2: y, stroke: colour, 'stroke-width': 3 }));
      g.append(s('line', { x1: round(x(stats.mean)), x2: round(x(stats.mean)), y1: y - 9, y2: y + 9, stroke: '#000000',
        'stroke-width': 1.5, 'stroke-dasharray': '3 2' }));
      for (const [stat, glyph] of STATS) {
        const mark = glyph(x(stats[stat]), y, { 'data-stat': stat });
        g.append(chart.mark(s('g', { 'data-who': who }, mark), t('chart.dist.point', { what: label,
          who: name(), stat, value: fmt(stats[stat]) })));
      }
    });
    g.append(xAxis(x, top + 30 + 2 * LANE - 8, axis.values, (v) => String(v), '', 0));
    svg.append(g);
  });
  chart.altText(said);
  const rows = panels.flatMap(([key, label]) => WHO.map(([who, , name]) => {
    const st = d[who][key];
    return [label + ' · ' + name(), fmt(st.mean), fmt(st.p50), fmt(st.p90), fmt(st.p99), fmt(st.max),
      key === 'gap' ? fmt(st.cv) : '—'];
  }));
  chart.table(t('chart.dist.alt'), [t('chart.dist.col.what'), t('chart.dist.mean'), 'p50', 'p90', 'p99', 'max',
    t('chart.dist.col.cv')], rows);
  chart.root.dataset.cv = fmt(d.trace.gap.cv);
  return chart.finish();
}
