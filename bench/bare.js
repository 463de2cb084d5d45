// Baseline page of bench/browser_bench.py. Starts bare-worker.js at once and records, in
// window.__bench, the time from navigation start to "import numpy" done (performance.now()).
// window.__benchSeed(source, n) execs a Python program n times in the same Pyodide (bench only).
'use strict';
window.__bench = window.__bench || {};
(function () {
  const status = document.getElementById('status');
  const indexURL = new URL('../pyodide/', location.href).href;
  const worker = new Worker(new URL('bare-worker.js', document.currentScript.src).href + '?index=' + encodeURIComponent(indexURL));
  const waiting = new Map();
  let nextId = 1;
  worker.onmessage = (event) => {
    const msg = event.data;
    if (msg.type === 'numpy') {
      window.__bench.ready = performance.now();
      window.__bench.worker = msg.timings;
      status.dataset.status = 'ready';
      status.textContent = 'numpy imported';
    } else if (msg.type === 'fatal') {
      status.dataset.status = 'error';
      status.textContent = msg.message;
    } else if (waiting.has(msg.id)) {
      waiting.get(msg.id)(msg);
      waiting.delete(msg.id);
    }
  };
  window.__benchSeed = (source, n) => new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    worker.postMessage({ id, type: 'seed', source, n });
  });
  window.__benchInstall = (wheel) => new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    worker.postMessage({ id, type: 'install', wheel: new URL(wheel, location.href).href });
  });
})();
