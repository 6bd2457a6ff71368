import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { tokenApi, unwrap } from '../api/client';
import { CodeEditor } from '../code/lazy-code-editor';
import { pretty } from '../code/json-text';
import { ProblemAlert } from '../components/states';
import { useToast } from '../components/toast';
import { JsonlImport } from '../tokens/jsonl-import';
import { TokenAccessBar, TokenAccessGate } from '../tokens/token-access';

/**
 * Tokenize and import, one screen of their own: both act through the same token access as the
 * Tokens screen (the session's application, or the application whose key was given), since
 * creating tokens is an application's permission, never a member's.
 */
export function TokenToolsPage() {
  return (
    <TokenAccessGate title="Tokenize & import">
      {(access) => (
        <section aria-labelledby="tools-title">
          <div className="page-header">
            <h1 id="tools-title">Tokenize &amp; import</h1>
            <div className="acting-as">
              <TokenAccessBar access={access} />
            </div>
          </div>
          <TokenizePlayground />
          <JsonlImport />
        </section>
      )}
    </TokenAccessGate>
  );
}

const PLAYGROUND_EXAMPLE = `{
  "name": "Jane Doe",
  "card": { "number": "4242424242424242", "cvc": "123" },
  "phones": ["+1 555 0100", "+1 555 0101"]
}
`;

/** The position JSON.parse names, as a line and column of the text, for the editor's mark. */
function parseError(text: string): { line: number; column: number; message: string } | null {
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    const message = error instanceof Error ? error.message : 'not JSON';
    const at = /line (\d+) column (\d+)/.exec(message);
    const position = /position (\d+)/.exec(message);
    if (at !== null) return { line: Number(at[1]), column: Number(at[2]), message };
    if (position !== null) {
      const before = text.slice(0, Number(position[1])).split('\n');
      return { line: before.length, column: (before[before.length - 1]?.length ?? 0) + 1, message };
    }
    return { line: 1, column: 1, message };
  }
}

/** POST /tokenize with any JSON: every value comes back as a token id, or the problem does. */
export function TokenizePlayground() {
  const queryClient = useQueryClient();
  const toast = useToast();
  const [input, setInput] = useState(PLAYGROUND_EXAMPLE);
  const invalid = parseError(input);
  const tokenize = useMutation({
    mutationFn: () => unwrap(tokenApi.POST('/tokenize', { body: JSON.parse(input) as unknown })),
    onSuccess: async () => {
      toast('Tokenized: the tokens are in the vault.');
      await queryClient.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (invalid === null) tokenize.mutate();
  };
  return (
    <form noValidate className="card" onSubmit={submit} aria-labelledby="playground-title">
      <h2 id="playground-title">Tokenize playground</h2>
      <p className="hint">
        Any JSON: each value becomes a token (of type token) and the same shape comes back with token ids. The
        tokens are real and stay in the vault.
      </p>
      <div className="playground">
        <CodeEditor
          label="Request (JSON)"
          language="json"
          value={input}
          onChange={setInput}
          errors={invalid === null ? [] : [invalid]}
          wrap
        />
        <div className="result">
          <span className="label" id="playground-response">
            Response
          </span>
          {tokenize.isPending && <p role="status">Tokenizing…</p>}
          <ProblemAlert error={tokenize.error} withFields />
          {tokenize.data !== undefined ? (
            <pre aria-labelledby="playground-response">{pretty(tokenize.data)}</pre>
          ) : (
            !tokenize.isPending && tokenize.error === null && <p className="hint">Nothing sent yet.</p>
          )}
        </div>
      </div>
      <button type="submit" className="primary" disabled={invalid !== null || tokenize.isPending}>
        Tokenize
      </button>
    </form>
  );
}
