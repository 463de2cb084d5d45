// DOM helpers for the page's modules, its tools and the charts: make() builds an element with
// attributes and text; h() and svg() build HTML and SVG elements with children.
// Everything from the engine or the user goes in as text; nothing here takes HTML.
// Leaves out: finding the page's elements (app.js and the lab API hand them over).

export const SVG_NS = 'http://www.w3.org/2000/svg';

// An attribute whose value is undefined, null or false is left out; true gives an empty attribute
// (hidden, disabled, checked…).
export function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? '' : String(value));
  }
  return node;
}

function appendAll(node, children) {
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === 'object' ? child : String(child));
  }
  return node;
}

/** <tag attrs>text</tag>: make('p', {class: 'note'}, 'text'). */
export function make(tag, attrs, text) {
  const node = setAttrs(document.createElement(tag), attrs);
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

/** An HTML element: h('p', {class: 'x'}, 'text', child). Text children become text nodes. */
export function h(tag, attrs, ...children) {
  return appendAll(setAttrs(document.createElement(tag), attrs), children);
}

/** An SVG element: svg('rect', {x: 1}, ...children). */
export function svg(tag, attrs, ...children) {
  return appendAll(setAttrs(document.createElementNS(SVG_NS, tag), attrs), children);
}
