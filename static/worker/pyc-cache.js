// Compiled Python kept between visits (loaded into static/worker/worker.js with importScripts), for builds
// without bytecode (build.py found no CPython 3.12): a build with bytecode ships what this cache
// would hold, so the worker leaves this file unused there.
//
// Pyodide 0.27 ships Python sources only (python_stdlib.zip and the NumPy and micropip
// wheels hold .py files), so every start compiles the standard library, NumPy, micropip and the
// engine again in WebAssembly. After a start without this cache, the worker compiles the modules
// it has imported, in small idle slices, and keeps them in Cache Storage, one cache per build:
//   stdlib.zip — python_stdlib.zip's entries plus an unchecked-hash .pyc beside each imported module
//                (stored, not deflated), given to loadPyodide as stdLibURL;
//   site.zip   — __pycache__/*.cpython-312.pyc for the imported modules in site-packages,
//                unpacked right after loadPyodide, before anything there is imported.
// A .pyc whose magic number does not match is ignored by Python (it compiles the source), and a
// module without one is compiled as before; so the cache can only make starts faster.
// The cache is named "<build.caches.pyc> <site root> <build.version>" (build-info.json's "build",
// written by build.py, handed over by the worker in open()). stdlib.zip reaches loadPyodide through
// the worker's one fetch interceptor, which asks answer() first.
// Where Cache Storage is missing (plain http on a LAN address) nothing happens.
// Cache Storage is reachable from the student's code in the worker, so a cache is used only if its
// sha256 is the one the page remembered (localStorage, out of the worker's reach) when this file
// built it in a worker that never ran edited code: the blob that starts the worker names it
// (self.labPycDigest, static/worker/boot.js); any other cache is ignored and built again.
'use strict';

self.labPyc = (function () {
  const ROOT = new URL('../../', self.labWorkerURL || self.location.href).href; // the worker runs from a blob: URL
  const STDLIB_URL = ROOT + 'pyodide/python_stdlib.pyc-cache.zip'; // answered here, never fetched
  const SLICE_MS = 12;
  const START_AFTER_MS = 10000; // after the warm-up: keep out of the way of the student's first clicks
  const state = { prefix: null, version: null, stdlib: null, site: null, found: false, modules: 0 };

  const usable = () => typeof caches !== 'undefined';

  // For the worker's fetch interceptor: the cached stdlib.zip when `href` is STDLIB_URL, else null.
  function answer(href) {
    if (!state.stdlib || href !== STDLIB_URL) return null;
    return new Response(state.stdlib, { headers: { 'Content-Type': 'application/zip' } });
  }

  // Before loadPyodide: find this build's cache (build: build-info.json's "build"). Returns the
  // loadPyodide options to add.
  async function open(build) {
    if (!usable() || !build || !build.version || !build.caches) return {};
    try {
      state.prefix = build.caches.pyc + ' ' + ROOT + ' ';
      state.version = build.version;
      const cache = await caches.open(state.prefix + state.version);
      const [stdlib, site] = await Promise.all([cache.match(ROOT + '__pyc__/stdlib.zip'), cache.match(ROOT + '__pyc__/site.zip')]);
      if (!stdlib || !site) return {};
      const buffers = await Promise.all([stdlib.arrayBuffer(), site.arrayBuffer()]);
      if (!self.labPycDigest || await digestOf(buffers) !== self.labPycDigest) return {}; // not the page's: rebuilt
      [state.stdlib, state.site] = buffers;
      state.found = true;
      return { stdLibURL: STDLIB_URL };
    } catch (err) {
      return {};
    }
  }

  // Right after loadPyodide: the site-packages .pyc go into __pycache__ folders.
  function applySite(pyodide) {
    if (!state.site) return false;
    try {
      pyodide.unpackArchive(state.site, 'zip', { extractDir: '/' });
    } catch (err) {
      return false;
    }
    state.site = state.stdlib = null;
    return true;
  }

  const BUILD_PY = `
def _lab_pyc_steps(out_stdlib, out_site):
    import importlib.util, io, sys, zipfile
    from importlib._bootstrap_external import _code_to_hash_pyc
    stdlib = "/lib/python%d%d.zip" % sys.version_info[:2]
    site = "/lib/python%d.%d/site-packages/" % sys.version_info[:2]
    std, pkgs = {}, {}
    src_zip = zipfile.ZipFile(stdlib)
    for mod in list(sys.modules.values()):
        origin = getattr(getattr(mod, "__spec__", None), "origin", None)
        if not isinstance(origin, str) or not origin.endswith(".py"):
            continue
        try:
            if origin.startswith(stdlib + "/"):
                arc = origin[len(stdlib) + 1:]
                source = src_zip.read(arc)
                target, key = std, arc[:-3] + ".pyc"
            elif origin.startswith(site):
                with open(origin, "rb") as fh:
                    source = fh.read()
                target, key = pkgs, importlib.util.cache_from_source(origin).lstrip("/")
            else:
                continue
            code = compile(source, origin, "exec", dont_inherit=True)
            target[key] = bytes(_code_to_hash_pyc(code, importlib.util.source_hash(source), False))
        except Exception:
            continue
        yield
    stamp = (1980, 1, 1, 0, 0, 0)
    with zipfile.ZipFile(out_stdlib, "w", zipfile.ZIP_STORED) as dst:
        for i, info in enumerate(src_zip.infolist()):
            if info.filename not in std:
                dst.writestr(zipfile.ZipInfo(info.filename, info.date_time), src_zip.read(info))
            if i % 40 == 0:
                yield
        for i, (arc, data) in enumerate(std.items()):
            dst.writestr(zipfile.ZipInfo(arc, stamp), data)
            if i % 20 == 0:
                yield
    src_zip.close()
    yield
    with zipfile.ZipFile(out_site, "w", zipfile.ZIP_STORED) as dst:
        for i, (arc, data) in enumerate(pkgs.items()):
            dst.writestr(zipfile.ZipInfo(arc, stamp), data)
            if i % 20 == 0:
                yield
    _lab_pyc_count.append(len(std) + len(pkgs))
`;

  // sha256 (hex) of the two zips, one after the other.
  async function digestOf(buffers) {
    const joined = new Uint8Array(buffers.reduce((n, b) => n + b.byteLength, 0));
    let at = 0;
    for (const b of buffers) { joined.set(new Uint8Array(b), at); at += b.byteLength; }
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', joined));
    return Array.from(digest, (x) => x.toString(16).padStart(2, '0')).join('');
  }

  // Returns the digest of what it stored.
  async function store(pyodide, files) {
    const [stdlib, site] = files.map((path) => pyodide.FS.readFile(path));
    files.forEach((path) => pyodide.FS.unlink(path));
    for (const name of await caches.keys()) {
      if (name.startsWith(state.prefix) && name !== state.prefix + state.version) await caches.delete(name);
    }
    const cache = await caches.open(state.prefix + state.version);
    const headers = { 'Content-Type': 'application/zip' };
    await cache.put(ROOT + '__pyc__/stdlib.zip', new Response(stdlib, { headers }));
    await cache.put(ROOT + '__pyc__/site.zip', new Response(site, { headers }));
    return digestOf([stdlib, site]);
  }

  // After the warm-up run, when this start found no cache: wait START_AFTER_MS, then build it in
  // slices of about SLICE_MS (one module compiled, or a few zip entries, per step), so a run the
  // student asks for meanwhile waits about one slice. onDone(modules, digest) when stored.
  function buildLater(pyodide, onDone) {
    if (state.found || !state.version || !usable()) return;
    setTimeout(() => build(pyodide, onDone), START_AFTER_MS);
  }

  function build(pyodide, onDone) {
    const files = ['/tmp/lab-pyc-stdlib.zip', '/tmp/lab-pyc-site.zip'];
    let steps;
    let count;
    try {
      const ns = pyodide.globals.get('dict')();
      pyodide.runPython(BUILD_PY, { globals: ns });
      count = pyodide.runPython('_lab_pyc_count = []; _lab_pyc_count', { globals: ns });
      steps = ns.get('_lab_pyc_steps')(...files);
      ns.destroy();
    } catch (err) {
      return;
    }
    const slice = () => {
      const until = performance.now() + SLICE_MS;
      try {
        while (performance.now() < until) {
          if (steps.next().done) {
            steps.destroy();
            const modules = count.get(0);
            count.destroy();
            store(pyodide, files).then((digest) => onDone && onDone(modules, digest)).catch(() => {});
            return;
          }
        }
      } catch (err) {
        steps.destroy();
        return;
      }
      setTimeout(slice, 0);
    };
    setTimeout(slice, 0);
  }

  return { open, answer, applySite, buildLater, state };
})();
