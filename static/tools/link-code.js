// Someone else's edited code from a PATCH= address (static/tools/code.js decides when an address is
// that: its code is not the visitor's own stored edits). The gate holds it: code.js shows the code in
// its editors but sends none of it until the visitor presses this notice's one button (or an editor's
// "Chạy với mã này"). The notice sits under Run and says whose code it is, which functions it changes,
// that none of it has run, and how to go back to the engine's code (Khôi phục, or the address
// without PATCH=).
// Leaves out: the editors and storage (code.js never stores a link's code over the visitor's own).

import { make } from '../core/dom.js';
import { t } from '../words/i18n.js';

// Two {ref: source} objects with the same functions and sources.
export function sameEdits(a, b) {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k]);
}

// The address without `param` (the page with the engine's own code).
function withoutParam(param) {
  const url = new URL(location.href);
  url.searchParams.delete(param);
  return url.href;
}

// refs: the functions the link changes; onRun(): the visitor pressed the button (code.js releases and runs).
export function createLinkGate(lab, { refs, param, onRun }) {
  let held = true;
  const notice = make('div', { class: 'link-code-notice', 'data-link-code': 'held', role: 'note' });
  const button = make('button', { type: 'button', class: 'btn btn-primary', 'data-action': 'run-link-code', disabled: !lab.canRun() },
    t('link.run'));
  button.addEventListener('click', onRun);
  const off = lab.on('runnable', (canRun) => { button.disabled = !canRun; });
  const text = make('p', { 'data-link-code-text': '' });
  text.append(t('link.carries'),
    make('span', {}, refs.join(', ')),
    t('link.notRunYet'));
  const way = make('p', {});
  way.append(t('link.wayBack'),
    make('a', { href: withoutParam(param), 'data-action': 'engine-code' }, t('link.openEngineCode')),
    t('link.notReplaced'));
  notice.append(text, button, way);
  lab.besideRun(notice);

  return {
    held: () => held,
    // From now on the link's code runs (still not stored on this computer).
    release() {
      held = false;
      off();
      button.remove();
      notice.dataset.linkCode = 'ran';
      text.textContent = t('link.running', { refs: refs.join(', ') });
    },
    remove() {
      held = false;
      off();
      notice.remove();
    },
  };
}
