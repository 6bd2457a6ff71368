import type { Page, PageRequest } from '../../../core/services-contract.ts';
import type { TokenView } from '../../../core/tokens/contract.ts';
import type { CliDeps } from '../../runtime/deps.ts';
import { pagedJson, writePageFooter } from '../../output/pages.ts';
import { writeTable } from '../../output/table.ts';
import { writeJson, writeLine } from '../../output/write.ts';

/**
 * How tokens are shown. The commands act as the tenant's operator asking for masked views unless
 * `--reveal` is given (cli/commands/token/common.ts): core shows each token through its own mask,
 * so what is printed here is already what may be printed.
 */

// Control characters (newlines, tabs, ESC) would break a TSV line or drive the terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** One table cell or record value: text as is, unless it holds control characters (then JSON). */
export function cell(text: string): string {
  return CONTROL.test(text) ? JSON.stringify(text) : text;
}

/** Token data (or a masked view) as one line: strings as they are, anything else as compact JSON. */
export function dataText(data: unknown): string {
  return typeof data === 'string' ? cell(data) : JSON.stringify(data);
}

/**
 * The columns of a token table: the id whole, the type, the data as this view shows it (masked by
 * the token's mask unless --reveal; '-' when the view shows none) and when it was made fit 80
 * columns; `--wide` adds the container and the fingerprint.
 */
export function tokenColumns(options: { readonly reveal: boolean; readonly wide: boolean }): string[] {
  const head = ['ID', 'Type', options.reveal ? 'Data' : 'Masked', 'Created'];
  return options.wide ? [...head, 'Container', 'Fingerprint'] : head;
}

export function tokenRow(view: TokenView, wide: boolean): string[] {
  const row = [
    cell(view.id),
    view.type,
    view.data === undefined ? '-' : dataText(view.data),
    view.created_at ?? '-',
  ];
  if (wide) row.push(cell(view.containers.join(',')), view.fingerprint ?? '-');
  return row;
}

function stamp(at: string | null | undefined, by: string | null | undefined): string {
  if (at === null || at === undefined) return '-';
  return by === null || by === undefined ? at : `${at} by ${by}`;
}

/**
 * One token as key/value pairs. `dataLabel` says what the data row holds ("Data (masked)",
 * "Data"); the row is left out when the view has no data.
 */
export function tokenEntries(view: TokenView, dataLabel: string): [string, string][] {
  const metadata = Object.entries(view.metadata ?? {});
  const entries: [string, string][] = [
    ['ID', cell(view.id)],
    ['Tenant', view.tenant_id],
    ['Type', view.type],
    ['Container', cell(view.containers.join(', '))],
    ['Fingerprint', view.fingerprint ?? '-'],
    ['Metadata', metadata.length === 0 ? '-' : cell(metadata.map(([k, v]) => `${k}=${v}`).join(', '))],
    ['Search indexes', String(view.search_indexes?.length ?? 0)],
    ['Expires', view.expires_at ?? '-'],
    ['Created', stamp(view.created_at, view.created_by)],
    ['Modified', stamp(view.modified_at, view.modified_by)],
  ];
  if (view.data !== undefined) entries.push([dataLabel, dataText(view.data)]);
  return entries;
}

export interface PageOutput {
  readonly json: boolean;
  readonly reveal: boolean;
  /** Full cells instead of columns cut to the terminal width. */
  readonly wide: boolean;
  /** Printed on stderr when there is nothing on this page. */
  readonly empty: string;
}

/** What an empty page past the last one says ("No tokens on page 3 (40 in all)."); undefined otherwise. */
export function pastTheEnd(what: string, page: number, total: number): string | undefined {
  return page > 1 && total > 0 ? `No ${what} on page ${page} (${total} in all).` : undefined;
}

/** A page of tokens: JSON envelope, or a table (data only with --reveal) and a footer on stderr. */
export function writeTokenPage(
  deps: CliDeps,
  page: Page<TokenView>,
  request: PageRequest,
  output: PageOutput,
): void {
  if (output.json) {
    writeJson(deps.stdout, pagedJson(page, request));
    return;
  }
  if (page.items.length === 0) {
    writeLine(deps.stderr, output.empty);
    return;
  }
  writeTable(
    deps,
    tokenColumns(output),
    page.items.map((view) => tokenRow(view, output.wide)),
    { wide: output.wide },
  );
  writePageFooter(deps, page.total, request, 'tokens');
}
