/**
 * GET /tokens filters: `id` and `type` (each repeatable, ORed within),
 * `metadata.<key>` (case-insensitive exact, ANDed). At most 100 ids and 50 metadata pairs; a
 * malformed metadata key is a 400. A type no token can have (unknown, or of a later era) matches
 * nothing, like an unknown id: the answer is an empty page, not an error, so a client filtering by
 * a type this vault does not know keeps working.
 */
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { FieldErrorCollector } from '../validation/fields.ts';
import type { TokenFilter } from './contract.ts';
import { metadataKeyProblem } from './metadata.ts';
import { metadataEquals } from './search-sql.ts';

/** How much one token list may filter on: ids, types and metadata keys. The API's schema uses these too. */
export const MAX_FILTER_IDS = 100;
export const MAX_FILTER_TYPES = 20;
export const MAX_FILTER_METADATA = 20;

export function checkFilter(filter: TokenFilter): void {
  const errors = new FieldErrorCollector();
  const { ids, types, metadata } = filter;
  if (filter.parent !== undefined && typeof filter.parent !== 'string')
    errors.add('parent', 'must be a token id');
  if (ids !== undefined) {
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string'))
      errors.add('id', 'must be strings');
    else if (ids.length > MAX_FILTER_IDS) errors.add('id', `at most ${MAX_FILTER_IDS} ids`);
  }
  if (types !== undefined) {
    if (!Array.isArray(types) || !types.every((t) => typeof t === 'string'))
      errors.add('type', 'must be strings');
    else if (types.length > MAX_FILTER_TYPES) errors.add('type', `at most ${MAX_FILTER_TYPES} types`);
  }
  if (metadata !== undefined) {
    const entries = Object.entries(metadata);
    if (entries.length > MAX_FILTER_METADATA) errors.add('metadata', `at most ${MAX_FILTER_METADATA} keys`);
    for (const [key, value] of entries) {
      const problem = metadataKeyProblem(key);
      if (problem !== null) errors.add('metadata', problem);
      else if (typeof value !== 'string') errors.add(`metadata.${key}`, 'must be a string');
    }
  }
  errors.throwIfAny();
}

/** The filter as one SQL condition (true when empty). */
export function filterCondition(
  eb: ExpressionBuilder<Database, 'tokens'>,
  filter: TokenFilter,
): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [];
  if (filter.ids !== undefined && filter.ids.length > 0) parts.push(eb('tokens.id', 'in', [...filter.ids]));
  if (filter.parent !== undefined) {
    const parent = filter.parent;
    parts.push(
      eb(
        'tokens.row_id',
        'in',
        eb
          .selectFrom('token_associations')
          .innerJoin('tokens as parent', 'parent.row_id', 'token_associations.parent_rowid')
          .select('token_associations.child_rowid')
          .whereRef('parent.tenant_id', '=', 'tokens.tenant_id')
          .where('parent.id', '=', parent),
      ),
    );
  }
  if (filter.types !== undefined && filter.types.length > 0)
    parts.push(eb('tokens.type', 'in', [...filter.types]));
  for (const [key, value] of Object.entries(filter.metadata ?? {})) parts.push(metadataEquals(key, value));
  return eb.and(parts);
}
