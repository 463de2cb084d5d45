// Writes static/vendor/codemirror.LICENSE.txt: the licence of every package esbuild put into the
// bundle (read from meta.json, written by `npm run build`), with its name and version.
const fs = require('fs');
const path = require('path');

const meta = JSON.parse(fs.readFileSync(path.join(__dirname, 'meta.json'), 'utf8'));
const inputs = Object.keys(Object.values(meta.outputs)[0].inputs);
const packages = new Set();
for (const input of inputs) {
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (m) packages.add(m[1]);
}
const parts = ['The lab\'s code editor, static/vendor/codemirror.js, bundles these packages (tools/codemirror/).', ''];
for (const name of [...packages].sort()) {
  const dir = path.join(__dirname, 'node_modules', name);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const file = fs.readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  parts.push('='.repeat(72), `${name} ${pkg.version} (${pkg.license})`, '='.repeat(72));
  parts.push(fs.readFileSync(path.join(dir, file), 'utf8').trim(), '');
}
fs.writeFileSync(path.join(__dirname, '..', '..', 'static', 'vendor', 'codemirror.LICENSE.txt'), parts.join('\n') + '\n');
