// The page's side of the worker protocol (static/worker/worker.js owns Pyodide). Messages are small typed
// objects:
//   page -> worker   {id, type: 'run', config, patches?, lang} · {id, type: 'render', report, lang}
//   worker -> page   {type: 'progress', stage, detail, fraction} (loading) · {type: 'ready', schema, versions, interrupt}
//                    {type: 'progress', stage: 'run', id, run, step, done, total, fraction} (a run, every ~100 ms)
//                    {id, type: 'started'} · {id, type: 'result', result} · {id?, type: 'error', message, details, fatal}
//                    {type: 'fatal', title, message, details} · {type: 'log', stream, text}
//                    {type: 'refused', blocked} (addresses the page's CSP refused: edited code tried the network)
//                    {type: 'pyc', digest} (compiled-Python cache stored: its sha256, remembered in localStorage
//                    only if this worker never ran edited code, for static/worker/pyc-cache.js)
// The worker runs the student's code (and a shared link's, once the visitor pressed its button), so
// nothing here trusts it: each message's type and shape is checked (SHAPES) before a handler sees it,
// and a malformed one, or a handler that throws on odd content, is a reported error
// (handlers.malformed), never a crash. The page inserts worker text with textContent only.
// start() adopts the worker static/worker/boot.js started while the page was still loading and replays
// what it already said (Pyodide's download starts before this module is even fetched), else starts
// one from a blob: URL as boot.js does (so the page's CSP governs it). Messages of a worker that was
// stopped, and results of runs no longer waited for, are dropped.
// Stop: interrupt(id, seconds) writes into the SharedArrayBuffer the worker sent with 'ready' (only where the
// page is cross-origin isolated): Pyodide raises KeyboardInterrupt in the run, which answers as a result
// {ok: false, stopped}; it returns false where that is not possible, and stop() ends the worker instead.
// Leaves out: what the page does with them (static/app.js passes handlers).

import { versioned } from './versioned.js';
import { lang, t } from '../words/i18n.js';

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isText = (v) => typeof v === 'string';
const isId = (v) => Number.isSafeInteger(v) && v > 0;
const maybe = (check) => (v) => v === undefined || v === null || check(v);
const isTexts = (v) => Array.isArray(v) && v.length <= 100 && v.every(isText);
const isCount = (v) => Number.isSafeInteger(v) && v >= 0;
const isShared = (v) => typeof SharedArrayBuffer === 'function' && v instanceof SharedArrayBuffer && v.byteLength >= 12;

// What each message the page reads must hold: {field: check}. The worker's words stay text (the page
// never parses them as HTML); results are checked here at the top and by app.js below that.
const SHAPES = {
  progress: { stage: isText, detail: maybe(isText), fraction: maybe((v) => typeof v === 'number'), id: maybe(isId),
    run: maybe(isText), step: maybe(isCount), done: maybe(isCount), total: maybe(isCount) },
  ready: { schema: Array.isArray, versions: isObject, timings: maybe(isObject), interrupt: maybe(isShared) },
  started: { id: isId },
  result: { id: isId, result: (v) => isObject(v) && typeof v.ok === 'boolean' },
  error: { id: maybe(isId), message: isText, details: maybe(isText), fatal: maybe((v) => typeof v === 'boolean') },
  fatal: { title: maybe(isText), message: maybe(isText), details: maybe(isText) },
  log: { stream: maybe(isText), text: maybe(isText) },
  refused: { blocked: isTexts },
  pyc: { digest: (v) => isText(v) && /^[0-9a-f]{64}$/.test(v) },
  stats: { stats: maybe(isObject) },
};

// null when msg has a known type and its shape, else what is wrong (for the report).
export function checkMessage(msg) {
  if (!isObject(msg)) return 'not an object';
  const shape = Object.prototype.hasOwnProperty.call(SHAPES, msg.type) ? SHAPES[msg.type] : null;
  if (!shape) return 'unknown type ' + JSON.stringify(String(msg.type)).slice(0, 40);
  const bad = Object.keys(shape).filter((field) => !shape[field](msg[field]));
  return bad.length ? msg.type + ': bad ' + bad.join(', ') : null;
}

// The worker from a blob: URL that imports worker.js (absolute), as static/worker/boot.js starts it.
const PYC_KEY = 'inference-lab:pyc'; // sha256 of the compiled-Python cache the page trusts (pyc-cache.js)
function blobWorker(scriptURL, name) {
  let digest = null;
  try { digest = localStorage.getItem(PYC_KEY); } catch (err) { /* none */ }
  const source = 'self.labWorkerURL = ' + JSON.stringify(scriptURL) + ';\nself.labPycDigest = ' + JSON.stringify(digest) +
    ';\nimportScripts(self.labWorkerURL);\n';
  return new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })), { name });
}

// handlers: {progress(msg), runProgress(msg), ready(msg), started(id), result(result), runError(msg),
//            fatal(title, message, details), refused(addresses), malformed(what, runId)}
export function createWorkerClient(handlers) {
  let worker = null;
  let waiting = null; // id of the run whose result is awaited
  let nextId = 1;
  let sentEdits = false; // this worker was sent a run with edited code
  let stopView = null;   // Int32Array over the worker's interrupt buffer (see static/worker/worker.js), or null

  function onMessage(from, msg) {
    if (from !== worker) return; // a stopped worker's late message
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
        if (msg.stage !== 'run') handlers.progress(msg);
        else if (waiting !== null && msg.id === waiting && handlers.runProgress) handlers.runProgress(msg);
        break;
      case 'ready': stopView = msg.interrupt ? new Int32Array(msg.interrupt) : null; handlers.ready(msg); break;
      case 'started': if (waiting !== null && msg.id === waiting && handlers.started) handlers.started(msg.id); break;
      case 'result':
        if (waiting !== null && msg.id === waiting) { waiting = null; handlers.result(msg.result); }
        break;
      case 'error':
        if (msg.id === undefined || msg.id === null || (waiting !== null && msg.id === waiting)) { waiting = null; handlers.runError(msg); }
        break;
      case 'fatal': handlers.fatal(msg.title || t('client.couldNotLoadPython'), msg.message, msg.details); break;
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
    const early = window.labBoot ? window.labBoot.take() : null; // started by static/worker/boot.js at page load
    let started = early && early.worker;
    if (!started) {
      try {
        started = blobWorker(versioned('../worker/worker.js'), lang); // its messages in the page's language
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

  // Sends a run (patches: the edited functions, static/tools/code.js; null for none); returns its id.
  function run(config, patches) {
    const id = nextId++;
    waiting = id;
    if (patches && patches.length) sentEdits = true;
    worker.postMessage(patches && patches.length ? { id, type: 'run', config, patches, lang } : { id, type: 'run', config, lang });
    return id;
  }

  // Words an earlier run's report (its JSON from a 'result') in the page's language without running
  // the engine (the language switch); answered like a run. Returns its id.
  function render(report) {
    const id = nextId++;
    waiting = id;
    worker.postMessage({ id, type: 'render', report, lang });
    return id;
  }

  function rememberPyc(digest) {
    try { localStorage.setItem(PYC_KEY, digest); } catch (err) { /* the cache is then not used */ }
  }

  // Ends the worker (a run in it is abandoned); start() makes a new one.
  function stop() {
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

  return { start, run, render, stop, interrupt, stopSeen, canInterrupt: () => stopView !== null };
}
