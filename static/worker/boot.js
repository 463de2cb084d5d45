// Starts the Python worker (static/worker/worker.js, from a blob: URL: see blobWorker) as soon as the page
// starts loading: this small script is the first thing in <head>, so Pyodide's ~9 MB start downloading
// while the browser is still fetching the page's HTML, CSS and the modules (app.js would start it only
// after all of those). static/core/worker-client.js takes the worker over with labBoot.take() and replays what it
// already said.
// Also the page opened from a file (file://): module scripts cannot load there, so this classic
// script is what says how to serve the page (the data-status hook says error).
// First of all it chooses the page's language (static/words/i18n.js reads the result): ?lang=en|vi in the
// address, else the one remembered in localStorage, else Vietnamese; it sets <html lang> before the
// body is drawn (style.css hides the other language's [data-lang] text), remembers a language chosen
// in the address, and puts lang=en into the address so copied and shared addresses keep it.
// Leaves out everything else: no messages of its own; if the early start fails, worker-client.js asks for
// another one (labBoot.start) and says what went wrong.
'use strict';

window.labLang = (function () {
  const KEY = 'inference-lab:lang';
  let lang = 'vi';
  try {
    const params = new URLSearchParams(location.search);
    const asked = params.get('lang');
    const stored = localStorage.getItem(KEY);
    if (asked === 'en' || asked === 'vi') {
      lang = asked;
      localStorage.setItem(KEY, asked);
    } else if (stored === 'en' || stored === 'vi') {
      lang = stored;
    }
    if (lang === 'en' && asked !== 'en') {
      params.set('lang', 'en');
      history.replaceState(history.state, '', location.pathname + '?' + params.toString() + location.hash);
    }
  } catch (err) {
    // no storage (private mode, file://): the address alone decides
    lang = /[?&]lang=en(&|$)/.test(location.search) ? 'en' : 'vi';
  }
  document.documentElement.lang = lang;
  return lang;
})();

window.labBoot = (function () {
  const src = document.currentScript && document.currentScript.src;
  const early = { worker: null, events: [], error: null };
  if (location.protocol === 'file:') {
    document.addEventListener('DOMContentLoaded', explainFileUrl);
    return { take: () => null };
  }
  try {
    early.worker = blobWorker(workerURL(src), window.labLang); // the worker's messages follow the page's language
    early.worker.onmessage = (event) => early.events.push(event);
    early.worker.onerror = (event) => {
      event.preventDefault();
      early.error = event;
    };
  } catch (err) {
    early.worker = null; // app.js will try, and explain a failure
  }
  return {
    // A new worker (the page's language `lang`): the page starts Python again (static/core/worker-client.js).
    start: (lang) => blobWorker(workerURL(src), lang),
    // {worker, events, error} once (the messages and load error the worker has had so far), then null.
    take() {
      if (!early.worker) return null;
      const taken = { worker: early.worker, events: early.events.slice(), error: early.error };
      early.worker = null;
      return taken;
    },
  };
})();

// worker.js beside this script (`src`), with the same cache-busting version (static/core/versioned.js).
function workerURL(src) {
  const url = new URL('worker.js', src);
  url.search = new URL(src).search;
  return url.href;
}

// The Python worker, started from a blob: URL so that the page's Content-Security-Policy governs it:
// a worker loaded from its own URL takes its policy from that response's headers (a static host sends
// none), while a blob: worker inherits its creator's, on the very first visit and on plain http
// (index.html's worker-src allows blob:). The blob only names worker.js (absolute: a blob: URL has
// no folder to resolve against) and imports it; script-src 'self' allows that import.
// It also carries the sha256 of the compiled-Python cache the page trusts (static/worker/pyc-cache.js), and asks
// for build-info.json (worker.js's MANIFEST_URL: the site's root is two folders above worker.js) before it imports
// worker.js, so the two downloads overlap (worker.js takes the answer as self.labManifest).
// The one starter: the page's later workers (a restart of Python) come from here too (labBoot.start).
function blobWorker(scriptURL, lang) {
  let digest = null;
  try { digest = localStorage.getItem('inference-lab:pyc'); } catch (err) { /* none */ }
  const manifestURL = new URL('../../build-info.json', scriptURL).href;
  const source = 'self.labWorkerURL = ' + JSON.stringify(scriptURL) + ';\nself.labPycDigest = ' + JSON.stringify(digest) +
    ';\nself.labManifest = fetch(' + JSON.stringify(manifestURL) + ", { cache: 'no-store' });" +
    '\nimportScripts(self.labWorkerURL);\n';
  const blobURL = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  return new Worker(blobURL, { name: lang });
}

// What static/core/panels.js would show (status line + page error), written out here because a classic
// script cannot import the page's modules.
function explainFileUrl() {
  const make = (tag, text, cls) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text) node.textContent = text;
    return node;
  };
  const status = document.getElementById('status');
  const box = document.getElementById('page-error');
  if (!status || !box) return;
  const en = window.labLang === 'en';
  status.dataset.status = 'error';
  document.getElementById('status-text').textContent = en
    ? 'The page was opened straight from a file (file://), so the browser does not let Python run.'
    : 'Trang đang được mở trực tiếp từ tệp (file://), nên trình duyệt không cho chạy Python.';
  document.getElementById('status-detail').textContent = '';
  document.getElementById('status-progress').hidden = true;
  box.replaceChildren(make('p', en ? 'Open the page through a local web server.' : 'Cần mở trang qua một máy chủ web cục bộ.', 'error-title'));
  const steps = en ? [
    ['In the project folder, run the command below and open the address it prints (http://127.0.0.1:8000/):', 'python3 build.py serve'],
    ['If a built dist/ folder is already there, this works too:', 'cd dist && python3 -m http.server 8000 --bind 127.0.0.1'],
  ] : [
    ['Trong thư mục dự án, chạy lệnh dưới đây rồi mở địa chỉ nó in ra (http://127.0.0.1:8000/):', 'python3 build.py serve'],
    ['Nếu đã có thư mục dist/ dựng sẵn, cũng có thể chạy:', 'cd dist && python3 -m http.server 8000 --bind 127.0.0.1'],
  ];
  for (const [text, command] of steps) {
    const line = make('p', '', 'command');
    line.append(make('code', command));
    box.append(make('p', text), line);
  }
  box.hidden = false;
}
