// Inference Lab page, the entry module: wires the store, the worker client, the controls, the
// panels and the tools together and owns the run itself (Run, Stop, Mặc định; one run at a time;
// a run that takes too long can be stopped, and what the user typed stays: stop.js says how).
// Everything that comes from the engine or the user is inserted with textContent, never as HTML.
// Modules, one job each: store.js (state + events), worker-client.js (the worker protocol), parts.js (the
// body's parts: controls.js, panels.js, address.js — the address's one owner, applied once Python is ready
// and on back/forward, never by reloading), lab-api.js (the tools' one API), stop.js (Stop and the watchdog: interrupt,
// else restart Python), offline.js (when the service worker is registered), fields.js, dom.js, versioned.js.
// Tools (each init(lab)): editor, share, compare, code, exercises, steps, sweep, search (static/tools/).
// Language: static/words/i18n.js (t(key, values); the header's switch changes language in place: see
// switchLanguage below).
// Leaves out the file:// check: module scripts do not load from file://, so static/worker/boot.js (a
// classic script) shows how to serve the page instead.

import { createStore } from './core/store.js';
import { createWorkerClient } from './core/worker-client.js';
import { createParts } from './core/parts.js';
import { createLabApi } from './core/lab-api.js';
import { createStop } from './core/stop.js';
import { make } from './core/dom.js';
import { formatValue } from './core/fields.js';
import { versioned } from './core/versioned.js';
import { createOffline } from './core/offline.js';
import * as editor from './tools/editor.js';
import * as share from './tools/share.js';
import * as compare from './tools/compare.js';
import * as exercises from './tools/exercises.js';
import * as steps from './tools/steps.js';
import * as code from './tools/code.js';
import * as sweep from './tools/sweep.js';
import * as search from './tools/sweep-search.js';
import { addressIn, applyStatic, inLang, initSwitch, lang, localized, setLang, t, takeHandoff } from './words/i18n.js';

// In this order: share uses lab.tool('editor'), exercises lab.tool('code') (share asks 'code' only when used).
const TOOLS = [['editor', editor.init], ['share', share.init], ['compare', compare.init], ['code', code.init],
  ['exercises', exercises.init], ['steps', steps.init], ['sweep', sweep.init],
  ['search', search.init]];
const SLOW_RUN_MS = 30000;
// A run with the student's edited code (static/tools/code.js) that takes longer than this is stopped and
// Python restarted: an endless loop in the student's function must not hang the page. A normal run
// with edits takes well under a second once Python is warm.
const WATCHDOG_MS = 8000;

const byId = (id) => document.getElementById(id);

// The charts (static/charts/index.js) have one owner, this module: loaded on the first run, not with the page,
// and handed to the panels (drawn above the lines) and to the tools (lab.charts(): the step navigator).
// Resolves to the module, or to null when it could not load (the lines never depend on it).
let chartsLoading = null;
function loadCharts() {
  if (!chartsLoading) {
    chartsLoading = import(versioned('./charts/index.js', import.meta.url))
      .catch((err) => { console.warn('charts not loaded:', err); return null; });
  }
  return chartsLoading;
}
// index.html's body as it came, before any part changed it: a language switch mounts the parts again on a copy.
const pristineBody = document.body.cloneNode(true);

const store = createStore({
  ready: false,      // Python answers runs
  readyInfo: null,   // {schema, first} of the last 'ready'
  fields: [],        // describe() entries that have a control
  inflight: null,    // {id, started, config, slowTimer, task?} while a run (or a tool's task) is in the worker
  status: 'loading', // the status line's data-status
  lastResult: null,  // {result, config} of the last run shown
  patches: [],       // the student's edited functions every run sends (static/tools/code.js)
});
// The page's parts (static/core/parts.js) and the tools' lab API: made again by a language switch.
let el, address, controls, panels, labApi;
({ el, address, controls, panels } = createParts(store, loadCharts));
let readyMessage = null; // the worker's last 'ready' (a language switch replays it to the new parts)
const worker = createWorkerClient({
  progress: (msg) => setStatus('loading', t('app.loading', { stage: msg.stage }), msg.detail, msg.fraction),
  runProgress: onRunProgress,
  taskProgress: onTaskProgress,
  ready: onReady,
  started: onStarted,
  result: onResult,
  runError: onRunError,
  fatal,
  refused: onRefused,
  malformed: onMalformed,
});

// The last run handed over by the language switch (static/words/i18n.js), worded again instead of run.
let handoff = takeHandoff(location.search);

const canRun = () => store.get().ready && store.get().inflight === null && store.get().fields.length > 0;
const setNote = (text) => { el.actionNote.textContent = text; };

// ── status and buttons ───────────────────────────────────────────────────────
function setStatus(status, text, detail, fraction) {
  if (status !== 'running') el.status.removeAttribute('aria-busy'); // a run's progress is told quietly (below)
  panels.setStatus(status, text, detail, fraction);
  const changed = store.get().status !== status;
  store.set({ status });
  if (changed) store.emit('status', status);
  updateButtons();
}

function updateButtons() {
  const { ready, inflight, fields } = store.get();
  el.run.disabled = !ready || inflight !== null;
  el.reset.disabled = fields.length === 0;
  el.stop.hidden = inflight === null;
  store.emit('runnable', canRun());
}

// ── the worker ───────────────────────────────────────────────────────────────
function startWorker() {
  store.set({ ready: false });
  setStatus('loading', t('app.loadingPythonPyodide'), t('app.firstTimeCanTake1060'), 0);
  worker.start();
}

function restartWorker(reason) {
  worker.stop();
  finishRun();
  if (reason) setNote(reason);
  startWorker();
}

function fatal(title, message, details) {
  store.set({ ready: false });
  finishRun();
  setStatus('error', t('app.pythonCannotRunPageYet'),
    t('app.restPageCanStillRead'));
  panels.showPageError(title, message, details, null,
    { label: t('app.reloadPython'), onClick: () => { panels.clearPageError(); restartWorker(''); } });
}

function onReady(msg) {
  readyMessage = msg;
  const schema = localized(Array.isArray(msg.schema) ? msg.schema : []);
  const first = store.get().fields.length === 0;
  if (first) controls.build(schema); // keep what the user typed across restarts
  store.set({ ready: true });
  panels.showVersions(msg.versions || {});
  setStatus('ready', t('app.readyChangeConstantsIf'), '');
  const readyInfo = { schema, first, limits: msg.limits || null };
  store.set({ readyInfo });
  store.emit('ready', readyInfo);
  if (first) applyAddress();
  if (handoff && first && canRun()) run(); // the language switch's last run (unless the address already ran it)
  offline.ready();
}

// ── offline: sw.js caches the whole build, registered after the first run (static/core/offline.js) ──
const offline = createOffline(store, (text) => setNote(text), new URL('../sw.js', import.meta.url).href);

// ── Run / Stop / Reset ───────────────────────────────────────────────────────
function run() {
  if (!store.get().ready || store.get().inflight) return; // disabled anyway; this also stops a double click
  controls.clearFieldErrors();
  panels.clearPageError();
  setNote('');
  refusedSinceRun.clear();
  const { config, errors } = controls.readConfig();
  if (errors.length) {
    controls.showFieldErrors(errors);
    setNote(t('app.notRunFixMarkedFieldS', { nErrors: errors.length }));
    return;
  }
  // The language switch's handover: the same constants as the run it carries, so Python only words
  // that run's report again (web.render), no engine run. Any other run goes to the engine.
  const patches = store.get().patches;
  const same = handoff && JSON.stringify(handoff.config) === JSON.stringify(config);
  const again = same && !patches.length ? handoff : null;
  handoff = null;
  // first: the engine starts while the page updates
  const id = again ? worker.render(again.report) : worker.run(config, patches);
  store.set({
    inflight: {
      id,
      started: performance.now(),
      config,
      patched: patches.length > 0,
      slowTimer: patches.length ? null : setTimeout(() => {
        setNote(t('app.runHasTakenMoreThan') + SLOW_RUN_MS / 1000 + t('app.secondsPressStop'));
      }, SLOW_RUN_MS),
    },
  });
  setStatus('running', t('app.runningEngineCurrent'), t('app.youCanPressStopIfTakes'));
  panels.setBusy(true);
}

// A deferred big run's blocks [6], [11], [12] (their data.deferred: Python decides, web.defers) computed now: the
// worker's 'replays' plays the replays of the run shown and answers like a run (progress, Stop, the same result
// shape), whose report then replaces the shown one. The button data-replays is core/panels.js's.
function computeReplays() {
  const last = store.get().lastResult;
  if (!canRun() || !last || !last.result.report) return;
  panels.clearPageError();
  setNote('');
  const id = worker.task('replays', { config: last.result.report.config }); // answered like a run
  store.set({ inflight: { id, started: performance.now(), config: last.config, patched: false, slowTimer: null } });
  setStatus('running', t('app.runningEngineCurrent'), t('app.youCanPressStopIfTakes'));
  panels.setBusy(true);
}
document.addEventListener('click', (event) => {
  if (event.target instanceof Element && event.target.closest('[data-replays]')) computeReplays();
});

// A long run tells how far it is (static/worker/worker.js labProgress, at most every ~100 ms): the status
// stays 'running' and says which engine run, its step and the requests done, with a progress bar.
const RUN_NAMES = { chunked: () => t('app.run.chunked'), static: () => t('app.run.static'),
  nochunk: () => t('app.run.nochunk'), nocache: () => t('app.run.nocache'), nospec: () => t('app.run.nospec'),
  kv16: () => t('app.run.kv16') };
function onRunProgress(msg) {
  const { inflight } = store.get();
  if (!inflight || inflight.id !== msg.id || store.get().status !== 'running') return;
  el.status.setAttribute('aria-busy', 'true'); // the live region is not read out ten times a second
  if (msg.run === 'report') { // the runs are over: Python writes the blocks from the run log (lab.writing)
    setStatus('running', t('app.runningEngineCurrent'), t('app.reportProgress'), 1);
    return;
  }
  const run = (Object.hasOwn(RUN_NAMES, msg.run) ? RUN_NAMES[msg.run] : RUN_NAMES.chunked)();
  setStatus('running', t('app.runningEngineCurrent'),
    t('app.runProgress', { run, step: msg.step, done: msg.done, total: msg.total }), msg.fraction);
}

// ── a tool's task: a sweep or a search (static/tools/sweep.js, sweep-search.js), several runs in the worker ──
// task: {type: 'sweep' | 'search', fields: what the message carries besides the constants, title: the status line's
//        words, progress(msg): the status detail of a point done (msg.partial: the answer so far),
//        done(result): {status, text, detail} once the answer came}. The page's constants as Run reads them (no
// edited code: a sweep measures the engine as it is). Stop and its fallback are Run's (core/stop.js). Returns the
// task's id, or null when it cannot start now (the constants' errors are then beside their fields).
function runTask(task) {
  if (!canRun()) return null;
  controls.clearFieldErrors();
  panels.clearPageError();
  setNote('');
  const { config, errors } = controls.readConfig();
  if (errors.length) {
    controls.showFieldErrors(errors);
    setNote(t('app.notRunFixMarkedFieldS', { nErrors: errors.length }));
    return null;
  }
  const id = worker.task(task.type, { config, ...task.fields });
  store.set({ inflight: { id, started: performance.now(), config, patched: false, slowTimer: null, task } });
  setStatus('running', task.title, t('app.youCanPressStopIfTakes'));
  return id;
}

function onTaskProgress(msg) {
  const { inflight } = store.get();
  if (!inflight || inflight.id !== msg.id || !inflight.task || store.get().status !== 'running') return;
  el.status.setAttribute('aria-busy', 'true');
  setStatus('running', inflight.task.title, inflight.task.progress(msg), msg.fraction);
}

// A task's answer: its constants' errors beside their fields (the tool places its own), then the tool's words.
function onTaskResult(inflight, result) {
  if (typeof result.stopped === 'string') setNote(result.stopped); // stopped outside web.sweep's own handling
  const errors = (Array.isArray(result.errors) ? result.errors : []).map(inLang);
  const unplaced = errors.length ? controls.showFieldErrors(errors) : []; // the tool's own fields: 'fieldError'
  if (unplaced.length) {
    panels.showPageError(t('app.engineDoesNotRunConfig'), unplaced.map((e) => (e.field ? e.field + ': ' : '') + e.message).join('\n'));
  }
  const said = inflight.task.done(result, errors);
  finishRun();
  setStatus(said.status, said.text, said.detail || '');
}

// The worker took the run off its queue (it may have been busy warming up): a run with edited code
// gets WATCHDOG_MS from now.
function onStarted(id) {
  const { inflight } = store.get();
  if (!inflight || inflight.id !== id || !inflight.patched) return;
  clearTimeout(inflight.slowTimer);
  inflight.slowTimer = setTimeout(() => stopRun('watchdog'), WATCHDOG_MS);
}

function finishRun() {
  const { inflight } = store.get();
  if (inflight) clearTimeout(inflight.slowTimer);
  stopper.settled(inflight);
  store.set({ inflight: null });
  panels.setBusy(false);
  updateButtons();
}

function onResult(result) {
  const { inflight } = store.get();
  const seconds = ((performance.now() - inflight.started) / 1000).toFixed(1);
  const config = inflight.config;
  if (!result || typeof result !== 'object') {
    onRunError({ message: t('app.engineReturnedResult') });
    return;
  }
  if (inflight.task) { onTaskResult(inflight, result); return; }
  if (typeof result.stopped === 'string') { stopper.onStopped(result); return; } // Stop, without a restart
  if (!result.ok) {
    const errors = (Array.isArray(result.errors) ? result.errors : []).map(inLang);
    const unplaced = controls.showFieldErrors(errors);
    if (unplaced.length || errors.length === 0) {
      panels.showPageError(t('app.engineDoesNotRunConfig'), unplaced.map((e) => (e.field ? e.field + ': ' : '') + e.message).join('\n') || t('app.noDetails'));
    }
    if (errors.length && errors.every((e) => String(e.field || '').startsWith('patch'))) {
      setNote(t('app.notRunEditedPythonCode'));
      setStatus('error', t('app.editedCodeHasErrorFix'), '');
    } else {
      setNote(t('app.notRunEngineReports'));
      setStatus('error', t('app.engineRejectedConfig'), '');
    }
    finishRun();
    return;
  }
  finishRun();
  const t0 = performance.now();
  const report = result.report || {};
  panels.renderReport(report);
  store.emit('lines', report);
  const passed = result.report && result.report.passed;
  setStatus('done', t('app.done', { seconds, passed: passed ? 'PASS' : 'FAIL' }),
    t('app.readOutputRightUnder'));
  const t1 = performance.now();
  store.set({ lastResult: { result, config } });
  address.write(config);
  store.emit('result', result, config);
  // User Timing entries for profiling (bench/render_profile.py): the panels, then the page tools.
  // Only the latest run's are kept, so the browser's timeline does not grow with every run.
  performance.clearMeasures('lab:render');
  performance.clearMeasures('lab:tools');
  for (let n = 1; n <= 13; n++) performance.clearMeasures('lab:charts ' + n);
  performance.measure('lab:render', { start: t0, end: t1 });
  performance.measure('lab:tools', { start: t1, end: performance.now() });
}

// The status says error before Run is possible again, so whoever waits for the run (an exercise's
// note) sees that it failed.
function onRunError(msg) {
  panels.showPageError(t('app.engineFailedWhile'), (msg.message || t('app.unknownError')) +
    t('app.valuesYouTypedStillTry'), msg.details);
  setStatus('error', t('app.runFailedPageStill'), '');
  finishRun();
  if (msg.fatal) restartWorker(t('app.pythonRestartedAfter'));
}

// Edited code tried the network and the page's CSP refused it (static/worker/worker.js reports the
// addresses after the run): the lesson beside Run, and the 'refused' event for the code editors.
const refusedSinceRun = new Set(); // addresses refused since the last Run (reported in batches)
function onRefused(addresses) {
  for (const address of addresses) if (refusedSinceRun.size < 10) refusedSinceRun.add(address);
  const text = t('app.refused', { addresses: [...refusedSinceRun].join(', ') });
  setNote(text);
  store.emit('refused', addresses, text);
}

// The worker sent something that is not the protocol (static/core/worker-client.js checked it): said
// on the page and ignored; a run waiting for an answer ends as an error and Python is restarted.
function onMalformed(what, runId) {
  const inflight = store.get().inflight;
  const text = t('app.malformed', { what });
  if (inflight && (runId === null || runId === inflight.id)) onRunError({ message: text, fatal: true });
  else setNote(text);
}

const stopper = createStop({ store, worker, restartWorker, finishRun, setStatus, setNote, watchdogMs: WATCHDOG_MS,
  showFieldErrors: (errors) => controls.showFieldErrors(errors) });
const stop = () => stopper.stopRun('user');
const stopRun = (reason) => stopper.stopRun(reason);

// The edited functions every run sends from now on ([] for none).
function setPatches(patches) {
  store.set({ patches: Array.isArray(patches) ? patches : [] });
}

function reset() {
  resetValues();
  setNote(t('app.defaultValuesRestored'));
}

function resetValues() {
  controls.clearFieldErrors();
  store.emit('reset');
  controls.resetValues();
}

// ── the address (static/core/address.js) ─────────────────────────────────────
// Applies the page address: every registered part takes its parameters (the tools' parts, and lang
// here); 'address' tells the tools what came of it; the page runs when the address asks for a run and
// nothing in it was invalid.
function applyAddress() {
  const outcome = address.apply(location.search);
  store.emit('address', outcome);
  if (!outcome.problems.length && outcome.runs && canRun()) run();
}

// Back / forward to another address of the page (or a test's pushState + popstate): the page shows
// what opening that address shows, with the Python that is already running (no reload), in the
// address's language.
function onAddressChange() {
  const wanted = new URLSearchParams(location.search).get('lang');
  if ((wanted === 'en' || wanted === 'vi') && wanted !== lang) { switchLanguage(wanted, false); return; }
  if (!store.get().fields.length) return; // not ready yet: applied when Python is
  whenIdle(() => {
    panels.clearPageError();
    resetValues();
    setNote('');
    applyAddress();
  });
}

// fn() now, or once the run in flight is over.
function whenIdle(fn) {
  if (canRun() || !store.get().ready) { fn(); return; }
  const off = store.on('runnable', (ok) => { if (ok) { off(); fn(); } });
}

// Mặc định, then `afterReset()` (lab-api.js puts an exercise's REQUESTS into the request editor there),
// then `constants` in their controls, then the normal Run. Returns the names that have no control
// (nothing is changed or run then), or null when Run is not possible now.
function runWith(constants, afterReset) {
  if (!canRun()) return null;
  const unknown = Object.keys(constants).filter((name) => !controls.controlFor(name));
  if (unknown.length) return unknown;
  reset();
  if (afterReset) afterReset();
  // CLOCK first, as the address does (static/tools/share.js): the fields with a roofline default follow it
  // (POOL_BLOCKS=auto, COST_TOKENIZE_PER_TOKEN…) as they do on the command line, unless the exercise sets them
  const names = Object.keys(constants).sort((a, b) => (b === 'CLOCK') - (a === 'CLOCK'));
  for (const name of names) {
    const control = controls.controlFor(name);
    control.value = formatValue(constants[name]);
    if (name === 'CLOCK') control.dispatchEvent(new Event('change'));
    controls.openAdvanced(control);
  }
  run();
  return [];
}

// The toolbar under the status line where the tools put their buttons (made on first use).
function toolbar() {
  let bar = byId('run-tools');
  if (!bar) {
    bar = make('div', { id: 'run-tools', class: 'run-tools' });
    el.status.after(bar);
  }
  return bar;
}

// ── the language switch ──────────────────────────────────────────────────────
// In place: the parts and the tools are made again in `to` on a fresh copy of index.html's body, Python
// keeps running, and the last run is worded again in `to` without running the engine (worker 'render');
// the constants are the address's, the edits and predictions the tools keep in storage, as on a reload.
// push: a new history entry (the header's link); false when back/forward already changed the address.
function switchLanguage(to, push = true) {
  whenIdle(() => {
    const last = store.get().lastResult;
    if (push) history.pushState(history.state, '', addressIn(location.href, to));
    labApi.dispose();
    document.body.replaceWith(pristineBody.cloneNode(true));
    setLang(to);
    store.set({ fields: [], readyInfo: null, lastResult: null, step: 0 });
    handoff = last ? { report: last.result.report, config: last.config } : null;
    ({ el, address, controls, panels } = createParts(store, loadCharts));
    mount();
    if (store.get().ready && readyMessage) onReady(readyMessage);
    else setStatus(store.get().status, t('app.loadingPythonPyodide'), t('app.firstTimeCanTake1060'), 0);
  });
}

// ── start ────────────────────────────────────────────────────────────────────
// The page's words, its buttons' handlers and the tools, on the current body (again after a language switch).
function mount() {
  applyStatic();
  el.form.addEventListener('submit', (event) => { event.preventDefault(); run(); });
  el.reset.addEventListener('click', reset);
  el.stop.addEventListener('click', stop);
  labApi = createLabApi({ store, controls, panels, run, runTask, stop, runWith, canRun, setNote, setPatches, loadCharts,
    stepDetail: worker.stepDetail, traceText: worker.traceText, watchdogMs: WATCHDOG_MS, toolbar, form: el.form,
    actions: el.run.parentElement, address });
  if (typeof Worker === 'undefined') return;
  for (const [name, initTool] of TOOLS) labApi.register(name, initTool);
  address.register('lang', { view: true, runs: false }); // read by static/worker/boot.js before the page is drawn
  const lastRun = () => {
    const last = store.get().lastResult;
    return last && { report: last.result.report, config: last.config };
  };
  initSwitch(lastRun, switchLanguage);
  updateButtons();
}

function init() {
  if (location.protocol === 'file:') { applyStatic(); return; } // static/worker/boot.js has said how to serve the page
  mount();
  if (typeof Worker === 'undefined') {
    labApi.register('exercises', exercises.init);
    fatal(t('app.browserDoesNotSupport'), t('app.useRecentBrowserChrome'));
    return;
  }
  window.addEventListener('popstate', onAddressChange);
  startWorker();
}

init();
