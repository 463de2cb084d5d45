// sampling (block 8): the followed request's first-token probabilities before filtering (softmax of
// logits / T) and after top-k/top-p (renormalised), side by side on one % scale; the drawn token is
// starred and banded. Tokens below 0.5% that were filtered out are summed into one "khác" row.
import { ChartBuilder, OKABE_ITO, pct, refusedNote, swatches } from './svg.js';
import { barRows } from './bars.js';
import { tl } from '../words/i18n.js';

export const NAME = 'sampling';

const SMALL = 0.005;
const BEFORE = { colour: OKABE_ITO.sky, kind: 'dots' };
const AFTER = { colour: OKABE_ITO.vermillion, kind: null };
const CHOSEN_BAND = '#fff4d6';

export function render(data, report, opts = {}) {
  const f = report.follow || {};
  const probs = Array.isArray(data.probs) ? data.probs : null;
  if (!probs) {
    const chart = new ChartBuilder(NAME, tl('Xác suất token trước và sau lọc top-k/top-p', 'Token probabilities before and after the top-k/top-p filter'), opts.width);
    chart.root.dataset.empty = 'true';
    chart.note(refusedNote(report, tl('xác suất token để vẽ', 'token probabilities to draw')));
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
  const settings = greedy ? tl('greedy: chỉ giữ token cao nhất', 'greedy: keeps only the highest token') : [`T=${data.temperature}`, ...filters].join(', ');

  const chart = new ChartBuilder(NAME,
    tl(`Lấy mẫu token đầu của ${f.id || '?'} (${settings}): xác suất trước và sau lọc; được rút: “${data.token_text ?? nameOf(chosen)}”`, `Sampling the first token of ${f.id || '?'} (${settings}): probabilities before and after filtering; drawn: “${data.token_text ?? nameOf(chosen)}”`), opts.width);
  chart.legend([
    { label: tl('xác suất trước lọc', 'probability before filtering'), draw: swatches.box(BEFORE.colour, BEFORE.kind) },
    { label: tl('sau lọc, tái chuẩn hóa (tổng 100%)', 'after filtering, renormalized (sum 100%)'), draw: swatches.box(AFTER.colour) },
    { label: tl('★ token được rút', '★ token drawn'), draw: swatches.box(CHOSEN_BAND) },
  ]);

  const ids = probs.map((_, i) => i).sort((a, b) => probs[b] - probs[a] || a - b);
  const shown = ids.filter((i) => probs[i] >= SMALL || filtered[i] > 0 || i === chosen);
  const rest = ids.filter((i) => !shown.includes(i));
  const rows = shown.map((i) => ({ id: i, label: (i === chosen ? '★ ' : '') + nameOf(i), strong: i === chosen, band: i === chosen ? CHOSEN_BAND : null, bandClass: 'chosen-band', before: probs[i], after: filtered[i] }));
  if (rest.length) {
    rows.push({ id: null, label: tl(`${rest.length} token khác`, `${rest.length} other tokens`), muted: true, before: rest.reduce((a, i) => a + probs[i], 0), after: rest.reduce((a, i) => a + filtered[i], 0), rest });
  }

  const kept = filtered.filter((v) => v > 0).length;
  const summary = tl(`${f.id}: softmax trên ${probs.length} token; lọc giữ ${kept} token; rút được “${nameOf(chosen)}” `, `${f.id}: softmax over ${probs.length} tokens; the filter keeps ${kept} tokens; drew “${nameOf(chosen)}” `) +
    tl(`(${pct(probs[chosen])} trước lọc, ${pct(filtered[chosen])} sau lọc). Cao nhất trước lọc: ${ids.slice(0, 3).map((i) => nameOf(i) + ' ' + pct(probs[i])).join(', ')}.`, `(${pct(probs[chosen])} before filtering, ${pct(filtered[chosen])} after). Highest before filtering: ${ids.slice(0, 3).map((i) => nameOf(i) + ' ' + pct(probs[i])).join(', ')}.`);
  const who = (r) => (r.id === null ? tl(`${r.rest.length} token khác (${r.rest.map(nameOf).join(', ')})`, `${r.rest.length} other tokens (${r.rest.map(nameOf).join(', ')})`) : `Token “${nameOf(r.id)}” (ID ${r.id})`);
  const tail = (r) => (r.id === chosen ? tl(' Đây là token được rút.', ' This is the token drawn.') : '');
  barRows(chart, {
    rows, summary, axisLabel: tl('xác suất (%)', 'probability (%)'), valueWidth: 54,
    series: [
      {
        title: tl('trước lọc', 'before filtering'), colour: BEFORE.colour, kind: BEFORE.kind, value: (r) => r.before,
        strong: (r) => r.id === chosen,
        attrs: (r) => ({ 'data-panel': 'before', 'data-token': r.id === null ? 'rest' : r.id }),
        detail: (r) => tl(`${who(r)}: ${pct(r.before, 2)} trước lọc.${tail(r)}`, `${who(r)}: ${pct(r.before, 2)} before filtering.${tail(r)}`),
      },
      {
        title: tl('sau lọc', 'after filtering'), colour: AFTER.colour, kind: AFTER.kind, value: (r) => r.after,
        strong: (r) => r.id === chosen, empty: () => tl('bị loại', 'filtered out'),
        attrs: (r) => ({ 'data-panel': 'after', 'data-token': r.id === null ? 'rest' : r.id }),
        detail: (r) => (r.after > 0 ? tl(`${who(r)}: ${pct(r.after, 2)} sau lọc (giữ lại, tái chuẩn hóa).`, `${who(r)}: ${pct(r.after, 2)} after filtering (kept, renormalized).`) : tl(`${who(r)}: bị lọc bỏ (0%).`, `${who(r)}: filtered out (0%).`)) + tail(r),
      },
    ],
  });

  chart.table(tl(`Xác suất token của ${f.id} trước và sau lọc (%)`, `Token probabilities of ${f.id} before and after filtering (%)`), ['Token', 'ID', tl('Trước lọc (%)', 'Before filtering (%)'), tl('Sau lọc (%)', 'After filtering (%)')],
    ids.map((i) => [(i === chosen ? '★ ' : '') + nameOf(i), String(i), (probs[i] * 100).toFixed(2), filtered[i] > 0 ? (filtered[i] * 100).toFixed(2) : tl('bị loại', 'filtered out')]));
  chart.altText(tl(`Chế độ ${greedy ? 'greedy' : 'lấy mẫu'}: temperature ${data.temperature}, top_k ${data.top_k}, top_p ${data.top_p}, seed ${data.seed}; token được rút: ${nameOf(chosen)} (ID ${chosen}).`, `Mode ${greedy ? 'greedy' : 'sampling'}: temperature ${data.temperature}, top_k ${data.top_k}, top_p ${data.top_p}, seed ${data.seed}; token drawn: ${nameOf(chosen)} (ID ${chosen}).`));
  return chart.finish();
}
