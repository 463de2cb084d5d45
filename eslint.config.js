// The linter of every JavaScript file in the repository (`npx eslint .`; tests/run-all.sh runs it after `npm ci`):
// the page's scripts, their node tests, the benchmark's page and the CodeMirror bundle's sources. ESLint's
// recommended rules and a line length of 120 characters (a long string, template or address may run over: the
// word tables are one sentence a line). Leaves out static/vendor/ (CodeMirror, minified) and the build (dist/).
import js from '@eslint/js';
import globals from 'globals';

const LINE = {
  code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true,
};

export default [
  { ignores: ['static/vendor/', 'dist/', 'node_modules/', '.cache/'] },
  js.configs.recommended,
  {
    files: ['static/**/*.js'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.browser } },
    rules: {
      'max-len': ['error', LINE],
      'no-unused-vars': ['error', { caughtErrors: 'none' }],
    },
  },
  {
    // classic scripts: the worker's (importScripts) and the ones both sides load (no import, no export)
    files: ['static/worker/**/*.js', 'static/words/worker.js', 'static/words/fill.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, ...globals.worker } },
  },
  {
    files: ['tests/js/**/*.mjs', 'eslint.config.js'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
    rules: { 'max-len': ['error', LINE] },
  },
  {
    // the benchmark's baseline page and worker (bench/browser_bench.py serves them; classic scripts)
    files: ['bench/**/*.js'],
    languageOptions: {
      sourceType: 'script', globals: { ...globals.browser, ...globals.worker, loadPyodide: 'readonly' },
    },
    rules: { 'max-len': ['error', LINE] },
  },
  {
    // the CodeMirror bundle's entry (esbuild) and its licence writer (node, CommonJS)
    files: ['tools/codemirror/entry.js'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.browser } },
    rules: { 'max-len': ['error', LINE] },
  },
  {
    files: ['tools/codemirror/licenses.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { 'max-len': ['error', LINE] },
  },
];
