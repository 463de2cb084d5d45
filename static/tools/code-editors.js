// The code tool's editors (static/tools/code.js): "Sửa mã" opens one under a function's listing, with
// Run, Khôi phục and Stop; its state line says whether the last run used the edit; an engine error about
// "patch:<module.function>" and what the edited code printed are shown beside it.
// Leaves out: the edits themselves, storage, the address and exercises (code.js, which hands over
// cs.actions.edit(ref, source) and cs.actions.run()), and the drawing of the box (code-view.js).

import { make } from '../core/dom.js';
import { editorBox, mountEditor, sourceOf } from './code-view.js';
import { t } from '../words/i18n.js';

// Someone else's PATCH= not run yet: runs send none of it.
export const held = (cs) => Boolean(cs.link && cs.link.held());

export function openEditor(cs, ref, focus) {
  if (cs.editors.has(ref)) {
    const ed = cs.editors.get(ref);
    ed.figure.closest('details').open = true;
    if (focus) ed.api.focus();
    return ed;
  }
  const entry = cs.views.sources[ref];
  const figure = document.querySelector('[data-code-ref="' + ref + '"]');
  if (!entry || !figure) return null;
  const ed = addEditorBox(cs, ref, figure);
  figure.closest('details').open = true;
  const doc = ref in cs.edits ? cs.edits[ref] : sourceOf(entry);
  const options = { doc, firstLine: entry.start, label: t('code.pythonCode2', { fn: ref.split('.')[1] }),
    onChange: (text) => cs.actions.edit(ref, text), onRun: () => { if (cs.lab.canRun()) cs.actions.run(); } };
  mountEditor(ed, ed.host, options, focus);   // a text area at once; CodeMirror replaces it when loaded
  updateEditorState(cs, ref, ed);
  return ed;
}

// The editor's box under the function's listing, its buttons wired.
function addEditorBox(cs, ref, figure) {
  const { lab } = cs;
  const ed = { figure, ...editorBox(ref, lab.canRun()), api: null };
  figure.append(ed.box);
  figure.classList.add('is-editing');
  if (cs.link && ref in cs.edits) figure.dataset.fromLink = ''; // marked: someone else's code
  const button = figure.querySelector('[data-action="edit-code"]');
  if (button) button.setAttribute('aria-expanded', 'true');
  cs.editors.set(ref, ed);
  ed.runButton.addEventListener('click', () => cs.actions.run());
  ed.restore.addEventListener('click', () => restoreOriginal(cs, ref, ed));
  ed.stop.addEventListener('click', () => lab.stop());
  lab.on('status', (s) => { ed.stop.hidden = s !== 'running'; });
  return ed;
}

// "Khôi phục": the package's own source back in the editor and out of the edits.
function restoreOriginal(cs, ref, ed) {
  const original = sourceOf(cs.views.sources[ref]);
  ed.api.setDoc(original);
  cs.actions.edit(ref, original);
  ed.errorBox.hidden = true;
  ed.status.textContent = cs.lastRunPatched.includes(ref) ? t('code.originalCodeBackPress') : t('code.originalCodeBack');
}

export function updateEditorState(cs, ref, ed) {
  const { edits } = cs;
  const edited = ref in edits;
  ed.figure.classList.toggle('is-edited', edited);
  ed.restore.disabled = !edited;
  const ran = cs.lastRunPatched.includes(ref) && ref in edits && edits[ref] === cs.ranWith[ref];
  ed.status.textContent = held(cs) && edited ? t('code.linkCodeNotRun')
    : ran ? t('code.lastRunUsedCodeBlocks')
    : edited ? t('code.editedPressRunWholeLab') : '';
}

export function hideError(ed) {
  ed.errorBox.hidden = true;
  ed.errorBox.textContent = '';
}

export function showError(ed, message) {
  ed.errorBox.textContent = message;
  ed.errorBox.hidden = false;
  ed.status.textContent = t('code.couldNotRunCodeSee');
}

// An engine error about "patch:<ref>" goes beside that editor (opened if needed).
export function placeError(cs, name, message) {
  if (typeof name !== 'string' || !name.startsWith('patch')) return null;
  const { editors } = cs;
  const ref = name.slice('patch:'.length);
  let ed = editors.get(ref) || (cs.views && cs.views.sources[ref] ? openEditor(cs, ref, false) : null);
  if (!ed) ed = editors.get(Object.keys(cs.edits).find((r) => editors.has(r)));
  if (!ed) return null;
  if (message === null) { ed.errorBox.hidden = true; return ed.errorBox; }
  showError(ed, message);
  return ed.errorBox;
}

export function showPrinted(cs, text) {
  for (const [ref, ed] of cs.editors) {
    ed.printed.replaceChildren();
    ed.printed.hidden = !(text && ref in cs.edits);
    if (ed.printed.hidden) continue;
    ed.printed.append(make('p', { class: 'code-printed-title' }, t('code.yourCodePrintedPrint')), make('div', { class: 'code-printed-text' }, text));
  }
}
