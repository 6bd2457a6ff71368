/**
 * Which containers a principal may act on with one token permission, as SQL, so that list and
 * search count and page only what the caller may see (totals stay right). It mirrors `decide`
 * (core/access/rules.ts): a plain permission covers every container; a rule holding the permission
 * covers its container and everything below; a redact rule still counts (the token is listed, its
 * data is not shown). Per row, `transformFor` then gives the transform.
 */
import { sql } from 'kysely';
import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import { authorize, grantedTransform, transformFor } from '../access/authorize.ts';
import type { Condition, TokenRef } from '../access/conditions.ts';
import { containerCovers, isContainer } from '../access/containers.ts';
import type { Permission } from '../access/permissions.ts';
import type { Principal } from '../access/principal.ts';
import type { Transform } from '../access/rules.ts';
import { VaultError, isVaultError } from '../errors/catalogue.ts';
import { tokenNotFound } from './token-store.ts';
import type { Database } from '../storage/schema.ts';

/**
 * `prefixes`: tokens in containers below any prefix, or matching every condition of any of
 * `conditioned` (the conditions of a conditioned rule, expiring applications only).
 */
export type ContainerScope =
  | { readonly kind: 'all' }
  | {
      readonly kind: 'prefixes';
      readonly prefixes: readonly string[];
      readonly conditioned?: readonly (readonly Condition[])[];
    };

/** The scope of `permission`; FORBIDDEN when it covers nothing (users hold no token permission). */
export function containerScope(principal: Principal, permission: Permission): ContainerScope {
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
  const conditioned = principal.rules
    .filter(
      (r) => r.permissions.includes(permission) && r.conditions !== undefined && r.conditions.length > 0,
    )
    .map((r) => r.conditions ?? []);
  if (prefixes.length === 0 && conditioned.length === 0) {
    throw new VaultError('FORBIDDEN', `The caller does not have the '${permission}' permission.`);
  }
  if (prefixes.includes('/')) return { kind: 'all' };
  return { kind: 'prefixes', prefixes: prefixes.sort(), conditioned };
}

/**
 * A case-sensitive prefix match that can use the (tenant_id, container) index on every backend: the
 * range [prefix, prefix with its last character incremented), compared byte-wise (SQLite's BINARY
 * collation; `collate "C"` on PostgreSQL). Container paths hold only letters, digits, `-`, `_` and
 * `/`, so incrementing the last one stays within ASCII.
 */
export function containerPrefix(prefix: string): Expression<SqlBool> {
  if (!/^[A-Za-z0-9_/-]*$/.test(prefix)) return sql<SqlBool>`false`;
  if (prefix === '') return sql<SqlBool>`true`;
  const next = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  const container = sql.ref('tokens.container');
  return sql<SqlBool>`(${container} >= ${prefix} and ${container} < ${next})`;
}

/** The SQL condition of a scope (`true` for everything). */
export function scopeCondition(
  eb: ExpressionBuilder<Database, 'tokens'>,
  scope: ContainerScope,
): Expression<SqlBool> {
  if (scope.kind === 'all') return sql<SqlBool>`true`;
  return eb.or([
    ...scope.prefixes.map((prefix) => containerPrefix(prefix)),
    ...(scope.conditioned ?? []).map((conditions) => eb.and(conditions.map(conditionSql))),
  ]);
}

/** One rule condition as SQL, case-sensitive like conditionsHold (core/access/conditions.ts). */
function conditionSql(condition: Condition): Expression<SqlBool> {
  const column = condition.attribute === 'id' ? sql.ref('tokens.id') : sql.ref('tokens.container');
  if (condition.operator === 'equals') return sql<SqlBool>`${column} = ${condition.value}`;
  return sql<SqlBool>`instr(${column}, ${condition.value}) = 1`;
}

/**
 * The caller's `token:read` transform on `container` as shown (or, with `transformFor` =
 * `grantedTransform`, as its grants give it), or null when it may not read there.
 */
export function readTransformOn(
  principal: Principal,
  token: string | TokenRef,
  decide: typeof transformFor = transformFor,
): Transform | null {
  try {
    return decide(principal, 'token:read', token);
  } catch (error) {
    if (isVaultError(error, 'FORBIDDEN')) return null;
    throw error;
  }
}

const DISCLOSURE: Readonly<Record<Transform, number>> = { redact: 0, mask: 1, reveal: 2 };

/** The transform that shows less of the two. */
export function stricterTransform(a: Transform, b: Transform): Transform {
  return DISCLOSURE[a] <= DISCLOSURE[b] ? a : b;
}

/**
 * `permission`'s transform on an existing token's container. A caller that may not act there gets
 * the same 404 as for a missing id unless it may read the token (then the 403 tells it nothing
 * new): a 403 naming a container it cannot see would confirm that the id exists there.
 */
export function transformOnExisting(
  principal: Principal,
  permission: Permission,
  token: string | TokenRef,
): Transform {
  try {
    return transformFor(principal, permission, token);
  } catch (error) {
    if (isVaultError(error, 'FORBIDDEN') && readTransformOn(principal, token) === null) {
      throw tokenNotFound();
    }
    throw error;
  }
}

/**
 * Changing how a token's data is derived (mask, fingerprint expression, search indexes) or moving it
 * needs plaintext read access (`token:read` with reveal) on every container involved: each of these
 * chooses an expression over data the caller may not see, or a place where others may see more.
 */
export function requireReveal(
  principal: Principal,
  fields: readonly string[],
  containers: readonly string[],
): void {
  if (fields.length === 0) return;
  for (const container of new Set(containers)) {
    if (readTransformOn(principal, container, grantedTransform) !== 'reveal') {
      throw new VaultError(
        'FORBIDDEN',
        `Changing ${fields.join(', ')} needs 'token:read' with the reveal transform on ${container}.`,
      );
    }
  }
}

/**
 * Whether `token:search` reveals in every container the caller may search: `data:` terms match
 * plaintext-derived values, so a caller that sees less than plaintext anywhere could learn data by
 * guessing. Conservative: every rule granting search must reveal, and the plain permission (whose
 * implicit transform is mask) counts only when a revealing rule on `/` comes before it everywhere.
 */
export function searchRevealsEverywhere(principal: Principal): boolean {
  if (principal.kind === 'operator') return true;
  if (principal.kind === 'user') return false;
  const rules = principal.rules.filter((r) => r.permissions.includes('token:search'));
  if (rules.some((r) => r.transform !== 'reveal')) return false;
  return !principal.permissions.includes('token:search') || rules.some((r) => r.container === '/');
}
