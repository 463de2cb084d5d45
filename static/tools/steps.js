// The step navigator (a tool of static/core/lab-api.js): scrub the scheduler's steps of the last run in
// block [3]'s panel and see, at each step, who runs and who waits (and why), how the token budget was
// split (decodes first, then prompt chunks), which physical KV block each request holds, what is free,
// and the step's decisions in the engine's own Vietnamese sentences with their reasons.
// - The slider follows the WAI-ARIA slider pattern (role="slider", data-step-slider): arrows ±1,
//   PageUp/PageDown the previous/next step with an event, Home/End; aria-valuetext "Bước 8/12: …".
//   Lùi / Tiếp buttons; Phát / Dừng plays forward and stops by itself at the last step (slower and
//   without animation under prefers-reduced-motion).
// - The view (data-step-view) is drawn from report.steps (py/inference_lab/core/steps.py); scrubbing never
//   calls Python. Only what changed is redrawn (the KV map keeps its cells, or its canvas over 64
//   blocks), so a step change stays within a frame on a 1,000-step run (bench/steps_bench.py).
// - The selected step is page state (lab.step() / lab.selectStep(), static/core/lab-api.js): this view, the
//   timeline (block [3]) and the KV chart (block [6]) follow it (charts/step-link.js); clicking a step on
//   them selects it. Blocks [6] and [11] get a link that opens and focuses the navigator.
// - ?step=N rides in the page address (this tool's view part of it, registered with lab.address) and
//   selects step N after the run.
// The drawing of a step: static/tools/step-view.js. Everything from the engine goes in with textContent. Arithmetic: static/core/run-log.js (pure).

import { make } from '../core/dom.js';
import { versioned } from '../core/versioned.js';
import { clampStep, eventSteps, stepFromSearch, targetStep } from '../core/run-log.js';
import { drawView, makeView, valueText } from './step-view.js';
import { t } from '../words/i18n.js';

const PLAY_MS = 900;
const PLAY_MS_REDUCED = 1800;
const ADDRESS_MS = 250;
const reducedMotion = () => window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;

export function init(lab) {
  loadCss();
  let record = null;        // report.steps of the shown run
  let config = {};          // report.config of the shown run (the constants: their one place)
  let colours = () => ({ colour: '#7F7F7F' });
  const now = () => lab.step(); // the selected step, 1-based (0: no step): page state
  let timer = null;
  let pendingStep = null;   // ?step=N of the opened address, until the run it names is shown
  const ui = buildUi();
  lab.address.register('step', {
    view: true,
    apply: (values) => { pendingStep = values.length ? stepFromSearch('?step=' + encodeURIComponent(values[values.length - 1]), Infinity) : null; },
  });

  let inkOn = () => '#ffffff';
  let stepView = null;      // the drawn run's view (static/tools/step-view.js makeView)
  lab.on('result', async (result) => {
    stop();
    const report = result && result.report;
    // the request colours of the charts (loaded with them, on the first run, not with the page)
    const [svg, charts] = await Promise.all([import(versioned('../charts/svg.js')), import(versioned('../charts/index.js'))]);
    charts.connect(lab); // the charts follow the selected step and report clicks through the lab API
    inkOn = svg.inkOn;
    record = report && report.steps && Array.isArray(report.steps.items) ? report.steps : null;
    config = (report && report.config) || {};
    colours = svg.requestColours(report);
    placeUi();
    if (!record) { ui.nav.hidden = true; return; }
    ui.nav.hidden = false;
    const count = record.items.length;
    const wanted = pendingStep !== null ? clampStep(pendingStep, count) : clampStep(now() || 1, count);
    pendingStep = null;
    resetView();
    select(wanted, { address: false, force: true });
  });

  // ── building and placing ─────────────────────────────────────────────────
  function buildUi() {
    const nav = make('section', { class: 'step-nav', id: 'step-nav', 'data-step-nav': '', 'aria-labelledby': 'step-nav-title', hidden: true });
    const title = make('p', { class: 'step-nav-title', id: 'step-nav-title' }, t('steps.stepThroughScheduler'));
    const back = make('button', { type: 'button', class: 'btn', 'data-step-action': 'back' }, t('steps.back'));
    const next = make('button', { type: 'button', class: 'btn', 'data-step-action': 'next' }, t('steps.next'));
    const play = make('button', { type: 'button', class: 'btn', 'data-step-action': 'play', 'aria-pressed': 'false' }, t('steps.play'));
    const slider = make('div', {
      class: 'step-slider', role: 'slider', tabindex: '0', 'data-step-slider': '', 'aria-labelledby': 'step-nav-title',
      'aria-valuemin': '1', 'aria-valuemax': '1', 'aria-valuenow': '1', 'aria-orientation': 'horizontal',
    });
    const track = make('div', { class: 'step-track', 'aria-hidden': 'true' });
    const ticks = make('div', { class: 'step-ticks' });
    const thumb = make('div', { class: 'step-thumb' });
    track.append(ticks, thumb);
    slider.append(track);
    const count = make('span', { class: 'step-count', 'aria-hidden': 'true' });
    const controls = make('div', { class: 'step-controls' });
    const buttons = make('div', { class: 'step-buttons' });
    buttons.append(back, next, play, count);
    controls.append(slider, buttons);
    const help = make('p', { class: 'step-help' },
      t('steps.keysOneStepPageup'));
    const view = make('div', { class: 'step-view', 'data-step-view': '' });
    const live = make('p', { class: 'visually-hidden', 'aria-live': 'polite' }); // the new step, when not moved by the slider's keys
    nav.append(title, controls, help, live, view);

    back.addEventListener('click', () => { stop(); select(now() - 1, { say: true }); });
    next.addEventListener('click', () => { stop(); select(now() + 1, { say: true }); });
    play.addEventListener('click', () => (timer ? stop() : start()));
    slider.addEventListener('keydown', onKey);
    slider.addEventListener('pointerdown', onPointer);
    return { nav, slider, ticks, thumb, count, back, next, play, view, live, parts: null };
  }

  function panelOf(n) {
    const section = lab.sections().find((s) => s.key === String(n));
    return section && section.pre ? section.pre.closest('details') || section.pre.parentElement : null;
  }

  function placeUi() {
    const panel = panelOf(3);
    if (!panel) return;
    const pre = panel.querySelector(':scope > pre');
    let charts = panel.querySelector(':scope > .charts');
    if (!charts && pre) { // the charts' container (static/charts/index.js reuses it): the navigator goes under the timeline
      charts = make('div', { class: 'charts' });
      pre.before(charts);
    }
    if (ui.nav.previousElementSibling !== charts) (charts || pre).after(ui.nav);
    for (const n of [6, 11]) placeJump(n);
  }

  function placeJump(n) {
    const panel = panelOf(n);
    if (!panel || panel.querySelector(':scope > .step-jump')) return;
    const link = make('a', { class: 'step-jump', href: '#step-nav', 'data-step-jump': String(n) }, t('steps.stepWhoRunsWaitsWhose'));
    link.addEventListener('click', (ev) => { ev.preventDefault(); focusNav(); });
    panel.querySelector(':scope > summary').after(link);
  }

  function focusNav() {
    const panel = panelOf(3);
    if (panel && 'open' in panel) panel.open = true;
    ui.nav.scrollIntoView({ block: 'start', behavior: reducedMotion() ? 'auto' : 'smooth' });
    ui.slider.focus({ preventScroll: true });
  }

  // ── selecting a step ─────────────────────────────────────────────────────
  // A step is selected through the lab API (page state); show() draws it when the store says so.
  function select(n, opts = {}) {
    if (!record || !record.items.length) return;
    lab.selectStep(n, opts);
  }

  lab.on('step', (step, opts) => {
    if (!record || !record.items.length) return;
    show(clampStep(step, record.items.length), opts || {});
  });

  function show(step, opts) {
    const count = record.items.length;
    const item = record.items[step - 1];
    const s = ui.slider;
    s.setAttribute('aria-valuemax', String(count));
    s.setAttribute('aria-valuenow', String(step));
    s.setAttribute('aria-valuetext', valueText(item, step, count));
    ui.thumb.style.setProperty('--pos', count > 1 ? String((step - 1) / (count - 1)) : '0');
    ui.count.textContent = t('steps.step', { step, count });
    ui.back.disabled = step <= 1;
    ui.next.disabled = step >= count;
    drawView(stepView, item, step, count);
    if (opts.address !== false) setAddressStep(step);
    ui.live.textContent = opts.say ? s.getAttribute('aria-valuetext') : '';
  }

  function onKey(ev) {
    if (!record) return;
    const to = targetStep(ev.key, now(), record.items);
    if (to === null) return;
    ev.preventDefault();
    stop();
    select(to);
  }

  function onPointer(ev) {
    if (!record || ev.button !== 0) return;
    const track = ui.slider.querySelector('.step-track');
    const pick = (e) => {
      const box = track.getBoundingClientRect();
      const f = box.width ? (e.clientX - box.left) / box.width : 0;
      select(1 + Math.round(Math.min(1, Math.max(0, f)) * (record.items.length - 1)));
    };
    stop();
    ui.slider.focus();
    pick(ev);
    const move = (e) => pick(e);
    const up = () => { window.removeEventListener('pointermove', move); window.removeEventListener('pointerup', up); };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  }

  // ── Play / Pause ─────────────────────────────────────────────────────────
  function start() {
    if (!record) return;
    if (now() >= record.items.length) select(1);
    ui.play.setAttribute('aria-pressed', 'true');
    ui.play.textContent = t('steps.pause');
    timer = setInterval(() => {
      if (now() >= record.items.length) { stop(); return; }
      select(now() + 1, { say: true });
      if (now() >= record.items.length) stop();
    }, reducedMotion() ? PLAY_MS_REDUCED : PLAY_MS);
  }

  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    ui.play.setAttribute('aria-pressed', 'false');
    ui.play.textContent = t('steps.play');
  }

  // ── the view ─────────────────────────────────────────────────────────────
  // Made once per run; select() only rewrites what a step changes.
  function resetView() {
    const count = record.items.length;
    ui.ticks.replaceChildren(...eventSteps(record.items).map((n) => {
      const tick = make('span', { class: 'step-tick' });
      tick.style.setProperty('--pos', count > 1 ? String((n - 1) / (count - 1)) : '0');
      return tick;
    }));
    stepView = makeView(record, colours, inkOn, config);
    ui.view.replaceChildren(...stepView.nodes);
  }


  // ── the address ──────────────────────────────────────────────────────────
  // history.replaceState is slow with a long address (an edited trace): once scrubbing pauses.
  function setAddressStep(step) {
    lab.address.set('step', step, ADDRESS_MS);
  }

  return {
    select: (n) => select(n),
    current: now,
    count: () => (record ? record.items.length : 0),
    focus: focusNav,
  };
}

function loadCss() {
  if (document.querySelector('link[data-steps-css]')) return;
  const link = make('link', { rel: 'stylesheet', href: versioned('steps.css', import.meta.url), 'data-steps-css': '' });
  document.head.append(link);
}
