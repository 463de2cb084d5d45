// "Bài tập" section: the exercises of exercises/NN-slug.md, read from exercises.json (build.py renders
// their Markdown to HTML with markdown-it-py, raw HTML off). A tool of static/core/lab-api.js: it uses
// lab.runWith(constants), lab.canRun(), lab.status() and the 'runnable' event; the run itself stays
// app.js's. It fills its own section of the page (#exercise-list, #exercise-toc).
// Titles, constants and the student's prediction are inserted as text; only the build-rendered
// sections go in as HTML (setRenderedHtml).

import { make } from '../core/dom.js';
import { tl } from '../words/i18n.js';

const STORAGE_PREFIX = 'inference-lab:prediction:';

// An exercise's title and sections in the page's language: the English edition when the file has one,
// else the Vietnamese text.
const titleOf = (ex) => String(tl(ex.title, ex.title_en || ex.title));
const section = (ex, vi, en) => ex.sections[tl(vi, ex.sections[en] === undefined ? vi : en)];

// The one place HTML is inserted: the sections build.py rendered from the exercise files.
// A table may be wider than a phone: it scrolls sideways inside a box that the keyboard can focus
// (and so scroll with the arrow keys), named for screen readers (axe-core: scrollable-region-focusable);
// a group, not a region: a landmark per table would flood the landmark list with the same name.
function setRenderedHtml(node, html) {
  node.innerHTML = typeof html === 'string' ? html : '';
  for (const table of node.querySelectorAll('table')) {
    const box = make('div', { class: 'table-scroll', tabindex: '0', role: 'group', 'aria-label': tl('Bảng (kéo ngang nếu bị cắt)', 'Table (scroll sideways if it is cut off)') });
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
    line.append(make('span', { class: 'exercise-label' }, tl('Bài này sửa hàm:', 'This exercise edits:')), ' ');
    functions.forEach((name, i) => line.append(i > 0 ? ', ' : '', make('code', {}, name)));
    line.append(make('span', { class: 'exercise-rest' }, tl(' (nút chạy nạp hàm đã sửa vào “Sửa mã” của khối; các hằng số giữ mặc định)', ' (the run button loads the edited functions into the block\'s “Edit code”; constants keep their defaults)')));
    return line;
  }
  line.append(make('span', { class: 'exercise-label' }, tl('Bài này đặt:', 'This exercise sets:')), ' ');
  Object.entries(constants).forEach(([name, value], i) => {
    if (i > 0) line.append(', ');
    line.append(make('code', {}, name + ' = ' + constantText(value)));
  });
  line.append(make('span', { class: 'exercise-rest' }, tl(' (các hằng số khác giữ mặc định)', ' (other constants keep their defaults)')));
  return line;
}

function textColumn(ex, id) {
  const column = make('div', { class: 'exercise-text' });
  column.append(setRenderedHtml(make('div', { class: 'md exercise-question' }), section(ex, 'Câu hỏi', 'Question')));
  column.append(constantsLine(ex.constants || {}, ex.patch));
  const guide = make('div', { class: 'exercise-guide' });
  guide.append(make('h4', { id: id + '-guide' }, tl('Cần dự đoán gì', 'What to predict')),
    setRenderedHtml(make('div', { class: 'md' }), section(ex, 'Dự đoán', 'Prediction')));
  column.append(guide);
  return column;
}

function predictionBox(id, key) {
  const label = make('label', { for: id + '-prediction' }, tl('Dự đoán của bạn', 'Your prediction'));
  const help = make('p', { class: 'help', id: id + '-prediction-help' },
    tl('Ghi trước khi chạy. Tự lưu trong trình duyệt này, tải lại trang không mất.', 'Write it before running. Saved in this browser; reloading the page keeps it.'));
  const box = make('textarea', { id: id + '-prediction', rows: '6', 'aria-describedby': help.id, spellcheck: 'false' });
  box.value = loadPrediction(key);
  box.addEventListener('input', () => {
    if (!savePrediction(key, box.value)) help.textContent = tl('Trình duyệt không cho lưu: dự đoán sẽ mất khi tải lại trang.', 'The browser does not allow saving: the prediction is lost on reload.');
  });
  return [label, help, box];
}

function answerPanel(ex, id) {
  const answer = make('div', { class: 'exercise-answer', id: id + '-answer', hidden: true });
  answer.append(make('h4', {}, tl('Đáp án', 'Answer')), setRenderedHtml(make('div', { class: 'md' }), section(ex, 'Đáp án', 'Answer')));
  return answer;
}

function answerButton(answer) {
  const button = make('button', { type: 'button', class: 'btn', 'aria-expanded': 'false', 'aria-controls': answer.id,
    'data-exercise-action': 'answer' }, tl('Xem đáp án', 'Show the answer'));
  button.addEventListener('click', () => {
    const show = answer.hidden;
    answer.hidden = !show;
    button.setAttribute('aria-expanded', String(show));
    button.textContent = show ? tl('Ẩn đáp án', 'Hide the answer') : tl('Xem đáp án', 'Show the answer');
  });
  return button;
}

function setNote(note, text, link) {
  note.replaceChildren(text);
  if (link) note.append(' ', make('a', { href: '#mapping' }, tl('Xem output trong bảng ánh xạ ↑', 'See the output in the mapping table ↑')));
}

function runButton(ex, lab, note) {
  const patched = Object.keys(ex.patch || {}).length > 0;
  const button = make('button', { type: 'button', class: 'btn primary', 'data-exercise-action': 'run' },
    patched ? tl('Nạp hàm đã sửa và chạy', 'Load the edited functions and run') : tl('Đặt hằng số và chạy', 'Set the constants and run'));
  let started = false;
  button.addEventListener('click', () => {
    const code = lab.tool('code');
    if (code && lab.canRun()) code.applyExercise(ex.patch || {}); // exactly its functions ("Sửa mã"), else the originals
    const unknown = lab.runWith(ex.constants || {});
    if (unknown === null) return; // disabled anyway
    if (unknown.length) {
      setNote(note, tl('Trang không có ô cho ', 'The page has no field for ') + unknown.join(', ') + tl('; kiểm tra tên hằng số trong tệp bài tập.', '; check the constant names in the exercise file.'));
      return;
    }
    started = true;
    setNote(note, tl('Đã đặt hằng số của bài ', 'Set the constants of exercise ') + ex.number + tl(' vào trình chạy và bấm Chạy.', ' in the runner and pressed Run.'), true);
  });
  lab.on('runnable', () => {
    button.disabled = !lab.canRun();
    if (started && !button.disabled) {
      started = false;
      const failed = lab.status() === 'error';
      setNote(note, failed
        ? tl('Lần chạy với hằng số của bài ', 'The run with the constants of exercise ') + ex.number + tl(' không xong; xem thông báo ở trình chạy.', ' did not finish; see the message at the runner.')
        : tl('Đã chạy xong với hằng số của bài ', 'Finished running with the constants of exercise ') + ex.number + tl('. So với dự đoán của bạn.', '. Compare with your prediction.'), !failed);
    } else if (!started && button.disabled) {
      note.replaceChildren(); // another run replaces the output this note pointed at
    }
  });
  return button;
}

function exerciseCard(ex, lab) {
  const id = 'bai-tap-' + pad(ex.number);
  const card = make('article', { class: 'exercise', id, 'aria-labelledby': id + '-title', 'data-exercise': ex.number });
  const title = make('h3', { id: id + '-title' });
  title.append(make('span', { class: 'exercise-number' }, tl('Bài ', 'Exercise ') + ex.number), ' ', titleOf(ex));
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

// ── the section ──────────────────────────────────────────────────────────────
export async function init(lab) {
  const list = document.getElementById('exercise-list');
  const toc = document.getElementById('exercise-toc');
  if (!list) return;
  let exercises;
  try {
    const response = await fetch(new URL('exercises.json', document.baseURI), { cache: 'no-cache' });
    if (!response.ok) throw new Error('HTTP ' + response.status);
    exercises = await response.json();
    if (!Array.isArray(exercises)) throw new Error(tl('không phải một danh sách', 'not a list'));
  } catch (err) {
    list.replaceChildren(make('p', { class: 'page-error' },
      tl('Không tải được danh sách bài tập (exercises.json: ', 'Could not load the exercise list (exercises.json: ') + err.message + tl('). Dựng lại trang bằng “python3 build.py”.', '). Rebuild the page with “python3 build.py”.')));
    return;
  }
  list.replaceChildren(...exercises.map((ex) => exerciseCard(ex, lab)));
  if (toc) {
    toc.replaceChildren(...exercises.map(tocItem));
    toc.closest('nav').hidden = exercises.length === 0;
  }
  // a link straight to one exercise (#bai-tap-02): the card did not exist when the page scrolled
  const target = location.hash.startsWith('#bai-tap-') && document.getElementById(location.hash.slice(1));
  if (target) target.scrollIntoView();
}
