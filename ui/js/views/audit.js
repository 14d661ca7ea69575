// The audit log (admin keys): who changed what, through which route, when; filterable, paged.
import * as api from "../api.js";
import { field, fill, h, latestOnly, problemBox } from "../dom.js";
import { when } from "../format.js";

const KINDS = ["", "rule", "calendar", "action", "key", "secret", "data", "webhook", "allow-list", "settings", "tenant", "grant"];
const PAGE_SIZE = 50;

/** An <input type=datetime-local> value as an instant with the browser's offset, or null. */
const instant = (value) => (value ? new Date(value).toISOString() : null);

export async function auditView(main) {
  const kind = h("select", { name: "object_kind" }, KINDS.map((k) => h("option", { value: k }, k || "any object")));
  const objectId = h("input", { type: "text", name: "object_id", placeholder: "r_…, a data key, a secret name", maxlength: 300 });
  const actor = h("input", { type: "text", name: "actor", placeholder: "k_… or operator", maxlength: 40 });
  const since = h("input", { name: "since", type: "datetime-local" });
  const until = h("input", { name: "until", type: "datetime-local" });
  const list = h("ol", { class: "feed audit" });
  const status = h("div", { "aria-live": "polite" });
  const more = h("div", { class: "pager" });
  let cursor = null;

  const load = latestOnly(async (isLatest, next = false) => {
    const query = {
      object_kind: kind.value, object_id: objectId.value.trim(), actor: actor.value.trim(),
      since: instant(since.value), until: instant(until.value), limit: PAGE_SIZE, cursor: next ? cursor : null,
    };
    try {
      const page = await api.get("/v1/audit", query);
      if (!isLatest()) return;
      const rows = api.items(page).map(entry);
      if (next) list.append(...rows);
      else fill(list, rows);
      cursor = page.next_cursor;
      fill(status, list.children.length ? null : h("p", { class: "muted empty" }, "No changes match these filters."));
      fill(more, cursor ? h("button", { type: "button", class: "secondary", onclick: () => load(true) }, "Next page") : null);
    } catch (error) {
      fill(status, problemBox(error));
    }
  });

  const form = h("form", { class: "filters", onsubmit: (e) => (e.preventDefault(), load()) },
    field("Object", kind), field("Object id", objectId), field("Actor", actor),
    field("Since", since), field("Until", until),
    h("div", { class: "field" }, h("button", { type: "submit" }, "Filter")));
  kind.addEventListener("change", () => load());
  fill(main, h("h1", {}, "Audit log"),
    h("p", { class: "muted" }, "Every change made in this tenant through the API, oldest first: who (key prefix or the operator), which route, which object. Rows are never changed or removed; digests prove what changed without showing a value."),
    form, status, list, more);
  await load();
}

function entry(row) {
  const who = row.actor === "operator" ? "operator" : `${row.actor_prefix}… (${row.actor})`;
  return h("li", { class: "event audit-entry" },
    h("div", { class: "event-head" },
      h("span", { class: "badge none" }, row.method),
      h("strong", {}, `${row.object_kind} ${row.object_id}`),
      h("span", { class: "muted small" }, when(row.at))),
    h("div", { class: "small" }, "by ", h("code", {}, who), " via ", h("code", {}, row.route)),
    h("div", { class: "small muted digest" },
      `request ${row.request_id} · digest ${row.before_digest ? row.before_digest.slice(0, 12) : "—"} → ${row.after_digest.slice(0, 12)}`));
}
