// Firefox ESR driven over WebDriver BiDi by puppeteer-core (no geckodriver, no browser download), for
// tests/lab_engines.py: one JSON command a line on stdin, one JSON answer a line on stdout.
//   {"op": "goto", "url"}             -> {"ok": true}
//   {"op": "eval", "fn", "arg"}       -> {"ok": true, "value"}   fn: a function's source, awaited in the page
//   {"op": "press", "css", "key"}     -> {"ok": true}            a real key press on the element (focus first)
//   {"op": "errors"}                  -> {"ok": true, "value": [page errors so far]}
//   {"op": "offline", "on"}           -> {"ok": true}            the browser's network off or on
// Any failure answers {"ok": false, "error"}. Leaves out: the checks themselves (tests/test_browser_engines.py).
import { createInterface } from 'node:readline';
import process from 'node:process';
import puppeteer from 'puppeteer-core';

const browser = await puppeteer.launch({
  browser: 'firefox',
  executablePath: process.env.LAB_FIREFOX || '/usr/bin/firefox-esr',
  headless: true,
  extraPrefsFirefox: { 'network.proxy.type': 0, 'app.update.enabled': false },
});
const page = await browser.newPage();
await page.setViewport({ width: 1440, height: 900 });
const errors = [];
page.on('pageerror', (err) => errors.push(String(err && err.message ? err.message : err)));

const ops = {
  goto: async ({ url }) => { await page.goto(url, { waitUntil: 'load' }); },
  eval: async ({ fn, arg }) => page.evaluate(`(${fn})(${JSON.stringify(arg ?? null)})`),
  press: async ({ css, key }) => { await page.focus(css); await page.keyboard.press(key); },
  errors: async () => errors.slice(),
};

const say = (answer) => process.stdout.write(JSON.stringify(answer) + '\n');
say({ ok: true, value: await browser.version() });
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const cmd = JSON.parse(line);
  if (cmd.op === 'close') break;
  try {
    say({ ok: true, value: (await ops[cmd.op](cmd)) ?? null });
  } catch (err) {
    say({ ok: false, error: String(err && err.stack ? err.stack : err) });
  }
}
await browser.close();
