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
// Tools (each init(lab)): editor.js, share.js, compare.js, code.js, exercises.js, steps.js.
// Leaves out the file:// check: module scripts do not load from file://, so static/boot.js (a
// classic script) shows how to serve the page instead.

import { createStore } from './store.js';
import { createWorkerClient } from './worker-client.js';
import { createControls } from './controls.js';
import { createPanels } from './panels.js';
import { createLabApi } from './lab-api.js';
import { make } from './dom.js';
import { formatValue } from './fields.js';
import * as editor from './editor.js';
import * as share from './share.js';
import * as compare from './compare.js';
import * as exercises from './exercises.js';
import * as steps from './steps.js';
import * as code from './code.js';

// In this order: share uses lab.tool('editor'), exercises lab.tool('code') (share asks 'code' only when used).
const TOOLS = [['editor', editor.init], ['share', share.init], ['compare', compare.init], ['code', code.init],
  ['exercises', exercises.init], ['steps', steps.init]];
const SLOW_RUN_MS = 30000;
// A run with the student's edited code (static/code.js) that takes longer than this is stopped and
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
  patches: [],       // the student's edited functions every run sends (static/code.js)
});
const controls = createControls({ form: el.form, headline: byId('fields-headline'), advanced: byId('fields-advanced'),
  advancedFold: byId('advanced') }, store);
const panels = createPanels({
  status: el.status, statusText: byId('status-text'), statusDetail: byId('status-detail'), progress: byId('status-progress'),
  pageError: byId('page-error'), verdict: byId('verdict'), summaryLines: byId('summary-lines'), checks: byId('checks'),
  checksList: byId('checks-list'), versions: byId('versions'), jump: byId('jump'), runHeader: byId('run-header'),
});
const worker = createWorkerClient({
  progress: (msg) => setStatus('loading', 'Đang tải: ' + msg.stage, msg.detail, msg.fraction),
  ready: onReady,
  started: onStarted,
  result: onResult,
  runError: onRunError,
  fatal,
});

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
  setStatus('loading', 'Đang tải Python (Pyodide) và NumPy trong trình duyệt…', 'Lần đầu có thể mất 10–60 giây.', 0);
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
  setStatus('error', 'Python chưa chạy được trong trang này; xem lý do và cách sửa bên dưới.',
    'Các phần khác của trang vẫn đọc được. Sửa xong, tải lại trang hoặc bấm “Tải lại Python”.');
  panels.showPageError(title, message, details, null,
    { label: 'Tải lại Python', onClick: () => { panels.clearPageError(); restartWorker(''); } });
}

function onReady(msg) {
  const schema = Array.isArray(msg.schema) ? msg.schema : [];
  const first = store.get().fields.length === 0;
  if (first) controls.build(schema); // keep what the user typed across restarts
  store.set({ ready: true });
  panels.showVersions(msg.versions || {});
  setStatus('ready', 'Sẵn sàng. Chỉnh hằng số nếu muốn rồi bấm Chạy.', '');
  const readyInfo = { schema, first };
  store.set({ readyInfo });
  store.emit('ready', readyInfo);
  registerServiceWorker();
}

// ── offline: sw.js (build.py renders it from static/sw.js) caches the whole build ──
// Registered once the lab is ready, so its downloads never compete with loading Python; on
// http(s) only. A page open while a new build takes over is told to reload. Not versioned: the
// service worker's URL must stay the same from build to build.
let swRegistered = false;
function registerServiceWorker() {
  if (swRegistered || !('serviceWorker' in navigator) || !/^https?:$/.test(location.protocol)) return;
  swRegistered = true;
  const hadController = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (hadController) setNote('Đã có bản mới của bài lab: tải lại trang để dùng bản mới.');
  });
  navigator.serviceWorker.register(new URL('../sw.js', import.meta.url).href)
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
    setNote('Chưa chạy: sửa ' + errors.length + ' ô được đánh dấu.');
    return;
  }
  const patches = store.get().patches;
  const id = worker.run(config, patches); // first: the engine starts while the page updates
  store.set({
    inflight: {
      id,
      started: performance.now(),
      config,
      patched: patches.length > 0,
      slowTimer: patches.length ? null : setTimeout(() => {
        setNote('Lần chạy đã quá ' + SLOW_RUN_MS / 1000 + ' giây. Bấm Dừng để dừng và khởi động lại Python (các giá trị bạn nhập được giữ nguyên).');
      }, SLOW_RUN_MS),
    },
  });
  setStatus('running', 'Đang chạy engine với cấu hình hiện tại…', 'Có thể bấm Dừng nếu chạy quá lâu.');
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
    onRunError({ message: 'Engine trả về kết quả không đọc được.' });
    return;
  }
  if (!result.ok) {
    const errors = Array.isArray(result.errors) ? result.errors : [];
    const unplaced = controls.showFieldErrors(errors);
    if (unplaced.length || errors.length === 0) {
      panels.showPageError('Engine không chạy với cấu hình này.', unplaced.map((e) => (e.field ? e.field + ': ' : '') + e.message).join('\n') || 'Không có chi tiết.');
    }
    if (errors.length && errors.every((e) => String(e.field || '').startsWith('patch'))) {
      setNote('Chưa chạy: mã Python đã sửa có lỗi; xem thông báo bên cạnh trình sửa mã. Các khối giữ output trước.');
      setStatus('error', 'Mã đã sửa có lỗi. Sửa trong trình sửa mã rồi bấm Chạy (hoặc Khôi phục).', '');
    } else {
      setNote('Chưa chạy: engine báo lỗi ở giá trị nhập.');
      setStatus('error', 'Engine từ chối cấu hình. Sửa các ô được đánh dấu rồi bấm Chạy.', '');
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
  setStatus('done', 'Xong (' + seconds + ' giây thật trong trình duyệt) · ' + (passed ? 'PASS' : 'FAIL') + '.',
    'Đọc output ngay dưới từng hàng của bảng ánh xạ, rồi TỔNG KẾT ở cuối bảng.');
  const t1 = performance.now();
  store.set({ lastResult: { result, config } });
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
  panels.showPageError('Engine gặp lỗi khi chạy.', (msg.message || 'Lỗi không rõ.') +
    ' Các giá trị bạn nhập vẫn còn; thử đổi lại giá trị hoặc bấm Mặc định rồi Chạy.', msg.details);
  setStatus('error', 'Lần chạy bị lỗi. Trang vẫn dùng được, bạn có thể bấm Chạy lại.', '');
  finishRun();
  if (msg.fatal) restartWorker('Python đã được khởi động lại sau lỗi.');
}

function stop() {
  stopRun('user');
}

// reason: 'user' (Dừng) or 'watchdog' (a run with edited code ran too long).
function stopRun(reason) {
  const { inflight } = store.get();
  if (!inflight) return;
  restartWorker(reason === 'watchdog'
    ? 'Đã dừng: lần chạy với mã đã sửa quá ' + WATCHDOG_MS / 1000 + ' giây. Python đang khởi động lại; mã và các giá trị bạn nhập được giữ nguyên.'
    : 'Đã dừng lần chạy và đang khởi động lại Python. Các giá trị bạn nhập được giữ nguyên.');
  store.emit('stopped', { reason, patched: inflight.patched });
}

// The edited functions every run sends from now on ([] for none).
function setPatches(patches) {
  store.set({ patches: Array.isArray(patches) ? patches : [] });
}

function reset() {
  controls.clearFieldErrors();
  store.emit('reset');
  controls.resetValues();
  setNote('Đã đặt lại giá trị mặc định. Bấm Chạy để chạy lại.');
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
  if (location.protocol === 'file:') return; // static/boot.js has said how to serve the page
  el.form.addEventListener('submit', (event) => { event.preventDefault(); run(); });
  el.reset.addEventListener('click', reset);
  el.stop.addEventListener('click', stop);
  const { register } = createLabApi({ store, controls, panels, run, stop, runWith, canRun, setNote, setPatches,
    watchdogMs: WATCHDOG_MS, toolbar, form: el.form });
  if (typeof Worker === 'undefined') {
    register('exercises', exercises.init);
    fatal('Trình duyệt này không hỗ trợ Web Worker.', 'Hãy dùng một trình duyệt mới (Chrome, Edge, Firefox hoặc Safari bản gần đây).');
    return;
  }
  for (const [name, initTool] of TOOLS) register(name, initTool);
  startWorker();
}

init();
