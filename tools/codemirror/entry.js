// The lab's code editor: CodeMirror 6 with Python mode, line numbers, undo and the default keymap,
// mounted in a shadow root so that its styles go into a constructable stylesheet
// (adoptedStyleSheets) and the page's CSP needs no 'unsafe-inline' for styles.
// Bundled into static/vendor/codemirror.js by `npm run build` (see README.md); the page imports it
// the first time a student opens an editor.
import { EditorState } from '@codemirror/state';
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter, drawSelection,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab, undo, redo } from '@codemirror/commands';
import { python } from '@codemirror/lang-python';
import {
  syntaxHighlighting, defaultHighlightStyle, indentOnInput, bracketMatching, indentUnit,
} from '@codemirror/language';

const theme = EditorView.theme({
  '&': { fontSize: '0.875rem', backgroundColor: '#ffffff', color: '#1b1f24', border: '1px solid #d4d7dd', borderRadius: '4px' },
  '&.cm-focused': { outline: '3px solid #c2410c', outlineOffset: '1px' },
  '.cm-scroller': { fontFamily: 'var(--mono, ui-monospace, monospace)', fontVariantLigatures: 'none', lineHeight: '1.45', maxHeight: '28rem' },
  '.cm-content': { padding: '0.35rem 0' },
  '.cm-gutters': { backgroundColor: '#f1f3f6', color: '#4a5260', borderRight: '1px solid #d4d7dd' },
  '.cm-activeLine': { backgroundColor: '#eef4fb' },
  '.cm-activeLineGutter': { backgroundColor: '#dde8f5', color: '#1b1f24' },
});

// createEditor(host, {doc, firstLine, label, onChange, onRun}) -> {getDoc, setDoc, focus, undo, redo, destroy}
// host: an element; the editor goes into its (open) shadow root. firstLine: the number shown on the
// first line (a function at its place in the engine's file). onRun: Ctrl/Cmd-Enter.
export function createEditor(host, options = {}) {
  const { doc = '', firstLine = 1, label = 'Python', onChange = null, onRun = null } = options;
  const root = host.shadowRoot || host.attachShadow({ mode: 'open' });
  const mount = document.createElement('div');
  root.append(mount);
  const extensions = [
    lineNumbers({ formatNumber: (n) => String(n + firstLine - 1) }),
    highlightActiveLineGutter(),
    history(),
    drawSelection(),
    indentOnInput(),
    bracketMatching(),
    highlightActiveLine(),
    indentUnit.of('    '),
    EditorState.tabSize.of(4),
    python(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    keymap.of([
      { key: 'Mod-Enter', run: () => { if (onRun) onRun(); return true; } },
      ...defaultKeymap, ...historyKeymap, indentWithTab,
    ]),
    EditorView.contentAttributes.of({ 'aria-label': label }),
    theme,
  ];
  if (onChange) {
    extensions.push(EditorView.updateListener.of((update) => {
      if (update.docChanged) onChange(update.state.doc.toString());
    }));
  }
  const view = new EditorView({ root, parent: mount, state: EditorState.create({ doc, extensions }) });
  return {
    view,
    getDoc: () => view.state.doc.toString(),
    setDoc(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    focus: () => view.focus(),
    undo: () => undo(view),
    redo: () => redo(view),
    destroy() { view.destroy(); mount.remove(); },
  };
}
