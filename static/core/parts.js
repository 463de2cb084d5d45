// The page's parts that live in index.html's body: the elements app.js drives (Run, Mặc định, Dừng,
// the status line, the form), the page address, the constants' controls and the output panels.
// app.js makes them once when the page opens, and again on a fresh copy of the body when the visitor
// switches language (the page is mounted again in the other language; Python keeps running).
// Leaves out: what the parts do (controls.js, panels.js, address.js) and the store they share.

import { createAddress } from './address.js';
import { createControls } from './controls.js';
import { createPanels } from './panels.js';

const byId = (id) => document.getElementById(id);

/** {el, address, controls, panels} on the current document's body; loadCharts: the charts' loader (app.js). */
export function createParts(store, loadCharts) {
  const el = {
    form: byId('controls'),
    run: document.querySelector('[data-action="run"]'),
    reset: document.querySelector('[data-action="reset"]'),
    stop: document.querySelector('[data-action="stop"]'),
    actionNote: byId('action-note'),
    status: byId('status'),
  };
  const controls = createControls({ form: el.form, headline: byId('fields-headline'), advanced: byId('fields-advanced'),
    advancedFold: byId('advanced') }, store);
  const panels = createPanels({
    status: el.status, statusText: byId('status-text'), statusDetail: byId('status-detail'), progress: byId('status-progress'),
    pageError: byId('page-error'), verdict: byId('verdict'), summaryLines: byId('summary-lines'), checks: byId('checks'),
    checksList: byId('checks-list'), versions: byId('versions'), jump: byId('jump'), runHeader: byId('run-header'),
  }, loadCharts);
  return { el, address: createAddress(), controls, panels };
}
