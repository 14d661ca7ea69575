// The tenant's rules: what each does, when it runs next, how it went last time.
import * as api from "../api.js";
import { debounce, field, fill, h, latestOnly, problemBox } from "../dom.js";
import { relative, tone, when } from "../format.js";
import { labelChips, terms } from "../labels.js";
import { bulkActions } from "./rule_bulk.js";

const PAGE_SIZE = 25;

export function outcomeBadge(outcome) {
  return h("span", { class: `badge ${tone(outcome)}` }, outcome || "never run");
}

const choice = (options) => h("select", {}, options.map(([value, text]) => h("option", { value }, text)));
const RUNTIMES = [["", "Any runtime"], ["python", "Python"], ["micropython", "MicroPython"], ["wasm", "WebAssembly"]];
const OUTCOMES = [["", "Any last outcome"], ...["ok", "error", "timeout", "memory", "output_limit", "killed", "crashed", "rejected"].map((o) => [o, o])];

export async function rulesList(main) {
  const search = h("input", { type: "search", placeholder: "name or description", autocomplete: "off" });
  const state = choice([["", "All rules"], ["true", "Active"], ["false", "Paused"]]);
  const labels = h("input", { type: "search", class: "mono", placeholder: "team=ops, env", autocomplete: "off", spellcheck: false });
  const runtime = choice(RUNTIMES);
  const lastOutcome = choice(OUTCOMES);
  const filters = () => ({ search: search.value.trim(), enabled: state.value, label: terms(labels.value), runtime: runtime.value, last_outcome: lastOutcome.value });
  const body = h("div", { "aria-live": "polite" });
  const cursors = [null];
  let page = 0;

  const load = latestOnly(async (isLatest) => {
    body.setAttribute("aria-busy", "true");
    try {
      const data = await api.get("/v1/rules", { limit: PAGE_SIZE, cursor: cursors[page], ...filters() });
      if (!isLatest()) return;
      cursors[page + 1] = data.next_cursor || null;
      fill(body, table(api.items(data)), pager(Boolean(data.next_cursor)));
    } catch (error) {
      fill(body, problemBox(error));
    } finally {
      if (isLatest()) body.removeAttribute("aria-busy");
    }
  });

  function restart() {
    page = 0;
    cursors.length = 1;
    load();
  }

  function pager(hasMore) {
    if (!hasMore && page === 0) return null;
    return h("nav", { class: "pager", "aria-label": "Pages" },
      h("button", { type: "button", class: "secondary", disabled: page === 0, onclick: () => (page--, load()) }, "Previous page"),
      h("span", {}, `Page ${page + 1}`),
      h("button", { type: "button", class: "secondary", disabled: !hasMore, onclick: () => (page++, load()) }, "Next page"));
  }

  search.addEventListener("input", debounce(restart, 250));
  labels.addEventListener("input", debounce(restart, 250));
  for (const select of [state, runtime, lastOutcome]) select.addEventListener("change", restart);
  fill(main,
    h("div", { class: "title-row" }, h("h1", {}, "Rules"), h("a", { href: "#/rules/new", class: "button needs-editor" }, "New rule")),
    h("div", { class: "filters" }, field("Search rules", search), field("Filter by labels", labels), field("Show", state), field("Runtime", runtime), field("Last outcome", lastOutcome)),
    bulkActions(filters, restart),
    body);
  await load();
}

function table(rules) {
  if (!rules.length) {
    return h("div", { class: "empty card" }, h("p", {}, "No rules here yet."), h("a", { href: "#/rules/new", class: "button needs-editor" }, "Create your first rule"));
  }
  return h("table", { class: "list rules" },
    h("thead", {}, h("tr", {}, ["Name", "Schedule", "Next run", "Last outcome", "State"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, rules.map((r) => h("tr", { class: r.enabled ? "" : "paused" },
      h("td", {}, h("a", { href: `#/rules/${r.id}` }, r.name), r.description ? h("div", { class: "muted small" }, r.description) : null, labelChips(r.labels)),
      h("td", { "data-label": "Schedule" }, r.schedule_text || r.schedule),
      h("td", { "data-label": "Next run" }, r.next_run_at ? [when(r.next_run_at, r.timezone), h("div", { class: "muted small" }, relative(r.next_run_at))] : "—"),
      h("td", { "data-label": "Last outcome" }, outcomeBadge(r.last_outcome)),
      h("td", { "data-label": "State" }, r.enabled ? "Active" : h("span", { class: "badge skip" }, "Paused"))))));
}
