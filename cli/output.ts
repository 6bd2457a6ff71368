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

/**
 * Borderless, as `gh` and `kubectl` print tables: a bold header and columns two spaces apart, no box.
 * A light table leaves the room to the cells (ids stay whole at 80 columns).
 */
const LIGHT = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '  ',
};
const LIGHT_STYLE = { head: [], border: [], 'padding-left': 0, 'padding-right': 0 };

/** An id column (`ID`, `Entity ID`): never cut, so what is shown can be pasted into the next command. */
const ID_COLUMN = /(^| )ID$/;
/** Timestamps a person reads as "3h ago" on a terminal (a pipe keeps the ISO form). */
const TIME_COLUMNS = new Set(['Created', 'Since', 'Expires', 'Modified']);

/**
 * A table for people; in a pipe, tab-separated lines without borders, so `cut` and `awk` work
 * (the GitHub CLI does the same). On a terminal, the columns named in TIME_COLUMNS show how long
 * ago (or until) unless `wide`, and the table is fitted to the terminal's width (`fitColumns`).
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
  const wide = options.wide === true;
  const now = deps.clock.now();
  const shown = rows.map((row) =>
    row.map((cell, i) => (!wide && TIME_COLUMNS.has(head[i] ?? '') ? relativeTime(cell, now) : cell)),
  );
  const bold = colours(deps).bold;
  const width = wide ? undefined : terminalWidth(deps);
  const colWidths = width === undefined ? undefined : fitColumns(head, shown, width);
  const table = new Table({
    head: head.map((h) => bold(h)),
    chars: LIGHT,
    style: LIGHT_STYLE,
    ...(colWidths === undefined ? {} : { colWidths, wordWrap: false }),
  });
  for (const row of shown) table.push([...row]);
  writeLine(out, table.toString().replace(/ +$/gm, ''));
}

/** The terminal's width: the stream's, else $COLUMNS, else 80. */
function terminalWidth(deps: CliDeps): number {
  const fromEnv = Number(deps.env.COLUMNS);
  return deps.stdout.columns ?? (Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : 80);
}

/** Room between two columns. */
const COLUMN_GAP = 2;
const MIN_COLUMN = 6;

/**
 * Column widths that fit `width`, or undefined when the table fits as it is. The widest column
 * that is not an id gives up room first, as `gh` does; cut cells end in '…'. Id columns keep their
 * width whatever the terminal (a cut id is of no use). `--wide` skips this.
 */
export function fitColumns(
  head: readonly string[],
  rows: readonly (readonly string[])[],
  width: number,
): number[] | undefined {
  const natural = head.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const total = (widths: readonly number[]) =>
    widths.reduce((sum, w) => sum + w, 0) + COLUMN_GAP * (widths.length - 1);
  if (total(natural) <= width) return undefined;
  const widths = [...natural];
  const cuttable = (i: number) => !ID_COLUMN.test(head[i] ?? '') && (widths[i] ?? 0) > MIN_COLUMN;
  while (total(widths) > width) {
    let widest = -1;
    widths.forEach((w, i) => {
      if (cuttable(i) && (widest === -1 || w > (widths[widest] ?? 0))) widest = i;
    });
    if (widest === -1) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  return widths;
}

/** "just now", "5m ago", "3h ago", "2d ago", "in 3d"; the date past a month; other text as it is. */
export function relativeTime(iso: string, now: Date): string {
  const at = Date.parse(iso);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(iso) || Number.isNaN(at)) return iso;
  const seconds = Math.round((now.getTime() - at) / 1000);
  const span = Math.abs(seconds);
  if (span < 60) return 'just now';
  if (span >= 30 * 86_400) return iso.slice(0, 10);
  const amount =
    span < 3600
      ? `${Math.floor(span / 60)}m`
      : span < 86_400
        ? `${Math.floor(span / 3600)}h`
        : `${Math.floor(span / 86_400)}d`;
  return seconds >= 0 ? `${amount} ago` : `in ${amount}`;
}

/** Key/value pairs (one record): a two-column table on a terminal, `key<TAB>value` in a pipe. */
export function writeRecord(deps: CliDeps, entries: readonly (readonly [string, string])[]): void {
  const out = deps.stdout;
  if (!out.isTTY) {
    for (const [key, value] of entries) writeLine(out, `${key}\t${value}`);
    return;
  }
  const bold = colours(deps).bold;
  const table = new Table({ chars: LIGHT, style: LIGHT_STYLE });
  for (const [key, value] of entries) table.push({ [bold(key)]: value });
  writeLine(out, table.toString().replace(/ +$/gm, ''));
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
