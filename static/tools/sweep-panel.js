// The capacity tools' shared part (static/tools/sweep.js: the load sweep; sweep-search.js: the configuration
// search): the section they live in (under the runner's status line), one tool box each (a <details> with its
// inputs, its button, its error beside the input it is about, and its output), and the life of one task in the
// worker (app.js runTask): the status line tells point i of n, Stop is Run's Stop; the answer so far comes with
// each point (worker 'progress' partial), so a Stop that had to restart Python still keeps the points done.
// Errors come back from Python with field 'sweep', 'search' or 'search-attainment' (entrypoints/web.py) and are
// shown here with data-error-for, beside the input (the page's 'fieldError' event).
// Leaves out: what each tool asks and draws (sweep.js, sweep-search.js) and the charts (static/charts/).
import { h, make } from '../core/dom.js';
import { versioned } from '../core/versioned.js';
import { t } from '../words/i18n.js';

let section = null; // the capacity section (made by the first tool)

/** The section both tools go into: its heading, what a point is, and the page's limit (web.limits()). */
export function capacitySection(lab) {
  if (section && section.isConnected) return section;
  const limit = make('p', { class: 'note capacity-limit', 'data-capacity-limit': '' }, t('capacity.limitNoMax'));
  section = h('section', { class: 'capacity', id: 'capacity', 'aria-labelledby': 'h-capacity' },
    h('h3', { id: 'h-capacity' }, t('capacity.title')), make('p', { class: 'note' }, t('capacity.intro')), limit);
  lab.inRunner(section);
  lab.on('ready', (info) => {
    const max = info && info.limits && info.limits.points;
    if (max) { limit.textContent = t('capacity.limit', { max }); limit.dataset.capacityLimit = String(max); }
  });
  return section;
}

/**
 * One tool box. spec: {name ('sweep' | 'search'), summary, inputs: [{field, label, help?, node}], button}.
 * Returns {root, out, button, showError(field, message), clearErrors(), say(text), onResize(fn)}.
 */
export function toolBox(lab, spec) {
  const root = h('details', { class: 'capacity-tool', 'data-tool': spec.name, open: true },
    h('summary', {}, spec.summary));
  const errors = new Map(); // field -> its error element's slot
  for (const input of spec.inputs) {
    const id = 'capacity-' + input.field;
    input.node.id = id;
    const help = input.help ? make('p', { class: 'note', id: id + '-help' }, input.help) : null;
    if (help) input.node.setAttribute('aria-describedby', help.id);
    const slot = h('div', { class: 'capacity-field' }, make('label', { for: id }, input.label), help, input.node);
    errors.set(input.field, { slot, node: input.node });
    root.append(slot);
  }
  const button = make('button', { type: 'button', class: 'btn', 'data-action': spec.name, disabled: true }, spec.button);
  const state = make('p', { class: 'capacity-state', 'aria-live': 'polite' });
  const out = h('div', { class: 'capacity-out', 'data-capacity-out': spec.name });
  root.append(h('div', { class: 'actions' }, button, state), out);
  capacitySection(lab).append(root);
  lab.on('runnable', (ok) => { button.disabled = !ok; });

  function showError(field, message) {
    const place = errors.get(field);
    if (!place) return null;
    const old = place.slot.querySelector('[data-error-for]');
    if (old) old.remove();
    if (!message) { place.node.removeAttribute('aria-invalid'); return place.slot; }
    const error = make('p', { class: 'field-error', id: place.node.id + '-error', 'data-error-for': field }, message);
    place.slot.append(error);
    place.node.setAttribute('aria-invalid', 'true');
    place.node.focus();
    return error;
  }
  lab.on('fieldError', (field, message) => showError(field, message));
  const clearErrors = () => { for (const field of errors.keys()) showError(field, null); };
  lab.on('clearErrors', clearErrors);
  const say = (text) => { state.textContent = text; };
  // fn() when the output's width changes (a phone turned, the window resized): the tool draws its chart again
  let width = 0;
  const onResize = (fn) => {
    if (typeof ResizeObserver !== 'function') return;
    new ResizeObserver(() => {
      const now = out.clientWidth;
      if (width && Math.abs(now - width) > 24) fn();
      width = now;
    }).observe(out);
  };
  return { root, out, button, showError, clearErrors, say, onResize };
}

/**
 * Runs one task (app.js runTask) and follows it: spec {type, fields, title, errorText, progress(partial, msg),
 * show(answer, result) (a promise: drawn), stoppedText(partial), doneText(answer, seconds)}. The tool box's
 * data-tool-state says where it is: running, then error, or done / stopped once the answer is drawn. Returns true
 * when the task started.
 */
export function runTool(lab, box, spec) {
  box.clearErrors();
  let partial = null; // the answer so far (worker 'progress'), kept for a Stop that restarts Python
  let settled = false;
  const started = performance.now();
  const setState = (state) => { box.root.dataset.toolState = state; };
  const offStopped = lab.on('stopped', (info) => {
    if (settled || !info.restarted) return;
    finish();
    box.say(spec.stoppedText(partial));
    Promise.resolve(partial && spec.show(partial, null)).finally(() => setState('stopped'));
  });
  const offIdle = lab.on('status', (status) => { // the engine failed (runError): no answer comes
    if (status === 'error' && !settled && box.root.dataset.toolState === 'running') { finish(); setState('error'); }
  });
  function finish() { settled = true; offStopped(); offIdle(); }
  const id = lab.runTask({
    type: spec.type, fields: spec.fields, title: spec.title,
    progress: (msg) => {
      if (msg.partial) { partial = msg.partial; spec.show(partial, null); }
      const text = spec.progress(partial, msg);
      box.say(text);
      return text;
    },
    done: (result) => {
      finish();
      // a Stop that Python took outside the tool's own loop answers {ok: false, stopped}: the answer so far
      const answer = result && result.ok ? result[spec.type]
        : result && typeof result.stopped === 'string' && partial ? { ...partial, stopped: true } : null;
      if (!answer) {
        setState('error');
        box.say(t('capacity.failed'));
        return { status: 'error', text: spec.errorText };
      }
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      // the state once the chart is drawn (the charts' module may still be loading): what a test waits on
      const drawn = Promise.resolve(spec.show(answer, result));
      drawn.finally(() => setState(answer.stopped ? 'stopped' : 'done'));
      const text = answer.stopped ? spec.stoppedText(answer) : spec.doneText(answer, seconds);
      box.say(answer.stopped ? t('capacity.stopped', { done: answer.points.length, total: totalOf(answer) }) : text);
      return { status: 'done', text };
    },
  });
  if (id === null) { finish(); return false; }
  setState('running');
  box.say(spec.title);
  return true;
}

/** How many points the task has in all (a sweep's values, a search's grid). */
export function totalOf(answer) {
  if (Array.isArray(answer.values)) return answer.values.length;
  return (answer.axes || []).reduce((n, a) => n * (Array.isArray(a.values) ? a.values.length : 0), 1);
}

/** The printed lines (the command line's) in a <details> with a <pre>. */
export function linesBox(title, lines, name) {
  const pre = h('pre', { class: 'lines' }, ...(lines || []).map((line) => make('span', { class: 'line' }, line + '\n')));
  return h('details', { class: 'capacity-lines', 'data-capacity-lines': name }, h('summary', {}, title), pre);
}

/** A chart module of static/charts/ (name.js), once the charts' stylesheet is in (lab.charts()); null if none. */
export async function chartModule(lab, name) {
  const charts = await lab.charts();
  if (!charts || lab.disposed()) return null;
  try {
    return await import(versioned('../charts/' + name + '.js', import.meta.url));
  } catch (err) {
    console.warn('chart not loaded:', err);
    return null;
  }
}
