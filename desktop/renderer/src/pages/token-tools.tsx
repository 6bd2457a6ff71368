import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { ApiError, tokenApi, unwrap } from '../api/client';
import { CodeEditor } from '../code/code-editor';
import { pretty } from '../code/json-text';
import { ProblemAlert } from '../components/states';
import { jsonlLines, summarize, type LineOutcome } from '../tokens/jsonl';

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
  const [input, setInput] = useState(PLAYGROUND_EXAMPLE);
  const invalid = parseError(input);
  const tokenize = useMutation({
    mutationFn: () => unwrap(tokenApi.POST('/tokenize', { body: JSON.parse(input) as unknown })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['tokens'] }),
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

/** A failed line's message: the server's detail with the fields it names. */
function messageOf(error: unknown): string {
  if (!(error instanceof ApiError)) return error instanceof Error ? error.message : 'failed';
  const fields = Object.entries(error.problem.errors ?? {}).map(([f, m]) => `${f}: ${m.join('; ')}`);
  return [error.message, ...fields].join(' — ');
}

/**
 * Imports a JSONL file read in the browser (nothing is uploaded but the requests): each non-blank
 * line is one POST /tokens request, sent one after another so the progress and the per-line
 * outcome are exact. A failed line does not stop the others.
 */
export function JsonlImport() {
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [outcomes, setOutcomes] = useState<LineOutcome[] | null>(null);
  const [running, setRunning] = useState(false);
  const stop = useRef(false);

  const choose = (e: ChangeEvent<HTMLInputElement>) => {
    setFile(e.target.files?.[0] ?? null);
    setOutcomes(null);
    setProgress(null);
  };

  const run = async (e: FormEvent) => {
    e.preventDefault();
    if (file === null) return;
    const lines = jsonlLines(await file.text());
    const results: LineOutcome[] = [];
    stop.current = false;
    setRunning(true);
    setProgress({ done: 0, total: lines.length });
    setOutcomes([]);
    for (const line of lines) {
      if (stop.current) break;
      if (!line.ok) {
        results.push({ line: line.line, ok: false, message: line.message });
      } else {
        try {
          const token = await unwrap(tokenApi.POST('/tokens', { body: line.value as never }));
          results.push({ line: line.line, ok: true, id: token.id });
        } catch (error) {
          results.push({ line: line.line, ok: false, message: messageOf(error) });
        }
      }
      setProgress({ done: results.length, total: lines.length });
      setOutcomes([...results]);
    }
    setRunning(false);
    await queryClient.invalidateQueries({ queryKey: ['tokens'] });
  };

  const summary = outcomes === null ? null : summarize(outcomes);
  return (
    <form noValidate className="card" onSubmit={(e) => void run(e)} aria-labelledby="import-title">
      <h2 id="import-title">Import JSONL</h2>
      <p className="hint">
        One token create request per line, as for <code>svc token import</code>:{' '}
        {'{"type":"card","data":{…}}'}. The file is read here and each line sent as POST /tokens.
      </p>
      <div className="inline-form">
        <label>
          <span>JSONL file</span>
          <input type="file" accept=".jsonl,.ndjson,.json,.txt,application/x-ndjson" onChange={choose} />
        </label>
        <button type="submit" className="primary" disabled={file === null || running}>
          Import
        </button>
        {running && (
          <button type="button" onClick={() => (stop.current = true)}>
            Stop
          </button>
        )}
      </div>
      {progress !== null && (
        <div className="import-progress">
          <label htmlFor="import-progress">
            {running ? 'Importing' : 'Imported'}: line {progress.done} of {progress.total}
          </label>
          <progress id="import-progress" max={Math.max(progress.total, 1)} value={progress.done} />
        </div>
      )}
      {summary !== null && !running && progress !== null && (
        <div className="import-summary" role="status">
          {progress.total === 0 ? (
            <p>The file has no lines to import.</p>
          ) : (
            <p>
              {summary.created} {summary.created === 1 ? 'token' : 'tokens'} created, {summary.failed.length}{' '}
              {summary.failed.length === 1 ? 'line' : 'lines'} failed
              {progress.done < progress.total
                ? `, stopped after line ${progress.done} of ${progress.total}`
                : ''}
              .
            </p>
          )}
          {summary.failed.length > 0 && (
            <table aria-label="Failed lines">
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Problem</th>
                </tr>
              </thead>
              <tbody>
                {summary.failed.map((f) => (
                  <tr key={f.line} className="line-failed">
                    <td>{f.line}</td>
                    <td>{f.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </form>
  );
}
