import {
  IMPORT_BATCH_LINES,
  importBatch,
  type ImportLine,
  type ImportRequest,
  type ImportTransport,
} from '../../../../client/token-import.js';
import { jsonlLines, type LineOutcome } from './jsonl.ts';

export interface ImportProgress {
  /** Lines done (imported, refused or not JSON), and all the non-blank lines of the file. */
  readonly done: number;
  readonly total: number;
  /** Every line's outcome so far, in file order. */
  readonly outcomes: readonly LineOutcome[];
}

export interface ImportRunOptions {
  readonly transport: ImportTransport<ImportRequest>;
  /** The tenant's `deduplicate_tokens`: lines that may be deduplicated are created one by one. */
  readonly tenantDedupes: boolean;
  /** A failed line's message, from the error the transport threw for it. */
  readonly messageOf: (error: unknown) => string;
  /** Called after each batch. */
  readonly onProgress: (progress: ImportProgress) => void;
  /** Checked between batches: true stops the run there (a batch is one transaction, never split). */
  readonly stopped: () => boolean;
  readonly batchLines?: number;
}

/**
 * Imports a JSONL text in batches of `IMPORT_BATCH_LINES` lines, as `svc token import` does (the
 * rule in client/token-import.ts): one `POST /tokenize` per batch of lines that may go together, a
 * line of its own for the others and for lines a failed batch singles out. Lines that are not JSON
 * objects fail without a request. An error of the vault's own (not a line's) ends the run: it is
 * thrown after the last progress report, which says how far the import got.
 */
export async function runImport(text: string, options: ImportRunOptions): Promise<ImportProgress> {
  const lines = jsonlLines(text);
  const batchLines = options.batchLines ?? IMPORT_BATCH_LINES;
  const outcomes: LineOutcome[] = [];
  let progress: ImportProgress = { done: 0, total: lines.length, outcomes };
  options.onProgress(progress);
  for (let start = 0; start < lines.length; start += batchLines) {
    if (options.stopped()) break;
    const batch = lines.slice(start, start + batchLines);
    const requests: ImportLine[] = [];
    const parsed = new Map<number, LineOutcome>();
    for (const line of batch) {
      if (line.ok) requests.push({ line: line.line, request: line.value as ImportRequest });
      else parsed.set(line.line, { line: line.line, ok: false, message: line.message });
    }
    for (const outcome of await importBatch(requests, options.tenantDedupes, options.transport)) {
      parsed.set(
        outcome.line,
        outcome.ok
          ? { line: outcome.line, ok: true, id: outcome.id, created: outcome.created }
          : { line: outcome.line, ok: false, message: options.messageOf(outcome.error) },
      );
    }
    for (const line of batch) {
      const outcome = parsed.get(line.line);
      if (outcome !== undefined) outcomes.push(outcome);
    }
    progress = { done: outcomes.length, total: lines.length, outcomes };
    options.onProgress(progress);
  }
  return progress;
}
