// The step navigator (a tool of static/core/lab-api.js): scrub the scheduler's steps of the last run in
// block [3]'s panel and see, at each step, who runs and who waits (and why), how the token budget was
// split (decodes first, then prompt chunks), which physical KV block each request holds, what is free,
// and the step's decisions in the engine's own Vietnamese sentences with their reasons.
// - The slider follows the WAI-ARIA slider pattern (role="slider", data-step-slider): arrows ±1,
//   PageUp/PageDown the previous/next step with an event, Home/End; aria-valuetext "Bước 8/12: …".
//   Lùi / Tiếp buttons; Phát / Dừng plays forward and stops by itself at the last step (slower and
//   without animation under prefers-reduced-motion).
// - The view (data-step-view) is drawn from report.steps (py/inference_lab/core/serving/run_log.py); scrubbing never
//   calls Python. Only what changed is redrawn (the KV map keeps its cells, or its canvas over 64
//   blocks), so a step change stays within a frame on a 1,000-step run (bench/steps_bench.py).
// - The selected step is page state (lab.step() / lab.selectStep(), static/core/lab-api.js): this view, the
//   timeline (block [3]) and the KV chart (block [6]) follow it (charts/step-link.js); clicking a step on
//   them selects it. Blocks [6] and [11] get a link that opens and focuses the navigator.
// - ?step=N rides in the page address (this tool's view part of it, registered with lab.address) and
//   selects step N after the run.
// The drawing of a step: static/tools/step-view.js. Everything from the engine goes in with textContent.
// Arithmetic: static/core/run-log.js (pure).
// The navigator's state is one object (`sn`) that the functions below take explicitly.

import { make } from '../core/dom.js';
import { versioned } from '../core/versioned.js';
import { clampStep, eventSteps, stepFromSearch, targetStep } from '../core/run-log.js';
import { drawPending, drawView, makeView, valueText } from './step-view.js';
import { t } from '../words/i18n.js';

const PLAY_MS = 900;
const PLAY_MS_REDUCED = 1800;
const ADDRESS_MS = 250;
const TICKS = 1000;     // places on the slider's track an event tick can take
const reducedMotion = () => window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;

export function init(lab) {
  loadCss();
  const sn = {
    lab,
    record: null,                       // report.steps of the shown run
    config: {},                         // report.config of the shown run (the constants: their one place)
    colours: () => ({ colour: '#7F7F7F' }),
    inkOn: () => '#ffffff',
    timer: null,                        // Play's interval
    pendingStep: null,                  // ?step=N of the opened address, until the run it names is shown
    stepView: null,                     // the drawn run's view (static/tools/step-view.js makeView)
    details: new Map(),                 // step -> its whole item fetched from the worker (a long run; the last few)
    asked: new Set(),                   // steps asked for and not yet answered
    ui: null,
  };
  sn.ui = buildUi(sn);
  lab.address.register('step', {
    view: true,
    apply: (values) => { sn.pendingStep = values.length ? stepFromSearch('?step=' + encodeURIComponent(values[values.length - 1]), Infinity) : null; },
  });
  lab.on('result', (result) => onResult(sn, result));
  lab.on('step', (step, opts) => {
    if (!hasSteps(sn)) return;
    show(sn, clampStep(step, sn.record.items.length), opts || {});
  });
  return {
    select: (n) => select(sn, n),
    current: () => now(sn),
    count: () => (sn.record ? sn.record.items.length : 0),
    focus: () => focusNav(sn),
  };
}

// The GPU and shadow model block [10] reports (name, dense peak FLOP/s at ACT_BITS, bandwidth), or null.
function gpuOf(report) {
  const block = ((report && report.blocks) || []).find((b) => Number(b.number) === 10);
  const sh = block && block.data && block.data.shadow;
  if (!(sh && sh.peak > 0 && sh.bandwidth > 0)) return null;
  return { gpu: sh.gpu, model: sh.model, peak: sh.peak, bandwidth: sh.bandwidth };
}

const now = (sn) => sn.lab.step(); // the selected step, 1-based (0: no step): page state
const hasSteps = (sn) => Boolean(sn.record && sn.record.items.length);

async function onResult(sn, result) {
  stop(sn);
  const report = result && result.report;
  // the charts and their request colours (lab.charts(): loaded on the first run, not with the page)
  const charts = await sn.lab.charts();
  if (sn.lab.disposed()) return; // the language was switched meanwhile: the new page's steps tool shows the run
  if (charts) {
    charts.connect(sn.lab); // the charts follow the selected step and report clicks through the lab API
    sn.inkOn = charts.inkOn;
    sn.colours = charts.requestColours(report);
  }
  sn.record = report && report.steps && Array.isArray(report.steps.items) ? report.steps : null;
  sn.details = new Map();
  sn.asked = new Set();
  sn.config = (report && report.config) || {};
  const b8 = ((report && report.blocks) || []).find((b) => Number(b.number) === 8);
  sn.tokens = (b8 && b8.data && b8.data.tokens) || [];   // token id -> its text (the step view's speculation)
  sn.gpu = gpuOf(report);
  placeUi(sn);
  if (!sn.record) { sn.ui.nav.hidden = true; return; }
  sn.ui.nav.hidden = false;
  const count = sn.record.items.length;
  const wanted = sn.pendingStep !== null ? clampStep(sn.pendingStep, count) : clampStep(now(sn) || 1, count);
  sn.pendingStep = null;
  resetView(sn);
  select(sn, wanted, { address: false, force: true });
}

// ── building and placing ─────────────────────────────────────────────────
function buildUi(sn) {
  const nav = make('section', { class: 'step-nav', id: 'step-nav', 'data-step-nav': '', 'aria-labelledby': 'step-nav-title', hidden: true });
  const title = make('p', { class: 'step-nav-title', id: 'step-nav-title' }, t('steps.stepThroughScheduler'));
  const slider = buildSlider();
  const buttons = buildButtons();
  const controls = make('div', { class: 'step-controls' });
  controls.append(slider.slider, buttons.buttonRow);
  const help = make('p', { class: 'step-help' },
    t('steps.keysOneStepPageup'));
  const view = make('div', { class: 'step-view', 'data-step-view': '' });
  const live = make('p', { class: 'visually-hidden', 'aria-live': 'polite' }); // the new step, when not moved by the slider's keys
  const body = make('div', { class: 'step-nav-body' });
  body.append(title, controls, help, live, view);
  nav.append(body);
  const ui = { nav, body, view, live, held: 0, heldWidth: 0, ...slider, ...buttons };
  wireUi(sn, ui);
  holdHeight(ui);
  return ui;
}

// The navigator keeps the tallest height it had so far at this width (a step with more waiting requests or
// decisions grows it; a shorter step leaves blank space under it): with that height as its size (CSS .is-held:
// contain: strict), a step change lays out and paints only inside the navigator, never the panels and tables
// below it, which on a big cluster run would be repainted on every step (bench/big_run_page.py, issue 39).
// A ResizeObserver on the body reads the height after layout (no forced layout in the key handler).
function holdHeight(ui) {
  if (typeof ResizeObserver === 'undefined') return;
  new ResizeObserver(() => {
    const box = ui.body.getBoundingClientRect();
    if (!box.width) return;                            // hidden or in a closed panel
    const style = getComputedStyle(ui.nav);   // border-box height: the body, the padding and the border
    const edges = ['paddingTop', 'paddingBottom', 'borderTopWidth', 'borderBottomWidth']
      .reduce((sum, key) => sum + (parseFloat(style[key]) || 0), 0);
    const need = Math.ceil(box.height + edges);
    const sameWidth = Math.abs(box.width - ui.heldWidth) < 1;
    if (sameWidth && need <= ui.held) return;
    ui.held = sameWidth ? Math.max(need, ui.held) : need;
    ui.heldWidth = box.width;
    ui.nav.style.setProperty('--held', ui.held + 'px');
    ui.nav.classList.add('is-held');
  }).observe(ui.body);
}

// A new run starts with the navigator's natural height again.
function releaseHeight(ui) {
  ui.held = 0;
  ui.heldWidth = 0;
  ui.nav.classList.remove('is-held');
  ui.nav.style.removeProperty('--held');
}

function buildSlider() {
  const slider = make('div', {
    class: 'step-slider', role: 'slider', tabindex: '0', 'data-step-slider': '', 'aria-labelledby': 'step-nav-title',
    'aria-valuemin': '1', 'aria-valuemax': '1', 'aria-valuenow': '1', 'aria-orientation': 'horizontal',
  });
  const track = make('div', { class: 'step-track', 'aria-hidden': 'true' });
  const ticks = make('div', { class: 'step-ticks' });
  // the thumb rides on a rail as wide as the track, moved by a transform (no layout, no repaint of the page)
  const thumb = make('div', { class: 'step-thumb-rail' });
  thumb.append(make('div', { class: 'step-thumb' }));
  track.append(ticks, thumb);
  slider.append(track);
  return { slider, ticks, thumb };
}

function buildButtons() {
  const back = make('button', { type: 'button', class: 'btn', 'data-step-action': 'back' }, t('steps.back'));
  const next = make('button', { type: 'button', class: 'btn', 'data-step-action': 'next' }, t('steps.next'));
  const play = make('button', { type: 'button', class: 'btn', 'data-step-action': 'play', 'aria-pressed': 'false' }, t('steps.play'));
  const count = make('span', { class: 'step-count', 'aria-hidden': 'true' });
  // a cluster run (items carry `replica`): Lùi / Tiếp walk one replica's steps when one is chosen here
  const replica = make('select', { class: 'step-replica', 'data-step-replica': '', 'aria-label': t('steps.replicaSelect'), hidden: true });
  const buttonRow = make('div', { class: 'step-buttons' });
  buttonRow.append(back, next, play, replica, count);
  return { buttonRow, back, next, play, replica, count };
}

function wireUi(sn, ui) {
  ui.back.addEventListener('click', () => { stop(sn); select(sn, neighbour(sn, now(sn), -1), { say: true }); });
  ui.next.addEventListener('click', () => { stop(sn); select(sn, neighbour(sn, now(sn), 1), { say: true }); });
  ui.replica.addEventListener('change', () => {
    if (!hasSteps(sn) || ui.replica.value === '') return;
    const here = sn.record.items[now(sn) - 1];
    if (!here || String(here.replica) !== ui.replica.value) select(sn, neighbour(sn, now(sn), 1, true), { say: true });
  });
  ui.play.addEventListener('click', () => (sn.timer ? stop(sn) : start(sn)));
  ui.slider.addEventListener('keydown', (ev) => onKey(sn, ev));
  ui.slider.addEventListener('pointerdown', (ev) => onPointer(sn, ev));
}

function panelOf(sn, n) {
  const section = sn.lab.sections().find((s) => s.key === String(n));
  return section && section.pre ? section.pre.closest('details') || section.pre.parentElement : null;
}

function placeUi(sn) {
  const panel = panelOf(sn, 3);
  if (!panel) return;
  const pre = panel.querySelector(':scope > pre');
  let charts = panel.querySelector(':scope > .charts');
  // the charts' container (static/charts/index.js reuses it): the navigator goes under the timeline
  if (!charts && pre) {
    charts = make('div', { class: 'charts' });
    pre.before(charts);
  }
  if (sn.ui.nav.previousElementSibling !== charts) (charts || pre).after(sn.ui.nav);
  for (const n of [6, 11]) placeJump(sn, n);
}

function placeJump(sn, n) {
  const panel = panelOf(sn, n);
  if (!panel || panel.querySelector(':scope > .step-jump')) return;
  const link = make('a', { class: 'step-jump', href: '#step-nav', 'data-step-jump': String(n) }, t('steps.stepWhoRunsWaitsWhose'));
  link.addEventListener('click', (ev) => { ev.preventDefault(); focusNav(sn); });
  panel.querySelector(':scope > summary').after(link);
}

function focusNav(sn) {
  const panel = panelOf(sn, 3);
  if (panel && 'open' in panel) panel.open = true;
  sn.ui.nav.scrollIntoView({ block: 'start', behavior: reducedMotion() ? 'auto' : 'smooth' });
  sn.ui.slider.focus({ preventScroll: true });
}

// ── selecting a step ─────────────────────────────────────────────────────
// A step is selected through the lab API (page state); show() draws it when the store says so.
function select(sn, n, opts = {}) {
  if (!hasSteps(sn)) return;
  sn.lab.selectStep(n, opts);
}

function show(sn, step, opts) {
  const { ui } = sn;
  const count = sn.record.items.length;
  const item = sn.record.items[step - 1];
  const s = ui.slider;
  s.setAttribute('aria-valuemax', String(count));
  s.setAttribute('aria-valuenow', String(step));
  s.setAttribute('aria-valuetext', valueText(item, step, count));
  ui.thumb.style.setProperty('--pos', count > 1 ? String((step - 1) / (count - 1)) : '0');
  setText(ui.count, t('steps.step', { step, count }));
  ui.back.disabled = neighbour(sn, step, -1) === step;
  ui.next.disabled = neighbour(sn, step, 1) === step;
  const whole = wholeStep(sn, step, item);
  if (whole) drawView(sn.stepView, whole, step, count);
  else drawPending(sn.stepView, item, step, count);
  if (opts.address !== false) setAddressStep(sn, step);
  ui.live.textContent = opts.say ? s.getAttribute('aria-valuetext') : '';
}

// Text that stays the same is not written again (a new text node is laid out and painted again); the live
// region above is always written (an announcement is said again).
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

// A long run's steps come titled, without their narration and what only this view reads
// (py/inference_lab/entrypoints/web.py page_item): the whole step shown is asked from the worker (step_detail) and
// drawn when it comes, if it is still the one shown. Returns the whole item when it is here (a short run's always).
const DETAILS_KEPT = 256;
function wholeStep(sn, step, item) {
  if (Array.isArray(item.text)) return item;
  if (sn.details.has(step)) return sn.details.get(step);
  if (sn.record.narration !== 'on_request' || !sn.lab.stepDetail || sn.asked.has(step)) return null;
  const record = sn.record;
  sn.asked.add(step);
  sn.lab.stepDetail(step).then((answer) => {
    if (sn.record !== record) return;               // another run is shown meanwhile
    sn.asked.delete(step);
    if (!answer || answer.n !== step) return;
    if (sn.details.size >= DETAILS_KEPT) sn.details.delete(sn.details.keys().next().value);
    sn.details.set(step, answer.item);
    if (now(sn) === step) drawView(sn.stepView, answer.item, step, record.items.length);
  });
  return null;
}

function onKey(sn, ev) {
  if (!sn.record) return;
  const to = targetStep(ev.key, now(sn), sn.record.items, sn.record.landmarks);
  if (to === null) return;
  ev.preventDefault();
  stop(sn);
  select(sn, to);
}

// The step before / after `from` (dir -1 / +1): of the replica chosen in the selector, if any (`wrap`: from the
// other end when none is left that way); `from` itself when there is none.
function neighbour(sn, from, dir, wrap = false) {
  const items = sn.record.items;
  const want = sn.ui.replica.hidden ? '' : sn.ui.replica.value;
  const ok = (k) => want === '' || String(items[k - 1].replica) === want;
  for (let k = from + dir; k >= 1 && k <= items.length; k += dir) if (ok(k)) return k;
  if (wrap) for (let k = dir > 0 ? 1 : items.length; k !== from; k += dir) if (ok(k)) return k;
  return from;
}

function fillReplicas(sn) {
  const sel = sn.ui.replica;
  const replicas = sn.record.items.map((it) => it.replica).filter((r) => r !== undefined);
  const ids = [...new Set(replicas)].sort((a, b) => a - b);
  sel.hidden = ids.length < 1;
  sel.replaceChildren(make('option', { value: '' }, t('steps.allReplicas')),
    ...ids.map((r) => make('option', { value: String(r) }, t('steps.replicaN', { n: r }))));
}

// A press on the track selects the step under it, and dragging keeps selecting.
function onPointer(sn, ev) {
  if (!sn.record || ev.button !== 0) return;
  const pick = (e) => pickAt(sn, e.clientX);
  stop(sn);
  sn.ui.slider.focus();
  pick(ev);
  const up = () => { window.removeEventListener('pointermove', pick); window.removeEventListener('pointerup', up); };
  window.addEventListener('pointermove', pick);
  window.addEventListener('pointerup', up);
}

function pickAt(sn, clientX) {
  const box = sn.ui.slider.querySelector('.step-track').getBoundingClientRect();
  const f = box.width ? (clientX - box.left) / box.width : 0;
  select(sn, 1 + Math.round(Math.min(1, Math.max(0, f)) * (sn.record.items.length - 1)));
}

// ── Play / Pause ─────────────────────────────────────────────────────────
function start(sn) {
  if (!sn.record) return;
  const last = () => sn.record.items.length;
  if (now(sn) >= last()) select(sn, 1);
  sn.ui.play.setAttribute('aria-pressed', 'true');
  sn.ui.play.textContent = t('steps.pause');
  sn.timer = setInterval(() => {
    if (now(sn) >= last()) { stop(sn); return; }
    select(sn, now(sn) + 1, { say: true });
    if (now(sn) >= last()) stop(sn);
  }, reducedMotion() ? PLAY_MS_REDUCED : PLAY_MS);
}

function stop(sn) {
  if (sn.timer) clearInterval(sn.timer);
  sn.timer = null;
  sn.ui.play.setAttribute('aria-pressed', 'false');
  setText(sn.ui.play, t('steps.play'));
}

// ── the view ─────────────────────────────────────────────────────────────
// Made once per run; select() only rewrites what a step changes.
function resetView(sn) {
  const { record, ui } = sn;
  const count = record.items.length;
  // one tick per event step, at most TICKS over the track (a 16,000-step run has thousands: issue 39, DOM size)
  const spots = new Set(eventSteps(record.items, record.landmarks)
    .map((n) => (count > 1 ? Math.round(((n - 1) / (count - 1)) * TICKS) / TICKS : 0)));
  ui.ticks.replaceChildren(...[...spots].map((pos) => {
    const tick = make('span', { class: 'step-tick' });
    tick.style.setProperty('--pos', String(pos));
    return tick;
  }));
  fillReplicas(sn);
  releaseHeight(ui);
  sn.stepView = makeView(record, sn.colours, sn.inkOn, sn.config, sn.gpu, sn.tokens);
  ui.view.replaceChildren(...sn.stepView.nodes);
}

// ── the address ──────────────────────────────────────────────────────────
// history.replaceState is slow with a long address (an edited trace): once scrubbing pauses.
function setAddressStep(sn, step) {
  sn.lab.address.set('step', step, ADDRESS_MS);
}

function loadCss() {
  if (document.querySelector('link[data-steps-css]')) return;
  const link = make('link', { rel: 'stylesheet', href: versioned('steps.css', import.meta.url), 'data-steps-css': '' });
  document.head.append(link);
}
