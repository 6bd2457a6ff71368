import { VaultError } from '../core/errors/catalogue.ts';
import Table from 'cli-table3';
import pc from 'picocolors';
import type { CliDeps, Writer } from './deps.ts';

/** Writes one line (the newline is ours, so callers never forget it or double it). */
export function writeLine(out: Writer, text = ''): void {
  out.write(`${text}\n`);
}

/** Pretty JSON on a terminal, one compact line in a pipe (easier to stream and grep). */
/**
 * The CLI's own report objects (vault status, init, start, config…) with snake_case keys, the casing
 * of the API and of every other `--json` output. Only for objects the CLI builds: keys inside
 * domain data (token metadata, say) are the user's and are never renamed.
 */
export function snakeCaseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
      snakeCaseKeys(inner),
    ]),
  );
}

export function writeJson(out: Writer, value: unknown): void {
  writeLine(out, out.isTTY ? JSON.stringify(value, null, 2) : JSON.stringify(value));
}

/** Colour only for a person at a terminal, and never when NO_COLOR is set (no-color.org). */
export function colours(deps: CliDeps, out: Writer = deps.stdout): ReturnType<typeof pc.createColors> {
  const noColor = deps.env.NO_COLOR !== undefined && deps.env.NO_COLOR !== '';
  return pc.createColors(out.isTTY && !noColor);
}

// No rule between rows: a compact table reads better and pastes more cleanly.
const COMPACT = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

/**
 * A table for people; in a pipe, tab-separated lines without borders, so `cut` and `awk` work
 * (the GitHub CLI does the same).
 */
export function writeTable(
  deps: CliDeps,
  head: readonly string[],
  rows: readonly (readonly string[])[],
  options: { readonly wide?: boolean } = {},
): void {
  const out = deps.stdout;
  if (!out.isTTY) {
    for (const row of rows) writeLine(out, row.join('\t'));
    return;
  }
  const bold = colours(deps).bold;
  const width = options.wide === true ? undefined : terminalWidth(deps);
  const colWidths = width === undefined ? undefined : fitColumns(head, rows, width);
  const table = new Table({
    head: head.map((h) => bold(h)),
    chars: COMPACT,
    style: { head: [], border: [] },
    ...(colWidths === undefined ? {} : { colWidths, wordWrap: false }),
  });
  for (const row of rows) table.push([...row]);
  writeLine(out, table.toString());
}

/** The terminal's width: the stream's, else $COLUMNS, else 80. */
function terminalWidth(deps: CliDeps): number {
  const fromEnv = Number(deps.env.COLUMNS);
  return deps.stdout.columns ?? (Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 80);
}

/** Room a column takes beyond its text: one space either side and a border. */
const CELL_PADDING = 3;
const MIN_COLUMN = 6;

/**
 * Column widths (padding included) that fit `width`, or undefined when the table fits as it is. The
 * widest column gives up room first, as `gh` does; cut cells end in '…'. `--wide` skips this.
 */
export function fitColumns(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  width: number,
): number[] | undefined {
  const natural = head.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const total = (widths: readonly number[]) => widths.reduce((sum, w) => sum + w + CELL_PADDING, 1);
  if (total(natural) <= width) return undefined;
  const widths = [...natural];
  while (total(widths) > width) {
    const widest = widths.indexOf(Math.max(...widths));
    if ((widths[widest] ?? 0) <= MIN_COLUMN) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  return widths.map((w) => w + 2);
}

/** Key/value pairs (one record): a two-column table on a terminal, `key<TAB>value` in a pipe. */
export function writeRecord(deps: CliDeps, entries: readonly (readonly [string, string])[]): void {
  const out = deps.stdout;
  if (!out.isTTY) {
    for (const [key, value] of entries) writeLine(out, `${key}\t${value}`);
    return;
  }
  const bold = colours(deps).bold;
  const table = new Table({ chars: COMPACT, style: { head: [], border: [] } });
  for (const [key, value] of entries) table.push({ [bold(key)]: value });
  writeLine(out, table.toString());
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A page as every list command's `--json` prints it: the API's page envelope (`GET /tokens`). */
export function pagedJson<T>(
  page: { readonly total: number; readonly items: readonly T[] },
  request: { readonly page: number; readonly size: number },
): unknown {
  return {
    pagination: {
      total_items: page.total,
      page_number: request.page,
      page_size: request.size,
      total_pages: Math.ceil(page.total / request.size),
    },
    data: page.items,
  };
}

/**
 * A list gathered whole (every tenant, application, proxy, formula, reactor) in the same envelope:
 * one page that holds every item, so every `list --json` has one shape and `.data[]` reads them all.
 */
export function wholeListJson<T>(items: readonly T[]): unknown {
  return pagedJson({ total: items.length, items }, { page: 1, size: Math.max(items.length, 1) });
}

/** "Page 1 of 3 (45 members); next: --page 2" on stderr, when there is more than one page. */
export function writePageFooter(
  deps: CliDeps,
  total: number,
  request: { readonly page: number; readonly size: number },
  noun: string,
): void {
  const pages = Math.ceil(total / request.size);
  if (pages <= 1) return;
  const next = request.page < pages ? `; next: --page ${request.page + 1}` : '';
  writeLine(deps.stderr, `Page ${request.page} of ${pages} (${total} ${noun})${next}`);
}

/**
 * Standard output that can be switched to collect what a command writes instead, so `--jq` can
 * filter the command's JSON after it ran (commands write through `writeJson` as usual).
 */
export interface CapturingWriter extends Writer {
  capture(): void;
  /** What was written since `capture()`, or undefined when not capturing. */
  captured(): string | undefined;
}

export function capturingWriter(out: Writer): CapturingWriter {
  let buffer: string[] | undefined;
  return {
    write(text) {
      if (buffer === undefined) out.write(text);
      else buffer.push(text);
    },
    // While capturing this is a pipe: writeJson prints one compact document per line.
    get isTTY() {
      return buffer === undefined && out.isTTY;
    },
    get columns() {
      return out.columns;
    },
    capture() {
      buffer = [];
    },
    captured() {
      return buffer?.join('');
    },
  };
}

/**
 * Runs a jq expression over JSON documents and returns jq's output, strings raw (`-r`), as `gh --jq`
 * does. jq itself (WebAssembly, the `jq-wasm` package) is loaded only for `--jq`, so other commands
 * do not pay for it. A jq error is a usage error with jq's own first line.
 */
export async function filterWithJq(json: string, expression: string): Promise<string> {
  const jq = await import('jq-wasm');
  // The Emscripten runtime sets process.exitCode when jq fails; the CLI chooses its exit code itself.
  const exitCode = process.exitCode;
  try {
    return await jq.raw(json, expression, ['-r']);
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    throw new VaultError('USAGE', `--jq: ${reason.replace(/^jq: error(?: \(at [^)]*\))?: /, '')}`);
  } finally {
    process.exitCode = exitCode;
  }
}
