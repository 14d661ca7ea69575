// The schedule builder's model: a plain object <-> RRULE text (and simple cron read back).
// Only what the builder can show is read back; anything else returns null ("edit it as text").

export const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];
export const FREQUENCIES = ["MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"];

/** The builder's starting point: every weekday at 09:00. */
export function defaultModel() {
  return {
    freq: "WEEKLY", interval: 1, weekdays: ["MO", "TU", "WE", "TH", "FR"],
    monthMode: "days", monthDays: "1", nth: "1", nthDay: "MO", month: "1",
    time: "09:00", minute: "0", start: "", endMode: "never", until: "", count: "",
  };
}

const stamp = (local) => local.replace(/[-:]/g, "").slice(0, 13).padEnd(15, "0"); // 2026-01-05T09:00 -> 20260105T090000

function dayParts(model) {
  if (model.monthMode === "nth") return [`BYDAY=${model.nth}${model.nthDay}`];
  const days = model.monthDays.split(/[\s,]+/).filter(Boolean);
  return days.length ? [`BYMONTHDAY=${days.join(",")}`] : [];
}

function timeParts(model) {
  if (model.freq === "MINUTELY") return [];
  if (model.freq === "HOURLY") return [`BYMINUTE=${Number(model.minute) || 0}`];
  const [hour, minute] = (model.time || "09:00").split(":").map(Number);
  return [`BYHOUR=${hour}`, `BYMINUTE=${minute}`];
}

/** The RRULE text the builder stands for (with a floating DTSTART when a start is set). */
export function toText(model) {
  const parts = [`FREQ=${model.freq}`];
  if (Number(model.interval) > 1) parts.push(`INTERVAL=${Number(model.interval)}`);
  if (model.freq === "WEEKLY" && model.weekdays.length) parts.push(`BYDAY=${WEEKDAYS.filter((d) => model.weekdays.includes(d)).join(",")}`);
  if (model.freq === "YEARLY") parts.push(`BYMONTH=${model.month}`);
  if (model.freq === "MONTHLY" || model.freq === "YEARLY") parts.push(...dayParts(model));
  parts.push(...timeParts(model));
  if (model.endMode === "count" && Number(model.count) > 0) parts.push(`COUNT=${Number(model.count)}`);
  if (model.endMode === "until" && model.until) parts.push(`UNTIL=${stamp(model.until)}`);
  const rule = parts.join(";");
  return model.start ? `DTSTART:${stamp(model.start)} RRULE:${rule}` : rule;
}

const unstamp = (s) => `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(9, 11) || "00"}:${s.slice(11, 13) || "00"}`;
const pad = (n) => String(n).padStart(2, "0");

function readRule(rule, model) {
  const handlers = {
    FREQ: (v) => FREQUENCIES.includes(v) && Boolean((model.freq = v)),
    INTERVAL: (v) => /^\d+$/.test(v) && ((model.interval = Number(v)), true),
    BYDAY: (v) => readByDay(v, model),
    BYMONTHDAY: (v) => /^-?\d+(,-?\d+)*$/.test(v) && Object.assign(model, { monthMode: "days", monthDays: v.split(",").join(", ") }),
    BYMONTH: (v) => /^\d+$/.test(v) && Boolean((model.month = v)),
    BYHOUR: (v) => /^\d+$/.test(v) && ((model.hour = Number(v)), true),
    BYMINUTE: (v) => /^\d+$/.test(v) && ((model.min = Number(v)), true),
    BYSECOND: (v) => v === "0",
    COUNT: (v) => /^\d+$/.test(v) && Object.assign(model, { endMode: "count", count: v }),
    UNTIL: (v) => /^\d{8}(T\d{6})?$/.test(v) && Object.assign(model, { endMode: "until", until: unstamp(v) }),
    WKST: (v) => v === "MO",
  };
  for (const part of rule.split(";").filter(Boolean)) {
    const [name, value = ""] = part.toUpperCase().split("=");
    if (!handlers[name] || !handlers[name](value)) return false;
  }
  return true;
}

function readByDay(value, model) {
  const plain = value.split(",");
  if (plain.every((d) => WEEKDAYS.includes(d))) return Boolean((model.weekdays = plain));
  const nth = /^(-1|[1-4])(MO|TU|WE|TH|FR|SA|SU)$/.exec(value);
  if (!nth) return false;
  return Object.assign(model, { monthMode: "nth", nth: nth[1], nthDay: nth[2] });
}

function finish(model) {
  const [startHour, startMinute] = (model.start.split("T")[1] || "09:00").split(":").map(Number);
  model.hour ??= startHour;
  model.min ??= startMinute;
  if (model.freq === "HOURLY") model.minute = String(model.min ?? 0);
  else if (model.freq !== "MINUTELY") model.time = `${pad(model.hour ?? 9)}:${pad(model.min ?? 0)}`;
  if (model.freq === "WEEKLY" && model.monthMode === "nth") return null;
  delete model.hour;
  delete model.min;
  return model;
}

/** The builder model for `text` (RRULE, DTSTART+RRULE, or simple cron), or null. */
export function fromText(text) {
  const trimmed = text.trim();
  const cron = fromCron(trimmed);
  if (cron) return cron;
  const model = { ...defaultModel(), weekdays: [], interval: 1 };
  let rest = trimmed;
  const start = /^DTSTART:(\d{8}T\d{6})\s+RRULE:/i.exec(rest);
  if (start) {
    model.start = unstamp(start[1]);
    rest = rest.slice(start[0].length);
  } else rest = rest.replace(/^RRULE:/i, "");
  if (!/^FREQ=/i.test(rest) || /\s/.test(rest)) return null;
  return readRule(rest, model) ? finish(model) : null;
}

const CRON_DAYS = { "1-5": ["MO", "TU", "WE", "TH", "FR"], "*": null };

/** "M H * * DOW" and "M H D * *" crons, the ones the builder can show. */
function fromCron(text) {
  const f = text.split(/\s+/);
  if (f.length !== 5 || !/^\d+$/.test(f[0]) || !/^\d+$/.test(f[1]) || f[3] !== "*") return null;
  const model = { ...defaultModel(), time: `${pad(f[1])}:${pad(f[0])}` };
  if (f[2] !== "*") {
    if (f[4] !== "*" || !/^\d+(,\d+)*$/.test(f[2])) return null;
    return Object.assign(model, { freq: "MONTHLY", monthMode: "days", monthDays: f[2].split(",").join(", ") });
  }
  if (f[4] in CRON_DAYS) {
    const days = CRON_DAYS[f[4]];
    return days ? Object.assign(model, { freq: "WEEKLY", weekdays: days }) : Object.assign(model, { freq: "DAILY", weekdays: [] });
  }
  if (!/^[0-6](,[0-6])*$/.test(f[4])) return null;
  const names = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"];
  return Object.assign(model, { freq: "WEEKLY", weekdays: f[4].split(",").map((d) => names[Number(d)]) });
}
