// Starts the Python worker (static/worker.js) as soon as the page starts loading: this small
// script is the first thing in <head>, so Pyodide's 17 MB start downloading while the browser is
// still fetching the page's HTML, CSS and the modules (app.js would start it only after all of
// those). static/worker-client.js takes the worker over with labBoot.take() and replays what it
// already said.
// Also the page opened from a file (file://): module scripts cannot load there, so this classic
// script is what says how to serve the page (the data-status hook says error).
// Leaves out everything else: no messages of its own; if it fails, worker-client.js starts the worker.
'use strict';

window.labBoot = (function () {
  const src = document.currentScript && document.currentScript.src;
  const early = { worker: null, events: [], error: null };
  if (location.protocol === 'file:') {
    document.addEventListener('DOMContentLoaded', explainFileUrl);
    return { take: () => null };
  }
  try {
    const url = new URL('worker.js', src);
    url.search = new URL(src).search; // the same cache-busting version as this script (static/versioned.js)
    early.worker = new Worker(url.href);
    early.worker.onmessage = (event) => early.events.push(event);
    early.worker.onerror = (event) => {
      event.preventDefault();
      early.error = event;
    };
  } catch (err) {
    early.worker = null; // app.js will try, and explain a failure
  }
  return {
    // {worker, events, error} once (the messages and load error the worker has had so far), then null.
    take() {
      if (!early.worker) return null;
      const taken = { worker: early.worker, events: early.events.slice(), error: early.error };
      early.worker = null;
      return taken;
    },
  };
})();

// What static/panels.js would show (status line + page error), written out here because a classic
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
  status.dataset.status = 'error';
  document.getElementById('status-text').textContent = 'Trang đang được mở trực tiếp từ tệp (file://), nên trình duyệt không cho chạy Python.';
  document.getElementById('status-detail').textContent = '';
  document.getElementById('status-progress').hidden = true;
  box.replaceChildren(make('p', 'Cần mở trang qua một máy chủ web cục bộ.', 'error-title'));
  const steps = [
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
