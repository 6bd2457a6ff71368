import { lazy, Suspense, type ComponentProps } from 'react';
import type { CodeEditor as Editor } from './code-editor';

/** CodeMirror is most of the console's weight: loaded the first time a screen shows an editor. */
const Loaded = lazy(() => import('./code-editor').then((m) => ({ default: m.CodeEditor })));

/** The code editor (code-editor.tsx), fetched on first use; its label stays in place meanwhile. */
export function CodeEditor(props: ComponentProps<typeof Editor>) {
  return (
    <Suspense
      fallback={
        <div className="field code-field">
          <span className="label">{props.label}</span>
          <p className="state" role="status">
            Loading the editor…
          </p>
        </div>
      }
    >
      <Loaded {...props} />
    </Suspense>
  );
}
