/**
 * Which containers a principal may act on with one token permission, as SQL, so that list and
 * search count and page only what the caller may see (totals stay right). It mirrors `decide`
 * (core/access/rules.ts): a plain permission covers every container; a rule holding the permission
 * covers its container and everything below; a redact rule still counts (the token is listed, its
 * data is not shown). Per row, `transformFor` then gives the transform.
 */
import { sql } from 'kysely';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { authorize } from '../access/authorize.ts';
import { containerCovers, isContainer } from '../access/containers.ts';
import type { Principal } from '../access/principal.ts';
import { VaultError } from '../errors/catalogue.ts';
import type { Database } from '../storage/schema.ts';

export type ContainerScope =
  { readonly kind: 'all' } | { readonly kind: 'prefixes'; readonly prefixes: readonly string[] };

/** The scope of `permission`; FORBIDDEN when it covers nothing (users hold no token permission). */
export function containerScope(principal: Principal, permission: string): ContainerScope {
  authorize(principal, permission);
  if (principal.kind === 'operator') return { kind: 'all' };
  if (principal.kind === 'user') {
    throw new VaultError('FORBIDDEN', `The caller does not have the '${permission}' permission.`);
  }
  if (principal.permissions.includes(permission)) return { kind: 'all' };
  const containers = [
    ...new Set(principal.rules.filter((r) => r.permissions.includes(permission)).map((r) => r.container)),
  ].filter(isContainer);
  // A container inside another one adds nothing.
  const prefixes = containers.filter(
    (c) => !containers.some((other) => other !== c && containerCovers(other, c)),
  );
  if (prefixes.length === 0) {
    throw new VaultError('FORBIDDEN', `The caller does not have the '${permission}' permission.`);
  }
  if (prefixes.includes('/')) return { kind: 'all' };
  return { kind: 'prefixes', prefixes: prefixes.sort() };
}

/**
 * A case-sensitive prefix match that can use the (tenant_id, container) index. GLOB is safe here:
 * container paths hold only letters, digits, `-`, `_` and `/`, none of which GLOB treats specially.
 */
export function containerPrefix(prefix: string): Expression<SqlBool> {
  if (!/^[A-Za-z0-9_/-]*$/.test(prefix)) return sql<SqlBool>`0`;
  return sql<SqlBool>`${sql.ref('tokens.container')} glob ${`${prefix}*`}`;
}

/** The SQL condition of a scope (`true` for everything). */
export function scopeCondition(
  eb: ExpressionBuilder<Database, 'tokens'>,
  scope: ContainerScope,
): Expression<SqlBool> {
  if (scope.kind === 'all') return sql<SqlBool>`1`;
  return eb.or(scope.prefixes.map((prefix) => containerPrefix(prefix)));
}
