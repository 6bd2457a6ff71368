/**
 * Who created or changed something (`created_by`, `modified_by`) as a caller may see it.
 *
 * Actor ids name the tenant's applications and members: management information, like the
 * applications themselves. A caller sees them when it may read applications (members, the operator,
 * management keys holding `application:read`), and its own id always; anyone else sees null. A
 * token's `created_by` once handed a proxy key the id of the tenant's reveal-all application;
 * attaching an application is bounded now (core/tenancy/grant-ceiling.ts, assertMayAttach), so an
 * id alone grants nothing, but it still maps the tenant: which application wrote which token, which
 * keys exist. Searching by `created_by`/`modified_by` follows the same rule, or the terms would
 * confirm ids the answers hide.
 */
import { can } from './authorize.ts';
import type { Principal } from './principal.ts';
import { actorOf } from './principal.ts';
import { VaultError } from '../errors/catalogue.ts';

/** Whether `principal` may see every actor id. */
function seesActors(principal: Principal): boolean {
  return can(principal, 'application:read');
}

/** `actorId` as `principal` may see it: the id itself, or null. */
export function shownActorId(principal: Principal, actorId: string | null): string | null {
  if (actorId === null || seesActors(principal)) return actorId;
  return actorOf(principal).actor_id === actorId ? actorId : null;
}

/** `created_by` and `modified_by` of `record` as `principal` may see them. */
export function withShownActors<T extends { created_by?: string | null; modified_by?: string | null }>(
  principal: Principal,
  record: T,
): T {
  if (seesActors(principal)) return record;
  return {
    ...record,
    ...(record.created_by === undefined ? {} : { created_by: shownActorId(principal, record.created_by) }),
    ...(record.modified_by === undefined ? {} : { modified_by: shownActorId(principal, record.modified_by) }),
  };
}

/** A search term on `field` (created_by, modified_by) for `value`: only for ids the caller may see. */
export function assertMaySearchActor(principal: Principal, field: string, value: string): void {
  if (seesActors(principal) || actorOf(principal).actor_id === value) return;
  throw new VaultError(
    'FORBIDDEN',
    `Searching by ${field} needs 'application:read', except for the caller's own application id.`,
  );
}
