// A chart's marks under the pointer and the keyboard: hover (mouse, pen, touch) and arrows on the
// focused frame share one "active mark", which gets a highlight box, the tooltip and (from the
// keyboard) the live region's text.
// Leaves out: registering marks and building the frame, tooltip and live region (figure.js).

import { setAttrs } from '../core/dom.js';
import { round, s } from './svg.js';

// Hover (mouse, pen, touch) and keyboard (arrows on the focused frame) share one "active mark".
export function wireMarks(chart, frame, tip, live) {
  const svg = chart.svgEl;
  const highlight = s('rect', { class: 'mark-highlight', 'aria-hidden': 'true', visibility: 'hidden', rx: 2 });
  svg.append(highlight);
  const m = { svg, frame, tip, live, highlight, marks: chart.marks, active: -1, viaKeyboard: false };
  svg.addEventListener('pointermove', (event) => onPointerMove(m, event));
  svg.addEventListener('pointerdown', (event) => {
    const i = markFrom(m, event);
    if (i >= 0) { m.viaKeyboard = false; place(m, i); }
  });
  svg.addEventListener('pointerleave', () => { if (!m.viaKeyboard) clear(m); });
  frame.addEventListener('focus', () => { m.viaKeyboard = true; place(m, m.active >= 0 ? m.active : 0); });
  frame.addEventListener('blur', () => { m.viaKeyboard = false; clear(m); });
  frame.addEventListener('keydown', (event) => onKey(m, event));
}

// Mark i becomes the active one: highlighted, its detail in the tooltip (and, from the keyboard, read out).
function place(m, i) {
  const { el, detail } = m.marks[i];
  if (m.active >= 0 && m.marks[m.active]) m.marks[m.active].el.classList.remove('is-active');
  m.active = i;
  el.classList.add('is-active');
  const box = el.getBBox();
  const pad = 2;
  setAttrs(m.highlight, { x: round(box.x - pad), y: round(box.y - pad), width: round(box.width + 2 * pad), height: round(box.height + 2 * pad), visibility: 'visible' });
  m.svg.append(m.highlight); // on top
  m.tip.textContent = detail;
  m.tip.hidden = false;
  placeTip(m, el);
  if (m.viaKeyboard) {
    m.live.textContent = detail;
    el.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
}

// The tooltip above the mark (below it when there is no room), inside the chart's body.
function placeTip(m, el) {
  const { tip } = m;
  const body = m.frame.parentElement.getBoundingClientRect();
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
}

function clear(m) {
  if (m.active >= 0 && m.marks[m.active]) m.marks[m.active].el.classList.remove('is-active');
  m.highlight.setAttribute('visibility', 'hidden');
  m.tip.hidden = true;
}

function markFrom(m, event) {
  const el = event.target instanceof Element ? event.target.closest('[data-mark]') : null;
  return el && m.svg.contains(el) ? Number(el.dataset.mark) : -1;
}

function onPointerMove(m, event) {
  const i = markFrom(m, event);
  if (i < 0) { if (!m.viaKeyboard) clear(m); return; }
  if (i !== m.active || m.tip.hidden) { m.viaKeyboard = false; place(m, i); }
}

// Arrows move one mark, Home/End go to the ends, Escape hides the tooltip.
function onKey(m, event) {
  const last = m.marks.length - 1;
  let next = null;
  if (event.key === 'ArrowRight' || event.key === 'ArrowDown') next = Math.min(last, m.active + 1);
  else if (event.key === 'ArrowLeft' || event.key === 'ArrowUp') next = Math.max(0, m.active - 1);
  else if (event.key === 'Home') next = 0;
  else if (event.key === 'End') next = last;
  else if (event.key === 'Escape') { clear(m); return; }
  if (next === null) return;
  event.preventDefault();
  m.viaKeyboard = true;
  place(m, next);
}
