// Files the build ships gzip'd, the worker's half (a classic script: static/worker/worker.js loads it with
// importScripts, or the build puts it in front of worker.js). sitebuild/pyodide.py GZIPPED: pyodide.asm.wasm is
// 10.1 MB as it is and 3.2 MB gzip'd, and a classroom's plain file server (`python3 -m http.server`) sends files as
// they are; build-info.json pyodide.gzip names them ({name Pyodide asks for: name of the .gz}).
// response(response, path) turns the .gz's response into the file's: unpacked as it arrives (DecompressionStream), so
// the WebAssembly compiler still reads a stream and compiles while the file downloads (instantiateStreaming needs the
// Content-Type application/wasm, given here). The first two bytes decide: a server that sends .gz files with
// Content-Encoding: gzip has had the browser unpack them already, and they pass as they are.
// Leaves out: which URLs are gzip'd and the fetch interceptor (worker.js), the build's side.
'use strict';

self.labGunzip = (function () {
  const GZIP = [0x1f, 0x8b];

  function typeOf(path) {
    return path.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream';
  }

  // The chunks read first (`held`, at least two bytes unless the body is shorter) and the rest of `reader`, as one
  // stream.
  function rejoined(held, reader) {
    return new ReadableStream({
      start(controller) {
        for (const chunk of held) controller.enqueue(chunk);
      },
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    });
  }

  // Read until the first two bytes are known (a network may hand over one byte first): [chunks, the first bytes].
  async function head(reader) {
    const held = [];
    const bytes = [];
    while (bytes.length < GZIP.length) {
      const { done, value } = await reader.read();
      if (done) break;
      held.push(value);
      bytes.push(...value.subarray(0, GZIP.length - bytes.length));
    }
    return [held, bytes];
  }

  return {
    // Whether this browser can unpack them (Chrome/Edge 80+, Firefox 113+, Safari 16.4+).
    supported: () => typeof DecompressionStream === 'function',
    async response(response, path) {
      if (!response.ok) return response;
      const reader = response.body.getReader();
      const [held, bytes] = await head(reader);
      const body = rejoined(held, reader);
      const packed = bytes[0] === GZIP[0] && bytes[1] === GZIP[1];
      return new Response(packed ? body.pipeThrough(new DecompressionStream('gzip')) : body,
        { status: 200, headers: { 'Content-Type': typeOf(path) } });
    },
  };
})();
