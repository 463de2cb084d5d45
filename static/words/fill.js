// fill(template, values): the one rule that fills a message's {name} placeholders, for the page's catalogues
// (static/words/i18n.js imports this file) and the worker's (static/worker/worker.js loads it with importScripts).
// A classic script that is also imported as a module: it exports nothing and sets globalThis.labFill, since a
// classic worker cannot import a module.
// Leaves out: the messages themselves (static/words/vi/, en/, worker.js) and choosing the language.
'use strict';

/** `template` with each {name} replaced by String(values[name]) (a name without a value stays as written). */
globalThis.labFill = function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (whole, name) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
};
