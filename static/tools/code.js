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
//   {module.function: source}: this tool's part of the address, registered with lab.address).
// - A PATCH= address whose code is not the visitor's own stored edits is someone else's code: it is
//   shown in the editors (marked) and held by static/tools/link-code.js (its notice beside Run) until
//   the visitor's click; meanwhile Run runs the engine's own code and a PATCH= alone does not run at
//   once. The link's code then lives in the address only: the visitor's stored edits are never
//   overwritten. Exercises leave that mode.
// - After a run with edits, every panel carries a marker [data-edited-code] saying so.
// A tool of static/core/lab-api.js: lab.setPatches(), lab.run(), lab.stop() and the events 'ready',
// 'result', 'fieldError', 'clearErrors', 'stopped', 'runnable', 'status'. The drawing (listings, the
// editor's box, CodeMirror or a text area) is static/tools/code-view.js.

import { make } from '../core/dom.js';
import { versioned } from '../core/versioned.js';
import { editorBox, fileName, mountEditor, sourceOf, unitView } from './code-view.js';
import { fromBase64Url, toBase64Url } from '../core/share-state.js';
import { t } from '../words/i18n.js';
import { createLinkGate, sameEdits } from './link-code.js';

export const PATCH_PARAM = 'PATCH';
const STORAGE_KEY = 'inference-lab:patches';
const STASH_KEY = 'inference-lab:patches-before-exercise';
const CODE_JSON = '../../code.json';

// {ref: source} from the address's PATCH= (or an error text); pure apart from atob.
export function decodePatches(raw) {
  let value;
  try {
    value = JSON.parse(fromBase64Url(raw));
  } catch (err) {
    return { error: t('code.cannotDecodedMust') };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value) ||
      !Object.entries(value).every(([k, v]) => /^[a-z_]+\.[A-Za-z_]\w*$/.test(k) && typeof v === 'string')) {
    return { error: t('code.needsObjectModule') };
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
  const editors = new Map();   // ref -> {figure, host, errorBox, printed, runButton, restore, status, api}
  let edits = {};              // ref -> the student's source (only functions that differ from the original)
  let addressProblem = '';     // PATCH= in the address could not be read
  let lastRunPatched = [];     // refs the last run shown ran edited
  let ranWith = {};            // ref -> the source the last run shown ran (to tell a later edit)
  let stash = null;            // the student's edits an exercise put aside ({ref: source}), or null
  let stashUi = null;          // the toolbar button that puts them back
  let link = null;             // link-code.js's gate while the edits are someone else's PATCH= (not stored here)
  const held = () => Boolean(link && link.held()); // ... not run yet: runs send none of them

  let quiet = false;           // true while the address's edits go into the editors (never stored)
  edits = loadStored();
  sendPatches();
  // PATCH= is this tool's part of the page address (static/core/address.js): applied as the page
  // starts (early: the link's notice shows before Python is ready), again once ready and on back /
  // forward; while a link's code is held, the address does not run at once (holds).
  lab.address.register(PATCH_PARAM, { apply: applyAddress, write: addressPart, holds: held, early: true });
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
      ? t('code.stoppedRunEditedCode', { watchdogSeconds: lab.watchdogSeconds() })
      : t('code.stoppedRunEditedCode2');
    for (const ref of Object.keys(edits)) {
      const ed = editors.get(ref);
      if (ed) showError(ed, text);
    }
    if (!Object.keys(edits).some((ref) => editors.has(ref))) lab.setNote(text);
  });
  lab.on('refused', (addresses, text) => {  // the lesson beside each edited function's editor too
    for (const ref of Object.keys(edits)) {
      const ed = editors.get(ref);
      if (!ed) continue;
      ed.errorBox.textContent = text;
      ed.errorBox.hidden = false;
    }
  });
  lab.on('runnable', (canRun) => {
    for (const ed of editors.values()) ed.runButton.disabled = !canRun;
  });

  // ── the patches Run sends ──────────────────────────────────────────────────
  function sendPatches() {
    lab.setPatches(held() ? [] : patchList());
  }

  function save() {
    return link ? false : store(edits); // a link's code stays in the address, never over the visitor's own
  }

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
    save();
    sendPatches();
    const ed = editors.get(ref);
    if (ed) updateEditorState(ref, ed);
  }

  // ── the address (share.js asks) ─────────────────────────────────────────────
  function addressPart() {
    return Object.keys(edits).length ? encodePatches(edits) : null;
  }

  // PATCH= of the address (values: every PATCH= in it). Edits from the address win over the stored
  // ones (a shared link shows what it was made with), but someone else's wait for the visitor's click
  // (held by link-code.js's gate); without PATCH= the stored ones are shown. Applying the same
  // address again changes nothing.
  function applyAddress(values) {
    addressProblem = '';
    const stored = loadStored();
    let wanted = stored;
    if (values.length) {
      const decoded = decodePatches(values[values.length - 1]);
      if (decoded.error) addressProblem = t('code.editedCodeAddress', { PATCH_PARAM, error: decoded.error });
      else wanted = decoded.patches;
    }
    const someoneElses = !sameEdits(wanted, stored); // a reload of one's own edits runs as before
    if (link && !(someoneElses && sameEdits(wanted, edits))) { link.remove(); link = null; }
    if (someoneElses && !link) link = createLinkGate(lab, { refs: Object.keys(wanted), param: PATCH_PARAM, onRun: runLinkCode });
    showEdits(wanted);
    if (addressProblem && views) lab.setNote(addressProblem);
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
    sendPatches();
    for (const [ref, ed] of editors) updateEditorState(ref, ed);
  }

  // ── the code views ─────────────────────────────────────────────────────────
  function loadViews() {
    if (!loading) {
      loading = fetch(versioned(CODE_JSON)).then((r) => {
        if (!r.ok) throw new Error('HTTP ' + r.status);
        return r.json();
      }).then((data) => {
        views = data;
        sendPatches();  // first_line now known
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
      const summary = make('summary', {}, t('code.pythonCode'));
      summary.append(' ', make('span', { class: 'code-files' }, '(' + files + ')'));
      fold.append(summary);
      const editable = new Set(views.editable[n] || []);
      for (const ref of refs) fold.append(unitView(ref, views.sources[ref], editable.has(ref) ? () => openEditor(ref, true) : null));
      panel.append(fold);
    }
    for (const ref of Object.keys(edits)) {
      if (!views.sources[ref]) continue;
      openEditor(ref, false);   // edits from the address or a reload: shown in their editors
    }
    if (addressProblem) lab.setNote(addressProblem);
    markPanels();
  }

  // ── the editors ─────────────────────────────────────────────────────────────
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
    const ed = { figure, ...editorBox(ref, lab.canRun()), api: null };
    figure.append(ed.box);
    figure.classList.add('is-editing');
    if (link && ref in edits) figure.dataset.fromLink = ''; // marked: someone else's code
    const button = figure.querySelector('[data-action="edit-code"]');
    if (button) button.setAttribute('aria-expanded', 'true');
    editors.set(ref, ed);
    ed.runButton.addEventListener('click', () => (held() ? runLinkCode() : lab.run()));
    ed.restore.addEventListener('click', () => restoreOriginal(ref, ed));
    ed.stop.addEventListener('click', () => lab.stop());
    lab.on('status', (s) => { ed.stop.hidden = s !== 'running'; });
    figure.closest('details').open = true;
    const doc = ref in edits ? edits[ref] : sourceOf(entry);
    const options = { doc, firstLine: entry.start, label: t('code.pythonCode2', { fn: ref.split('.')[1] }),
      onChange: (text) => { if (!quiet) setEdit(ref, text); }, onRun: () => { if (lab.canRun()) (held() ? runLinkCode() : lab.run()); } };
    mountEditor(ed, ed.host, options, focus);   // a text area at once; CodeMirror replaces it when loaded
    updateEditorState(ref, ed);
    return ed;
  }

  // "Khôi phục": the package's own source back in the editor and out of the edits.
  function restoreOriginal(ref, ed) {
    const original = sourceOf(views.sources[ref]);
    ed.api.setDoc(original);
    setEdit(ref, original);
    ed.errorBox.hidden = true;
    ed.status.textContent = lastRunPatched.includes(ref) ? t('code.originalCodeBackPress') : t('code.originalCodeBack');
  }

  function updateEditorState(ref, ed) {
    const edited = ref in edits;
    ed.figure.classList.toggle('is-edited', edited);
    ed.restore.disabled = !edited;
    const ran = lastRunPatched.includes(ref) && ref in edits && edits[ref] === ranWith[ref];
    ed.status.textContent = held() && edited ? t('code.linkCodeNotRun')
      : ran ? t('code.lastRunUsedCodeBlocks')
      : edited ? t('code.editedPressRunWholeLab') : '';
  }

  function showError(ed, message) {
    ed.errorBox.textContent = message;
    ed.errorBox.hidden = false;
    ed.status.textContent = t('code.couldNotRunCodeSee');
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
      ed.printed.append(make('p', { class: 'code-printed-title' }, t('code.yourCodePrintedPrint')), make('div', { class: 'code-printed-text' }, text));
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
        marker.textContent = t('code.ranEditedCode');
        marker.title = t('code.runUsedYourEditedCode', { lastRunPatched: lastRunPatched.join(', ') });
        marker.dataset.editedCode = lastRunPatched.join(' ');
      }
    }
  }

  // An exercise runs with exactly its [patch] ({} for most): its functions go into the editors and
  // every other edited function gets its original back. The student's own edits are not lost: they
  // are kept (localStorage too) and a toolbar button puts them back.
  function applyExercise(functions) {
    const wanted = functions || {};
    if (link) leaveLink(); // the student's own stored edits are what the exercise puts aside
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
    save();
    sendPatches();
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
        lab.setNote(t('code.broughtBackCodeYou'));
      });
      const group = make('div', { class: 'tool-group code-tools' });
      group.append(stashUi);
      lab.addToToolbar(group, 2);
    }
    stashUi.hidden = !stash;
    if (stash) stashUi.textContent = t('code.bringBackCodeYouEdited', { stash: Object.keys(stash).join(', ') });
  }

  // ── someone else's code from the address (link-code.js) ─────────────────────
  // The visitor's click: from now on every run sends the link's code (still not stored on this computer).
  function runLinkCode() {
    if (!lab.canRun()) return;
    link.release();
    sendPatches();
    for (const [ref, ed] of editors) updateEditorState(ref, ed);
    lab.run();
  }

  // An exercise (a click) leaves the link: the visitor's stored edits come back as the page's edits.
  function leaveLink() {
    link.remove();
    link = null;
    for (const ed of editors.values()) delete ed.figure.dataset.fromLink;
    setAll(loadStored());
  }

  return { addressPart, applyExercise, edits: () => Object.assign({}, edits), loadViews, held };
}
