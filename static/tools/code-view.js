// The pieces of "Mã Python" / "Sửa mã" (static/tools/code.js) that only draw: a code.json entry as a
// read-only listing with its file and line numbers, the editor's box (buttons, status, error and print
// areas) and the editors themselves (CodeMirror 6 from static/vendor/codemirror.js, loaded once on
// first use, or a plain text area with the same small API: getDoc, setDoc, focus, destroy).
// Leaves out every decision (which functions are edited, what a run used, the address): code.js.

import { make } from '../core/dom.js';
import { versioned } from '../core/versioned.js';
import { t } from '../words/i18n.js';

// code.json lines are runs [class, text, class, text, …]; the text of one line, of a whole unit.
const lineText = (runs) => runs.filter((_, i) => i % 2 === 1).join('');
export const sourceOf = (entry) => entry.lines.map(lineText).join('\n') + '\n';
export const fileName = (entry) => entry.file.split('/').pop();

let codemirror = null;         // the editor module's promise (null inside: it could not load)

/** The highlighted listing of one unit; <code> shown as a block, since a panel's only <pre> is its lines. */
export function codeBlock(entry) {
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

/** One function or class: "file, dòng a–b: name", a "Sửa mã" button when `onEdit` is given, the listing. */
export function unitView(ref, entry, onEdit) {
  const end = entry.start + entry.lines.length - 1;
  const figure = make('figure', { class: 'code-unit', 'data-code-ref': ref });
  const caption = make('figcaption');
  const where = make('span', { class: 'code-where' });
  where.append(make('code', {}, entry.file), t('code.line', { start: entry.start, end }), make('code', { class: 'code-name' }, entry.qualname));
  caption.append(where);
  if (onEdit) {
    const edit = make('button', { type: 'button', class: 'btn btn-small', 'data-action': 'edit-code', 'aria-expanded': 'false' }, t('code.editCode'));
    edit.addEventListener('click', onEdit);
    caption.append(' ', edit);
  }
  figure.append(caption, codeBlock(entry));
  return figure;
}

/** The editor's box for `ref` ('module.function'): help, editor host, Run/Restore/Stop, status, error, print. */
export function editorBox(ref, canRun) {
  const [module, fn] = ref.split('.');
  const box = make('div', { class: 'code-editor', 'data-code-editor': ref, role: 'group', 'aria-label': t('code.edit', { fn }) });
  const help = make('p', { class: 'code-help' }, t('code.editFunctionPyThen', { fn, module }));
  const parts = {
    box,
    host: make('div', { class: 'code-editor-host' }),
    runButton: make('button', { type: 'button', class: 'btn btn-primary', 'data-action': 'run-code', disabled: !canRun }, t('code.runCode')),
    restore: make('button', { type: 'button', class: 'btn', 'data-action': 'restore-code' }, t('code.restore')),
    stop: make('button', { type: 'button', class: 'btn', 'data-action': 'stop-code', hidden: true }, t('code.pause')),
    status: make('span', { class: 'code-status', 'data-code-status': '', 'aria-live': 'polite' }),
    errorBox: make('div', { class: 'code-error', 'data-error-for': 'patch:' + ref, role: 'alert', hidden: true }),
    printed: make('div', { class: 'code-printed', hidden: true }),
  };
  const actions = make('div', { class: 'code-actions' });
  actions.append(parts.runButton, parts.restore, parts.stop, parts.status);
  box.append(help, parts.host, actions, parts.errorBox, parts.printed);
  return parts;
}

function loadCodeMirror() {
  if (!codemirror) codemirror = import(versioned('../vendor/codemirror.js')).catch((err) => {
    console.warn('CodeMirror not loaded, using a text area:', err);
    return null;
  });
  return codemirror;
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

/**
 * An editor in `host` for ed.api: the text area at once, swapped for CodeMirror (same text, focus kept)
 * when it has loaded. options: {doc, firstLine, label, onChange(text), onRun()}.
 */
export function mountEditor(ed, host, options, focus) {
  ed.api = textAreaEditor(host, options);
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
}
