// Service worker of the Inference Lab: after the first visit the whole lab (page, static/, Pyodide,
// its wheels, the engine wheel, build-info.json, exercises.json) is served from one cache, so it
// loads and runs with no network.
//
// This file is a template: build.py writes it to dist/sw.js with BUILD filled in from the build's
// manifest (its version, the cache names of sitebuild's CACHE_NAMES, every file with its sha256), so
// each new build gives a byte-different sw.js, which the browser installs as an update. Served as a
// template (BUILD null) it does nothing.
//
// - install: every file of the build into a new cache named after the build, each checked against
//   its sha256 (fetch integrity). The page registers this worker only once the first visit has had
//   its first run and is idle (static/core/offline.js), so most files are in the browser's HTTP cache
//   by then: each is asked for as the page loaded it ('force-cache': no download, no revalidation),
//   and only a file missing there or not the build's (its sha256 differs) is fetched from the server.
//   Files the first visit never loaded (the charts before a run, CodeMirror, the full python_stdlib.zip
//   that the lazy finder imports from) are downloaded here, once. One missing or different file fails
//   the install: the new cache is dropped and the previous service worker keeps serving its complete cache.
// - activate (right after a complete install): delete this lab's caches of other builds (and the
//   compiled-Python caches of static/worker/pyc-cache.js for them), take over open pages. A page that was
//   already open when a new build took over is told to reload.
// - fetch: a file of the build (query string ignored, "./" = index.html) comes from the cache, if its
//   sha256 is still the build's (else it is fetched again); anything else goes to the network untouched.
// - cross-origin isolation (the coi-serviceworker technique): the page (a navigation) it serves carries
//   Cross-Origin-Opener-Policy: same-origin and the build's Cross-Origin-Embedder-Policy (BUILD.coep), and a CDN
//   file Cross-Origin-Resource-Policy: cross-origin, so a page it serves is crossOriginIsolated
//   and Stop interrupts a run instead of restarting Python (static/core/stop.js). GitHub Pages cannot
//   send these headers itself. Unlike coi-serviceworker, the page is NOT reloaded when this worker
//   first takes it over: it registers after the first run (its precache must not compete with
//   Pyodide's download), and a reload then would start Python a second time on the first visit (~4 s)
//   and drop what the student did meanwhile. So the first visit stops by restarting Python (its message
//   says why); every later visit is isolated. BUILD.coep is sitebuild/serve.py embedder_policy():
//   "require-corp" for a build that serves every file itself (Safari/WebKit honour it, not
//   "credentialless"), "credentialless" for a --pyodide cdn build (its CDN sends no CORP header; Safari
//   stays unisolated there: Stop restarts Python).
'use strict';

const BUILD = null; // @build: replaced by build.py

const SCOPE = self.registration.scope; // the folder holding index.html, ends with "/"
// Cache names: "<name> <scope>" (+ " <version>" for one build's caches), names from build.py.
const PREFIX = BUILD ? BUILD.caches.site + ' ' + SCOPE + ' ' : null;
const PYC_PREFIX = BUILD ? BUILD.caches.pyc + ' ' + SCOPE + ' ' : null; // static/worker/pyc-cache.js: compiled Python
const CACHE = BUILD ? PREFIX + BUILD.version : null;
const FILES = new Map(); // absolute URL without query -> integrity ("sha256-…")
if (BUILD) {
  for (const [path, integrity] of BUILD.files) FILES.set(new URL(path, SCOPE).href, integrity);
}

function cacheKey(request) {
  const url = new URL(request.url);
  url.search = '';
  url.hash = '';
  if (url.href === SCOPE) return SCOPE + 'index.html';
  return url.href;
}

// The URL the page itself loaded for a file (so the HTTP cache can answer): the folder for
// index.html, static/ files and code.json with the build's ?v= query (static/core/versioned.js).
function fetchURL(url) {
  if (url === SCOPE + 'index.html') return SCOPE;
  if (BUILD.query && (url.startsWith(SCOPE + 'static/') || url === SCOPE + 'code.json')) return url + BUILD.query;
  return url;
}

// The build's file at url, checked against its sha256: from the HTTP cache if it holds that file,
// else from the server (the copy there is revalidated or downloaded).
async function download(url, integrity) {
  const init = { integrity, mode: new URL(url).origin === self.location.origin ? 'same-origin' : 'cors' };
  try {
    const kept = await fetch(fetchURL(url), { ...init, cache: 'force-cache' });
    if (kept.ok) return kept;
  } catch (err) {
    // not the build's file (another build's copy in the HTTP cache): ask the server
  }
  const response = await fetch(fetchURL(url), { ...init, cache: 'no-cache' });
  if (!response.ok) throw new Error(url + ': HTTP ' + response.status);
  return response;
}

async function sri(buffer) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', buffer));
  return 'sha256-' + btoa(String.fromCharCode(...digest));
}

async function precache() {
  const cache = await caches.open(CACHE);
  try {
    await Promise.all([...FILES].map(async ([url, integrity]) => cache.put(url, await download(url, integrity))));
  } catch (err) {
    await caches.delete(CACHE); // never keep a half-filled cache
    throw err;
  }
}

self.addEventListener('install', (event) => {
  if (!BUILD) return;
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  if (!BUILD) return;
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      const stale = (name.startsWith(PREFIX) && name !== CACHE)
        || (name.startsWith(PYC_PREFIX) && name !== PYC_PREFIX + BUILD.version);
      if (stale) {
        await caches.delete(name);
      }
    }
    await self.clients.claim();
  })());
});

// The cached copy only if it still has the build's sha256: Cache Storage is reachable from the Python
// worker, where the student's code runs, so a copy changed there is dropped and fetched again
// (checked against the same sha256) instead of being served.
async function answer(request, key) {
  let hit = await caches.match(key, { cacheName: CACHE });
  if (hit) {
    const body = await hit.clone().arrayBuffer();
    if (await sri(body) !== FILES.get(key)) {
      const cache = await caches.open(CACHE);
      await cache.delete(key);
      const sameOrigin = new URL(key).origin === self.location.origin;
      const fresh = await fetch(fetchURL(key), {
        cache: 'no-cache', integrity: FILES.get(key), mode: sameOrigin ? 'same-origin' : 'cors',
      });
      if (fresh.ok) await cache.put(key, fresh.clone());
      hit = fresh;
    }
  }
  if (!hit) return fetch(request);
  // Other files go as cached: same-origin files need no header under COEP, and a Response made here
  // would have no URL, so the browser could not reuse its compiled WebAssembly between visits.
  const page = request.mode === 'navigate' || new URL(key).origin !== self.location.origin;
  if (page) return isolated(hit, key, request.method === 'HEAD');
  if (request.method === 'HEAD') {
    return new Response(null, { status: hit.status, statusText: hit.statusText, headers: hit.headers });
  }
  return hit;
}

// The response with the headers of cross-origin isolation (see the top of this file).
function isolated(response, key, headOnly) {
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', BUILD.coep || 'credentialless');
  if (new URL(key).origin !== self.location.origin) headers.set('Cross-Origin-Resource-Policy', 'cross-origin');
  return new Response(headOnly ? null : response.body, {
    status: response.status, statusText: response.statusText, headers,
  });
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (!BUILD || (request.method !== 'GET' && request.method !== 'HEAD')) return;
  const key = cacheKey(request);
  if (FILES.has(key)) event.respondWith(answer(request, key));
});
