import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { api, tokenApi, unwrap } from '../api/client';
import { useToast } from '../components/toast';
import { runImport, type ImportProgress } from './import-run';
import { importMessageOf as messageOf, importTransport } from './import-transport';
import { summarize } from './jsonl';

/** The import's requests, as the application the Tokens screen acts as. */
const transport = importTransport(tokenApi);

/** Whether the tenant deduplicates (which lines go one by one); off when it cannot be read. */
async function tenantDedupes(): Promise<boolean> {
  try {
    const tenant = await unwrap(api.GET('/tenants/self'));
    return tenant.settings.deduplicate_tokens === 'true';
  } catch {
    return false;
  }
}

/**
 * Imports a JSONL file read in the browser (nothing is uploaded but the requests), in batches as
 * `svc token import` sends them: each batch of lines is one `POST /tokenize` (one transaction), a
 * failed batch is split until its bad lines stand alone, so the per-line summary stays exact. A
 * failed line does not stop the others; "Stop" ends the run after the current batch.
 */
export function JsonlImport() {
  const queryClient = useQueryClient();
  const toast = useToast();
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const stop = useRef(false);

  const choose = (e: ChangeEvent<HTMLInputElement>) => {
    setFile(e.target.files?.[0] ?? null);
    setProgress(null);
    setProblem(null);
  };

  const run = async (e: FormEvent) => {
    e.preventDefault();
    if (file === null) return;
    stop.current = false;
    setRunning(true);
    setProblem(null);
    try {
      const done = await runImport(await file.text(), {
        transport,
        tenantDedupes: await tenantDedupes(),
        messageOf,
        onProgress: (p) => setProgress({ ...p, outcomes: [...p.outcomes] }),
        stopped: () => stop.current,
      });
      const { created, duplicates } = summarize(done.outcomes);
      toast(`Import done: ${created} created, ${duplicates} duplicates.`);
    } catch (error) {
      setProblem(`The import stopped: ${messageOf(error)}`);
    } finally {
      setRunning(false);
      await queryClient.invalidateQueries({ queryKey: ['tokens'] });
    }
  };

  const summary = progress === null ? null : summarize(progress.outcomes);
  return (
    <form noValidate className="card" onSubmit={(e) => void run(e)} aria-labelledby="import-title">
      <h2 id="import-title">Import JSONL</h2>
      <p className="hint">
        One token create request per line, as for <code>svc token import</code>:{' '}
        {'{"type":"card","data":{…}}'}. The file is read here and sent in batches (one POST /tokenize per
        batch).
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
      {problem !== null && (
        <p className="problem" role="alert">
          {problem}
        </p>
      )}
      {summary !== null && !running && progress !== null && (
        <div className="import-summary" role="status">
          {progress.total === 0 ? (
            <p>The file has no lines to import.</p>
          ) : (
            <p>
              {summary.created} {summary.created === 1 ? 'token' : 'tokens'} created
              {summary.duplicates > 0 ? `, ${summary.duplicates} duplicates` : ''}, {summary.failed.length}{' '}
              {summary.failed.length === 1 ? 'line' : 'lines'} failed
              {progress.done < progress.total
                ? `, stopped after line ${progress.done} of ${progress.total}`
                : ''}
              .
            </p>
          )}
          {summary.failed.length > 0 && (
            <div className="table-wrap">
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
            </div>
          )}
        </div>
      )}
    </form>
  );
}
