/**
 * The search language's tree (search-query.ts) as one SQL condition over `tokens`. Every leaf is
 * two-valued (never SQL NULL), so `NOT` means "everything else", including tokens without the field
 * (`NOT modified_by:x` keeps never-modified tokens).
 * - id, type: exact; fingerprint, created_by, modified_by: exact (null never matches);
 * - container: exact, or prefix when the query ends with `*`;
 * - metadata.<key>: case-insensitive exact (SQLite `lower()`: ASCII letters fold);
 * - data: the keyed hash of the lower-cased value looked up in the tenant's blind indexes; token
 *   data is never decrypted to match;
 * - created_at, modified_at: ranges over the stored UTC ISO text.
 */
import { sql } from 'kysely';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { Database } from '../storage/schema.ts';
import { containerPrefix } from './access-scope.ts';
import type { Hasher } from './token-crypto.ts';
import type { SearchNode } from './search-query.ts';

type Eb = ExpressionBuilder<Database, 'tokens'>;

export interface SearchSqlContext {
  readonly tenantId: string;
  /** The tenant's blind-index hash (lower-cases its input). */
  readonly digest: Hasher;
}

/** JSON path of a metadata key; keys cannot contain `"` (metadata key syntax), so quoting is safe. */
export function metadataPath(key: string): string {
  return `$."${key}"`;
}

/** Case-insensitive exact match of one metadata value (also used by list filters). */
export function metadataEquals(key: string, value: string): Expression<SqlBool> {
  return sql<SqlBool>`coalesce(lower(json_extract(${sql.ref('tokens.metadata')}, ${metadataPath(key)})) = lower(${value}), false)`;
}

function nullableEquals(eb: Eb, column: 'fingerprint' | 'created_by' | 'modified_by', value: string) {
  return eb.and([eb(`tokens.${column}`, 'is not', null), eb(`tokens.${column}`, '=', value)]);
}

function range(eb: Eb, node: Extract<SearchNode, { kind: 'range' }>): Expression<SqlBool> {
  const column = `tokens.${node.field}` as const;
  const parts: Expression<SqlBool>[] = [eb(column, 'is not', null)];
  if (node.min !== null) parts.push(eb(column, node.minInclusive ? '>=' : '>', node.min));
  if (node.max !== null) parts.push(eb(column, node.maxInclusive ? '<=' : '<', node.max));
  return eb.and(parts);
}

export function compileSearch(eb: Eb, node: SearchNode, ctx: SearchSqlContext): Expression<SqlBool> {
  switch (node.kind) {
    case 'and':
      return eb.and([compileSearch(eb, node.left, ctx), compileSearch(eb, node.right, ctx)]);
    case 'or':
      return eb.or([compileSearch(eb, node.left, ctx), compileSearch(eb, node.right, ctx)]);
    case 'not':
      return eb.not(compileSearch(eb, node.node, ctx));
    case 'equals':
      if (node.field === 'id' || node.field === 'type') return eb(`tokens.${node.field}`, '=', node.value);
      return nullableEquals(eb, node.field, node.value);
    case 'container':
      return node.prefix ? containerPrefix(node.value) : eb('tokens.container', '=', node.value);
    case 'metadata':
      return metadataEquals(node.key, node.value);
    case 'data':
      return eb(
        'tokens.row_id',
        'in',
        eb
          .selectFrom('token_search_indexes')
          .select('token_search_indexes.token_rowid')
          .where('token_search_indexes.tenant_id', '=', ctx.tenantId)
          .where('token_search_indexes.digest', '=', ctx.digest(node.value)),
      );
    case 'range':
      return range(eb, node);
  }
}

/** Whether every match of `node` must satisfy one of its `data:` terms (the term itself, or a conjunct of it). */
export function requiresDataTerm(node: SearchNode): boolean {
  if (node.kind === 'data') return true;
  if (node.kind === 'and') return requiresDataTerm(node.left) || requiresDataTerm(node.right);
  return false;
}
