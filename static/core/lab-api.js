// The one API the page's tools use (static/tools/editor.js, share.js, compare.js, exercises.js, and any
// new one). A tool is a module exporting init(lab) that returns its own small API (or nothing);
// static/app.js lists the tools in TOOLS and registers them in order, so a tool may use one listed
// before it through lab.tool(name). Tools never reach into each other's DOM or the page's by id:
// what they may touch, the lab hands them (toolbar, form slot, output sections).
//
// Events (lab.on(name, fn) returns a function that unsubscribes):
//   ready({schema, first})   Python is ready; schema = describe(). first: the first time on this page
//                            (a restarted worker says ready again). Replayed to a late subscriber.
//   runnable(canRun)         whenever Run becomes possible or not (called once at subscription too).
//   status(status)           the status line's data-status changed (loading/ready/running/done/error).
//   config(config, errors)   Run (or lab.readConfig()) is reading the controls: add your part to
//                            config, or push {field, message} to errors.
//   lines(report)            a run's lines are in the panels (before the status says done): the
//                            moment to rewrite those lines, before anything reads layout.
//   result(result, config)   a run was shown (result.report, result.trace…; config: what ran).
//   step(n, how)             the selected step of the shown run is now n (1-based; page state: the step view,
//                            the timeline and the KV chart follow it); how = {say, address, force} as given
//                            to selectStep.
//   reset()                  "Mặc định" was pressed, or another address is about to be applied (put
//                            your part back to its default).
//   address({problems, restored, runs}) the page address was applied (static/core/address.js); the
//                            page runs next when runs and no problems.
//   clearErrors()            clear the errors you placed.
//   stopped({reason, patched, restarted, message}) a run was stopped (interrupted, or Python restarted:
//                            core/stop.js): reason 'user' (Dừng) or
//                            'watchdog' (a run with edited code took longer than watchdogSeconds());
//                            patched: the run had edited code.
//   refused(addresses, text)  edited code tried the network and the page's CSP refused it; text: the
//                            lesson, in the page's language (already beside Run).
//   fieldError(name, message) an error (message null: clear it) about a field with no control (e.g.
//                            REQUESTS[1].text): return the element you put it beside, else nothing.
// Methods: see createLabApi below.
// Leaves out: how a run happens (static/app.js) and the tools' own features.

import { clampStep, logItems } from './run-log.js';

// page: {store, controls, panels, run, runTask, stop, runWith, canRun, setNote, setPatches, loadCharts, stepDetail,
//        traceText,
//        watchdogMs, toolbar, form, actions, address}
export function createLabApi(page) {
  const { store, controls, panels } = page;
  const tools = new Map(); // name -> what its init returned
  const subscriptions = new Set(); // the `off` of every lab.on still listening (dispose() ends them all)
  let disposed = false;

  const lab = {
    on(name, fn) {
      const unsubscribe = store.on(name, fn);
      const off = () => { subscriptions.delete(off); unsubscribe(); };
      subscriptions.add(off);
      if (name === 'ready' && store.get().readyInfo) fn(store.get().readyInfo);
      if (name === 'runnable') fn(page.canRun());
      return off;
    },
    // ── state ──
    canRun: page.canRun,
    status: () => store.get().status,
    fields: () => store.get().fields,           // describe() entries that have a control
    lastResult: () => store.get().lastResult,   // {result, config} of the last run shown, or null
    // ── the selected step (of the last run shown) ──
    step: () => store.get().step,               // 1-based, 0: none
    // (n, how): selects step n, clamped to the run (no run log: nothing); every part hears 'step'.
    selectStep(n, how) {
      const last = store.get().lastResult;
      const count = logItems(last && last.result && last.result.report).length;
      if (count) store.selectStep(clampStep(n, count), how);
    },
    // (n): a promise of {n, item} — step n of the shown run whole, with its narration, when its steps came cut
    // (a long run: py/inference_lab/entrypoints/web.py step_detail) — or null
    stepDetail: page.stepDetail,
    // (): a promise of the shown long run's Chrome trace as JSON text (its result's trace is null), or null
    traceText: page.traceText,
    // ── the controls ──
    controlFor: controls.controlFor,            // the control of a constant, or null
    setFieldError: controls.setFieldError,      // (name, message|null) beside its control or cell
    readConfig: controls.readConfig,            // {config, errors}, as Run reads them
    openAdvanced: controls.openAdvanced,        // opens "Nâng cao" if the node is in it
    setChoices: controls.setChoices,            // (name, choices) for a choice field (FOLLOW)
    insertControls: controls.insert,            // (node) into the form, before "Nâng cao"
    // ── running ──
    run: page.run,                              // the Run button
    // (task): a sweep or a search in the worker with the page's constants (app.js runTask says the task's
    // shape); the status line, Stop and the constants' errors as Run's. Returns its id, or null (not now).
    runTask: page.runTask,
    stop: page.stop,                            // the Stop button (interrupts the run, else restarts Python)
    setPatches: page.setPatches,                // ([{module, function, source, key, …}]): every Run sends them
    watchdogSeconds: () => page.watchdogMs / 1000, // a run with edited code is stopped after this
    // (constants): Mặc định, these, Run; see app.js. REQUESTS (a trace: a list of request objects) has
    // no control: it goes into the request editor tool, after Mặc định and before the other constants.
    runWith(constants) {
      const { REQUESTS: trace, ...rest } = constants || {};
      if (trace === undefined) return page.runWith(rest);
      const editor = tools.get('editor');
      if (!editor || !editor.name()) return ['REQUESTS'];
      return page.runWith(rest, () => { editor.setTrace(trace); editor.open(); });
    },
    setNote: page.setNote,                      // the note beside the Run button
    // ── the page address (static/core/address.js owns it; no tool reads or writes location) ──
    address: {
      register: page.address.register,          // (name, {apply(values, ctx), write(config), view, runs})
      href: page.address.href,                  // (config) the address that restores config
      replace: page.address.replace,            // (href) replaceState
      set: page.address.set,                    // (name, value, ms) one view parameter
    },
    besideRun: (node) => page.actions.after(node), // (node) right under Run's row (code.js's link notice)
    // ── places ──
    // (node, order) into the toolbar under the status line; lower order first (share 0, compare 1,
    // the share link box 9).
    addToToolbar(node, order) {
      const bar = page.toolbar();
      node.dataset.toolOrder = String(order || 0);
      const after = Array.from(bar.children).find((child) => Number(child.dataset.toolOrder) > (order || 0));
      bar.insertBefore(node, after || null);
    },
    beforeControls: (node) => page.form.before(node), // (node) above the form (share's address note)
    // (node) at the end of the runner's section, under the status line (the sweep and search tools)
    inRunner: (node) => page.form.closest('section').append(node),
    sections: panels.sections,                  // [{key, label, pre, summary}] of the output
    charts: page.loadCharts,                    // () a promise of static/charts/index.js (null: not loaded)
    // ── other tools ──
    tool: (name) => tools.get(name) || null,
    // true once the page was remounted (a language switch): a tool's work that was awaiting something
    // (a module import) stops there instead of drawing into the new page
    disposed: () => disposed,
  };

  // Registers a tool: calls init(lab) and keeps what it returns for lab.tool(name).
  function register(name, init) {
    try {
      tools.set(name, init(lab) || null);
    } catch (err) {
      console.error('[tools] ' + name, err);
    }
  }

  // The page is remounted (a language switch, app.js): every tool stops listening; the DOM they made is gone.
  function dispose() {
    disposed = true;
    for (const off of [...subscriptions]) off();
    tools.clear();
  }

  return { lab, register, dispose };
}
