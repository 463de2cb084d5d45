// static/worker/gunzip.js: a gzip'd file's response becomes the file's (unpacked as it arrives, with the type the
// WebAssembly compiler asks for); one the server already unpacked (Content-Encoding: gzip) passes as it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import vm from 'node:vm';

const STATIC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'static');

function loadGunzip() {
  const sandbox = { self: {}, ReadableStream, Response, DecompressionStream };
  vm.runInNewContext(readFileSync(join(STATIC, 'worker/gunzip.js'), 'utf-8'), sandbox);
  return sandbox.self.labGunzip;
}

// A response whose body comes in chunks of `size` bytes (a network's), as fetch would give it.
function chunked(bytes, size) {
  let at = 0;
  return new Response(new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) { controller.close(); return; }
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  }));
}

const WASM = new Uint8Array(300_000).map((_, i) => (i < 4 ? [0, 0x61, 0x73, 0x6d][i] : (i * 7919) % 251));

test('a gzip\'d file is unpacked as it arrives, whatever its chunks, and typed for the WebAssembly compiler', async () => {
  const gunzip = loadGunzip();
  assert.equal(gunzip.supported(), true);
  for (const size of [1, 2, 1000, 65536, 1 << 20]) {
    const answer = await gunzip.response(chunked(new Uint8Array(gzipSync(WASM)), size), '/pyodide/pyodide.asm.wasm');
    assert.equal(answer.headers.get('Content-Type'), 'application/wasm');
    assert.deepEqual(new Uint8Array(await answer.arrayBuffer()), WASM, `chunks of ${size}`);
  }
});

test('a file the server already unpacked, a failed response and an empty one pass as they are', async () => {
  const gunzip = loadGunzip();
  const plain = await gunzip.response(chunked(WASM, 4096), '/pyodide/pyodide.asm.wasm');
  assert.deepEqual(new Uint8Array(await plain.arrayBuffer()), WASM);
  const missing = new Response('not here', { status: 404 });
  assert.equal(await gunzip.response(missing, '/pyodide/pyodide.asm.wasm'), missing);
  const empty = await gunzip.response(new Response(new Uint8Array(0)), '/x.bin');
  assert.equal(empty.headers.get('Content-Type'), 'application/octet-stream');
  assert.equal((await empty.arrayBuffer()).byteLength, 0);
});
