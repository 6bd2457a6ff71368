import type { CliDeps } from '../runtime/deps.ts';
import { writeTable } from './table.ts';
import { writeJson, writeLine } from './write.ts';

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

/** How a paginated list prints as a table: its rows, its plural noun, what an empty list says. */
export interface ListPageView<T> {
  readonly columns: readonly string[];
  readonly row: (item: T) => readonly string[];
  readonly noun: string;
  /** On stderr when the list holds nothing at all. */
  readonly none: string;
}

/**
 * A page of a paginated list: the JSON envelope with --json; else `none` (nothing at all) or "No
 * <noun> on page N (T in all)." on stderr when the page is empty, or the table and the page footer.
 */
export function writeListPage<T>(
  deps: CliDeps,
  page: { readonly total: number; readonly items: readonly T[] },
  request: { readonly page: number; readonly size: number; readonly json: boolean },
  view: ListPageView<T>,
): void {
  if (request.json) {
    writeJson(deps.stdout, pagedJson(page, request));
    return;
  }
  if (page.items.length === 0) {
    const emptyPage = `No ${view.noun} on page ${request.page} (${page.total} in all).`;
    writeLine(deps.stderr, page.total === 0 ? view.none : emptyPage);
    return;
  }
  writeTable(deps, view.columns, page.items.map(view.row));
  writePageFooter(deps, page.total, request, view.noun);
}
