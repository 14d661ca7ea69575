// The script part of a rule: runtime, a code editor with line numbers, and a Test run.
import * as api from "../api.js";
import { debounce, field, fill, h, problemBox } from "../dom.js";
import { json, ms, tone } from "../format.js";
import { createEditor } from "../../vendor/editor.js";

export const STARTER = `def main(ctx):
    # ctx.kv: your tenant's data. ctx.emit: send an event.
    # print(): the run's output. The return value is the run's result.
    count = ctx.kv.get("count", 0) + 1
    ctx.kv.set("count", count)
    print("run", count, "scheduled for", ctx.scheduled_at)
    ctx.emit("reminder", {"count": count})
    return {"count": count}
`;

const RUNTIMES = { python: "Python (restricted)", micropython: "MicroPython (WebAssembly)", wasm: "WebAssembly module" };

const CHECK_DELAY_MS = 700;
const TEST_RUN_PATH = "/v1/rules/test-run";
const NO_TEST_RUN = "Not available: this server cannot run a script without saving it yet. "
  + "Compile errors are checked as you type; save the rule and use Run now to run it for real.";

/** Whether the server offers a test run (its OpenAPI document lists the path); asked once. */
let offersTestRun = null;
function testRunOffered() {
  offersTestRun ??= fetch("/openapi.json").then((r) => r.json()).then((doc) => TEST_RUN_PATH in (doc.paths || {})).catch(() => false);
  return offersTestRun;
}

/** Runtime select + editor (checked as you type) + Test run; `onEdit()` after any change,
 *  `getSpec()` the whole rule as it stands (the server validates a script as part of a rule). */
export function scriptPanel(onEdit, getSpec) {
  const runtime = h("select", { name: "runtime" }, Object.entries(RUNTIMES).map(([v, t]) => h("option", { value: v }, t)));
  const host = h("div", { class: "code" });
  const codeError = h("p", { class: "field-error", role: "alert", hidden: true });
  const result = h("div", { class: "test-result", "aria-live": "polite" });
  const codeStatus = h("small", { class: "help", "aria-live": "polite" });
  const keys = h("small", { class: "help" }, "Tab indents; press Esc, then Tab, to move on from the editor.");
  const check = debounce(checkCode, CHECK_DELAY_MS);
  const editor = createEditor(host, { doc: STARTER, label: "Script code", onChange: edited });
  runtime.addEventListener("change", () => { editor.setRuntime(runtime.value); edited(); });

  function edited() {
    editor.showError(null);
    codeError.hidden = true;
    codeStatus.textContent = "";
    onEdit();
    check();
  }

  /** Validate the rule as it stands and report only what concerns the script. */
  async function checkCode() {
    try {
      await api.post("/v1/rules/validate", { ...safeSpec(), schedule: "FREQ=DAILY", timezone: "UTC", ...values() });
      codeStatus.textContent = "✓ Script compiles.";
    } catch (error) {
      const codeProblem = api.fieldErrors(error).find((e) => e.field === "code");
      if (codeProblem) showCodeError(codeProblem.line, codeProblem.message);
    }
  }

  function safeSpec() {
    try {
      const spec = getSpec();
      return { ...spec, name: spec.name || "draft", schedule: spec.schedule || "FREQ=DAILY" };
    } catch {
      return { name: "draft", schedule: "FREQ=DAILY" };
    }
  }

  const values = () => ({ runtime: runtime.value, code: editor.getText() });
  const button = h("button", { type: "button", class: "secondary", onclick: testRun }, "Test run");
  const testHelp = h("small", { class: "help", id: "test-run-help" }, "Runs once in the real sandbox with a scratch copy of your data; nothing is saved.");
  button.setAttribute("aria-describedby", testHelp.id);
  testRunOffered().then((offered) => {
    if (offered) return;
    button.setAttribute("aria-disabled", "true"); // still focusable, so the reason can be found
    testHelp.textContent = NO_TEST_RUN;
  });

  async function testRun() {
    if (button.getAttribute("aria-disabled") === "true") return;
    button.disabled = true;
    fill(result, h("p", { class: "muted" }, "Running in the sandbox…"));
    try {
      const spec = safeSpec();
      const body = { ...values(), params: spec.params || {}, timeout_ms: spec.timeout_ms, memory_mb: spec.memory_mb };
      showOutcome(await api.post(TEST_RUN_PATH, body));
    } catch (error) {
      const codeProblem = api.fieldErrors(error).find((e) => e.field === "code");
      if (codeProblem) showCodeError(codeProblem.line, codeProblem.message);
      fill(result, problemBox(error));
    } finally {
      button.disabled = false;
    }
  }

  function showOutcome(outcome) {
    const status = outcome.status || outcome.outcome;
    if (outcome.error_line) showCodeError(outcome.error_line, outcome.error);
    const kv = outcome.kv_changes || outcome.kv || null;
    fill(result,
      h("p", {}, h("span", { class: `badge ${tone(status)}` }, status), " in ", ms(outcome.duration_ms)),
      outcome.error && h("pre", { class: "error-text" }, outcome.error),
      section("Result", json(outcome.result)),
      section("Output", [outcome.stdout, outcome.stderr].filter(Boolean).join("\n")),
      section("Events", (outcome.events || []).map((e) => `${e.type} ${json(e.payload)}`).join("\n")),
      kv && section("Data changes", json(kv)));
  }

  function showCodeError(line, message) {
    editor.showError(line, message);
    fill(codeError, line ? `Line ${line}: ${message}` : message);
    codeError.hidden = false;
  }

  const element = h("fieldset", { class: "script" }, h("legend", {}, "Script"),
    field("Runtime", runtime),
    h("div", { class: "field" }, h("span", { class: "label", "aria-hidden": "true" }, "Script code"), host, keys, codeError, codeStatus),
    h("div", { class: "actions" }, button, testHelp),
    result);
  return {
    element,
    showCodeError,
    values,
    set(rule) {
      runtime.value = rule.runtime || "python";
      editor.setRuntime(runtime.value);
      editor.setText(rule.code || "");
    },
  };
}

function section(title, text) {
  if (!text) return null;
  return h("div", {}, h("h4", {}, title), h("pre", {}, text));
}
