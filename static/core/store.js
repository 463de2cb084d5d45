// The page's one store: the state every part of the page reads (Python ready or not, the fields
// describe() gave, the run in the worker, the last result and its config, the status, the selected step
// of the run: `step`, 1-based, 0 for none, which the step view and the charts follow) and the
// events the parts and the tools subscribe to. No DOM, so it loads in Node for the unit tests.
// Leaves out: what the events mean (static/core/lab-api.js documents them for the tools) and any
// rendering; a listener that throws is logged and never stops the others.

export function createStore(initial) {
  const state = Object.assign({ step: 0 }, initial);
  const listeners = new Map(); // event name -> [fn]

  function on(name, fn) {
    if (!listeners.has(name)) listeners.set(name, []);
    listeners.get(name).push(fn);
    return () => {
      const list = listeners.get(name);
      const i = list.indexOf(fn);
      if (i !== -1) list.splice(i, 1);
    };
  }

  // Calls every listener of `name`; returns what they returned, in order.
  function emit(name, ...args) {
    const out = [];
    for (const fn of (listeners.get(name) || []).slice()) {
      try { out.push(fn(...args)); } catch (err) { console.error('[lab] ' + name, err); }
    }
    return out;
  }

  // Changes some keys, then tells 'change' listeners which (only when something changed).
  function set(patch) {
    const changed = Object.keys(patch).filter((key) => state[key] !== patch[key]);
    if (!changed.length) return;
    Object.assign(state, patch);
    emit('change', changed, state);
  }

  // Selects step n (1-based) and tells 'step' listeners (n, how) when it changed, or always with how.force:
  // how = {say, address, force} is passed on (say: announce it; address: false keeps ?step= as it is).
  function selectStep(n, how = {}) {
    if (n === state.step && !how.force) return;
    set({ step: n });
    emit('step', n, how);
  }

  return { get: () => state, set, on, emit, selectStep };
}
