// Tiny DOM helpers: build elements from data, never from HTML strings (no injection).

/** h("a", {href: "#"}, "text", child) -> element; attributes starting with "on" add listeners. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (name === "class") el.className = value;
    else if (name in el && typeof value !== "string") el[name] = value;
    else el.setAttribute(name, value === true ? "" : value);
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

let uid = 0;
/** A fresh id for label/input pairs. */
export const newId = (prefix = "f") => `${prefix}-${++uid}`;

/** A labelled control: <div class="field"><label>..</label>control<small help></small></div>. */
export function field(labelText, control, help = "") {
  control.id ||= newId();
  const parts = [h("label", { for: control.id }, labelText), control];
  if (help) {
    const helpEl = h("small", { class: "help", id: newId("help") }, help);
    control.setAttribute("aria-describedby", helpEl.id);
    parts.push(helpEl);
  }
  return h("div", { class: "field" }, parts);
}

/** Replace the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

const shownData = new WeakMap();

/** Fill `el` with `render(data)` unless it already shows the same data: a page that refreshes
 *  itself does not close what the user opened or move their focus when nothing changed. */
export function fillWhenChanged(el, data, render) {
  const key = JSON.stringify(data);
  if (shownData.get(el) === key) return;
  shownData.set(el, key);
  fill(el, render(data));
}

/** Wrap an async loader so that only the answer to the latest call is shown: a slow answer to
 *  an older filter never overwrites a newer one. `load(isLatest)` checks before it renders. */
export function latestOnly(load) {
  let sequence = 0;
  return (...args) => {
    const mine = ++sequence;
    return load(() => mine === sequence, ...args);
  };
}

/** Call `fn` once `ms` have passed without another call. */
export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

const MAX_TOASTS = 2;
const TOAST_MS = 4000;

/** A short message in the corner that screen readers announce. */
export function toast(message, kind = "ok") {
  const box = document.getElementById("toasts");
  const el = h("div", { class: `toast ${kind}` }, message);
  box.append(el);
  while (box.children.length > MAX_TOASTS) box.firstChild.remove();
  setTimeout(() => el.remove(), TOAST_MS);
}

/** A one-line error block for a failed request. */
export function problemBox(error) {
  return h("div", { class: "problem", role: "alert" }, h("strong", {}, error.title || "Error"), " ", error.detail || error.message || "");
}
