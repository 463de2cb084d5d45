// versioned(url): the address of another file of the page, carrying this build's cache-busting
// version. build.py stamps the page's static/ URLs with ?v=<hash of static/> (index.html, and every
// relative import inside the modules), so a module's own URL (import.meta.url) holds the version;
// a file the modules load at run time (worker.js, charts/index.js, charts.css) gets the same query.
// With the same ?v=, a file is one HTTP-cache entry, one module instance, and what sw.js precaches
// (build.py writes its query next to the file list). Unbuilt sources have no query, and nor do the
// URLs made here.
// Leaves out: the classic scripts (static/worker/boot.js, static/worker/worker.js) cannot import a module and keep
// their one-line copy of the same rule; sw.js is registered without a version on purpose.

// `url` resolved against `base` (default: static/core/, where this module lives), with base's query.
export function versioned(url, base = import.meta.url) {
  const out = new URL(url, base);
  out.search = new URL(base).search;
  return out.href;
}
