// The step navigator (a tool of static/core/lab-api.js): scrub the scheduler's steps of the last run in
// block [3]'s panel and see, at each step, who runs and who waits (and why), how the token budget was
// split (decodes first, then prompt chunks), which physical KV block each request holds, what is free,
// and the step's decisions in the engine's own Vietnamese sentences with their reasons.
// - The slider follows the WAI-ARIA slider pattern (role="slider", data-step-slider): arrows ±1,
//   PageUp/PageDown the previous/next step with an event, Home/End; aria-valuetext "Bước 8/12: …".
//   Lùi / Tiếp buttons; Phát / Dừng plays forward and stops by itself at the last step (slower and
//   without animation under prefers-reduced-motion).
// - The view (data-step-view) is drawn from report.steps (py/inference_lab/core/steps.py); scrubbing never
//   calls Python. Only what changed is redrawn (the KV map keeps its cells, or its canvas over 64
//   blocks), so a step change stays within a frame on a 1,000-step run (bench/steps_bench.py).
// - The selected step is page state (lab.step() / lab.selectStep(), static/core/lab-api.js): this view, the
//   timeline (block [3]) and the KV chart (block [6]) follow it (charts/step-link.js); clicking a step on
//   them selects it. Blocks [6] and [11] get a link that opens and focuses the navigator.
// - ?step=N rides in the page address (this tool's view part of it, registered with lab.address) and
//   selects step N after the run.
// Everything from the engine goes in with textContent. Arithmetic: static/core/run-log.js (pure).

import { make } from '../core/dom.js';
import { versioned } from '../core/versioned.js';
import { blockMap, budgetParts, clampStep, eventSteps, stepFromSearch, targetStep } from '../core/run-log.js';
import { tl } from '../words/i18n.js';

const PLAY_MS = 900;
const PLAY_MS_REDUCED = 1800;
const ADDRESS_MS = 250;
const DENSE = 64;        // pools larger than this are drawn on a canvas
const DENSE_COLS = 64;
const CELL_PX = 8;
const FREE_FILL = '#dde1e7';
const CACHED_DOT = '#8a94a1'; // a free block that still holds a prefix-cache hash (the cells' dotted background)
const KEY_FILL = '#7f7f7f';   // an owned block in the legend
const reducedMotion = () => window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;

export function init(lab) {
  loadCss();
  let record = null;        // report.steps of the shown run
  let colours = () => ({ colour: '#7F7F7F' });
  const now = () => lab.step(); // the selected step, 1-based (0: no step): page state
  let timer = null;
  let pendingStep = null;   // ?step=N of the opened address, until the run it names is shown
  const ui = buildUi();
  lab.address.register('step', {
    view: true,
    apply: (values) => { pendingStep = values.length ? stepFromSearch('?step=' + encodeURIComponent(values[values.length - 1]), Infinity) : null; },
  });

  let inkOn = () => '#ffffff';
  lab.on('result', async (result) => {
    stop();
    const report = result && result.report;
    // the request colours of the charts (loaded with them, on the first run, not with the page)
    const [svg, charts] = await Promise.all([import(versioned('../charts/svg.js')), import(versioned('../charts/index.js'))]);
    charts.connect(lab); // the charts follow the selected step and report clicks through the lab API
    inkOn = svg.inkOn;
    record = report && report.steps && Array.isArray(report.steps.items) ? report.steps : null;
    colours = svg.requestColours(report);
    placeUi();
    if (!record) { ui.nav.hidden = true; return; }
    ui.nav.hidden = false;
    const count = record.items.length;
    const wanted = pendingStep !== null ? clampStep(pendingStep, count) : clampStep(now() || 1, count);
    pendingStep = null;
    resetView();
    select(wanted, { address: false, force: true });
  });

  // ── building and placing ─────────────────────────────────────────────────
  function buildUi() {
    const nav = make('section', { class: 'step-nav', id: 'step-nav', 'data-step-nav': '', 'aria-labelledby': 'step-nav-title', hidden: true });
    const title = make('p', { class: 'step-nav-title', id: 'step-nav-title' }, tl('Xem từng bước của bộ lập lịch', 'Step through the scheduler'));
    const back = make('button', { type: 'button', class: 'btn', 'data-step-action': 'back' }, tl('◀ Lùi', '◀ Back'));
    const next = make('button', { type: 'button', class: 'btn', 'data-step-action': 'next' }, tl('Tiếp ▶', 'Next ▶'));
    const play = make('button', { type: 'button', class: 'btn', 'data-step-action': 'play', 'aria-pressed': 'false' }, tl('Phát', 'Play'));
    const slider = make('div', {
      class: 'step-slider', role: 'slider', tabindex: '0', 'data-step-slider': '', 'aria-labelledby': 'step-nav-title',
      'aria-valuemin': '1', 'aria-valuemax': '1', 'aria-valuenow': '1', 'aria-orientation': 'horizontal',
    });
    const track = make('div', { class: 'step-track', 'aria-hidden': 'true' });
    const ticks = make('div', { class: 'step-ticks' });
    const thumb = make('div', { class: 'step-thumb' });
    track.append(ticks, thumb);
    slider.append(track);
    const count = make('span', { class: 'step-count', 'aria-hidden': 'true' });
    const controls = make('div', { class: 'step-controls' });
    const buttons = make('div', { class: 'step-buttons' });
    buttons.append(back, next, play, count);
    controls.append(slider, buttons);
    const help = make('p', { class: 'step-help' },
      tl('Phím: ←/→ một bước, PageUp/PageDown bước có sự kiện trước/sau, Home/End bước đầu/cuối. Bấm một bước trên dòng thời gian hoặc bản đồ block KV để chọn nó.', 'Keys: ←/→ one step, PageUp/PageDown the previous/next step with an event, Home/End the first/last step. Click a step on the timeline or the KV block map to pick it.'));
    const view = make('div', { class: 'step-view', 'data-step-view': '' });
    const live = make('p', { class: 'visually-hidden', 'aria-live': 'polite' }); // the new step, when not moved by the slider's keys
    nav.append(title, controls, help, live, view);

    back.addEventListener('click', () => { stop(); select(now() - 1, { say: true }); });
    next.addEventListener('click', () => { stop(); select(now() + 1, { say: true }); });
    play.addEventListener('click', () => (timer ? stop() : start()));
    slider.addEventListener('keydown', onKey);
    slider.addEventListener('pointerdown', onPointer);
    return { nav, slider, ticks, thumb, count, back, next, play, view, live, parts: null };
  }

  function panelOf(n) {
    const section = lab.sections().find((s) => s.key === String(n));
    return section && section.pre ? section.pre.closest('details') || section.pre.parentElement : null;
  }

  function placeUi() {
    const panel = panelOf(3);
    if (!panel) return;
    const pre = panel.querySelector(':scope > pre');
    let charts = panel.querySelector(':scope > .charts');
    if (!charts && pre) { // the charts' container (static/charts/index.js reuses it): the navigator goes under the timeline
      charts = make('div', { class: 'charts' });
      pre.before(charts);
    }
    if (ui.nav.previousElementSibling !== charts) (charts || pre).after(ui.nav);
    for (const n of [6, 11]) placeJump(n);
  }

  function placeJump(n) {
    const panel = panelOf(n);
    if (!panel || panel.querySelector(':scope > .step-jump')) return;
    const link = make('a', { class: 'step-jump', href: '#step-nav', 'data-step-jump': String(n) }, tl('Xem từng bước: ai chạy, ai chờ, block KV của ai (khối [3]) →', 'Step by step: who runs, who waits, whose KV blocks (block [3]) →'));
    link.addEventListener('click', (ev) => { ev.preventDefault(); focusNav(); });
    panel.querySelector(':scope > summary').after(link);
  }

  function focusNav() {
    const panel = panelOf(3);
    if (panel && 'open' in panel) panel.open = true;
    ui.nav.scrollIntoView({ block: 'start', behavior: reducedMotion() ? 'auto' : 'smooth' });
    ui.slider.focus({ preventScroll: true });
  }

  // ── selecting a step ─────────────────────────────────────────────────────
  // A step is selected through the lab API (page state); show() draws it when the store says so.
  function select(n, opts = {}) {
    if (!record || !record.items.length) return;
    lab.selectStep(n, opts);
  }

  lab.on('step', (step, opts) => {
    if (!record || !record.items.length) return;
    show(clampStep(step, record.items.length), opts || {});
  });

  function show(step, opts) {
    const count = record.items.length;
    const item = record.items[step - 1];
    const s = ui.slider;
    s.setAttribute('aria-valuemax', String(count));
    s.setAttribute('aria-valuenow', String(step));
    s.setAttribute('aria-valuetext', valueText(item, step, count));
    ui.thumb.style.setProperty('--pos', count > 1 ? String((step - 1) / (count - 1)) : '0');
    ui.count.textContent = tl(`Bước ${step}/${count}`, `Step ${step}/${count}`);
    ui.back.disabled = step <= 1;
    ui.next.disabled = step >= count;
    drawView(item, step, count);
    if (opts.address !== false) setAddressStep(step);
    ui.live.textContent = opts.say ? s.getAttribute('aria-valuetext') : '';
  }

  function onKey(ev) {
    if (!record) return;
    const to = targetStep(ev.key, now(), record.items);
    if (to === null) return;
    ev.preventDefault();
    stop();
    select(to);
  }

  function onPointer(ev) {
    if (!record || ev.button !== 0) return;
    const track = ui.slider.querySelector('.step-track');
    const pick = (e) => {
      const box = track.getBoundingClientRect();
      const f = box.width ? (e.clientX - box.left) / box.width : 0;
      select(1 + Math.round(Math.min(1, Math.max(0, f)) * (record.items.length - 1)));
    };
    stop();
    ui.slider.focus();
    pick(ev);
    const move = (e) => pick(e);
    const up = () => { window.removeEventListener('pointermove', move); window.removeEventListener('pointerup', up); };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  }

  // ── Play / Pause ─────────────────────────────────────────────────────────
  function start() {
    if (!record) return;
    if (now() >= record.items.length) select(1);
    ui.play.setAttribute('aria-pressed', 'true');
    ui.play.textContent = tl('Dừng', 'Pause');
    timer = setInterval(() => {
      if (now() >= record.items.length) { stop(); return; }
      select(now() + 1, { say: true });
      if (now() >= record.items.length) stop();
    }, reducedMotion() ? PLAY_MS_REDUCED : PLAY_MS);
  }

  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    ui.play.setAttribute('aria-pressed', 'false');
    ui.play.textContent = tl('Phát', 'Play');
  }

  // ── the view ─────────────────────────────────────────────────────────────
  // Made once per run; select() only rewrites what a step changes.
  function resetView() {
    const count = record.items.length;
    ui.ticks.replaceChildren(...eventSteps(record.items).map((n) => {
      const t = make('span', { class: 'step-tick' });
      t.style.setProperty('--pos', count > 1 ? String((n - 1) / (count - 1)) : '0');
      return t;
    }));
    const head = make('p', { class: 'step-head' });
    const slots = make('ol', { class: 'step-slots', 'aria-label': tl('Chỗ chạy', 'Running slots') });
    const queue = make('ol', { class: 'step-queue', 'aria-label': tl('Hàng chờ theo thứ tự', 'Waiting queue in order') });
    const budget = make('div', { class: 'step-budget' });
    const pool = record.pool_blocks;
    // up to DENSE blocks: one labelled cell each; more (up to 1,024): a canvas of small squares, one
    // paint for the whole map however many blocks change
    const dense = pool > DENSE;
    const kv = dense
      ? make('canvas', { class: 'step-kv is-dense', role: 'img', width: DENSE_COLS * CELL_PX, height: Math.ceil(pool / DENSE_COLS) * CELL_PX })
      : make('div', { class: 'step-kv', role: 'img' });
    const cells = [];
    for (let b = 0; b < (dense ? 0 : pool); b++) {
      const cell = make('span', { class: 'kv-cell is-free', 'data-kv-block': String(b) });
      cell.append(make('span', { class: 'kv-no' }, String(b)), make('span', { class: 'kv-owner' }));
      cells.push(cell);
    }
    kv.append(...cells);
    const free = make('p', { class: 'step-free' });
    const decisions = make('ul', { class: 'step-decisions' });
    ui.view.replaceChildren(
      head,
      section(tl('Chỗ chạy và hàng chờ', 'Running slots and waiting queue'), slots, queue),
      section(record.items.every((item) => item.decodes_first !== false)
        ? tl('Ngân sách token của bước (decode trước, rồi các đoạn prompt)', 'The step\'s token budget (decodes first, then prompt chunks)')
        : tl('Ngân sách token của bước (theo thứ tự mà plan_tasks đã sửa trả về)', 'The step\'s token budget (in the order the edited plan_tasks returned)'), budget),
      section(tl(`Bể KV: ${pool} block vật lý (${record.block_size} token mỗi block) sau bước`, `KV pool: ${pool} physical blocks (${record.block_size} tokens per block) after the step`), kv, free, legend(dense)),
      section(tl('Quyết định và lý do', 'Decisions and reasons'), decisions),
    );
    ui.parts = { head, slots, queue, budget, kv, cells, shown: new Array(pool).fill(undefined), free, decisions };
  }

  function section(title, ...children) {
    const box = make('div', { class: 'step-part' });
    box.append(make('p', { class: 'step-part-title' }, title), ...children);
    return box;
  }

  // The legend's swatches: the cells' own classes, or (canvas) the same paint as a block on the canvas.
  function legend(dense) {
    const key = (classes, look) => {
      if (!dense) return make('span', { class: 'kv-cell kv-key ' + classes });
      const c = make('canvas', { class: 'kv-key is-painted', width: CELL_PX - 1, height: CELL_PX - 1, 'data-key': classes });
      paintBlock(c.getContext('2d'), 0, 0, Object.assign({ fill: KEY_FILL, ink: inkOn(KEY_FILL) }, look));
      return c;
    };
    const box = make('p', { class: 'step-legend' });
    box.append(key('is-free', { fill: FREE_FILL }), tl(' trống ', ' free '),
      key('is-alloc', { frame: 'solid' }), tl(' vừa cấp ', ' just allocated '),
      key('is-freed is-free', { fill: FREE_FILL, frame: 'solid' }), tl(' vừa trả', ' just freed'));
    if (record.prefix_cache) {
      box.append(' ', key('is-shared', { shared: true }), tl(' dùng chung (×n) ', ' shared (×n) '),
        key('is-reused', { frame: 'dotted' }), tl(' vừa lấy lại từ prefix cache ', ' just taken back from the prefix cache '),
        key('is-free is-cached', { fill: FREE_FILL, cached: true }), tl(' trống, còn hash', ' free, still hashed'));
    }
    return box;
  }

  function drawView(item, step, count) {
    const p = ui.parts;
    p.head.textContent = item.text && item.text.length ? item.text[0] : valueText(item, step, count);
    drawSlots(item);
    drawBudget(item);
    drawKv(item);
    p.decisions.replaceChildren(...(item.text || []).slice(1).map((line) => make('li', {}, line)));
  }

  function chip(id, extra) {
    const c = colours(id);
    const el = make('span', { class: 'step-chip' }, id);
    el.style.setProperty('--chip', c.colour);
    el.style.setProperty('--chip-ink', inkOn(c.colour));
    return extra ? [el, ' ', extra] : [el];
  }

  function drawSlots(item) {
    const p = ui.parts;
    const rows = [];
    for (const [id, phase, done, total, gen, preempted] of item.running) {
      const what = phase === 'decode' ? tl(`decode · đã sinh ${gen} token`, `decode · ${gen} tokens generated`) : `prefill · prompt ${done}/${total}` + (preempted ? tl(' (tính lại)', ' (recompute)') : '');
      const li = make('li', { class: 'step-slot', 'data-request': id, 'data-phase': phase });
      li.append(...chip(id, what));
      rows.push(li);
    }
    for (let i = item.running.length; i < record.slots; i++) rows.push(make('li', { class: 'step-slot is-empty' }, tl('chỗ trống', 'free slot')));
    p.slots.replaceChildren(...rows);
    const labels = record.wait_labels || {};
    p.queue.replaceChildren(...(item.waiting.length ? item.waiting.map(([id, why, preempted]) => {
      const li = make('li', { class: 'step-wait', 'data-request': id, 'data-why': why });
      li.append(...chip(id, (labels[why] || why) + (preempted ? tl(' · bị preempt, chờ tính lại', ' · preempted, waiting to recompute') : '')));
      return li;
    }) : [make('li', { class: 'step-wait is-empty' }, tl('hàng chờ trống', 'empty queue'))]));
  }

  function drawBudget(item) {
    const { parts, used, cap, left } = budgetParts(item);
    const bar = make('div', { class: 'budget-bar', role: 'img' });
    const total = cap || used || 1;
    for (const part of parts) {
      const seg = make('span', { class: 'budget-seg', 'data-phase': part.phase }, part.phase === 'decode' ? `${part.id} d` : `${part.id} ${part.n}`);
      seg.style.setProperty('--share', String(part.n / total));
      const c = colours(part.id);
      seg.style.setProperty('--chip', c.colour);
      seg.style.setProperty('--chip-ink', inkOn(c.colour));
      seg.title = part.phase === 'decode' ? `${part.id}: decode 1 token` : `${part.id}: prefill ${part.n} token`;
      bar.append(seg);
    }
    if (left) {
      const seg = make('span', { class: 'budget-seg is-left' }, tl(`còn ${left}`, `${left} left`));
      seg.style.setProperty('--share', String(left / total));
      bar.append(seg);
    }
    const said = parts.map((x) => (x.phase === 'decode' ? `${x.id} decode 1` : `${x.id} prefill ${x.n}`)).join(', ');
    bar.setAttribute('aria-label', tl(`Ngân sách: dùng ${used}${cap ? '/' + cap : ''} token (${said || 'không có việc'})`, `Budget: used ${used}${cap ? '/' + cap : ''} tokens (${said || 'no work'})`) + (left ? tl(`, còn ${left}.`, `, ${left} left.`) : '.'));
    ui.parts.budget.replaceChildren(bar, make('p', { class: 'step-budget-note' }, cap ? tl(`dùng ${used}/${cap} token, còn ${left}`, `used ${used}/${cap} tokens, ${left} left`) : tl(`dùng ${used} token`, `used ${used} tokens`)));
  }

  function drawKv(item) {
    const p = ui.parts;
    const pool = record.pool_blocks;
    const map = blockMap(item, pool);
    for (let b = 0; b < pool; b++) {
      const owner = map.owners[b];
      const shared = map.holders[b].length > 1;
      const state = `${map.holders[b].join(',')}|${map.logical[b]}|${map.alloc.has(b) ? 1 : 0}|${map.freed.has(b) ? 1 : 0}|${map.reused.has(b) ? 1 : 0}|${map.cached.has(b) ? 1 : 0}`;
      if (p.shown[b] === state) continue;
      p.shown[b] = state;
      if (!p.cells.length) { paintCell(p.kv, b, owner, map); continue; }
      const cell = p.cells[b];
      cell.classList.toggle('is-free', owner === null);
      cell.classList.toggle('is-alloc', map.alloc.has(b));
      cell.classList.toggle('is-freed', map.freed.has(b));
      cell.classList.toggle('is-shared', shared);
      cell.classList.toggle('is-reused', map.reused.has(b));
      cell.classList.toggle('is-cached', map.cached.has(b));
      if (owner === null) {
        cell.style.removeProperty('--chip');
        cell.style.removeProperty('--chip-ink');
      } else {
        const c = colours(owner);
        cell.style.setProperty('--chip', c.colour);
        cell.style.setProperty('--chip-ink', inkOn(c.colour));
      }
      if (cell.lastChild && cell.lastChild.className === 'kv-owner') cell.lastChild.textContent = owner === null ? '' : (shared ? `${owner}×${map.holders[b].length}` : owner);
      cell.title = `block ${b}: ` + (owner === null ? (map.cached.has(b) ? tl('trống, còn hash prefix cache', 'free, still carrying a prefix-cache hash') : tl('trống', 'free')) : shared ? tl(`dùng chung: ${map.holders[b].join(', ')} (prefix cache)`, `shared: ${map.holders[b].join(', ')} (prefix cache)`) : tl(`của ${owner} (block logic ${map.logical[b]})`, `held by ${owner} (logical block ${map.logical[b]})`)) +
        (map.alloc.has(b) ? tl(', vừa cấp', ', just allocated') : '') + (map.reused.has(b) ? tl(', vừa lấy lại từ prefix cache', ', just taken back from the prefix cache') : '') + (map.freed.has(b) ? tl(', vừa trả', ', just freed') : '');
    }
    const tables = Object.entries(item.tables).map(([id, t]) => tl(`${id} giữ ${t.length} block`, `${id} holds ${t.length} blocks`)).join(', ');
    const nFree = map.owners.filter((o) => o === null).length;
    p.kv.setAttribute('aria-label', tl(`Bể KV ${pool} block: ${tables || 'không ai giữ block'}; trống ${nFree}`, `KV pool of ${pool} blocks: ${tables || 'nobody holds a block'}; ${nFree} free`) + cacheSaid(map) + '.');
    const reused = (item.reused || []).length;
    p.free.textContent = tl(`Trống ${nFree}/${pool}`, `Free ${nFree}/${pool}`) + (item.alloc.length ? tl(` · vừa cấp ${item.alloc.length}`, ` · just allocated ${item.alloc.length}`) : '') +
      (reused ? tl(` · lấy lại từ prefix cache ${reused}`, ` · taken back from the prefix cache ${reused}`) : '') + (item.freed.length ? tl(` · vừa trả ${item.freed.length}`, ` · just freed ${item.freed.length}`) : '');
  }

  // PREFIX_CACHE=on: the shared blocks (with their holders) and the free blocks still hashed, in words
  // (the canvas has no per-block titles; the cells say it in each title too).
  function cacheSaid(map) {
    if (!record.prefix_cache) return '';
    const shared = [];
    map.holders.forEach((ids, b) => { if (ids.length > 1) shared.push(`${b} (${ids.join(', ')})`); });
    return tl(`; dùng chung: ${shared.length ? 'block ' + shared.join(', ') : 'không'}; trống còn hash ${map.cached.size}`,
      `; shared: ${shared.length ? 'block ' + shared.join(', ') : 'none'}; ${map.cached.size} free still hashed`);
  }

  function paintCell(canvas, b, owner, map) {
    const fill = owner === null ? FREE_FILL : colours(owner).colour;
    paintBlock(canvas.getContext('2d'), (b % DENSE_COLS) * CELL_PX, Math.floor(b / DENSE_COLS) * CELL_PX, {
      fill,
      ink: inkOn(fill),
      frame: map.alloc.has(b) || map.freed.has(b) ? 'solid' : map.reused.has(b) ? 'dotted' : null,
      shared: map.holders[b].length > 1,
      cached: map.cached.has(b),
    });
  }

  // One block of the canvas at (x, y): a (CELL_PX - 1)² square of `fill`, with the marks the cells show:
  // frame 'solid' (just allocated or just freed: a black frame), 'dotted' (just taken back from the prefix
  // cache: every other pixel of the edge), shared (held by several tables: two lines "=" in `ink`, as the
  // cells' double outline), cached (free but still hashed: a grey dot, as the cells' dotted background).
  function paintBlock(g, x, y, look) {
    const side = CELL_PX - 1;
    g.clearRect(x, y, CELL_PX, CELL_PX);
    g.fillStyle = look.fill;
    g.fillRect(x, y, side, side);
    if (look.cached) {
      g.fillStyle = CACHED_DOT;
      g.fillRect(x + 2, y + 2, 3, 3);
    }
    if (look.shared) {
      g.fillStyle = look.ink;
      g.fillRect(x + 1, y + 2, side - 2, 1);
      g.fillRect(x + 1, y + 4, side - 2, 1);
    }
    if (look.frame === 'solid') {
      g.strokeStyle = '#000000';
      g.lineWidth = 2;
      g.strokeRect(x + 1, y + 1, side - 2, side - 2);
    } else if (look.frame === 'dotted') {
      g.fillStyle = '#000000';
      for (let i = 0; i < side; i += 2) {
        g.fillRect(x + i, y, 1, 1);
        g.fillRect(x + i, y + side - 1, 1, 1);
        g.fillRect(x, y + i, 1, 1);
        g.fillRect(x + side - 1, y + i, 1, 1);
      }
    }
  }

  // ── the address ──────────────────────────────────────────────────────────
  // history.replaceState is slow with a long address (an edited trace): once scrubbing pauses.
  function setAddressStep(step) {
    lab.address.set('step', step, ADDRESS_MS);
  }

  return {
    select: (n) => select(n),
    current: now,
    count: () => (record ? record.items.length : 0),
    focus: focusNav,
  };
}

/** The slider's spoken value: "Bước 8/12: C bắt đầu prefill 5 token". */
function valueText(item, n, count) {
  return tl(`Bước ${n}/${count}`, `Step ${n}/${count}`) + (item && item.title ? ': ' + item.title : '');
}

function loadCss() {
  if (document.querySelector('link[data-steps-css]')) return;
  const link = make('link', { rel: 'stylesheet', href: versioned('steps.css', import.meta.url), 'data-steps-css': '' });
  document.head.append(link);
}
