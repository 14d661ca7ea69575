// The tenant's settings: quotas and today's usage, the webhook, secrets, the HTTP allow-list and
// the granted capabilities for scripts, and (for admins) API keys.
import * as api from "../api.js";
import { field, fill, h, problemBox, toast } from "../dom.js";
import { when } from "../format.js";
import { showAllowList, showCapabilities, showSecrets } from "./script_access.js";

/** A secret shown once, with a copy button. */
export function secretOnce(label, secret) {
  const input = h("input", { type: "text", readonly: true, value: secret, class: "mono" });
  return h("div", { class: "secret card", role: "alert" },
    field(label, input, "Shown once: copy it now, it cannot be shown again."),
    h("button", { type: "button", class: "secondary small", onclick: () => navigator.clipboard?.writeText(secret).then(() => toast("Copied.")) }, "Copy"));
}

export async function settingsView(main) {
  const tenant = h("section", { class: "card" });
  const webhook = h("section", { class: "card" });
  const keys = h("section", { class: "card" });
  const secrets = h("section", { class: "card" });
  const allowList = h("section", { class: "card" });
  const capabilities = h("section", { class: "card" });
  fill(main, h("h1", {}, "Settings"), h("div", { class: "columns" }, tenant, webhook),
    h("div", { class: "columns" }, secrets, allowList), capabilities, keys);
  await Promise.all([showTenant(tenant), showWebhook(webhook), showKeys(keys), showSecrets(secrets),
    showAllowList(allowList), showCapabilities(capabilities)]);
}

async function showTenant(section) {
  try {
    const t = await api.get("/v1/tenant");
    const q = t.quotas;
    fill(section, h("h2", {}, `Tenant ${t.name}`),
      h("dl", { class: "facts" },
        h("dt", {}, "Status"), h("dd", {}, t.status), h("dt", {}, "Your role"), h("dd", {}, t.role),
        h("dt", {}, "Runs today"), h("dd", {}, `${t.usage_today.runs} of ${q.max_runs_per_day}`),
        h("dt", {}, "CPU today"), h("dd", {}, `${(t.usage_today.cpu_ms / 1000).toFixed(1)} s of ${q.max_cpu_s_per_day} s`),
        h("dt", {}, "Rules allowed"), h("dd", {}, q.max_rules),
        h("dt", {}, "Longest timeout"), h("dd", {}, `${q.max_timeout_ms} ms`),
        h("dt", {}, "Most memory"), h("dd", {}, `${q.max_memory_mb} MB`),
        h("dt", {}, "Shortest interval"), h("dd", {}, `${q.min_interval_s} s`),
        h("dt", {}, "Runs at once"), h("dd", {}, q.max_concurrency)));
  } catch (error) {
    fill(section, h("h2", {}, "Tenant"), problemBox(error));
  }
}

async function showWebhook(section) {
  const url = h("input", { type: "url", placeholder: "https://example.com/cadenza-events", autocomplete: "off" });
  const status = h("div", { "aria-live": "polite" });
  const hint = h("p", { class: "muted" });
  async function save(event) {
    event.preventDefault();
    try {
      const data = await api.put("/v1/webhook", { url: url.value.trim() || null });
      fill(status, h("p", { class: "good-text" }, data.url ? "Events will be delivered to this URL." : "Webhook delivery is off."));
    } catch (error) {
      fill(status, problemBox(error));
    }
  }
  async function rotate() {
    if (!confirm("Make a new signing secret? The current one keeps signing beside it for a day while your receiver switches.")) return;
    try {
      const data = await api.post("/v1/webhook/secret");
      fill(status, secretOnce("New signing secret", data.secret));
    } catch (error) {
      fill(status, problemBox(error));
    }
  }
  try {
    const data = await api.get("/v1/webhook");
    url.value = data.url || "";
    const previous = data.previous_secret_hint ? ` The previous one (starts ${data.previous_secret_hint}…) also signs until ${data.previous_secret_retires_at}.` : "";
    fill(hint, data.secret_hint ? `Each delivery is signed with your secret (starts ${data.secret_hint}…).${previous}` : "No signing secret yet: make one before your receiver checks signatures.");
  } catch (error) {
    fill(status, problemBox(error));
  }
  fill(section, h("h2", {}, "Webhook"),
    h("form", { onsubmit: save, novalidate: true }, field("Webhook URL", url, "Events are POSTed here; leave empty to stop delivery."),
      h("div", { class: "actions needs-admin" }, h("button", { type: "submit" }, "Save webhook"), h("button", { type: "button", class: "secondary", onclick: rotate }, "New signing secret"))),
    hint, status);
}

async function showKeys(section) {
  const name = h("input", { type: "text", maxlength: "100", autocomplete: "off" });
  const role = h("select", {}, ["viewer", "editor", "admin"].map((r) => h("option", { value: r }, r)));
  const list = h("div");
  const status = h("div", { "aria-live": "polite" });
  async function load() {
    try {
      fill(list, keysTable(api.items(await api.get("/v1/keys", { limit: 200 })), revoke));
    } catch (error) {
      fill(list, error.status === 403 ? h("p", { class: "muted" }, "Only admin keys can see and manage API keys.") : problemBox(error));
    }
  }
  async function create(event) {
    event.preventDefault();
    try {
      const data = await api.post("/v1/keys", { name: name.value.trim(), role: role.value });
      fill(status, secretOnce(`API key “${data.name || data.prefix}”`, data.secret));
      name.value = "";
      load();
    } catch (error) {
      fill(status, problemBox(error));
    }
  }
  async function revoke(key) {
    if (!confirm(`Revoke the key “${key.name || key.prefix}”? Anything using it stops working.`)) return;
    try {
      await api.del(`/v1/keys/${key.id}`);
      load();
    } catch (error) {
      toast(error.detail || error.message, "bad");
    }
  }
  fill(section, h("h2", {}, "API keys"), list, h("h3", {}, "New key"),
    h("form", { onsubmit: create, class: "row" }, field("Key name", name), field("Role", role), h("button", { type: "submit" }, "Create key")),
    status);
  await load();
}

function keysTable(keys, revoke) {
  return h("table", { class: "list" },
    h("thead", {}, h("tr", {}, ["Name", "Starts with", "Role", "Created", "Last used", ""].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, keys.map((k) => h("tr", { class: k.revoked_at ? "paused" : "" },
      h("td", {}, k.name || "—"), h("td", { class: "mono" }, k.prefix), h("td", {}, k.role),
      h("td", {}, when(k.created_at)), h("td", {}, when(k.last_used_at)),
      h("td", {}, k.revoked_at ? `revoked ${when(k.revoked_at)}` : h("button", { type: "button", class: "danger small", onclick: () => revoke(k) }, "Revoke"))))));
}
