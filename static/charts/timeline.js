// timeline (block 3): simulated time on x, one lane per request (REQUESTS order). Each step's prefill
// chunk (hatched, "p5") and decode (solid, "d") is a box; arrival ○, ready |, first token ◆ and finish ■
// are marked; refused requests (429/400) show ✕ with their code; preemptions show a ⏸ badge; a request
// aborted by its client (cancel_at, status "aborted") ends with ✕ at the abort and has no ◆ without a token.
import { ChartBuilder, blockData, glyphs, inkClass, linear, ms, requestColours, round, s, stepColumns, swatches, text, textWidth, ticks, xAxis, xGrid } from './svg.js';
import { linkSteps } from './step-link.js';
import { logItems } from '../core/run-log.js';
import { tl } from '../words/i18n.js';

export const NAME = 'timeline';

const LANE = 30;       // px per lane
const BOX = 18;        // box height
const LEFT = 34;       // lane labels
const RIGHT = 14;
const TOP = 6;
const AXIS = 44;       // tick labels + axis title
const MIN_STEP_PX = 5; // below this the drawing scrolls sideways

const CODE_TEXT = { 429: tl('429 · từ chối ở cổng (quá tải)', '429 · rejected at the gateway (overloaded)'), 400: tl('400 · bị chặn ở bước chuẩn bị đầu vào', '400 · blocked during input preparation') };

export function render(data, report, opts = {}) {
  const b11 = blockData(report, 11) || {};
  const steps = logItems(report); // the run log: one item per step (start, end, tasks)
  const preemptions = Array.isArray(data.preemptions) ? data.preemptions : [];
  const served = new Map((b11.requests || []).map((r) => [String(r.id), r]));
  const rejected = new Map((b11.rejected || []).map((r) => [String(r.id), r]));
  const trace = (report.config && report.config.REQUESTS) || [];
  const ids = trace.length ? trace.map((r) => String(r.id)) : [...served.keys(), ...rejected.keys()];
  const follow = report.follow && report.follow.id;
  const colourOf = requestColours(report);

  const chart = new ChartBuilder(NAME, tl('Dòng thời gian: mỗi yêu cầu một làn, mỗi bước một ô (ms mô phỏng)', 'Timeline: one lane per request, one box per step (simulated ms)'), opts.width);
  chart.legend([
    { label: tl('prefill (sọc, “p5” = 5 token prompt)', 'prefill (striped, “p5” = 5 prompt tokens)'), draw: swatches.box('#0072B2', 'hatch') },
    { label: tl('decode (đặc, “d”)', 'decode (solid, “d”)'), draw: swatches.box('#0072B2') },
    { label: tl('đến', 'arrives'), draw: swatches.shape((x, y) => glyphs.circle(x, y)) },
    { label: tl('sẵn sàng', 'ready'), draw: swatches.shape((x, y) => glyphs.tick(x, y)) },
    { label: tl('chờ chỗ chạy', 'waiting for a slot'), draw: swatches.line('#4a5260', '3 3') },
    { label: tl('token đầu', 'first token'), draw: swatches.shape((x, y) => glyphs.diamond(x, y)) },
    { label: 'xong', draw: swatches.shape((x, y) => glyphs.square(x, y)) },
    { label: [...served.values()].some((r) => r.status === 'aborted') ? tl('từ chối 429/400 hoặc bị hủy', 'rejected 429/400 or cancelled') : tl('từ chối 429/400', 'rejected 429/400'),
      draw: swatches.shape((x, y) => glyphs.cross(x, y)) },
    { label: 'preempt', draw: swatches.shape((x, y) => glyphs.pause(x, y)) },
  ]);

  // time range and width
  let end = 0;
  for (const st of steps) end = Math.max(end, st.end);
  for (const r of served.values()) end = Math.max(end, r.finish || 0, r.arrival || 0);
  for (const r of rejected.values()) end = Math.max(end, r.arrival || 0);
  for (const r of trace) end = Math.max(end, r.arrival || 0);
  end = Math.max(end, 1000);
  const minPlot = steps.length ? (end / Math.max(1, Math.min(...steps.map((st) => st.end - st.start)))) * MIN_STEP_PX : 0;
  const width = Math.max(chart.width, Math.min(LEFT + RIGHT + minPlot, 6000));
  const plotRight = width - RIGHT;
  const x = linear(0, end, LEFT + 4, plotRight);
  const height = TOP + ids.length * LANE + AXIS;
  const axisY = TOP + ids.length * LANE + 2;

  const nServed = served.size;
  const summary = tl(`Dòng thời gian ${steps.length} bước trong ${ms(end)} ms mô phỏng: ${nServed} yêu cầu được phục vụ`, `Timeline of ${steps.length} steps in ${ms(end)} simulated ms: ${nServed} requests served`) +
    (rejected.size ? tl(`, ${[...rejected.values()].map((r) => r.id + ' bị ' + r.code).join(', ')}`, `, ${[...rejected.values()].map((r) => r.id + ' got ' + r.code).join(', ')}`) : '') +
    (preemptions.length ? tl(`, ${preemptions.length} lần preempt (${preemptions.map((p) => p.request + ' ở bước ' + p.step).join(', ')})`, `, ${preemptions.length} preemptions (${preemptions.map((p) => p.request + ' at step ' + p.step).join(', ')})`) : tl(', không có preempt', ', no preemption')) + '.';
  const svg = chart.svg(width, height, summary);

  const t = ticks(0, end / 1000, Math.max(2, Math.floor((plotRight - LEFT) / 70)));
  svg.append(xGrid((v) => x(v * 1000), TOP, axisY, t.values));
  // step boundaries, faint
  const stepLines = s('g', { class: 'grid', 'aria-hidden': 'true' });
  for (const st of steps) stepLines.append(s('line', { x1: round(x(st.start)), x2: round(x(st.start)), y1: TOP, y2: axisY, 'stroke-dasharray': '2 3' }));
  svg.append(stepLines);
  svg.append(stepColumns(steps.map((st) => [x(st.start), x(st.end) - x(st.start)]), TOP, axisY - TOP));
  const scaleMs = (v) => x(v * 1000);
  scaleMs.domain = [0, end / 1000];
  svg.append(xAxis(scaleMs, axisY, t.values, (v) => String(v), tl('thời gian mô phỏng (ms)', 'simulated time (ms)'), (LEFT + plotRight) / 2));

  const stepNo = new Map(steps.map((st, i) => [st, i + 1]));
  const preemptBy = new Map();
  for (const p of preemptions) {
    if (!preemptBy.has(String(p.request))) preemptBy.set(String(p.request), []);
    preemptBy.get(String(p.request)).push(p);
  }

  ids.forEach((id, lane) => {
    const y0 = TOP + lane * LANE;
    const mid = y0 + LANE / 2;
    const g = s('g', { class: 'lane', 'data-request': id });
    svg.append(g);
    if (id === follow) g.append(s('rect', { x: 0, y: y0 + 1, width, height: LANE - 2, fill: '#fff4d6', class: 'follow-band' }));
    const label = text(LEFT - 8, mid + 4.5, (id === follow ? '▸' : '') + id, { 'text-anchor': 'end', class: 'lane-label' });
    g.append(label);
    if (lane > 0) g.append(s('line', { x1: 0, x2: width, y1: y0, y2: y0, stroke: '#e3e6ea' }));

    const rej = rejected.get(id);
    const req = served.get(id);
    const spec = trace.find((r) => String(r.id) === id) || {};
    if (rej) {
      const cx = x(rej.arrival);
      const info = CODE_TEXT[rej.code] || (rej.code + tl(' · bị từ chối', ' · rejected'));
      const labelText = (id === follow ? tl('yêu cầu theo dõi · ', 'followed request · ') : '') + info;
      const mk = chart.mark(s('g', { class: 'refused', 'data-code': rej.code }, s('rect', { x: round(cx - 8), y: round(mid - 8), width: 16, height: 16, fill: 'transparent' }), glyphs.cross(cx, mid)),
        tl(`${id}: đến ${ms(rej.arrival)} ms, ${info}; không được phục vụ.`, `${id}: arrives ${ms(rej.arrival)} ms, ${info}; not served.`));
      g.append(mk);
      // beside the cross, right if it fits, else left; shorter words when neither side has room
      const place = [labelText, info, String(rej.code)].map((t) => [t, textWidth(t, 12, true)])
        .map(([t, tw]) => [t, tw, cx + 10 + tw <= width - 2 ? 'start' : cx - 10 - tw >= 2 ? 'end' : null])
        .find(([, , anchor]) => anchor) || [String(rej.code), 0, 'start'];
      g.append(text(place[2] === 'start' ? cx + 10 : cx - 10, mid + 4, place[0], { 'text-anchor': place[2], class: 'strong' }));
      return;
    }
    if (!req) {
      g.append(text(LEFT + 6, mid + 4, tl('không có số liệu', 'no data'), { class: 'muted' }));
      return;
    }
    const { colour } = colourOf(id);
    const marks = []; // [x, element, detail] sorted by x for keyboard order

    // prep (arrival -> ready) and waiting (ready -> start)
    if (req.ready > req.arrival) {
      g.append(s('line', { x1: round(x(req.arrival)), x2: round(x(req.ready)), y1: mid, y2: mid, stroke: '#4a5260', 'stroke-width': 2.5 }));
    }
    const aborted = req.status === 'aborted';
    const waitEnd = req.start === null || req.start === undefined ? (aborted ? req.finish : req.ready) : req.start;
    if (waitEnd > req.ready) {
      g.append(s('line', { x1: round(x(req.ready)), x2: round(x(waitEnd)), y1: mid, y2: mid, stroke: '#4a5260', 'stroke-width': 1.5, 'stroke-dasharray': '3 3' }));
    }

    // boxes
    const myPreempts = preemptBy.get(id) || [];
    for (const st of steps) {
      for (const task of st.tasks || []) {
        if (String(task[0]) !== id) continue;
        const phase = task[1];
        const n = task[2];
        const bx = x(st.start);
        const bw = Math.max(1, x(st.end) - bx);
        const lost = myPreempts.find((p) => p.time > st.start);
        const box = s('g', { class: 'task', 'data-phase': phase, 'data-step': stepNo.get(st) });
        box.append(s('rect', { x: round(bx + 0.5), y: round(mid - BOX / 2), width: round(Math.max(1, bw - 1)), height: BOX, fill: colour, stroke: '#1b1f24', 'stroke-width': 0.7, 'fill-opacity': lost ? 0.45 : 1 }));
        if (phase === 'prefill') box.append(s('rect', { x: round(bx + 0.5), y: round(mid - BOX / 2), width: round(Math.max(1, bw - 1)), height: BOX, fill: chart.hatchFor(colour) }));
        const lab = phase === 'prefill' ? 'p' + n : 'd';
        if (textWidth(lab, 11, true) + 4 <= bw) {
          // a halo in the box colour keeps the label readable over the hatch
          box.append(text(bx + bw / 2, mid + 4, lab, {
            'text-anchor': 'middle', class: 'in-box ' + (lost ? 'ink-dark' : inkClass(colour)),
            stroke: lost ? '#ffffff' : colour, 'stroke-width': 3, 'paint-order': 'stroke', 'stroke-linejoin': 'round',
          }));
        }
        const what = phase === 'prefill' ? `prefill ${n} token prompt` : 'decode 1 token';
        const lostText = lost ? tl(` — K/V này bị bỏ khi ${id} bị preempt lúc ${ms(lost.time)} ms, phải tính lại.`, ` — this K/V is dropped when ${id} is preempted at ${ms(lost.time)} ms and must be recomputed.`) : '';
        marks.push([bx, box, tl(`Bước ${stepNo.get(st)} (${ms(st.start)} → ${ms(st.end)} ms): ${id} ${what}.${lostText}`, `Step ${stepNo.get(st)} (${ms(st.start)} → ${ms(st.end)} ms): ${id} ${what}.${lostText}`)]);
      }
    }
    // markers
    const ttftText = req.ttft === null || req.ttft === undefined ? tl('bị hủy trước token đầu nên không có TTFT', 'cancelled before its first token, so no TTFT')
      : tl(`TTFT ${ms(req.ttft)} ms = chuẩn bị ${ms(req.prep)} + chờ ${ms(req.queue)} + prefill ${ms(req.prefill)}`, `TTFT ${ms(req.ttft)} ms = preparation ${ms(req.prep)} + wait ${ms(req.queue)} + prefill ${ms(req.prefill)}`);
    marks.push([x(req.arrival) - 0.3, glyphs.circle(x(req.arrival), mid), tl(`${id} đến lúc ${ms(req.arrival)} ms`, `${id} arrives at ${ms(req.arrival)} ms`) + (spec.text ? ` (“${spec.text}”)` : '') + '.']);
    const started = req.start === null || req.start === undefined ? tl(', chưa được vào chạy.', ', never started running.')
      : req.start > req.ready ? tl(`, chờ chỗ chạy tới ${ms(req.start)} ms (${ms(req.queue)} ms).`, `, waits for a slot until ${ms(req.start)} ms (${ms(req.queue)} ms).`) : tl(', vào chạy ngay.', ', starts running at once.');
    marks.push([x(req.ready) - 0.2, glyphs.tick(x(req.ready), mid), tl(`${id} sẵn sàng lúc ${ms(req.ready)} ms (chuẩn bị đầu vào ${ms(req.prep)} ms)`, `${id} is ready at ${ms(req.ready)} ms (input preparation ${ms(req.prep)} ms)`) + started]);
    if (req.first !== null && req.first !== undefined) {
      marks.push([x(req.first) + 0.1, glyphs.diamond(x(req.first), mid - BOX / 2 + 2), tl(`${id} nhận token đầu lúc ${ms(req.first)} ms: ${ttftText}.`, `${id} gets its first token at ${ms(req.first)} ms: ${ttftText}.`)]);
    }
    if (aborted) {
      marks.push([x(req.finish) + 0.2, glyphs.cross(x(req.finish), mid, { class: 'aborted' }), tl(`${id} bị client hủy (cancel_at ${ms(req.cancel_at)} ms), engine bỏ nó lúc ${ms(req.finish)} ms sau ${req.n} token.`, `${id} was cancelled by the client (cancel_at ${ms(req.cancel_at)} ms); the engine dropped it at ${ms(req.finish)} ms after ${req.n} tokens.`)]);
    } else {
      marks.push([x(req.finish) + 0.2, glyphs.square(x(req.finish), mid), tl(`${id} xong lúc ${ms(req.finish)} ms sau ${req.n} token (E2E ${ms(req.e2e)} ms).`, `${id} finishes at ${ms(req.finish)} ms after ${req.n} tokens (E2E ${ms(req.e2e)} ms).`)]);
    }
    for (const p of myPreempts) {
      const px = x(p.time);
      const badge = glyphs.pause(px, y0 + 7, { class: 'preempt', 'data-step': p.step });
      const line = s('line', { x1: round(px), x2: round(px), y1: y0 + 2, y2: y0 + LANE - 2, stroke: '#000000', 'stroke-width': 1.5, 'stroke-dasharray': '2 2' });
      const kept = p.blocks && p.blocks.length ? tl(`trả block [${p.blocks.join(', ')}]`, `frees blocks [${p.blocks.join(', ')}]`) : tl('chưa giữ block nào', 'held no block yet');
      const detail = tl(`Preempt ở bước ${p.step} (${ms(p.time)} ms): hết block KV trống, ${p.request} ${kept}, quay lại hàng chờ; khi chạy lại phải prefill ${p.recompute} token.`, `Preempt at step ${p.step} (${ms(p.time)} ms): out of free KV blocks, ${p.request} ${kept}, back to the waiting queue; when it runs again it must prefill ${p.recompute} tokens.`);
      const group = s('g', { class: 'preemption', 'data-step': p.step }, line, badge);
      marks.push([px, group, detail]);
    }
    marks.sort((a, b) => a[0] - b[0]);
    // lane label first in keyboard order: the request's whole story
    const story = tl(`${id}${id === follow ? ' (yêu cầu theo dõi)' : ''}: đến ${ms(req.arrival)}, sẵn sàng ${ms(req.ready)}`, `${id}${id === follow ? ' (followed request)' : ''}: arrives ${ms(req.arrival)}, ready ${ms(req.ready)}`) +
      (req.start === null || req.start === undefined ? '' : tl(`, bắt đầu ${ms(req.start)}`, `, starts ${ms(req.start)}`)) +
      (req.first === null || req.first === undefined ? '' : tl(`, token đầu ${ms(req.first)}`, `, first token ${ms(req.first)}`)) +
      tl(`, ${aborted ? 'bị hủy' : 'xong'} ${ms(req.finish)} ms; ${ttftText}`, `, ${aborted ? 'cancelled' : 'finishes'} ${ms(req.finish)} ms; ${ttftText}`) +
      (myPreempts.length ? tl(`; bị preempt ${myPreempts.length} lần.`, `; preempted ${myPreempts.length} times.`) : '.');
    const labelHit = s('g', { class: 'lane-head' }, s('rect', { x: 0, y: y0 + 2, width: LEFT - 4, height: LANE - 4, fill: 'transparent' }));
    g.append(chart.mark(labelHit, story));
    for (const [, el, detail] of marks) g.append(chart.mark(el, detail));
  });


  // text alternative
  chart.table(tl('Các yêu cầu trên dòng thời gian (ms mô phỏng)', 'The requests on the timeline (simulated ms)'),
    [tl('Yêu cầu', 'Request'), tl('Đến', 'Arrives'), tl('Sẵn sàng', 'Ready'), tl('Bắt đầu', 'Starts'), tl('Token đầu', 'First token'), 'Xong', tl('Kết quả', 'Outcome')],
    ids.map((id) => {
      const r = served.get(id);
      const rej = rejected.get(id);
      const opt = (v) => (v === null || v === undefined ? '—' : ms(v));
      if (r) return [id, ms(r.arrival), ms(r.ready), opt(r.start), opt(r.first), ms(r.finish), tl(`${r.status === 'aborted' ? 'bị hủy' : 'phục vụ'}, ${r.n} token`, `${r.status === 'aborted' ? 'cancelled' : 'served'}, ${r.n} tokens`) + (r.preemptions ? tl(`, preempt ${r.preemptions} lần`, `, preempted ${r.preemptions} times`) : '')];
      if (rej) return [id, ms(rej.arrival), '—', '—', '—', '—', CODE_TEXT[rej.code] || rej.code];
      return [id, '—', '—', '—', '—', '—', '—'];
    }));
  chart.table(tl('Các bước của bộ lập lịch', 'The scheduler\'s steps'), [tl('Bước', 'Step'), tl('Bắt đầu (ms)', 'Start (ms)'), tl('Kết thúc (ms)', 'End (ms)'), tl('Việc', 'Work')],
    steps.map((st, i) => [String(i + 1), ms(st.start), ms(st.end),
      (st.tasks || []).map((tk) => `${tk[0]} ${tk[1] === 'prefill' ? 'prefill ' + tk[2] + ' token' : 'decode'}`).join(', ')]));
  if (preemptions.length) {
    chart.altText('Preempt: ' + preemptions.map((p) => tl(`bước ${p.step} (${ms(p.time)} ms) ${p.request}, tính lại ${p.recompute} token`, `step ${p.step} (${ms(p.time)} ms) ${p.request}, recomputes ${p.recompute} tokens`)).join('; ') + '.');
  }
  return linkSteps(chart.finish(), opts);
}
