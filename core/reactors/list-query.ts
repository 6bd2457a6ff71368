import type { Page, PageRequest } from '../common-types.ts';
import { checkPage } from '../validation/fields.ts';
import { MAX_REACTOR_PAGE_SIZE } from './contract.ts';
import type { NameFilter } from './contract.ts';

/** `*` matches any run of characters; without one, the name contains the text. Case-insensitive. */
export function nameMatcher(pattern: string | undefined): ((name: string) => boolean) | undefined {
  if (pattern === undefined || pattern === '') return undefined;
  const parts = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const body = parts.join('.*');
  const regex = new RegExp(pattern.includes('*') ? `^${body}$` : body, 'is');
  return (name) => regex.test(name);
}

/** What a formula or reactor list can be narrowed by. */
interface Listed {
  readonly id: string;
  readonly name: string;
}

/** A formula or reactor list's request, checked: `page` answers it from the items in list order. */
export interface ListQuery {
  /** The ids asked for (lower-cased), if any: a store may read only those. */
  readonly ids: readonly string[] | undefined;
  /** The window of `items` whose id is asked for and whose name matches, and how many match in all. */
  page<T extends Listed>(items: readonly T[]): Page<T>;
}

/** What a formula or reactor list asks for: its page window, its name pattern and its ids (any case). */
export function listQuery(filter: NameFilter, page: PageRequest): ListQuery {
  const window = checkPage(page, MAX_REACTOR_PAGE_SIZE);
  const matches = nameMatcher(filter.name);
  const ids = filter.ids?.map((id) => id.toLowerCase());
  return {
    ids,
    page(items) {
      const kept = items.filter(
        (item) => (ids === undefined || ids.includes(item.id)) && (matches?.(item.name) ?? true),
      );
      return { total: kept.length, items: kept.slice(window.offset, window.offset + window.limit) };
    },
  };
}
