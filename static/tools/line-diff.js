// Which numbers changed between two runs' output lines (static/tools/compare.js draws the marks).
// - lines are paired per section (run header, blocks 1–13, TỔNG KẾT) by a longest common
//   subsequence over their labels (the text before the first number; the whole text when it has
//   none), which is the line index when nothing was added or removed;
// - inside a pair of lines, numbers are compared by position from the start while the text between
//   them is the same, and from the end likewise; a number after the lines' texts part is not marked.
// Pure functions, no DOM (tests/js/line-diff.test.mjs).
// Leaves out: reading the panels and drawing (static/tools/compare.js).

const NUMBER = /(?<![\p{L}\p{N}_])(?<!\d\.)-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?/gu;

// "a 1.5 b 2" -> {texts: ['a ', ' b ', ''], numbers: ['1.5', '2'], normed: ['a', 'b', ''], label}
// (normed: the texts with spaces normalised; label: see lineLabel). Computed once per line: a
// run's parts are kept for the comparison with the next run.
export function split(line) {
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
export function align(oldLabels, newLabels) {
  const n = oldLabels.length;
  const m = newLabels.length;
  if (n === m && oldLabels.every((label, i) => label === newLabels[i])) return oldLabels.map((_, i) => [i, i]);
  const table = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      table[i][j] = oldLabels[i] === newLabels[j]
        ? table[i + 1][j + 1] + 1
        : Math.max(table[i + 1][j], table[i][j + 1]);
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

// Map(newNumberIndex -> old number) for the numbers of `after` that changed from `before` (parts).
export function changedNumbers(before, after) {
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

// Sections [{key, lines: [{text, parts}]}] of two runs -> [{section, line, marks}] for every line of
// `after` (section and line: its objects) with at least one changed number.
export function diffRuns(before, after) {
  const out = [];
  for (const section of after) {
    const old = before.find((s) => s.key === section.key);
    if (!old) continue;
    const oldParts = old.lines.map((l) => l.parts);
    const newParts = section.lines.map((l) => l.parts);
    for (const [i, j] of align(oldParts.map((p) => p.label), newParts.map((p) => p.label))) {
      if (old.lines[i].text === section.lines[j].text) continue; // same line: nothing changed
      const marks = changedNumbers(oldParts[i], newParts[j]);
      if (marks.size) out.push({ section, line: section.lines[j], marks });
    }
  }
  return out;
}
