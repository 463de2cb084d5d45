// Starts the Python worker (static/worker.js) as soon as the page starts loading: this small
// script is the first thing in <head>, so Pyodide's 17 MB start downloading while the browser is
// still fetching the page's HTML, CSS and app.js (a deferred app.js would start it only after all
// of those). app.js takes the worker over with labBoot.take() and replays what it already said.
// Leaves out everything else: no DOM, no messages of its own; if it fails, app.js starts the worker.
'use strict';

window.labBoot = (function () {
  const src = document.currentScript && document.currentScript.src;
  const early = { worker: null, events: [], error: null };
  try {
    const url = new URL('worker.js', src);
    url.search = new URL(src).search; // the same cache-busting version as this script
    early.worker = new Worker(url.href);
    early.worker.onmessage = (event) => early.events.push(event);
    early.worker.onerror = (event) => {
      event.preventDefault();
      early.error = event;
    };
  } catch (err) {
    early.worker = null; // app.js will try, and explain a failure
  }
  return {
    // {worker, events, error} once (the messages and load error the worker has had so far), then null.
    take() {
      if (!early.worker) return null;
      const taken = { worker: early.worker, events: early.events.slice(), error: early.error };
      early.worker = null;
      return taken;
    },
  };
})();
