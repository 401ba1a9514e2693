import {
  autocompletion,
  completeFromList,
  ifNotIn,
  type CompletionSource,
} from '@codemirror/autocomplete';
import { indentWithTab } from '@codemirror/commands';
import { localCompletionSource, python } from '@codemirror/lang-python';
import { linter, lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';
import { cspNonce } from '../csp-nonce';
import { starlarkNames } from '../starlark-names';

/** Not inside strings and comments, where a name is only text. */
const NOT_IN = ['String', 'FormatString', 'Comment'];

/**
 * Completion offers the names the script defines and Starlark's and Steward's own; the Python
 * mode's list (import, class, open, …) is replaced, since none of it runs here.
 */
const starlarkCompletion: CompletionSource[] = [
  localCompletionSource,
  ifNotIn(NOT_IN, completeFromList(starlarkNames)),
];

/** A problem at a 1-based line and column, as `invalid_script` answers carry them. */
export interface SourceProblem {
  line: number;
  column: number;
  message: string;
}

function toDiagnostics(state: EditorState, problems: SourceProblem[]): Diagnostic[] {
  return problems.map((p) => {
    const line = state.doc.line(Math.min(Math.max(p.line, 1), state.doc.lines));
    const from = Math.min(line.from + Math.max(p.column - 1, 0), line.to);
    return { from, to: Math.min(from + 1, line.to) || from, severity: 'error', message: p.message };
  });
}

/**
 * Starlark source in CodeMirror (Python highlighting, which Starlark's syntax is a subset of).
 * Read-only for viewing; editable with `onChange`. `problems` are shown at their line and column.
 */
export default function CodeEditor({
  value,
  onChange,
  readOnly = false,
  problems = [],
  label,
  minHeight = 120,
}: {
  value: string;
  onChange?: (value: string) => void;
  readOnly?: boolean;
  problems?: SourceProblem[];
  label: string;
  minHeight?: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup,
          python(),
          autocompletion({ override: starlarkCompletion }),
          // Tab indents; Escape then Tab leaves the editor (CodeMirror's rule), said in the page.
          ...(readOnly ? [] : [keymap.of([indentWithTab])]),
          lintGutter(),
          linter(null),
          EditorView.cspNonce.of(cspNonce),
          EditorState.readOnly.of(readOnly),
          EditorView.editable.of(!readOnly),
          // Focusable also when read-only: the view scrolls, and a keyboard must reach it.
          EditorView.contentAttributes.of({
            'aria-label': label,
            tabindex: '0',
            ...(readOnly ? { 'aria-readonly': 'true' } : {}),
          }),
          EditorView.theme({
            '&': { fontSize: '13px' },
            '.cm-content, .cm-gutter': { minHeight: `${minHeight}px` },
          }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current?.(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor is made once; value and problems are pushed in below.
  }, [readOnly, label, minHeight]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const current = editor.state.doc.toString();
    if (current !== value) {
      editor.dispatch({ changes: { from: 0, to: current.length, insert: value } });
    }
  }, [value]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    editor.dispatch(setDiagnostics(editor.state, toDiagnostics(editor.state, problems)));
  }, [problems]);

  return <div ref={host} className="code-frame" />;
}
