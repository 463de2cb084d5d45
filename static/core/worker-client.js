// The page's side of the worker protocol (static/worker/worker.js owns Pyodide). Messages are small typed
// objects:
//   page -> worker   {id, type: 'run', config, patches?, lang} · {id, type: 'render', report, lang}
//   worker -> page   {type: 'progress', stage, detail, fraction} · {type: 'ready', schema, versions}
//                    {id, type: 'started'} · {id, type: 'result', result} · {id?, type: 'error', message, details, fatal}
//                    {type: 'fatal', title, message, details} · {type: 'log', stream, text}
// start() adopts the worker static/worker/boot.js started while the page was still loading and replays
// what it already said (Pyodide's download starts before this module is even fetched), else starts
// one. Messages of a worker that was stopped, and results of runs no longer waited for, are dropped.
// Leaves out: what the page does with them (static/core/app.js passes handlers).

import { versioned } from './versioned.js';
import { lang, t } from '../words/i18n.js';

// handlers: {progress(msg), ready(msg), started(id), result(result), runError(msg), fatal(title, message, details)}
export function createWorkerClient(handlers) {
  let worker = null;
  let waiting = null; // id of the run whose result is awaited
  let nextId = 1;

  function onMessage(from, msg) {
    if (from !== worker || !msg || typeof msg !== 'object') return; // a stopped worker's late message
    switch (msg.type) {
      case 'progress': handlers.progress(msg); break;
      case 'ready': handlers.ready(msg); break;
      case 'started': if (waiting !== null && msg.id === waiting && handlers.started) handlers.started(msg.id); break;
      case 'result':
        if (waiting !== null && msg.id === waiting) { waiting = null; handlers.result(msg.result); }
        break;
      case 'error':
        if (msg.id === undefined || (waiting !== null && msg.id === waiting)) { waiting = null; handlers.runError(msg); }
        break;
      case 'fatal': handlers.fatal(msg.title || t('client.couldNotLoadPython'), msg.message, msg.details); break;
      case 'log': console.log('[engine ' + (msg.stream || 'log') + ']', msg.text); break;
      default: console.warn('unknown worker message', msg);
    }
  }

  // Returns false (after telling handlers.fatal) when no worker could be started.
  function start() {
    const early = window.labBoot ? window.labBoot.take() : null; // started by static/worker/boot.js at page load
    let started = early && early.worker;
    if (!started) {
      try {
        started = new Worker(versioned('../worker/worker.js'), { name: lang }); // its messages in the page's language
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

  // Ends the worker (a run in it is abandoned); start() makes a new one.
  function stop() {
    if (worker) worker.terminate();
    worker = null;
    waiting = null;
  }

  return { start, run, render, stop };
}
