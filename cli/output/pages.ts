import type { CliDeps } from '../runtime/deps.ts';
import { writeLine } from './write.ts';

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
