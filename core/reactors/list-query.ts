import type { PageRequest } from '../common-types.ts';
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

/** What a formula or reactor list asks for: its page window, its name matcher and its ids (lower-cased). */
export function listQuery(filter: NameFilter, page: PageRequest) {
  return {
    window: checkPage(page, MAX_REACTOR_PAGE_SIZE),
    matches: nameMatcher(filter.name),
    ids: filter.ids?.map((id) => id.toLowerCase()),
  };
}
