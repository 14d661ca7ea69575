// Sign in with a tenant API key, or with the operator token (which manages tenants).
import * as api from "../api.js";
import { field, fill, h, problemBox } from "../dom.js";
import { navigate } from "../router.js";
import * as session from "../session.js";

/** Remember `key` as the active tenant's credential; resolves to the tenant it belongs to. */
export async function useTenantKey(key) {
  const tenant = await api.request("GET", "/v1/tenant", { credential: key }).then((r) => r.data);
  const s = session.current() || {};
  const keys = { ...(s.keys || {}), [tenant.id]: key };
  session.save({ ...s, keys, credential: key, tenantId: tenant.id, tenantName: tenant.name, role: tenant.role });
  return tenant;
}

export function signIn(main) {
  const secret = h("input", { type: "password", autocomplete: "off", required: true, spellcheck: false });
  const status = h("div", { "aria-live": "polite" });
  async function submit(event) {
    event.preventDefault();
    const value = secret.value.trim();
    if (!value) return fill(status, h("p", { class: "bad-text", role: "alert" }, "Paste an API key or the operator token."));
    fill(status, h("p", { class: "muted" }, "Checking…"));
    // API keys start with cdz_; anything else is tried as the operator token only, so one
    // sign-in counts at most one failed authentication against this address's limit.
    const isKey = value.startsWith("cdz_");
    try {
      if (isKey) {
        await useTenantKey(value);
        return navigate("#/rules");
      }
      await api.request("GET", "/v1/admin/tenants", { credential: value, query: { limit: 1 } });
      session.save({ operatorToken: value, keys: {} });
      navigate("#/tenants");
    } catch (error) {
      if (error.status !== 401) return fill(status, problemBox(error));
      fill(status, problemBox({ title: "Not accepted", detail: "This is neither a valid API key nor the operator token. API keys start with cdz_." }));
    }
  }
  fill(main, h("section", { class: "card signin" },
    h("h1", {}, "Sign in to Cadenza"),
    h("p", {}, "Use an API key of your tenant: admin keys manage everything, editor keys manage rules and data, viewer keys read. The operator token (CADENZA_ADMIN_TOKEN) opens the tenant list."),
    h("p", { class: "muted small" }, "First time? On a fresh database, cadenza serve printed the demo tenant's admin key once in its output (“API key (shown once): cdz_…”)."),
    h("form", { onsubmit: submit },
      field("API key or operator token", secret, "Kept only in this browser tab until you sign out or close it."),
      h("button", { type: "submit" }, "Sign in")),
    status));
  secret.focus();
}
