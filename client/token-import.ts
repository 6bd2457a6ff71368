/**
 * Importing tokens in bulk from JSON Lines, as `svc token import` and the console's import do it:
 * one `POST /tokenize` with an array of token definitions per batch of lines (one transaction),
 * instead of one request per line. The rule of what may be batched and the batch size live here
 * once, for both. This module imports nothing of the vault's own code.
 */

/** Lines per batch (`svc token import --batch`, the console's import). */
export const IMPORT_BATCH_LINES = 100;
/** The most lines one batch may hold. */
export const MAX_IMPORT_BATCH_LINES = 1000;

/** What the batching rule looks at in a line's token create request. */
export interface ImportRequest {
  readonly type?: unknown;
  readonly data?: unknown;
  readonly deduplicate_token?: unknown;
}

/**
 * Whether a line may go through `tokenize` with others. Tokenize answers views without saying
 * whether deduplication returned an existing token, so a line that may be deduplicated (its own
 * `deduplicate_token`, else the tenant's `deduplicate_tokens`) is created on its own, which says so.
 * It must also read as a token definition to tokenize: a string `type` (or none) and non-null `data`.
 */
export function batchable(request: ImportRequest, tenantDedupes: boolean): boolean {
  const dedupes = request.deduplicate_token ?? tenantDedupes;
  return (
    dedupes !== true &&
    (request.type === undefined || typeof request.type === 'string') &&
    request.data !== undefined &&
    request.data !== null
  );
}

/** One line to import: its number in the file and its token create request. */
export interface ImportLine<R extends ImportRequest = ImportRequest> {
  readonly line: number;
  readonly request: R;
}

/** What became of one line: its token (created, or an existing one deduplication returned), or why not. */
export type ImportOutcome =
  | { readonly line: number; readonly ok: true; readonly id: string; readonly created: boolean }
  | { readonly line: number; readonly ok: false; readonly error: unknown };

/** How lines reach the vault: through the HTTP client or the services in-process. */
export interface ImportTransport<R extends ImportRequest> {
  /**
   * `POST /tokenize` with the lines' requests as an array of definitions (a missing `type` sent as
   * `token`: tokenize reads an object as a definition only when it has one), all or nothing: the
   * token ids in their order.
   */
  tokenize(requests: readonly R[]): Promise<readonly string[]>;
  /** `POST /tokens` with one line's request. */
  create(request: R): Promise<{ readonly id: string; readonly created: boolean }>;
  /**
   * Whether an error belongs to the line(s) sent (a validation error, a conflict, a refusal);
   * any other error is the vault's and is thrown on, stopping the import.
   */
  isLineError(error: unknown): boolean;
}

/**
 * Imports one batch: consecutive runs of lines that batch alike, in file order (deduplication sees
 * earlier lines first). A batchable run goes through `tokenize`; when it fails it wrote nothing and
 * is split in halves until each failing line stands alone, and a lone line is created on its own,
 * which gives its reason: a bad line costs a few extra requests, never the good lines around it.
 */
export async function importBatch<R extends ImportRequest>(
  lines: readonly ImportLine<R>[],
  tenantDedupes: boolean,
  transport: ImportTransport<R>,
): Promise<ImportOutcome[]> {
  const outcomes: ImportOutcome[] = [];
  let start = 0;
  while (start < lines.length) {
    const kind = batchable(lines[start]!.request, tenantDedupes);
    let end = start + 1;
    while (end < lines.length && batchable(lines[end]!.request, tenantDedupes) === kind) end++;
    const run = lines.slice(start, end);
    if (kind) await tokenizeRun(run, transport, outcomes);
    else for (const line of run) outcomes.push(await createOne(line, transport));
    start = end;
  }
  return outcomes;
}

async function createOne<R extends ImportRequest>(
  line: ImportLine<R>,
  transport: ImportTransport<R>,
): Promise<ImportOutcome> {
  try {
    const { id, created } = await transport.create(line.request);
    return { line: line.line, ok: true, id, created };
  } catch (error) {
    if (!transport.isLineError(error)) throw error;
    return { line: line.line, ok: false, error };
  }
}

async function tokenizeRun<R extends ImportRequest>(
  lines: readonly ImportLine<R>[],
  transport: ImportTransport<R>,
  outcomes: ImportOutcome[],
): Promise<void> {
  if (lines.length === 0) return;
  if (lines.length === 1) {
    outcomes.push(await createOne(lines[0]!, transport));
    return;
  }
  let ids: readonly string[];
  try {
    ids = await transport.tokenize(lines.map((l) => l.request));
  } catch (error) {
    if (!transport.isLineError(error)) throw error;
    const half = Math.ceil(lines.length / 2);
    await tokenizeRun(lines.slice(0, half), transport, outcomes);
    await tokenizeRun(lines.slice(half), transport, outcomes);
    return;
  }
  if (ids.length !== lines.length) throw new Error('tokenize answered a batch with an unexpected shape');
  lines.forEach((l, i) => outcomes.push({ line: l.line, ok: true, id: ids[i]!, created: true }));
}
