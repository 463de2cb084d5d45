// A chart's marks under the pointer and the keyboard: hover (mouse, pen, touch) and arrows on the
// focused frame share one "active mark", which gets a highlight box, the tooltip and (from the
// keyboard) the live region's text.
// Leaves out: registering marks and building the frame, tooltip and live region (figure.js).

import { setAttrs } from '../core/dom.js';
import { round, s } from './svg.js';

// Hover (mouse, pen, touch) and keyboard (arrows on the focused frame) share one "active mark".
export function wireMarks(chart, frame, tip, live) {
  const svg = chart.svgEl;
  const marks = chart.marks;
  const highlight = s('rect', { class: 'mark-highlight', 'aria-hidden': 'true', visibility: 'hidden', rx: 2 });
  svg.append(highlight);
  let active = -1;
  let viaKeyboard = false;

  function place(i) {
    const { el, detail } = marks[i];
    if (active >= 0 && marks[active]) marks[active].el.classList.remove('is-active');
    active = i;
    el.classList.add('is-active');
    const box = el.getBBox();
    const pad = 2;
    setAttrs(highlight, { x: round(box.x - pad), y: round(box.y - pad), width: round(box.width + 2 * pad), height: round(box.height + 2 * pad), visibility: 'visible' });
    svg.append(highlight); // on top
    tip.textContent = detail;
    tip.hidden = false;
    const body = frame.parentElement.getBoundingClientRect();
    const r = el.getBoundingClientRect();
    const tipW = tip.offsetWidth;
    const tipH = tip.offsetHeight;
    let left = r.left - body.left + r.width / 2 - tipW / 2;
    left = Math.max(0, Math.min(left, body.width - tipW));
    let top = r.top - body.top - tipH - 8;
    if (top < 0) top = r.bottom - body.top + 8;
    // CSSOM positioning (not a style attribute string), which the CSP allows.
    tip.style.left = Math.round(left) + 'px';
    tip.style.top = Math.round(top) + 'px';
    if (viaKeyboard) {
      live.textContent = detail;
      el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    }
  }

  function clear() {
    if (active >= 0 && marks[active]) marks[active].el.classList.remove('is-active');
    highlight.setAttribute('visibility', 'hidden');
    tip.hidden = true;
  }

  function markFrom(event) {
    const el = event.target instanceof Element ? event.target.closest('[data-mark]') : null;
    return el && svg.contains(el) ? Number(el.dataset.mark) : -1;
  }

  svg.addEventListener('pointermove', (event) => {
    const i = markFrom(event);
    if (i < 0) { if (!viaKeyboard) clear(); return; }
    if (i !== active || tip.hidden) { viaKeyboard = false; place(i); }
  });
  svg.addEventListener('pointerdown', (event) => {
    const i = markFrom(event);
    if (i >= 0) { viaKeyboard = false; place(i); }
  });
  svg.addEventListener('pointerleave', () => { if (!viaKeyboard) clear(); });

  frame.addEventListener('focus', () => { viaKeyboard = true; place(active >= 0 ? active : 0); });
  frame.addEventListener('blur', () => { viaKeyboard = false; clear(); });
  frame.addEventListener('keydown', (event) => {
    const last = marks.length - 1;
    let next = null;
    if (event.key === 'ArrowRight' || event.key === 'ArrowDown') next = Math.min(last, active + 1);
    else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') next = Math.max(0, active - 1);
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = last;
    else if (event.key === 'Escape') { clear(); return; }
    if (next === null) return;
    event.preventDefault();
    viaKeyboard = true;
    place(next);
  });
}
