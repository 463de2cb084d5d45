// tokens (block 2): the followed request's text becoming BPE pieces merge by merge (one row per merge that
// changed something, the new piece outlined and hatched), then the chat template's <bos> + pieces with
// their token IDs; below, every request's prompt + max_new against MAX_CONTEXT (why E gets 400), with
// its fate (nhận / 400 / 429). A request refused at the gateway was never tokenized: its bar is drawn
// faint, from what the tokenizer would give. Pieces wrap onto more lines on a narrow screen.
import { ChartBuilder, OKABE_ITO, fittedText, linear, round, s, swatches, text, textWidth } from './svg.js';
import { tl } from '../words/i18n.js';

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
const PROMPT = { colour: OKABE_ITO.blue, kind: null };
const MAX_NEW = { colour: OKABE_ITO.sky, kind: 'dots' };

const LONG_FATE = {
  OK: tl('nhận', 'admitted'),
  400: tl('400 · bị chặn ở bước chuẩn bị đầu vào', '400 · blocked during input preparation'),
  429: tl('429 · từ chối ở cổng, chưa tokenize', '429 · rejected at the gateway, not tokenized'),
};
const SHORT_FATE = { OK: tl('nhận', 'admitted'), 400: '400', 429: tl('429 ở cổng, chưa tokenize', '429 at the gateway, not tokenized') };
const FATE = LONG_FATE;

function pieceWidth(p) { return Math.max(14, textWidth(p, 12, true) + 8); }

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

function budgetCaption(r, maxContext, short = false) {
  const FATE = short ? SHORT_FATE : LONG_FATE;
  if (r.prompt === null || r.prompt === undefined) return tl(`${r.id}: ${short ? 'ký tự lạ' : 'văn bản có ký tự tokenizer chưa thấy'} → ${FATE[r.code] || r.code}`, `${r.id}: ${short ? 'unknown characters' : 'text with characters the tokenizer never saw'} → ${FATE[r.code] || r.code}`);
  const sign = r.total > maxContext ? '>' : '≤';
  const sum = `${r.prompt} + ${r.max_new} = ${r.total} ${sign} ${maxContext}`;
  if (r.code === 'OK') return tl(`${r.id}: ${sum} → nhận`, `${r.id}: ${sum} → admitted`);
  if (r.stage === 'gateway') return tl(`${r.id}: ${sum}${short ? '' : ' (nếu tokenize)'} → ${FATE[429]}`, `${r.id}: ${sum}${short ? '' : ' (if tokenized)'} → ${FATE[429]}`);
  if (r.reason === 'pool') return tl(`${r.id}: ${sum}${short ? ', quá bể KV' : ' nhưng không bao giờ vừa bể KV'} → 400`, `${r.id}: ${sum}${short ? ', over the KV pool' : ' but never fits in the KV pool'} → 400`);
  return `${r.id}: ${sum} → ${FATE[r.code] || r.code}`;
}

export function render(data, report, opts = {}) {
  const f = report.follow || {};
  const follow = data.follow || {};
  const steps = Array.isArray(data.merge_steps) ? data.merge_steps : [];
  const ids = Array.isArray(data.follow_ids) ? data.follow_ids : [];
  const budget = Array.isArray(data.budget) ? data.budget : [];
  const maxContext = Number(data.max_context) || 0;
  const chart = new ChartBuilder(NAME,
    tl(`Từ văn bản tới token ID: “${follow.text ?? '?'}” của ${follow.id || f.id || '?'} qua từng phép gộp BPE, rồi prompt + max_new của mọi yêu cầu so với MAX_CONTEXT ${maxContext}`, `From text to token IDs: “${follow.text ?? '?'}” of ${follow.id || f.id || '?'} through each BPE merge, then every request's prompt + max_new against MAX_CONTEXT ${maxContext}`), opts.width);
  chart.legend([
    { label: tl('mảnh (piece)', 'piece'), draw: swatches.box(PIECE) },
    { label: tl('mảnh vừa gộp', 'piece just merged'), draw: swatches.box(NEW_PIECE.colour, NEW_PIECE.kind) },
    { label: tl('ký tự tokenizer chưa thấy (không có ID)', 'character the tokenizer never saw (no ID)'), draw: swatches.box(UNKNOWN.colour, UNKNOWN.kind) },
    { label: 'token prompt', draw: swatches.box(PROMPT.colour) },
    { label: tl('max_new (token được phép sinh)', 'max_new (tokens it may generate)'), draw: swatches.box(MAX_NEW.colour, MAX_NEW.kind) },
    { label: 'MAX_CONTEXT', draw: swatches.line('#000000', '5 3') },
  ]);
  if (!steps.length && !budget.length) {
    chart.root.dataset.empty = 'true';
    chart.note(tl('Lần chạy này không có dữ liệu tokenizer để vẽ.', 'This run has no tokenizer data to draw.'));
    return chart.finish();
  }
  if (f.served === false && f.stage === 'gateway') {
    chart.note(tl(`${f.id} bị từ chối ${f.code} ở cổng nên engine chưa tách token; hình dưới là cách tokenizer sẽ tách văn bản của nó.`, `${f.id} was rejected ${f.code} at the gateway, so the engine never tokenized it; below is how the tokenizer would split its text.`));
  } else if (f.served === false && f.reason === 'unknown') {
    chart.note(tl(`${f.id} bị chặn 400: văn bản có ký tự tokenizer chưa thấy (ô đỏ chấm), nên mảnh đó không có ID.`, `${f.id} is blocked with 400: its text has characters the tokenizer never saw (dotted red box), so that piece has no ID.`));
  }

  const width = chart.width;
  const right = width - PAD;
  const unknownPieces = new Set(ids.filter(([, id]) => id === null || id === undefined).map(([p]) => p));

  // ── layout: merge rows, then the ID row, then the budget bars ──
  const rows = steps.map((st, i) => ({ st, i, pieces: st.pieces, ...flow(st.pieces, PAD, right) }));
  const idPieces = ids.map(([p]) => p);
  const idFlow = flow(idPieces, PAD, right);
  let y = SECTION;
  for (const row of rows) {
    row.y = y + ROW_LABEL;
    y = row.y + row.lines * (PIECE_H + LINE_GAP) + ROW_GAP;
  }
  const idY = y + ROW_LABEL;
  y = ids.length ? idY + idFlow.lines * (PIECE_H + ID_H + LINE_GAP) + ROW_GAP : y;
  const budgetTitleY = y + 10;
  const barTop = budgetTitleY + SECTION + 12;
  const barsEnd = barTop + budget.length * BAR_ROW;
  const axisY = barsEnd + 2;
  const height = budget.length ? axisY + 36 : y;

  const merges = steps.slice(1).map((st) => `“${st.merge}”`).join(', ');
  const over = budget.filter((r) => r.code === '400').map((r) => r.id);
  const summary = tl(`${follow.id || f.id}: “${follow.text ?? ''}” → ${steps.length ? steps[0].pieces.length : 0} ký tự và dấu hết từ, `, `${follow.id || f.id}: “${follow.text ?? ''}” → ${steps.length ? steps[0].pieces.length : 0} characters and end-of-word marks, `) +
    tl(`${steps.length - 1} phép gộp có tác dụng (${merges || 'không có'}) → ${ids.length} token gồm <bos>: ID [${ids.map(([, id]) => (id ?? '?')).join(', ')}]. `, `${steps.length - 1} merges apply (${merges || 'none'}) → ${ids.length} tokens with <bos>: IDs [${ids.map(([, id]) => (id ?? '?')).join(', ')}]. `) +
    `MAX_CONTEXT ${maxContext}: ` + budget.map((r) => budgetCaption(r, maxContext)).join('; ') + '.';
  const svg = chart.svg(width, height, summary);

  svg.append(fittedText(PAD, 16, [
    tl(`BPE: ${data.n_merges ?? '?'} phép gộp học từ ${data.n_corpus ?? 5} câu mẫu, áp theo thứ tự`, `BPE: ${data.n_merges ?? '?'} merges learned from ${data.n_corpus ?? 5} sample sentences, applied in order`),
    tl(`BPE: ${data.n_merges ?? '?'} phép gộp, áp theo thứ tự`, `BPE: ${data.n_merges ?? '?'} merges, applied in order`),
    tl(`BPE: ${data.n_merges ?? '?'} phép gộp`, `BPE: ${data.n_merges ?? '?'} merges`),
  ], right - PAD, { class: 'panel-title' }, 12, true));

  // ── merge rows ──
  rows.forEach((row) => {
    const { st, i } = row;
    const g = s('g', { class: 'merge-step', 'data-step': i, 'data-merge': st.merge ?? '' });
    const caption = i === 0 ? tl('tách thành ký tự, “</w>” đánh dấu hết từ', 'split into characters, “</w>” marks the end of a word')
      : tl(`phép gộp thứ ${st.rank + 1}: “${st.merge}”`, `merge ${st.rank + 1}: “${st.merge}”`) + (st.count > 1 ? tl(` (${st.count} chỗ)`, ` (${st.count} places)`) : '');
    const short = i === 0 ? tl('tách thành ký tự (“</w>”: hết từ)', 'split into characters (“</w>”: word end)') : tl(`gộp ${st.rank + 1}: “${st.merge}”`, `merge ${st.rank + 1}: “${st.merge}”`);
    g.append(fittedText(PAD, row.y - 4, [(i === 0 ? '' : '+ ') + caption, (i === 0 ? '' : '+ ') + short], right - PAD, { class: i === 0 ? 'muted' : 'strong' }, 12, i > 0));
    st.pieces.forEach((p, k) => {
      const { x, w, line } = row.places[k];
      const py = row.y + line * (PIECE_H + LINE_GAP);
      const isNew = i > 0 && p === st.merge;
      const isUnknown = unknownPieces.has(p) && i === rows.length - 1;
      const colour = isNew ? NEW_PIECE.colour : isUnknown ? UNKNOWN.colour : PIECE;
      g.append(s('rect', { x: round(x), y: round(py), width: round(w), height: PIECE_H, rx: 3, fill: colour, stroke: '#1b1f24', 'stroke-width': isNew ? 1.8 : 0.6 }));
      const kind = isNew ? NEW_PIECE.kind : isUnknown ? UNKNOWN.kind : null;
      if (kind) g.append(s('rect', { x: round(x), y: round(py), width: round(w), height: PIECE_H, rx: 3, fill: chart.hatchFor(colour, kind) }));
      g.append(text(x + w / 2, py + PIECE_H / 2 + 4, p, {
        'text-anchor': 'middle', class: 'in-box ink-dark', stroke: isNew || isUnknown ? '#ffffff' : PIECE, 'stroke-width': 3, 'paint-order': 'stroke', 'stroke-linejoin': 'round',
      }));
    });
    const detail = i === 0
      ? tl(`Bắt đầu: “${follow.text ?? ''}” tách thành ${st.pieces.length} ký tự (mỗi từ kết thúc bằng “</w>”).`, `Start: “${follow.text ?? ''}” split into ${st.pieces.length} characters (each word ends with “</w>”).`)
      : tl(`Phép gộp thứ ${st.rank + 1} trong ${data.n_merges ?? '?'}: ghép thành “${st.merge}” ở ${st.count} chỗ; còn ${st.pieces.length} mảnh.`, `Merge ${st.rank + 1} of ${data.n_merges ?? '?'}: joins into “${st.merge}” in ${st.count} places; ${st.pieces.length} pieces left.`) +
        (st.rank > 0 && steps[i - 1].rank !== st.rank - 1 ? tl(` Các phép gộp ${(steps[i - 1].rank ?? -1) + 2}..${st.rank} không có cặp nào trong văn bản này.`, ` Merges ${(steps[i - 1].rank ?? -1) + 2}..${st.rank} find no pair in this text.`) : '');
    svg.append(chart.mark(g, detail));
  });

  // ── the template's pieces and their IDs ──
  if (ids.length) {
    const idTitle = tl('chat template thêm <bos>, rồi tra bảng từ vựng → token ID', 'the chat template adds <bos>, then the vocabulary lookup → token IDs');
    svg.append(fittedText(PAD, idY - 4, [idTitle, tl('+ <bos>, tra bảng từ vựng → token ID', '+ <bos>, vocabulary lookup → token IDs'), tl('+ <bos> → token ID', '+ <bos> → token IDs')], right - PAD, { class: 'strong' }, 12, true));
    ids.forEach(([p, id], k) => {
      const { x, w, line } = idFlow.places[k];
      const py = idY + line * (PIECE_H + ID_H + LINE_GAP);
      const unknown = id === null || id === undefined;
      const g = s('g', { class: 'token-id', 'data-piece': p, 'data-id': unknown ? '' : id });
      const colour = unknown ? UNKNOWN.colour : PROMPT.colour;
      g.append(s('rect', { x: round(x), y: round(py), width: round(w), height: PIECE_H, rx: 3, fill: colour, stroke: '#1b1f24', 'stroke-width': 0.6 }));
      if (unknown) g.append(s('rect', { x: round(x), y: round(py), width: round(w), height: PIECE_H, rx: 3, fill: chart.hatchFor(colour, UNKNOWN.kind) }));
      g.append(text(x + w / 2, py + PIECE_H / 2 + 4, p, { 'text-anchor': 'middle', class: 'in-box ink-light', stroke: colour, 'stroke-width': 3, 'paint-order': 'stroke', 'stroke-linejoin': 'round' }));
      g.append(text(x + w / 2, py + PIECE_H + 13, unknown ? '?' : String(id), { 'text-anchor': 'middle', class: 'value strong' }));
      svg.append(chart.mark(g, unknown
        ? tl(`Mảnh “${p}” không có trong bảng ${data.vocab ?? '?'} token: không có ID, nên yêu cầu bị 400.`, `Piece “${p}” is not in the vocabulary of ${data.vocab ?? '?'} tokens: no ID, so the request gets 400.`)
        : tl(`Vị trí ${k}: mảnh “${p}” → ID ${id} (số thứ tự trong bảng ${data.vocab ?? '?'} token).`, `Position ${k}: piece “${p}” → ID ${id} (its row in the vocabulary of ${data.vocab ?? '?'} tokens).`)));
    });
  }

  // ── every request against MAX_CONTEXT ──
  if (budget.length) {
    svg.append(fittedText(PAD, budgetTitleY + 6, [
      tl(`Ngân sách: prompt + max_new ≤ MAX_CONTEXT ${maxContext}?`, `Budget: prompt + max_new ≤ MAX_CONTEXT ${maxContext}?`),
      `prompt + max_new ≤ MAX_CONTEXT ${maxContext}?`,
      `≤ MAX_CONTEXT ${maxContext}?`,
    ], right - PAD, { class: 'panel-title' }, 12, true));
    const labelW = Math.max(...budget.map((r) => textWidth(r.id, 13, true))) + 12;
    const maxTotal = Math.max(maxContext, ...budget.map((r) => Number(r.total) || 0));
    const approx = Math.max(2, Math.floor((right - labelW) / 60));
    const step = [1, 2, 5, 10, 20, 50, 100].find((st) => maxTotal / st <= approx) || 200;   // whole tokens
    const top = Math.ceil(maxTotal / step) * step;
    const tk = { values: Array.from({ length: top / step + 1 }, (_, i) => i * step) };
    const x = linear(0, top, PAD + labelW, right - 4);
    const axis = s('g', { class: 'axis', 'aria-hidden': 'true' });
    axis.append(s('line', { x1: round(x(0)), x2: round(x(top)), y1: axisY, y2: axisY, class: 'axis-line' }));
    for (const v of tk.values) {
      axis.append(s('line', { x1: round(x(v)), x2: round(x(v)), y1: axisY, y2: axisY + 4, class: 'axis-line' }));
      axis.append(text(x(v), axisY + 16, String(v), { 'text-anchor': v === top ? 'end' : 'middle', class: 'tick' }));
    }
    axis.append(text((x(0) + x(top)) / 2, axisY + 31, tl('token (prompt gồm <bos>)', 'tokens (prompt with <bos>)'), { 'text-anchor': 'middle', class: 'axis-label' }));
    svg.append(axis);
    const captions = s('g', { class: 'labels', 'aria-hidden': 'true' });
    budget.forEach((r, i) => {
      const yb = barTop + i * BAR_ROW;
      const g = s('g', { class: 'request', 'data-request': r.id, 'data-code': r.code });
      const faint = !r.tokenized;
      if (String(r.id) === String(f.id)) g.append(s('rect', { x: 0, y: yb - 3, width, height: BAR_ROW - 2, fill: '#fff4d6', class: 'follow-band' }));
      g.append(text(PAD + labelW - 8, yb + BAR - 3, (String(r.id) === String(f.id) ? '▸' : '') + r.id, { 'text-anchor': 'end', class: 'lane-label' }));
      if (r.prompt !== null && r.prompt !== undefined) {
        const parts = [[0, r.prompt, PROMPT], [r.prompt, r.total, MAX_NEW]];
        for (const [a, b, look] of parts) {
          g.append(s('rect', { x: round(x(a)), y: yb, width: round(Math.max(0.8, x(b) - x(a))), height: BAR, fill: look.colour, stroke: '#1b1f24', 'stroke-width': 0.6, 'fill-opacity': faint ? 0.35 : 1 }));
          if (look.kind) g.append(s('rect', { x: round(x(a)), y: yb, width: round(Math.max(0.8, x(b) - x(a))), height: BAR, fill: chart.hatchFor(look.colour, look.kind) }));
        }
      } else {
        g.append(s('rect', { x: round(x(0)), y: yb, width: 24, height: BAR, fill: UNKNOWN.colour, stroke: '#1b1f24', 'stroke-width': 0.6 }));
        g.append(s('rect', { x: round(x(0)), y: yb, width: 24, height: BAR, fill: chart.hatchFor(UNKNOWN.colour, UNKNOWN.kind) }));
      }
      const cap = budgetCaption(r, maxContext);
      const shortCap = budgetCaption(r, maxContext, true);
      captions.append(fittedText(PAD + labelW, yb + BAR + 13, [cap.slice(cap.indexOf(':') + 2), shortCap.slice(shortCap.indexOf(':') + 2)], right - PAD - labelW, {
        class: 'caption value' + (r.code === 'OK' ? '' : ' strong'), 'data-request': r.id, stroke: String(r.id) === String(f.id) ? '#fff4d6' : '#ffffff', 'stroke-width': 4, 'paint-order': 'stroke', 'stroke-linejoin': 'round',
      }, 11, r.code !== 'OK'));
      g.append(s('rect', { x: 0, y: yb - 3, width, height: BAR_ROW - 2, fill: 'transparent' }));
      svg.append(chart.mark(g, cap + '.'));
    });
    const mx = x(maxContext);
    const limit = s('g', { class: 'max-context', 'data-max-context': maxContext });
    limit.append(s('line', { x1: round(mx), x2: round(mx), y1: barTop - 6, y2: axisY, stroke: '#000000', 'stroke-width': 2, 'stroke-dasharray': '5 3' }));
    const label = `MAX_CONTEXT ${maxContext}`;
    const lw = textWidth(label, 12, true);
    limit.append(text(Math.max(PAD + lw / 2, Math.min(mx, right - lw / 2)), barTop - 9, label, { 'text-anchor': 'middle', class: 'strong' }));
    svg.append(limit);
    svg.append(captions);
    svg.append(chart.mark(limit, tl(`MAX_CONTEXT ${maxContext}: prompt + max_new của một yêu cầu không được vượt số này; `, `MAX_CONTEXT ${maxContext}: a request's prompt + max_new may not exceed it; `) +
      (over.length ? tl(`${over.join(', ')} vượt nên bị 400.`, `${over.join(', ')} exceed it, so they get 400.`) : tl('không yêu cầu nào bị chặn vì ngân sách.', 'no request is blocked by the budget.'))));
  }

  // text alternative
  chart.table(tl(`BPE cho “${follow.text ?? ''}” của ${follow.id || f.id}`, `BPE of “${follow.text ?? ''}” of ${follow.id || f.id}`), [tl('Bước', 'Step'), tl('Phép gộp', 'Merge'), tl('Các mảnh', 'Pieces')],
    steps.map((st, i) => [i === 0 ? tl('ký tự', 'characters') : String(i), i === 0 ? '—' : tl(`thứ ${st.rank + 1}: ${st.merge} (${st.count} chỗ)`, `#${st.rank + 1}: ${st.merge} (${st.count} places)`), st.pieces.join(' ')]));
  if (ids.length) {
    chart.table(tl('Token và ID', 'Tokens and IDs'), [tl('Vị trí', 'Position'), tl('Mảnh', 'Piece'), 'ID'], ids.map(([p, id], k) => [String(k), p, id === null || id === undefined ? tl('không có', 'none') : String(id)]));
  }
  chart.table(tl(`Ngân sách token (MAX_CONTEXT ${maxContext})`, `Token budget (MAX_CONTEXT ${maxContext})`), [tl('Yêu cầu', 'Request'), 'Prompt', 'max_new', tl('Tổng', 'Total'), tl('Kết quả', 'Outcome')],
    budget.map((r) => [r.id, r.prompt ?? '—', String(r.max_new), r.total ?? '—', FATE[r.code] || r.code].map(String)));
  return chart.finish();
}
