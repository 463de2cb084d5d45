// tokens (block 2): the followed request's text becoming BPE pieces merge by merge (one row per merge that
// changed something, the new piece outlined and hatched), then the chat template's <bos> + pieces with
// their token IDs; below, every request's prompt + max_new against MAX_CONTEXT (why E gets 400), with
// its fate (nhận / 400 / 429). A request refused at the gateway was never tokenized: its bar is drawn
// faint, from what the tokenizer would give. Pieces wrap onto more lines on a narrow screen.
// One draw helper per layer (title, merge rows, token IDs, budget: axis, bars, limit; text alternative).
// Leaves out: the figure, legend and marks' hover (figure.js, marks.js); the tokenizer itself (py/, block 2's data).
import { ChartBuilder, rowsShown } from './figure.js';
import { round, s, swatches, text } from './svg.js';
import { fittedText, textWidth } from './text-fit.js';
import { linear } from './axes.js';
import { OKABE_ITO } from './colours.js';
import { byLang, t } from '../words/i18n.js';

export const NAME = 'tokens';

const PIECE_H = 20;
const PIECE_GAP = 3;
const LINE_GAP = 5;
const ROW_LABEL = 16;   // row caption above its pieces
const ROW_GAP = 8;
const ID_H = 16;        // the ID under each piece in the last row
const SECTION = 26;     // section title
const BAR = 16;
const BAR_ROW = 42;     // bar + its caption
const PAD = 6;
const NEW_PIECE = { colour: OKABE_ITO.orange, kind: 'hatch' };
const PIECE = '#eef0f3';
const UNKNOWN = { colour: OKABE_ITO.vermillion, kind: 'dots' };
const BYTE = { colour: OKABE_ITO.purple, kind: 'hatch' };     // a UTF-8 byte token <0xC3> (BYTE_FALLBACK=on)
const isByte = (p) => /^<0x[0-9A-F]{2}>$/.test(String(p));
const PROMPT = { colour: OKABE_ITO.blue, kind: null };
const MAX_NEW = { colour: OKABE_ITO.sky, kind: 'dots' };

const LONG_FATE = byLang(() => ({
  OK: t('chart.tokens.admitted'),
  400: t('chart.tokens.x400BlockedDuringInput'),
  429: t('chart.tokens.x429RejectedGatewayNot'),
}));
const SHORT_FATE = byLang(() => ({
  OK: t('chart.tokens.admitted'), 400: '400', 429: t('chart.tokens.x429GatewayNotTokenized'),
}));

function pieceWidth(p) { return Math.max(14, textWidth(p, 12, true) + 8); }

const UNITS_SHOWN = 48; // characters (an end-of-word mark counts one) whose pieces a row draws at most

/** The first pieces of a row that cover its first UNITS_SHOWN characters (the piece across the edge included):
 *  each piece covers as many characters as it joined (an end-of-word mark counts one). */
function firstUnits(pieces, start, pieceOf = (p) => p) {
  const out = [];
  let covered = start;
  for (const p of pieces) {
    if (covered >= UNITS_SHOWN) break;
    out.push(p);
    covered += String(pieceOf(p)).replace(/<\/w>/g, '#').length;
  }
  return out;
}

/** Lay the pieces out left to right from x0, wrapping at `right`: [{x, line}] per piece and the line count. */
function flow(pieces, x0, right) {
  const out = [];
  let x = x0;
  let line = 0;
  for (const p of pieces) {
    const w = pieceWidth(p);
    if (x > x0 && x + w > right) { x = x0; line += 1; }
    out.push({ x, w, line });
    x += w + PIECE_GAP;
  }
  return { places: out, lines: line + 1 };
}

// What one piece of the template's row says when hovered or read aloud: its ID, or why it has none; a byte
// token says it is a UTF-8 byte; <bos> says it is all this chat template adds (a real one adds role tokens).
function pieceNote(p, id, k, data, unknown, byte) {
  const vocab = data.vocab ?? '?';
  if (unknown) return t('chart.tokens.pieceNotVocabulary', { p, vocab }) + t('chart.tokens.realTokenizersBytes');
  if (byte) return t('chart.tokens.bytePiece', { k, p, id });
  if (k === 0 && p === '<bos>') return t('chart.tokens.bosTemplate', { id });
  return t('chart.tokens.positionPieceIdRow', { k, p, id, vocab });
}

function budgetCaption(r, maxContext, short = false) {
  const FATE = short ? SHORT_FATE() : LONG_FATE();
  if (r.prompt === null || r.prompt === undefined) {
    const what = short ? t('chart.tokens.unknownShort') : t('chart.tokens.unknownLong');
    return t('chart.tokens.unknownCaption', { id: r.id, what, fate: FATE[r.code] || r.code });
  }
  const sign = r.total > maxContext ? '>' : '≤';
  const sum = `${r.prompt} + ${r.max_new} = ${r.total} ${sign} ${maxContext}`;
  if (r.code === 'OK') return t('chart.tokens.admitted2', { id: r.id, sum });
  if (r.stage === 'gateway') {
    const ifTokenized = short ? '' : t('chart.tokens.ifTokenized');
    return t('chart.tokens.gatewayCaption', { id: r.id, sum, ifTokenized, fate: FATE[429] });
  }
  if (r.reason === 'pool') {
    const why = short ? t('chart.tokens.overPoolShort') : t('chart.tokens.overPoolLong');
    return t('chart.tokens.poolCaption', { id: r.id, sum, why });
  }
  return `${r.id}: ${sum} → ${FATE[r.code] || r.code}`;
}

// ── legend ───────────────────────────────────────────────────────────────────
function legendItems(data) {
  return [
    { label: t('chart.tokens.piece'), draw: swatches.box(PIECE) },
    { label: t('chart.tokens.pieceJustMerged'), draw: swatches.box(NEW_PIECE.colour, NEW_PIECE.kind) },
    { label: t('chart.tokens.characterTokenizer'), draw: swatches.box(UNKNOWN.colour, UNKNOWN.kind) },
    ...(data.byte_fallback ? [{ label: t('chart.tokens.byteToken'), draw: swatches.box(BYTE.colour, BYTE.kind) }] : []),
    { label: 'token prompt', draw: swatches.box(PROMPT.colour) },
    { label: t('chart.tokens.maxNewTokensMay'), draw: swatches.box(MAX_NEW.colour, MAX_NEW.kind) },
    { label: 'MAX_CONTEXT', draw: swatches.line('#000000', '5 3') },
  ];
}

// Why the followed request's pieces never reached the engine, when they did not.
function followNote(chart, f) {
  if (f.served === false && f.stage === 'gateway') {
    chart.note(t('chart.tokens.rejectedGatewayEngine', { id: f.id, code: f.code }));
  } else if (f.served === false && f.reason === 'unknown') {
    chart.note(t('chart.tokens.blocked400TextHas', { id: f.id }));
  }
}

// The layout the layers share, top to bottom: the merge rows, then the ID row, then the budget bars.
function layout(k) {
  const right = k.chart.width - PAD;
  const rows = k.steps.map((st, i) => ({ st, i, pieces: st.pieces, ...flow(st.pieces, PAD, right) }));
  const idFlow = flow(k.ids.map(([p]) => p), PAD, right);
  let y = SECTION;
  for (const row of rows) {
    row.y = y + ROW_LABEL;
    y = row.y + row.lines * (PIECE_H + LINE_GAP) + ROW_GAP;
  }
  const idY = y + ROW_LABEL;
  y = k.ids.length ? idY + idFlow.lines * (PIECE_H + ID_H + LINE_GAP) + ROW_GAP : y;
  const budgetTitleY = y + 10;
  const barTop = budgetTitleY + SECTION + 12;
  const axisY = barTop + k.budget.length * BAR_ROW + 2;
  return {
    ...k, width: k.chart.width, right, rows, idFlow, idY, budgetTitleY, barTop, axisY,
    height: k.budget.length ? axisY + 36 : y,
    unknownPieces: new Set(k.ids.filter(([, id]) => id === null || id === undefined).map(([p]) => p)),
  };
}

// The drawing's accessible label: the characters, the merges that apply, the IDs, every request's budget.
function summary(k) {
  const { allSteps: steps, allIds: ids, follow, f, maxContext } = k;
  const merges = steps.slice(1).map((st) => `“${st.merge}”`).join(', ');
  const nChars = steps.length ? steps[0].pieces.length : 0;
  return t('chart.tokens.charactersEndWordMarks', { id: follow.id || f.id, text: follow.text ?? '', nChars }) +
    t('chart.tokens.mergesApply', {
      nMerges: steps.length - 1, merges: merges || t('chart.tokens.none'),
      nIds: ids.length, ids: ids.map(([, id]) => (id ?? '?')).join(', '),
    }) +
    `MAX_CONTEXT ${maxContext}: ` + k.budget.map((r) => budgetCaption(r, maxContext)).join('; ') + '.';
}

function drawTitle(svg, k) {
  const n = k.data.n_merges ?? '?';
  svg.append(fittedText(PAD, 16, [
    t('chart.tokens.bpeMergesLearnedFrom', { n_merges: n, n_corpus: k.data.n_corpus ?? 5 }),
    t('chart.tokens.bpeMergesAppliedOrder', { n_merges: n }),
    t('chart.tokens.bpeMerges', { n_merges: n }),
  ], k.right - PAD, { class: 'panel-title' }, 12, true));
}

// A piece's box: its fill, an overlay of hatch or dots when `kind`, the piece in the box.
function pieceBox(g, chart, x, y, w, colour, kind, strokeWidth) {
  const place = { x: round(x), y: round(y), width: round(w), height: PIECE_H, rx: 3 };
  g.append(s('rect', { ...place, fill: colour, stroke: '#1b1f24', 'stroke-width': strokeWidth }));
  if (kind) g.append(s('rect', { ...place, fill: chart.hatchFor(colour, kind) }));
}

function pieceText(x, y, w, p, cls, halo) {
  return text(x + w / 2, y + PIECE_H / 2 + 4, p, {
    'text-anchor': 'middle', class: cls,
    stroke: halo, 'stroke-width': 3, 'paint-order': 'stroke', 'stroke-linejoin': 'round',
  });
}

// ── merge rows: one mark per merge that changed something, the new piece outlined and hatched ──
function drawMergeRows(svg, k) {
  k.rows.forEach((row) => {
    const { st, i } = row;
    const g = s('g', { class: 'merge-step', 'data-step': i, 'data-merge': st.merge ?? '' });
    const caption = i === 0 ? t('chart.tokens.splitIntoCharactersW')
      : t('chart.tokens.merge', { rank: st.rank + 1, merge: st.merge }) +
        (st.count > 1 ? t('chart.tokens.places', { count: st.count }) : '');
    const short = i === 0 ? t('chart.tokens.splitIntoCharactersW2')
      : t('chart.tokens.merge3', { rank: st.rank + 1, merge: st.merge });
    const plus = i === 0 ? '' : '+ ';
    g.append(fittedText(PAD, row.y - 4, [plus + caption, plus + short], k.right - PAD,
      { class: i === 0 ? 'muted' : 'strong' }, 12, i > 0));
    st.pieces.forEach((p, n) => {
      const { x, w, line } = row.places[n];
      const py = row.y + line * (PIECE_H + LINE_GAP);
      const isNew = i > 0 && p === st.merge;
      const isUnknown = k.unknownPieces.has(p) && i === k.rows.length - 1;
      const colour = isNew ? NEW_PIECE.colour : isUnknown ? UNKNOWN.colour : PIECE;
      const kind = isNew ? NEW_PIECE.kind : isUnknown ? UNKNOWN.kind : null;
      pieceBox(g, k.chart, x, py, w, colour, kind, isNew ? 1.8 : 0.6);
      g.append(pieceText(x, py, w, p, 'in-box ink-dark', isNew || isUnknown ? '#ffffff' : PIECE));
    });
    svg.append(k.chart.mark(g, mergeDetail(k, st, i)));
  });
}

function mergeDetail(k, st, i) {
  const { data, steps } = k;
  if (i === 0) return t('chart.tokens.startSplitInto', { text: k.follow.text ?? '', nPieces: st.total });
  const skipped = st.rank > 0 && steps[i - 1].rank !== st.rank - 1
    ? t('chart.tokens.mergesFindNoPairText', { first: (steps[i - 1].rank ?? -1) + 2, last: st.rank })
    : '';
  return t('chart.tokens.mergeJoinsIntoPlaces', {
    rank: st.rank + 1, n_merges: data.n_merges ?? '?', merge: st.merge, count: st.count, nPieces: st.total,
  }) + skipped;
}

// ── the template's pieces and their IDs ──
function drawTokenIds(svg, k) {
  const { chart, idY, right } = k;
  const titles = [
    t('chart.tokens.chatTemplateAddsBos'), t('chart.tokens.bosVocabularyLookup'), t('chart.tokens.bosTokenIds'),
  ];
  svg.append(fittedText(PAD, idY - 4, titles, right - PAD, { class: 'strong' }, 12, true));
  k.ids.forEach(([p, id], n) => {
    const { x, w, line } = k.idFlow.places[n];
    const py = idY + line * (PIECE_H + ID_H + LINE_GAP);
    const unknown = id === null || id === undefined;
    const byte = !unknown && isByte(p);
    const g = s('g',
      { class: 'token-id', 'data-piece': p, 'data-id': unknown ? '' : id, 'data-byte': byte ? 'true' : null });
    const look = unknown ? UNKNOWN : byte ? BYTE : PROMPT;
    pieceBox(g, chart, x, py, w, look.colour, look.kind, 0.6);
    g.append(pieceText(x, py, w, p, 'in-box ink-light', look.colour));
    g.append(text(x + w / 2, py + PIECE_H + 13, unknown ? '?' : String(id),
      { 'text-anchor': 'middle', class: 'value strong' }));
    svg.append(chart.mark(g, pieceNote(p, id, n, k.data, unknown, byte)));
  });
}

// ── every request against MAX_CONTEXT: title, token axis, one bar per request, the limit line ──
function drawBudget(svg, k) {
  const { budget, maxContext, right } = k;
  svg.append(fittedText(PAD, k.budgetTitleY + 6, [
    t('chart.tokens.budgetPromptMaxNew', { maxContext }),
    `prompt + max_new ≤ MAX_CONTEXT ${maxContext}?`,
    `≤ MAX_CONTEXT ${maxContext}?`,
  ], right - PAD, { class: 'panel-title' }, 12, true));
  const labelW = Math.max(...budget.map((r) => textWidth(r.id, 13, true))) + 12;
  const maxTotal = Math.max(maxContext, ...budget.map((r) => Number(r.total) || 0));
  const approx = Math.max(2, Math.floor((right - labelW) / 60));
  const step = [1, 2, 5, 10, 20, 50, 100].find((st) => maxTotal / st <= approx) || 200;   // whole tokens
  const top = Math.ceil(maxTotal / step) * step;
  const x = linear(0, top, PAD + labelW, right - 4);
  svg.append(budgetAxis(k, x, top, step));
  const captions = s('g', { class: 'labels', 'aria-hidden': 'true' });
  budget.forEach((r, i) => svg.append(k.chart.mark(budgetBar(k, r, k.barTop + i * BAR_ROW, x, labelW, captions),
    budgetCaption(r, maxContext) + '.')));
  const limit = maxContextLine(k, x(maxContext));
  svg.append(limit);
  svg.append(captions);
  const over = k.allBudget.filter((r) => r.code === '400').map((r) => r.id);
  const blocked = over.length
    ? t('chart.tokens.exceedTheyGet400', { over: over.join(', ') })
    : t('chart.tokens.noRequestBlockedBudget');
  svg.append(k.chart.mark(limit, t('chart.tokens.maxContextRequestS', { maxContext }) + blocked));
}

function budgetAxis(k, x, top, step) {
  const { axisY } = k;
  const axis = s('g', { class: 'axis', 'aria-hidden': 'true' });
  axis.append(s('line', { x1: round(x(0)), x2: round(x(top)), y1: axisY, y2: axisY, class: 'axis-line' }));
  for (let i = 0; i <= top / step; i++) {
    const v = i * step;
    axis.append(s('line', { x1: round(x(v)), x2: round(x(v)), y1: axisY, y2: axisY + 4, class: 'axis-line' }));
    axis.append(text(x(v), axisY + 16, String(v), { 'text-anchor': v === top ? 'end' : 'middle', class: 'tick' }));
  }
  axis.append(text((x(0) + x(top)) / 2, axisY + 31, t('chart.tokens.tokensPromptBos'),
    { 'text-anchor': 'middle', class: 'axis-label' }));
  return axis;
}

// One request's row: the followed one's band, its letter, prompt + max_new bars (faint when never tokenized;
// a dotted stub when its prompt is unknown), its caption (into `captions`, drawn above the limit line).
function budgetBar(k, r, yb, x, labelW, captions) {
  const { chart, width, right, maxContext } = k;
  const followed = String(r.id) === String(k.f.id);
  const g = s('g', { class: 'request', 'data-request': r.id, 'data-code': r.code });
  const faint = !r.tokenized;
  if (followed) {
    g.append(s('rect', { x: 0, y: yb - 3, width, height: BAR_ROW - 2, fill: '#fff4d6', class: 'follow-band' }));
  }
  g.append(text(PAD + labelW - 8, yb + BAR - 3, (followed ? '▸' : '') + r.id,
    { 'text-anchor': 'end', class: 'lane-label' }));
  if (r.prompt !== null && r.prompt !== undefined) {
    for (const [a, b, look] of [[0, r.prompt, PROMPT], [r.prompt, r.total, MAX_NEW]]) {
      const place = { x: round(x(a)), y: yb, width: round(Math.max(0.8, x(b) - x(a))), height: BAR };
      g.append(s('rect',
        { ...place, fill: look.colour, stroke: '#1b1f24', 'stroke-width': 0.6, 'fill-opacity': faint ? 0.35 : 1 }));
      if (look.kind) g.append(s('rect', { ...place, fill: chart.hatchFor(look.colour, look.kind) }));
    }
  } else {
    const place = { x: round(x(0)), y: yb, width: 24, height: BAR };
    g.append(s('rect', { ...place, fill: UNKNOWN.colour, stroke: '#1b1f24', 'stroke-width': 0.6 }));
    g.append(s('rect', { ...place, fill: chart.hatchFor(UNKNOWN.colour, UNKNOWN.kind) }));
  }
  const cap = budgetCaption(r, maxContext);
  const shortCap = budgetCaption(r, maxContext, true);
  const words = [cap.slice(cap.indexOf(':') + 2), shortCap.slice(shortCap.indexOf(':') + 2)];
  captions.append(fittedText(PAD + labelW, yb + BAR + 13, words, right - PAD - labelW, {
    class: 'caption value' + (r.code === 'OK' ? '' : ' strong'), 'data-request': r.id,
    stroke: followed ? '#fff4d6' : '#ffffff', 'stroke-width': 4, 'paint-order': 'stroke', 'stroke-linejoin': 'round',
  }, 11, r.code !== 'OK'));
  g.append(s('rect', { x: 0, y: yb - 3, width, height: BAR_ROW - 2, fill: 'transparent' }));
  return g;
}

function maxContextLine(k, mx) {
  const { maxContext, barTop, right } = k;
  const limit = s('g', { class: 'max-context', 'data-max-context': maxContext });
  limit.append(s('line', {
    x1: round(mx), x2: round(mx), y1: barTop - 6, y2: k.axisY,
    stroke: '#000000', 'stroke-width': 2, 'stroke-dasharray': '5 3',
  }));
  const label = `MAX_CONTEXT ${maxContext}`;
  const lw = textWidth(label, 12, true);
  limit.append(text(Math.max(PAD + lw / 2, Math.min(mx, right - lw / 2)), barTop - 9, label,
    { 'text-anchor': 'middle', class: 'strong' }));
  return limit;
}

// ── text alternative: the merges, the IDs, the budget ──
function textAlternative(k) {
  const { chart, allSteps: steps, allIds: ids, follow, f, maxContext } = k;
  chart.table(t('chart.tokens.bpe', { text: follow.text ?? '', id: follow.id || f.id }),
    [t('chart.tokens.step'), t('chart.tokens.merge2'), t('chart.tokens.pieces')],
    steps.map((st, i) => [
      i === 0 ? t('chart.tokens.characters') : String(i),
      i === 0 ? '—' : t('chart.tokens.places2', { rank: st.rank + 1, merge: st.merge, count: st.count }),
      st.pieces.join(' '),
    ]));
  if (ids.length) {
    chart.table(t('chart.tokens.tokensIds'), [t('chart.tokens.position'), t('chart.tokens.piece2'), 'ID'],
      ids.map(([p, id], n) => [String(n), p, id === null || id === undefined ? t('chart.tokens.none') : String(id)]));
  }
  chart.table(t('chart.tokens.tokenBudgetMaxContext', { maxContext }),
    [t('chart.tokens.request'), 'Prompt', 'max_new', t('chart.tokens.total'), t('chart.tokens.outcome')],
    k.allBudget.map((r) => [
      r.id, r.prompt ?? '—', String(r.max_new), r.total ?? '—', LONG_FATE()[r.code] || r.code,
    ].map(String)));
}

export function render(data, report, opts = {}) {
  const f = report.follow || {};
  const follow = data.follow || {};
  const maxContext = Number((report.config || {}).MAX_CONTEXT) || 0;
  const title = t('chart.tokens.fromTextTokenIds',
    { text: follow.text ?? '?', id: follow.id || f.id || '?', maxContext });
  const chart = new ChartBuilder(NAME, title, opts.width);
  const steps = Array.isArray(data.merge_steps) ? data.merge_steps : [];
  const budget = Array.isArray(data.budget) ? data.budget : [];
  chart.legend(legendItems(data));
  if (!steps.length && !budget.length) {
    chart.root.dataset.empty = 'true';
    chart.note(t('chart.tokens.runHasNoTokenizerData'));
    return chart.finish();
  }
  followNote(chart, f);
  const allIds = Array.isArray(data.follow_ids) ? data.follow_ids : [];
  // a long prompt: every row draws the pieces of its first UNITS_SHOWN characters only (the note and the table say
  // the rest); a generated 128-token prompt would draw thousands of pieces over its merge rows
  const units = steps.length ? steps[0].pieces.length : 0;
  const shownSteps = steps.map((st) => ({ ...st, pieces: firstUnits(st.pieces, 0), total: st.pieces.length }));
  const ids = allIds.length ? [allIds[0], ...firstUnits(allIds.slice(1), 0, ([piece]) => piece)] : allIds;
  if (units > UNITS_SHOWN) chart.note(t('chart.tokens.piecesShown', { shown: UNITS_SHOWN, total: units }));
  // a budget bar per request up to MAX_ROWS (figure.js rowsShown: the followed one kept); the table lists the rest
  const shown = rowsShown(budget, (r) => r.id, follow.id || f.id);
  if (shown.length < budget.length) chart.note(t('chart.tokens.rowsShown', { shown: shown.length, total: budget.length }));
  const k = layout({
    data, chart, f, follow, maxContext, steps: shownSteps, allSteps: steps, ids, allIds, budget: shown,
    allBudget: budget,
  });
  const svg = chart.svg(k.width, k.height, summary(k));
  drawTitle(svg, k);
  drawMergeRows(svg, k);
  if (ids.length) drawTokenIds(svg, k);
  if (budget.length) drawBudget(svg, k);
  textAlternative(k);
  return chart.finish();
}
