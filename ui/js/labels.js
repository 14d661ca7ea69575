// Labels as people type them ("team=ops, env=prod") and as the API takes them ({team: "ops"}).
import { h } from "./dom.js";

/** The terms of a comma- or space-separated text: "team=ops, env" -> ["team=ops", "env"]. */
export function terms(text) {
  return String(text || "").split(/[\s,]+/).filter(Boolean);
}

/** A rule's labels from their text; a term without "=" is a label with an empty value. The
 *  server checks keys and values and names a bad one (`labels.<key>`). */
export function parseLabels(text) {
  const labels = {};
  for (const term of terms(text)) {
    const at = term.indexOf("=");
    if (at < 0) labels[term] = "";
    else labels[term.slice(0, at)] = term.slice(at + 1);
  }
  return labels;
}

/** The text of a rule's labels, as `parseLabels` reads it back. */
export function formatLabels(labels) {
  return Object.entries(labels || {}).map(([k, v]) => (v ? `${k}=${v}` : k)).join(", ");
}

/** Each label as a small chip. */
export function labelChips(labels) {
  const entries = Object.entries(labels || {});
  if (!entries.length) return null;
  return h("ul", { class: "labels" },
    entries.map(([k, v]) => h("li", { class: "label-chip" }, v ? `${k}=${v}` : k)));
}
