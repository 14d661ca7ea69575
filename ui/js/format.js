// How instants, durations and outcomes read on screen.

export const viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

const formats = new Map();
function formatter(zone) {
  if (!formats.has(zone)) {
    formats.set(zone, new Intl.DateTimeFormat("en-GB", {
      timeZone: zone, weekday: "short", year: "numeric", month: "short", day: "2-digit", hourCycle: "h23",
      hour: "2-digit", minute: "2-digit", timeZoneName: "short",
    }));
  }
  return formats.get(zone);
}

/** "Mon, 23 Nov 2026, 09:00 CET" in `zone` (the viewer's by default); "—" for nothing. */
export function when(iso, zone = viewerZone) {
  if (!iso) return "—";
  try {
    return formatter(zone).format(new Date(iso));
  } catch {
    return iso;
  }
}

/** "in 5 min", "3 h ago": an instant relative to now. */
export function relative(iso) {
  if (!iso) return "";
  const s = (new Date(iso) - Date.now()) / 1000;
  const abs = Math.abs(s);
  const text = abs < 60 ? `${Math.round(abs)} s` : abs < 3600 ? `${Math.round(abs / 60)} min` : abs < 172800 ? `${Math.round(abs / 3600)} h` : `${Math.round(abs / 86400)} days`;
  return s >= 0 ? `in ${text}` : `${text} ago`;
}

/** 1234 -> "1.23 s", 12 -> "12 ms". */
export function ms(value) {
  if (value === null || value === undefined) return "—";
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${Math.round(value)} ms`;
}

export function bytes(value) {
  if (value === null || value === undefined) return "—";
  return value >= 1048576 ? `${(value / 1048576).toFixed(1)} MiB` : `${Math.round(value / 1024)} KiB`;
}

/** Every IANA zone the browser knows, UTC first. */
export function zones() {
  const all = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return ["UTC", ...all.filter((z) => z !== "UTC")];
}

const GOOD = new Set(["ok", "succeeded"]);
const PENDING = new Set(["pending", "running", "not_yet_due", "paused"]);

/** The CSS class of an outcome, fate or status: good, bad, wait or skip. */
export function tone(outcome) {
  if (!outcome) return "none";
  if (GOOD.has(outcome)) return "good";
  if (PENDING.has(outcome)) return "wait";
  if (["skipped", "expired", "cancelled", "missed", "quota"].includes(outcome)) return "skip";
  return "bad";
}

/** JSON for display, compact when short. */
export function json(value) {
  if (value === undefined) return "";
  const text = JSON.stringify(value);
  return text && text.length > 60 ? JSON.stringify(value, null, 2) : text;
}
