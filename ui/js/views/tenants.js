// The operator's view: every tenant, create / suspend / resume, and opening one with its key.
import * as api from "../api.js";
import { field, fill, h, problemBox, toast } from "../dom.js";
import { when } from "../format.js";
import { navigate, query } from "../router.js";
import * as session from "../session.js";
import { secretOnce } from "./settings.js";
import { useTenantKey } from "./signin.js";

export async function tenantsView(main) {
  const list = h("div");
  const status = h("div", { "aria-live": "polite" });
  const name = h("input", { type: "text", autocomplete: "off", pattern: "[A-Za-z0-9][A-Za-z0-9._-]*" });

  async function load() {
    try {
      const tenants = api.items(await api.get("/v1/admin/tenants", { limit: 200 }));
      fill(list, tenantsTable(tenants, load));
      const open = query().get("open");
      if (open) list.querySelector(`[data-tenant="${CSS.escape(open)}"] input`)?.focus();
    } catch (error) {
      fill(list, problemBox(error));
    }
  }

  async function create(event) {
    event.preventDefault();
    try {
      const t = await api.post("/v1/admin/tenants", { name: name.value.trim() });
      const s = session.current();
      session.update({ keys: { ...(s.keys || {}), [t.id]: t.api_key } });
      fill(status, secretOnce(`First admin key of ${t.name}`, t.api_key));
      name.value = "";
      load();
    } catch (error) {
      fill(status, problemBox(error));
    }
  }

  fill(main, h("h1", {}, "Tenants"),
    h("p", { class: "muted" }, "The operator token manages tenants. To work inside a tenant, open it with one of its API keys (a tenant you create here opens with its first key)."),
    h("section", { class: "card" }, list),
    h("section", { class: "card" }, h("h2", {}, "New tenant"),
      h("form", { onsubmit: create, class: "row" }, field("Tenant name", name, "Letters, digits, dot, dash, underscore."), h("button", { type: "submit" }, "Create tenant")),
      status));
  await load();
}

async function openTenant(tenant, key) {
  try {
    const t = await useTenantKey(key);
    if (t.id !== tenant.id) throw new Error(`that key belongs to tenant ${t.name}, not ${tenant.name}`);
    window.dispatchEvent(new Event("cadenza:session"));
    navigate("#/rules");
  } catch (error) {
    toast(`Cannot open ${tenant.name}: ${error.detail || error.message}`, "bad");
  }
}

async function setStatus(tenant, verb, reload) {
  try {
    await api.post(`/v1/admin/tenants/${tenant.id}/${verb}`);
    reload();
  } catch (error) {
    toast(error.detail || error.message, "bad");
  }
}

function tenantsTable(tenants, reload) {
  const keys = session.current()?.keys || {};
  return h("table", { class: "list" },
    h("thead", {}, h("tr", {}, ["Tenant", "Status", "Created", "Open", ""].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, tenants.map((t) => {
      const keyInput = h("input", { type: "password", autocomplete: "off", placeholder: "cdz_…" });
      const opener = keys[t.id]
        ? h("button", { type: "button", onclick: () => openTenant(t, keys[t.id]) }, `Open ${t.name}`)
        : h("form", { class: "row", onsubmit: (e) => (e.preventDefault(), openTenant(t, keyInput.value.trim())) },
            field(`API key for ${t.name}`, keyInput), h("button", { type: "submit", class: "secondary" }, "Open"));
      return h("tr", { "data-tenant": t.id },
        h("td", {}, t.name, h("div", { class: "muted small mono" }, t.id)),
        h("td", {}, h("span", { class: `badge ${t.status === "active" ? "good" : "skip"}` }, t.status)),
        h("td", {}, when(t.created_at)),
        h("td", {}, opener),
        h("td", {}, h("button", { type: "button", class: "secondary small", onclick: () => setStatus(t, t.status === "active" ? "suspend" : "resume", reload) }, t.status === "active" ? "Suspend" : "Resume")));
    })));
}
