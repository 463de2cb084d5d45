// The offline copy: when the page registers the service worker (sw.js; build.py renders it from
// static/worker/sw.js), which then caches the whole build.
// A first visit waits its turn: the service worker is registered only after the first run has
// finished (done or error) and the page is idle, so its downloads never compete with loading Python
// or with that run, and it finds most files in the browser's HTTP cache. A visit after one that
// reached 'ready' (remembered in localStorage), or a page a service worker already serves, registers
// it as soon as the lab is ready and the page is idle (the browser then checks sw.js for a new build).
// A student who never presses Run gets the offline copy on the second visit.
// On http(s) only. A page open while a new build takes over is told to reload (setNote). Not
// versioned: the service worker's URL must stay the same from build to build.
// Leaves out: what the service worker caches and serves (static/worker/sw.js).

import { t } from '../words/i18n.js';

const SEEN_KEY = 'inference-lab:ready-once'; // a visit of this browser has reached 'ready'

// Calls fn once the main thread is idle (requestIdleCallback, else right after the current task).
function whenIdle(fn) {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(() => fn(), { timeout: 5000 });
  else setTimeout(fn, 0);
}

function seenBefore() {
  try {
    const seen = localStorage.getItem(SEEN_KEY) === '1';
    localStorage.setItem(SEEN_KEY, '1');
    return seen;
  } catch (err) {
    return false; // no storage: the first run decides
  }
}

// store: the page's store ('status' events); setNote(text): the line beside Run.
// Returns {ready()}: app.js calls it at every 'ready'.
export function createOffline(store, setNote, swURL) {
  let asked = false; // registration scheduled or done
  const usable = 'serviceWorker' in navigator && /^https?:$/.test(location.protocol);

  function register() {
    const hadController = Boolean(navigator.serviceWorker.controller);
    navigator.serviceWorker.addEventListener('controllerchange', () => {
      if (hadController) setNote(t('app.newVersionLabAvailable'));
    });
    navigator.serviceWorker.register(swURL).catch((err) => console.warn('service worker not registered:', err));
  }

  function ready() {
    if (asked || !usable) return;
    asked = true;
    if (seenBefore() || navigator.serviceWorker.controller) { whenIdle(register); return; }
    const off = store.on('status', (status) => {
      if (status !== 'done' && status !== 'error') return;
      off();
      whenIdle(register);
    });
  }

  return { ready };
}
