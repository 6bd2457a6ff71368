import { javascript } from '@codemirror/lang-javascript';
import { json } from '@codemirror/lang-json';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { tags } from '@lezer/highlight';
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
 * CodeMirror's default colours, with the few that fall under a 4.5:1 contrast on white (regular
 * expressions and escapes, type names, invalid code) darkened; it takes precedence over the
 * default, which basicSetup installs only as a fallback.
 */
const READABLE_HIGHLIGHT = HighlightStyle.define([
  { tag: tags.meta, color: '#404740' },
  { tag: tags.link, textDecoration: 'underline' },
  { tag: tags.heading, textDecoration: 'underline', fontWeight: 'bold' },
  { tag: tags.emphasis, fontStyle: 'italic' },
  { tag: tags.strong, fontWeight: 'bold' },
  { tag: tags.strikethrough, textDecoration: 'line-through' },
  { tag: tags.keyword, color: '#708' },
  { tag: [tags.atom, tags.bool, tags.url, tags.contentSeparator, tags.labelName], color: '#219' },
  { tag: [tags.literal, tags.inserted], color: '#164' },
  { tag: [tags.string, tags.deleted], color: '#a11' },
  { tag: [tags.regexp, tags.escape, tags.special(tags.string)], color: '#a33000' },
  { tag: tags.definition(tags.variableName), color: '#00f' },
  { tag: tags.local(tags.variableName), color: '#30a' },
  { tag: [tags.typeName, tags.namespace], color: '#00663a' },
  { tag: tags.className, color: '#167' },
  { tag: [tags.special(tags.variableName), tags.macroName], color: '#256' },
  { tag: tags.definition(tags.propertyName), color: '#00c' },
  { tag: tags.comment, color: '#7a3b00' },
  { tag: tags.invalid, color: '#b00000' },
]);

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
          syntaxHighlighting(READABLE_HIGHLIGHT),
          EDITOR_THEME,
          EditorView.contentAttributes.of({
            'aria-label': label,
            // Focusable by Tab already (contenteditable); said outright, so a checker sees that the
            // editor's scrolling box (a long document) holds something the keyboard reaches.
            tabindex: '0',
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
