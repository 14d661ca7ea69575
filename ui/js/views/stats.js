// A rule's stats as a readable list; headroom over 80 % of a limit is flagged before it bites.
import { h } from "../dom.js";

const WARN_PERCENT = 80;

const label = (key) => key.replace(/_/g, " ").replace(/\bms\b/, "(ms)").replace(/\bpct\b|\bpercent\b/, "(%)").replace(/\bs\b$/, "(s)");

function value(key, v) {
  if (v === null || v === undefined) return h("span", { class: "muted" }, "not enough runs yet");
  if (typeof v === "number") {
    const text = Number.isInteger(v) ? String(v) : v.toFixed(2);
    const isHeadroom = /pct|percent|share/.test(key);
    return h("span", { class: isHeadroom && v >= WARN_PERCENT ? "bad-text" : "" }, isHeadroom ? `${text} %` : text, isHeadroom && v >= WARN_PERCENT ? " — close to the limit" : "");
  }
  if (typeof v === "object") return statsList(v);
  return String(v);
}

/** Every stat the API reports, nested objects as nested lists. */
export function statsList(stats) {
  const entries = Object.entries(stats || {});
  if (!entries.length) return h("p", { class: "muted" }, "No runs yet.");
  return h("dl", { class: "stats" }, entries.flatMap(([k, v]) => [h("dt", {}, label(k)), h("dd", {}, value(k, v))]));
}
