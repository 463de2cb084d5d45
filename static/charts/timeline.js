// timeline (block 3): simulated time on x, one lane per request (REQUESTS order). Each step's prefill
// chunk (hatched, "p5") and decode (solid, "d") is a box; arrival ○, ready |, first token ◆ and finish ■
// are marked; refused requests (429/400) show ✕ with their code; preemptions show a ⏸ badge; a request
// aborted by its client (cancel_at, status "aborted") ends with ✕ at the abort and has no ◆ without a token.
import { ChartBuilder } from './figure.js';
import { glyphs, round, s, swatches, text } from './svg.js';
import { textWidth } from './text-fit.js';
import { linear, ms, stepColumns, ticks, xAxis, xGrid } from './axes.js';
import { inkClass, requestColours } from './colours.js';
import { blockData } from './report-data.js';
import { linkSteps } from './step-link.js';
import { logItems } from '../core/run-log.js';
import { byLang, t } from '../words/i18n.js';

export const NAME = 'timeline';

const LANE = 30;       // px per lane
const BOX = 18;        // box height
const LEFT = 34;       // lane labels
const RIGHT = 14;
const TOP = 6;
const AXIS = 44;       // tick labels + axis title
const MIN_STEP_PX = 5; // below this the drawing scrolls sideways

const CODE_TEXT = byLang(() => ({ 429: t('chart.timeline.x429RejectedGateway'), 400: t('chart.timeline.x400BlockedDuringInput') }));

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

  const chart = new ChartBuilder(NAME, t('chart.timeline.timelineOneLanePer'), opts.width);
  chart.legend([
    { label: t('chart.timeline.prefillStripedP55'), draw: swatches.box('#0072B2', 'hatch') },
    { label: t('chart.timeline.decodeSolidD'), draw: swatches.box('#0072B2') },
    { label: t('chart.timeline.arrives'), draw: swatches.shape((x, y) => glyphs.circle(x, y)) },
    { label: t('chart.timeline.ready'), draw: swatches.shape((x, y) => glyphs.tick(x, y)) },
    { label: t('chart.timeline.waitingSlot'), draw: swatches.line('#4a5260', '3 3') },
    { label: t('chart.timeline.firstToken'), draw: swatches.shape((x, y) => glyphs.diamond(x, y)) },
    { label: t('chart.timeline.finishes'), draw: swatches.shape((x, y) => glyphs.square(x, y)) },
    { label: [...served.values()].some((r) => r.status === 'aborted') ? t('chart.timeline.rejected429400') : t('chart.timeline.rejected4294002'),
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
  const shortest = Math.max(1, Math.min(...steps.map((st) => st.end - st.start)));
  const minPlot = steps.length ? (end / shortest) * MIN_STEP_PX : 0;
  const width = Math.max(chart.width, Math.min(LEFT + RIGHT + minPlot, 6000));
  const plotRight = width - RIGHT;
  const x = linear(0, end, LEFT + 4, plotRight);
  const height = TOP + ids.length * LANE + AXIS;
  const axisY = TOP + ids.length * LANE + 2;

  const nServed = served.size;
  const summary = t('chart.timeline.timelineStepsSimulated', { nSteps: steps.length, end: ms(end), nServed }) +
    (rejected.size ? t('chart.timeline.rejectedList', { list: [...rejected.values()].map((r) => t('chart.timeline.gotCode', { id: r.id, code: r.code })).join(', ') }) : '') +
    (preemptions.length ? t('chart.timeline.preemptionList', { n: preemptions.length, list: preemptions.map((p) => t('chart.timeline.atStep', { request: p.request, step: p.step })).join(', ') }) : t('chart.timeline.noPreemption')) + '.';
  const svg = chart.svg(width, height, summary);

  const grid = ticks(0, end / 1000, Math.max(2, Math.floor((plotRight - LEFT) / 70)));
  svg.append(xGrid((v) => x(v * 1000), TOP, axisY, grid.values));
  // step boundaries, faint
  const stepLines = s('g', { class: 'grid', 'aria-hidden': 'true' });
  for (const st of steps) stepLines.append(s('line', { x1: round(x(st.start)), x2: round(x(st.start)), y1: TOP, y2: axisY, 'stroke-dasharray': '2 3' }));
  svg.append(stepLines);
  svg.append(stepColumns(steps.map((st) => [x(st.start), x(st.end) - x(st.start)]), TOP, axisY - TOP));
  const scaleMs = (v) => x(v * 1000);
  scaleMs.domain = [0, end / 1000];
  svg.append(xAxis(scaleMs, axisY, grid.values, (v) => String(v), t('chart.timeline.simulatedTimeMs'), (LEFT + plotRight) / 2));

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
      const info = CODE_TEXT()[rej.code] || (t('chart.timeline.rejected', { code: rej.code }));
      const labelText = (id === follow ? t('chart.timeline.followedRequest') : '') + info;
      const mk = chart.mark(s('g', { class: 'refused', 'data-code': rej.code }, s('rect', { x: round(cx - 8), y: round(mid - 8), width: 16, height: 16, fill: 'transparent' }), glyphs.cross(cx, mid)),
        t('chart.timeline.arrivesMsNotServed', { id, arrival: ms(rej.arrival), info }));
      g.append(mk);
      // beside the cross, right if it fits, else left; shorter words when neither side has room
      const place = [labelText, info, String(rej.code)].map((label) => [label, textWidth(label, 12, true)])
        .map(([label, tw]) => [label, tw, cx + 10 + tw <= width - 2 ? 'start' : cx - 10 - tw >= 2 ? 'end' : null])
        .find(([, , anchor]) => anchor) || [String(rej.code), 0, 'start'];
      g.append(text(place[2] === 'start' ? cx + 10 : cx - 10, mid + 4, place[0], { 'text-anchor': place[2], class: 'strong' }));
      return;
    }
    if (!req) {
      g.append(text(LEFT + 6, mid + 4, t('chart.timeline.noData'), { class: 'muted' }));
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
        const lostText = lost ? t('chart.timeline.kVDroppedWhenPreempted', { id, time: ms(lost.time) }) : '';
        marks.push([bx, box, t('chart.timeline.stepMs', { stepNo: stepNo.get(st), start: ms(st.start), end: ms(st.end), id, what, lostText })]);
      }
    }
    // markers
    const ttftText = req.ttft === null || req.ttft === undefined ? t('chart.timeline.cancelledBeforeFirst')
      : t('chart.timeline.ttftMsPreparationWait', { ttft: ms(req.ttft), prep: ms(req.prep), queue: ms(req.queue), prefill: ms(req.prefill) });
    marks.push([x(req.arrival) - 0.3, glyphs.circle(x(req.arrival), mid), t('chart.timeline.arrivesMs', { id, arrival: ms(req.arrival), text: spec.text ? ` (“${spec.text}”)` : '' })]);
    const started = req.start === null || req.start === undefined ? t('chart.timeline.neverStartedRunning')
      : req.start > req.ready ? t('chart.timeline.waitsSlotUntilMs', { start: ms(req.start), queue: ms(req.queue) }) : t('chart.timeline.startsRunningOnce');
    marks.push([x(req.ready) - 0.2, glyphs.tick(x(req.ready), mid), t('chart.timeline.readyMsInput', { id, ready: ms(req.ready), prep: ms(req.prep), started })]);
    if (req.first !== null && req.first !== undefined) {
      marks.push([x(req.first) + 0.1, glyphs.diamond(x(req.first), mid - BOX / 2 + 2), t('chart.timeline.getsFirstTokenMs', { id, first: ms(req.first), ttftText })]);
    }
    if (aborted) {
      marks.push([x(req.finish) + 0.2, glyphs.cross(x(req.finish), mid, { class: 'aborted' }), t('chart.timeline.cancelledClientCancel', { id, cancel_at: ms(req.cancel_at), finish: ms(req.finish), n: req.n })]);
    } else {
      marks.push([x(req.finish) + 0.2, glyphs.square(x(req.finish), mid), t('chart.timeline.finishesMsAfterTokens', { id, finish: ms(req.finish), n: req.n, e2e: ms(req.e2e) })]);
    }
    for (const p of myPreempts) {
      const px = x(p.time);
      const badge = glyphs.pause(px, y0 + 7, { class: 'preempt', 'data-step': p.step });
      const line = s('line', { x1: round(px), x2: round(px), y1: y0 + 2, y2: y0 + LANE - 2, stroke: '#000000', 'stroke-width': 1.5, 'stroke-dasharray': '2 2' });
      const kept = p.blocks && p.blocks.length ? t('chart.timeline.freesBlocks', { blocks: p.blocks.join(', ') }) : t('chart.timeline.heldNoBlockYet');
      const detail = t('chart.timeline.preemptStepMsOutFreeKv', { step: p.step, time: ms(p.time), request: p.request, kept, recompute: p.recompute });
      const group = s('g', { class: 'preemption', 'data-step': p.step }, line, badge);
      marks.push([px, group, detail]);
    }
    marks.sort((a, b) => a[0] - b[0]);
    // lane label first in keyboard order: the request's whole story
    const story = t('chart.timeline.storyStart', { id, followed: id === follow ? t('chart.timeline.followedMark') : '', arrival: ms(req.arrival), ready: ms(req.ready) }) +
      (req.start === null || req.start === undefined ? '' : t('chart.timeline.starts', { start: ms(req.start) })) +
      (req.first === null || req.first === undefined ? '' : t('chart.timeline.firstToken2', { first: ms(req.first) })) +
      t('chart.timeline.storyEnd', { end: aborted ? t('chart.timeline.cancelled') : t('chart.timeline.finishes'), finish: ms(req.finish), ttftText }) +
      (myPreempts.length ? t('chart.timeline.preemptedTimes', { nMyPreempts: myPreempts.length }) : '.');
    const labelHit = s('g', { class: 'lane-head' }, s('rect', { x: 0, y: y0 + 2, width: LEFT - 4, height: LANE - 4, fill: 'transparent' }));
    g.append(chart.mark(labelHit, story));
    for (const [, el, detail] of marks) g.append(chart.mark(el, detail));
  });


  // text alternative
  chart.table(t('chart.timeline.requestsTimeline'),
    [t('chart.timeline.request'), t('chart.timeline.arrives2'), t('chart.timeline.ready2'), t('chart.timeline.starts2'), t('chart.timeline.firstToken3'), t('chart.timeline.finished'), t('chart.timeline.outcome')],
    ids.map((id) => {
      const r = served.get(id);
      const rej = rejected.get(id);
      const opt = (v) => (v === null || v === undefined ? '—' : ms(v));
      if (r) return [id, ms(r.arrival), ms(r.ready), opt(r.start), opt(r.first), ms(r.finish), t('chart.timeline.outcomeCell', { status: r.status === 'aborted' ? t('chart.timeline.cancelled') : t('chart.timeline.served'), n: r.n }) + (r.preemptions ? t('chart.timeline.preemptedTimes2', { preemptions: r.preemptions }) : '')];
      if (rej) return [id, ms(rej.arrival), '—', '—', '—', '—', CODE_TEXT()[rej.code] || rej.code];
      return [id, '—', '—', '—', '—', '—', '—'];
    }));
  chart.table(t('chart.timeline.schedulerSSteps'), [t('chart.timeline.step'), t('chart.timeline.startMs'), t('chart.timeline.endMs'), t('chart.timeline.work')],
    steps.map((st, i) => [String(i + 1), ms(st.start), ms(st.end),
      (st.tasks || []).map((tk) => `${tk[0]} ${tk[1] === 'prefill' ? 'prefill ' + tk[2] + ' token' : 'decode'}`).join(', ')]));
  if (preemptions.length) {
    chart.altText('Preempt: ' + preemptions.map((p) => t('chart.timeline.stepMsRecomputesTokens', { step: p.step, time: ms(p.time), request: p.request, recompute: p.recompute })).join('; ') + '.');
  }
  return linkSteps(chart.finish(), opts);
}
