// The page's language: 'vi' (the default, the seed's language) or 'en'. static/worker/boot.js chose it
// before the body was drawn (?lang= in the address, else localStorage, else vi) and set <html lang>;
// this module reads that choice and gives every other module two things:
//   t(key, values) the message `key` in the page's language, from the keyed catalogues vi/*.js and
//                  en/*.js (the same keys in both: tests/js/words.test.mjs); {name} in the text is
//                  filled with values.name, so a sentence built from numbers is one template
//   applyStatic()  swaps the page's fixed labels for English: an element with data-en="…" gets that
//                  text, data-en-<attr>="…" sets <attr> (aria-label, title, placeholder); longer text is
//                  written twice in index.html as [data-lang="vi"] / [data-lang="en"] siblings, and
//                  style.css hides the other language's
// plus the language switch: the header's link (initSwitch) asks the page to change language in place
// (app.js remounts the page's parts in the other language, keeps Python running, and words the last
// run again without running the engine: worker 'render'); setLang(to) is the one place `lang` changes.
// Without JavaScript the link is a plain link; switchTo() (a full load) is the fallback before the
// page is mounted: it hands the last run to the next page load through sessionStorage.
// Leaves out: the engine's words (the worker asks Python for them in `lang`: text_vi.py / text_en.py).

import viCharts from './vi/charts.js';
import viCore from './vi/core.js';
import viSteps from './vi/steps.js';
import viTools from './vi/tools.js';
import viCluster from './vi/cluster.js';
import viCapacity from './vi/capacity.js';
import enCharts from './en/charts.js';
import enCore from './en/core.js';
import enSteps from './en/steps.js';
import enTools from './en/tools.js';
import enCluster from './en/cluster.js';
import enCapacity from './en/capacity.js';
import './fill.js'; // sets globalThis.labFill (a classic script the worker loads too)

export const LANGS = ['vi', 'en'];
export const STORAGE_KEY = 'inference-lab:lang';
export const HANDOFF_KEY = 'inference-lab:rerender';

export let lang = (typeof document !== 'undefined' && document.documentElement.lang === 'en') ? 'en' : 'vi';
const TITLE = typeof document !== 'undefined' ? document.title : '';   // the Vietnamese title, as index.html has it

/** Makes `to` the page's language: every later t() answers in it; <html lang> and the remembered choice follow. */
export function setLang(to) {
  lang = to === 'en' ? 'en' : 'vi';
  document.documentElement.lang = lang;
  document.title = TITLE;
  try { localStorage.setItem(STORAGE_KEY, lang); } catch (err) { /* no storage: the address carries it */ }
}

/** A module's table of words, built on first use in each language (a constant built with t() at import
 *  would stay in the language the page opened in): `const PARTS = byLang(() => [...]); PARTS()[0]`. */
export function byLang(build) {
  const built = {};
  return () => {
    if (!Object.hasOwn(built, lang)) built[lang] = build();
    return built[lang];
  };
}

/** Every page word, per language: key -> text (a template when it holds {name} placeholders). */
export const CATALOGUES = {
  vi: { ...viCore, ...viTools, ...viSteps, ...viCharts, ...viCluster, ...viCapacity },
  en: { ...enCore, ...enTools, ...enSteps, ...enCharts, ...enCluster, ...enCapacity },
};

/** `template` with each {name} replaced by String(values[name]) (static/words/fill.js: the worker's rule too). */
export const fill = globalThis.labFill;

/** The message `key` in the page's language, its placeholders filled from `values`. */
export function t(key, values) {
  const text = CATALOGUES[lang][key];
  if (text === undefined) throw new Error('static/words: no message ' + key);
  return values ? fill(text, values) : text;
}

/** The schema in the page's language: label and help (and the request columns') from label_en / help_en
 *  when the page is English, so every control, message and tool reads the one field it always read. */
export function localized(schema) {
  if (lang !== 'en') return schema;
  const words = (d) => ({ ...d, label: d.label_en || d.label, help: d.help_en || d.help });
  return schema.map((d) => ({ ...words(d), ...(Array.isArray(d.columns) ? { columns: d.columns.map(words) } : {}) }));
}

/** An engine problem in the page's language (web.py sends message and message_en). */
export const inLang = (e) => (lang === 'en' && e && e.message_en ? { ...e, message: e.message_en } : e);

/** The address `href` in language `to` (pure): lang=en added, or removed for vi, other parameters kept. */
export function addressIn(href, to) {
  const url = new URL(href);
  if (to === 'en') url.searchParams.set('lang', 'en');
  else url.searchParams.set('lang', 'vi');
  return url.href;
}

export function applyStatic(root = document) {
  if (lang !== 'en') return;
  for (const node of root.querySelectorAll('[data-en]')) node.textContent = node.dataset.en;
  for (const name of ['aria-label', 'title', 'placeholder', 'data-label']) {
    const key = 'en' + name.split('-').map((w) => w[0].toUpperCase() + w.slice(1)).join('');
    for (const node of root.querySelectorAll('[data-en-' + name + ']')) node.setAttribute(name, node.dataset[key]);
  }
  const title = document.querySelector('meta[name="title-en"]');
  if (title) document.title = title.content;
}

/** The report handed over by switchTo() for this address, once (then forgotten), or null. */
export function takeHandoff(search) {
  try {
    const raw = sessionStorage.getItem(HANDOFF_KEY);
    sessionStorage.removeItem(HANDOFF_KEY);
    if (!raw) return null;
    const handoff = JSON.parse(raw);
    return handoff && handoff.query === constantsOf(search) ? handoff : null;
  } catch (err) {
    return null;
  }
}

// The address's parameters without lang: what must match for a handed-over report to be the same run.
function constantsOf(search) {
  const params = new URLSearchParams(search);
  params.delete('lang');
  params.delete('step');
  return params.toString();
}

export function switchTo(to, last) {
  try {
    localStorage.setItem(STORAGE_KEY, to);
    if (last) {
      const target = new URL(addressIn(location.href, to));
      const handoff = { query: constantsOf(target.search), report: last.report, config: last.config };
      sessionStorage.setItem(HANDOFF_KEY, JSON.stringify(handoff));
    }
  } catch (err) {
    // no storage: the address carries the language, the page runs again
  }
  location.assign(addressIn(location.href, to));
}

// The switch in the page header: a link to the other language (works without JavaScript too, since it
// is a plain link). With JavaScript, a click calls inPlace(to) (app.js: no reload, Python kept), or,
// without it, loads the other language keeping the last run.
export function initSwitch(getLast, inPlace) {
  const link = document.getElementById('lang-switch');
  if (!link) return;
  const to = lang === 'en' ? 'vi' : 'en';
  link.href = addressIn(location.href, to);
  link.hreflang = to;
  link.lang = to;                                    // the other language's name, in that language
  link.textContent = to === 'vi' ? 'Tiếng Việt' : 'English';
  link.addEventListener('click', (event) => {
    event.preventDefault();
    if (inPlace) inPlace(to);
    else switchTo(to, getLast());
  });
}
