// The script part of a rule: runtime, a code editor with line numbers, and a Test run.
import * as api from "../api.js";
import { field, fill, h, problemBox } from "../dom.js";
import { json, ms, tone } from "../format.js";
import { createEditor } from "../../vendor/editor.js";

export const STARTER = `def main(ctx):
    # ctx.kv is this tenant's data; ctx.emit sends an event; print() goes to the run's output.
    count = ctx.kv.get("count", 0) + 1
    ctx.kv.set("count", count)
    print("run", count, "scheduled for", ctx.scheduled_at)
    ctx.emit("reminder", {"count": count})
    return {"count": count}
`;

const RUNTIMES = { python: "Python (restricted)", micropython: "MicroPython (WebAssembly)", wasm: "WebAssembly module" };

/** Runtime select + editor + Test run; `onEdit()` after any change. */
export function scriptPanel(onEdit, getParams) {
  const runtime = h("select", { name: "runtime" }, Object.entries(RUNTIMES).map(([v, t]) => h("option", { value: v }, t)));
  const host = h("div", { class: "code" });
  const codeError = h("p", { class: "field-error", role: "alert", hidden: true });
  const result = h("div", { class: "test-result", "aria-live": "polite" });
  const editor = createEditor(host, { doc: STARTER, label: "Script code", onChange: () => { editor.showError(null); codeError.hidden = true; onEdit(); } });
  runtime.addEventListener("change", () => { editor.setRuntime(runtime.value); onEdit(); });
  const button = h("button", { type: "button", class: "secondary", onclick: testRun }, "Test run");

  async function testRun() {
    button.disabled = true;
    fill(result, h("p", { class: "muted" }, "Running in the sandbox…"));
    try {
      const body = { code: editor.getText(), runtime: runtime.value, params: getParams() };
      showOutcome(await api.post("/v1/rules/test-run", body));
    } catch (error) {
      if (error.field === "code" || error.line) showCodeError(error.line, error.detail);
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
    h("div", { class: "field" }, h("span", { class: "label", id: "code-label" }, "Script code"), host, codeError),
    h("div", { class: "actions" }, button, h("small", { class: "help" }, "Runs once in the real sandbox with a scratch copy of your data; nothing is saved.")),
    result);
  return {
    element,
    showCodeError,
    values: () => ({ runtime: runtime.value, code: editor.getText() }),
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
