// The page address's one owner: it reads the address, hands each part to the tool that registered it,
// and writes the address back after a run (history.replaceState, never a reload). Tools register their
// parts through the lab API (static/core/lab-api.js: lab.address.register) and never read or write
// location themselves, nor import each other for a parameter's name.
//   register(name, part)   part.apply(values, ctx)  values: every value of `name` in the address ([] when
//                                                    absent); ctx.problem(name, text, besideField) and
//                                                    ctx.restored(text) say what happened
//                          part.write(config)       what the address carries after a run of `config`:
//                                                    a value, null (left out), or [[name, value], …]
//                          part.view                a view parameter (what the page shows, not what runs:
//                                                    ?step=N, ?lang=en): kept as it is when a run rewrites
//                                                    the address
//                          part.runs                its presence asks for a run once applied (default true;
//                                                    lang: false)
//                          part.holds()             true: the address waits for the visitor's click (edited
//                                                    code from someone else's link, static/tools/code.js);
//                                                    then only the '*' part's names (constants) run at once
//                          part.early               also applied when registered, from the address the
//                                                    page opened with (before Python is ready)
//                          name '*': the part that takes every name no other part claimed (the constants
//                          and REQUESTS, static/tools/share.js): apply(names, params, ctx), write(config)
//                          gives [[name, value], …].
//   apply(search)          every part applied to that query string: {problems, restored, runs}; a view change
//                          set() still holds back is dropped (it was the old address's)
//   href(config)           the address that restores `config` (view parameters kept)
//   write(config)          replaceState(href(config))
//   set(name, value, ms)   one view parameter changed (after ms, once changes pause; value null: removed)
// Leaves out: the address's format (static/core/share-state.js) and deciding to run (static/app.js).

export function createAddress() {
  const parts = new Map(); // name -> part, in registration order
  let timer = null;

  function register(name, part) {
    parts.set(name, Object.assign({ view: false, runs: true }, part));
    if (part.early && part.apply) {
      part.apply(new URLSearchParams(location.search).getAll(name), { problem() {}, restored() {} });
    }
  }

  function apply(search) {
    clearTimeout(timer);   // a view change still waiting (a step chosen just before) belongs to the old address
    const params = new URLSearchParams(search);
    const present = Array.from(new Set(params.keys()));
    const problems = [];
    const restored = [];
    const ctx = {
      problem: (name, text, besideField) => problems.push({ name, text, besideField }),
      restored: (text) => restored.push(text),
    };
    for (const [name, part] of parts) {
      if (name === '*' || !part.apply) continue;
      part.apply(params.getAll(name), ctx);
    }
    const others = present.filter((name) => !parts.has(name));
    const rest = parts.get('*');
    if (rest && rest.apply) rest.apply(others, params, ctx);
    const holding = Array.from(parts.values()).some((part) => part.holds && part.holds());
    const runs = present.some((name) => (parts.has(name) ? !holding && parts.get(name).runs : true));
    return { problems, restored, runs };
  }

  function href(config) {
    const url = new URL(location.href);
    const old = new URLSearchParams(location.search);
    const params = new URLSearchParams();
    const rest = parts.get('*');
    if (rest && rest.write) for (const [name, value] of rest.write(config) || []) params.set(name, value);
    for (const [name, part] of parts) {
      if (name === '*') continue;
      if (part.view) {
        if (old.has(name)) params.set(name, old.get(name));
        continue;
      }
      const value = part.write ? part.write(config) : null;
      if (Array.isArray(value)) for (const [n, v] of value) params.set(n, v);
      else if (value !== null && value !== undefined) params.set(name, value);
    }
    url.search = params.toString();
    return url.href;
  }

  function replace(target) {
    clearTimeout(timer);
    if (target !== location.href) history.replaceState(history.state, '', target);
  }

  function set(name, value, ms) {
    clearTimeout(timer);
    const change = () => {
      const url = new URL(location.href);
      if (value === null || value === undefined) url.searchParams.delete(name);
      else url.searchParams.set(name, String(value));
      if (url.href !== location.href) history.replaceState(history.state, '', url.href);
    };
    if (ms) timer = setTimeout(change, ms);
    else change();
  }

  return { register, apply, href, write: (config) => replace(href(config)), replace, set };
}
