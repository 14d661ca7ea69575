// The rule's policies: each a labelled control with its product default and one line of help.
import { field, h } from "../dom.js";

const choice = (options) => ({ options });
/** [name, label, default, help, control options]; defaults match the engine's RuleSpec. */
export const POLICIES = [
  ["misfire_policy", "When runs were missed", "run_latest", "After downtime: run only the latest missed occurrence, all of them, or skip them.",
    choice({ run_latest: "Run the latest one", run_all: "Run all of them", skip: "Skip them" })],
  ["misfire_grace_s", "Grace period (seconds)", "", "How late a run may still start; empty means no limit.", { min: 0 }],
  ["overlap_policy", "If the previous run is still going", "skip", "Skip the new run, run both at once, or queue one to run after.",
    choice({ skip: "Skip the new run", allow: "Run both at once", queue_one: "Queue one" })],
  ["max_attempts", "Attempts", 3, "How many times a failing run is tried in total.", { min: 1, max: 100 }],
  ["backoff_s", "Retry delay (seconds)", 10, "Wait before the first retry; doubles each time, with jitter.", { min: 0, step: "any" }],
  ["backoff_max_s", "Longest retry delay (seconds)", 600, "The retry delay never grows past this.", { min: 0, step: "any" }],
  ["timeout_ms", "Timeout (ms)", 5000, "A run is stopped after this long (capped by your plan).", { min: 1 }],
  ["memory_mb", "Memory limit (MB)", 128, "A run is stopped when it uses more memory than this.", { min: 1 }],
  ["priority", "Priority", 0, "Higher runs first when several are due at the same moment.", { step: 1 }],
  ["jitter_s", "Jitter (seconds)", 0, "Start each run up to this many seconds late at random, to spread load.", { min: 0 }],
];

/** The policies fieldset; `values()` reads them, `set(rule)` shows a rule's, `controls` by name. */
export function policiesFieldset() {
  const controls = {};
  const fields = POLICIES.map(([name, label, fallback, help, opts]) => {
    const control = opts.options
      ? h("select", { name }, Object.entries(opts.options).map(([v, t]) => h("option", { value: v }, t)))
      : h("input", { type: "number", name, ...opts });
    control.value = fallback;
    controls[name] = control;
    return field(label, control, `${help}${fallback === "" ? "" : ` Default: ${opts.options ? opts.options[fallback] : fallback}.`}`);
  });
  const element = h("fieldset", { class: "policies" }, h("legend", {}, "Policies"), h("div", { class: "grid" }, fields));
  return {
    element,
    controls,
    values() {
      const out = {};
      for (const [name, , , , opts] of POLICIES) {
        const raw = controls[name].value;
        out[name] = opts.options ? raw : raw === "" ? null : Number(raw);
      }
      return out;
    },
    set(rule) {
      for (const [name, , fallback] of POLICIES) controls[name].value = rule[name] ?? fallback;
    },
  };
}
