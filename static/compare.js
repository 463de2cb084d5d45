// Compare with the previous run: after a re-run, every number in the output that changed is wrapped
// in <span class="changed" data-changed="OLD">NEW</span>; the old value is drawn by CSS
// (::before, "OLD → NEW"), so the line's text stays exactly the engine's text. A checkbox
// (data-action="toggle-changes") removes or restores the marks; a line says how many numbers changed.
//
// Matching, so that nothing is marked that does not correspond:
// - lines are paired per section (run header, blocks 1–13, TỔNG KẾT) by a longest common
//   subsequence over their labels (the text before the first number; the whole text when it has
//   none), which is the line index when nothing was added or removed;
// - inside a pair of lines, numbers are compared by position from the start while the text between
//   them is the same, and from the end likewise; a number after the lines' texts part is not marked.
// Loaded by app.js (import()); built with DOM nodes and textContent only.

const NUMBER = /(?<![\p{L}\p{N}_])(?<!\d\.)-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/gu;

export function init(api) {
  const { make } = api;
  let previous = null;   // [{key, label, lines: [{text, parts}]}] of the last run shown (parts: split(text))
  let changes = [];      // [{key, label, element, text, marks: Map(numberIndex -> old)}] of the current run
  let show = true;
  const ui = buildUi();

  // On 'lines' rather than 'result': the marks are drawn before the other tools' result hooks, one
  // of which reads layout (share.js changes the address), so the page is laid out once per run.
  api.on('lines', () => {
    const current = snapshot();
    changes = previous ? diffRuns(previous, current) : [];
    const first = previous === null;
    previous = current.map(({ key, label, lines }) => ({ key, label, lines: lines.map((l) => ({ text: l.text, parts: l.parts })) }));
    render(first);
  });

  function buildUi() {
    const bar = api.toolbar();
    const label = make('label', { class: 'toggle-changes' });
    const box = make('input', { type: 'checkbox', 'data-action': 'toggle-changes', checked: true });
    label.append(box, ' Hiện thay đổi so với lần chạy trước');
    const count = make('span', { class: 'changes-count', 'data-changes-count': '', 'aria-live': 'polite' },
      'Đổi một hằng số rồi chạy lại: số nào đổi sẽ được đánh dấu cũ → mới.');
    const group = make('div', { class: 'tool-group compare-tools' });
    group.append(label, count);
    const link = bar.querySelector('.share-link');
    if (link) bar.insertBefore(group, link);
    else bar.append(group);
    box.addEventListener('change', () => { show = box.checked; render(false); });
    return { box, count };
  }

  // ── reading the panels ─────────────────────────────────────────────────────
  function sections() {
    const out = [{ key: 'header', label: 'đầu vào', pre: document.querySelector('#run-header pre.lines'), summary: document.querySelector('#run-header > summary') }];
    for (let n = 1; n <= 13; n++) {
      const panel = document.querySelector('details[data-block="' + n + '"]');
      out.push({ key: String(n), label: 'khối ' + n, pre: panel && panel.querySelector('pre.lines'), summary: panel && panel.querySelector(':scope > summary') });
    }
    out.push({ key: 'summary', label: 'TỔNG KẾT', pre: document.getElementById('summary-lines'), summary: null });
    return out.filter((s) => s.pre);
  }

  // The lines shown now, each with its parts (split(); taken from the previous run's line when the
  // text is the same, which is most lines).
  function snapshot() {
    const known = new Map();
    for (const section of previous || []) for (const line of section.lines) known.set(line.text, line.parts);
    return sections().map((s) => Object.assign(s, {
      lines: Array.from(s.pre.querySelectorAll(':scope > .line')).map((element) => {
        const text = element.textContent;
        return { element, text, parts: known.get(text) || split(text) };
      }),
    }));
  }

  // ── matching ───────────────────────────────────────────────────────────────
  // "a 1.5 b 2" -> {texts: ['a ', ' b ', ''], numbers: ['1.5', '2'], normed: ['a', 'b', ''], label}
  // (normed: the texts with spaces normalised; label: see lineLabel). Computed once per line: a
  // run's parts are kept for the comparison with the next run.
  function split(line) {
    const texts = [];
    const numbers = [];
    let last = 0;
    for (const m of line.matchAll(NUMBER)) {
      texts.push(line.slice(last, m.index));
      numbers.push(m[0]);
      last = m.index + m[0].length;
    }
    texts.push(line.slice(last));
    const parts = { texts, numbers, normed: texts.map(norm), label: '' };
    parts.label = lineLabel(parts);
    return parts;
  }

  function norm(text) {
    return text.replace(/\s+/g, ' ').trim();
  }

  function lineLabel(parts) {
    const head = parts.normed[0];
    return parts.numbers.length && /\p{L}/u.test(head) ? head : parts.normed.join('#');
  }

  // Pairs [oldIndex, newIndex] of lines with equal labels, in order (longest common subsequence).
  function align(oldLabels, newLabels) {
    const n = oldLabels.length;
    const m = newLabels.length;
    if (n === m && oldLabels.every((label, i) => label === newLabels[i])) return oldLabels.map((_, i) => [i, i]);
    const table = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i][j] = oldLabels[i] === newLabels[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1]);
      }
    }
    const pairs = [];
    for (let i = 0, j = 0; i < n && j < m;) {
      if (oldLabels[i] === newLabels[j]) { pairs.push([i, j]); i++; j++; }
      else if (table[i + 1][j] >= table[i][j + 1]) i++;
      else j++;
    }
    return pairs;
  }

  // Map(newNumberIndex -> old number) for the numbers of `after` that changed from `before`.
  function changedNumbers(before, after) {
    const marks = new Map();
    const a = before.numbers.length;
    const b = after.numbers.length;
    let k = 0;
    for (; k < Math.min(a, b) && before.normed[k] === after.normed[k]; k++) {
      if (before.numbers[k] !== after.numbers[k]) marks.set(k, before.numbers[k]);
    }
    for (let s = 1; a - s >= k && b - s >= k && before.normed[a - s + 1] === after.normed[b - s + 1]; s++) {
      if (before.numbers[a - s] !== after.numbers[b - s]) marks.set(b - s, before.numbers[a - s]);
    }
    return marks;
  }

  function diffRuns(before, after) {
    const out = [];
    for (const section of after) {
      const old = before.find((s) => s.key === section.key);
      if (!old) continue;
      const oldParts = old.lines.map((l) => l.parts);
      const newParts = section.lines.map((l) => l.parts);
      for (const [i, j] of align(oldParts.map((p) => p.label), newParts.map((p) => p.label))) {
        if (old.lines[i].text === section.lines[j].text) continue; // same line: nothing changed
        const marks = changedNumbers(oldParts[i], newParts[j]);
        if (marks.size) {
          out.push({ key: section.key, label: section.label, summary: section.summary, element: section.lines[j].element,
            text: section.lines[j].text, parts: newParts[j], marks });
        }
      }
    }
    return out;
  }

  // ── drawing ────────────────────────────────────────────────────────────────
  function render(first) {
    document.querySelectorAll('[data-changes-badge]').forEach((node) => node.removeAttribute('data-changes-badge'));
    for (const change of changes) {
      if (!change.element.isConnected || change.element.textContent !== change.text) continue;
      if (show) drawLine(change);
      else change.element.textContent = change.text;
    }
    const total = changes.reduce((sum, c) => sum + c.marks.size, 0);
    const where = [];
    for (const change of changes) if (!where.includes(change.label)) where.push(change.label);
    if (show) {
      for (const label of where) {
        const inSection = changes.filter((c) => c.label === label);
        const summary = inSection[0].summary;
        if (!summary) continue;
        const n = inSection.reduce((sum, c) => sum + c.marks.size, 0);
        summary.dataset.changesBadge = n + ' số đổi'; // drawn by CSS: the panel's text stays the engine's
      }
    }
    ui.count.dataset.changesCount = String(total);
    if (first) ui.count.textContent = 'Đổi một hằng số rồi chạy lại: số nào đổi sẽ được đánh dấu cũ → mới.';
    else if (total === 0) ui.count.textContent = 'Không có số nào đổi so với lần chạy trước.';
    else ui.count.textContent = total + ' số đã đổi (' + where.join(', ') + ')' + (show ? '.' : ' — đang ẩn.');
  }

  function drawLine(change) {
    const { texts, numbers } = change.parts;
    const nodes = [];
    numbers.forEach((number, k) => {
      if (texts[k]) nodes.push(document.createTextNode(texts[k]));
      if (!change.marks.has(k)) { nodes.push(document.createTextNode(number)); return; }
      const old = change.marks.get(k);
      const mark = document.createElement('span');
      mark.className = 'changed';
      mark.dataset.changed = old;
      mark.title = 'Lần chạy trước: ' + old + ' · lần này: ' + number;
      const now = document.createElement('span');
      now.className = 'changed-new';
      now.textContent = number;
      mark.append(now);
      nodes.push(mark);
    });
    if (texts[numbers.length]) nodes.push(document.createTextNode(texts[numbers.length]));
    change.element.replaceChildren(...nodes);
  }

  return { count: () => changes.reduce((sum, c) => sum + c.marks.size, 0) };
}
