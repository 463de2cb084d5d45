// First visit: hand what the Python worker downloads anyway to the service worker (sw.js). A classic
// script: static/worker/worker.js loads it with importScripts and calls self.labStaging.
// sw.js caches the whole build once the lab is ready. So that it need not download the same 17 MB a
// second time, a worker that is not yet served by it copies each build file it fetches into a
// staging cache (named from build-info.json's "build", like every cache of the lab); sw.js takes a
// staged file only if its sha256 matches the build, and fetches the rest.
// Leaves out: the fetch interceptor that calls stage() (worker.js) and the precache itself (sw.js).
'use strict';

self.labStaging = (function () {
  const staging = { cache: null, files: null, puts: [] }; // files: URLs (no query) of the build, once the manifest is read
  return {
    // From build-info.json (its text: manifestText) on: copy the build's files this worker fetches.
    start(manifest, manifestURL, indexURL, manifestText, siteRoot) {
      const timing = performance.getEntriesByName(manifestURL.href)[0];
      const served = timing && timing.workerStart > 0; // sw.js answered: the build is cached already
      if (served || typeof caches === 'undefined' || !manifest.build) return;
      staging.cache = manifest.build.caches.staging + ' ' + siteRoot.href;
      staging.files = new Set([
        ...Object.keys(manifest.files || {}).map((path) => new URL(path, siteRoot).href),
        ...(manifest.pyodide.files || []).map((name) => new URL(name, indexURL).href),
      ]);
      const copy = new Response(manifestText, { headers: { 'Content-Type': 'application/json' } });
      staging.puts.push(caches.open(staging.cache).then((cache) => cache.put(manifestURL.href, copy)).catch(() => {}));
    },
    // A response the worker fetched: a copy into the staging cache if it is a file of the build.
    stage(url, response, init) {
      if (!staging.files || !response.ok || (init && init.method && init.method !== 'GET')) return;
      const key = new URL(url);
      key.search = '';
      if (!staging.files.has(key.href)) return;
      const copy = response.clone(); // now, before the caller reads the body
      staging.puts.push(caches.open(staging.cache).then((cache) => cache.put(key.href, copy)).catch(() => {}));
    },
    // Every copy written (so sw.js, registered at 'ready', finds them all); nothing is staged after.
    async settle() {
      await Promise.all(staging.puts);
      staging.files = null;
    },
  };
})();
