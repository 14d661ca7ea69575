// The tenant's rules: what each does, when it runs next, how it went last time.
import * as api from "../api.js";
import { debounce, field, fill, h, latestOnly, problemBox } from "../dom.js";
import { relative, tone, when } from "../format.js";

const PAGE_SIZE = 25;

export function outcomeBadge(outcome) {
  return h("span", { class: `badge ${tone(outcome)}` }, outcome || "never run");
}

export async function rulesList(main) {
  const search = h("input", { type: "search", placeholder: "name or description", autocomplete: "off" });
  const state = h("select", {}, h("option", { value: "" }, "All rules"), h("option", { value: "true" }, "Active"), h("option", { value: "false" }, "Paused"));
  const body = h("div", { "aria-live": "polite" });
  const cursors = [null];
  let page = 0;

  const load = latestOnly(async (isLatest) => {
    body.setAttribute("aria-busy", "true");
    try {
      const data = await api.get("/v1/rules", { limit: PAGE_SIZE, cursor: cursors[page], search: search.value.trim(), enabled: state.value });
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
  state.addEventListener("change", restart);
  fill(main,
    h("div", { class: "title-row" }, h("h1", {}, "Rules"), h("a", { href: "#/rules/new", class: "button needs-editor" }, "New rule")),
    h("div", { class: "filters" }, field("Search rules", search), field("Show", state)),
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
      h("td", {}, h("a", { href: `#/rules/${r.id}` }, r.name), r.description ? h("div", { class: "muted small" }, r.description) : null),
      h("td", {}, r.schedule_text || r.schedule),
      h("td", {}, r.next_run_at ? [when(r.next_run_at, r.timezone), h("div", { class: "muted small" }, relative(r.next_run_at))] : "—"),
      h("td", {}, outcomeBadge(r.last_outcome)),
      h("td", {}, r.enabled ? "Active" : h("span", { class: "badge skip" }, "Paused"))))));
}
