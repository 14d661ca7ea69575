// Runs as a table: outcome, timing, output and error; failed runs stand out and can be retried.
import * as api from "../api.js";
import { h, toast } from "../dom.js";
import { bytes, json, ms, tone, when } from "../format.js";

const DETAILED = 25;
const details = new Map();

/** The page with its first runs' output and error filled in (a finished run never changes, so
 *  each is fetched once). */
export async function withDetails(page) {
  const runs = api.items(page);
  const wanted = runs.slice(0, DETAILED).filter((r) => !details.has(r.id));
  const fetched = await Promise.allSettled(wanted.map((r) => api.get(`/v1/runs/${r.id}`)));
  fetched.forEach((f) => f.status === "fulfilled" && details.set(f.value.id, f.value));
  return { ...page, items: runs.map((r) => details.get(r.id) || r) };
}

/** Retry or cancel an action, then call `done()` so the page reloads what changed. */
export async function actOn(actionId, verb, done) {
  try {
    await api.post(`/v1/actions/${actionId}/${verb}`);
    toast(verb === "retry" ? "Retry scheduled." : "Cancelled.");
    done();
  } catch (error) {
    toast(error.detail || error.message, "bad");
  }
}

function runDetails(run) {
  const output = [run.stdout, run.stderr].filter(Boolean).join("\n");
  const parts = [
    run.error && h("div", {}, h("h4", {}, run.error_line ? `Error (line ${run.error_line})` : "Error"), h("pre", { class: "error-text" }, run.error)),
    output && h("div", {}, h("h4", {}, "Output"), h("pre", {}, output)),
    run.output_truncated && h("p", { class: "muted" }, "Output was cut at the size limit."),
    run.result !== null && run.result !== undefined && h("div", {}, h("h4", {}, "Result"), h("pre", {}, json(run.result))),
    run.calls && run.calls.length && callsTable(run.calls),
    h("p", { class: "muted small" }, `Run ${run.id} · action ${run.action_id} · ${run.runtime || ""} · CPU ${ms(run.cpu_ms)} · peak memory ${bytes(run.peak_memory_bytes)} · node ${run.node || "—"}`),
  ];
  return parts;
}

/** The run's outbound calls in order (ctx.http and ctx.call): what, where, how it ended; never
 * a payload. A capability's row names it; its status is the product's, "ok" when in-process. */
function callsTable(calls) {
  return h("div", {}, h("h4", {}, "Calls"), h("table", { class: "list calls" },
    h("thead", {}, h("tr", {}, ["Kind", "Method", "Host / capability", "Status", "Duration", "Sent", "Received"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, calls.map((c) => h("tr", {},
      h("td", {}, c.kind), h("td", {}, c.method), h("td", { class: "mono" }, c.host), h("td", {}, c.error || (c.status ?? "ok")),
      h("td", {}, ms(c.duration_ms)), h("td", {}, bytes(c.bytes_sent)), h("td", {}, bytes(c.bytes_received)))))));
}

/** A table of `runs`; `reload()` after a retry or cancel. */
export function runsTable(runs, reload, { showRule = false, zone = undefined } = {}) {
  if (!runs.length) return h("p", { class: "muted empty" }, "No runs yet.");
  const heads = ["Started", showRule && "Rule", "Outcome", "Attempt", "Duration", "Late by", "Output / error", ""].filter((x) => x !== false);
  return h("table", { class: "list runs" },
    h("thead", {}, h("tr", {}, heads.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, runs.map((run) => {
      const failed = tone(run.outcome) === "bad";
      const summary = run.error ? run.error.split("\n").filter(Boolean).pop()
        : (run.stdout || "").split("\n")[0] || (run.result !== null && run.result !== undefined ? `result: ${json(run.result)}` : "");
      return h("tr", { id: `run-${run.id}`, class: failed ? "failed" : "" },
        h("td", {}, when(run.started_at || run.planned_at, zone)),
        showRule && h("td", {}, run.rule_id ? h("a", { href: `#/rules/${run.rule_id}` }, run.rule_name || run.rule_id) : "one-off"),
        h("td", {}, h("span", { class: `badge ${tone(run.outcome)}` }, run.outcome || "running")),
        h("td", {}, run.attempt),
        h("td", {}, ms(run.duration_ms)),
        h("td", {}, ms(run.lateness_ms)),
        h("td", { class: "output" }, h("details", {}, h("summary", {}, h("span", { class: failed ? "bad-text" : "" }, summary || "details")), runDetails(run))),
        h("td", {}, failed && run.action_id ? h("button", { type: "button", class: "secondary small needs-editor", onclick: () => actOn(run.action_id, "retry", reload) }, "Retry") : null));
    })));
}

