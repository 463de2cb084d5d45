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
// A new build is looked for by the page itself: a page that a service worker already serves calls
// registration.update() once it is ready, beside the browser's own check after a navigation (Chromium's
// runs once the page's network has been quiet for a while, then after a delay: blink IdlenessDetector
// "network almost idle" -> HintToUpdateServiceWorker -> ServiceWorkerVersion::ScheduleUpdate). Neither
// the browser nor the spec tries again when the new build's install fails: one file not fetched left the
// page on the old build until the next navigation (issue 41: a CI run waited 120 s). So a new build whose
// install fails (a server still being deployed to, a request dropped on a busy machine) and a check
// that failed are asked for again RETRY_MS later, twice; then the previous build keeps serving until
// the next visit. What the page knows of the check is on <html
// data-offline-update>: "current" (no new build), "installing", "installed" (it takes over), "retrying",
// "failed" (given up for this visit).
// Leaves out: what the service worker caches and serves (static/worker/sw.js).

import { t } from '../words/i18n.js';

const SEEN_KEY = 'inference-lab:ready-once'; // a visit of this browser has reached 'ready'

// Calls fn once the main thread is idle (requestIdleCallback, else right after the current task).
function whenIdle(fn) {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(() => fn(), { timeout: 5000 });
  else setTimeout(fn, 0);
}

// The waits before asking again for a new build whose check or install failed (then give up for this visit).
export const RETRY_MS = [1000, 4000];

// <html data-offline-update="...">: what the last check for a new build came to (see the top).
function mark(state) {
  document.documentElement.dataset.offlineUpdate = state;
}

// Follows every check for a new build on `registration` (the page's own and the browser's): a failed
// one (update() rejected, or the new worker turned redundant before it was installed) is asked for
// again, retryMs apart. Returns check(): ask the server for sw.js now. show(state): see mark().
export function watchUpdates(registration, show = mark, retryMs = RETRY_MS) {
  let failures = 0;
  let found = 0; // updatefound events so far

  function failed() {
    failures += 1;
    // (a first install that failed leaves no registration to update: the next visit registers again)
    if (failures > retryMs.length || !registration.active) { show('failed'); return; }
    show('retrying');
    setTimeout(check, retryMs[failures - 1]);
  }

  function check() {
    const before = found;
    return registration.update().then(() => {
      if (found === before && !registration.installing) show('current'); // sw.js is the running build's
    }, (err) => {
      console.warn('no new build found:', err);
      failed();
    });
  }

  // A new worker being installed: followed until it is installed (the new build takes over) or redundant.
  function follow(worker) {
    show('installing');
    let installed = false;
    worker.addEventListener('statechange', () => {
      if (worker.state === 'redundant' && !installed) {
        failed();
      } else if (!installed && worker.state !== 'redundant') {
        installed = true;            // installed, activating or activated: the new build takes over
        failures = 0;
        show('installed');
      }
    });
  }

  registration.addEventListener('updatefound', () => {
    found += 1;
    if (registration.installing) follow(registration.installing);
  });
  // an install the browser started before the page was ready (its check after the navigation)
  if (registration.installing && registration.active) follow(registration.installing);
  return check;
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
    navigator.serviceWorker.register(swURL).then((registration) => {
      const check = watchUpdates(registration);
      if (hadController) check(); // a page the service worker served: is there a newer build?
    }, (err) => console.warn('service worker not registered:', err));
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
