// The one file that owns Pyodide. Loads Python + NumPy, installs the engine wheel with micropip,
// then answers the page's messages by calling inference_lab.web.describe() / run(config_json).
//
// page -> worker: {id, type: 'run', config}
// worker -> page: {type: 'progress', stage, detail, fraction} · {type: 'ready', schema, versions}
//                 {id, type: 'result', result} · {id, type: 'error', message, details, fatal}
//                 {type: 'fatal', title, message, details} (loading failed) · {type: 'log', stream, text}
'use strict';

const SITE_ROOT = new URL('../', self.location.href);
const PACKAGES = ['numpy', 'micropip'];

let pyodide = null;      // the Pyodide instance once loaded
let web = null;          // PyProxy of the inference_lab.web module once loaded
const queue = [];        // runs that arrived before the engine was ready

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

const SERVE_HINT = 'Hãy tạo lại trang bằng “python3 build.py” (trên máy không có internet: đặt LAB_PYODIDE_MIRROR ' +
  'trỏ tới thư mục chứa các tệp Pyodide 0.27.7) rồi phục vụ bằng “python3 build.py serve” và tải lại trang.';

async function fetchManifest() {
  const url = new URL('build-info.json', SITE_ROOT);
  let response;
  try {
    response = await fetch(url, { cache: 'no-store' });
  } catch (err) {
    throw new LoadError('Không tải được build-info.json.', SERVE_HINT, String(err));
  }
  if (!response.ok) throw new LoadError('Thiếu tệp build-info.json (HTTP ' + response.status + ').', SERVE_HINT);
  return response.json();
}

// Ask for each Pyodide file first, so a missing one is named instead of failing deep inside Pyodide.
async function checkFiles(indexURL, files) {
  for (const name of files) {
    const url = new URL(name, indexURL);
    let response;
    try {
      response = await fetch(url, { method: 'HEAD', cache: 'no-store' });
    } catch (err) {
      throw new LoadError('Không tải được tệp Pyodide ' + name + '.',
        'Kiểm tra kết nối mạng (bản dựng --pyodide cdn) hoặc máy chủ cục bộ. ' + SERVE_HINT, url.href + '\n' + String(err));
    }
    if (!response.ok) {
      throw new LoadError('Thiếu tệp Pyodide ' + name + ' (HTTP ' + response.status + ').', SERVE_HINT, url.href);
    }
  }
}

async function loadRuntime(indexURL) {
  try {
    importScripts(new URL('pyodide.js', indexURL).href);
  } catch (err) {
    throw new LoadError('Không nạp được pyodide.js.', SERVE_HINT, String(err));
  }
  try {
    return await self.loadPyodide({
      indexURL,
      stdout: (text) => post({ type: 'log', stream: 'stdout', text }),
      stderr: (text) => post({ type: 'log', stream: 'stderr', text }),
    });
  } catch (err) {
    throw new LoadError('Pyodide không khởi động được (pyodide.asm.js, pyodide.asm.wasm hoặc python_stdlib.zip).',
      SERVE_HINT, String(err && err.stack || err));
  }
}

async function loadPackages() {
  const failures = [];
  await pyodide.loadPackage(PACKAGES, {
    messageCallback: (text) => progress('numpy, micropip', text, 0.7),
    errorCallback: (text) => failures.push(text),
  });
  const missing = PACKAGES.filter((name) => !(name in pyodide.loadedPackages));
  if (missing.length) {
    throw new LoadError('Không nạp được gói ' + missing.join(', ') + ' (tệp .whl trong thư mục pyodide/).',
      SERVE_HINT, failures.join('\n'));
  }
}

async function installEngine(wheelURL) {
  const micropip = pyodide.pyimport('micropip');
  try {
    // deps=false: numpy is already loaded, and nothing may be fetched from package indexes.
    await micropip.install.callKwargs(wheelURL, { deps: false });
  } catch (err) {
    throw new LoadError('Không cài được engine (' + wheelURL.split('/').pop() + ').', SERVE_HINT, String(err));
  } finally {
    micropip.destroy();
  }
  try {
    return pyodide.pyimport('inference_lab.web');
  } catch (err) {
    throw new LoadError('Không import được inference_lab.web.', 'Engine trong bản dựng bị lỗi; hãy báo cho người duy trì bài lab.', String(err));
  }
}

async function boot() {
  progress('build-info.json', 'Đọc danh sách tệp của bản dựng', 0.02);
  const manifest = await fetchManifest();
  const indexURL = new URL(manifest.pyodide.indexURL, SITE_ROOT).href;
  progress('kiểm tra tệp', 'Kiểm tra các tệp Pyodide ' + manifest.pyodide.version, 0.05);
  await checkFiles(indexURL, manifest.pyodide.files || []);
  progress('Python (Pyodide ' + manifest.pyodide.version + ')', 'pyodide.asm.wasm và thư viện chuẩn (khoảng 13 MB)', 0.1);
  pyodide = await loadRuntime(indexURL);
  progress('numpy, micropip', 'Nạp NumPy và micropip', 0.6);
  await loadPackages();
  progress('engine', 'Cài inference_lab ' + manifest.engine.version, 0.85);
  web = await installEngine(new URL(manifest.engine.wheel, SITE_ROOT).href);
  progress('engine', 'Đọc mô tả các hằng số', 0.95);
  const schema = JSON.parse(web.describe());
  post({ type: 'ready', schema, versions: { pyodide: pyodide.version, engine: manifest.engine.version } });
}

function handleRun(msg) {
  try {
    const result = JSON.parse(web.run(JSON.stringify(msg.config || {})));
    post({ id: msg.id, type: 'result', result });
  } catch (err) {
    const isPython = err instanceof pyodide.ffi.PythonError;
    const text = String(err && err.message || err);
    const lastLine = text.trim().split('\n').pop();
    post({
      id: msg.id, type: 'error',
      message: isPython ? 'Python báo lỗi: ' + lastLine : 'Lỗi khi chạy: ' + lastLine,
      details: text,
      fatal: !isPython, // anything but a Python exception may have left the interpreter unusable
    });
  }
}

self.onmessage = (event) => {
  const msg = event.data || {};
  if (msg.type !== 'run') return;
  if (web) handleRun(msg);
  else queue.push(msg);
};

boot().then(() => {
  while (queue.length) handleRun(queue.shift());
}).catch((err) => {
  const known = err instanceof LoadError;
  post({
    type: 'fatal',
    title: known ? err.title : 'Không tải được Python trong trình duyệt.',
    message: known ? err.hint : SERVE_HINT,
    details: known ? err.details : String(err && err.stack || err),
  });
});
