// The one file that owns Pyodide. Loads Python, unpacks NumPy's and the engine's wheels into site-packages,
// then answers the page's messages by calling inference_lab.entrypoints.web.describe() / run(config_json).
// The downloads go out in the order Python needs them: build-info.json (asked for by the blob that starts this
// worker, while this file downloads: static/worker/boot.js), then loadPyodide's own (the Pyodide core, gzip'd
// pyodide.asm.wasm included, and the standard library), then a check that every Pyodide file is there (a static
// host's six connections go to the files Python starts from first) and the wheels (NumPy's, the engine's), all while
// the WebAssembly runtime compiles.
// A build puts this file's helper scripts (fill.js and words/worker.js, pyc-cache.js, protocol.js,
// interrupt.js, gunzip.js) in front of it (sitebuild/page.py bundle_worker): one request instead of seven, and the
// page's own copies of fill.js and protocol.js are then the only ones fetched. Unbuilt, this file loads them.
// Once the page has shown 'ready' (its 'idle' message; so no request of the later work can reach the server
// before the page is ready), NumPy's rest is loaded (loadRest: every run waits for it), one idle default run warms
// the engine so the first click is a re-run; then micropip is loaded for the student's code (a run with edited code
// that comes sooner loads it first).
// The interpreter lives as long as the worker: runs never reload it.
// Stop without a reboot (static/worker/interrupt.js): where the page is cross-origin isolated, Pyodide gets
// an interrupt buffer sent with 'ready'; the page writes into it, Python raises KeyboardInterrupt in the
// line it is on, and web.run answers {ok: false, stopped: that line}. Elsewhere the page restarts the worker.
// A build with bytecode (build-info.json "bytecode", sitebuild/bytecode.py) names its standard library
// (pyodide.stdLibURL) and its lock file names the repacked wheels: Python then imports .pyc files
// instead of compiling sources, and the compiled-Python cache of static/worker/pyc-cache.js is not used.
//
// The messages both ways, their fields and checks: static/worker/protocol.js (the page loads it too).
'use strict';

// The worker runs from a blob: URL (static/worker/boot.js starts it: so the page's CSP governs it),
// which names this script's own URL: every URL here is made absolute from it.
const WORKER_URL = self.labWorkerURL || self.location.href;
const SITE_ROOT = new URL('../../', WORKER_URL);
// The lab lock's packages loaded with pyodide.loadPackage after 'ready' (build-info.json pyodide.load:
// sitebuild/pyodide.py load_phases): "run" right after it, before the warm-up and any run (NumPy's part that
// `import numpy` does not read: numpy.random, fft, ...), "later" after the warm-up (micropip: the engine needs no
// installer; the student's edited code may import it). What 'ready' needs of NumPy the worker unpacks itself
// (build-info.json pyodide.unpack: installUnpacked). A build without the split has no "run" package.
let LOAD = null;

const T0 = performance.now();
const timings = {};      // stage -> ms since the worker started (sent with 'ready'; read by bench/)
function mark(stage) { timings[stage] = Math.round(performance.now() - T0); }

let pyodide = null;      // the Pyodide instance once loaded
let warmed = false;      // true once any run (the idle warm-up or the user's) went through the engine
let web = null;          // PyProxy of the inference_lab.entrypoints.web module once loaded
let ranEdited = false;   // a run with edited code went through: this worker's caches are not to be trusted
const queue = [];        // runs that arrived before the engine was ready
let served = Promise.resolve(); // the runs accepted so far, answered one after another (accept())
let later = null;        // loadLater()'s promise once started

function post(msg) { self.postMessage(msg); }

function progress(stage, detail, fraction) { post({ type: 'progress', stage, detail, fraction }); }

// A loading failure that names what failed and what to do about it.
class LoadError extends Error {
  constructor(title, message, details) {
    super(title);
    this.title = title;
    this.hint = message;
    this.details = details;
  }
}

// The page's language (static/worker/boot.js names the worker after it): every message below in it.
// The messages live in static/words/worker.js, both languages keyed as the page's catalogues are; a
// classic script like this worker (which cannot import the page's module catalogues), loaded first.
const LANG = self.name === 'en' ? 'en' : 'vi';
const WORDS_URL = new URL('../words/worker.js', WORKER_URL);
WORDS_URL.search = new URL(WORKER_URL).search;                 // the build's ?v=, as versioned() gives modules
const FILL_URL = new URL('fill.js', WORDS_URL);               // the one fill of the page's and the worker's words
FILL_URL.search = WORDS_URL.search;
if (!self.WORKER_WORDS) importScripts(FILL_URL.href, WORDS_URL.href); // unless the build put them in front
const WORDS = self.WORKER_WORDS[LANG];

// The message `key` in LANG, {name} filled from `values` (static/words/fill.js).
function t(key, values) {
  const text = WORDS[key];
  return values ? self.labFill(text, values) : text;
}

const SERVE_HINT = t('worker.rebuildPagePython3');

const MANIFEST_URL = new URL('build-info.json', SITE_ROOT);

async function fetchManifest() {
  const url = MANIFEST_URL;
  const early = self.labManifest; // the blob's request (static/worker/boot.js), once
  self.labManifest = null;
  let response;
  try {
    response = await (early || fetch(url, { cache: 'no-store' }));
  } catch (err) {
    throw new LoadError(t('worker.couldNotLoadBuildInfo'), SERVE_HINT, String(err));
  }
  if (!response.ok) throw new LoadError(t('worker.buildInfoJsonMissing', { status: response.status }), SERVE_HINT);
  return response.json();
}

// Ask for every Pyodide file (in parallel with loading them), so a missing one is named instead of
// leaving Pyodide waiting forever for a wasm module that never comes.
async function checkFiles(indexURL, files) {
  await Promise.all(files.map(async (name) => {
    const url = new URL(name, indexURL);
    let response;
    try {
      response = await fetch(url, { method: 'HEAD', cache: 'no-store' });
    } catch (err) {
      throw new LoadError(t('worker.couldNotLoadPyodide', { name }),
        t('worker.checkNetworkPyodideCdn', { hint: SERVE_HINT }), url.href + '\n' + String(err));
    }
    if (!response.ok) {
      throw new LoadError(t('worker.missingPyodideFileHttp', { name, status: response.status }), SERVE_HINT, url.href);
    }
  }));
}

// Resolves like `promise`, but rejects as soon as `check` rejects.
function unlessFails(promise, check) {
  return Promise.race([promise, check.then(() => promise)]);
}

// A helper script of this folder, with the build's ?v= (as versioned() gives modules), unless the build put it in
// front of this file (it set `global`).
function importHelper(name, global) {
  if (self[global]) return;
  const url = new URL(name, WORKER_URL);
  url.search = new URL(WORKER_URL).search;
  importScripts(url.href);
}

// Compiled Python kept between visits (static/worker/pyc-cache.js); optional: without it Python compiles the sources.
try {
  importHelper('pyc-cache.js', 'labPyc');
} catch (err) {
  self.labPyc = null;
}
const labPyc = self.labPyc || null;

// The protocol's message types (static/worker/protocol.js, the page loads it too).
importHelper('protocol.js', 'labProtocol');
const TO_WORKER = self.labProtocol.TO_WORKER;

// Stop's interrupt buffer (static/worker/interrupt.js).
importHelper('interrupt.js', 'labInterrupt');

// The files shipped gzip'd, unpacked as they arrive (static/worker/gunzip.js).
importHelper('gunzip.js', 'labGunzip');
const stops = self.labInterrupt;
// web.run's stop_seen (entrypoints/sandbox.py): a Stop reached the lab's code and an answer follows.
const stopSeen = () => stops.seen();

// The worker's one fetch interceptor (Pyodide fetches its files through self.fetch): the compiled
// stdlib comes from memory when pyc-cache.js has it; a file the build shipped gzip'd (pyodide.asm.wasm:
// static/worker/gunzip.js) from its .gz, unpacked as it arrives; anything else from the network (or, once sw.js
// serves the page, from its cache). Nothing is copied for sw.js: it takes what this worker downloaded from the HTTP
// cache, after the first run (static/core/offline.js).
const nativeFetch = self.fetch.bind(self);
const gzipped = new Map(); // absolute URL Pyodide asks for -> the URL of its gzip'd copy (build-info.json pyodide.gzip)
self.fetch = async function (input, init) {
  const url = new URL(input instanceof Request ? input.url : String(input), WORKER_URL);
  const local = labPyc && labPyc.answer(url.href);
  if (local) return local;
  const packed = gzipped.get(url.href);
  return packed ? self.labGunzip.response(await nativeFetch(packed), url.pathname) : nativeFetch(input, init);
};

// build-info.json's gzip'd files, relative to indexURL; a browser that cannot unpack them is named.
function takeGzipped(manifest, indexURL) {
  const names = Object.entries(manifest.pyodide.gzip);
  if (names.length && !self.labGunzip.supported()) {
    throw new LoadError(t('worker.browserTooOld'), t('worker.browserTooOldHint'), 'DecompressionStream');
  }
  for (const [name, packed] of names) gzipped.set(new URL(name, indexURL).href, new URL(packed, indexURL).href);
}

// A wheel's bytes (the engine's, or NumPy's with its Subresource Integrity: the browser checks its sha256), fetched
// while Pyodide loads; a failure names the engine's wheel or a Pyodide file (`pyodideFile`).
async function fetchWheel(wheelURL, integrity = null, pyodideFile = false) {
  const wheel = wheelURL.split('/').pop();
  let response;
  try {
    response = await fetch(wheelURL, integrity ? { integrity } : {});
  } catch (err) {
    const title = pyodideFile ? t('worker.couldNotLoadPyodide', { name: wheel }) : t('worker.couldNotLoadEngine', { wheel });
    throw new LoadError(title, SERVE_HINT, String(err));
  }
  if (!response.ok) {
    const title = pyodideFile ? t('worker.missingPyodideFileHttp', { name: wheel, status: response.status })
      : t('worker.missingEngineFileHttp', { wheel, status: response.status });
    throw new LoadError(title, SERVE_HINT, wheelURL);
  }
  return new Uint8Array(await response.arrayBuffer());
}

// build-info.json pyodide.unpack (sitebuild/pyodide.py unpacked): the packages the worker installs itself before
// 'ready' (NumPy's wheel), each fetched beside the Pyodide core's files and checked against its sha256.
function fetchUnpacked(entries, indexURL) {
  return entries.map((entry) => fetchWheel(new URL(entry.file, indexURL).href, entry.integrity, true));
}

// A wheel unpacked straight into site-packages (its .dist-info included), as Pyodide installs its own packages;
// its extension modules (.so) are compiled when Python first imports them. Only site-packages' own finder forgets its
// listing (importlib.invalidate_caches() would visit every finder and the metadata ones too: ~50 ms of the way to
// 'ready'); a finder not made yet lists it fresh.
function unpackWheel(bytes) {
  const site = pyodide.runPython('import sys; next(p for p in sys.path if p.endswith("site-packages"))');
  pyodide.unpackArchive(bytes, 'wheel', { extractDir: site });
  const finder = `__import__('sys').path_importer_cache.get(${JSON.stringify(site)})`;
  pyodide.runPython(`(lambda f: f and f.invalidate_caches())(${finder})`);
}

// The unpack entries' wheels installed; pyodide.loadedPackages then names them (as loadPackage would), so a later
// loadPackage (NumPy's rest depends on numpy) or the student's never installs them again.
async function installUnpacked(entries, wheels) {
  for (const [i, entry] of entries.entries()) {
    const bytes = await wheels[i];
    try {
      unpackWheel(bytes);
    } catch (err) {
      throw new LoadError(t('worker.couldNotLoadPackageWhl', { missing: entry.name }), SERVE_HINT, String(err));
    }
    pyodide.loadedPackages[entry.name] = 'default channel';
  }
  mark('packagesUnpacked');
}

async function loadRuntime(indexURL, lockFileURL, stdLibURL, extra) {
  try {
    importScripts(new URL('pyodide.js', indexURL).href);
  } catch (err) {
    throw new LoadError(t('worker.couldNotLoadPyodideJs'), SERVE_HINT, String(err));
  }
  const options = {
    indexURL,
    lockFileURL, // build.py's pyodide-lock.lab.json: the lock file cut down to the lab's packages
    stdout: (text) => post({ type: 'log', stream: 'stdout', text }),
    stderr: (text) => post({ type: 'log', stream: 'stderr', text }),
  };
  if (stdLibURL) options.stdLibURL = stdLibURL; // build.py's python_stdlib.pyc.zip: start-up modules as bytecode
  try {
    try {
      return await self.loadPyodide({ ...options, ...extra });
    } catch (err) {
      if (!extra || !extra.stdLibURL) throw err;
      labPyc.state.found = false; // a bad compiled-Python cache: start from the sources, rebuild it later
      labPyc.state.site = null;
      return await self.loadPyodide(options);
    }
  } catch (err) {
    throw new LoadError(t('worker.pyodideDidNotStartAsm'),
      SERVE_HINT, String(err && err.stack || err));
  }
}

// The prefetched engine wheel unpacked (unpackWheel): a pure-Python wheel with no dependencies needs no micropip.
async function installEngine(wheelURL, wheelBytes) {
  try {
    unpackWheel(wheelBytes);
    mark('engineUnpacked');
  } catch (err) {
    throw new LoadError(t('worker.couldNotInstallEngine', { wheel: wheelURL.split('/').pop() }), SERVE_HINT, String(err));
  }
  try {
    return pyodide.pyimport('inference_lab.entrypoints.web');
  } catch (err) {
    throw new LoadError(t('worker.couldNotImport'),
      t('worker.engineBuildBroken'), String(err));
  }
}

// A bytecode-only engine wheel (sitebuild/wheel.py): its sources (build-info.json engine.sources, a JSON file) are
// fetched only when a traceback first needs one of its lines (web.source_lines_from), by a synchronous request
// (a Web Worker may make one), not on the way to 'ready'; the service worker keeps the file for offline use.
function engineSources(url) {
  const fetchText = () => {
    const request = new XMLHttpRequest();
    request.open('GET', url, false);
    request.send();
    return request.status === 200 ? request.responseText : null;
  };
  web.source_lines_from(fetchText);
}

// A pruned standard library (sitebuild/stdlib.py): the rest comes from the official zip when first
// imported, through the finder the build put into it (sitebuild/lazy_stdlib.py).
function lazyStdlib(url) {
  const lazy = pyodide.pyimport('_lab_lazy_stdlib');
  try {
    lazy.install(url, LANG);
  } finally {
    lazy.destroy();
  }
}

async function boot() {
  progress('build-info.json', t('worker.readingBuildSFileList'), 0.02);
  const manifest = await fetchManifest();
  mark('manifest');
  const indexURL = new URL(manifest.pyodide.indexURL, SITE_ROOT).href;
  const wheelURL = new URL(manifest.engine.wheel, SITE_ROOT).href;
  takeGzipped(manifest, indexURL);
  LOAD = manifest.pyodide.load;
  progress('Python (Pyodide ' + manifest.pyodide.version + ')',
    t('worker.pyodideAsmWasmStandard'), 0.1);
  // A build with bytecode (build-info.json "bytecode") needs no compiled-Python cache of its own.
  const pyc = manifest.bytecode ? null : labPyc;
  const pycOptions = pyc ? await pyc.open(manifest.build) : {};
  const lockFileURL = new URL(manifest.pyodide.lockFileURL, SITE_ROOT).href;
  const stdLibURL = manifest.pyodide.stdLibURL ? new URL(manifest.pyodide.stdLibURL, indexURL).href : null;
  const runtime = loadRuntime(indexURL, lockFileURL, stdLibURL, pycOptions);
  runtime.catch(() => {}); // awaited below; a failure is reported there
  // after loadPyodide asked for the core's files (its requests go out before this timer fires)
  const unpack = manifest.pyodide.unpack;
  const [check, wheel, wheels] = await new Promise((resolve) => setTimeout(() => resolve([
    checkFiles(indexURL, manifest.pyodide.files || []), fetchWheel(wheelURL), fetchUnpacked(unpack, indexURL)]), 0));
  for (const promise of [wheel, ...wheels]) promise.catch(() => {}); // awaited below; a failure is reported there
  pyodide = await unlessFails(runtime, check);
  mark('pyodide');
  timings.pyc = Boolean(pyc && pyc.applySite(pyodide));
  timings.bytecode = Boolean(manifest.bytecode);
  if (manifest.pyodide.fullStdLibURL) lazyStdlib(new URL(manifest.pyodide.fullStdLibURL, indexURL).href);
  await installUnpacked(unpack, wheels);
  progress('engine', t('worker.installingInferenceLab', { version: manifest.engine.version }), 0.85);
  web = await installEngine(wheelURL, await wheel);
  if (manifest.engine.sources) engineSources(new URL(manifest.engine.sources, SITE_ROOT).href);
  mark('engineImported');
  progress('engine', t('worker.readingConstantsSchema'), 0.95);
  const schema = JSON.parse(web.describe());
  const limits = toolLimits();
  const interrupt = stops.give(pyodide);
  mark('ready');
  post({ type: 'ready', schema, versions: { pyodide: pyodide.version, engine: manifest.engine.version }, timings, interrupt,
    limits });
}

// The capacity tools' limits (web.limits: the points a sweep or search runs here, the search axes), or null for an
// engine without them (the page's tools then say their limit in general words).
function toolLimits() {
  try {
    return typeof web.limits === 'function' ? JSON.parse(web.limits()) : null;
  } catch (err) {
    return null;
  }
}

// Who stopped the run, in the page's language (web.run words its message with it).
function stoppedBy() {
  const seconds = stops.seconds();
  return seconds > 0 ? t('worker.watchdog', { seconds }) : t('worker.stopButton');
}

// One default run while the student reads the page: weights, tokenizer and the quality gate are
// then cached, so the first click costs what any later one does. Skipped once a real run went through.
function warmUp() {
  if (warmed || !web) return;
  warmed = true;
  const stopsBefore = stops.lastStopped();
  try {
    web.run.callKwargs('{}', { stop_seen: stopSeen }); // imports the pipeline, fills the engine's caches
    // a second, steady run (WebAssembly's optimising tier has more to work on), unless a Stop came
    if (stops.lastStopped() === stopsBefore) web.run.callKwargs('{}', { stop_seen: stopSeen });
  } catch (err) {
    // a real run will report it
  }
  mark('warm');
  post({ type: 'log', stream: 'info', text: 'engine warmed up (' + (timings.warm - timings.ready) + ' ms after ready)' });
  if (labPyc && !timings.bytecode) {
    labPyc.buildLater(pyodide, (modules, digest) => {
      mark('pycStored');
      if (!ranEdited) post({ type: 'pyc', digest }); // the page remembers it (pyc-cache.js trusts only that)
      post({ type: 'log', stream: 'info', text: 'compiled Python cached for the next visit (' + modules + ' modules)' });
    });
  }
}

// ── the network: the page's CSP (connect-src 'self') refuses any other origin ──
// The browser refuses edited code's fetch, XMLHttpRequest, WebSocket, importScripts, pyfetch and
// micropip to any other origin and fires 'securitypolicyviolation' here (after the run's synchronous
// part). The addresses refused go to the page as {type: 'refused', blocked}, which words the lesson.
const refused = new Set();
self.addEventListener('securitypolicyviolation', (event) => {
  if (refused.size === 0) setTimeout(reportRefused, 0);
  if (refused.size < 20) refused.add(String(event.blockedURI || event.violatedDirective || '?'));
});

function reportRefused() {
  post({ type: 'refused', blocked: [...refused] });
  refused.clear();
}

// How far the run in progress is: web.run's progress (entrypoints/web.py calls it after engine steps, at most
// every ~100 ms): run = "chunked" (the main run), "static", "nochunk" (block 12's other policies), "nocache"
// (block 11's run without the prefix cache; these three also in a 'replays' message's web.replays), "nospec"
// (without speculation), "kv16" (KV_BITS = 8: block 13's run with the 16-bit KV cache); then "report" while the
// blocks are written from the run log (lab.writing).
let runningId = null;    // the id of the run Python is working on
const runProgress = (run, step, done, total) => post({ type: 'progress', stage: 'run', id: runningId, run, step, done,
  total, fraction: total > 0 ? done / total : null });

// The sweep and search tools (web.sweep, web.search): full runs one after another, each point's answer so far
// posted as it comes (protocol.js 'progress' stage 'sweep' | 'search'); Stop as a run's.
function runTool(msg, config, lang) {
  const progress = (done, total, partial) => post({ type: 'progress', stage: msg.type, id: msg.id, done, total,
    fraction: total > 0 ? done / total : null, partial: JSON.parse(partial) });
  const hooks = { progress, stop_seen: stopSeen };
  if (msg.type === 'sweep') return web.sweep.callKwargs(config, msg.axis, lang, hooks);
  return web.search.callKwargs(config, msg.axes, msg.attainment === undefined ? null : msg.attainment, lang, hooks);
}

function handleRun(msg) {
  warmed = true;
  if (Array.isArray(msg.patches) && msg.patches.length) ranEdited = true;
  post({ id: msg.id, type: 'started' }); // the page's watchdog for edited code counts from here
  stops.clear(); // a Stop that came after the previous run had ended
  if (stops.on && stops.lastStopped() === msg.id) { // stopped while it waited (behind the warm-up)
    post({ id: msg.id, type: 'result', result: { ok: false, stopped: t('worker.stoppedAt', { stopped: stoppedBy() }), errors: [] } });
    return;
  }
  try {
    const lang = msg.lang === 'en' ? 'en' : 'vi';
    const config = JSON.stringify(msg.config || {});
    const patches = Array.isArray(msg.patches) && msg.patches.length ? JSON.stringify(msg.patches) : null;
    runningId = msg.id;
    // web.run is handed the worker's progress and stop_seen (Python never reads the worker's globals);
    // stopped (who stopped the run) only when Stop can interrupt
    const hooks = stops.on ? { progress: runProgress, stop_seen: stopSeen, stopped: stoppedBy }
      : { progress: runProgress, stop_seen: stopSeen };
    const text = msg.type === 'render' ? web.render(JSON.stringify(msg.report), lang)
      : msg.type === 'replays' ? web.replays.callKwargs(config, lang, hooks)
      : msg.type === 'sweep' || msg.type === 'search' ? runTool(msg, config, lang)
        : web.run.callKwargs(config, patches, lang, hooks);
    // the answer as UTF-8 JSON text in a transferred ArrayBuffer: no structured clone of a big run's object
    // graph (megabytes) on the page's main thread, and no parse here (the page parses it: worker-client.js)
    const json = new TextEncoder().encode(text).buffer;
    self.postMessage({ id: msg.id, type: 'result', json }, [json]);
  } catch (err) {
    const isPython = err instanceof pyodide.ffi.PythonError;
    const text = String(err && err.message || err);
    const lastLine = text.trim().split('\n').pop();
    if (isPython && err.type === 'KeyboardInterrupt') { // stopped outside web.run's own handling
      post({ id: msg.id, type: 'result', result: { ok: false, stopped: t('worker.stoppedAt', { stopped: stoppedBy() }) + lastLine, errors: [] } });
      return;
    }
    post({
      id: msg.id, type: 'error',
      message: (isPython ? t('worker.pythonError') : t('worker.errorWhileRunning')) + lastLine,
      details: text,
      fatal: !isPython, // anything but a Python exception may have left the interpreter unusable
    });
  } finally {
    stops.clear(); // a Stop that came as the run ended is not for the next one
  }
}

// What the worker holds, for bench/rerun_memory.py: the WebAssembly memory (Pyodide's heap; it
// grows and never shrinks) and the objects Python's garbage collector tracks.
function memoryStats() {
  const stats = { wasmBytes: null, pyGcObjects: null, runsQueued: queue.length };
  if (!pyodide) return stats;
  stats.wasmBytes = pyodide._module.HEAPU8.length;
  const gc = pyodide.pyimport('gc');
  try {
    const objects = gc.get_objects();
    stats.pyGcObjects = objects.length;
    objects.destroy();
  } finally {
    gc.destroy();
  }
  return stats;
}

// Right after 'ready' (the page's 'idle'), or first thing for a run that comes sooner (once): the packages every
// run needs that 'ready' did not (LOAD.run: NumPy's rest). The warm-up and every run wait for it; a package that does
// not load is a broken build, named as a loading failure is (fatal), not left for a run's ImportError.
let rest = null;
function loadRest() {
  if (!rest) rest = (async () => {
    if (!LOAD.run.length) return;
    const failures = [];
    await pyodide.loadPackage(LOAD.run, { messageCallback: () => {}, errorCallback: (text) => failures.push(text) });
    mark('runPackages');
    const missing = LOAD.run.filter((name) => !(name in pyodide.loadedPackages));
    if (missing.length) {
      throw new LoadError(t('worker.couldNotLoadPackageWhl', { missing: missing.join(', ') }), SERVE_HINT, failures.join('\n'));
    }
  })();
  return rest;
}

// After the warm-up (once): the packages the engine does not need (micropip), for the student's code.
// A failure is logged; the lab runs without them.
function loadLater() {
  if (!later) later = (async () => {
    const failures = [];
    try {
      await pyodide.loadPackage(LOAD.later, {
        messageCallback: () => {}, errorCallback: (text) => failures.push(text),
      });
    } catch (err) {
      failures.push(String(err));
    }
    mark('laterPackages');
    if (failures.length) post({ type: 'log', stream: 'stderr', text: 'not loaded: ' + LOAD.later.join(', ') + '\n' + failures.join('\n') });
  })();
  return later;
}

// One step of the last long run, whole (web.step_detail; protocol.js 'step').
function answerStep(msg) {
  let answer = { ok: false };
  try {
    answer = JSON.parse(web.step_detail(msg.n));
  } catch (err) {
    post({ type: 'log', stream: 'stderr', text: String(err && err.message || err) });
  }
  post({ id: msg.id, type: 'step', ok: answer.ok === true, n: msg.n, item: answer.ok === true ? answer.item : null });
}

// The Chrome trace of the last long run (web.trace_json; protocol.js 'trace').
function answerTrace(msg) {
  let trace = null;
  try {
    const text = web.trace_json();
    trace = text === 'null' ? null : text;
  } catch (err) {
    post({ type: 'log', stream: 'stderr', text: String(err && err.message || err) });
  }
  post({ id: msg.id, type: 'trace', ok: trace !== null, trace });
}

// A run (or render, or a step, or a trace) to answer after those accepted before it; one with edited code loads
// micropip first.
function accept(msg) {
  served = served.then(async () => {
    if (msg.type === 'step') { answerStep(msg); return; }
    if (msg.type === 'trace') { answerTrace(msg); return; }
    await loadRest();
    if (Array.isArray(msg.patches) && msg.patches.length) await loadLater();
    handleRun(msg);
  }).catch((err) => (err instanceof LoadError ? reportFatal(err)
    : post({ type: 'log', stream: 'stderr', text: String(err && err.stack || err) })));
}

self.onmessage = (event) => {
  const msg = event.data || {};
  if (msg.type === 'stats') {
    const reply = { id: msg.id, type: 'stats', stats: memoryStats() };
    if (event.ports && event.ports[0]) event.ports[0].postMessage(reply);
    else post(reply);
    return;
  }
  if (!Object.hasOwn(TO_WORKER, msg.type)) return;
  if (msg.type === 'idle') {
    if (web) setTimeout(() => loadRest().then(() => { warmUp(); loadLater(); }, reportFatal), 0);
    return;
  }
  if (web) accept(msg);
  else queue.push(msg);
};

boot().then(() => {
  while (queue.length) accept(queue.shift());
}).catch(reportFatal);

// A loading failure, named for the page (protocol.js 'fatal': it offers to start Python again).
function reportFatal(err) {
  const known = err instanceof LoadError;
  post({
    type: 'fatal',
    title: known ? err.title : t('worker.couldNotLoadPython'),
    message: known ? err.hint : SERVE_HINT,
    details: known ? err.details : String(err && err.stack || err),
  });
}
