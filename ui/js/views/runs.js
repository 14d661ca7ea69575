// Every run of the tenant: the last day as a chart, then the runs (failed ones first to find),
// and the queue of actions with cancel and retry.
import * as api from "../api.js";
import { debounce, field, fill, fillWhenChanged, h, latestOnly, problemBox } from "../dom.js";
import { when, tone } from "../format.js";
import { bucket, runsChart } from "../chart.js";
import { actOn, runsTable, withDetails } from "./runs_table.js";
import { whileHere } from "../router.js";
import { terms } from "../labels.js";

const OUTCOMES = ["", "ok", "error", "timeout", "memory", "output_limit", "killed", "crashed", "rejected"];
const STATUSES = ["pending", "running", "failed", "succeeded", "skipped", "expired", "cancelled"];
const DAY_MS = 86_400_000;
const CHART_PAGES = 5;
const PAGE_SIZE = 50;
const REFRESH_MS = 5000;

async function lastDay() {
  const since = new Date(Date.now() - DAY_MS).toISOString();
  const runs = [];
  let cursor = null;
  for (let i = 0; i < CHART_PAGES; i++) {
    const page = await api.get("/v1/runs", { since, limit: 200, cursor });
    runs.push(...api.items(page));
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  return runs;
}

export async function runsView(main) {
  const outcome = h("select", {}, OUTCOMES.map((o) => h("option", { value: o }, o || "any outcome")));
  const status = h("select", {}, STATUSES.map((s) => h("option", { value: s }, s)));
  const ruleLabels = h("input", { type: "search", class: "mono", placeholder: "team=ops", autocomplete: "off", spellcheck: false });
  const chart = h("div", { "aria-live": "off" });
  const runs = h("div");
  const actions = h("div");
  let cursor = null;
  let loaded = [];
  let readingOlder = false;
  const names = ruleNames();

  /** The newest runs (again, when polled), or with `more` the next older page added below. */
  const loadRuns = latestOnly(async (isLatest, more = false) => {
    if (!more && readingOlder) return; // the user is reading older pages: keep them
    try {
      const [page, name] = await Promise.all([
        api.get("/v1/runs", { status: outcome.value, rule_label: terms(ruleLabels.value), limit: PAGE_SIZE, cursor: more ? cursor : null }).then(withDetails),
        names,
      ]);
      if (!isLatest()) return;
      cursor = page.next_cursor;
      const items = api.items(page).map((r) => ({ ...r, rule_name: name.get(r.rule_id) }));
      loaded = more ? [...loaded, ...items] : items;
      fillWhenChanged(runs, { loaded, more: Boolean(cursor) }, () => [
        runsTable(loaded, reload, { showRule: true }),
        cursor ? h("button", { type: "button", class: "secondary", onclick: () => ((readingOlder = true), loadRuns(true)) }, "Older runs") : null,
      ]);
    } catch (error) {
      fill(runs, problemBox(error));
    }
  });

  const loadActions = latestOnly(async (isLatest) => {
    try {
      const page = await api.get("/v1/actions", { status: status.value, limit: 50 });
      const name = await names;
      if (isLatest()) fill(actions, actionsTable(api.items(page), name, reload));
    } catch (error) {
      fill(actions, problemBox(error));
    }
  });

  async function loadChart() {
    try {
      fillWhenChanged(chart, bucket(await lastDay()), runsChart);
    } catch (error) {
      fill(chart, problemBox(error));
    }
  }

  function reload() {
    loadChart();
    loadRuns();
    loadActions();
  }

  outcome.addEventListener("change", () => ((readingOlder = false), loadRuns()));
  ruleLabels.addEventListener("input", debounce(() => ((readingOlder = false), loadRuns()), 250));
  status.addEventListener("change", loadActions);
  fill(main, h("h1", {}, "Runs"),
    h("section", { class: "card" }, h("h2", {}, "Runs per hour, last 24 hours"), chart),
    h("section", { class: "card" }, h("h2", {}, "Runs"), h("div", { class: "filters" }, field("Outcome", outcome), field("Rule labels", ruleLabels)), runs),
    h("section", { class: "card" }, h("h2", {}, "Actions"), h("div", { class: "filters" }, field("Action status", status)), actions));
  reload();
  whileHere(() => (loadChart(), loadRuns()), REFRESH_MS);
}

/** Rule id -> name, for tables that only carry ids (loaded once per page view). */
async function ruleNames() {
  try {
    return new Map(api.items(await api.get("/v1/rules", { limit: 200 })).map((r) => [r.id, r.name]));
  } catch {
    return new Map();
  }
}

function actionsTable(list, names, reload) {
  if (!list.length) return h("p", { class: "muted" }, "No actions with this status.");
  return h("table", { class: "list" },
    h("thead", {}, h("tr", {}, ["Due", "Rule", "Status", "Attempt", "Reason", ""].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, list.map((a) => h("tr", { class: tone(a.status) === "bad" ? "failed" : "" },
      h("td", {}, when(a.due_at)),
      h("td", {}, a.rule_id ? h("a", { href: `#/rules/${a.rule_id}` }, names.get(a.rule_id) || a.rule_id) : a.key || "one-off"),
      h("td", {}, h("span", { class: `badge ${tone(a.status)}` }, a.status)),
      h("td", {}, `${a.attempt} of ${a.max_attempts}`),
      h("td", {}, a.reason || ""),
      h("td", {},
        (a.status === "pending" || (a.status === "running" && !a.started_at)) && h("button", { type: "button", class: "secondary small needs-editor", onclick: () => actOn(a.id, "cancel", reload) }, "Cancel"),
        ["failed", "expired", "cancelled"].includes(a.status) && h("button", { type: "button", class: "secondary small needs-editor", onclick: () => actOn(a.id, "retry", reload) }, "Retry"))))));
}
