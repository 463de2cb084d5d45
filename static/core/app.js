// Inference Lab page, the entry module: wires the store, the worker client, the controls, the
// panels and the tools together and owns the run itself (Run, Stop, Mặc định; one run at a time;
// a run that takes too long can be stopped, which restarts Python and keeps what the user typed).
// Everything that comes from the engine or the user is inserted with textContent, never as HTML.
// Modules, one job each:
//   store.js          the one store: state + events        worker-client.js  the worker protocol
//   fields.js         parsing, checks, messages (pure)      controls.js       the constants' controls
//   panels.js         lines, summary, status, page error    lab-api.js        the tools' one API
//   dom.js            make()                                versioned.js      ?v= cache busting
//   share-state.js    the address format (pure)             line-diff.js      compare's diff (pure)
//   address.js        the page address's one owner: tools register their parts; applied once Python is
//                     ready and again on back/forward (popstate), never by reloading the page
// Tools (each init(lab)): editor.js, share.js, compare.js, code.js, exercises.js, steps.js.
// Language: i18n.js (tl(vi, en) for every message, the header's switch, the English labels of index.html).
// Leaves out the file:// check: module scripts do not load from file://, so static/worker/boot.js (a
// classic script) shows how to serve the page instead.

import { createStore } from './store.js';
import { createWorkerClient } from './worker-client.js';
import { createControls } from './controls.js';
import { createPanels } from './panels.js';
import { createLabApi } from './lab-api.js';
import { createAddress } from './address.js';
import { make } from './dom.js';
import { formatValue } from './fields.js';
import * as editor from '../tools/editor.js';
import * as share from '../tools/share.js';
import * as compare from '../tools/compare.js';
import * as exercises from '../tools/exercises.js';
import * as steps from '../tools/steps.js';
import * as code from '../tools/code.js';
import { applyStatic, initSwitch, lang, takeHandoff, tl } from '../words/i18n.js';

// In this order: share uses lab.tool('editor'), exercises lab.tool('code') (share asks 'code' only when used).
const TOOLS = [['editor', editor.init], ['share', share.init], ['compare', compare.init], ['code', code.init],
  ['exercises', exercises.init], ['steps', steps.init]];
const SLOW_RUN_MS = 30000;
// A run with the student's edited code (static/tools/code.js) that takes longer than this is stopped and
// Python restarted: an endless loop in the student's function must not hang the page. A normal run
// with edits takes well under a second once Python is warm.
const WATCHDOG_MS = 8000;

const byId = (id) => document.getElementById(id);
const el = {
  form: byId('controls'),
  run: document.querySelector('[data-action="run"]'),
  reset: document.querySelector('[data-action="reset"]'),
  stop: document.querySelector('[data-action="stop"]'),
  actionNote: byId('action-note'),
  status: byId('status'),
};

const store = createStore({
  ready: false,      // Python answers runs
  readyInfo: null,   // {schema, first} of the last 'ready'
  fields: [],        // describe() entries that have a control
  inflight: null,    // {id, started, config, slowTimer} while a run is in the worker
  status: 'loading', // the status line's data-status
  lastResult: null,  // {result, config} of the last run shown
  patches: [],       // the student's edited functions every run sends (static/tools/code.js)
});
const address = createAddress();
const controls = createControls({ form: el.form, headline: byId('fields-headline'), advanced: byId('fields-advanced'),
  advancedFold: byId('advanced') }, store);
const panels = createPanels({
  status: el.status, statusText: byId('status-text'), statusDetail: byId('status-detail'), progress: byId('status-progress'),
  pageError: byId('page-error'), verdict: byId('verdict'), summaryLines: byId('summary-lines'), checks: byId('checks'),
  checksList: byId('checks-list'), versions: byId('versions'), jump: byId('jump'), runHeader: byId('run-header'),
});
const worker = createWorkerClient({
  progress: (msg) => setStatus('loading', tl('Đang tải: ', 'Loading: ') + msg.stage, msg.detail, msg.fraction),
  ready: onReady,
  started: onStarted,
  result: onResult,
  runError: onRunError,
  fatal,
});

// The schema in the page's language: label and help (and the request columns') from label_en / help_en
// when the page is English, so every control, message and tool reads the one field it always read.
function localized(schema) {
  if (lang !== 'en') return schema;
  const words = (d) => ({ ...d, label: d.label_en || d.label, help: d.help_en || d.help });
  return schema.map((d) => ({ ...words(d), ...(Array.isArray(d.columns) ? { columns: d.columns.map(words) } : {}) }));
}

// An engine problem in the page's language (web.py sends message and message_en).
const inLang = (e) => (lang === 'en' && e && e.message_en ? { ...e, message: e.message_en } : e);

// The last run handed over by the language switch (static/words/i18n.js), worded again instead of run.
let handoff = takeHandoff(location.search);

const canRun = () => store.get().ready && store.get().inflight === null && store.get().fields.length > 0;
const setNote = (text) => { el.actionNote.textContent = text; };

// ── status and buttons ───────────────────────────────────────────────────────
function setStatus(status, text, detail, fraction) {
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
  setStatus('loading', tl('Đang tải Python (Pyodide) và NumPy trong trình duyệt…', 'Loading Python (Pyodide) and NumPy in the browser…'), tl('Lần đầu có thể mất 10–60 giây.', 'The first time can take 10–60 seconds.'), 0);
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
  setStatus('error', tl('Python chưa chạy được trong trang này; xem lý do và cách sửa bên dưới.', 'Python cannot run in this page yet; see why and how to fix it below.'),
    tl('Các phần khác của trang vẫn đọc được. Sửa xong, tải lại trang hoặc bấm “Tải lại Python”.', 'The rest of the page can still be read. Once fixed, reload the page or press “Reload Python”.'));
  panels.showPageError(title, message, details, null,
    { label: tl('Tải lại Python', 'Reload Python'), onClick: () => { panels.clearPageError(); restartWorker(''); } });
}

function onReady(msg) {
  const schema = localized(Array.isArray(msg.schema) ? msg.schema : []);
  const first = store.get().fields.length === 0;
  if (first) controls.build(schema); // keep what the user typed across restarts
  store.set({ ready: true });
  panels.showVersions(msg.versions || {});
  setStatus('ready', tl('Sẵn sàng. Chỉnh hằng số nếu muốn rồi bấm Chạy.', 'Ready. Change the constants if you like, then press Run.'), '');
  const readyInfo = { schema, first };
  store.set({ readyInfo });
  store.emit('ready', readyInfo);
  if (first) applyAddress();
  if (handoff && first && canRun()) run(); // the language switch's last run (unless the address already ran it)
  registerServiceWorker();
}

// ── offline: sw.js (build.py renders it from static/worker/sw.js) caches the whole build ──
// Registered once the lab is ready, so its downloads never compete with loading Python; on
// http(s) only. A page open while a new build takes over is told to reload. Not versioned: the
// service worker's URL must stay the same from build to build.
let swRegistered = false;
function registerServiceWorker() {
  if (swRegistered || !('serviceWorker' in navigator) || !/^https?:$/.test(location.protocol)) return;
  swRegistered = true;
  const hadController = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (hadController) setNote(tl('Đã có bản mới của bài lab: tải lại trang để dùng bản mới.', 'A new version of the lab is available: reload the page to use it.'));
  });
  navigator.serviceWorker.register(new URL('../../sw.js', import.meta.url).href)
    .catch((err) => console.warn('service worker not registered:', err));
}

// ── Run / Stop / Reset ───────────────────────────────────────────────────────
function run() {
  if (!store.get().ready || store.get().inflight) return; // disabled anyway; this also stops a double click
  controls.clearFieldErrors();
  panels.clearPageError();
  setNote('');
  const { config, errors } = controls.readConfig();
  if (errors.length) {
    controls.showFieldErrors(errors);
    setNote(tl('Chưa chạy: sửa ', 'Not run: fix the ') + errors.length + tl(' ô được đánh dấu.', ' marked field(s).'));
    return;
  }
  // The language switch's handover: the same constants as the run it carries, so Python only words
  // that run's report again (web.render), no engine run. Any other run goes to the engine.
  const patches = store.get().patches;
  const again = handoff && !patches.length && JSON.stringify(handoff.config) === JSON.stringify(config) ? handoff : null;
  handoff = null;
  const id = again ? worker.render(again.report) : worker.run(config, patches); // first: the engine starts while the page updates
  store.set({
    inflight: {
      id,
      started: performance.now(),
      config,
      patched: patches.length > 0,
      slowTimer: patches.length ? null : setTimeout(() => {
        setNote(tl('Lần chạy đã quá ', 'The run has taken more than ') + SLOW_RUN_MS / 1000 + tl(' giây. Bấm Dừng để dừng và khởi động lại Python (các giá trị bạn nhập được giữ nguyên).', ' seconds. Press Stop to stop it and restart Python (the values you typed are kept).'));
      }, SLOW_RUN_MS),
    },
  });
  setStatus('running', tl('Đang chạy engine với cấu hình hiện tại…', 'Running the engine with the current config…'), tl('Có thể bấm Dừng nếu chạy quá lâu.', 'You can press Stop if it takes too long.'));
  panels.setBusy(true);
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
  store.set({ inflight: null });
  panels.setBusy(false);
  updateButtons();
}

function onResult(result) {
  const { inflight } = store.get();
  const seconds = ((performance.now() - inflight.started) / 1000).toFixed(1);
  const config = inflight.config;
  if (!result || typeof result !== 'object') {
    onRunError({ message: tl('Engine trả về kết quả không đọc được.', 'The engine returned a result that cannot be read.') });
    return;
  }
  if (!result.ok) {
    const errors = (Array.isArray(result.errors) ? result.errors : []).map(inLang);
    const unplaced = controls.showFieldErrors(errors);
    if (unplaced.length || errors.length === 0) {
      panels.showPageError(tl('Engine không chạy với cấu hình này.', 'The engine does not run with this config.'), unplaced.map((e) => (e.field ? e.field + ': ' : '') + e.message).join('\n') || tl('Không có chi tiết.', 'No details.'));
    }
    if (errors.length && errors.every((e) => String(e.field || '').startsWith('patch'))) {
      setNote(tl('Chưa chạy: mã Python đã sửa có lỗi; xem thông báo bên cạnh trình sửa mã. Các khối giữ output trước.', 'Not run: the edited Python code has an error; see the message beside the code editor. The blocks keep the previous output.'));
      setStatus('error', tl('Mã đã sửa có lỗi. Sửa trong trình sửa mã rồi bấm Chạy (hoặc Khôi phục).', 'The edited code has an error. Fix it in the code editor, then press Run (or Restore).'), '');
    } else {
      setNote(tl('Chưa chạy: engine báo lỗi ở giá trị nhập.', 'Not run: the engine reports errors in the values.'));
      setStatus('error', tl('Engine từ chối cấu hình. Sửa các ô được đánh dấu rồi bấm Chạy.', 'The engine rejected the config. Fix the marked fields, then press Run.'), '');
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
  setStatus('done', 'Xong (' + seconds + tl(' giây thật trong trình duyệt) · ', ' real seconds in the browser) · ') + (passed ? 'PASS' : 'FAIL') + '.',
    tl('Đọc output ngay dưới từng hàng của bảng ánh xạ, rồi TỔNG KẾT ở cuối bảng.', 'Read the output right under each row of the mapping table, then the SUMMARY below the table.'));
  const t1 = performance.now();
  store.set({ lastResult: { result, config } });
  address.write(config);
  store.emit('result', result, config);
  // User Timing entries for profiling (bench/render_profile.py): the panels, then the page tools.
  // Only the latest run's are kept, so the browser's timeline does not grow with every run.
  performance.clearMeasures('lab:render');
  performance.clearMeasures('lab:tools');
  performance.measure('lab:render', { start: t0, end: t1 });
  performance.measure('lab:tools', { start: t1, end: performance.now() });
}

// The status says error before Run is possible again, so whoever waits for the run (an exercise's
// note) sees that it failed.
function onRunError(msg) {
  panels.showPageError(tl('Engine gặp lỗi khi chạy.', 'The engine failed while running.'), (msg.message || tl('Lỗi không rõ.', 'Unknown error.')) +
    tl(' Các giá trị bạn nhập vẫn còn; thử đổi lại giá trị hoặc bấm Mặc định rồi Chạy.', ' The values you typed are still there; try other values, or press Defaults and then Run.'), msg.details);
  setStatus('error', tl('Lần chạy bị lỗi. Trang vẫn dùng được, bạn có thể bấm Chạy lại.', 'The run failed. The page still works; you can press Run again.'), '');
  finishRun();
  if (msg.fatal) restartWorker(tl('Python đã được khởi động lại sau lỗi.', 'Python was restarted after the error.'));
}

function stop() {
  stopRun('user');
}

// reason: 'user' (Dừng) or 'watchdog' (a run with edited code ran too long).
function stopRun(reason) {
  const { inflight } = store.get();
  if (!inflight) return;
  restartWorker(reason === 'watchdog'
    ? tl('Đã dừng: lần chạy với mã đã sửa quá ', 'Stopped: the run with edited code took more than ') + WATCHDOG_MS / 1000 + tl(' giây. Python đang khởi động lại; mã và các giá trị bạn nhập được giữ nguyên.', ' seconds. Python is restarting; your code and the values you typed are kept.')
    : tl('Đã dừng lần chạy và đang khởi động lại Python. Các giá trị bạn nhập được giữ nguyên.', 'The run was stopped and Python is restarting. The values you typed are kept.'));
  store.emit('stopped', { reason, patched: inflight.patched });
}

// The edited functions every run sends from now on ([] for none).
function setPatches(patches) {
  store.set({ patches: Array.isArray(patches) ? patches : [] });
}

function reset() {
  resetValues();
  setNote(tl('Đã đặt lại giá trị mặc định. Bấm Chạy để chạy lại.', 'Default values restored. Press Run to run again.'));
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
// what opening that address shows, with the Python that is already running (no reload). Another
// language is the one exception: the page loads in it (static/words/i18n.js).
function onAddressChange() {
  const wanted = new URLSearchParams(location.search).get('lang');
  if (wanted && wanted !== lang) { location.reload(); return; }
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
  for (const [name, value] of Object.entries(constants)) {
    const control = controls.controlFor(name);
    control.value = formatValue(value);
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

// ── start ────────────────────────────────────────────────────────────────────
function init() {
  applyStatic();
  if (location.protocol === 'file:') return; // static/worker/boot.js has said how to serve the page
  el.form.addEventListener('submit', (event) => { event.preventDefault(); run(); });
  el.reset.addEventListener('click', reset);
  el.stop.addEventListener('click', stop);
  const { register } = createLabApi({ store, controls, panels, run, stop, runWith, canRun, setNote, setPatches,
    watchdogMs: WATCHDOG_MS, toolbar, form: el.form, address });
  if (typeof Worker === 'undefined') {
    register('exercises', exercises.init);
    fatal(tl('Trình duyệt này không hỗ trợ Web Worker.', 'This browser does not support Web Workers.'), tl('Hãy dùng một trình duyệt mới (Chrome, Edge, Firefox hoặc Safari bản gần đây).', 'Use a recent browser (a recent Chrome, Edge, Firefox or Safari).'));
    return;
  }
  for (const [name, initTool] of TOOLS) register(name, initTool);
  address.register('lang', { view: true, runs: false }); // read by static/worker/boot.js before the page is drawn
  window.addEventListener('popstate', onAddressChange);
  initSwitch(() => store.get().lastResult && { report: store.get().lastResult.result.report, config: store.get().lastResult.config });
  startWorker();
}

init();
