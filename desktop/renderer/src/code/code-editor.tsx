import { javascript } from '@codemirror/lang-javascript';
import { json } from '@codemirror/lang-json';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useId, useRef } from 'react';
import { offsetOf, type CompileError } from './compile-error';

/** The console's look inside the shadow root, where styles.css does not reach. */
const EDITOR_THEME = EditorView.theme({
  '&': { maxHeight: '22rem', fontSize: '0.9rem', backgroundColor: '#ffffff' },
  '.cm-scroller': {
    overflow: 'auto',
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
  },
  '&.cm-focused': { outline: '2px solid #0b5cad' },
  '.cm-content': { minHeight: '5rem' },
});

/**
 * A CodeMirror 6 editor for JavaScript or JSON with a label, and the server's compile errors
 * marked at their line and column (an underline and a gutter mark) and listed beneath it as text,
 * so a screen reader hears them too. Tab is left to moving focus (no tab trapping); indentation
 * follows Enter.
 *
 * The editor lives in a shadow root: there CodeMirror gives its styles to the root's adopted
 * (constructed) style sheets, which the console's CSP allows, where in the document itself it
 * would add a <style> element, which `style-src 'self'` refuses. Id references do not cross a
 * shadow root, so the editor is named with aria-label rather than aria-labelledby.
 */
export function CodeEditor({
  label,
  value,
  onChange,
  language,
  errors = [],
  hint,
  readOnly = false,
  wrap = false,
}: {
  readonly label: string;
  readonly value: string;
  readonly onChange: (value: string) => void;
  readonly language: 'javascript' | 'json';
  readonly errors?: readonly CompileError[];
  readonly hint?: string;
  /** Shown and selectable, never changed (an official formula). */
  readonly readOnly?: boolean;
  /** Wrap long lines instead of scrolling sideways (JSON someone pastes on one line). */
  readonly wrap?: boolean;
}) {
  const id = useId();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    if (host.current === null) return;
    const shadow = host.current.shadowRoot ?? host.current.attachShadow({ mode: 'open' });
    const parent = document.createElement('div');
    shadow.replaceChildren(parent);
    const created = new EditorView({
      root: shadow,
      parent,
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup,
          language === 'javascript' ? javascript() : json(),
          lintGutter(),
          EDITOR_THEME,
          EditorView.contentAttributes.of({
            'aria-label': label,
            ...(readOnly ? { 'aria-readonly': 'true' } : {}),
          }),
          EditorState.readOnly.of(readOnly),
          ...(wrap ? [EditorView.lineWrapping] : []),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = created;
    return () => {
      created.destroy();
      view.current = null;
    };
    // The editor is made once per mount; value and errors reach it through the effects below.
  }, [language, label, readOnly, wrap]);

  // A value set from outside (a form reset, a loaded record) replaces the document.
  useEffect(() => {
    const current = view.current;
    if (current === null || current.state.doc.toString() === value) return;
    current.dispatch({ changes: { from: 0, to: current.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    const current = view.current;
    if (current === null) return;
    const doc = current.state.doc.toString();
    const diagnostics: Diagnostic[] = errors.map((e) => {
      const from = offsetOf(doc, e.line, e.column);
      return { from, to: Math.min(from + 1, doc.length), severity: 'error', message: e.message };
    });
    current.dispatch(setDiagnostics(current.state, diagnostics));
  }, [errors]);

  return (
    <div className={errors.length > 0 ? 'field code-field invalid' : 'field code-field'}>
      <span id={`${id}-label`} className="label">
        {label}
      </span>
      <div ref={host} className="code-editor" data-language={language} />
      {hint !== undefined && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
      <ul id={`${id}-errors`} className="field-errors" aria-live="polite">
        {errors.map((e) => (
          <li key={`${e.line}:${e.column}:${e.message}`}>
            Line {e.line}, column {e.column}: {e.message}
          </li>
        ))}
      </ul>
    </div>
  );
}
