// The worker protocol, the one description both sides load: the page (static/core/worker-client.js imports this
// file) and the Python worker (static/worker/worker.js loads it with importScripts). A classic script that is also
// imported as a module: it exports nothing and sets globalThis.labProtocol, since a classic worker cannot import a
// module. Messages are small typed objects, every field listed here with the check the receiver makes:
//
// page -> worker (TO_WORKER)
//   {id, type: 'run', config, patches?, lang}  a run; patches: the student's edited functions
//                                             (py/inference_lab/entrypoints/patch.py);
//                                             web.run(config_json, patches_json, lang)
//   {id, type: 'render', report, lang}         an earlier run's report worded again in lang, no engine run (the
//                                             language switch); answered like a run
//   {id, type: 'replays', config, lang}       blocks [6], [11], [12] of a deferred big run (their data.deferred:
//                                             web.defers decides) computed now: web.replays(config_json, lang)
//                                             plays the replays; answered like a run, with its progress and Stop
//   {id, type: 'step', n}                      step n of the last long run, whole (web.step_detail: a long run's
//                                             steps come titled and cut, without narration; the step view asks)
//   {id, type: 'trace'}                        the Chrome trace of the last long run (web.trace_json: a long run's
//                                             result has trace null; the trace download asks)
//   {id, type: 'sweep', config, axis, lang}    the sweep tool (static/tools/sweep.js): one full run per value of
//                                             one constant, "NAME=V1,V2,…"; web.sweep(config_json, axis, lang)
//   {id, type: 'search', config, axes, attainment, lang}  the search tool (static/tools/sweep-search.js): a small
//                                             grid, one axis per line; web.search(config_json, axes, attainment, lang)
//   {type: 'idle'}                             sent once the page has shown 'ready': the worker may now warm up
//                                             and load what comes later (micropip, the compiled-Python cache),
//                                             never on the way to 'ready' (worker.js)
//   {id, type: 'stats'}                        bench/rerun_memory.py: answered on the MessagePort sent with it, if
//                                             any, so the page's own handler never sees the answer
// worker -> page (FROM_WORKER)
//   {type: 'progress', stage, detail, fraction}                   loading
//   {type: 'progress', stage: 'run', id, run, step, done, total, fraction}
//                                             a long run, at most every ~100 ms (web.run's progress)
//   {type: 'progress', stage: 'sweep' | 'search', id, done, total, fraction, partial}
//                                             after each point of a sweep or search: partial, the answer so far
//                                             (the page keeps it, so a Stop that restarts Python keeps the points);
//                                             a search's first one comes before its first point (done 0, partial
//                                             null): total, the grid's size as Python parsed the axes
//   {type: 'ready', schema, versions, timings, interrupt, limits}  limits: web.limits() (the tools' point limit);
//                                             schema: describe(); timings: ms since the worker
//                                             started (bench/); interrupt: Stop's SharedArrayBuffer where the page is
//                                             cross-origin isolated, else null (static/worker/interrupt.js)
//   {id, type: 'started'}                     the run left the queue (the page's watchdog counts from here)
//   {id, type: 'result', result}              web.run's answer ({ok, report, …} or {ok: false, stopped | errors});
//                                             a run's, render's, replays', sweep's or search's comes as
//                                             {id, type, json}: its UTF-8 JSON text in a transferred
//                                             ArrayBuffer (a big run's is megabytes: no structured clone), parsed
//                                             by the page into `result` before the check (worker-client.js)
//                                             a sweep's or search's: web.sweep's, web.search's
//   {id?, type: 'error', message, details, fatal}
//   {type: 'fatal', title, message, details}  loading failed
//   {type: 'log', stream, text}
//   {type: 'refused', blocked}                addresses the page's CSP refused: edited code tried the network
//   {type: 'pyc', digest}                     compiled Python stored (static/worker/pyc-cache.js): its sha256, which
//                                             the page remembers only if this worker never ran edited code
//   {id, type: 'step', ok, n, item}          the answer to 'step': the run log's item with its title and narration
//                                             (ok: false, item null when no long run is kept or n is not a step)
//   {id, type: 'trace', ok, trace}            the answer to 'trace': its JSON text (ok: false, trace null: none kept)
//   {id, type: 'stats', stats}                the answer to 'stats' (worker.js memoryStats()), on its port
// The worker runs the student's code (and a shared link's, once the visitor pressed its button), so the page
// trusts none of it: checkMessage(msg) says what is wrong with a message before any handler sees it.
// Leaves out: what each side does with a message (worker-client.js, worker.js).
'use strict';

(function () {
  const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  const isText = (v) => typeof v === 'string';
  const isId = (v) => Number.isSafeInteger(v) && v > 0;
  const maybe = (check) => (v) => v === undefined || v === null || check(v);
  const isTexts = (v) => Array.isArray(v) && v.length <= 100 && v.every(isText);
  const isCount = (v) => Number.isSafeInteger(v) && v >= 0;
  // a run-log item (py/inference_lab/core/serving/run_log.py) with its narration lines
  const isStep = (v) => isObject(v) && Array.isArray(v.text) && v.text.every(isText) && Array.isArray(v.running);
  const isShared = (v) => typeof SharedArrayBuffer === 'function' && v instanceof SharedArrayBuffer && v.byteLength >= 12;
  const isLang = (v) => v === 'vi' || v === 'en';

  // type -> {field: check} of what each message must hold.
  const TO_WORKER = {
    run: { id: isId, config: isObject, patches: maybe(Array.isArray), lang: maybe(isLang) },
    render: { id: isId, report: isObject, lang: maybe(isLang) },
    replays: { id: isId, config: isObject, lang: maybe(isLang) },
    step: { id: isId, n: isCount },
    trace: { id: isId },
    stats: { id: maybe(isId) },
    idle: {},
    sweep: { id: isId, config: isObject, axis: isText, lang: maybe(isLang) },
    search: { id: isId, config: isObject, axes: isText, attainment: maybe(isText), lang: maybe(isLang) },
  };
  const FROM_WORKER = {
    progress: { stage: isText, detail: maybe(isText), fraction: maybe((v) => typeof v === 'number'), id: maybe(isId),
      run: maybe(isText), step: maybe(isCount), done: maybe(isCount), total: maybe(isCount),
      partial: maybe(isObject) },
    ready: { schema: Array.isArray, versions: isObject, timings: maybe(isObject), interrupt: maybe(isShared),
      limits: maybe(isObject) },
    started: { id: isId },
    result: { id: isId, result: (v) => isObject(v) && typeof v.ok === 'boolean' },
    error: { id: maybe(isId), message: isText, details: maybe(isText), fatal: maybe((v) => typeof v === 'boolean') },
    fatal: { title: maybe(isText), message: maybe(isText), details: maybe(isText) },
    log: { stream: maybe(isText), text: maybe(isText) },
    refused: { blocked: isTexts },
    pyc: { digest: (v) => isText(v) && /^[0-9a-f]{64}$/.test(v) },
    step: { id: isId, ok: (v) => typeof v === 'boolean', n: maybe(isCount), item: maybe(isStep) },
    trace: { id: isId, ok: (v) => typeof v === 'boolean', trace: maybe(isText) },
    stats: { id: maybe(isId), stats: maybe(isObject) },
  };

  // null when msg has a type of `shapes` (default: what the worker sends) and its shape, else what is wrong.
  function checkMessage(msg, shapes = FROM_WORKER) {
    if (!isObject(msg)) return 'not an object';
    const shape = Object.prototype.hasOwnProperty.call(shapes, msg.type) ? shapes[msg.type] : null;
    if (!shape) return 'unknown type ' + JSON.stringify(String(msg.type)).slice(0, 40);
    const bad = Object.keys(shape).filter((field) => !shape[field](msg[field]));
    return bad.length ? msg.type + ': bad ' + bad.join(', ') : null;
  }

  globalThis.labProtocol = { TO_WORKER, FROM_WORKER, checkMessage };
})();
