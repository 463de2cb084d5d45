// The constants' controls, built from describe() (labels, help, bounds, defaults all come from the
// engine's schema): headline constants in the first fieldset, the rest in the "Nâng cao" fold.
// Reads them into a config (parsing in static/core/fields.js), and shows an error beside the control it
// is about (data-error-for); an error about a field with no control (a request cell) goes to
// whichever tool answers the store's 'fieldError' event (the request editor).
// Leaves out: running (static/app.js) and the request table (static/tools/editor.js).

import { make } from './dom.js';
import { boundsText, clockDefault, formatValue, parseValue, splitFields, stepValue } from './fields.js';
import { t } from '../words/i18n.js';

// el: {form, headline, advanced (the fields' box), advancedFold (<details>)}
export function createControls(el, store) {
  const fields = () => store.get().fields;

  function build(schema) {
    const { fields: all, headline, advanced } = splitFields(schema);
    store.set({ fields: all });
    el.headline.replaceChildren(...headline.map(buildField));
    el.advanced.replaceChildren(...advanced.map(buildField));
    el.advancedFold.hidden = advanced.length === 0;
  }

  function buildField(field) {
    const id = 'c-' + field.name;
    const wrap = make('div', { class: 'field', 'data-field': field.name });
    const label = make('label', { for: id });
    const text = field.label || field.name;
    label.append(make('span', { class: 'label-text' }, text));
    if (!text.includes(field.name)) label.append(' ', make('code', {}, field.name));
    const bounds = boundsText(field);
    const helpParts = [field.help, bounds && (t('controls.value', { bounds }))].filter(Boolean);
    const help = make('p', { class: 'help', id: id + '-help' }, helpParts.join(' '));
    let control;
    if (field.type === 'choice') {
      control = make('select', { id, name: field.name });
      for (const choice of field.choices || []) control.append(make('option', { value: choice }, choice));
    } else {
      control = make('input', {
        id, name: field.name, type: 'text', autocomplete: 'off', spellcheck: 'false',
        inputmode: field.type === 'int' && !(field.min < 0) ? 'numeric' : 'decimal',
      });
      control.addEventListener('keydown', (event) => {
        if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return;
        const next = stepValue(field, event.target.value, event.key === 'ArrowUp' ? 1 : -1);
        if (next === null) return;
        event.preventDefault();
        event.target.value = next;
        setFieldError(field.name, null);
      });
    }
    control.dataset.constant = field.name;
    control.setAttribute('aria-describedby', help.id);
    control.value = formatValue(field.default);
    control.addEventListener('input', () => setFieldError(field.name, null));
    if (field.name === 'CLOCK') control.addEventListener('change', () => applyClockDefaults(control.value));
    wrap.append(label, control, help);
    return wrap;
  }

  // CLOCK changed: the fields with a roofline default still at the other clock's default follow it.
  function applyClockDefaults(clock) {
    for (const field of fields()) {
      const control = controlFor(field.name);
      const next = control && clockDefault(field, clock, control.value);
      if (next !== null && next !== undefined) control.value = next;
    }
  }

  function controlFor(name) {
    return el.form.querySelector('[data-constant="' + CSS.escape(name) + '"]');
  }

  // The message beside the field's control (null clears it). Returns true, or for a field with no
  // control the element a tool put it beside (false when none did).
  function setFieldError(name, message) {
    const control = controlFor(name);
    if (!control) return store.emit('fieldError', name, message).reduce((placed, got) => got || placed, null) || false;
    const wrap = control.closest('.field');
    const old = wrap.querySelector('[data-error-for]');
    if (old) old.remove();
    const describedBy = control.id + '-help';
    if (!message) {
      control.removeAttribute('aria-invalid');
      control.setAttribute('aria-describedby', describedBy);
      return true;
    }
    const error = make('p', { class: 'field-error', id: control.id + '-error', 'data-error-for': name }, message);
    wrap.append(error);
    control.setAttribute('aria-invalid', 'true');
    control.setAttribute('aria-describedby', describedBy + ' ' + error.id);
    return true;
  }

  function clearFieldErrors() {
    for (const field of fields()) setFieldError(field.name, null);
    store.emit('clearErrors');
  }

  // Shows the errors beside their controls and focuses the first; returns those nobody placed.
  function showFieldErrors(errors) {
    const unplaced = [];
    let first = null;
    for (const err of errors) {
      const placed = setFieldError(err.field, err.message); // true, or the editor cell it went beside
      if (placed) first = first || controlFor(err.field) || placed;
      else unplaced.push(err);
    }
    if (first) {
      openAdvanced(first);
      first.focus();
    }
    return unplaced;
  }

  // {config, errors}: every control parsed; tools add their part on the 'config' event.
  function readConfig() {
    const config = {};
    const errors = [];
    for (const field of fields()) {
      const parsed = parseValue(field, controlFor(field.name).value);
      if (parsed.error) errors.push({ field: field.name, message: parsed.error });
      else config[field.name] = parsed.value;
    }
    store.emit('config', config, errors);
    return { config, errors };
  }

  function resetValues() {
    for (const field of fields()) controlFor(field.name).value = formatValue(field.default);
  }

  function openAdvanced(node) {
    if (node && el.advancedFold.contains(node)) el.advancedFold.open = true;
  }

  // A choice field (FOLLOW) whose choices follow the request trace; keeps its value when still a choice.
  function setChoices(name, choices) {
    const field = fields().find((f) => f.name === name);
    const control = controlFor(name);
    if (!field || !control || control.tagName !== 'SELECT') return;
    const current = control.value;
    field.choices = choices.slice();
    const shown = Array.from(control.options, (option) => option.value);
    if (shown.length === choices.length && shown.every((value, i) => value === choices[i])) return;   // unchanged
    control.replaceChildren(...choices.map((choice) => make('option', { value: choice }, choice)));
    if (choices.includes(current)) control.value = current;
  }

  // Puts a tool's node into the form, before the "Nâng cao" fold (the request table goes there).
  function insert(node) {
    if (el.advancedFold.parentNode === el.form) el.form.insertBefore(node, el.advancedFold);
    else el.form.append(node);
  }

  return {
    build, controlFor, setFieldError, clearFieldErrors, showFieldErrors, readConfig, resetValues, openAdvanced,
    setChoices, insert,
  };
}
