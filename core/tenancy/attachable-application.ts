import type { Kysely } from 'kysely';
import { can } from '../access/authorize.ts';
import type { Principal } from '../access/principal.ts';
import { validationError } from '../errors/catalogue.ts';
import type { Application } from './contract.ts';
import type { Database } from '../storage/schema.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import { applicationOf, findApplicationRow } from './application-store.ts';
import { assertMayAttach, attachRefused } from './grant-ceiling.ts';

/** What a proxy or reactor may run as: never a management key, never an expiring one (it would outlive its expiry there). */
const ATTACHABLE_TYPES: ReadonlySet<string> = new Set(['public', 'private']);

/**
 * The application `id` names for a proxy or reactor of `principal`'s tenant, once the caller may
 * attach it (assertMayAttach). A caller that may read applications is told what is wrong (no such
 * application, wrong type: 400). Any other caller gets one 403 for an unknown id, an application of
 * another tenant or type, and one beyond its reach alike, so attaching is no oracle for which ids
 * exist. Both paths make the same single lookup.
 */
export async function attachableApplication(
  db: Kysely<Database>,
  keys: RowKeys,
  principal: Principal,
  id: string,
): Promise<Application> {
  const wanted = id.toLowerCase();
  const row = await findApplicationRow(db, keys, wanted);
  const application = row === undefined || row.tenant_id !== principal.tenantId ? null : applicationOf(row);
  const maySee = can(principal, 'application:read');
  if (application === null) {
    if (maySee) throw validationError({ 'application.id': ['no such application in this tenant'] });
    throw attachRefused();
  }
  if (!ATTACHABLE_TYPES.has(application.type)) {
    if (maySee) throw validationError({ 'application.id': ['must be a public or private application'] });
    throw attachRefused();
  }
  assertMayAttach(principal, application);
  return application;
}
