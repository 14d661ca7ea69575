// The tenant's key-value data, the same that scripts read and write with ctx.kv.
import * as api from "../api.js";
import { debounce, field, fill, h, latestOnly, problemBox, toast } from "../dom.js";
import { json, when } from "../format.js";

export async function dataView(main) {
  const prefix = h("input", { type: "search", autocomplete: "off", placeholder: "e.g. customer:" });
  const list = h("div", { "aria-live": "polite" });
  const key = h("input", { type: "text", autocomplete: "off", spellcheck: false, class: "mono" });
  const value = h("textarea", { rows: "6", class: "mono", spellcheck: false });
  const formStatus = h("div", { "aria-live": "polite" });
  let cursor = null;

  const load = latestOnly(async (isLatest, more = false) => {
    try {
      const page = await api.get("/v1/kv", { prefix: prefix.value, limit: 50, cursor: more ? cursor : null });
      if (!isLatest()) return;
      cursor = page.next_cursor;
      const table = itemsTable(api.items(page));
      if (more) list.querySelector("tbody")?.append(...table.querySelectorAll("tbody tr"));
      else fill(list, table);
      list.querySelector(".more")?.remove();
      if (cursor) list.append(h("button", { type: "button", class: "secondary more", onclick: () => load(true) }, "More items"));
    } catch (error) {
      fill(list, problemBox(error));
    }
  });

  function edit(item) {
    key.value = item.key;
    value.value = JSON.stringify(item.value, null, 2);
    fill(formStatus);
    value.focus();
  }

  async function remove(item) {
    if (!confirm(`Delete “${item.key}”? Scripts will no longer see it.`)) return;
    try {
      await api.del(`/v1/kv/${encodeURIComponent(item.key)}`);
      toast(`Deleted ${item.key}.`);
      load();
    } catch (error) {
      toast(error.detail || error.message, "bad");
    }
  }

  async function save(event) {
    event.preventDefault();
    let parsed;
    try {
      parsed = JSON.parse(value.value);
    } catch (error) {
      return fill(formStatus, h("p", { class: "field-error", role: "alert" }, `The value is not JSON: ${error.message}. Text needs quotes, e.g. "hello".`));
    }
    try {
      await api.put(`/v1/kv/${encodeURIComponent(key.value.trim())}`, { value: parsed });
      fill(formStatus, h("p", { class: "good-text" }, `Saved ${key.value.trim()}.`));
      load();
    } catch (error) {
      fill(formStatus, problemBox(error));
    }
  }

  function itemsTable(items) {
    if (!items.length) return h("p", { class: "muted" }, prefix.value ? "No keys start with that." : "No data yet. Scripts create it with ctx.kv.set, or add an item here.");
    return h("table", { class: "list" },
      h("thead", {}, h("tr", {}, ["Key", "Value", "Updated", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, items.map((item) => h("tr", {},
        h("td", { class: "mono" }, item.key),
        h("td", {}, h("pre", { class: "value" }, json(item.value))),
        h("td", {}, when(item.updated_at)),
        h("td", { class: "row-actions needs-editor" },
          h("button", { type: "button", class: "secondary small", onclick: () => edit(item), "aria-label": `Edit ${item.key}` }, "Edit"),
          h("button", { type: "button", class: "danger small", onclick: () => remove(item), "aria-label": `Delete ${item.key}` }, "Delete"))))));
  }

  prefix.addEventListener("input", debounce(() => load(), 250));
  fill(main, h("h1", {}, "Data"),
    h("p", { class: "muted" }, "Your tenant's key-value data: scripts read and write it with ctx.kv."),
    h("div", { class: "columns" },
      h("section", { class: "card" }, h("h2", {}, "Items"), h("div", { class: "filters" }, field("Key prefix", prefix)), list),
      h("section", { class: "card needs-editor" }, h("h2", {}, "Add or change an item"),
        h("form", { onsubmit: save },
          field("Key", key),
          field("Value (JSON)", value, "Any JSON value: 3, \"text\", {\"a\": 1}, [1, 2]."),
          h("button", { type: "submit" }, "Save item")),
        formStatus)));
  key.required = true;
  await load();
}
