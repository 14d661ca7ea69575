// The schedule builder form: common cases as labelled controls, written out as RRULE text.
import { field, h, newId } from "../dom.js";
import { defaultModel, WEEKDAYS } from "./rrule.js";

const DAY_NAMES = { MO: "Monday", TU: "Tuesday", WE: "Wednesday", TH: "Thursday", FR: "Friday", SA: "Saturday", SU: "Sunday" };
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const UNITS = { MINUTELY: "minutes", HOURLY: "hours", DAILY: "days", WEEKLY: "weeks", MONTHLY: "months", YEARLY: "years" };
const FREQ_LABELS = { MINUTELY: "Every few minutes", HOURLY: "Hourly", DAILY: "Daily", WEEKLY: "Weekly", MONTHLY: "Monthly", YEARLY: "Yearly" };
const ORDINALS = { 1: "first", 2: "second", 3: "third", 4: "fourth", "-1": "last" };

const select = (options, value) =>
  h("select", {}, Object.entries(options).map(([v, text]) => h("option", { value: v, selected: String(v) === String(value) }, text)));

/** Builder controls; `onChange(model)` after every edit. `set(model)` shows a model. */
export function scheduleBuilder(onChange) {
  let model = defaultModel();
  const c = {
    freq: select(FREQ_LABELS, model.freq),
    interval: h("input", { type: "number", min: "1", max: "1000", value: "1" }),
    monthMode: select({ days: "On days of the month", nth: "On a weekday of the month" }, "days"),
    monthDays: h("input", { type: "text", inputmode: "numeric", value: "1" }),
    nth: select(ORDINALS, "1"),
    nthDay: select(DAY_NAMES, "MO"),
    month: select(Object.fromEntries(MONTHS.map((m, i) => [i + 1, m])), "1"),
    time: h("input", { type: "time", value: "09:00", step: "60" }),
    minute: h("input", { type: "number", min: "0", max: "59", value: "0" }),
    start: h("input", { type: "datetime-local", step: "60" }),
    endMode: select({ never: "Never (up to the 10-year cap)", until: "On a date", count: "After a number of runs" }, "never"),
    until: h("input", { type: "datetime-local", step: "60" }),
    count: h("input", { type: "number", min: "1", max: "100000" }),
  };
  const dayBoxes = WEEKDAYS.map((d) => h("input", { type: "checkbox", value: d, id: newId("day") }));
  const intervalField = field("Repeat every", c.interval, "");
  const weekdays = h("fieldset", { class: "weekdays" }, h("legend", {}, "On these days"),
    dayBoxes.map((box) => h("label", { class: "check", for: box.id }, box, DAY_NAMES[box.value].slice(0, 3))),
    h("div", { class: "quick" },
      h("button", { type: "button", class: "link", onclick: () => pickDays(WEEKDAYS.slice(0, 5)) }, "Weekdays"),
      h("button", { type: "button", class: "link", onclick: () => pickDays(WEEKDAYS) }, "Every day"),
      h("button", { type: "button", class: "link", onclick: () => pickDays(["SA", "SU"]) }, "Weekends")));
  const monthDaysField = field("Days of the month", c.monthDays, "Comma-separated; -1 is the last day.");
  const nthFields = h("div", { class: "row" }, field("Which", c.nth), field("Weekday", c.nthDay));
  const monthPart = h("div", {}, field("Month", c.month));
  const dayPart = h("div", {}, field("Day of the month rule", c.monthMode), monthDaysField, nthFields);
  const timeField = field("Time of day", c.time, "In the rule's time zone.");
  const minuteField = field("Minute past the hour", c.minute);
  const untilField = field("Ends on", c.until);
  const countField = field("Number of runs", c.count);

  function pickDays(days) {
    dayBoxes.forEach((box) => (box.checked = days.includes(box.value)));
    changed();
  }

  function read() {
    const m = { ...model };
    for (const name of Object.keys(c)) m[name] = c[name].value;
    m.weekdays = dayBoxes.filter((b) => b.checked).map((b) => b.value);
    return m;
  }

  function layout() {
    const f = model.freq;
    intervalField.querySelector("small")?.remove();
    intervalField.append(h("small", { class: "help" }, UNITS[f]));
    weekdays.hidden = f !== "WEEKLY";
    monthPart.hidden = f !== "YEARLY";
    dayPart.hidden = f !== "MONTHLY" && f !== "YEARLY";
    monthDaysField.hidden = model.monthMode !== "days";
    nthFields.hidden = model.monthMode !== "nth";
    timeField.hidden = f === "HOURLY" || f === "MINUTELY";
    minuteField.hidden = f !== "HOURLY";
    untilField.hidden = model.endMode !== "until";
    countField.hidden = model.endMode !== "count";
  }

  function changed() {
    model = read();
    layout();
    onChange(model);
  }

  const controls = h("div", {},
    h("div", { class: "row" }, field("Frequency", c.freq), intervalField),
    weekdays, monthPart, dayPart,
    h("div", { class: "row" }, timeField, minuteField),
    h("div", { class: "row" }, field("Starts (optional)", c.start), field("Ends", c.endMode)),
    h("div", { class: "row" }, untilField, countField));
  const stale = h("p", { class: "muted", hidden: true },
    "The builder can't show this schedule; the text field below is what will be saved. ",
    h("button", { type: "button", class: "link", onclick: () => (setEnabled(true), changed()) }, "Start over with the builder"));
  const element = h("fieldset", { class: "builder", oninput: changed, onchange: changed },
    h("legend", {}, "Schedule builder"), controls, stale);

  /** Show the controls, or (off) say the text is beyond them and offer to start over: dimmed
   *  while the user types (no flicker), folded away for a rule loaded with such a schedule. */
  function setEnabled(on, fold = false) {
    element.classList.toggle("stale", !on);
    controls.hidden = !on && fold;
    stale.hidden = on;
  }

  function set(next) {
    model = { ...defaultModel(), ...next };
    for (const name of Object.keys(c)) c[name].value = model[name] ?? "";
    dayBoxes.forEach((box) => (box.checked = model.weekdays.includes(box.value)));
    layout();
  }
  set(model);
  return { element, set, get: () => model, setEnabled };
}
