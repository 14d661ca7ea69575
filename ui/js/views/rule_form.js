// The rule form: name, schedule (builder, raw text, zone, live preview), script, policies.
import * as api from "../api.js";
import { field, h, newId } from "../dom.js";
import { viewerZone, zones } from "../format.js";
import { formatLabels, parseLabels } from "../labels.js";
import { fromText, toText } from "../schedule/rrule.js";
import { scheduleBuilder } from "../schedule/builder.js";
import { previewPanel } from "../schedule/preview.js";
import { policiesFieldset } from "./policies.js";
import { scriptPanel } from "./script_panel.js";

/** Errors shown under the field they belong to; `set(name, message)` / `clear()`. */
function inlineErrors(controls) {
  const boxes = {};
  for (const [name, control] of Object.entries(controls)) {
    const box = h("p", { class: "field-error", id: newId("err"), role: "alert", hidden: true });
    control.closest(".field").append(box);
    boxes[name] = { box, control };
  }
  return {
    set(name, message) {
      const target = boxes[name];
      if (!target) return false;
      target.box.replaceChildren(...[message].flat());
      target.box.hidden = false;
      target.control.setAttribute("aria-invalid", "true");
      target.control.setAttribute("aria-errormessage", target.box.id);
      return true;
    },
    clear(name) {
      for (const [key, { box, control }] of Object.entries(boxes)) {
        if (name && key !== name) continue;
        box.hidden = true;
        control.removeAttribute("aria-invalid");
      }
    },
  };
}

/** An error's message (and hint); for text fields the bad part (from `position` to the next
 *  `;` or space) is marked in a copy of the text. */
function errorMessage(entry, text) {
  const message = [entry.message, entry.hint ? ` (${entry.hint})` : ""];
  if (Number.isInteger(entry.position) && text) {
    const at = Math.min(entry.position, text.length);
    const end = text.slice(at).search(/[;\s]/);
    const stop = end < 0 ? text.length : at + Math.max(end, 1);
    message.push(h("code", { class: "caret" }, text.slice(0, at), h("mark", {}, text.slice(at, stop) || " "), text.slice(stop)));
  }
  return message;
}

/** The tenant's calendar names, suggested in the rule's “Calendars” field. */
function calendarSuggestions() {
  const list = h("datalist", { id: newId("calendars") });
  api.get("/v1/calendars", { limit: 200 }).then((page) => list.append(...api.items(page).map((c) => h("option", { value: c.name })))).catch(() => {});
  return list;
}

export function ruleForm() {
  const zoneList = h("datalist", { id: newId("zones") }, zones().map((z) => h("option", { value: z })));
  const calendarList = calendarSuggestions();
  const c = {
    name: h("input", { type: "text", required: true, maxlength: "200", autocomplete: "off" }),
    description: h("input", { type: "text", maxlength: "1000" }),
    schedule: h("input", { type: "text", class: "mono", spellcheck: false, autocomplete: "off" }),
    timezone: h("input", { type: "text", list: zoneList.id, value: viewerZone, autocomplete: "off", spellcheck: false }),
    params: h("textarea", { rows: "3", class: "mono", spellcheck: false }, "{}"),
    labels: h("input", { type: "text", class: "mono", autocomplete: "off", spellcheck: false, placeholder: "team=ops, env=prod" }),
    enabled: h("input", { type: "checkbox", checked: true }),
    dst_gap: h("select", {}, h("option", { value: "shift" }, "Run it an hour later (02:30 runs at 03:30)"), h("option", { value: "skip" }, "Skip that day")),
    dst_repeat: h("select", {}, h("option", { value: "first" }, "Run once, the first time"), h("option", { value: "both" }, "Run both times")),
    calendars: h("input", { type: "text", list: calendarList.id, autocomplete: "off", spellcheck: false, placeholder: "e.g. Holidays DE" }),
  };
  const preview = previewPanel(showScheduleProblem);
  const builder = scheduleBuilder((model) => {
    c.schedule.value = toText(model);
    schedulesChanged();
  });
  const policies = policiesFieldset();
  const script = scriptPanel(() => onChange(), () => spec(false));
  let onChange = () => {};

  function schedulesChanged() {
    preview.update(c.schedule.value, c.timezone.value.trim(), { dst_gap: c.dst_gap.value, dst_repeat: c.dst_repeat.value, calendars: calendarNames() });
    onChange();
  }

  function rawEdited(fold = false) {
    const model = fromText(c.schedule.value);
    if (model) builder.set(model);
    builder.setEnabled(Boolean(model), fold);
    schedulesChanged();
  }
  c.schedule.addEventListener("input", () => rawEdited());
  c.timezone.addEventListener("input", schedulesChanged);
  c.dst_gap.addEventListener("change", schedulesChanged);
  c.dst_repeat.addEventListener("change", schedulesChanged);
  c.calendars.addEventListener("input", schedulesChanged);
  function calendarNames() {
    return c.calendars.value.split(",").map((n) => n.trim()).filter(Boolean);
  }

  const scheduleSection = h("section", { class: "card schedule", "aria-labelledby": "when-title" },
    h("h2", { id: "when-title" }, "When"),
    builder.element,
    field("Schedule (RRULE, cron or plain English)", c.schedule, "e.g. FREQ=WEEKLY;BYDAY=MO;BYHOUR=9 · 0 9 * * 1-5 · every weekday at 9am"),
    field("Time zone", c.timezone, "The zone the times above are read in."),
    h("div", { class: "row" },
      field("When the time is skipped (spring forward)", c.dst_gap, "A local time that does not exist on the day clocks go forward."),
      field("When the time happens twice (fall back)", c.dst_repeat, "A local time that occurs twice on the day clocks go back.")),
    field("Calendars (optional)", c.calendars, "Names of your calendars, comma-separated: runs on their excluded dates are skipped."),
    zoneList, calendarList);
  const element = h("div", { class: "rule-form" },
    h("div", { class: "form-main" },
      h("section", { class: "card" }, h("h2", {}, "Rule"),
        field("Name", c.name), field("Description (optional)", c.description),
        field("Labels (optional)", c.labels, "key=value pairs, separated by commas; filter and act on rules by them."),
        h("div", { class: "field inline" }, c.enabled, h("label", { for: c.enabled.id = newId() }, "Enabled (runs on schedule)"))),
      scheduleSection,
      h("section", { class: "card" }, h("h2", {}, "What runs"), script.element,
        field("Parameters (JSON object)", c.params, "Passed to the script as ctx.params.")),
      h("section", { class: "card" }, policies.element)),
    h("aside", { class: "form-side" }, preview.element));
  const errors = inlineErrors({ ...c, ...policies.controls });

  function showScheduleProblem(problem) {
    errors.clear("schedule");
    errors.clear("timezone");
    if (!problem) return;
    const entry = api.fieldErrors(problem)[0] || { field: "schedule", message: problem.detail || problem.title };
    const target = entry.field === "timezone" ? "timezone" : "schedule";
    errors.set(target, errorMessage(entry, target === "schedule" ? c.schedule.value : ""));
  }

  function parseParams(strict = true) {
    try {
      const value = JSON.parse(c.params.value || "{}");
      if (value && typeof value === "object" && !Array.isArray(value)) return value;
    } catch { /* reported below */ }
    if (strict) throw new api.ApiError({ title: "Invalid parameters", detail: "Parameters must be a JSON object, e.g. {\"to\": \"ops@example.com\"}", field: "params" }, 0);
    return {};
  }

  function spec(strict) {
    return {
      name: c.name.value.trim(), description: c.description.value, schedule: c.schedule.value.trim(),
      timezone: c.timezone.value.trim(), dst_gap: c.dst_gap.value, dst_repeat: c.dst_repeat.value, enabled: c.enabled.checked, params: parseParams(strict), calendars: calendarNames(), labels: parseLabels(c.labels.value), ...script.values(), ...policies.values(),
    };
  }

  return {
    element,
    set onChange(fn) { onChange = fn; },
    /** The RuleCreate fields as the API takes them. */
    values: () => spec(true),
    set(rule) {
      for (const name of ["name", "description", "schedule", "timezone", "dst_gap", "dst_repeat"]) c[name].value = rule[name] ?? c[name].value;
      c.params.value = JSON.stringify(rule.params || {}, null, 2);
      c.calendars.value = (rule.calendars || []).join(", ");
      c.labels.value = formatLabels(rule.labels);
      c.enabled.checked = rule.enabled !== false;
      script.set(rule);
      policies.set(rule);
      rawEdited(true);
    },
    useBuilder() {
      c.schedule.value = toText(builder.get());
      schedulesChanged();
    },
    /** Show an API error at its field; false when it belongs to no field here. */
    showProblem(problem) {
      errors.clear();
      const list = api.fieldErrors(problem);
      let shown = false;
      for (const e of list) {
        // "labels.team" belongs to the labels field; other paths end in the field's name.
        const path = String(e.field).split(".");
        const name = path[0] === "labels" ? "labels" : path.pop();
        if (name === "code") {
          script.showCodeError(e.line, e.message);
          shown = true;
        } else if (name === "schedule") shown = errors.set("schedule", errorMessage(e, c.schedule.value)) || shown;
        else shown = errors.set(name, errorMessage(e, "")) || shown;
      }
      element.querySelector('[aria-invalid="true"]')?.focus();
      return shown;
    },
  };
}
