// No Vietnamese (nor any other non-ASCII letter) in the page's scripts outside the word tables: a sentence a
// student reads comes from static/words/ in the page's language (issue #37: the timeline printed 'xong' on the
// English page). Reads every static/**/*.js (not static/vendor/) with comments left out, and lists each string
// literal (quotes, template text) that holds a non-ASCII letter. Symbols (…, –, ·, →, ×, µ) are no language.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const STATIC = new URL('../../static/', import.meta.url).pathname;
// The word tables (both languages' sentences live there), and boot.js's two-language note for a page opened
// from a file (a classic script that runs before any module, so it cannot read the tables).
const TABLES = [/^vendor\//, /^words\/vi\//, /^words\/worker\.js$/, /^worker\/boot\.js$/];
// Literals that are no sentence for a student, each with why: keys and samples, not words to translate.
const ALLOWED = {
  'charts/text-fit.js': ['Aa0→ ăâđêôơư ấầẩẫậữ'],          // the glyphs the page's font is measured with
  'tools/exercises.js': ['Câu hỏi', 'Dự đoán', 'Đáp án'],   // the exercise files' section headings (data keys)
  'words/i18n.js': ['Tiếng Việt'],                           // a language's own name, the same on both pages
};
const SYMBOL = /^[\s\p{P}\p{S}\p{N}µ\p{Script=Greek}]$/u; // α, the acceptance rate, is a symbol too

function scripts(dir = STATIC) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return scripts(path);
    return entry.name.endsWith('.js') ? [relative(STATIC, path)] : [];
  });
}

// The string literals of `source` (a light scanner: comments skipped, '…', "…" and `…` read with their escapes;
// a template's ${…} is read as code again; a / after a value is division, else a regular expression skipped).
export function literals(source) {
  const out = [];
  const stack = []; // open template literals' brace depths
  let depth = 0;
  let i = 0;
  let last = '';    // the last significant character of code (regex or division after it)
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '/' && next === '/') { i = source.indexOf('\n', i); if (i < 0) break; continue; }
    if (c === '/' && next === '*') { i = source.indexOf('*/', i + 2) + 2; continue; }
    if (c === '/' && !/[\w)\]$]/.test(last)) { // a regular expression
      i += 1;
      let inClass = false;
      while (i < source.length && (inClass || source[i] !== '/')) {
        if (source[i] === '\\') i += 1;
        else if (source[i] === '[') inClass = true;
        else if (source[i] === ']') inClass = false;
        i += 1;
      }
      i += 1;
      last = 'a';
      continue;
    }
    if (c === "'" || c === '"' || c === '`' || (c === '}' && stack.length && stack[stack.length - 1] === depth)) {
      if (c === '}') stack.pop();
      const quote = c === '}' ? '`' : c;
      let j = i + 1;
      let text = '';
      while (j < source.length && source[j] !== quote) {
        if (source[j] === '\\') { text += source[j + 1]; j += 2; continue; }
        if (quote === '`' && source[j] === '$' && source[j + 1] === '{') break;
        text += source[j];
        j += 1;
      }
      out.push(text);
      if (quote === '`' && source[j] === '$') { stack.push(depth); i = j + 2; last = '('; continue; }
      i = j + 1;
      last = 'a';
      continue;
    }
    if (c === '{') depth += 1;
    if (c === '}') depth -= 1;
    if (!/\s/.test(c)) last = c;
    i += 1;
  }
  return out;
}

const foreign = (text) => [...text].some((ch) => ch.codePointAt(0) > 0x7f && !SYMBOL.test(ch));

test('the scanner finds literals, not comments or regular expressions', () => {
  const found = literals("// 'không'\nconst a = 'x' + \"y\"; /* \"z\" */ const r = /'q'/g; const d = 4 / 2; `t${'u'}v`;");
  assert.deepEqual(found, ['x', 'y', 't', 'u', 'v']);
  assert.ok(foreign('xong lúc') && !foreign('1 – 2 … µs × 3 → ·'));
});

test('no non-ASCII letter in a string of the page\'s scripts outside the word tables', () => {
  const found = [];
  for (const file of scripts().filter((f) => !TABLES.some((re) => re.test(f)))) {
    for (const text of literals(readFileSync(join(STATIC, file), 'utf-8'))) {
      if (foreign(text) && !(ALLOWED[file] || []).includes(text)) found.push(file + ': ' + JSON.stringify(text.slice(0, 60)));
    }
  }
  assert.deepEqual(found, []);
});
