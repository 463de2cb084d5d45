// "Bài tập" section: the exercises of exercises/NN-slug.md, read from exercises.json (build.py renders
// their Markdown to HTML with markdown-it-py, raw HTML off). A tool of static/core/lab-api.js: it uses
// lab.runWith(constants), lab.canRun(), lab.status() and the 'runnable' event; the run itself stays
// app.js's. It fills its own section of the page (#exercise-list, #exercise-toc).
// Titles, constants and the student's prediction are inserted as text; only the build-rendered
// sections go in as HTML (setRenderedHtml).

import { h, make } from '../core/dom.js';
import { lang, t } from '../words/i18n.js';

const STORAGE_PREFIX = 'inference-lab:prediction:';

// An exercise's title and sections in the page's language: the English edition when the file has one,
// else the Vietnamese text.
const titleOf = (ex) => String(lang === 'en' ? ex.title_en || ex.title : ex.title);
const section = (ex, vi, en) => ex.sections[lang === 'en' && ex.sections[en] !== undefined ? en : vi];

// The one place HTML is inserted: the sections build.py rendered from the exercise files.
// A table may be wider than a phone: it scrolls sideways inside a box that the keyboard can focus
// (and so scroll with the arrow keys), named for screen readers (axe-core: scrollable-region-focusable);
// a group, not a region: a landmark per table would flood the landmark list with the same name.
function setRenderedHtml(node, html) {
  node.innerHTML = typeof html === 'string' ? html : '';
  for (const table of node.querySelectorAll('table')) {
    const box = make('div', { class: 'table-scroll', tabindex: '0', role: 'group', 'aria-label': t('exercises.tableScrollSidewaysIf') });
    table.replaceWith(box);
    box.append(table);
  }
  return node;
}

function pad(number) {
  return String(number).padStart(2, '0');
}

// ── predictions in localStorage (a reload loses nothing) ─────────────────────
function loadPrediction(key) {
  try { return localStorage.getItem(key) || ''; } catch (err) { return ''; }
}

function savePrediction(key, text) {
  try {
    if (text) localStorage.setItem(key, text); else localStorage.removeItem(key);
    return true;
  } catch (err) {
    return false;
  }
}

// ── one exercise ─────────────────────────────────────────────────────────────
// A constant as the line shows it; a trace (REQUESTS) as its ids, each with the columns that only some of
// the requests set (e.g. "A (cancel_at 8000)").
function constantText(value) {
  if (!Array.isArray(value)) return String(value);
  const rows = value.filter((r) => r && typeof r === 'object');
  const common = rows.length ? Object.keys(rows[0]).filter((k) => rows.every((r) => k in r)) : [];
  return '[' + value.map((r) => {
    const extra = Object.keys(r || {}).filter((k) => !common.includes(k)).map((k) => k + ' ' + r[k]);
    return String(r && r.id) + (extra.length ? ' (' + extra.join(', ') + ')' : '');
  }).join(', ') + ']';
}

function constantsLine(constants, patch) {
  const line = make('p', { class: 'exercise-constants' });
  const functions = Object.keys(patch || {});
  if (functions.length && !Object.keys(constants).length) {
    line.append(make('span', { class: 'exercise-label' }, t('exercises.exerciseEdits')), ' ');
    functions.forEach((name, i) => line.append(i > 0 ? ', ' : '', make('code', {}, name)));
    line.append(make('span', { class: 'exercise-rest' }, t('exercises.runButtonLoadsEdited')));
    return line;
  }
  line.append(make('span', { class: 'exercise-label' }, t('exercises.exerciseSets')), ' ');
  Object.entries(constants).forEach(([name, value], i) => {
    if (i > 0) line.append(', ');
    line.append(make('code', {}, name + ' = ' + constantText(value)));
  });
  line.append(make('span', { class: 'exercise-rest' }, t('exercises.otherConstantsKeep')));
  if (functions.length) {   // constants and edited functions both (exercise 11): name the functions too
    line.append(' ', make('span', { class: 'exercise-label' }, t('exercises.andEdits')), ' ');
    functions.forEach((name, i) => line.append(i > 0 ? ', ' : '', make('code', {}, name)));
  }
  return line;
}

function textColumn(ex, id) {
  const column = make('div', { class: 'exercise-text' });
  column.append(setRenderedHtml(make('div', { class: 'md exercise-question' }), section(ex, 'Câu hỏi', 'Question')));
  column.append(constantsLine(ex.constants || {}, ex.patch));
  const guide = make('div', { class: 'exercise-guide' });
  guide.append(make('h4', { id: id + '-guide' }, t('exercises.whatPredict')),
    setRenderedHtml(make('div', { class: 'md' }), section(ex, 'Dự đoán', 'Prediction')));
  column.append(guide);
  return column;
}

function predictionBox(id, key) {
  const label = make('label', { for: id + '-prediction' }, t('exercises.yourPrediction'));
  const help = make('p', { class: 'help', id: id + '-prediction-help' },
    t('exercises.writeBeforeRunning'));
  const box = make('textarea', { id: id + '-prediction', rows: '6', 'aria-describedby': help.id, spellcheck: 'false' });
  box.value = loadPrediction(key);
  box.addEventListener('input', () => {
    if (!savePrediction(key, box.value)) help.textContent = t('exercises.browserDoesNotAllow');
  });
  return [label, help, box];
}

function answerPanel(ex, id) {
  const answer = make('div', { class: 'exercise-answer', id: id + '-answer', hidden: true });
  answer.append(make('h4', {}, t('exercises.answer')), setRenderedHtml(make('div', { class: 'md' }), section(ex, 'Đáp án', 'Answer')));
  return answer;
}

function answerButton(answer) {
  const button = make('button', { type: 'button', class: 'btn', 'aria-expanded': 'false', 'aria-controls': answer.id,
    'data-exercise-action': 'answer' }, t('exercises.showAnswer'));
  button.addEventListener('click', () => {
    const show = answer.hidden;
    answer.hidden = !show;
    button.setAttribute('aria-expanded', String(show));
    button.textContent = show ? t('exercises.hideAnswer') : t('exercises.showAnswer');
  });
  return button;
}

function setNote(note, text, link) {
  note.replaceChildren(text);
  if (link) note.append(' ', make('a', { href: '#mapping' }, t('exercises.seeOutputMappingTable')));
}

function runButton(ex, lab, note) {
  const patched = Object.keys(ex.patch || {}).length > 0;
  const button = make('button', { type: 'button', class: 'btn primary', 'data-exercise-action': 'run' },
    patched ? t('exercises.loadEditedFunctionsRun') : t('exercises.setConstantsRun'));
  const run = { ex, lab, note, button, started: false }; // started: this exercise's run is under way
  button.addEventListener('click', () => runExercise(run));
  lab.on('runnable', () => onRunnable(run));
  return button;
}

function runExercise(run) {
  const { ex, lab, note } = run;
  const code = lab.tool('code');
  if (code && lab.canRun()) code.applyExercise(ex.patch || {}); // exactly its functions ("Sửa mã"), else the originals
  const unknown = lab.runWith(ex.constants || {});
  if (unknown === null) return; // disabled anyway
  if (unknown.length) {
    setNote(note, t('exercises.pageHasNoFieldCheck', { unknown: unknown.join(', ') }));
    return;
  }
  run.started = true;
  setNote(note, t('exercises.setConstantsExercise', { number: ex.number }), true);
}

function onRunnable(run) {
  const { ex, lab, note, button } = run;
  button.disabled = !lab.canRun();
  if (run.started && !button.disabled) {
    run.started = false;
    const failed = lab.status() === 'error';
    setNote(note, failed
      ? t('exercises.runConstantsExercise', { number: ex.number })
      : t('exercises.finishedRunning', { number: ex.number }), !failed);
  } else if (!run.started && button.disabled) {
    note.replaceChildren(); // another run replaces the output this note pointed at
  }
}

function exerciseCard(ex, lab) {
  const id = 'bai-tap-' + pad(ex.number);
  const card = make('article', { class: 'exercise', id, 'aria-labelledby': id + '-title', 'data-exercise': ex.number });
  const title = make('h3', { id: id + '-title' });
  title.append(make('span', { class: 'exercise-number' }, t('exercises.exercise', { number: ex.number })), ' ', titleOf(ex));
  const answer = answerPanel(ex, id);
  const note = make('p', { class: 'exercise-note', 'aria-live': 'polite' });
  const actions = make('div', { class: 'exercise-actions' });
  actions.append(runButton(ex, lab, note), answerButton(answer));
  const work = make('div', { class: 'exercise-work' });
  work.append(...predictionBox(id, STORAGE_PREFIX + pad(ex.number)), actions, note);
  card.append(title, textColumn(ex, id), work, answer);
  return card;
}

function tocItem(ex) {
  const item = make('li', { value: ex.number });
  item.append(make('a', { href: '#bai-tap-' + pad(ex.number) }, titleOf(ex)));
  return item;
}

// ── the two tracks (entrypoints/exercises.py TRACKS: exercises.json comes in track order, each item with its
// track {id, title, title_en, place, of}); an exercise no track names comes last, under "other" ──
function byTrack(exercises) {
  const groups = [];
  for (const ex of exercises) {
    const track = ex.track || { id: 'other', title: t('exercises.otherTrack'), title_en: t('exercises.otherTrack') };
    const last = groups[groups.length - 1];
    if (last && last.track.id === track.id) last.exercises.push(ex);
    else groups.push({ track, exercises: [ex] });
  }
  return groups;
}

const trackTitle = (track) => String(lang === 'en' ? track.title_en || track.title : track.title);

function trackSection(group, lab) {
  const id = 'lo-trinh-' + group.track.id;
  const section = make('section', { class: 'exercise-track', 'data-track': group.track.id, 'aria-labelledby': id });
  const order = group.exercises.map((ex) => ex.number).join(' → ');
  section.append(make('h3', { class: 'exercise-track-title', id }, trackTitle(group.track)),
    make('p', { class: 'exercise-track-order' }, t('exercises.trackOrder', { order })));
  section.append(...group.exercises.map((ex) => exerciseCard(ex, lab)));
  return section;
}

function tocTrack(group) {
  const item = make('li', { class: 'exercise-toc-track', 'data-track': group.track.id });
  item.append(make('span', { class: 'exercise-toc-track-title' }, trackTitle(group.track)),
    h('ol', {}, ...group.exercises.map(tocItem)));
  return item;
}

// ── the section ──────────────────────────────────────────────────────────────
export async function init(lab) {
  const list = document.getElementById('exercise-list');
  const toc = document.getElementById('exercise-toc');
  if (!list) return;
  await wanted(list, lab);
  const exercises = await loadExercises(list);
  if (!exercises) return;
  const groups = byTrack(exercises);
  list.replaceChildren(...groups.map((group) => trackSection(group, lab)));
  if (toc) {
    toc.replaceChildren(...groups.map(tocTrack));
    toc.closest('nav').hidden = exercises.length === 0;
  }
  // a link straight to one exercise (#bai-tap-02): the card did not exist when the page scrolled
  const target = location.hash.startsWith('#bai-tap-') && document.getElementById(location.hash.slice(1));
  if (target) target.scrollIntoView();
}

// Resolves when the exercises are wanted (exercises.json is not fetched on the way to 'ready'): the
// section comes near the screen, the address names it (#bai-tap, #bai-tap-02), or Python is ready
// and the page idle.
function wanted(list, lab) {
  return new Promise((resolve) => {
    const watch = { observer: null, off: null, done: false };
    const go = () => {
      if (watch.done) return;
      watch.done = true;
      if (watch.observer) watch.observer.disconnect();
      if (watch.off) watch.off();
      resolve();
    };
    if (location.hash.startsWith('#bai-tap')) { go(); return; }
    if (typeof IntersectionObserver === 'function') {
      watch.observer = new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) go(); },
        { rootMargin: '0px 0px 600px 0px' });
      watch.observer.observe(list.closest('section') || list);
    }
    const idle = typeof requestIdleCallback === 'function' ? (fn) => requestIdleCallback(fn, { timeout: 3000 }) : (fn) => setTimeout(fn, 0);
    watch.off = lab.on('ready', () => idle(go));
    if (watch.done) watch.off();
  });
}

// exercises.json (built from exercises/*.md), or null with the reason shown in `list`.
async function loadExercises(list) {
  try {
    const response = await fetch(new URL('exercises.json', document.baseURI), { cache: 'no-cache' });
    if (!response.ok) throw new Error('HTTP ' + response.status);
    const exercises = await response.json();
    if (!Array.isArray(exercises)) throw new Error(t('exercises.notList'));
    return exercises;
  } catch (err) {
    list.replaceChildren(make('p', { class: 'page-error' },
      t('exercises.couldNotLoadExercise', { message: err.message })));
    return null;
  }
}
