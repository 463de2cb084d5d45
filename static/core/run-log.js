// The page's reader of the run log (report.steps, py/inference_lab/core/serving/run_log.py documents one item): the
// steps' numbers and keys (which step a key goes to, which steps have an event, ?step=N), each step's token
// budget bar, every KV block's owner at a step, and the per-step rows the charts draw (stepRows). Pure: no
// DOM, no words, so it loads in Node for the unit tests. Steps are numbered 1..count as in block [3].
// Leaves out: the words (the narration comes from the engine; the slider's spoken value is static/tools/steps.js's),
// the selected step (page state: static/core/lab-api.js selectStep/step) and drawing.

// `kinds`: the kinds of event that make a step worth stopping at with PageUp / PageDown, the record's own list
// (report.steps.landmarks: py/inference_lab/core/serving/run_log.py LANDMARKS), never repeated here.

export function clampStep(n, count) {
  if (!count) return 0;
  return Math.min(count, Math.max(1, Math.round(Number(n) || 1)));
}

export function hasEvent(item, kinds) {
  return !!item && (item.events || []).some((e) => (kinds || []).includes(e.kind));
}

/** The 1-based numbers of the steps with an event of `kinds`. */
export function eventSteps(items, kinds) {
  const out = [];
  (items || []).forEach((item, i) => { if (hasEvent(item, kinds)) out.push(i + 1); });
  return out;
}

/** The step a slider key leads to from step `now` (WAI-ARIA slider: arrows ±1, Home/End; PageUp/PageDown:
 *  the previous/next step with an event), or null for a key the slider does not handle. */
export function targetStep(key, now, items, kinds) {
  const count = (items || []).length;
  if (!count) return null;
  switch (key) {
    case 'ArrowLeft': case 'ArrowDown': return clampStep(now - 1, count);
    case 'ArrowRight': case 'ArrowUp': return clampStep(now + 1, count);
    case 'Home': return 1;
    case 'End': return count;
    case 'PageUp': {
      const before = eventSteps(items, kinds).filter((n) => n < now);
      return before.length ? before[before.length - 1] : 1;
    }
    case 'PageDown': {
      const after = eventSteps(items, kinds).find((n) => n > now);
      return after || count;
    }
    default: return null;
  }
}

/** The budget bar, in the order the scheduler filled it (the seed's: decodes first, then prompt chunks);
 *  `left` is what stayed unused. */
export function budgetParts(item) {
  const tasks = (item && item.tasks) || [];
  const spec = (item && item.spec) || {};    // speculative decoding: a verify takes 1 + its proposals
  const parts = tasks.map((t) => (t[1] === 'decode'
    ? { id: String(t[0]), phase: 'decode', n: 1 + (spec[t[0]] ? spec[t[0]].proposed.length : 0) }
    : { id: String(t[0]), phase: 'prefill', n: Number(t[2]) }));
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

/** The run log's items of a report ([] when it has none). */
export function logItems(report) {
  const steps = report && report.steps;
  return steps && Array.isArray(steps.items) ? steps.items : [];
}

/** One row per step for the charts: start, end, tasks, the KV blocks in use after the step (kvUsed: the record's
 *  kv_used, py/inference_lab/core/serving/run_log.py page_keys), each block's
 *  owner (owners: {block: id}, a shared block's first holder), the blocks held by several (shared: {block: [ids]})
 *  and the free blocks still holding a prefix-cache hash (cachedFree: [block]). */
export function stepRows(report) {
  return logItems(report).map((item) => {
    const owners = {};
    const holders = {};
    for (const [id, table] of Object.entries(item.tables || {})) {
      for (const b of table) {
        if (!(b in owners)) owners[b] = id;
        (holders[b] = holders[b] || []).push(id);
      }
    }
    const shared = Object.fromEntries(Object.entries(holders).filter(([, ids]) => ids.length > 1));
    return { start: item.start, end: item.end, tasks: item.tasks || [], owners, shared, kvUsed: item.kv_used,
      cachedFree: expandRanges(item.cached_free) };
  });
}

/** A long run's KV pool at the steps its KV chart draws (report.steps.kv_strip: py/inference_lab/entrypoints/web.py
 *  kv_strip; its items carry no tables): one row per drawn step, {step (1-based), start, end, kvUsed, tables:
 *  [[id, first, last, first, last, ...]] (each table's blocks as inclusive runs, in table order), cached: [[first,
 *  last]] (free blocks still holding a prefix-cache hash)}. null for a run whose items carry their tables. */
export function stripRows(report) {
  const strip = report && report.steps && report.steps.kv_strip;
  if (!strip) return null;
  const items = logItems(report);
  return strip.steps.map((step, i) => {
    const item = items[step - 1] || {};
    return { step, start: item.start, end: item.end, kvUsed: item.kv_used, tables: strip.tables[i],
      cached: strip.cached_free[i] || [] };
  });
}

/** A strip row's owners {block: id} (the first table that holds the block, as blockMap) and the blocks several
 *  tables hold (shared: {block: [ids]}), as stepRows gives them. */
export function stripOwners(row) {
  const owners = {};
  const shared = {};
  for (const [id, ...runs] of row.tables) {
    for (let r = 0; r < runs.length; r += 2) {
      for (let b = runs[r]; b <= runs[r + 1]; b++) {
        if (!(b in owners)) owners[b] = id;
        else (shared[b] = shared[b] || [owners[b]]).push(id);
      }
    }
  }
  return { owners, shared };
}
