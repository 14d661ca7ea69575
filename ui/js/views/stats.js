// A rule's stats in words: cadence, lateness, and headroom against its limits, flagged at 80 %
// so a tenant hears about a rule outgrowing its timeout or memory before runs start to fail.
import { h } from "../dom.js";
import { ms } from "../format.js";

const WARN_PERCENT = 80;

/** 90 -> "1 min 30 s", 86400 -> "1 day". */
function seconds(value) {
  if (value === null || value === undefined) return null;
  const units = [[86400, "day"], [3600, "h"], [60, "min"], [1, "s"]];
  const parts = [];
  let rest = Math.round(value);
  for (const [size, name] of units) {
    const n = Math.floor(rest / size);
    if (n && parts.length < 2) parts.push(name === "day" ? `${n} day${n > 1 ? "s" : ""}` : `${n} ${name}`);
    rest -= n * size;
  }
  return parts.join(" ") || "0 s";
}

function percent(value) {
  if (value === null || value === undefined) return null;
  const text = `${value.toFixed(1)} %`;
  return value >= WARN_PERCENT ? h("span", { class: "bad-text" }, text, " — close to the limit") : text;
}

function skips(byReason) {
  const entries = Object.entries(byReason || {});
  return entries.length ? entries.map(([reason, n]) => `${reason}: ${n}`).join(", ") : "none";
}

/** [key, label, formatter]; keys the API adds later are listed after these, as they come. */
const STATS = [
  ["runs", "Runs recorded", String],
  ["configured_interval_s", "Configured interval", seconds],
  ["achieved_interval_s", "Achieved interval (median)", seconds],
  ["lateness_p50_ms", "Start lateness, median", ms],
  ["lateness_p95_ms", "Start lateness, p95", ms],
  ["run_time_share", "Run time as share of the interval", (v) => percent(v === null ? null : v * 100)],
  ["memory_p95_pct_of_limit", "Memory p95, of its limit", percent],
  ["duration_p95_pct_of_timeout", "Run time p95, of its timeout", percent],
  ["skips_by_reason", "Skipped occurrences", skips],
];

export function statsList(stats) {
  const known = new Set(STATS.map(([key]) => key));
  const rows = [...STATS, ...Object.keys(stats || {}).filter((k) => !known.has(k)).map((k) => [k, k.replace(/_/g, " "), JSON.stringify])];
  return h("dl", { class: "stats" }, rows.filter(([key]) => key in (stats || {})).flatMap(([key, label, format]) => {
    const value = stats[key] === null ? null : format(stats[key]);
    return [h("dt", {}, label), h("dd", {}, value ?? h("span", { class: "muted" }, "not enough runs yet"))];
  }));
}
