// The step navigator's arithmetic (pure, no DOM; static/tools/steps.js draws): which step a key goes to,
// which steps have an event, the token budget bar's parts, every KV block's owner at a step, and the
// ?step=N address value. Steps are numbered 1..count as in block [3] ("bước N"); `items` is
// report.steps.items (py/inference_lab/core/steps.py documents one item).
// Leaves out: words (the narration comes from the engine) and drawing.

// Kinds of event that make a step worth stopping at with PageUp / PageDown.
export const EVENT_KINDS = ['arrive', 'abort', 'admit', 'overtake', 'cache_hit', 'preempt', 'first', 'finish'];
import { t } from '../words/i18n.js';

export function clampStep(n, count) {
  if (!count) return 0;
  return Math.min(count, Math.max(1, Math.round(Number(n) || 1)));
}

export function hasEvent(item) {
  return !!item && (item.events || []).some((e) => EVENT_KINDS.includes(e.kind));
}

/** The 1-based numbers of the steps with an event. */
export function eventSteps(items) {
  const out = [];
  (items || []).forEach((item, i) => { if (hasEvent(item)) out.push(i + 1); });
  return out;
}

/** The step a slider key leads to from step `now` (WAI-ARIA slider: arrows ±1, Home/End; PageUp/PageDown:
 *  the previous/next step with an event), or null for a key the slider does not handle. */
export function targetStep(key, now, items) {
  const count = (items || []).length;
  if (!count) return null;
  switch (key) {
    case 'ArrowLeft': case 'ArrowDown': return clampStep(now - 1, count);
    case 'ArrowRight': case 'ArrowUp': return clampStep(now + 1, count);
    case 'Home': return 1;
    case 'End': return count;
    case 'PageUp': {
      const before = eventSteps(items).filter((n) => n < now);
      return before.length ? before[before.length - 1] : 1;
    }
    case 'PageDown': {
      const after = eventSteps(items).find((n) => n > now);
      return after || count;
    }
    default: return null;
  }
}

/** True when the step follows the seed's plan_tasks order: every decoding sequence got its token before any
 *  prompt chunk (text_steps.decodes_first). An edited plan_tasks may put chunks first or leave a decode out. */
export function decodesFirst(item) {
  const tasks = (item && item.tasks) || [];
  const phases = tasks.map((task) => task[1]);
  const firstChunk = phases.indexOf('prefill');
  if (firstChunk < 0) return true;
  if (phases.slice(firstChunk).includes('decode')) return false;
  const gone = new Set(((item && item.events) || []).filter((e) => e.kind === 'preempt' || e.kind === 'abort').map((e) => e.id));
  const decoded = new Set(tasks.filter((task) => task[1] === 'decode').map((task) => task[0]));
  return ((item && item.running) || []).every((r) => r[1] !== 'decode' || gone.has(r[0]) || decoded.has(r[0]));
}

/** The budget bar, in the order the scheduler filled it (the seed's: decodes first, then prompt chunks);
 *  `left` is what stayed unused. */
export function budgetParts(item) {
  const tasks = (item && item.tasks) || [];
  const parts = tasks.map((task) => (task[1] === 'decode'
    ? { id: String(task[0]), phase: 'decode', n: 1 }
    : { id: String(task[0]), phase: 'prefill', n: Number(task[2]) }));
  const [used, cap] = (item && item.budget) || [0, null];
  return { parts, used, cap, left: cap === null || cap === undefined ? null : Math.max(0, cap - used) };
}

export function expandRanges(ranges) {
  const out = [];
  for (const [lo, hi] of ranges || []) for (let b = lo; b <= hi; b++) out.push(b);
  return out;
}

/** Every physical block's owner after the step (null = free; a block shared through the prefix cache: its first
 *  holder, with every holder in `holders`), plus the sets of blocks just taken / given back / taken from the cache. */
export function blockMap(item, poolBlocks) {
  const owners = new Array(poolBlocks).fill(null);
  const logical = new Array(poolBlocks).fill(-1);
  const holders = new Array(poolBlocks).fill(null).map(() => []);
  for (const [id, table] of Object.entries((item && item.tables) || {})) {
    table.forEach((b, i) => {
      if (owners[b] === null) { owners[b] = id; logical[b] = i; }
      holders[b].push(id);
    });
  }
  return {
    owners, logical, holders,
    alloc: new Set((item && item.alloc) || []),
    freed: new Set((item && item.freed) || []),
    reused: new Set((item && item.reused) || []), // taken back from the prefix cache (PREFIX_CACHE=on)
    cached: new Set(expandRanges((item && item.cached_free) || [])), // free, still holding a prefix-cache hash
  };
}

/** The step named by ?step=N in `search`, clamped to the run; null when absent or not a number. */
export function stepFromSearch(search, count) {
  const raw = new URLSearchParams(search || '').get('step');
  if (raw === null || !/^\s*\d+\s*$/.test(raw) || !count) return null;
  return clampStep(Number(raw), count);
}

/** The slider's spoken value: "Bước 8/12: C bắt đầu prefill 5 token". */
export function valueText(item, n, count) {
  return t('steps.step2', { n, count, item: item && item.title ? ': ' + item.title : '' });
}
