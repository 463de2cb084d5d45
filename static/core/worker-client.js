// The page's side of the worker protocol (static/worker/worker.js owns Pyodide). The messages, their fields and
// the checks are described once, in static/worker/protocol.js, which the worker loads too. The worker runs the
// student's code (and a shared link's, once the visitor pressed its button), so nothing here trusts it: each
// message's type and shape is checked (checkMessage) before a handler sees it, and a malformed one, or a handler
// that throws on odd content, is a reported error (handlers.malformed), never a crash. The page inserts worker
// text with textContent only; results are checked at the top there and by app.js below that.
// start() adopts the worker static/worker/boot.js started while the page was still loading and replays
// what it already said (Pyodide's download starts before this module is even fetched), else has boot.js start
// another (labBoot.start: the one starter, from a blob: URL so the page's CSP governs it). Messages of a worker
// that was stopped, and results of runs no longer waited for, are dropped.
// Stop: interrupt(id, seconds) writes into the SharedArrayBuffer the worker sent with 'ready' (only where the
// page is cross-origin isolated): Pyodide raises KeyboardInterrupt in the run, which answers as a result
// {ok: false, stopped}; it returns false where that is not possible, and stop() ends the worker instead.
// Leaves out: what the page does with them (static/app.js passes handlers).

import '../worker/protocol.js'; // sets globalThis.labProtocol (a classic script the worker loads too)
import { lang, t } from '../words/i18n.js';

/**
 * A 'result' whose answer came as JSON text in an ArrayBuffer (protocol.js; `json`) as the protocol's
 * {id, type: 'result', result}; text that is no JSON leaves `result` out (checkMessage then says so). Other
 * messages as they are.
 */
export function withResult(msg) {
  if (!msg || msg.type !== 'result' || !(msg.json instanceof ArrayBuffer)) return msg;
  try {
    return { id: msg.id, type: 'result', result: JSON.parse(new TextDecoder().decode(msg.json)) };
  } catch (err) {
    return { id: msg.id, type: 'result', result: null };
  }
}

/** null when `msg` (from the worker) has a known type and its shape, else what is wrong (for the report). */
export const checkMessage = (msg) => globalThis.labProtocol.checkMessage(msg);
const PYC_KEY = 'inference-lab:pyc'; // sha256 of the compiled-Python cache the page trusts (pyc-cache.js)

// handlers: {progress(msg), runProgress(msg), taskProgress(msg) (a sweep's or search's point), ready(msg),
//            started(id), result(result), runError(msg),
//            fatal(title, message, details), refused(addresses), malformed(what, runId)}
export function createWorkerClient(handlers) {
  let worker = null;
  let waiting = null; // id of the run whose result is awaited
  let nextId = 1;
  let sentEdits = false; // this worker was sent a run with edited code
  let stopView = null;   // Int32Array over the worker's interrupt buffer (see static/worker/worker.js), or null
  const stepAsks = new Map(); // id of a 'step' or 'trace' sent -> the resolve of its promise

  function onMessage(from, raw) {
    if (from !== worker) return; // a stopped worker's late message
    const msg = withResult(raw);
    const wrong = checkMessage(msg);
    if (wrong) { report(wrong); return; }
    try {
      dispatch(msg);
    } catch (err) {
      report(msg.type + ': ' + String(err && err.message || err));
    }
  }

  function dispatch(msg) {
    switch (msg.type) {
      case 'progress':
        if (msg.stage === 'sweep' || msg.stage === 'search') {
          if (waiting !== null && msg.id === waiting && handlers.taskProgress) handlers.taskProgress(msg);
        } else if (msg.stage !== 'run') handlers.progress(msg);
        else if (waiting !== null && msg.id === waiting && handlers.runProgress) handlers.runProgress(msg);
        break;
      case 'ready':
        stopView = msg.interrupt ? new Int32Array(msg.interrupt) : null;
        handlers.ready(msg);
        worker.postMessage({ type: 'idle' }); // the page shows 'ready': only now the worker's later work
        break;
      case 'started': if (waiting !== null && msg.id === waiting && handlers.started) handlers.started(msg.id); break;
      case 'result':
        if (waiting !== null && msg.id === waiting) { waiting = null; handlers.result(msg.result); }
        break;
      case 'error':
        if (msg.id === undefined || msg.id === null || (waiting !== null && msg.id === waiting)) {
          waiting = null;
          handlers.runError(msg);
        }
        break;
      case 'fatal': handlers.fatal(msg.title || t('client.couldNotLoadPython'), msg.message, msg.details); break;
      case 'step': {
        const resolve = stepAsks.get(msg.id);
        stepAsks.delete(msg.id);
        if (resolve) resolve(msg.ok ? { n: msg.n, item: msg.item } : null);
        break;
      }
      case 'trace': {
        const resolve = stepAsks.get(msg.id);
        stepAsks.delete(msg.id);
        if (resolve) resolve(msg.ok ? msg.trace : null);
        break;
      }
      case 'refused': if (handlers.refused) handlers.refused(msg.blocked); break;
      case 'pyc': if (!sentEdits) rememberPyc(msg.digest); break; // else the worker's code may have made it
      case 'log': console.log('[engine ' + (msg.stream || 'log') + ']', msg.text); break;
      default: break; // 'stats' is read by bench/ on its own port
    }
  }

  // A malformed message: the run it may belong to ends as an error; the page says so.
  function report(what) {
    const run = waiting;
    waiting = null;
    console.warn('malformed worker message:', what);
    if (handlers.malformed) handlers.malformed(what, run);
  }

  // Returns false (after telling handlers.fatal) when no worker could be started.
  function start() {
    const boot = window.labBoot || null; // static/worker/boot.js: the worker it started at page load, or a new one
    const early = boot ? boot.take() : null;
    let started = early && early.worker;
    if (!started) {
      try {
        if (!boot) throw new Error('static/worker/boot.js did not load');
        started = boot.start(lang); // its messages in the page's language
      } catch (err) {
        handlers.fatal(t('client.couldNotStartWebWorker'),
          t('client.openPageThroughWeb'), String(err));
        return false;
      }
    }
    const current = started;
    const onError = (event) => {
      event.preventDefault();
      if (current !== worker) return;
      handlers.fatal(t('client.couldNotLoadStatic'),
        t('client.checkDistMadePython3'),
        event.message || '');
    };
    current.onmessage = (event) => onMessage(current, event.data);
    current.onerror = onError;
    worker = current;
    sentEdits = false;
    stopView = null;
    if (early) {
      for (const event of early.events) onMessage(current, event.data);
      if (early.error) onError(early.error);
    }
    return true;
  }

  // Step n of the shown long run, whole (web.step_detail): a promise of {n, item} or null (no such step, or a run
  // or render was sent since: its answer would be of another run).
  function stepDetail(n) {
    if (!worker || waiting !== null) return Promise.resolve(null);
    const id = nextId++;
    return new Promise((resolve) => {
      stepAsks.set(id, resolve);
      worker.postMessage({ id, type: 'step', n });
    });
  }

  // The Chrome trace of the shown long run (web.trace_json) as JSON text: a promise of it, or null.
  function traceText() {
    if (!worker || waiting !== null) return Promise.resolve(null);
    const id = nextId++;
    return new Promise((resolve) => {
      stepAsks.set(id, resolve);
      worker.postMessage({ id, type: 'trace' });
    });
  }

  // The steps and traces asked and not yet answered are answered null (another run comes, or the worker ends).
  function dropStepAsks() {
    for (const resolve of stepAsks.values()) resolve(null);
    stepAsks.clear();
  }

  // Sends a run (patches: the edited functions, static/tools/code.js; null for none); returns its id.
  function run(config, patches) {
    dropStepAsks();
    const id = nextId++;
    waiting = id;
    if (patches && patches.length) sentEdits = true;
    worker.postMessage(patches && patches.length ? { id, type: 'run', config, patches, lang } : { id, type: 'run', config, lang });
    return id;
  }

  // Words an earlier run's report (its JSON from a 'result') in the page's language without running
  // the engine (the language switch); answered like a run. Returns its id.
  function render(report) {
    dropStepAsks();
    const id = nextId++;
    waiting = id;
    worker.postMessage({ id, type: 'render', report, lang });
    return id;
  }

  // Sends a sweep or a search (protocol.js: type 'sweep' {config, axis} or 'search' {config, axes, attainment});
  // answered like a run. Returns its id.
  function task(type, fields) {
    dropStepAsks();
    const id = nextId++;
    waiting = id;
    worker.postMessage({ id, type, ...fields, lang });
    return id;
  }

  function rememberPyc(digest) {
    try { localStorage.setItem(PYC_KEY, digest); } catch (err) { /* the cache is then not used */ }
  }

  // Ends the worker (a run in it is abandoned); start() makes a new one.
  function stop() {
    dropStepAsks();
    if (worker) worker.terminate();
    worker = null;
    waiting = null;
    stopView = null;
  }

  // Asks the worker to stop run `id` by a KeyboardInterrupt (seconds: the watchdog's, 0 for the Stop
  // button); false when this page cannot (not cross-origin isolated, or no worker ready).
  function interrupt(id, seconds) {
    if (!stopView || waiting !== id) return false;
    Atomics.store(stopView, 2, seconds || 0);
    Atomics.store(stopView, 1, id);
    Atomics.store(stopView, 0, 2); // SIGINT: Pyodide raises KeyboardInterrupt at the next Python line
    return true;
  }

  // True once Python has the Stop of run `id` in the lab's own hands (static/worker/interrupt.js [3]): its
  // answer is coming, however slow the machine.
  function stopSeen(id) {
    return stopView !== null && stopView.length > 3 && Atomics.load(stopView, 3) === id;
  }

  // True while the Stop of run `id` is written but Python has not yet taken the signal (it sets [0] back to 0
  // at its next line): the worker thread has not run a Python line since (a starved thread on a busy
  // machine), so nothing says yet that the Stop was swallowed.
  function stopPending(id) {
    return stopView !== null && Atomics.load(stopView, 1) === id && Atomics.load(stopView, 0) !== 0;
  }

  return {
    start, run, render, task, stepDetail, traceText, stop, interrupt, stopSeen, stopPending,
    canInterrupt: () => stopView !== null,
  };
}
