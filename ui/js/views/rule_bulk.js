// Pause, resume or delete every rule the list's filters select: a dry run first, whose count
// the confirmation dialog shows, then the real call with the very same filters.
import * as api from "../api.js";
import { h, problemBox, toast } from "../dom.js";

const SHOWN_IDS = 10;
const VERBS = { pause: "Pause", resume: "Resume", delete: "Delete" };
const DONE = { pause: "Paused", resume: "Resumed", delete: "Deleted" };

const plural = (n) => `${n} rule${n === 1 ? "" : "s"}`;

/** The bulk buttons; `filters()` gives the list's query, `done()` reloads it. */
export function bulkActions(filters, done) {
  const dialog = h("dialog", { class: "bulk-dialog", "aria-labelledby": "bulk-title" });
  const buttons = Object.entries(VERBS).map(([operation, verb]) =>
    h("button", { type: "button", class: operation === "delete" ? "danger small" : "secondary small", onclick: () => ask(operation) }, `${verb} all shown…`));

  async function ask(operation) {
    const query = filters();
    let counted;
    try {
      counted = await send(operation, query, true);
    } catch (error) {
      return toast(error.detail || error.message, "bad");
    }
    dialog.replaceChildren(...confirmation(operation, query, counted));
    dialog.showModal();
  }

  function confirmation(operation, query, counted) {
    const title = h("h2", { id: "bulk-title" }, `${VERBS[operation]} ${plural(counted.count)}?`);
    if (!counted.count) {
      return [title, h("p", {}, `No rule shown would change: nothing to ${operation}.`),
        h("div", { class: "actions" }, h("button", { type: "button", onclick: () => dialog.close() }, "Close"))];
    }
    const more = counted.count - Math.min(counted.ids.length, SHOWN_IDS);
    const result = h("div", { "aria-live": "polite" });
    const confirm = h("button", { type: "button", class: operation === "delete" ? "danger" : "", onclick: () => run(operation, query, result) },
      `${VERBS[operation]} ${plural(counted.count)}`);
    return [title,
      h("p", {}, operation === "delete" ? "Their past runs stay readable; this cannot be undone." : "Each becomes a new version."),
      h("ul", { class: "mono small" }, counted.ids.slice(0, SHOWN_IDS).map((id) => h("li", {}, id)), more > 0 ? h("li", {}, `and ${more} more`) : null),
      result,
      h("div", { class: "actions" }, confirm, h("button", { type: "button", class: "secondary", onclick: () => dialog.close() }, "Cancel"))];
  }

  async function run(operation, query, result) {
    try {
      const answer = await send(operation, query, false);
      dialog.close();
      toast(`${DONE[operation]} ${plural(answer.count)}`);
      done();
    } catch (error) {
      result.replaceChildren(problemBox(error));
    }
  }

  return h("div", { class: "bulk actions needs-editor", role: "group", "aria-label": "Bulk actions" }, buttons, dialog);
}

function send(operation, query, dryRun) {
  return api.request("POST", "/v1/rules/bulk", { query, body: { operation, dry_run: dryRun } }).then((r) => r.data);
}
