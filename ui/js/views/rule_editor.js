// Create or edit a rule. Editing shows the next dates before and after the change, then saves
// with If-Match on the version that was loaded, so a concurrent edit is never overwritten.
import * as api from "../api.js";
import { fill, h, problemBox, toast } from "../dom.js";
import { when } from "../format.js";
import { navigate } from "../router.js";
import { ruleForm } from "./rule_form.js";

export async function ruleEditor(main, ruleId) {
  const form = ruleForm();
  const status = h("div", { "aria-live": "polite" });
  const review = h("section", { class: "card review", hidden: true, "aria-labelledby": "review-title" });
  const save = h("button", { type: "submit" }, ruleId ? "Review changes" : "Create rule");
  let loaded = null;
  let etag = null;
  let reviewed = false;

  form.onChange = () => {
    if (!reviewed) return;
    reviewed = false;
    review.hidden = true;
    save.textContent = "Review changes";
  };

  if (ruleId) {
    try {
      const response = await api.request("GET", `/v1/rules/${encodeURIComponent(ruleId)}`);
      loaded = response.data;
      etag = response.etag || `"${loaded.version}"`;
      form.set(loaded);
    } catch (error) {
      return fill(main, problemBox(error));
    }
  } else form.useBuilder();

  async function submit(event) {
    event.preventDefault();
    fill(status);
    let spec;
    try {
      spec = form.values();
      if (!ruleId) return await create(spec);
      if (!reviewed) return await showReview(spec);
      await update(spec);
    } catch (error) {
      if (!form.showProblem(error)) fill(status, problemBox(error));
      else fill(status, h("p", { class: "bad-text", role: "alert" }, "Please fix the highlighted field."));
    }
  }

  async function create(spec) {
    const rule = await api.post("/v1/rules", spec);
    toast(`Rule “${rule.name}” created.`);
    navigate(`#/rules/${rule.id}`);
  }

  function changesOf(spec) {
    return Object.fromEntries(Object.entries(spec).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(loaded[k] ?? null) && !(v === "" && !loaded[k])));
  }

  async function showReview(spec) {
    const changes = changesOf(spec);
    if (!Object.keys(changes).length) return fill(status, h("p", {}, "Nothing has changed."));
    const diff = await api.post(`/v1/rules/${encodeURIComponent(ruleId)}/preview`, changes);
    fill(review, h("h2", { id: "review-title" }, "Before you save"),
      h("p", {}, "Changing: ", Object.keys(changes).join(", ")),
      dateDiff(diff, spec.timezone),
      diff.pending && h("p", {}, diff.pending));
    review.hidden = false;
    reviewed = true;
    save.textContent = "Save changes";
    review.scrollIntoView({ block: "nearest" });
    review.focus();
  }

  async function update(spec) {
    try {
      const response = await api.request("PATCH", `/v1/rules/${encodeURIComponent(ruleId)}`, { body: changesOf(spec), ifMatch: etag });
      toast(`Rule “${response.data.name}” saved.`);
      navigate(`#/rules/${ruleId}`);
    } catch (error) {
      if (error.status !== 412) throw error;
      fill(status, h("div", { class: "problem", role: "alert" },
        "Someone else changed this rule since you opened it. ",
        h("a", { href: `#/rules/${ruleId}/edit`, onclick: () => location.reload() }, "Reload it"), " and make your change again."));
    }
  }

  const title = ruleId ? `Edit “${loaded.name}”` : "New rule";
  const formEl = h("form", { class: "editor", onsubmit: submit, novalidate: true },
    form.element, review, status,
    h("div", { class: "actions sticky" }, save,
      h("a", { href: ruleId ? `#/rules/${ruleId}` : "#/rules", class: "button secondary" }, "Cancel")));
  review.tabIndex = -1;
  fill(main, h("h1", {}, title), formEl);
}

/** Two columns of dates: what the rule does now and what it will do after the change. */
function dateDiff(diff, zone) {
  const before = diff.before || [];
  const after = diff.after || [];
  const beforeSet = new Set(before);
  const afterSet = new Set(after);
  const rows = Array.from({ length: Math.max(before.length, after.length) }, (_, i) =>
    h("tr", {},
      h("td", { class: afterSet.has(before[i]) ? "" : "removed" }, when(before[i], zone)),
      h("td", { class: beforeSet.has(after[i]) ? "" : "added" }, when(after[i], zone))));
  return h("table", { class: "dates diff" }, h("caption", {}, "Next runs"),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Now"), h("th", { scope: "col" }, "After saving"))),
    h("tbody", {}, rows));
}
