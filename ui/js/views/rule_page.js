// One rule: what it is, how it is doing (stats), why each occurrence did or didn't run
// (timeline), and its runs, refreshed while the page is open.
import * as api from "../api.js";
import { field, fill, fillWhenChanged, h, problemBox, toast } from "../dom.js";
import { relative, tone, when } from "../format.js";
import { navigate, whileHere } from "../router.js";
import { bucket, runsChart } from "../chart.js";
import { labelChips } from "../labels.js";
import { outcomeBadge } from "./rules_list.js";
import { actOn, runsTable, withDetails } from "./runs_table.js";
import { backfillForm } from "./backfill.js";
import { statsList } from "./stats.js";

const REFRESH_MS = 2000;
const HOUR_MS = 3600_000;
/** Timeline windows: [hours back, hours ahead, label]. */
const WINDOWS = { day: [24, 24, "the last and next 24 hours"], week: [24 * 7, 24, "the last 7 days and next 24 hours"], month: [24 * 30, 24 * 7, "the last 30 days and next 7 days"] };

export async function rulePage(main, ruleId) {
  const path = `/v1/rules/${encodeURIComponent(ruleId)}`;
  let rule;
  try {
    rule = await api.get(path);
  } catch (error) {
    return fill(main, h("h1", {}, "Rule"), problemBox(error));
  }
  const head = h("div");
  const stats = h("section", { class: "card", "aria-labelledby": "stats-title" });
  const timelineBody = h("div");
  const span = h("select", { id: "timeline-window" }, Object.entries(WINDOWS).map(([v, [, , label]]) => h("option", { value: v }, label)));
  span.addEventListener("change", () => refresh());
  const timeline = h("section", { class: "card", "aria-labelledby": "timeline-title" },
    h("h2", { id: "timeline-title" }, "Timeline: why it did or didn't run"),
    h("div", { class: "filters" }, field("Timeline window", span, `Times in ${rule.timezone}.`)), timelineBody,
    backfillForm(ruleId, () => refresh()));
  const runs = h("section", { class: "card", "aria-labelledby": "runs-title" });

  async function act(verb) {
    try {
      if (verb === "trigger") {
        await api.post(`${path}/trigger`);
        toast("Run started; it appears below in a moment.");
      } else rule = await api.post(`${path}/${verb}`);
      showHead();
      refresh();
    } catch (error) {
      toast(error.detail || error.message, "bad");
    }
  }

  async function remove() {
    if (!confirm(`Delete the rule “${rule.name}”? Its pending runs are cancelled.`)) return;
    try {
      await api.del(path);
      toast("Rule deleted.");
      navigate("#/rules");
    } catch (error) {
      toast(error.detail || error.message, "bad");
    }
  }

  function showHead() {
    fill(head,
      h("div", { class: "title-row" }, h("h1", {}, rule.name),
        h("div", { class: "actions needs-editor" },
          h("button", { type: "button", onclick: () => act("trigger") }, "Run now"),
          h("button", { type: "button", class: "secondary", onclick: () => act(rule.enabled ? "pause" : "resume") }, rule.enabled ? "Pause" : "Resume"),
          h("a", { class: "button secondary", href: `#/rules/${rule.id}/edit` }, "Edit"),
          h("a", { class: "button secondary", href: `#/rules/${rule.id}/history` }, "History"),
          h("a", { class: "button secondary", href: `#/rules/${rule.id}/notifications` }, "Notifications"),
          h("button", { type: "button", class: "danger", onclick: remove }, "Delete"))),
      h("dl", { class: "facts" },
        h("dt", {}, "Schedule"), h("dd", {}, rule.schedule_text || rule.schedule, h("div", { class: "muted small mono" }, rule.schedule)),
        h("dt", {}, "Next run"), h("dd", {}, rule.next_run_at ? `${when(rule.next_run_at, rule.timezone)} (${relative(rule.next_run_at)})` : "—"),
        h("dt", {}, "State"), h("dd", {}, rule.enabled ? "Active" : h("span", { class: "badge skip" }, "Paused")),
        h("dt", {}, "Last outcome"), h("dd", {}, outcomeBadge(rule.last_outcome)),
        h("dt", {}, "Runtime"), h("dd", {}, `${rule.runtime}, timeout ${rule.timeout_ms} ms, memory ${rule.memory_mb} MB, version ${rule.version}`),
        h("dt", {}, "Labels"), h("dd", {}, labelChips(rule.labels) || "none")));
  }

  async function refresh() {
    const now = Date.now();
    const [back, ahead] = WINDOWS[span.value];
    const [ruleNow, statsData, entries, runPage] = await Promise.allSettled([
      api.get(path),
      api.get(`${path}/stats`),
      api.get(`${path}/timeline`, { from: new Date(now - back * HOUR_MS).toISOString(), to: new Date(now + ahead * HOUR_MS).toISOString() }),
      api.get("/v1/runs", { rule_id: ruleId, limit: 100 }).then(withDetails),
    ]);
    if (ruleNow.status === "fulfilled" && JSON.stringify(ruleNow.value) !== JSON.stringify(rule)) ((rule = ruleNow.value), showHead());
    show(stats, statsData, (d) => [h("h2", { id: "stats-title" }, "How it is doing"), statsList(d.stats)]);
    show(timelineBody, entries, (e) => timelineTable(api.items(e), rule.timezone, refresh));
    show(runs, runPage, (p) => [h("h2", { id: "runs-title" }, `Runs (times in ${rule.timezone})`), runsChart(bucket(api.items(p)), rule.timezone), runsTable(api.items(p), refresh, { zone: rule.timezone })]);
  }

  showHead();
  fill(main, head, h("div", { class: "columns" }, stats, timeline), runs);
  await refresh();
  whileHere(refresh, REFRESH_MS);
}

/** Render a settled request into `section` when its data changed. */
function show(section, result, render) {
  if (result.status === "fulfilled") fillWhenChanged(section, result.value, render);
  else fillWhenChanged(section, { problem: result.reason.problem || String(result.reason) }, () => problemBox(result.reason));
}

const FATE_TEXT = { not_yet_due: "not yet due", pending: "due", quota: "over quota" };

function timelineTable(entries, zone, reload) {
  if (!entries.length) return h("p", { class: "muted" }, "Nothing planned in this window.");
  return h("ol", { class: "timeline" }, entries.map((e) =>
    h("li", { class: `fate ${tone(e.fate)}` },
      h("span", { class: "when" }, when(e.scheduled_at, zone)),
      h("span", { class: `badge ${tone(e.fate)}` }, FATE_TEXT[e.fate] || e.fate),
      e.attempts > 1 ? h("span", { class: "muted" }, ` after ${e.attempts} attempts`) : null,
      e.reason ? h("span", { class: "reason" }, e.note || e.reason) : null,
      (e.run_ids || []).map((id) => h("a", { href: `#run-${id}`, class: "small", onclick: (ev) => { ev.preventDefault(); document.getElementById(`run-${id}`)?.scrollIntoView(); } }, `run ${id}`)),
      e.action_id && ["pending", "not_yet_due"].includes(e.fate) ? h("button", { type: "button", class: "secondary small needs-editor", onclick: () => actOn(e.action_id, "cancel", reload) }, "Cancel") : null,
      e.action_id && e.fate === "failed" ? h("button", { type: "button", class: "secondary small needs-editor", onclick: () => actOn(e.action_id, "retry", reload) }, "Retry") : null)));
}
