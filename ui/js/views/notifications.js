// Notification routes: which outcomes of the tenant's rules are sent where (the tenant webhook,
// an email address, a Slack-compatible incoming webhook). Routes are created and deleted, never
// edited; a rule's own routes add to the tenant's. The server checks every field (a Slack URL
// must pass the webhook URL policy), so the form only shapes the body. With a rule id (the
// rule page's "Notifications" button) it shows and adds that rule's own routes.
import * as api from "../api.js";
import { field, fill, h, problemBox, toast } from "../dom.js";
import { when } from "../format.js";
import { pagedTable } from "../pages.js";

const EVENTS = [
  ["failed", "Failed (once per failing streak)"],
  ["recovered", "Recovered (after a notified failure)"],
  ["skipped", "Skipped by the overlap or misfire policy"],
  ["expired", "Expired one-off"],
];
const CHANNELS = [["email", "Email"], ["slack", "Slack-compatible incoming webhook"], ["webhook", "The tenant webhook"]];

export async function notificationsView(main, ruleId = null) {
  const list = h("div", { "aria-live": "polite" });
  const boxes = EVENTS.map(([value, text]) => h("label", { class: "check" }, h("input", { type: "checkbox", value, checked: value === "failed" || value === "recovered" }), " ", text));
  const channel = h("select", {}, CHANNELS.map(([v, t]) => h("option", { value: v }, t)));
  const target = h("input", { type: "text", maxlength: "2000", autocomplete: "off" });
  const rule = h("input", { type: "text", maxlength: "40", autocomplete: "off", placeholder: "all rules", value: ruleId || "", readOnly: Boolean(ruleId) });
  const digest = h("input", { type: "number", min: "1", max: "1440", placeholder: "send at once" });
  const status = h("div", { "aria-live": "polite" });

  const { load } = pagedTable(list, {
    path: "/v1/notification-routes",
    query: { rule_id: ruleId },
    table: routesTable,
    row: routeRow,
    empty: "No notification routes yet.",
    moreText: "More routes",
  });

  function routesTable(rows) {
    return h("table", { class: "list routes" },
      h("thead", {}, h("tr", {}, ["Events", "Channel", "Rule", "Digest", "Last sent", "Created", ""].map((t) => h("th", { scope: "col" }, t)))),
      h("tbody", {}, rows));
  }

  function routeRow(r) {
    const where = r.channel === "webhook" ? "tenant webhook" : `${r.channel}: ${r.target}`;
    const scope = r.rule_id ? h("a", { href: `#/rules/${r.rule_id}` }, r.rule_id) : h("span", { class: "muted" }, "all rules");
    return h("tr", {},
      h("th", { scope: "row" }, r.events.join(", ")),
      h("td", { class: "target" }, where),
      h("td", {}, scope),
      h("td", {}, r.digest_minutes ? `every ${r.digest_minutes} min` : "at once"),
      h("td", { class: "last-sent" }, lastSent(r.last_delivery)),
      h("td", {}, when(r.created_at)),
      h("td", { class: "row-actions needs-editor" },
        h("button", { type: "button", class: "danger small", onclick: () => remove(r), "aria-label": `Delete route ${r.id}` }, "Delete")));
  }

  // The last attempt at the route's newest attempted notification; its error on hover.
  function lastSent(d) {
    if (!d) return h("span", { class: "muted" }, "nothing sent yet");
    const word = { delivered: "delivered", pending: "retrying", failed: "failed" }[d.status];
    const tone = { delivered: "good-text", failed: "bad-text" }[d.status] || "";
    return h("span", { class: tone, title: d.error || "" }, `${word} ${when(d.attempted_at)}`, d.error ? `: ${d.error}` : "");
  }

  async function remove(r) {
    if (!confirm(`Delete the route of ${r.events.join(", ")} to ${r.channel}?`)) return;
    try {
      await api.del(`/v1/notification-routes/${r.id}`);
      toast("Route deleted.");
      load();
    } catch (error) {
      toast(error.detail || error.message, "bad");
    }
  }

  function body() {
    const events = boxes.map((b) => b.querySelector("input")).filter((i) => i.checked).map((i) => i.value);
    const made = { events, channel: channel.value, target: target.value.trim() };
    if (rule.value.trim()) made.rule_id = rule.value.trim();
    if (digest.value) made.digest_minutes = Number(digest.value);
    return made;
  }

  async function save(event) {
    event.preventDefault();
    try {
      const saved = await api.post("/v1/notification-routes", body());
      fill(status, h("p", { class: "good-text" }, `Added a route to ${saved.channel}.`));
      load();
    } catch (error) {
      fill(status, problemBox(error));
    }
  }

  const title = ruleId ? h("h1", {}, "Notifications of rule ", h("a", { href: `#/rules/${ruleId}` }, ruleId)) : h("h1", {}, "Notifications");
  fill(main, title,
    h("p", { class: "muted" }, "Where the outcomes of your rules are sent. A route for one rule adds to the routes for all rules. A failing rule is told once per failing streak, and once when it recovers."),
    h("div", { class: "columns" },
      h("section", { class: "card" }, h("h2", {}, "Your routes"), list),
      h("section", { class: "card needs-editor" }, h("h2", {}, "Add a route"),
        h("form", { onsubmit: save },
          h("fieldset", { class: "events" }, h("legend", {}, "Events"), ...boxes),
          field("Channel", channel),
          field("Target", target, "The email address or the incoming-webhook URL; empty for the tenant webhook."),
          field("Rule id (optional)", rule, "Leave empty for every rule."),
          field("Digest every N minutes (optional)", digest, "Leave empty to send each message at once."),
          h("button", { type: "submit" }, "Add route")),
        status)));
  await load();
}
