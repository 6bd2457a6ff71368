import Table from 'cli-table3';
import type { CliDeps } from '../runtime/deps.ts';
import { colours, writeLine } from './write.ts';

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
