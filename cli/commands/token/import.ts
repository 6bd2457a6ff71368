import { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { IMPORT_BATCH_LINES, MAX_IMPORT_BATCH_LINES, batchable } from '../../../client/token-import.ts';
import { isVaultError, VaultError, type ErrorCode } from '../../../core/errors/catalogue.ts';
import type { CreateTokenRequest, TokenView } from '../../../core/tokens/contract.ts';
import type { Runner } from '../../program/command-kit.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { describeError, EXIT, QuietExit } from '../../runtime/errors.ts';
import { writeJson, writeLine } from '../../output/write.ts';
import { svcCommand } from '../../output/runnable.ts';
import { startProgress, type Progress } from '../../output/progress.ts';
import {
  tokenScopeAction,
  withTokens,
  type RawTokenScope,
  type TokenScope,
  type TokenScopeOptions,
} from './common.ts';
import { addDedupeOptions } from './create.ts';
import {
  fileSource,
  isPlainObject,
  parseJson,
  readText,
  scrubError,
  secretsOf,
  type JsonSource,
} from './input.ts';

export interface TokenImportOptions extends TokenScopeOptions {
  readonly source: JsonSource;
  /** `--dedupe` true, `--no-dedupe` false, neither: each line's `deduplicate_token`, else the tenant's. */
  readonly dedupe: boolean | undefined;
  /** Lines per transaction. */
  readonly batch: number;
  /** The file line to start at (lines before it are skipped): where an interrupted import stopped. */
  readonly resumeFrom: number;
}

export const DEFAULT_BATCH = IMPORT_BATCH_LINES;
const MAX_BATCH = MAX_IMPORT_BATCH_LINES;

function parseLineNumber(text: string): number {
  if (!/^[1-9]\d*$/.test(text)) throw new InvalidArgumentError('Expected a line number (1 or more).');
  return Number(text);
}

function parseBatch(text: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > MAX_BATCH) {
    throw new InvalidArgumentError(`Expected a whole number between 1 and ${MAX_BATCH}.`);
  }
  return value;
}

const HELP_AFTER = `
Each non-blank line is one token create request, as for POST /tokens:
  {"type":"card","data":{"number":"4242424242424242","expiration_month":12,"expiration_year":2030},"metadata":{"customer":"c-42"}}
  {"type":"social_security_number","data":"123-45-6789","id":"customer-42-ssn"}
Fields: ${'id, type (default token), data, mask, fingerprint_expression, containers, metadata, search_indexes, deduplicate_token, expires_at'}.

Lines are imported in transactions of --batch lines; a line that fails is reported and never stops
the others (a failing batch is split until its bad lines stand alone; lines that may be
deduplicated are created one at a time, so that duplicates can be counted). The summary counts created tokens,
duplicates (deduplication returned an existing token) and rejected lines with their line numbers
and reasons; it never shows token data. A progress bar is shown on stderr on a terminal.

Ctrl-C stops the import between batches: the summary counts what went in and prints the command
that resumes at the first line not imported (--resume-from <line>).

Exit status: 0 when every line was imported (created or a duplicate); 1 when any line was
rejected (the other lines are imported all the same; fix the rejected lines and import them
again); 2 for usage errors (e.g. an unreadable file). An error of the vault itself (not of a
line) stops the import: the lines before it stay imported and the summary says where it stopped.`;

export function newTokenImportCommand(
  deps: CliDeps,
  run: Runner<TokenImportOptions> = (o) => runTokenImport(deps, o),
): Command {
  const command = new Command('import')
    .description('Create tokens in bulk from a JSON Lines file; prints a summary')
    .argument('<file.jsonl>', 'one create request per line (- for standard input)')
    .option('--batch <n>', `lines per transaction, 1 to ${MAX_BATCH} (default ${DEFAULT_BATCH})`, parseBatch)
    .option(
      '--resume-from <line>',
      'skip the lines before this one (an interrupted import prints where to resume)',
      parseLineNumber,
    );
  addDedupeOptions(command);
  command.addHelpText('after', HELP_AFTER);
  return tokenScopeAction<RawTokenScope & { dedupe?: boolean; batch?: number; resumeFrom?: number }>(
    command,
    deps,
    (scope, raw, args) =>
      run({
        ...scope,
        source: fileSource(deps, String(args[0])),
        dedupe: raw.dedupe,
        batch: raw.batch ?? DEFAULT_BATCH,
        resumeFrom: raw.resumeFrom ?? 1,
      }),
  );
}

// ---- lines ------------------------------------------------------------------------------------

const REQUEST_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'type',
  'data',
  'mask',
  'fingerprint_expression',
  'containers',
  'metadata',
  'search_indexes',
  'deduplicate_token',
  'expires_at',
]);

interface PendingLine {
  readonly line: number;
  readonly request: CreateTokenRequest;
  /** The line's values, scrubbed from any error about it. */
  readonly secrets: ReadonlySet<string>;
}

export interface Rejection {
  readonly line: number;
  readonly code: ErrorCode;
  /** Error message and field names; never the line's data. */
  readonly reason: string;
}

export interface ImportedLine {
  readonly line: number;
  readonly id: string;
  /** False when deduplication returned an existing token. */
  readonly created: boolean;
}

export interface ImportSummary {
  readonly source: string;
  /** Non-blank lines read. */
  readonly lines: number;
  readonly created: number;
  readonly duplicates: number;
  readonly rejected: number;
  readonly rejections: Rejection[];
  readonly tokens: ImportedLine[];
  /** Set when an error of the vault stopped the import at this line. */
  readonly stopped_at_line?: number;
  /** Set when Ctrl-C stopped the import: the first line not imported (for --resume-from). */
  readonly interrupted_at_line?: number;
}

/** Ctrl-C between batches: `line` is the first line not imported. */
class ImportInterrupted extends Error {
  readonly line: number;

  constructor(line: number) {
    super(`import interrupted at line ${line}`);
    this.name = 'ImportInterrupted';
    this.line = line;
  }
}

/**
 * "unknown field 'container'": names that read like field names are quoted (a typo is then easy
 * to see); anything else could be data put where a key belongs, so it is only counted.
 */
function unknownFields(keys: readonly string[]): string {
  const named = keys.filter((key) => /^[A-Za-z_][A-Za-z_]{0,39}$/.test(key));
  const others = keys.length - named.length;
  const parts = named.map((key) => `'${key}'`);
  if (others > 0) parts.push(`${others} other${others === 1 ? '' : 's'}`);
  return `unknown field${keys.length === 1 ? '' : 's'} ${parts.join(', ')}`;
}

function rejection(line: number, error: VaultError): Rejection {
  return { line, code: error.code, reason: describeError(error) };
}

/** Each non-blank line as a request, or as a rejection; nothing of a line's content is kept in errors. */
export function parseLines(
  text: string,
  dedupe: boolean | undefined,
  resumeFrom = 1,
): { pending: PendingLine[]; rejections: Rejection[]; lines: number } {
  const pending: PendingLine[] = [];
  const rejections: Rejection[] = [];
  let lines = 0;
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((content, index) => {
      const line = index + 1;
      if (content.trim() === '' || line < resumeFrom) return;
      lines++;
      let value: unknown;
      try {
        value = parseJson(content, 'the line');
      } catch (error) {
        rejections.push(rejection(line, error as VaultError));
        return;
      }
      if (!isPlainObject(value)) {
        rejections.push(
          rejection(line, new VaultError('USAGE', 'the line must be a JSON object (a token create request)')),
        );
        return;
      }
      const unknown = Object.keys(value).filter((key) => !REQUEST_FIELDS.has(key));
      if (unknown.length > 0) {
        rejections.push(
          rejection(
            line,
            new VaultError('VALIDATION_FAILED', `${unknownFields(unknown)} (see --help for the fields)`),
          ),
        );
        return;
      }
      // Only the request's own fields are left; core checks their values like any request's.
      const request: CreateTokenRequest = {
        ...value,
        data: value.data,
        ...(dedupe !== undefined && value.deduplicate_token === undefined
          ? { deduplicate_token: dedupe }
          : {}),
      };
      pending.push({ line, request, secrets: secretsOf(value.data) });
    });
  return { pending, rejections, lines };
}

// ---- importing --------------------------------------------------------------------------------

/** Errors that belong to one line; any other error is the vault's and stops the import. */
const LINE_ERRORS: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'CONFLICT',
  'FORBIDDEN',
  'NOT_FOUND',
  'UNPROCESSABLE',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'USAGE',
]);

function isLineError(error: unknown): error is VaultError {
  return isVaultError(error) && LINE_ERRORS.has(error.code);
}

/** An error of the vault at `line`: the import stops, the summary says where. */
class ImportStopped extends Error {
  readonly line: number;

  constructor(line: number, cause: unknown) {
    super(`import stopped at line ${line}`, { cause });
    this.name = 'ImportStopped';
    this.line = line;
  }
}

interface Tally {
  readonly rejections: Rejection[];
  readonly tokens: ImportedLine[];
}

function isView(value: unknown): value is TokenView {
  return isPlainObject(value) && typeof value.id === 'string';
}

function secretsOfLines(lines: readonly PendingLine[]): Set<string> {
  const all = new Set<string>();
  for (const line of lines) for (const secret of line.secrets) all.add(secret);
  return all;
}

async function createOneByOne(scope: TokenScope, lines: readonly PendingLine[], tally: Tally): Promise<void> {
  for (const pending of lines) {
    try {
      const result = await scope.tokens.create(scope.principal, pending.request);
      tally.tokens.push({ line: pending.line, id: result.token.id, created: result.created });
    } catch (error) {
      const scrubbed = scrubError(error, pending.secrets);
      if (!isLineError(scrubbed)) throw new ImportStopped(pending.line, scrubbed);
      tally.rejections.push(rejection(pending.line, scrubbed));
    }
  }
}

/**
 * Batchable lines through `tokenize`, all or nothing. A batch that fails wrote nothing; it is split
 * in halves until each failing line stands alone, and a lone line is created on its own, which
 * gives its reason. So a bad line costs a few extra calls, never the good lines around it.
 */
async function tokenizeBatch(scope: TokenScope, lines: readonly PendingLine[], tally: Tally): Promise<void> {
  const [first] = lines;
  if (first === undefined) return;
  if (lines.length === 1) {
    await createOneByOne(scope, lines, tally);
    return;
  }
  let result: unknown;
  try {
    result = await scope.tokens.tokenize(
      scope.principal,
      lines.map((l) => ({ ...l.request, type: l.request.type ?? 'token' })),
    );
  } catch (error) {
    if (!isLineError(error)) throw new ImportStopped(first.line, scrubError(error, secretsOfLines(lines)));
    const half = Math.ceil(lines.length / 2);
    await tokenizeBatch(scope, lines.slice(0, half), tally);
    await tokenizeBatch(scope, lines.slice(half), tally);
    return;
  }
  if (!Array.isArray(result) || result.length !== lines.length || !result.every(isView)) {
    throw new ImportStopped(
      first.line,
      new VaultError('INTERNAL', 'tokenize answered a batch with an unexpected shape'),
    );
  }
  const views: TokenView[] = result;
  views.forEach((view, i) =>
    tally.tokens.push({ line: lines[i]?.line ?? first.line, id: view.id, created: true }),
  );
}

/** One --batch of lines: consecutive runs that batch alike, in file order (deduplication sees earlier lines first). */
async function importBatch(
  scope: TokenScope,
  lines: readonly PendingLine[],
  tenantDedupes: boolean,
  tally: Tally,
): Promise<void> {
  let start = 0;
  while (start < lines.length) {
    const kind = batchable(lines[start]!.request, tenantDedupes);
    let end = start + 1;
    while (end < lines.length && batchable(lines[end]!.request, tenantDedupes) === kind) end++;
    const run = lines.slice(start, end);
    if (kind) await tokenizeBatch(scope, run, tally);
    else await createOneByOne(scope, run, tally);
    start = end;
  }
}

async function importAll(
  scope: TokenScope,
  pending: readonly PendingLine[],
  batch: number,
  tally: Tally,
  progress: Progress,
  interrupted: () => boolean,
): Promise<void> {
  const tenantDedupes = scope.tenant.settings.deduplicate_tokens === 'true';
  for (let start = 0; start < pending.length; start += batch) {
    const lines = pending.slice(start, start + batch);
    // Between batches only: a batch is one transaction, so a stop never splits one.
    if (interrupted()) throw new ImportInterrupted(lines[0]!.line);
    await importBatch(scope, lines, tenantDedupes, tally);
    progress.increment(lines.length);
  }
}

// ---- summary ----------------------------------------------------------------------------------

const count = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

function writeSummary(deps: CliDeps, summary: ImportSummary, json: boolean): void {
  if (json) {
    writeJson(deps.stdout, summary);
    return;
  }
  const out = deps.stdout;
  writeLine(
    out,
    `Imported ${summary.source}: ${count(summary.lines, 'line', 'lines')}, ${summary.created} created, ` +
      `${count(summary.duplicates, 'duplicate', 'duplicates')}, ${summary.rejected} rejected`,
  );
  if (summary.rejections.length > 0) {
    writeLine(out, 'Rejected lines:');
    for (const r of summary.rejections) writeLine(out, `  line ${r.line}: ${r.reason}`);
  }
  if (summary.interrupted_at_line !== undefined) {
    const source = summary.source === 'standard input' ? '-' : summary.source;
    writeLine(
      out,
      `Interrupted: line ${summary.interrupted_at_line} and the lines after it were not imported. To resume: ` +
        `${svcCommand(deps.env)} token import ${source} --resume-from ${summary.interrupted_at_line}`,
    );
  } else if (summary.stopped_at_line !== undefined) {
    writeLine(
      out,
      `Stopped at line ${summary.stopped_at_line}: it and the lines after it were not imported.`,
    );
  } else if (summary.rejected > 0) {
    writeLine(
      out,
      `${count(summary.rejected, 'line was', 'lines were')} rejected (exit status 1); the others were imported.`,
    );
  }
}

/**
 * The summary of what was sent. An import stopped (Ctrl-C, or an error of the vault) counts the
 * lines before the line it stopped at, and only their rejections: the rest was never sent, and
 * `--resume-from` reads it again.
 */
function summarize(
  options: TokenImportOptions,
  lineNumbers: readonly number[],
  tally: Tally,
  stoppedAt: number | undefined,
  interruptedAt: number | undefined,
): ImportSummary {
  const cut = interruptedAt ?? stoppedAt ?? Infinity;
  const lines = lineNumbers.filter((line) => line < cut).length;
  const rejections = tally.rejections.filter((r) => r.line < cut).sort((a, b) => a.line - b.line);
  const tokens = [...tally.tokens].sort((a, b) => a.line - b.line);
  const created = tokens.filter((t) => t.created).length;
  return {
    source: options.source.kind === 'stdin' ? 'standard input' : (options.source as { path: string }).path,
    lines,
    created,
    duplicates: tokens.length - created,
    rejected: rejections.length,
    rejections,
    tokens,
    ...(stoppedAt === undefined ? {} : { stopped_at_line: stoppedAt }),
    ...(interruptedAt === undefined ? {} : { interrupted_at_line: interruptedAt }),
  };
}

export async function runTokenImport(deps: CliDeps, options: TokenImportOptions): Promise<void> {
  // The file is read and split before the vault is unlocked: an unreadable file fails at once.
  const { pending, rejections, lines } = parseLines(
    await readText(deps, options.source),
    options.dedupe,
    options.resumeFrom,
  );
  // Every non-blank line: a request to send, or rejected as it was read.
  const lineNumbers = [...pending.map((l) => l.line), ...rejections.map((r) => r.line)];
  const tally: Tally = { rejections, tokens: [] };
  let stopped: ImportStopped | undefined;
  let interrupted: ImportInterrupted | undefined;
  let signalled = false;
  void deps.waitForShutdown().then(() => {
    signalled = true;
  });
  try {
    await withTokens(deps, options, async (scope) => {
      const progress = startProgress(deps, lines, 'lines');
      progress.increment(rejections.length);
      try {
        await importAll(scope, pending, options.batch, tally, progress, () => signalled);
      } finally {
        progress.stop();
      }
    });
  } catch (error) {
    if (error instanceof ImportInterrupted) interrupted = error;
    else if (error instanceof ImportStopped) stopped = error;
    else throw error;
  }
  const summary = summarize(options, lineNumbers, tally, stopped?.line, interrupted?.line);
  writeSummary(deps, summary, options.json);
  if (stopped !== undefined) throw stopped.cause;
  if (interrupted !== undefined) throw new VaultError('CANCELLED', interrupted.message);
  if (summary.rejected > 0) throw new QuietExit(EXIT.error);
}
