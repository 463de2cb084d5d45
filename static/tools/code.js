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
// editor's box, CodeMirror or a text area) is static/tools/code-view.js; the editors' behaviour is
// static/tools/code-editors.js. The tool's state is one object (`cs`) that the functions take explicitly.

import { make } from '../core/dom.js';
import { versioned } from '../core/versioned.js';
import { fileName, sourceOf, unitView } from './code-view.js';
import { held, hideError, openEditor, placeError, showError, showPrinted, updateEditorState } from './code-editors.js';
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
  const cs = {
    lab,
    views: null,            // code.json: {blocks, editable, sources}
    loading: null,          // its fetch
    editors: new Map(),     // ref -> {figure, host, errorBox, printed, runButton, restore, status, api}
    edits: {},              // ref -> the student's source (only functions that differ from the original)
    addressProblem: '',     // PATCH= in the address could not be read
    lastRunPatched: [],     // refs the last run shown ran edited
    ranWith: {},            // ref -> the source the last run shown ran (to tell a later edit)
    stash: null,            // the student's edits an exercise put aside ({ref: source}), or null
    stashUi: null,          // the toolbar button that puts them back
    link: null,             // link-code.js's gate while the edits are someone else's PATCH= (not stored here)
    actions: null,          // what the editors (code-editors.js) call: edit(ref, source), run()
    quiet: false,           // true while the address's edits go into the editors (never stored)
  };
  cs.actions = { edit: (ref, source) => { if (!cs.quiet) setEdit(cs, ref, source); }, run: () => runOrRelease(cs) };
  cs.edits = loadStored();
  sendPatches(cs);
  // PATCH= is this tool's part of the page address (static/core/address.js): applied as the page
  // starts (early: a link's notice shows before Python is ready), again once ready and on back /
  // forward; while a link's code is held, the address does not run at once (holds).
  lab.address.register(PATCH_PARAM, { apply: (values) => applyAddress(cs, values), write: () => addressPart(cs),
    holds: () => held(cs), early: true });
  try { cs.stash = JSON.parse(localStorage.getItem(STASH_KEY) || 'null'); } catch (err) { cs.stash = null; }
  if (cs.stash) showStash(cs);
  wireEvents(cs);
  return {
    addressPart: () => addressPart(cs),
    applyExercise: (functions) => applyExercise(cs, functions),
    edits: () => Object.assign({}, cs.edits),
    loadViews: () => loadViews(cs),
    held: () => held(cs),
  };
}


// PATCH= of the address (values: every PATCH= in it). Edits from the address win over the stored ones
// (a shared link shows what it was made with), but someone else's wait for the visitor's click (held
// by link-code.js's gate); without PATCH= the stored ones are shown. The same address again changes nothing.
function applyAddress(cs, values) {
  cs.addressProblem = '';
  const stored = loadStored();
  let wanted = stored;
  if (values.length) {
    const decoded = decodePatches(values[values.length - 1]);
    if (decoded.error) cs.addressProblem = t('code.editedCodeAddress', { PATCH_PARAM, error: decoded.error });
    else wanted = decoded.patches;
  }
  const someoneElses = !sameEdits(wanted, stored); // a reload of one's own edits runs as before
  if (cs.link && !(someoneElses && sameEdits(wanted, cs.edits))) leaveLink(cs);
  if (someoneElses && !cs.link) {
    cs.link = createLinkGate(cs.lab, { refs: Object.keys(wanted), param: PATCH_PARAM, onRun: () => runLinkCode(cs) });
  }
  showEdits(cs, wanted);
  if (cs.addressProblem && cs.views) cs.lab.setNote(cs.addressProblem);
}

// edits := functions in memory and in the editors, nothing stored (the address's edits).
function showEdits(cs, functions) {
  cs.edits = Object.assign({}, functions);
  cs.quiet = true;
  for (const [ref, ed] of cs.editors) if (!(ref in cs.edits)) ed.api.setDoc(sourceOf(cs.views.sources[ref]));
  if (cs.views) for (const [ref, source] of Object.entries(cs.edits)) {
    const ed = cs.views.sources[ref] ? openEditor(cs, ref, false) : null;
    if (ed) ed.api.setDoc(source);
  }
  cs.quiet = false;
  sendPatches(cs);
  for (const [ref, ed] of cs.editors) updateEditorState(cs, ref, ed);
}

function wireEvents(cs) {
  const { lab, editors } = cs;
  // code.json once Python is ready and the page idle: never on the way to 'ready'
  lab.on('ready', ({ first }) => {
    if (!first) return;
    if (typeof requestIdleCallback === 'function') requestIdleCallback(() => loadViews(cs), { timeout: 3000 });
    else setTimeout(() => loadViews(cs), 0);
  });
  lab.on('result', (result) => onResult(cs, result));
  lab.on('clearErrors', () => { for (const ed of editors.values()) hideError(ed); });
  lab.on('fieldError', (name, message) => placeError(cs, name, message));
  lab.on('stopped', (info) => onStopped(cs, info));
  lab.on('refused', (addresses, text) => {  // the lesson beside each edited function's editor too
    for (const ref of Object.keys(cs.edits)) {
      const ed = editors.get(ref);
      if (!ed) continue;
      ed.errorBox.textContent = text;
      ed.errorBox.hidden = false;
    }
  });
  lab.on('runnable', (canRun) => {
    for (const ed of editors.values()) ed.runButton.disabled = !canRun;
  });
}

function onResult(cs, result) {
  cs.lastRunPatched = result && Array.isArray(result.patched) ? result.patched : [];
  cs.ranWith = Object.assign({}, cs.edits);
  for (const ed of cs.editors.values()) hideError(ed);
  showPrinted(cs, result && result.printed);
  for (const [ref, ed] of cs.editors) updateEditorState(cs, ref, ed);
  markPanels(cs);
}

// A run with edits stopped (the watchdog or Stop) by restarting Python: said beside every open edited
// function, or in the note. Stopped by an interrupt, the run's own lesson (the line it was on) is there already.
function onStopped(cs, { reason, patched, restarted }) {
  if (!patched || !restarted) return;
  const text = reason === 'watchdog'
    ? t('code.stoppedRunEditedCode', { watchdogSeconds: cs.lab.watchdogSeconds() })
    : t('code.stoppedRunEditedCode2');
  for (const ref of Object.keys(cs.edits)) {
    const ed = cs.editors.get(ref);
    if (ed) showError(ed, text);
  }
  if (!Object.keys(cs.edits).some((ref) => cs.editors.has(ref))) cs.lab.setNote(text);
}

// ── the patches Run sends ──────────────────────────────────────────────────
function sendPatches(cs) {
  cs.lab.setPatches(held(cs) ? [] : patchList(cs));
}

function save(cs) {
  return cs.link ? false : store(cs.edits); // a link's code stays in the address, never over the visitor's own
}

function patchList(cs) {
  return Object.entries(cs.edits).map(([ref, source]) => {
    const [module, fn] = ref.split('.');
    const entry = cs.views && cs.views.sources[ref];
    return { module, function: fn, source, key: ref, name: module + '.py', first_line: entry ? entry.start : 1 };
  });
}

function setEdit(cs, ref, source) {
  const entry = cs.views && cs.views.sources[ref];
  if (entry && source === sourceOf(entry)) delete cs.edits[ref];
  else cs.edits[ref] = source;
  save(cs);
  sendPatches(cs);
  const ed = cs.editors.get(ref);
  if (ed) updateEditorState(cs, ref, ed);
}

// ── the address (static/core/address.js asks) ───────────────────────────────
function addressPart(cs) {
  return Object.keys(cs.edits).length ? encodePatches(cs.edits) : null;
}

// ── the code views ─────────────────────────────────────────────────────────
function loadViews(cs) {
  if (!cs.loading) {
    cs.loading = fetch(versioned(CODE_JSON)).then((r) => {
      if (!r.ok) throw new Error('HTTP ' + r.status);
      return r.json();
    }).then((data) => {
      cs.views = data;
      sendPatches(cs);  // first_line now known
      buildViews(cs);
      return data;
    }).catch((err) => {
      console.warn('code views not loaded:', err);
      return null;
    });
  }
  return cs.loading;
}

function panelOf(cs, n) {
  const section = cs.lab.sections().find((s) => s.key === String(n));
  return section ? section.pre.closest('[data-block]') : null;
}

function buildViews(cs) {
  for (const [n, refs] of Object.entries(cs.views.blocks)) {
    const panel = panelOf(cs, n);
    if (!panel || panel.querySelector('[data-code-for]')) continue;
    panel.append(blockFold(cs, n, refs));
  }
  for (const ref of Object.keys(cs.edits)) {
    if (!cs.views.sources[ref]) continue;
    openEditor(cs, ref, false);   // edits from the address or a reload: shown in their editors
  }
  if (cs.addressProblem) cs.lab.setNote(cs.addressProblem);
  markPanels(cs);
}

// <details data-code-for="N">: the block's functions and classes, "Sửa mã" on the editable ones.
function blockFold(cs, n, refs) {
  const { views } = cs;
  const fold = make('details', { class: 'code-view', 'data-code-for': n });
  const files = [...new Set(refs.map((ref) => fileName(views.sources[ref])))].join(', ');
  const summary = make('summary', {}, t('code.pythonCode'));
  summary.append(' ', make('span', { class: 'code-files' }, '(' + files + ')'));
  fold.append(summary);
  const editable = new Set(views.editable[n] || []);
  for (const ref of refs) {
    fold.append(unitView(ref, views.sources[ref], editable.has(ref) ? () => openEditor(cs, ref, true) : null));
  }
  return fold;
}

// Every panel says the last run ran edited code.
function markPanels(cs) {
  for (const section of cs.lab.sections()) {
    const panel = section.pre.closest('[data-block]');
    if (panel) markPanel(panel, cs.lastRunPatched);
  }
}

function markPanel(panel, patched) {
  const summary = panel.querySelector(':scope > summary');
  let marker = summary && summary.querySelector('[data-edited-code]');
  if (!patched.length) { if (marker) marker.remove(); return; }
  if (!marker && summary) {
    marker = make('span', { class: 'edited-code', 'data-edited-code': '' });
    summary.append(marker);
  }
  if (!marker) return;
  marker.textContent = t('code.ranEditedCode');
  marker.title = t('code.runUsedYourEditedCode', { lastRunPatched: patched.join(', ') });
  marker.dataset.editedCode = patched.join(' ');
}

// ── exercises ──────────────────────────────────────────────────────────────
// An exercise runs with exactly its [patch] ({} for most): its functions go into the editors and
// every other edited function gets its original back. The student's own edits are not lost: they
// are kept (localStorage too) and a toolbar button puts them back.
function applyExercise(cs, functions) {
  const wanted = functions || {};
  if (cs.link) leaveLink(cs); // the student's own stored edits are what the exercise puts aside
  if (JSON.stringify(cs.edits) === JSON.stringify(wanted)) return;
  if (Object.keys(cs.edits).length) {
    cs.stash = Object.assign({}, cs.edits);
    try { localStorage.setItem(STASH_KEY, JSON.stringify(cs.stash)); } catch (err) { /* kept in memory */ }
  }
  setAll(cs, wanted);
  showStash(cs);
}

// edits := functions, in the editors as well.
function setAll(cs, functions) {
  for (const ref of Object.keys(cs.edits)) {
    if (ref in functions) continue;
    const entry = cs.views && cs.views.sources[ref];
    if (!entry) { delete cs.edits[ref]; continue; }
    const ed = cs.editors.get(ref);
    if (ed) ed.api.setDoc(sourceOf(entry));
    setEdit(cs, ref, sourceOf(entry));
  }
  for (const [ref, source] of Object.entries(functions)) {
    setEdit(cs, ref, source);
    const ed = cs.views && cs.views.sources[ref] ? openEditor(cs, ref, false) : null;
    if (ed) ed.api.setDoc(source);
  }
  save(cs);
  sendPatches(cs);
}

function showStash(cs) {
  if (!cs.stashUi) cs.stashUi = stashButton(cs);
  cs.stashUi.hidden = !cs.stash;
  if (cs.stash) cs.stashUi.textContent = t('code.bringBackCodeYouEdited', { stash: Object.keys(cs.stash).join(', ') });
}

// The toolbar button that puts the student's stashed edits back.
function stashButton(cs) {
  const button = make('button', { type: 'button', class: 'btn', 'data-action': 'unstash-code', hidden: true });
  button.addEventListener('click', () => unstash(cs));
  const group = make('div', { class: 'tool-group code-tools' });
  group.append(button);
  cs.lab.addToToolbar(group, 2);
  return button;
}

function unstash(cs) {
  if (!cs.stash) return;
  setAll(cs, cs.stash);
  cs.stash = null;
  try { localStorage.removeItem(STASH_KEY); } catch (err) { /* nothing kept */ }
  showStash(cs);
  cs.lab.setNote(t('code.broughtBackCodeYou'));
}

// ── someone else's code from the address (link-code.js) ─────────────────────
// An editor's Run: the link's code waits for this click, after which every run sends it.
function runOrRelease(cs) {
  if (held(cs)) runLinkCode(cs);
  else cs.lab.run();
}

// The visitor's click: from now on every run sends the link's code (still not stored on this computer).
function runLinkCode(cs) {
  if (!cs.lab.canRun()) return;
  cs.link.release();
  sendPatches(cs);
  for (const [ref, ed] of cs.editors) updateEditorState(cs, ref, ed);
  cs.lab.run();
}

// An exercise (a click) leaves the link: the visitor's stored edits come back as the page's edits.
function leaveLink(cs) {
  cs.link.remove();
  cs.link = null;
  for (const ed of cs.editors.values()) delete ed.figure.dataset.fromLink;
  setAll(cs, loadStored());
}
