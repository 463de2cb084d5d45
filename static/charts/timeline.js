// timeline (block 3): simulated time on x, one lane per request (REQUESTS order). Each step's prefill
// chunk (hatched, "p5") and decode (solid, "d") is a box; arrival ○, ready |, first token ◆ and finish ■
// are marked; refused requests (429/400) show ✕ with their code; preemptions show a ⏸ badge; a request
// aborted by its client (cancel_at, status "aborted") ends with ✕ at the abort and has no ◆ without a token.
// One draw helper per layer (time axis, lanes: waits, step boxes, markers, preemptions; text alternative).
// Leaves out: the figure, legend and marks' hover (figure.js, marks.js) and the selected step (step-link.js).
import { ChartBuilder, rowsShown } from './figure.js';
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

const CODE_TEXT = byLang(() => ({
  429: t('chart.timeline.x429RejectedGateway'), 400: t('chart.timeline.x400BlockedDuringInput'),
}));

// The layout the layers share: the requests' lanes (REQUESTS order), the time range (to the last step,
// finish or arrival; at least 1 ms) and the x scale; a short step gets at least MIN_STEP_PX (the drawing
// then scrolls sideways, up to 6000 px).
function layout(data, report, chart) {
  const b11 = blockData(report, 11) || {};
  const steps = logItems(report); // the run log: one item per step (start, end, tasks)
  const served = new Map((b11.requests || []).map((r) => [String(r.id), r]));
  const rejected = new Map((b11.rejected || []).map((r) => [String(r.id), r]));
  const trace = (report.config && report.config.REQUESTS) || [];
  let end = 0;
  for (const st of steps) end = Math.max(end, st.end);
  for (const r of served.values()) end = Math.max(end, r.finish || 0, r.arrival || 0);
  for (const r of rejected.values()) end = Math.max(end, r.arrival || 0);
  for (const r of trace) end = Math.max(end, r.arrival || 0);
  end = Math.max(end, 1000);
  const shortest = Math.max(1, Math.min(...steps.map((st) => st.end - st.start)));
  const minPlot = steps.length ? (end / shortest) * MIN_STEP_PX : 0;
  const width = Math.max(chart.width, Math.min(LEFT + RIGHT + minPlot, 6000));
  const allIds = trace.length ? trace.map((r) => String(r.id)) : [...served.keys(), ...rejected.keys()];
  const ids = rowsShown(allIds, (id) => id, report.follow && report.follow.id);
  return {
    chart, steps, served, rejected, trace, ids, allIds, end, width,
    preemptions: Array.isArray(data.preemptions) ? data.preemptions : [],
    follow: report.follow && report.follow.id,
    colourOf: requestColours(report),
    plotRight: width - RIGHT,
    x: linear(0, end, LEFT + 4, width - RIGHT),
    height: TOP + ids.length * LANE + AXIS,
    axisY: TOP + ids.length * LANE + 2,
    stepNo: new Map(steps.map((st, i) => [st, i + 1])),
  };
}

const STEP_LINES = 400; // steps up to which each step's start is a faint dashed line, and each task a mark
// The requests given a lane: figure.js rowsShown (all of them up to MAX_ROWS; beyond, the first MAX_ROWS in REQUESTS
// order with the followed request kept; the note under the caption says so).

// ── legend ───────────────────────────────────────────────────────────────────
function legendItems(k) {
  const aborted = [...k.served.values()].some((r) => r.status === 'aborted');
  return [
    { label: t('chart.timeline.prefillStripedP55'), draw: swatches.box('#0072B2', 'hatch') },
    { label: t('chart.timeline.decodeSolidD'), draw: swatches.box('#0072B2') },
    { label: t('chart.timeline.arrives'), draw: swatches.shape((x, y) => glyphs.circle(x, y)) },
    { label: t('chart.timeline.ready'), draw: swatches.shape((x, y) => glyphs.tick(x, y)) },
    { label: t('chart.timeline.waitingSlot'), draw: swatches.line('#4a5260', '3 3') },
    { label: t('chart.timeline.firstToken'), draw: swatches.shape((x, y) => glyphs.diamond(x, y)) },
    { label: t('chart.timeline.finishes'), draw: swatches.shape((x, y) => glyphs.square(x, y)) },
    { label: aborted ? t('chart.timeline.rejected429400') : t('chart.timeline.rejected4294002'),
      draw: swatches.shape((x, y) => glyphs.cross(x, y)) },
    { label: 'preempt', draw: swatches.shape((x, y) => glyphs.pause(x, y)) },
  ];
}

// The drawing's accessible label: steps, time, requests served and refused, preemptions.
function summary(k) {
  const { rejected, preemptions } = k;
  const refused = [...rejected.values()].map((r) => t('chart.timeline.gotCode', { id: r.id, code: r.code }));
  const preempted = preemptions.map((p) => t('chart.timeline.atStep', { request: p.request, step: p.step }));
  const nSteps = k.steps.length;
  return t('chart.timeline.timelineStepsSimulated', { nSteps, end: ms(k.end), nServed: k.served.size }) +
    (rejected.size ? t('chart.timeline.rejectedList', { list: refused.join(', ') }) : '') +
    (preemptions.length
      ? t('chart.timeline.preemptionList', { n: preemptions.length, list: preempted.join(', ') })
      : t('chart.timeline.noPreemption')) +
    '.';
}

// ── time grid, faint step boundaries, the step columns and the time axis ──────
function drawTimeAxis(svg, k) {
  const { steps, x, axisY, plotRight } = k;
  const grid = ticks(0, k.end / 1000, Math.max(2, Math.floor((plotRight - LEFT) / 70)));
  svg.append(xGrid((v) => x(v * 1000), TOP, axisY, grid.values));
  const stepLines = s('g', { class: 'grid', 'aria-hidden': 'true' });
  // a faint line per step boundary up to STEP_LINES steps; beyond, they would fill the frame (issue 39)
  for (const st of steps.length <= STEP_LINES ? steps : []) {
    stepLines.append(s('line',
      { x1: round(x(st.start)), x2: round(x(st.start)), y1: TOP, y2: axisY, 'stroke-dasharray': '2 3' }));
  }
  svg.append(stepLines);
  svg.append(stepColumns(steps.map((st) => [x(st.start), x(st.end) - x(st.start)]), TOP, axisY - TOP));
  const scaleMs = (v) => x(v * 1000);
  scaleMs.domain = [0, k.end / 1000];
  svg.append(xAxis(scaleMs, axisY, grid.values, (v) => String(v), t('chart.timeline.simulatedTimeMs'),
    (LEFT + plotRight) / 2));
}

// ── one lane per request ─────────────────────────────────────────────────────
function drawLane(svg, k, id, lane, preemptBy) {
  const y0 = TOP + lane * LANE;
  const mid = y0 + LANE / 2;
  const g = s('g', { class: 'lane', 'data-request': id });
  svg.append(g);
  if (id === k.follow) {
    g.append(s('rect', { x: 0, y: y0 + 1, width: k.width, height: LANE - 2, fill: '#fff4d6', class: 'follow-band' }));
  }
  g.append(text(LEFT - 8, mid + 4.5, (id === k.follow ? '▸' : '') + id, { 'text-anchor': 'end', class: 'lane-label' }));
  if (lane > 0) g.append(s('line', { x1: 0, x2: k.width, y1: y0, y2: y0, stroke: '#e3e6ea' }));
  const rej = k.rejected.get(id);
  const req = k.served.get(id);
  if (rej) drawRefused(g, k, id, rej, mid);
  else if (!req) g.append(text(LEFT + 6, mid + 4, t('chart.timeline.noData'), { class: 'muted' }));
  else drawServed(g, k, id, req, y0, preemptBy.get(id) || []);
}

// A request refused at arrival: ✕ with its code, the words beside it.
function drawRefused(g, k, id, rej, mid) {
  const cx = k.x(rej.arrival);
  const info = CODE_TEXT()[rej.code] || (t('chart.timeline.rejected', { code: rej.code }));
  const labelText = (id === k.follow ? t('chart.timeline.followedRequest') : '') + info;
  const hit = s('rect', { x: round(cx - 8), y: round(mid - 8), width: 16, height: 16, fill: 'transparent' });
  const mk = k.chart.mark(s('g', { class: 'refused', 'data-code': rej.code }, hit, glyphs.cross(cx, mid)),
    t('chart.timeline.arrivesMsNotServed', { id, arrival: ms(rej.arrival), info }));
  g.append(mk);
  // beside the cross, right if it fits, else left; shorter words when neither side has room
  const place = [labelText, info, String(rej.code)].map((label) => [label, textWidth(label, 12, true)])
    .map(([label, tw]) => [label, tw, cx + 10 + tw <= k.width - 2 ? 'start' : cx - 10 - tw >= 2 ? 'end' : null])
    .find(([, , anchor]) => anchor) || [String(rej.code), 0, 'start'];
  const [words, , anchor] = place;
  g.append(text(anchor === 'start' ? cx + 10 : cx - 10, mid + 4, words, { 'text-anchor': anchor, class: 'strong' }));
}

// A served request: its prep and waiting lines, then its marks (the lane head with the whole story first in
// keyboard order, then step boxes, markers and preemptions sorted by x).
function drawServed(g, k, id, req, y0, myPreempts) {
  const mid = y0 + LANE / 2;
  drawWaits(g, k, req, mid);
  const dense = k.steps.length > STEP_LINES;
  if (dense) g.append(taskPaths(k, id, mid, myPreempts));
  const marks = [ // [x, element, detail] sorted by x for keyboard order
    ...(dense ? [] : taskMarks(k, id, mid, myPreempts)),
    ...pointMarks(k, id, req, mid),
    ...myPreempts.map((p) => preemptMark(k, p, y0)),
  ];
  marks.sort((a, b) => a[0] - b[0]);
  const labelHit = s('g', { class: 'lane-head' },
    s('rect', { x: 0, y: y0 + 2, width: LEFT - 4, height: LANE - 4, fill: 'transparent' }));
  g.append(k.chart.mark(labelHit, story(k, id, req, myPreempts)));
  for (const [, el, detail] of marks) g.append(k.chart.mark(el, detail));
}

function isAborted(req) { return req.status === 'aborted'; }

function absent(v) { return v === null || v === undefined; }

// prep (arrival -> ready) solid, waiting for a slot (ready -> start) dashed
function drawWaits(g, k, req, mid) {
  const { x } = k;
  if (req.ready > req.arrival) {
    g.append(s('line', {
      x1: round(x(req.arrival)), x2: round(x(req.ready)), y1: mid, y2: mid, stroke: '#4a5260', 'stroke-width': 2.5,
    }));
  }
  const waitEnd = absent(req.start) ? (isAborted(req) ? req.finish : req.ready) : req.start;
  if (waitEnd > req.ready) {
    g.append(s('line', {
      x1: round(x(req.ready)), x2: round(x(waitEnd)), y1: mid, y2: mid,
      stroke: '#4a5260', 'stroke-width': 1.5, 'stroke-dasharray': '3 3',
    }));
  }
}

// The request's step boxes: prefill hatched with "p<n>", decode solid with "d"; faint when a later preemption
// dropped the KV they built.
function taskMarks(k, id, mid, myPreempts) {
  const marks = [];
  for (const st of k.steps) {
    for (const task of st.tasks || []) {
      if (String(task[0]) !== id) continue;
      const bx = k.x(st.start);
      const bw = Math.max(1, k.x(st.end) - bx);
      const lost = myPreempts.find((p) => p.time > st.start);
      const box = taskBox(k, id, task, bx, bw, mid, lost, k.stepNo.get(st));
      const what = task[1] === 'prefill' ? `prefill ${task[2]} token prompt` : 'decode 1 token';
      const lostText = lost ? t('chart.timeline.kVDroppedWhenPreempted', { id, time: ms(lost.time) }) : '';
      const detail = t('chart.timeline.stepMs',
        { stepNo: k.stepNo.get(st), start: ms(st.start), end: ms(st.end), id, what, lostText });
      marks.push([bx, box, detail]);
    }
  }
  return marks;
}

// Over STEP_LINES steps: the request's step boxes as one path per look (prefill hatched, decode solid, faint where a
// later preemption dropped their KV), no mark per task (issue 39: a lane of a 16,000-step run would hold thousands);
// the lane head's story, the markers and the step columns (a click selects the step under it) stay.
function taskPaths(k, id, mid, myPreempts) {
  const { colour } = k.colourOf(id);
  const paths = new Map(); // `${phase}:${lost}` -> path data
  for (const st of k.steps) {
    for (const task of st.tasks || []) {
      if (String(task[0]) !== id) continue;
      const bx = round(k.x(st.start) + 0.5);
      const bw = round(Math.max(1, k.x(st.end) - k.x(st.start) - 1));
      const key = `${task[1]}:${myPreempts.some((p) => p.time > st.start) ? 1 : 0}`;
      paths.set(key, (paths.get(key) || '') + `M${bx} ${round(mid - BOX / 2)}h${bw}v${BOX}h${-bw}z`);
    }
  }
  const g = s('g', { class: 'tasks is-dense', 'aria-hidden': 'true' });
  for (const [key, d] of paths) {
    const [phase, lost] = key.split(':');
    g.append(s('path', { d, fill: colour, 'fill-opacity': lost === '1' ? 0.45 : 1, 'data-phase': phase }));
    if (phase === 'prefill') g.append(s('path', { d, fill: k.chart.hatchFor(colour) }));
  }
  return g;
}

function taskBox(k, id, [, phase, n], bx, bw, mid, lost, stepNo) {
  const { colour } = k.colourOf(id);
  const box = s('g', { class: 'task', 'data-phase': phase, 'data-step': stepNo });
  const place = { x: round(bx + 0.5), y: round(mid - BOX / 2), width: round(Math.max(1, bw - 1)), height: BOX };
  box.append(s('rect',
    { ...place, fill: colour, stroke: '#1b1f24', 'stroke-width': 0.7, 'fill-opacity': lost ? 0.45 : 1 }));
  if (phase === 'prefill') box.append(s('rect', { ...place, fill: k.chart.hatchFor(colour) }));
  const lab = phase === 'prefill' ? 'p' + n : 'd';
  if (textWidth(lab, 11, true) + 4 <= bw) {
    // a halo in the box colour keeps the label readable over the hatch
    box.append(text(bx + bw / 2, mid + 4, lab, {
      'text-anchor': 'middle', class: 'in-box ' + (lost ? 'ink-dark' : inkClass(colour)),
      stroke: lost ? '#ffffff' : colour, 'stroke-width': 3, 'paint-order': 'stroke', 'stroke-linejoin': 'round',
    }));
  }
  return box;
}

function ttftText(req) {
  return absent(req.ttft) ? t('chart.timeline.cancelledBeforeFirst')
    : t('chart.timeline.ttftMsPreparationWait',
      { ttft: ms(req.ttft), prep: ms(req.prep), queue: ms(req.queue), prefill: ms(req.prefill) });
}

// arrival ○, ready |, first token ◆, finish ■ (or ✕ where its client aborted it)
function pointMarks(k, id, req, mid) {
  const { x } = k;
  const spec = k.trace.find((r) => String(r.id) === id) || {};
  const marks = [];
  marks.push([x(req.arrival) - 0.3, glyphs.circle(x(req.arrival), mid),
    t('chart.timeline.arrivesMs', { id, arrival: ms(req.arrival), text: spec.text ? ` (“${spec.text}”)` : '' })]);
  const started = absent(req.start) ? t('chart.timeline.neverStartedRunning')
    : req.start > req.ready ? t('chart.timeline.waitsSlotUntilMs', { start: ms(req.start), queue: ms(req.queue) })
      : t('chart.timeline.startsRunningOnce');
  marks.push([x(req.ready) - 0.2, glyphs.tick(x(req.ready), mid),
    t('chart.timeline.readyMsInput', { id, ready: ms(req.ready), prep: ms(req.prep), started })]);
  if (!absent(req.first)) {
    marks.push([x(req.first) + 0.1, glyphs.diamond(x(req.first), mid - BOX / 2 + 2),
      t('chart.timeline.getsFirstTokenMs', { id, first: ms(req.first), ttftText: ttftText(req) })]);
  }
  if (isAborted(req)) {
    marks.push([x(req.finish) + 0.2, glyphs.cross(x(req.finish), mid, { class: 'aborted' }),
      t('chart.timeline.cancelledClientCancel',
        { id, cancel_at: ms(req.cancel_at), finish: ms(req.finish), n: req.n })]);
  } else {
    marks.push([x(req.finish) + 0.2, glyphs.square(x(req.finish), mid),
      t('chart.timeline.finishesMsAfterTokens', { id, finish: ms(req.finish), n: req.n, e2e: ms(req.e2e) })]);
  }
  return marks;
}

// a preemption: a dashed line across the lane and a ⏸ badge at its top
function preemptMark(k, p, y0) {
  const px = k.x(p.time);
  const badge = glyphs.pause(px, y0 + 7, { class: 'preempt', 'data-step': p.step });
  const line = s('line', {
    x1: round(px), x2: round(px), y1: y0 + 2, y2: y0 + LANE - 2,
    stroke: '#000000', 'stroke-width': 1.5, 'stroke-dasharray': '2 2',
  });
  const kept = p.blocks && p.blocks.length
    ? t('chart.timeline.freesBlocks', { blocks: p.blocks.join(', ') })
    : t('chart.timeline.heldNoBlockYet');
  const detail = t('chart.timeline.preemptStepMsOutFreeKv',
    { step: p.step, time: ms(p.time), request: p.request, kept, recompute: p.recompute });
  return [px, s('g', { class: 'preemption', 'data-step': p.step }, line, badge), detail];
}

// The lane head's words: the request's whole story.
function story(k, id, req, myPreempts) {
  const followed = id === k.follow ? t('chart.timeline.followedMark') : '';
  const end = isAborted(req) ? t('chart.timeline.cancelled') : t('chart.timeline.finishes');
  return t('chart.timeline.storyStart', { id, followed, arrival: ms(req.arrival), ready: ms(req.ready) }) +
    (absent(req.start) ? '' : t('chart.timeline.starts', { start: ms(req.start) })) +
    (absent(req.first) ? '' : t('chart.timeline.firstToken2', { first: ms(req.first) })) +
    t('chart.timeline.storyEnd', { end, finish: ms(req.finish), ttftText: ttftText(req) }) +
    (myPreempts.length ? t('chart.timeline.preemptedTimes', { nMyPreempts: myPreempts.length }) : '.');
}

// ── text alternative: the requests' times, the scheduler's steps, the preemptions ──
function textAlternative(k) {
  const { chart, preemptions } = k;
  chart.table(t('chart.timeline.requestsTimeline'), [
    t('chart.timeline.request'), t('chart.timeline.arrives2'), t('chart.timeline.ready2'), t('chart.timeline.starts2'),
    t('chart.timeline.firstToken3'), t('chart.timeline.finished'), t('chart.timeline.outcome'),
  ], k.allIds.map((id) => requestRow(k, id)));
  chart.table(t('chart.timeline.schedulerSSteps'),
    [t('chart.timeline.step'), t('chart.timeline.startMs'), t('chart.timeline.endMs'), t('chart.timeline.work')],
    k.steps.map((st, i) => [String(i + 1), ms(st.start), ms(st.end), (st.tasks || []).map(taskWords).join(', ')]));
  if (preemptions.length) {
    const each = preemptions.map((p) => t('chart.timeline.stepMsRecomputesTokens',
      { step: p.step, time: ms(p.time), request: p.request, recompute: p.recompute }));
    chart.altText('Preempt: ' + each.join('; ') + '.');
  }
}

function taskWords([id, phase, n]) { return `${id} ${phase === 'prefill' ? 'prefill ' + n + ' token' : 'decode'}`; }

function requestRow(k, id) {
  const r = k.served.get(id);
  const rej = k.rejected.get(id);
  const opt = (v) => (absent(v) ? '—' : ms(v));
  if (r) {
    const status = isAborted(r) ? t('chart.timeline.cancelled') : t('chart.timeline.served');
    const outcome = t('chart.timeline.outcomeCell', { status, n: r.n }) +
      (r.preemptions ? t('chart.timeline.preemptedTimes2', { preemptions: r.preemptions }) : '');
    return [id, ms(r.arrival), ms(r.ready), opt(r.start), opt(r.first), ms(r.finish), outcome];
  }
  if (rej) return [id, ms(rej.arrival), '—', '—', '—', '—', CODE_TEXT()[rej.code] || rej.code];
  return [id, '—', '—', '—', '—', '—', '—'];
}

export function render(data, report, opts = {}) {
  const chart = new ChartBuilder(NAME, t('chart.timeline.timelineOneLanePer'), opts.width);
  const k = layout(data, report, chart);
  chart.legend(legendItems(k));
  if (k.ids.length < k.allIds.length) {
    chart.note(t('chart.timeline.lanesShown', { shown: k.ids.length, total: k.allIds.length }));
  }
  const svg = chart.svg(k.width, k.height, summary(k));
  drawTimeAxis(svg, k);
  const preemptBy = new Map();
  for (const p of k.preemptions) {
    if (!preemptBy.has(String(p.request))) preemptBy.set(String(p.request), []);
    preemptBy.get(String(p.request)).push(p);
  }
  k.ids.forEach((id, lane) => drawLane(svg, k, id, lane, preemptBy));
  textAlternative(k);
  return linkSteps(chart.finish(), opts);
}
