// The admin app: the header (who is signed in, tenant switcher), routes, and the sign-in guard.
import * as api from "./api.js";
import { fill, h, toast } from "./dom.js";
import { navigate, render, route, setGuard, start } from "./router.js";
import * as session from "./session.js";
import { auditView } from "./views/audit.js";
import { ruleHistory } from "./views/rule_history.js";
import { calendarsView } from "./views/calendars.js";
import { notificationsView } from "./views/notifications.js";
import { dataView } from "./views/data.js";
import { eventsView } from "./views/events.js";
import { ruleEditor } from "./views/rule_editor.js";
import { rulePage } from "./views/rule_page.js";
import { rulesList } from "./views/rules_list.js";
import { runsView } from "./views/runs.js";
import { settingsView } from "./views/settings.js";
import { signIn, useTenantKey } from "./views/signin.js";
import { tenantsView } from "./views/tenants.js";

route("/signin", signIn);
route("/rules", rulesList);
route("/rules/new", (main) => ruleEditor(main, null));
route("/rules/:id", rulePage);
route("/rules/:id/edit", ruleEditor);
route("/runs", runsView);
route("/data", dataView);
route("/events", eventsView);
route("/settings", settingsView);
route("/calendars", calendarsView);
route("/notifications", notificationsView);
route("/rules/:id/notifications", notificationsView);
route("/tenants", tenantsView);
route("/audit", auditView);
route("/rules/:id/history", ruleHistory);

setGuard((path) => {
  const s = session.current();
  if (path.startsWith("/signin")) return s ? (s.credential ? "#/rules" : "#/tenants") : true;
  if (!s) return "#/signin";
  if (path.startsWith("/tenants")) return s.operatorToken ? true : "#/rules";
  return s.credential ? true : "#/tenants";
});

function signOut() {
  session.clear();
  navigate("#/signin");
}

/** The operator's tenant switcher: tenants with a known key open at once, others ask for one. */
async function switcher(s) {
  const select = h("select", { id: "tenant-switch" }, h("option", { value: "" }, "— all tenants —"));
  try {
    const page = await api.get("/v1/admin/tenants", { limit: 200 });
    for (const t of api.items(page)) select.append(h("option", { value: t.id, selected: t.id === s.tenantId }, t.name));
  } catch { /* the tenants page shows the error */ }
  select.addEventListener("change", async () => {
    const key = s.keys?.[select.value];
    if (!select.value) {
      session.update({ credential: null, tenantId: null, tenantName: null });
      return navigate("#/tenants");
    }
    if (!key) return navigate(`#/tenants?open=${select.value}`);
    await useTenantKey(key);
    await header();
    navigate("#/rules");
  });
  return h("span", { class: "switch" }, h("label", { for: select.id }, "Tenant"), select);
}

async function header() {
  const s = session.current();
  document.body.className = s?.role ? `role-${s.role}` : "";
  document.getElementById("nav").hidden = !s?.credential;
  const who = document.getElementById("who");
  if (!s) return fill(who);
  fill(who,
    s.operatorToken ? [h("a", { href: "#/tenants" }, "Tenants"), await switcher(s)] : null,
    s.credential && !s.operatorToken ? h("span", { class: "tenant" }, s.tenantName, h("span", { class: "muted" }, ` (${s.role})`)) : null,
    h("button", { type: "button", class: "secondary small", onclick: signOut }, "Sign out"));
}

window.addEventListener("hashchange", header);
window.addEventListener("cadenza:unauthorized", (event) => {
  session.clear();
  toast(`Signed out: ${event.detail?.detail || "your key is no longer accepted"}.`, "bad");
  navigate("#/signin");
});
window.addEventListener("cadenza:session", async () => {
  await header();
  render();
});
header().then(start);
