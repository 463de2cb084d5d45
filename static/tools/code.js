// "Mã Python" beside every block and "Sửa mã": the engine's own source, and an editor to rewrite
// some of its functions and run the whole lab with them.
// - Each block panel gets a fold <details data-code-for="N"> with the source of the functions and
//   classes py/inference_lab/words/blocks.py names for it, exactly as in the package: build.py cuts it with
//   its file name and line numbers into dist/code.json and highlights it (runs of [class, text],
//   coloured by static/tools/code.css). The text goes in with textContent; line numbers are drawn by CSS
//   (data-line), so the fold's text is the source itself.
// - The functions blocks.py marks editable get "Sửa mã": a CodeMirror 6 editor (static/vendor/
//   codemirror.js, loaded the first time one is opened; a plain text area if it cannot load) showing
//   the function at its line numbers in the engine's file. Run runs the whole lab with every edited
//   function (web.run(config, patches), patch.py); the panels show the usual old → new marks.
//   "Khôi phục" puts the original back. A mistake (syntax, exception, wrong return value) comes back
//   as an error on field "patch:<module.function>" and is shown beside its editor; the panels keep
//   the previous output. A run with edits that takes more than WATCHDOG_MS is stopped by app.js (it
//   restarts Python): the edit stays and the message says why.
// - Edits live in localStorage (a reload loses nothing) and in the address (PATCH=, base64url JSON
//   {module.function: source}: this tool's part of the address, registered with lab.address; edits
//   from an address are shown in their editors, never stored, and win over the stored ones).
// - After a run with edits, every panel carries a marker [data-edited-code] saying so.
// A tool of static/core/lab-api.js: lab.setPatches(), lab.run(), lab.stop() and the events 'ready',
// 'result', 'fieldError', 'clearErrors', 'stopped', 'runnable', 'status'.

import { make } from '../core/dom.js';
import { versioned } from '../core/versioned.js';
import { fromBase64Url, toBase64Url } from '../core/share-state.js';
import { tl } from '../words/i18n.js';

const PATCH_PARAM = 'PATCH';
const STORAGE_KEY = 'inference-lab:patches';
const STASH_KEY = 'inference-lab:patches-before-exercise';
const CODE_JSON = '../../code.json';

// Text of one highlighted line: its runs are [class, text, class, text, …].
const lineText = (runs) => runs.filter((_, i) => i % 2 === 1).join('');
const sourceOf = (entry) => entry.lines.map(lineText).join('\n') + '\n';
const fileName = (entry) => entry.file.split('/').pop();

// {ref: source} from the address's PATCH= (or an error text); pure apart from atob.
export function decodePatches(raw) {
  let value;
  try {
    value = JSON.parse(fromBase64Url(raw));
  } catch (err) {
    return { error: tl('không giải mã được (cần base64url của JSON).', 'cannot be decoded (it must be base64url of JSON).') };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value) ||
      !Object.entries(value).every(([k, v]) => /^[a-z_]+\.[A-Za-z_]\w*$/.test(k) && typeof v === 'string')) {
    return { error: tl('cần một đối tượng {"mô-đun.hàm": "mã nguồn"}.', 'needs an object {"module.function": "source"}.') };
  }
  return { patches: value };
}

export const encodePatches = (patches) => toBase64Url(JSON.stringify(patches));

function loadStored() {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) || '{}');
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch (err) {
    return {};
  }
}

function store(edits) {
  try {
    if (Object.keys(edits).length) localStorage.setItem(STORAGE_KEY, JSON.stringify(edits));
    else localStorage.removeItem(STORAGE_KEY);
    return true;
  } catch (err) {
    return false;
  }
}

export function init(lab) {
  let views = null;            // code.json: {blocks, editable, sources}
  let loading = null;          // its fetch
  let codemirror = null;       // the editor module's promise
  const editors = new Map();   // ref -> {figure, host, errorBox, printed, runButton, restore, status, api}
  let edits = {};              // ref -> the student's source (only functions that differ from the original)
  let addressProblem = '';     // PATCH= in the address could not be read
  let lastRunPatched = [];     // refs the last run shown ran edited
  let ranWith = {};            // ref -> the source the last run shown ran (to tell a later edit)
  let stash = null;            // the student's edits an exercise put aside ({ref: source}), or null
  let stashUi = null;          // the toolbar button that puts them back
  let quiet = false;           // true while the address's edits go into the editors (never stored)

  edits = loadStored();
  lab.setPatches(patchList());
  lab.address.register(PATCH_PARAM, { apply: applyAddress, write: addressPart });
  try { stash = JSON.parse(localStorage.getItem(STASH_KEY) || 'null'); } catch (err) { stash = null; }
  if (stash) showStash();

  lab.on('ready', ({ first }) => { if (first) loadViews(); });
  lab.on('result', (result) => {
    lastRunPatched = result && Array.isArray(result.patched) ? result.patched : [];
    ranWith = Object.assign({}, edits);
    for (const ed of editors.values()) {
      ed.errorBox.hidden = true;
      ed.errorBox.textContent = '';
    }
    showPrinted(result && result.printed);
    for (const [ref, ed] of editors) updateEditorState(ref, ed);
    markPanels();
  });
  lab.on('clearErrors', () => {
    for (const ed of editors.values()) { ed.errorBox.hidden = true; ed.errorBox.textContent = ''; }
  });
  lab.on('fieldError', (name, message) => placeError(name, message));
  lab.on('stopped', ({ reason, patched }) => {
    if (!patched) return;
    const text = reason === 'watchdog'
      ? tl('Đã dừng: lần chạy với mã đã sửa quá ', 'Stopped: the run with edited code took more than ') + lab.watchdogSeconds() + tl(' giây (có thể là một vòng lặp không bao giờ kết thúc). Python đã được khởi động lại; mã của bạn vẫn còn ở đây.', ' seconds (perhaps a loop that never ends). Python was restarted; your code is still here.')
      : tl('Đã dừng lần chạy với mã đã sửa và khởi động lại Python; mã của bạn vẫn còn ở đây.', 'Stopped the run with edited code and restarted Python; your code is still here.');
    for (const ref of Object.keys(edits)) {
      const ed = editors.get(ref);
      if (ed) showError(ed, text);
    }
    if (!Object.keys(edits).some((ref) => editors.has(ref))) lab.setNote(text);
  });
  lab.on('runnable', (canRun) => {
    for (const ed of editors.values()) ed.runButton.disabled = !canRun;
  });

  // ── the patches Run sends ──────────────────────────────────────────────────
  function patchList() {
    return Object.entries(edits).map(([ref, source]) => {
      const [module, fn] = ref.split('.');
      const entry = views && views.sources[ref];
      return { module, function: fn, source, key: ref, name: module + '.py', first_line: entry ? entry.start : 1 };
    });
  }

  function setEdit(ref, source) {
    const entry = views && views.sources[ref];
    if (entry && source === sourceOf(entry)) delete edits[ref];
    else edits[ref] = source;
    store(edits);
    lab.setPatches(patchList());
    const ed = editors.get(ref);
    if (ed) updateEditorState(ref, ed);
  }

  // ── the address (static/core/address.js asks) ──────────────────────────────
  function addressPart() {
    return Object.keys(edits).length ? encodePatches(edits) : null;
  }

  // PATCH= of an opened address (values: every PATCH= in it): edits from the address win over the
  // stored ones (a shared link shows what it was made with); without PATCH= the stored ones are shown.
  // Loaded into the editors only: whether they run at once is the address owner's call (its part's
  // `runs`), so a link's edits can wait for a click.
  function applyAddress(values) {
    addressProblem = '';
    let wanted = loadStored();
    if (values.length) {
      const decoded = decodePatches(values[values.length - 1]);
      if (decoded.error) addressProblem = tl('Mã đã sửa trong địa chỉ (', 'The edited code in the address (') + PATCH_PARAM + '=) ' + decoded.error + tl(' Đã bỏ qua.', ' Ignored.');
      else wanted = decoded.patches;
    }
    showEdits(wanted);
    if (addressProblem && views) lab.setNote(addressProblem);
  }

  // ── the code views ─────────────────────────────────────────────────────────
  function loadViews() {
    if (!loading) {
      loading = fetch(versioned(CODE_JSON)).then((r) => {
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.json();
      }).then((data) => {
        views = data;
        lab.setPatches(patchList());  // first_line now known
        buildViews();
        return data;
      }).catch((err) => {
        console.warn('code views not loaded:', err);
        return null;
      });
    }
    return loading;
  }

  function panelOf(n) {
    const section = lab.sections().find((s) => s.key === String(n));
    return section ? section.pre.closest('[data-block]') : null;
  }

  function buildViews() {
    for (const [n, refs] of Object.entries(views.blocks)) {
      const panel = panelOf(n);
      if (!panel || panel.querySelector('[data-code-for]')) continue;
      const fold = make('details', { class: 'code-view', 'data-code-for': n });
      const files = [...new Set(refs.map((ref) => fileName(views.sources[ref])))].join(', ');
      const summary = make('summary', {}, tl('Mã Python', 'Python code'));
      summary.append(' ', make('span', { class: 'code-files' }, '(' + files + ')'));
      fold.append(summary);
      const editable = new Set(views.editable[n] || []);
      for (const ref of refs) fold.append(unitView(ref, editable.has(ref)));
      panel.append(fold);
    }
    for (const ref of Object.keys(edits)) {
      if (!views.sources[ref]) continue;
      openEditor(ref, false);   // edits from the address or a reload: shown in their editors
    }
    if (addressProblem) lab.setNote(addressProblem);
    markPanels();
  }

  function unitView(ref, editable) {
    const entry = views.sources[ref];
    const end = entry.start + entry.lines.length - 1;
    const figure = make('figure', { class: 'code-unit', 'data-code-ref': ref });
    const caption = make('figcaption');
    const where = make('span', { class: 'code-where' });
    where.append(make('code', {}, entry.file), tl(', dòng ', ', line ') + entry.start + '–' + end + ': ', make('code', { class: 'code-name' }, entry.qualname));
    caption.append(where);
    if (editable) {
      const edit = make('button', { type: 'button', class: 'btn btn-small', 'data-action': 'edit-code', 'aria-expanded': 'false' }, tl('Sửa mã', 'Edit code'));
      edit.addEventListener('click', () => openEditor(ref, true));
      caption.append(' ', edit);
    }
    figure.append(caption, codeBlock(entry));
    return figure;
  }

  function codeBlock(entry) {
    // <code> shown as a block, not <pre>: a panel's only <pre> is its lines ([data-block] pre).
    const pre = make('code', { class: 'code-block', tabindex: '0', role: 'region', 'aria-label': entry.qualname + ' (' + entry.file + ')' });
    const frag = document.createDocumentFragment();
    entry.lines.forEach((runs, i) => {
      if (i > 0) frag.append('\n');
      const line = make('span', { class: 'code-line', 'data-line': String(entry.start + i) });
      for (let j = 0; j < runs.length; j += 2) {
        line.append(runs[j] ? make('span', { class: runs[j] }, runs[j + 1]) : runs[j + 1]);
      }
      frag.append(line);
    });
    pre.append(frag, '\n');
    return pre;
  }

  // ── the editors ─────────────────────────────────────────────────────────────
  function loadCodeMirror() {
    if (!codemirror) codemirror = import(versioned('../vendor/codemirror.js')).catch((err) => {
      console.warn('CodeMirror not loaded, using a text area:', err);
      return null;
    });
    return codemirror;
  }

  function openEditor(ref, focus) {
    if (editors.has(ref)) {
      const ed = editors.get(ref);
      ed.figure.closest('details').open = true;
      if (focus) ed.api.focus();
      return ed;
    }
    const entry = views.sources[ref];
    const figure = document.querySelector('[data-code-ref="' + ref + '"]');
    if (!entry || !figure) return null;
    const [module, fn] = ref.split('.');
    const box = make('div', { class: 'code-editor', 'data-code-editor': ref, role: 'group', 'aria-label': tl('Sửa ', 'Edit ') + fn });
    const help = make('p', { class: 'code-help' }, tl('Sửa hàm ', 'Edit the function ') + fn + ' (' + module + tl('.py) rồi bấm Chạy: cả bài lab chạy với hàm của bạn. ', '.py), then press Run: the whole lab runs with your function. ') +
      tl('Ctrl+Enter cũng chạy; Esc rồi Tab để rời trình sửa. Hàm phụ của riêng bạn: đặt tên bắt đầu bằng _.', 'Ctrl+Enter runs too; Esc then Tab leaves the editor. Helper functions of your own: start their names with _.'));
    const host = make('div', { class: 'code-editor-host' });
    const actions = make('div', { class: 'code-actions' });
    const runButton = make('button', { type: 'button', class: 'btn btn-primary', 'data-action': 'run-code', disabled: !lab.canRun() }, tl('Chạy với mã này', 'Run with this code'));
    const restore = make('button', { type: 'button', class: 'btn', 'data-action': 'restore-code' }, tl('Khôi phục', 'Restore'));
    const stop = make('button', { type: 'button', class: 'btn', 'data-action': 'stop-code', hidden: true }, tl('Dừng', 'Pause'));
    const status = make('span', { class: 'code-status', 'data-code-status': '', 'aria-live': 'polite' });
    actions.append(runButton, restore, stop, status);
    const errorBox = make('div', { class: 'code-error', 'data-error-for': 'patch:' + ref, role: 'alert', hidden: true });
    const printed = make('div', { class: 'code-printed', hidden: true });
    box.append(help, host, actions, errorBox, printed);
    figure.append(box);
    figure.classList.add('is-editing');
    const button = figure.querySelector('[data-action="edit-code"]');
    if (button) button.setAttribute('aria-expanded', 'true');
    const ed = { figure, host, errorBox, printed, runButton, restore, stop, status, api: null };
    editors.set(ref, ed);
    runButton.addEventListener('click', () => lab.run());
    restore.addEventListener('click', () => {
      ed.api.setDoc(sourceOf(entry));
      setEdit(ref, sourceOf(entry));
      errorBox.hidden = true;
      status.textContent = lastRunPatched.includes(ref) ? tl('Đã khôi phục mã gốc; bấm Chạy để chạy lại với nó.', 'The original code is back; press Run to run with it again.') : tl('Đã khôi phục mã gốc.', 'The original code is back.');
    });
    stop.addEventListener('click', () => lab.stop());
    lab.on('status', (s) => { stop.hidden = s !== 'running'; });
    figure.closest('details').open = true;
    const doc = ref in edits ? edits[ref] : sourceOf(entry);
    const options = { doc, firstLine: entry.start, label: tl('Mã Python của ', 'Python code of ') + fn,
      onChange: (text) => { if (!quiet) setEdit(ref, text); }, onRun: () => { if (lab.canRun()) lab.run(); } };
    ed.api = textAreaEditor(host, options); // usable at once; CodeMirror replaces it when loaded
    loadCodeMirror().then((module) => {
      if (!module) return;
      const text = ed.api.getDoc();
      const hadFocus = host.contains(document.activeElement);
      ed.api.destroy();
      ed.api = module.createEditor(host, Object.assign({}, options, { doc: text }));
      // The editable text is in the Tab order already (contenteditable), but axe-core's
      // scrollable-region-focusable rule only counts an explicit tabindex: without it, the editor's
      // scroller (sideways on a phone) reads as a region the keyboard cannot reach. CodeMirror keeps
      // attributes it does not manage itself.
      if (ed.api.view && ed.api.view.contentDOM) ed.api.view.contentDOM.setAttribute('tabindex', '0');
      host.dataset.editor = 'codemirror';
      if (focus || hadFocus) ed.api.focus();
    });
    updateEditorState(ref, ed);
    return ed;
  }

  // The fallback editor: a plain text area with the same small API.
  function textAreaEditor(host, { doc, label, onChange, onRun }) {
    const area = make('textarea', { class: 'code-textarea', spellcheck: 'false', 'aria-label': label, rows: String(Math.min(24, doc.split('\n').length + 1)) });
    area.value = doc;
    area.addEventListener('input', () => onChange(area.value));
    area.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) { event.preventDefault(); onRun(); }
    });
    host.append(area);
    host.dataset.editor = 'textarea';
    return {
      getDoc: () => area.value,
      setDoc: (text) => { area.value = text; },
      focus: () => area.focus(),
      destroy: () => area.remove(),
    };
  }

  function updateEditorState(ref, ed) {
    const edited = ref in edits;
    ed.figure.classList.toggle('is-edited', edited);
    ed.restore.disabled = !edited;
    const ran = lastRunPatched.includes(ref) && ref in edits && edits[ref] === ranWith[ref];
    ed.status.textContent = ran ? tl('Lần chạy vừa rồi dùng mã này (các khối phía trên và TỔNG KẾT).', 'The last run used this code (the blocks above and the SUMMARY).')
      : edited ? tl('Đã sửa; bấm Chạy để chạy cả bài lab với mã này.', 'Edited; press Run to run the whole lab with this code.') : '';
  }

  function showError(ed, message) {
    ed.errorBox.textContent = message;
    ed.errorBox.hidden = false;
    ed.status.textContent = tl('Chưa chạy được với mã này: xem lỗi bên dưới. Mã của bạn vẫn còn; các khối giữ output trước.', 'Could not run with this code: see the error below. Your code is still here; the blocks keep the previous output.');
  }

  // An engine error about "patch:<ref>" goes beside that editor (opened if needed).
  function placeError(name, message) {
    if (typeof name !== 'string' || !name.startsWith('patch')) return null;
    const ref = name.slice('patch:'.length);
    let ed = editors.get(ref) || (views && views.sources[ref] ? openEditor(ref, false) : null);
    if (!ed) ed = editors.get(Object.keys(edits).find((r) => editors.has(r)));
    if (!ed) return null;
    if (message === null) { ed.errorBox.hidden = true; return ed.errorBox; }
    showError(ed, message);
    return ed.errorBox;
  }

  function showPrinted(text) {
    for (const [ref, ed] of editors) {
      ed.printed.replaceChildren();
      ed.printed.hidden = !(text && ref in edits);
      if (ed.printed.hidden) continue;
      ed.printed.append(make('p', { class: 'code-printed-title' }, tl('Mã của bạn đã in (print):', 'Your code printed (print):')), make('div', { class: 'code-printed-text' }, text));
    }
  }

  // Every panel says the last run ran edited code.
  function markPanels() {
    for (const section of lab.sections()) {
      const panel = section.pre.closest('[data-block]');
      if (!panel) continue;
      const summary = panel.querySelector(':scope > summary');
      let marker = summary && summary.querySelector('[data-edited-code]');
      if (!lastRunPatched.length) { if (marker) marker.remove(); continue; }
      if (!marker && summary) {
        marker = make('span', { class: 'edited-code', 'data-edited-code': '' });
        summary.append(marker);
      }
      if (marker) {
        marker.textContent = tl('chạy mã đã sửa', 'ran edited code');
        marker.title = tl('Lần chạy này dùng mã bạn sửa: ', 'This run used your edited code: ') + lastRunPatched.join(', ');
        marker.dataset.editedCode = lastRunPatched.join(' ');
      }
    }
  }

  // An exercise runs with exactly its [patch] ({} for most): its functions go into the editors and
  // every other edited function gets its original back. The student's own edits are not lost: they
  // are kept (localStorage too) and a toolbar button puts them back.
  function applyExercise(functions) {
    const wanted = functions || {};
    if (JSON.stringify(edits) === JSON.stringify(wanted)) return;
    if (Object.keys(edits).length) {
      stash = Object.assign({}, edits);
      try { localStorage.setItem(STASH_KEY, JSON.stringify(stash)); } catch (err) { /* kept in memory */ }
    }
    setAll(wanted);
    showStash();
  }

  // edits := functions, in the editors as well.
  function setAll(functions) {
    for (const ref of Object.keys(edits)) {
      if (ref in functions) continue;
      const entry = views && views.sources[ref];
      if (!entry) { delete edits[ref]; continue; }
      const ed = editors.get(ref);
      if (ed) ed.api.setDoc(sourceOf(entry));
      setEdit(ref, sourceOf(entry));
    }
    for (const [ref, source] of Object.entries(functions)) {
      setEdit(ref, source);
      const ed = views && views.sources[ref] ? openEditor(ref, false) : null;
      if (ed) ed.api.setDoc(source);
    }
    store(edits);
    lab.setPatches(patchList());
  }

  // edits := functions in memory and in the editors, nothing stored (the address's edits).
  function showEdits(functions) {
    edits = Object.assign({}, functions);
    quiet = true;
    for (const [ref, ed] of editors) if (!(ref in edits)) ed.api.setDoc(sourceOf(views.sources[ref]));
    if (views) for (const [ref, source] of Object.entries(edits)) {
      const ed = views.sources[ref] ? openEditor(ref, false) : null;
      if (ed) ed.api.setDoc(source);
    }
    quiet = false;
    lab.setPatches(patchList());
    for (const [ref, ed] of editors) updateEditorState(ref, ed);
  }

  function showStash() {
    if (!stashUi) {
      stashUi = make('button', { type: 'button', class: 'btn', 'data-action': 'unstash-code', hidden: true });
      stashUi.addEventListener('click', () => {
        if (!stash) return;
        setAll(stash);
        stash = null;
        try { localStorage.removeItem(STASH_KEY); } catch (err) { /* nothing kept */ }
        showStash();
        lab.setNote(tl('Đã lấy lại mã bạn sửa trước bài tập; bấm Chạy để chạy với nó.', 'Brought back the code you edited before the exercise; press Run to run with it.'));
      });
      const group = make('div', { class: 'tool-group code-tools' });
      group.append(stashUi);
      lab.addToToolbar(group, 2);
    }
    stashUi.hidden = !stash;
    if (stash) stashUi.textContent = tl('Lấy lại mã bạn đã sửa (', 'Bring back the code you edited (') + Object.keys(stash).join(', ') + ')';
  }

  return { addressPart, applyExercise, edits: () => Object.assign({}, edits), loadViews };
}
