// Stop without a reboot, the worker's half (a classic script: static/worker/worker.js loads it with
// importScripts). Where the page is cross-origin isolated, give(pyodide) makes a SharedArrayBuffer,
// hands its first Int32 to Pyodide as the interrupt buffer (pyodide.setInterruptBuffer) and returns it
// for the 'ready' message; the page (static/core/worker-client.js interrupt()) writes into it:
//   [0] Pyodide's signal (2 = SIGINT: KeyboardInterrupt at the next Python line; Python sets it back to 0
//   when it takes it), [1] the id of the run stopped, [2] 0 for the Stop button, else the watchdog's seconds.
// The worker writes [3]: the id of the last stopped run whose Stop reached the lab's own code, so an answer
// is on its way (seen(), which Python calls as labStopSeen: entrypoints/sandbox.py stop_seen); a student's
// bare `except:` that swallows the KeyboardInterrupt never gets there (static/core/stop.js tells them apart).
// Not isolated (no SharedArrayBuffer), give() returns null and everything here is a no-op.
// Leaves out: what a stopped run answers (py/inference_lab/entrypoints/web.py) and the page's side.
'use strict';

self.labInterrupt = (function () {
  let view = null; // Int32Array over the buffer, or null
  return {
    give(pyodide) {
      if (!self.crossOriginIsolated || typeof SharedArrayBuffer !== 'function' || !pyodide.setInterruptBuffer) return null;
      const buffer = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT);
      view = new Int32Array(buffer);
      pyodide.setInterruptBuffer(new Int32Array(buffer, 0, 1));
      return buffer;
    },
    get on() { return view !== null; },
    // The watchdog's seconds, or 0 for the Stop button.
    seconds() { return view ? Atomics.load(view, 2) : 0; },
    // The id of the last run the page stopped (0: none yet).
    lastStopped() { return view ? Atomics.load(view, 1) : 0; },
    // Python has the Stop of the run stopped last in hand (see the top of this file).
    seen() { if (view) Atomics.store(view, 3, Atomics.load(view, 1)); },
    // A signal left over (a Stop that came as a run ended) is not for the next run.
    clear() { if (view) Atomics.store(view, 0, 0); },
  };
})();
