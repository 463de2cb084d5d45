// Stop without a reboot, the worker's half (a classic script: static/worker/worker.js loads it with
// importScripts). Where the page is cross-origin isolated, give(pyodide) makes a SharedArrayBuffer,
// hands its first Int32 to Pyodide as the interrupt buffer (pyodide.setInterruptBuffer) and returns it
// for the 'ready' message; the page (static/core/worker-client.js interrupt()) writes into it:
//   [0] Pyodide's signal (2 = SIGINT: KeyboardInterrupt at the next Python line), [1] the id of the run
//   stopped, [2] 0 for the Stop button, else the watchdog's seconds.
// Not isolated (no SharedArrayBuffer), give() returns null and everything here is a no-op.
// Leaves out: what a stopped run answers (py/inference_lab/entrypoints/web.py) and the page's side.
'use strict';

self.labInterrupt = (function () {
  let view = null; // Int32Array over the buffer, or null
  return {
    give(pyodide) {
      if (!self.crossOriginIsolated || typeof SharedArrayBuffer !== 'function' || !pyodide.setInterruptBuffer) return null;
      const buffer = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
      view = new Int32Array(buffer);
      pyodide.setInterruptBuffer(new Int32Array(buffer, 0, 1));
      return buffer;
    },
    get on() { return view !== null; },
    // The watchdog's seconds, or 0 for the Stop button.
    seconds() { return view ? Atomics.load(view, 2) : 0; },
    // The id of the last run the page stopped (0: none yet).
    lastStopped() { return view ? Atomics.load(view, 1) : 0; },
    // A signal left over (a Stop that came as a run ended) is not for the next run.
    clear() { if (view) Atomics.store(view, 0, 0); },
  };
})();
