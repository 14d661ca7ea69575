// Backfill: run the occurrences a rule's schedule had in a past window (e.g. after an outage
// that the misfire policy skipped, or for a rule created after the fact).
import * as api from "../api.js";
import { field, fill, h, problemBox } from "../dom.js";

/** `<input type=datetime-local>` -> ISO instant, read in the viewer's zone like the browser shows it. */
const instant = (local) => (local ? new Date(local).toISOString() : "");

/** A folded form on the rule page; `done()` after the runs are planned. */
export function backfillForm(ruleId, done) {
  const start = h("input", { type: "datetime-local", step: "60", required: true });
  const end = h("input", { type: "datetime-local", step: "60", required: true });
  const status = h("div", { "aria-live": "polite" });

  async function submit(event) {
    event.preventDefault();
    try {
      const planned = api.items(await api.post(`/v1/rules/${encodeURIComponent(ruleId)}/backfill`, { start: instant(start.value), end: instant(end.value) }));
      fill(status, h("p", { class: "good-text" }, planned.length ? `${planned.length} runs planned; they appear in the timeline.` : "The schedule had no occurrences in that window."));
      done();
    } catch (error) {
      fill(status, problemBox(error));
    }
  }

  return h("details", { class: "backfill needs-editor" },
    h("summary", {}, "Backfill: run the occurrences of a past window"),
    h("form", { onsubmit: submit, class: "row" },
      field("From (your time)", start), field("Until (your time)", end),
      h("button", { type: "submit", class: "secondary" }, "Plan the runs")),
    status);
}
