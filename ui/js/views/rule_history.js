// A rule's history: every saved version (newest first), the field-level diff of each with the
// one before, and a rollback (confirmed) that makes an old version current again as a new one.
import * as api from "../api.js";
import { fill, h, problemBox, toast } from "../dom.js";
import { json, when } from "../format.js";

const PAGE_SIZE = 200;

async function allVersions(path) {
  const found = [];
  let cursor = null;
  do {
    const page = await api.get(`${path}/versions`, { limit: PAGE_SIZE, cursor });
    found.push(...api.items(page));
    cursor = page.next_cursor;
  } while (cursor);
  return found;
}

export async function ruleHistory(main, ruleId) {
  const path = `/v1/rules/${encodeURIComponent(ruleId)}`;
  const list = h("ol", { class: "feed versions" });
  const status = h("div", { "aria-live": "polite" });
  let rule;

  async function load() {
    try {
      const [current, versions] = await Promise.all([api.get(path), allVersions(path)]);
      rule = current;
      fill(list, versions.reverse().map(entry));
      fill(status, versions.length ? null : h("p", { class: "muted" }, "No versions kept (the rule predates its history)."));
    } catch (error) {
      fill(status, problemBox(error));
    }
  }

  async function rollback(version) {
    if (!confirm(`Roll back “${rule.name}” to version ${version}? This saves it as a new version; its pending run is planned again.`)) return;
    try {
      await api.request("POST", `${path}/rollback`, { body: { version }, ifMatch: `"${rule.version}"` });
      toast(`Rolled back to version ${version}.`);
      await load();
    } catch (error) {
      toast(error.detail || error.message, "bad");
    }
  }

  async function showDiff(version, box) {
    try {
      const diff = await api.get(`${path}/versions/${version}/diff`);
      fill(box, diffTable(diff));
    } catch (error) {
      fill(box, problemBox(error));
    }
  }

  function entry(v) {
    const box = h("div");
    const isCurrent = v.version === rule.version;
    return h("li", { class: "event version" },
      h("div", { class: "event-head" },
        h("strong", {}, `Version ${v.version}`),
        isCurrent ? h("span", { class: "badge good" }, "current") : null,
        v.definition.enabled ? null : h("span", { class: "badge skip" }, "paused"),
        h("span", { class: "muted small" }, when(v.created_at))),
      h("div", { class: "small mono" }, v.definition.schedule, " · ", v.definition.timezone),
      h("div", { class: "row-actions" },
        v.version > 1 ? h("button", { type: "button", class: "secondary small", onclick: () => showDiff(v.version, box) }, `Changes in version ${v.version}`) : null,
        isCurrent ? null : h("button", { type: "button", class: "small needs-editor", onclick: () => rollback(v.version) }, `Roll back to version ${v.version}`)),
      box);
  }

  fill(main, h("h1", {}, "Rule history"),
    h("p", {}, h("a", { href: `#/rules/${encodeURIComponent(ruleId)}` }, "← Back to the rule")),
    h("p", { class: "muted" }, "Every save of this rule (create, edit, pause, resume, rollback) is a version. A rollback saves an old version again as the newest."),
    status, list);
  await load();
}

function diffTable(diff) {
  if (!diff.changes.length) return h("p", { class: "muted small" }, "Nothing changed.");
  return h("table", { class: "list diff" },
    h("caption", {}, `Version ${diff.from_version} → ${diff.to_version}`),
    h("thead", {}, h("tr", {}, h("th", {}, "Field"), h("th", {}, "Before"), h("th", {}, "After"))),
    h("tbody", {}, diff.changes.map((c) => h("tr", {},
      h("td", {}, c.field), h("td", { class: "removed" }, text(c.before)), h("td", { class: "added" }, text(c.after))))));
}

const text = (value) => (typeof value === "string" ? value : json(value));
