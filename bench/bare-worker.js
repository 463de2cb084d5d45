// Baseline worker of bench/browser_bench.py: the same Pyodide files as the lab, numpy, nothing else.
'use strict';
const t0 = performance.now();
const indexURL = new URL(self.location.href).searchParams.get('index');
let pyodide = null;

async function boot() {
  importScripts(indexURL + 'pyodide.js');
  const t1 = performance.now();
  // The official lock file (served by browser_bench.py; dist/ has only the lab's cut-down one).
  pyodide = await loadPyodide({ indexURL, lockFileURL: new URL('pyodide-lock.json', self.location.href).href });
  const t2 = performance.now();
  await pyodide.loadPackage('numpy');
  pyodide.runPython('import numpy');
  const t3 = performance.now();
  self.postMessage({ type: 'numpy', timings: { pyodideJs: t1 - t0, loadPyodide: t2 - t1, numpy: t3 - t2 } });
}

// Bench-only: the engine wheel installed two ways, in this interpreter: unpacked straight into a
// folder (pyodide.unpackArchive, no micropip) and `import micropip` + micropip.install (what the lab does).
async function compareInstall(msg) {
  const bytes = new Uint8Array(await (await fetch(msg.wheel)).arrayBuffer());
  const name = msg.wheel.split('/').pop();
  await pyodide.loadPackage('micropip', { messageCallback: () => {} }); // download + unzip, not timed
  let start = performance.now();
  pyodide.unpackArchive(bytes, 'wheel', { extractDir: '/tmp/unpacked-engine' });
  const unpack = performance.now() - start;
  pyodide.FS.mkdirTree('/tmp/wheels');
  pyodide.FS.writeFile('/tmp/wheels/' + name, bytes);
  start = performance.now();
  const micropip = pyodide.pyimport('micropip');
  const micropipImport = performance.now() - start;
  await micropip.install.callKwargs('emfs:/tmp/wheels/' + name, { deps: false });
  const micropipTotal = performance.now() - start;
  micropip.destroy();
  self.postMessage({ id: msg.id, unpack, micropipImport, micropipTotal });
}

// Bench-only: exec a program (the seed) n times, stdout captured, and report each exec's time in ms.
self.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === 'install') {
    compareInstall(msg).catch((err) => self.postMessage({ id: msg.id, error: String(err && err.stack || err) }));
    return;
  }
  if (msg.type !== 'seed') return;
  pyodide.globals.set('__bench_source', msg.source);
  pyodide.runPython([
    'import contextlib, io',
    '__bench_code = compile(__bench_source, "inference-end-to-end.py", "exec")',
    'def __bench_exec():',
    '    out = io.StringIO()',
    '    with contextlib.redirect_stdout(out):',
    '        exec(__bench_code, {"__name__": "__seed__"})',
    '    return len(out.getvalue())',
  ].join('\n'));
  const run = pyodide.globals.get('__bench_exec');
  const times = [];
  let chars = 0;
  for (let i = 0; i < msg.n; i++) {
    const start = performance.now();
    chars = run();
    times.push(performance.now() - start);
  }
  run.destroy();
  self.postMessage({ id: msg.id, times, chars });
};

boot().catch((err) => self.postMessage({ type: 'fatal', message: String(err && err.stack || err) }));
