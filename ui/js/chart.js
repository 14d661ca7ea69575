// Runs per hour by outcome: a stacked bar chart drawn as SVG (no chart library, no network).
import { h } from "./dom.js";
import { tone, viewerZone } from "./format.js";

const NS = "http://www.w3.org/2000/svg";
const TONES = [["good", "succeeded"], ["bad", "failed"], ["skip", "skipped / cancelled"], ["wait", "running"]];
const svg = (tag, attrs = {}, ...children) => {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  el.append(...children);
  return el;
};

/** Count `runs` into `hours` hourly buckets ending now: [{start, good, bad, skip, wait}]. */
export function bucket(runs, hours = 24) {
  const end = new Date();
  end.setMinutes(60, 0, 0);
  const start = end.getTime() - hours * 3600_000;
  const buckets = Array.from({ length: hours }, (_, i) => ({ start: new Date(start + i * 3600_000), good: 0, bad: 0, skip: 0, wait: 0 }));
  for (const run of runs) {
    const at = new Date(run.started_at || run.planned_at).getTime();
    const index = Math.floor((at - start) / 3600_000);
    const t = tone(run.outcome || "running");
    if (index >= 0 && index < hours && t in buckets[index]) buckets[index][t]++;
  }
  return buckets;
}

/** The chart of `buckets` with hours labelled in `zone`, a legend, and a text summary. */
export function runsChart(buckets, zone = viewerZone) {
  const hour = new Intl.DateTimeFormat("en-GB", { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: zone });
  const width = 1100, height = 190, pad = 30, barGap = 3;
  const max = Math.max(1, ...buckets.map((b) => b.good + b.bad + b.skip + b.wait));
  const barWidth = (width - pad * 2) / buckets.length;
  const scale = (height - pad * 2) / max;
  const bars = buckets.flatMap((b, i) => {
    let y = height - pad;
    return TONES.filter(([t]) => b[t]).map(([t, label]) => {
      const hgt = b[t] * scale;
      y -= hgt;
      return svg("rect", { x: pad + i * barWidth + barGap / 2, y, width: barWidth - barGap, height: hgt, class: `bar ${t}` },
        svg("title", {}, `${hour.format(b.start)} — ${b[t]} ${label}`));
    });
  });
  const labels = buckets.flatMap((b, i) => (i % 3 ? [] : [svg("text", { x: pad + i * barWidth, y: height - 8, class: "axis" }, hour.format(b.start))]));
  const totals = Object.fromEntries(TONES.map(([t]) => [t, buckets.reduce((n, b) => n + b[t], 0)]));
  const summary = TONES.map(([t, label]) => `${totals[t]} ${label}`).join(", ");
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `Runs per hour, last ${buckets.length} hours: ${summary}`, class: "chart" },
    svg("line", { x1: pad, x2: width - pad, y1: height - pad, y2: height - pad, class: "axis-line" }),
    svg("text", { x: 4, y: pad, class: "axis" }, String(max)),
    ...bars, ...labels);
  return h("figure", { class: "chart-box" }, chart,
    h("figcaption", {}, h("ul", { class: "legend" }, TONES.map(([t, label]) => h("li", {}, h("span", { class: `swatch ${t}` }), `${label}: ${totals[t]}`)))));
}
