// "Bài tập" section: the exercises of exercises/NN-slug.md, read from exercises.json (build.py renders
// their Markdown to HTML with markdown-it-py, raw HTML off). A tool of static/lab-api.js: it uses
// lab.runWith(constants), lab.canRun(), lab.status() and the 'runnable' event; the run itself stays
// app.js's. It fills its own section of the page (#exercise-list, #exercise-toc).
// Titles, constants and the student's prediction are inserted as text; only the build-rendered
// sections go in as HTML (setRenderedHtml).

import { make } from './dom.js';

const STORAGE_PREFIX = 'inference-lab:prediction:';

// The one place HTML is inserted: the sections build.py rendered from the exercise files.
function setRenderedHtml(node, html) {
  node.innerHTML = typeof html === 'string' ? html : '';
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
function constantsLine(constants, patch) {
  const line = make('p', { class: 'exercise-constants' });
  const functions = Object.keys(patch || {});
  if (functions.length && !Object.keys(constants).length) {
    line.append(make('span', { class: 'exercise-label' }, 'Bài này sửa hàm:'), ' ');
    functions.forEach((name, i) => line.append(i > 0 ? ', ' : '', make('code', {}, name)));
    line.append(make('span', { class: 'exercise-rest' }, ' (nút chạy nạp hàm đã sửa vào “Sửa mã” của khối; các hằng số giữ mặc định)'));
    return line;
  }
  line.append(make('span', { class: 'exercise-label' }, 'Bài này đặt:'), ' ');
  Object.entries(constants).forEach(([name, value], i) => {
    if (i > 0) line.append(', ');
    // a request trace (REQUESTS) is a list of tables: name its size, the question says what changed
    const shown = Array.isArray(value) ? '[' + value.length + ' yêu cầu]' : value;
    line.append(make('code', {}, name + ' = ' + shown));
  });
  line.append(make('span', { class: 'exercise-rest' }, ' (các hằng số khác giữ mặc định)'));
  return line;
}

function textColumn(ex, id) {
  const column = make('div', { class: 'exercise-text' });
  column.append(setRenderedHtml(make('div', { class: 'md exercise-question' }), ex.sections['Câu hỏi']));
  column.append(constantsLine(ex.constants || {}, ex.patch));
  const guide = make('div', { class: 'exercise-guide' });
  guide.append(make('h4', { id: id + '-guide' }, 'Cần dự đoán gì'),
    setRenderedHtml(make('div', { class: 'md' }), ex.sections['Dự đoán']));
  column.append(guide);
  return column;
}

function predictionBox(id, key) {
  const label = make('label', { for: id + '-prediction' }, 'Dự đoán của bạn');
  const help = make('p', { class: 'help', id: id + '-prediction-help' },
    'Ghi trước khi chạy. Tự lưu trong trình duyệt này, tải lại trang không mất.');
  const box = make('textarea', { id: id + '-prediction', rows: '6', 'aria-describedby': help.id, spellcheck: 'false' });
  box.value = loadPrediction(key);
  box.addEventListener('input', () => {
    if (!savePrediction(key, box.value)) help.textContent = 'Trình duyệt không cho lưu: dự đoán sẽ mất khi tải lại trang.';
  });
  return [label, help, box];
}

function answerPanel(ex, id) {
  const answer = make('div', { class: 'exercise-answer', id: id + '-answer', hidden: true });
  answer.append(make('h4', {}, 'Đáp án'), setRenderedHtml(make('div', { class: 'md' }), ex.sections['Đáp án']));
  return answer;
}

function answerButton(answer) {
  const button = make('button', { type: 'button', class: 'btn', 'aria-expanded': 'false', 'aria-controls': answer.id,
    'data-exercise-action': 'answer' }, 'Xem đáp án');
  button.addEventListener('click', () => {
    const show = answer.hidden;
    answer.hidden = !show;
    button.setAttribute('aria-expanded', String(show));
    button.textContent = show ? 'Ẩn đáp án' : 'Xem đáp án';
  });
  return button;
}

function setNote(note, text, link) {
  note.replaceChildren(text);
  if (link) note.append(' ', make('a', { href: '#mapping' }, 'Xem output trong bảng ánh xạ ↑'));
}

function runButton(ex, lab, note) {
  const patched = Object.keys(ex.patch || {}).length > 0;
  const button = make('button', { type: 'button', class: 'btn primary', 'data-exercise-action': 'run' },
    patched ? 'Nạp hàm đã sửa và chạy' : 'Đặt hằng số và chạy');
  let started = false;
  button.addEventListener('click', () => {
    const code = lab.tool('code');
    if (code && lab.canRun()) code.applyExercise(ex.patch || {}); // exactly its functions ("Sửa mã"), else the originals
    const unknown = lab.runWith(ex.constants || {});
    if (unknown === null) return; // disabled anyway
    if (unknown.length) {
      setNote(note, 'Trang không có ô cho ' + unknown.join(', ') + '; kiểm tra tên hằng số trong tệp bài tập.');
      return;
    }
    started = true;
    setNote(note, 'Đã đặt hằng số của bài ' + ex.number + ' vào trình chạy và bấm Chạy.', true);
  });
  lab.on('runnable', () => {
    button.disabled = !lab.canRun();
    if (started && !button.disabled) {
      started = false;
      const failed = lab.status() === 'error';
      setNote(note, failed
        ? 'Lần chạy với hằng số của bài ' + ex.number + ' không xong; xem thông báo ở trình chạy.'
        : 'Đã chạy xong với hằng số của bài ' + ex.number + '. So với dự đoán của bạn.', !failed);
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
  title.append(make('span', { class: 'exercise-number' }, 'Bài ' + ex.number), ' ', String(ex.title));
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
  item.append(make('a', { href: '#bai-tap-' + pad(ex.number) }, ex.title));
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
    if (!Array.isArray(exercises)) throw new Error('không phải một danh sách');
  } catch (err) {
    list.replaceChildren(make('p', { class: 'page-error' },
      'Không tải được danh sách bài tập (exercises.json: ' + err.message + '). Dựng lại trang bằng “python3 build.py”.'));
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
