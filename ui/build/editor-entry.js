// The one bundled dependency of the admin UI: a CodeMirror 6 code editor.
// Rebuild with ./build.sh; the output ui/vendor/editor.js is committed.
import { EditorView, basicSetup } from "codemirror";
import { Compartment, EditorState } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { wast } from "@codemirror/lang-wast";
import { lintGutter, setDiagnostics } from "@codemirror/lint";

const languages = { python, micropython: python, wasm: wast };

/** A code editor in `parent`; `onChange(text)` is called after every edit. */
export function createEditor(parent, { doc = "", runtime = "python", label = "Script", onChange = () => {} }) {
  const language = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        basicSetup,
        keymap.of([indentWithTab]),
        lintGutter(),
        language.of((languages[runtime] || python)()),
        EditorView.contentAttributes.of({ "aria-label": label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    getText: () => view.state.doc.toString(),
    setText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    setRuntime: (name) => view.dispatch({ effects: language.reconfigure((languages[name] || python)()) }),
    /** Mark `message` at 1-based `line` (null clears every mark). */
    showError: (line, message) => {
      if (line == null) return view.dispatch(setDiagnostics(view.state, []));
      const doc = view.state.doc;
      const at = doc.line(Math.min(Math.max(line, 1), doc.lines));
      view.dispatch(setDiagnostics(view.state, [{ from: at.from, to: at.to, severity: "error", message }]));
    },
  };
}
