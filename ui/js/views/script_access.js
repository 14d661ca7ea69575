// What the tenant lends its scripts: secrets (write-only: a value goes in and never comes back),
// the origins ctx.http may call, and the capabilities of the product ctx.call may call.
import * as api from "../api.js";
import { field, fill, h, problemBox, toast } from "../dom.js";
import { when } from "../format.js";

export async function showSecrets(section) {
  const name = h("input", { type: "text", maxlength: "64", autocomplete: "off", pattern: "[A-Za-z][A-Za-z0-9_.\\-]*" });
  const value = h("input", { type: "password", minlength: "8", maxlength: "4096", autocomplete: "new-password" });
  const list = h("div");
  const status = h("div", { "aria-live": "polite" });
  async function load() {
    try {
      fill(list, secretsTable(await api.get("/v1/secrets"), remove));
    } catch (error) {
      fill(list, problemBox(error));
    }
  }
  async function save(event) {
    event.preventDefault();
    try {
      const saved = await api.put(`/v1/secrets/${encodeURIComponent(name.value.trim())}`, { value: value.value });
      value.value = "";
      fill(status, h("p", { class: "good-text" }, `Secret ${saved.name} saved. Its value cannot be shown again.`));
      name.value = "";
      load();
    } catch (error) {
      fill(status, problemBox(error));
    }
  }
  async function remove(secret) {
    if (!confirm(`Delete the secret “${secret.name}”? Scripts reading it get nothing from now on.`)) return;
    try {
      await api.del(`/v1/secrets/${encodeURIComponent(secret.name)}`);
      load();
    } catch (error) {
      toast(error.detail || error.message, "bad");
    }
  }
  fill(section, h("h2", {}, "Secrets"),
    h("p", { class: "muted" }, "Scripts read them with ctx.secrets.get(name), or put them in HTTP headers with ctx.secret_ref(name). Values are write-only and redacted from runs."),
    list,
    h("form", { onsubmit: save, class: "row needs-admin" },
      field("Secret name", name), field("Secret value", value, "At least 8 characters; never shown again."),
      h("button", { type: "submit" }, "Save secret")),
    status);
  await load();
}

function secretsTable(secrets, remove) {
  if (!secrets.length) return h("p", { class: "muted empty" }, "No secrets yet.");
  return h("table", { class: "list" },
    h("thead", {}, h("tr", {}, ["Name", "Set", ""].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, secrets.map((s) => h("tr", {},
      h("td", { class: "mono" }, s.name), h("td", {}, when(s.updated_at)),
      h("td", {}, h("button", { type: "button", class: "danger small needs-admin", "aria-label": `Delete ${s.name}`, onclick: () => remove(s) }, "Delete"))))));
}

export async function showAllowList(section) {
  const entries = h("textarea", { rows: "4", class: "mono", spellcheck: "false" });
  const status = h("div", { "aria-live": "polite" });
  const schemes = h("p", { class: "muted" });
  async function save(event) {
    event.preventDefault();
    try {
      const lines = entries.value.split("\n").map((l) => l.trim()).filter(Boolean);
      const data = await api.put("/v1/http-allowlist", { entries: lines });
      entries.value = data.entries.join("\n");
      fill(status, h("p", { class: "good-text" }, data.entries.length ? `Scripts may call ${data.entries.length} origin(s).` : "Scripts may call nothing."));
    } catch (error) {
      fill(status, problemBox(error));
    }
  }
  try {
    const data = await api.get("/v1/http-allowlist");
    entries.value = data.entries.join("\n");
    fill(schemes, `The operator allows ${data.schemes.join(", ")}; private and local addresses are refused.`);
  } catch (error) {
    fill(status, problemBox(error));
  }
  fill(section, h("h2", {}, "HTTP allow-list"),
    h("form", { onsubmit: save, novalidate: true },
      field("Allowed origins", entries, "One per line: https://api.example.com or https://*.example.com"),
      h("div", { class: "actions needs-admin" }, h("button", { type: "submit" }, "Save allow-list"))),
    schemes, status);
}

/** The capabilities the operator granted this tenant (read-only here), each with its schema. */
export async function showCapabilities(section) {
  let body;
  try {
    const granted = await api.get("/v1/capabilities");
    body = granted.length ? capabilitiesTable(granted)
      : h("p", { class: "muted empty" }, "No capabilities granted: the operator grants them.");
  } catch (error) {
    body = problemBox(error);
  }
  fill(section, h("h2", {}, "Capabilities"),
    h("p", { class: "muted" }, "Scripts call them with ctx.call(name, args); the arguments must match the schema."),
    body);
}

function capabilitiesTable(capabilities) {
  return h("table", { class: "list capabilities" },
    h("thead", {}, h("tr", {}, ["Name", "What it does", "Arguments (JSON Schema)", "Largest answer"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, capabilities.map((c) => h("tr", {},
      h("td", { class: "mono" }, c.name), h("td", {}, c.description || "—"),
      h("td", {}, h("details", {}, h("summary", {}, "schema"), h("pre", { class: "mono" }, JSON.stringify(c.args_schema, null, 2)))),
      h("td", {}, `${c.max_answer_bytes} bytes`)))));
}
