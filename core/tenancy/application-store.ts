import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import type { AccessRule } from '../access/rules.ts';
import { appendAudit } from '../audit/audit-log.ts';
import type { AuditOperation } from '../audit/entity-types.ts';
import { generateApiKey } from '../crypto/api-key.ts';
import { VaultError } from '../errors/catalogue.ts';
import type { Application, ApplicationWithKey } from './contract.ts';
import type { ApplicationsTable, Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import { updateAuthenticatedRow, verified, withRowMac } from '../integrity/row-authenticator.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import type { CheckedApplication } from './application-input.ts';
import { isApplicationType } from './application-input.ts';

export const APPLICATION_ENTITY = 'application';

export type ApplicationRow = Selectable<ApplicationsTable>;
type Keys = Pick<VaultHandle, 'keyedHash' | 'hashApiKey' | 'clock'> & RowKeys;

function corrupt(id: string): VaultError {
  return new VaultError('VAULT_CORRUPT', `Application ${id} has malformed stored grants.`);
}

function parseJsonArray(json: string | null, id: string): unknown[] {
  if (json === null) return [];
  const parsed: unknown = JSON.parse(json);
  if (!Array.isArray(parsed)) throw corrupt(id);
  return parsed;
}

/** Stored grants were validated on the way in; this only makes their types explicit. */
export function applicationOf(row: ApplicationRow): Application {
  if (!isApplicationType(row.type)) throw corrupt(row.id);
  const permissions = parseJsonArray(row.permissions, row.id);
  if (!permissions.every((p): p is string => typeof p === 'string')) throw corrupt(row.id);
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    name: row.name,
    type: row.type,
    permissions,
    rules: parseJsonArray(row.rules, row.id) as AccessRule[],
    created_by: row.created_by,
    created_at: row.created_at,
    modified_by: row.modified_by,
    modified_at: row.modified_at,
    expires_at: row.expires_at,
    can_create_expiring_applications: row.can_create_expiring_applications === 1,
  };
}

/**
 * The principal an application acts as: what its API key authenticates to, and what a proxy or
 * reactor it is attached to, or a console session acting through it, runs as.
 */
export function applicationPrincipal(application: Application): Principal {
  return {
    kind: 'application',
    tenantId: application.tenant_id,
    applicationId: application.id,
    applicationType: application.type,
    permissions: application.permissions,
    rules: application.rules,
    canCreateExpiringApplications: application.can_create_expiring_applications,
  };
}

/** Rules are stored as null when there are none, as the schema documents. */
export function grantColumns(grants: { permissions: readonly string[]; rules: readonly AccessRule[] }) {
  return {
    permissions: JSON.stringify(grants.permissions),
    rules: grants.rules.length === 0 ? null : JSON.stringify(grants.rules),
  };
}

/** Fixed wording: names are caller-chosen text, and audit messages must never carry secrets. */
export const APPLICATION_MESSAGES = {
  create: 'Application created',
  read: 'Application read',
  update: 'Application updated',
  regenerate: 'Application key regenerated',
  delete: 'Application deleted',
  expired: 'Application expired',
  sessionEnded: 'Application removed: its console session ended',
} as const;

/** `actor` null: the vault itself (the expiry sweep). */
export async function auditApplication(
  trx: Kysely<Database>,
  vault: Keys,
  actor: Principal | null,
  app: { id: string; tenant_id: string },
  operation: AuditOperation,
  message: string,
): Promise<void> {
  await appendAudit(trx, vault, actor, {
    tenantId: app.tenant_id,
    entityType: APPLICATION_ENTITY,
    entityId: app.id,
    operation,
    message,
  });
}

/**
 * Inserts an application with a fresh key, inside the caller's transaction, with its audit entry.
 * Only the keyed hash of the key is stored; the key is returned this once. `id` defaults to a new
 * random one (a console session's application has one derived from its session).
 */
export async function insertApplication(
  trx: Kysely<Database>,
  vault: Keys,
  actor: Principal,
  tenantId: string,
  input: CheckedApplication,
  id: string = randomUUID(),
): Promise<ApplicationWithKey> {
  const key = generateApiKey();
  // The MAC binds the key's hash, type, grants and expiry to this application and tenant.
  const row: ApplicationRow = withRowMac(vault, 'applications', {
    id,
    tenant_id: tenantId,
    name: input.name,
    type: input.type,
    key_hash: vault.hashApiKey(key),
    ...grantColumns(input),
    created_at: vault.clock.now().toISOString(),
    created_by: actorOf(actor).actor_id,
    modified_at: null,
    modified_by: null,
    expires_at: input.expiresAt,
    can_create_expiring_applications: input.canCreateExpiring ? 1 : 0,
  });
  await trx.insertInto('applications').values(row).execute();
  await auditApplication(trx, vault, actor, row, 'create', APPLICATION_MESSAGES.create);
  return { ...applicationOf(row), key };
}

/** Replaces the key hash: the old key stops working with this commit. */
export async function replaceApplicationKey(
  trx: Kysely<Database>,
  vault: Keys,
  actor: Principal,
  row: ApplicationRow,
): Promise<ApplicationWithKey> {
  const key = generateApiKey();
  const updated = await updateAuthenticatedRow(trx, vault, 'applications', row, {
    key_hash: vault.hashApiKey(key),
    modified_at: vault.clock.now().toISOString(),
    modified_by: actorOf(actor).actor_id,
  });
  await auditApplication(trx, vault, actor, row, 'update', APPLICATION_MESSAGES.regenerate);
  return { ...applicationOf(updated), key };
}

/** The application's row, verified against its MAC (INTEGRITY_FAILED otherwise), or undefined. */
export async function findApplicationRow(
  db: Kysely<Database>,
  keys: RowKeys,
  id: string,
): Promise<ApplicationRow | undefined> {
  return verified(
    keys,
    'applications',
    await db.selectFrom('applications').selectAll().where('id', '=', id).executeTakeFirst(),
  );
}

/**
 * The names of those of `ids` that are applications of the tenant, in one query: what the audit
 * log shows for its actors. A name only describes (no MAC covers it), so nothing is verified; an id
 * of a deleted application, or of another tenant's, is absent.
 */
export async function applicationNames(
  db: Kysely<Database>,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('applications')
    .select(['id', 'name'])
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}
