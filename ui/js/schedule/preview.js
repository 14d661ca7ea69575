// The live preview: schedule text + zone -> plain English, next dates in two zones, warnings.
import * as api from "../api.js";
import { debounce, fill, h } from "../dom.js";
import { viewerZone, when } from "../format.js";

const COUNT = 10;

/** A preview panel; `update(schedule, zone, dst)` refreshes it after a pause in typing
 *  (`dst` is {dst_gap, dst_repeat}).
 *  `onProblem(error|null)` lets the form show a validation error at its field. */
export function previewPanel(onProblem) {
  const text = h("p", { class: "schedule-text", "aria-live": "polite" });
  const body = h("div");
  const element = h("section", { class: "preview card", "aria-labelledby": "preview-title" },
    h("h2", { id: "preview-title" }, "Preview"), text, body);
  let sequence = 0;

  async function refresh(schedule, zone, dst = {}) {
    const mine = ++sequence;
    if (!schedule.trim()) {
      fill(text, "Describe when the rule should run.");
      fill(body);
      return onProblem(null);
    }
    element.setAttribute("aria-busy", "true");
    try {
      const data = await api.post("/v1/preview", { schedule, timezone: zone || "UTC", count: COUNT, ...dst });
      if (mine !== sequence) return;
      onProblem(null);
      show(data, zone || "UTC");
    } catch (error) {
      if (mine !== sequence) return;
      const entry = api.fieldErrors(error)[0];
      fill(text, h("span", { class: "bad-text" }, "No preview: ", entry ? `${entry.field} — ${entry.message}` : error.detail || error.message));
      fill(body);
      onProblem(error);
    } finally {
      if (mine === sequence) element.removeAttribute("aria-busy");
    }
  }

  function show(data, zone) {
    fill(text, data.text);
    const notes = new Map((data.notes || []).map((n) => [n.at, n.note]));
    const other = zone !== viewerZone;
    const rows = (data.occurrences || []).map((at, i) =>
      h("tr", {}, h("td", {}, i + 1), h("td", {}, when(at, zone)), other && h("td", {}, when(at, viewerZone)), h("td", { class: "note" }, notes.get(at) || "")));
    const table = rows.length
      ? h("table", { class: "dates" },
          h("caption", {}, `Next ${rows.length} runs`),
          h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, `In ${zone}`),
            other && h("th", { scope: "col" }, `Your time (${viewerZone})`), h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Note")))),
          h("tbody", {}, rows))
      : h("p", { class: "muted" }, "This schedule has no future runs.");
    const ends = data.finite && data.ends ? h("p", { class: "muted" }, `Last run: ${when(data.ends, zone)}`) : null;
    const warnings = (data.warnings || []).length
      ? h("ul", { class: "warnings", "aria-label": "Warnings" }, data.warnings.map((w) => h("li", {}, w)))
      : null;
    const skipped = (data.skipped || []).length
      ? h("ul", { class: "skipped", "aria-label": "Skipped by calendars" }, data.skipped.map((s) => h("li", {}, `${when(s.at, zone)} — ${s.note}`)))
      : null;
    fill(body, warnings, table, skipped, ends);
  }

  const update = debounce(refresh, 300);
  return { element, update, refreshNow: refresh };
}
