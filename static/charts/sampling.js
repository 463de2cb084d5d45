// sampling (block 8): the followed request's first-token probabilities before filtering (softmax of
// logits / T) and after top-k/top-p (renormalised), side by side on one % scale; the drawn token is
// starred and banded. Tokens below 0.5% that were filtered out are summed into one "khác" row.
import { ChartBuilder } from './figure.js';
import { swatches } from './svg.js';
import { pct } from './axes.js';
import { OKABE_ITO } from './colours.js';
import { refusedNote } from './report-data.js';
import { barRows } from './bars.js';
import { t } from '../words/i18n.js';

export const NAME = 'sampling';

const SMALL = 0.005;
const BEFORE = { colour: OKABE_ITO.sky, kind: 'dots' };
const AFTER = { colour: OKABE_ITO.vermillion, kind: null };
const CHOSEN_BAND = '#fff4d6';

export function render(data, report, opts = {}) {
  const f = report.follow || {};
  const probs = Array.isArray(data.probs) ? data.probs : null;
  if (!probs) {
    const chart = new ChartBuilder(NAME, t('chart.sampling.tokenProbabilities'), opts.width);
    chart.root.dataset.empty = 'true';
    chart.note(refusedNote(report, t('chart.sampling.tokenProbabilitiesDraw')));
    return chart.finish();
  }
  const filtered = Array.isArray(data.filtered) ? data.filtered : probs.map(() => 0);
  const names = Array.isArray(data.tokens) ? data.tokens : [];
  const nameOf = (id) => (names[id] !== undefined ? String(names[id]) : 'ID ' + id);
  const chosen = Number(data.token);
  const greedy = data.mode === 'greedy';
  const filters = [];
  if (!greedy && Number(data.top_k) > 0) filters.push('top-k=' + data.top_k);
  if (!greedy && Number(data.top_p) < 1) filters.push('top-p=' + data.top_p);
  const settings = greedy ? t('chart.sampling.greedyKeepsOnlyHighest') : [`T=${data.temperature}`, ...filters].join(', ');

  const chart = new ChartBuilder(NAME,
    t('chart.sampling.samplingFirstToken', { id: f.id || '?', settings, token_text: data.token_text ?? nameOf(chosen) }), opts.width);
  chart.legend([
    { label: t('chart.sampling.probabilityBefore'), draw: swatches.box(BEFORE.colour, BEFORE.kind) },
    { label: t('chart.sampling.afterFiltering'), draw: swatches.box(AFTER.colour) },
    { label: t('chart.sampling.tokenDrawn'), draw: swatches.box(CHOSEN_BAND) },
  ]);

  const ids = probs.map((_, i) => i).sort((a, b) => probs[b] - probs[a] || a - b);
  const shown = ids.filter((i) => probs[i] >= SMALL || filtered[i] > 0 || i === chosen);
  const rest = ids.filter((i) => !shown.includes(i));
  const rows = shown.map((i) => ({ id: i, label: (i === chosen ? '★ ' : '') + nameOf(i), strong: i === chosen, band: i === chosen ? CHOSEN_BAND : null, bandClass: 'chosen-band', before: probs[i], after: filtered[i] }));
  if (rest.length) {
    rows.push({ id: null, label: t('chart.sampling.otherTokens', { nRest: rest.length }), muted: true, before: rest.reduce((a, i) => a + probs[i], 0), after: rest.reduce((a, i) => a + filtered[i], 0), rest });
  }

  const kept = filtered.filter((v) => v > 0).length;
  const summary = t('chart.sampling.softmaxOverTokens', { id: f.id, nProbs: probs.length, kept, chosen: nameOf(chosen), before: pct(probs[chosen]), after: pct(filtered[chosen]), top: ids.slice(0, 3).map((i) => nameOf(i) + ' ' + pct(probs[i])).join(', ') });
  const who = (r) => (r.id === null ? t('chart.sampling.otherTokens2', { nRest: r.rest.length, rest: r.rest.map(nameOf).join(', ') }) : `Token “${nameOf(r.id)}” (ID ${r.id})`);
  const tail = (r) => (r.id === chosen ? t('chart.sampling.tokenDrawn2') : '');
  barRows(chart, {
    rows, summary, axisLabel: t('chart.sampling.probability'), valueWidth: 54,
    series: [
      {
        title: t('chart.sampling.beforeFiltering'), colour: BEFORE.colour, kind: BEFORE.kind, value: (r) => r.before,
        strong: (r) => r.id === chosen,
        attrs: (r) => ({ 'data-panel': 'before', 'data-token': r.id === null ? 'rest' : r.id }),
        detail: (r) => t('chart.sampling.beforeFiltering2', { who: who(r), before: pct(r.before, 2), tail: tail(r) }),
      },
      {
        title: t('chart.sampling.afterFiltering2'), colour: AFTER.colour, kind: AFTER.kind, value: (r) => r.after,
        strong: (r) => r.id === chosen, empty: () => t('chart.sampling.filteredOut'),
        attrs: (r) => ({ 'data-panel': 'after', 'data-token': r.id === null ? 'rest' : r.id }),
        detail: (r) => (r.after > 0 ? t('chart.sampling.afterFilteringKept', { who: who(r), after: pct(r.after, 2) }) : t('chart.sampling.filteredOut0', { who: who(r) })) + tail(r),
      },
    ],
  });

  chart.table(t('chart.sampling.tokenProbabilities2', { id: f.id }), ['Token', 'ID', t('chart.sampling.beforeFiltering3'), t('chart.sampling.afterFiltering3')],
    ids.map((i) => [(i === chosen ? '★ ' : '') + nameOf(i), String(i), (probs[i] * 100).toFixed(2), filtered[i] > 0 ? (filtered[i] * 100).toFixed(2) : t('chart.sampling.filteredOut')]));
  chart.altText(t('chart.sampling.modeAlt', { mode: greedy ? 'greedy' : t('chart.sampling.sampling'), temperature: data.temperature, top_k: data.top_k, top_p: data.top_p, seed: data.seed, token: nameOf(chosen), chosen }));
  return chart.finish();
}
