// Calendars: named sets of dates the tenant's rules skip (e.g. public holidays), and which
// rules use each. Saving a calendar re-plans those rules at once.
import * as api from "../api.js";
import { field, fill, h, problemBox, toast } from "../dom.js";
import { when } from "../format.js";
import { pagedTable } from "../pages.js";

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** "2026-12-25, 2026-12-26" or one per line -> sorted unique ISO dates; throws naming a bad one. */
export function parseDates(text, label) {
  const parts = text.split(/[\s,;]+/).filter(Boolean);
  const bad = parts.find((p) => !DATE.test(p));
  if (bad) throw new api.ApiError({ title: "Invalid date", detail: `${label}: “${bad}” is not a date; write YYYY-MM-DD, e.g. 2026-12-25.` }, 0);
  return [...new Set(parts)].sort();
}

export async function calendarsView(main) {
  const list = h("div", { "aria-live": "polite" });
  const name = h("input", { type: "text", required: true, maxlength: "100", autocomplete: "off", pattern: "[A-Za-z0-9][A-Za-z0-9 _.\\-]*" });
  const description = h("input", { type: "text", maxlength: "2000" });
  const excluded = h("textarea", { rows: "6", class: "mono", spellcheck: false, placeholder: "2026-12-25\n2026-12-26" });
  const included = h("textarea", { rows: "3", class: "mono", spellcheck: false });
  const status = h("div", { "aria-live": "polite" });

  const { load } = pagedTable(list, {
    path: "/v1/calendars",
    table: calendarsTable,
    row: calendarRow,
    empty: "No calendars yet. Add one, then name it in a rule's “Calendars” field.",
    moreText: "More calendars",
  });

  function calendarsTable(rows) {
    return h("table", { class: "list calendars" },
      h("thead", {}, h("tr", {}, ["Name", "Dates", "Used by", "Updated", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows));
  }

  function calendarRow(c) {
    const dates = `${c.excluded.length} excluded` + (c.included.length ? `, only ${c.included.length} included` : "");
    const users = c.rules.length ? c.rules.map((r) => h("a", { href: `#/rules/${r.id}` }, r.name)) : h("span", { class: "muted" }, "no rule");
    return h("tr", {},
      h("th", { scope: "row" }, c.name, c.description ? h("div", { class: "muted small" }, c.description) : null),
      h("td", {}, dates),
      h("td", { class: "users" }, users),
      h("td", {}, when(c.updated_at)),
      h("td", { class: "row-actions needs-editor" },
        h("button", { type: "button", class: "secondary small", onclick: () => edit(c), "aria-label": `Edit ${c.name}` }, "Edit"),
        h("button", { type: "button", class: "danger small", onclick: () => remove(c), "aria-label": `Delete ${c.name}` }, "Delete")));
  }

  function edit(c) {
    name.value = c.name;
    description.value = c.description;
    excluded.value = c.excluded.join("\n");
    included.value = c.included.join("\n");
    fill(status);
    excluded.focus();
  }

  async function remove(c) {
    if (!confirm(`Delete calendar “${c.name}”?`)) return;
    try {
      await api.del(`/v1/calendars/${encodeURIComponent(c.name)}`);
      toast(`Deleted ${c.name}.`);
      load();
    } catch (error) {
      toast(error.detail || error.message, "bad");
    }
  }

  async function save(event) {
    event.preventDefault();
    try {
      const body = { description: description.value, excluded: parseDates(excluded.value, "Excluded dates"), included: parseDates(included.value, "Included dates") };
      const saved = await api.put(`/v1/calendars/${encodeURIComponent(name.value.trim())}`, body);
      const replanned = saved.rules.length ? ` ${saved.rules.length} rule(s) using it were re-planned.` : "";
      fill(status, h("p", { class: "good-text" }, `Saved ${saved.name}.${replanned}`));
      load();
    } catch (error) {
      fill(status, problemBox(error));
    }
  }

  fill(main, h("h1", {}, "Calendars"),
    h("p", { class: "muted" }, "Dates your rules skip, such as public holidays. A rule names its calendars; its runs on those dates (in the rule's time zone) are skipped."),
    h("div", { class: "columns" },
      h("section", { class: "card" }, h("h2", {}, "Your calendars"), list),
      h("section", { class: "card needs-editor" }, h("h2", {}, "Add or change a calendar"),
        h("form", { onsubmit: save },
          field("Calendar name", name, "Letters, digits, spaces, _ . - (e.g. Holidays DE)."),
          field("Description (optional)", description),
          field("Excluded dates", excluded, "One date per line (YYYY-MM-DD): rules using this calendar do not run on them."),
          field("Included dates (optional)", included, "When given, rules using this calendar run only on these dates."),
          h("button", { type: "submit" }, "Save calendar")),
        status)));
  await load();
}
