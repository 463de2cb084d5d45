// Inference Lab page: builds the controls from the engine's description, talks to the worker
// (static/worker.js owns Pyodide) and shows each block's output under its row of the mapping table.
// Everything that comes from the engine or the user is inserted with textContent, never as HTML.
// A classic (non-module) script so that the file:// check below still runs when modules cannot load.
(function () {
  'use strict';

  const SLOW_RUN_MS = 30000;
  const HEADLINE_ORDER = ['SLOTS', 'QUEUE_LIMIT', 'TOKEN_BUDGET', 'BLOCK_SIZE', 'POOL_BLOCKS', 'QUANT_BITS', 'FOLLOW'];
  const SCRIPT_URL = document.currentScript ? document.currentScript.src : location.href;

  const el = {
    status: document.getElementById('status'),
    statusText: document.getElementById('status-text'),
    statusDetail: document.getElementById('status-detail'),
    progress: document.getElementById('status-progress'),
    pageError: document.getElementById('page-error'),
    form: document.getElementById('controls'),
    headline: document.getElementById('fields-headline'),
    advanced: document.getElementById('fields-advanced'),
    advancedFold: document.getElementById('advanced'),
    run: document.querySelector('[data-action="run"]'),
    reset: document.querySelector('[data-action="reset"]'),
    stop: document.querySelector('[data-action="stop"]'),
    actionNote: document.getElementById('action-note'),
    verdict: document.getElementById('verdict'),
    summaryLines: document.getElementById('summary-lines'),
    checks: document.getElementById('checks'),
    checksList: document.getElementById('checks-list'),
    versions: document.getElementById('versions'),
    jump: document.getElementById('jump'),
  };

  const state = {
    worker: null,
    ready: false,
    fields: [],          // describe() entries that have a control
    inflight: null,      // {id, started, slowTimer} while a run is in the worker
    nextId: 1,
  };
  const runnableWatchers = []; // static/exercises.js: told whenever Run becomes possible or not

  // ── small DOM helpers ──────────────────────────────────────────────────────
  function make(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? '' : String(value));
    }
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  // Lines go into a <pre>, one block <span> each (hanging indent when a long line wraps). The hidden
  // newline between them makes textContent equal the command-line text too (innerText already does).
  // A re-run mostly prints the same lines with a few numbers changed, so the spans this function made
  // last time are kept and only the text of the lines that differ is replaced (which also clears the
  // marks static/compare.js drew in them); lines are added or removed at the end.
  const shownLines = new WeakMap(); // pre -> [the .line spans fillLines left in it]

  function fillLines(pre, lines, prefix) {
    const p = prefix || '';
    const old = shownLines.get(pre);
    if (!old || !old.length || !lines.length || old[0].parentNode !== pre || pre.childNodes.length !== 2 * old.length - 1) {
      const frag = document.createDocumentFragment();
      const spans = lines.map((line, i) => {
        if (i > 0) frag.append(make('span', { class: 'nl' }, '\n'));
        return frag.appendChild(make('span', { class: 'line' }, p + line));
      });
      pre.replaceChildren(frag);
      shownLines.set(pre, spans);
      return;
    }
    const keep = Math.min(old.length, lines.length);
    for (let i = 0; i < keep; i++) {
      const span = old[i];
      const text = p + lines[i];
      const only = span.firstChild;
      if (!only || only !== span.lastChild || only.nodeType !== Node.TEXT_NODE || only.data !== text) span.textContent = text;
    }
    const spans = old.slice(0, keep);
    if (lines.length > keep) {
      const frag = document.createDocumentFragment();
      for (let i = keep; i < lines.length; i++) {
        frag.append(make('span', { class: 'nl' }, '\n'));
        spans.push(frag.appendChild(make('span', { class: 'line' }, p + lines[i])));
      }
      pre.append(frag);
    }
    for (let i = keep; i < old.length; i++) {
      old[i].previousSibling.remove(); // its newline
      old[i].remove();
    }
    shownLines.set(pre, spans);
  }

  // ── status line (the data-status hook) ─────────────────────────────────────
  function setStatus(status, text, detail, fraction) {
    el.status.dataset.status = status;
    el.statusText.textContent = text;
    el.statusDetail.textContent = detail || '';
    if (fraction === undefined || fraction === null) el.progress.hidden = true;
    else { el.progress.hidden = false; el.progress.value = Math.max(0, Math.min(1, fraction)); }
    updateButtons();
  }

  // steps: optional [{text, command}] shown as an explanation followed by a command to copy.
  function showPageError(title, message, details, steps) {
    el.pageError.replaceChildren(make('p', { class: 'error-title' }, title));
    if (message) el.pageError.append(make('p', {}, message));
    for (const step of steps || []) {
      const line = make('p', { class: 'command' });
      line.append(make('code', {}, step.command));
      el.pageError.append(make('p', {}, step.text), line);
    }
    if (details) {
      const fold = make('details');
      fold.append(make('summary', {}, 'Chi tiết kỹ thuật'), make('pre', { class: 'trace' }, details));
      el.pageError.append(fold);
    }
    el.pageError.hidden = false;
  }

  function clearPageError() {
    el.pageError.hidden = true;
    el.pageError.replaceChildren();
  }

  function updateButtons() {
    const busy = state.inflight !== null;
    el.run.disabled = !state.ready || busy;
    el.reset.disabled = state.fields.length === 0;
    el.stop.hidden = !busy;
    runnableWatchers.forEach((fn) => fn());
  }

  // ── the worker ─────────────────────────────────────────────────────────────
  function startWorker() {
    state.ready = false;
    setStatus('loading', 'Đang tải Python (Pyodide) và NumPy trong trình duyệt…', 'Lần đầu có thể mất 10–60 giây.', 0);
    const early = window.labBoot ? window.labBoot.take() : null; // started by static/boot.js at page load
    let worker = early && early.worker;
    if (!worker) {
      try {
        const url = new URL('worker.js', SCRIPT_URL);
        url.search = new URL(SCRIPT_URL).search; // same cache-busting version as app.js
        worker = new Worker(url.href);
      } catch (err) {
        fatal('Không khởi động được Web Worker (static/worker.js).', 'Hãy mở trang qua máy chủ web: chạy “python3 build.py serve” rồi mở địa chỉ được in ra.', String(err));
        return;
      }
    }
    const onError = (event) => {
      event.preventDefault();
      if (worker !== state.worker) return;
      fatal('Không tải được static/worker.js hoặc tệp Pyodide mà nó cần.',
        'Kiểm tra rằng thư mục dist/ được tạo bằng “python3 build.py” và được phục vụ qua “python3 build.py serve”, rồi tải lại trang.',
        event.message || '');
    };
    worker.onmessage = (event) => onWorkerMessage(worker, event.data);
    worker.onerror = onError;
    state.worker = worker;
    if (early) {
      for (const event of early.events) onWorkerMessage(worker, event.data);
      if (early.error) onError(early.error);
    }
  }

  function restartWorker(reason) {
    if (state.worker) state.worker.terminate();
    state.worker = null;
    finishRun();
    if (reason) el.actionNote.textContent = reason;
    startWorker();
  }

  function fatal(title, message, details) {
    state.ready = false;
    finishRun();
    setStatus('error', 'Python chưa chạy được trong trang này; xem lý do và cách sửa bên dưới.',
      'Các phần khác của trang vẫn đọc được. Sửa xong, tải lại trang hoặc bấm “Tải lại Python”.');
    showPageError(title, message, details);
    const retry = make('button', { type: 'button', class: 'btn' }, 'Tải lại Python');
    retry.addEventListener('click', () => { clearPageError(); restartWorker(''); });
    el.pageError.append(retry);
  }

  function onWorkerMessage(worker, msg) {
    if (worker !== state.worker || !msg || typeof msg !== 'object') return; // a stopped worker's late message
    switch (msg.type) {
      case 'progress':
        setStatus('loading', 'Đang tải: ' + msg.stage, msg.detail, msg.fraction);
        break;
      case 'ready':
        onReady(msg);
        break;
      case 'result':
        if (state.inflight && msg.id === state.inflight.id) onResult(msg.result);
        break;
      case 'error':
        if (msg.id === undefined || (state.inflight && msg.id === state.inflight.id)) onRunError(msg);
        break;
      case 'fatal':
        fatal(msg.title || 'Không tải được Python.', msg.message, msg.details);
        break;
      case 'log':
        console.log('[engine ' + (msg.stream || 'log') + ']', msg.text);
        break;
      default:
        console.warn('unknown worker message', msg);
    }
  }

  function onReady(msg) {
    const schema = Array.isArray(msg.schema) ? msg.schema : [];
    const first = state.fields.length === 0;
    if (first) buildControls(schema); // keep what the user typed across restarts
    state.ready = true;
    const versions = msg.versions || {};
    el.versions.textContent = 'Python chạy trong trình duyệt nhờ Pyodide ' + (versions.pyodide || '') +
      ' (MPL-2.0); engine inference_lab ' + (versions.engine || '') + '. Không có dữ liệu nào rời khỏi máy của bạn.';
    setStatus('ready', 'Sẵn sàng. Chỉnh hằng số nếu muốn rồi bấm Chạy.', '');
    readyInfo = { schema, first };
    emit('ready', readyInfo);
    registerServiceWorker();
  }

  // ── offline: sw.js (build.py renders it from static/sw.js) caches the whole build ──
  // Registered once the lab is ready, so its downloads never compete with loading Python; on
  // http(s) only. A page open while a new build takes over is told to reload.
  let swRegistered = false;
  function registerServiceWorker() {
    if (swRegistered || !('serviceWorker' in navigator) || !/^https?:$/.test(location.protocol)) return;
    swRegistered = true;
    const hadController = Boolean(navigator.serviceWorker.controller);
    navigator.serviceWorker.addEventListener('controllerchange', () => {
      if (hadController) el.actionNote.textContent = 'Đã có bản mới của bài lab: tải lại trang để dùng bản mới.';
    });
    navigator.serviceWorker.register(new URL('../sw.js', SCRIPT_URL).href)
      .catch((err) => console.warn('service worker not registered:', err));
  }

  // ── controls built from describe() ─────────────────────────────────────────
  function buildControls(schema) {
    state.fields = schema.filter((f) => f && f.name && f.type !== 'requests');
    const headline = state.fields
      .filter((f) => f.group === 'headline' || HEADLINE_ORDER.includes(f.name))
      .sort((a, b) => rank(a) - rank(b));
    const advanced = state.fields.filter((f) => !headline.includes(f));
    el.headline.replaceChildren(...headline.map(buildField));
    el.advanced.replaceChildren(...advanced.map(buildField));
    el.advancedFold.hidden = advanced.length === 0;
  }

  function rank(field) {
    const i = HEADLINE_ORDER.indexOf(field.name);
    return i === -1 ? HEADLINE_ORDER.length : i;
  }

  function controlId(name) { return 'c-' + name; }

  function boundsText(field) {
    const lo = field.min !== null && field.min !== undefined;
    const hi = field.max !== null && field.max !== undefined;
    if (lo && hi) return 'từ ' + field.min + ' đến ' + field.max;
    if (lo) return 'ít nhất ' + field.min;
    if (hi) return 'nhiều nhất ' + field.max;
    return '';
  }

  function buildField(field) {
    const id = controlId(field.name);
    const wrap = make('div', { class: 'field', 'data-field': field.name });
    const label = make('label', { for: id });
    const text = field.label || field.name;
    label.append(make('span', { class: 'label-text' }, text));
    if (!text.includes(field.name)) label.append(' ', make('code', {}, field.name));
    const helpParts = [field.help, boundsText(field) && ('Giá trị ' + boundsText(field) + '.')].filter(Boolean);
    const help = make('p', { class: 'help', id: id + '-help' }, helpParts.join(' '));
    let control;
    if (field.type === 'choice') {
      control = make('select', { id, name: field.name });
      for (const choice of field.choices || []) control.append(make('option', { value: choice }, choice));
    } else {
      control = make('input', {
        id, name: field.name, type: 'text', autocomplete: 'off', spellcheck: 'false',
        inputmode: field.type === 'int' && !(field.min < 0) ? 'numeric' : 'decimal',
      });
      control.addEventListener('keydown', (event) => stepWithArrows(event, field));
    }
    control.dataset.constant = field.name;
    control.setAttribute('aria-describedby', help.id);
    control.value = formatValue(field.default);
    control.addEventListener('input', () => setFieldError(field.name, null));
    wrap.append(label, control, help);
    return wrap;
  }

  function formatValue(value) {
    return value === null || value === undefined ? '' : String(value);
  }

  function stepWithArrows(event, field) {
    if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return;
    const parsed = parseValue(field, event.target.value);
    if (parsed.error) return;
    const step = Number(field.step) || 1;
    let next = parsed.value + (event.key === 'ArrowUp' ? step : -step);
    if (field.min !== null && field.min !== undefined) next = Math.max(field.min, next);
    if (field.max !== null && field.max !== undefined) next = Math.min(field.max, next);
    if (field.type === 'float') next = Number(next.toFixed(10));
    event.preventDefault();
    event.target.value = String(next);
    setFieldError(field.name, null);
  }

  function parseValue(field, raw) {
    const text = String(raw).trim();
    if (field.type === 'choice') {
      return (field.choices || []).includes(text) ? { value: text } : { error: 'Hãy chọn một giá trị trong danh sách.' };
    }
    if (text === '') return { error: 'Hãy nhập một số.' };
    let value;
    if (field.type === 'int') {
      if (!/^[+-]?\d+$/.test(text)) return { error: 'Hãy nhập một số nguyên (không có dấu phẩy hay chữ).' };
      value = Number(text);
    } else {
      const normalized = text.replace(',', '.'); // accept 0,95 as well as 0.95
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(normalized)) return { error: 'Hãy nhập một số, ví dụ 0.95.' };
      value = Number(normalized);
    }
    if (!Number.isFinite(value) || (field.type === 'int' && !Number.isSafeInteger(value))) return { error: 'Số quá lớn.' };
    if (field.min !== null && field.min !== undefined && value < field.min) return { error: 'Giá trị nhỏ nhất là ' + field.min + '.' };
    if (field.max !== null && field.max !== undefined && value > field.max) return { error: 'Giá trị lớn nhất là ' + field.max + '.' };
    return { value };
  }

  function controlFor(name) {
    return el.form.querySelector('[data-constant="' + CSS.escape(name) + '"]');
  }

  function setFieldError(name, message) {
    const control = controlFor(name);
    if (!control) return placeFieldError(name, message);
    const wrap = control.closest('.field');
    const old = wrap.querySelector('[data-error-for]');
    if (old) old.remove();
    const describedBy = control.id + '-help';
    if (!message) {
      control.removeAttribute('aria-invalid');
      control.setAttribute('aria-describedby', describedBy);
      return true;
    }
    const error = make('p', { class: 'field-error', id: control.id + '-error', 'data-error-for': name }, message);
    wrap.append(error);
    control.setAttribute('aria-invalid', 'true');
    control.setAttribute('aria-describedby', describedBy + ' ' + error.id);
    return true;
  }

  function clearFieldErrors() {
    for (const field of state.fields) setFieldError(field.name, null);
    emit('clearErrors');
  }

  // Shows the errors beside their controls; returns the ones that have no control.
  function showFieldErrors(errors) {
    const unplaced = [];
    let first = null;
    for (const err of errors) {
      const placed = setFieldError(err.field, err.message); // true, or the editor cell it went beside
      if (placed) first = first || controlFor(err.field) || placed;
      else unplaced.push(err);
    }
    if (first) {
      if (el.advancedFold.contains(first)) el.advancedFold.open = true;
      first.focus();
    }
    return unplaced;
  }

  function readConfig() {
    const config = {};
    const errors = [];
    for (const field of state.fields) {
      const parsed = parseValue(field, controlFor(field.name).value);
      if (parsed.error) errors.push({ field: field.name, message: parsed.error });
      else config[field.name] = parsed.value;
    }
    emit('config', config, errors);
    return { config, errors };
  }

  // ── what static/exercises.js may do: see whether Run is possible, run with given constants ──
  const labApi = {
    canRun: () => state.ready && state.inflight === null && state.fields.length > 0,
    onRunnableChange: (fn) => { runnableWatchers.push(fn); fn(); },
    runWith,
  };

  // Mặc định, then `constants` in their controls, then the normal Run. Returns the names that have
  // no control (nothing is changed or run then), or null when Run is not possible now.
  function runWith(constants) {
    if (!labApi.canRun()) return null;
    const unknown = Object.keys(constants).filter((name) => !controlFor(name));
    if (unknown.length) return unknown;
    reset();
    for (const [name, value] of Object.entries(constants)) {
      const control = controlFor(name);
      control.value = formatValue(value);
      if (el.advancedFold.contains(control)) el.advancedFold.open = true;
    }
    run();
    return [];
  }

  function loadExercises() {
    const url = new URL('exercises.js', SCRIPT_URL);
    url.search = new URL(SCRIPT_URL).search; // same cache-busting version as app.js
    import(url.href).then((module) => module.init(labApi), (err) => {
      const list = document.getElementById('exercise-list');
      if (list) list.textContent = 'Không tải được static/exercises.js: ' + err;
    });
  }

  // ── Run / Stop / Reset ─────────────────────────────────────────────────────
  function run() {
    if (!state.ready || state.inflight) return; // disabled anyway; this also stops a double click
    clearFieldErrors();
    clearPageError();
    el.actionNote.textContent = '';
    const { config, errors } = readConfig();
    if (errors.length) {
      showFieldErrors(errors);
      el.actionNote.textContent = 'Chưa chạy: sửa ' + errors.length + ' ô được đánh dấu.';
      return;
    }
    const id = state.nextId++;
    state.inflight = {
      id,
      started: performance.now(),
      config,
      slowTimer: setTimeout(() => {
        el.actionNote.textContent = 'Lần chạy đã quá ' + SLOW_RUN_MS / 1000 + ' giây. Bấm Dừng để dừng và khởi động lại Python (các giá trị bạn nhập được giữ nguyên).';
      }, SLOW_RUN_MS),
    };
    state.worker.postMessage({ id, type: 'run', config }); // first: the engine starts while the page updates
    setStatus('running', 'Đang chạy engine với cấu hình hiện tại…', 'Có thể bấm Dừng nếu chạy quá lâu.');
    document.querySelectorAll('[data-block], #run-header').forEach((node) => node.setAttribute('aria-busy', 'true'));
  }

  function finishRun() {
    if (state.inflight) clearTimeout(state.inflight.slowTimer);
    state.inflight = null;
    document.querySelectorAll('[aria-busy]').forEach((node) => node.removeAttribute('aria-busy'));
    updateButtons();
  }

  function onResult(result) {
    const seconds = ((performance.now() - state.inflight.started) / 1000).toFixed(1);
    const config = state.inflight.config;
    finishRun();
    if (!result || typeof result !== 'object') {
      onRunError({ message: 'Engine trả về kết quả không đọc được.' });
      return;
    }
    if (!result.ok) {
      const errors = Array.isArray(result.errors) ? result.errors : [];
      const unplaced = showFieldErrors(errors);
      if (unplaced.length || errors.length === 0) {
        showPageError('Engine không chạy với cấu hình này.', unplaced.map((e) => (e.field ? e.field + ': ' : '') + e.message).join('\n') || 'Không có chi tiết.');
      }
      el.actionNote.textContent = 'Chưa chạy: engine báo lỗi ở giá trị nhập.';
      setStatus('error', 'Engine từ chối cấu hình. Sửa các ô được đánh dấu rồi bấm Chạy.', '');
      return;
    }
    const t0 = performance.now();
    renderReport(result.report || {});
    emit('lines', result.report || {});
    el.jump.hidden = false;
    const passed = result.report && result.report.passed;
    setStatus('done', 'Xong (' + seconds + ' giây thật trong trình duyệt) · ' + (passed ? 'PASS' : 'FAIL') + '.',
      'Đọc output ngay dưới từng hàng của bảng ánh xạ, rồi TỔNG KẾT ở cuối bảng.');
    const t1 = performance.now();
    emit('result', result, config);
    // User Timing entries for profiling (bench/render_profile.py): the panels, then the page tools.
    // Only the latest run's are kept, so the browser's timeline does not grow with every run.
    performance.clearMeasures('lab:render');
    performance.clearMeasures('lab:tools');
    performance.measure('lab:render', { start: t0, end: t1 });
    performance.measure('lab:tools', { start: t1, end: performance.now() });
  }

  function onRunError(msg) {
    finishRun();
    showPageError('Engine gặp lỗi khi chạy.', (msg.message || 'Lỗi không rõ.') +
      ' Các giá trị bạn nhập vẫn còn; thử đổi lại giá trị hoặc bấm Mặc định rồi Chạy.', msg.details);
    setStatus('error', 'Lần chạy bị lỗi. Trang vẫn dùng được, bạn có thể bấm Chạy lại.', '');
    if (msg.fatal) restartWorker('Python đã được khởi động lại sau lỗi.');
  }

  function stop() {
    if (!state.inflight) return;
    restartWorker('Đã dừng lần chạy và đang khởi động lại Python. Các giá trị bạn nhập được giữ nguyên.');
  }

  function reset() {
    clearFieldErrors();
    emit('reset');
    for (const field of state.fields) controlFor(field.name).value = formatValue(field.default);
    el.actionNote.textContent = 'Đã đặt lại giá trị mặc định. Bấm Chạy để chạy lại.';
  }

  // ── rendering the report ───────────────────────────────────────────────────
  function renderReport(report) {
    const header = document.getElementById('run-header');
    fillLines(header.querySelector('pre'), asLines(report.header));
    if (!header.open) header.open = true;
    const blocks = new Map((report.blocks || []).map((b) => [String(b.number), b]));
    const panels = [];
    for (let n = 1; n <= 13; n++) {
      const panel = document.querySelector('[data-block="' + n + '"]');
      const block = blocks.get(String(n));
      const title = panel.querySelector('.panel-title');
      if (block) {
        const heading = '[' + block.code + '] ' + block.title;
        if (title.textContent !== heading) title.textContent = heading;
        fillLines(panel.querySelector('pre'), asLines(block.lines), '   ');
      } else {
        fillLines(panel.querySelector('pre'), ['(Lần chạy này không in khối ' + n + '.)']);
      }
      if (!panel.open) panel.open = true;
      panels.push([panel, n]);
    }
    renderSummary(report);
    showCharts(panels, report);
  }

  // Charts drawn from each block's data (static/charts/, ES modules), above the panel's lines.
  // Loaded on the first run; the lines never depend on them. Once loaded, the charts of panels on or
  // near the screen are drawn in the same task as the lines (after them, so that the page is laid
  // out once for both); charts/index.js draws the others right after, when the page is idle.
  let chartsModule = null;
  let charts = null; // the module, once loaded
  function showCharts(panels, report) {
    if (charts) { charts.placeAllCharts(panels, report); return; }
    if (!chartsModule) {
      const url = new URL('charts/index.js', SCRIPT_URL);
      url.search = new URL(SCRIPT_URL).search; // same cache-busting version as app.js
      chartsModule = import(url.href).then((module) => { charts = module; return module; },
        (err) => { console.warn('charts not loaded:', err); return null; });
    }
    chartsModule.then((module) => module && module.placeAllCharts(panels, report));
  }

  function asLines(value) {
    return Array.isArray(value) ? value.map(String) : [];
  }

  function renderSummary(report) {
    const lines = asLines(report.summary);
    fillLines(el.summaryLines, lines);
    for (const line of el.summaryLines.querySelectorAll('.line')) {
      const verdict = /^(PASS|FAIL)\b/.exec(line.textContent);
      line.classList.toggle('pass', Boolean(verdict) && verdict[1] === 'PASS');
      line.classList.toggle('fail', Boolean(verdict) && verdict[1] === 'FAIL');
    }
    el.verdict.hidden = false;
    el.verdict.className = 'verdict ' + (report.passed ? 'pass' : 'fail');
    el.verdict.textContent = report.passed
      ? 'PASS — các phép kiểm tra cơ chế đều đạt (không phải phép đo tốc độ).'
      : 'FAIL — có phép kiểm tra cơ chế không đạt; xem danh sách bên dưới.';
    const checks = Array.isArray(report.checks) ? report.checks : [];
    el.checks.hidden = checks.length === 0;
    el.checksList.replaceChildren(...checks.map((c) => {
      const item = make('li', { class: c.ok ? 'ok' : 'not-ok' });
      item.append(make('span', { class: 'mark' }, c.ok ? 'đạt' : 'KHÔNG ĐẠT'), ' ', make('code', {}, c.name), ' ', c.detail ? String(c.detail) : '');
      return item;
    }));
  }

  // ── what static/editor.js, share.js and compare.js may do (request editor, address, marks) ──
  // Events: ready({schema, first}) · config(config, errors) while Run reads the controls ·
  // lines(report) as soon as a run's lines are in the panels (before the status says done; for
  // whatever rewrites those lines, so that it happens before anything reads layout) ·
  // result(result, config) after a run was shown · reset() · clearErrors() ·
  // fieldError(name, message) for a field with no control: return the element it went beside.
  const hooks = { ready: [], config: [], lines: [], result: [], reset: [], clearErrors: [], fieldError: [] };
  let readyInfo = null;

  function emit(name, ...args) {
    for (const fn of hooks[name]) {
      try { fn(...args); } catch (err) { console.error('[tools] ' + name, err); }
    }
  }

  function placeFieldError(name, message) {
    let placed = null;
    for (const fn of hooks.fieldError) {
      try { placed = fn(name, message) || placed; } catch (err) { console.error('[tools] fieldError', err); }
    }
    return placed || false;
  }

  const toolsApi = {
    on(name, fn) {
      hooks[name].push(fn);
      if (name === 'ready' && readyInfo) fn(readyInfo);
    },
    make, parseValue, formatValue, controlFor, setFieldError, readConfig, run,
    canRun: () => state.ready && state.inflight === null && state.fields.length > 0,
    fields: () => state.fields,
    setNote: (text) => { el.actionNote.textContent = text; },
    openAdvanced: (control) => { if (el.advancedFold.contains(control)) el.advancedFold.open = true; },
    // The toolbar under the status line where share.js and compare.js put their buttons.
    toolbar() {
      let bar = document.getElementById('run-tools');
      if (!bar) {
        bar = make('div', { id: 'run-tools', class: 'run-tools' });
        el.status.after(bar);
      }
      return bar;
    },
    // A choice field (FOLLOW) whose choices follow the request trace; keeps its value when still a choice.
    setChoices(name, choices) {
      const field = state.fields.find((f) => f.name === name);
      const control = controlFor(name);
      if (!field || !control || control.tagName !== 'SELECT') return;
      const current = control.value;
      field.choices = choices.slice();
      control.replaceChildren(...choices.map((choice) => make('option', { value: choice }, choice)));
      if (choices.includes(current)) control.value = current;
    },
  };

  function loadTools() {
    const names = ['editor', 'share', 'compare'];
    const load = (name) => {
      const url = new URL(name + '.js', SCRIPT_URL);
      url.search = new URL(SCRIPT_URL).search; // same cache-busting version as app.js
      return import(url.href);
    };
    Promise.all(names.map(load)).then((modules) => modules.forEach((module, i) => {
      try { toolsApi[names[i]] = module.init(toolsApi) || null; } catch (err) { console.error('[tools] ' + names[i], err); }
    }), (err) => console.error('[tools] không tải được static/editor.js, share.js hoặc compare.js', err));
  }

  // ── start ──────────────────────────────────────────────────────────────────
  function init() {
    el.form.addEventListener('submit', (event) => { event.preventDefault(); run(); });
    el.reset.addEventListener('click', reset);
    el.stop.addEventListener('click', stop);
    if (location.protocol === 'file:') {
      setStatus('error', 'Trang đang được mở trực tiếp từ tệp (file://), nên trình duyệt không cho chạy Python.', '');
      showPageError('Cần mở trang qua một máy chủ web cục bộ.', '', null, [
        { text: 'Trong thư mục dự án, chạy lệnh dưới đây rồi mở địa chỉ nó in ra (http://127.0.0.1:8000/):',
          command: 'python3 build.py serve' },
        { text: 'Nếu đã có thư mục dist/ dựng sẵn, cũng có thể chạy:',
          command: 'cd dist && python3 -m http.server 8000 --bind 127.0.0.1' },
      ]);
      return;
    }
    loadExercises();
    if (typeof Worker === 'undefined') {
      fatal('Trình duyệt này không hỗ trợ Web Worker.', 'Hãy dùng một trình duyệt mới (Chrome, Edge, Firefox hoặc Safari bản gần đây).');
      return;
    }
    startWorker();
    loadTools();
  }

  init();
})();
