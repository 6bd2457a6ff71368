import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { authorize } from '../access/authorize.ts';
import { MANAGEMENT_PERMISSIONS, type Permission } from '../access/permissions.ts';
import { actorOf, operatorIn } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import { appendAudit } from '../audit/audit-log.ts';
import type { AuditOperation } from '../audit/entity-types.ts';
import { VaultError, validationError } from '../errors/catalogue.ts';
import { addMember, isMemberRole, memberPrincipal } from './members.ts';
import { hashPassword, passwordProblems } from '../identity/passwords.ts';
import { emailProblems, normalizeEmail } from '../identity/email.ts';
import { findUserByEmail, findUserById, insertUser } from '../identity/users.ts';
import type { User } from '../common-types.ts';
import type { ApplicationWithKey, Tenant, TenantService } from './contract.ts';
import type { Database } from '../storage/schema.ts';
import { FieldErrorCollector, checkName } from '../validation/fields.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { KdfLimits } from '../crypto/root-key.ts';
import type { CheckedApplication } from './application-input.ts';
import { insertApplication } from './application-store.ts';
import { checkSettings, parseSettings } from './settings.ts';
import { withShownActors } from '../access/actor-ids.ts';
import { findTenantRow } from './tenant-store.ts';
import type { TenantRow } from './tenant-store.ts';
import {
  updateAuthenticatedRow,
  verifiedRows,
  verifyRow,
  withRowMac,
} from '../integrity/row-authenticator.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';

export const TENANT_ENTITY = 'tenant';

/**
 * Every table whose rows belong to one tenant (a `tenant_id` column). Deleting a tenant empties
 * each of them in the deletion's transaction: a later table (tokens, invitations, …) is one more
 * entry here. Users and sessions are vault-wide and stay; the audit chain is dropped separately.
 */
export const TENANT_SCOPED_TABLES = [
  'proxies',
  'applications',
  'members',
  'token_search_indexes',
  'token_associations',
  'tokens',
  'token_activity',
  'tenant_keys',
  'invitations',
  'reactors',
  'reactor_formulas',
] as const;

/** The first application of a new tenant: everything a management application may hold. */
export const FIRST_APPLICATION: CheckedApplication = {
  name: 'Management',
  type: 'management',
  permissions: [...MANAGEMENT_PERMISSIONS],
  rules: [],
  expiresAt: null,
  canCreateExpiring: false,
};

const MESSAGES = {
  create: 'Tenant created',
  read: 'Tenant read',
  update: 'Tenant updated',
  delete: 'Tenant deleted',
} as const satisfies Partial<Record<AuditOperation, string>>;

type Keys = Pick<VaultHandle, 'keyedHash' | 'hashApiKey' | 'clock'> & RowKeys;

export function tenantOf(row: TenantRow): Tenant {
  return {
    id: row.id,
    owner_id: row.owner_id,
    name: row.name,
    settings: parseSettings(row.settings),
    created_by: row.created_by,
    created_at: row.created_at,
    modified_by: row.modified_by,
    modified_at: row.modified_at,
  };
}

async function auditTenant(
  trx: Kysely<Database>,
  vault: Keys,
  actor: Principal,
  tenantId: string,
  operation: keyof typeof MESSAGES,
): Promise<void> {
  await appendAudit(trx, vault, actor, {
    tenantId,
    entityType: TENANT_ENTITY,
    entityId: tenantId,
    operation,
    message: MESSAGES[operation],
  });
}

/**
 * A tenant, its OWNER member (when there is an owner) and its first application (when asked),
 * inside the caller's transaction, each with its audit entry in the new tenant's chain.
 * `actor` null is the operator. Shared by TenantService.create and the embedded default's bootstrap.
 */
export async function insertTenant(
  trx: Kysely<Database>,
  vault: Keys,
  actor: Principal | null,
  input: { name: string; ownerUserId: string | null; application: CheckedApplication | null },
): Promise<{ tenant: Tenant; application: ApplicationWithKey | null }> {
  const id = randomUUID();
  const who = actor ?? operatorIn(id);
  const row: TenantRow = withRowMac(vault, 'tenants', {
    id,
    owner_id: input.ownerUserId,
    name: input.name,
    settings: '{}',
    created_at: vault.clock.now().toISOString(),
    created_by: actorOf(who).actor_id,
    modified_at: null,
    modified_by: null,
  });
  await trx.insertInto('tenants').values(row).execute();
  await auditTenant(trx, vault, who, id, 'create');
  if (input.ownerUserId !== null) {
    await addMember(trx, vault, who, { tenantId: id, userId: input.ownerUserId, role: 'OWNER' });
  }
  const application = input.application
    ? await insertApplication(trx, vault, who, id, input.application)
    : null;
  return { tenant: tenantOf(row), application };
}

type CreateInput = Parameters<TenantService['create']>[0];

interface CheckedCreate {
  readonly name: string;
  readonly owner:
    | { readonly kind: 'none' }
    | { readonly kind: 'id'; readonly userId: string }
    | { readonly kind: 'email'; readonly email: string; readonly password: string | undefined };
  readonly withApplication: boolean;
}

/**
 * Control characters (line breaks, escapes, NUL), invisible formatting characters (bidi overrides,
 * zero-width joiners) and line separators: a tenant name is shown in mail, terminals and the
 * console, where these can forge headers, fake lines or reorder what a reader sees.
 */
const UNSAFE_NAME_CHARACTER = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** A tenant name: the usual name rules, and none of the characters above. */
export function checkTenantName(errors: FieldErrorCollector, value: unknown): string {
  const name = checkName(errors, value);
  if (UNSAFE_NAME_CHARACTER.test(name))
    errors.add('name', 'must not contain control or invisible formatting characters');
  return name;
}

function checkCreate(input: CreateInput): CheckedCreate {
  const errors = new FieldErrorCollector();
  const name = checkTenantName(errors, input.name);
  const { ownerEmail, ownerPassword, ownerUserId } = input;
  if (ownerEmail !== undefined && ownerUserId !== undefined)
    errors.add('ownerUserId', 'give the owner by e-mail or by user id, not both');
  if (ownerPassword !== undefined && ownerEmail === undefined)
    errors.add('ownerPassword', 'is only used with ownerEmail (a new owner)');
  if (ownerEmail !== undefined) for (const p of emailProblems(ownerEmail)) errors.add('ownerEmail', p);
  if (ownerPassword !== undefined)
    for (const p of passwordProblems(ownerPassword)) errors.add('ownerPassword', p);
  if (ownerUserId !== undefined && (typeof ownerUserId !== 'string' || ownerUserId === ''))
    errors.add('ownerUserId', 'must be a user id');
  if (input.withApplication !== undefined && typeof input.withApplication !== 'boolean')
    errors.add('withApplication', 'must be true or false');
  errors.throwIfAny();
  const owner: CheckedCreate['owner'] =
    ownerUserId !== undefined
      ? { kind: 'id', userId: ownerUserId }
      : ownerEmail !== undefined
        ? { kind: 'email', email: normalizeEmail(ownerEmail), password: ownerPassword }
        : { kind: 'none' };
  return { name, owner, withApplication: input.withApplication ?? true };
}

/** Only the tenant of the principal is ever reachable: there is no tenant id to pass. */
async function loadOwnTenant(
  trx: Kysely<Database>,
  keys: RowKeys,
  principal: Principal,
  permission: Permission,
): Promise<TenantRow> {
  authorize(principal, permission, { tenantId: principal.tenantId });
  const row = await findTenantRow(trx, keys, principal.tenantId);
  if (!row) throw new VaultError('NOT_FOUND', 'No such tenant.');
  return row;
}

export function createTenantService(vault: VaultHandle, kdf: KdfLimits): TenantService {
  return {
    async create(input, actor) {
      const checked = checkCreate(input);
      const { owner } = checked;
      // Hash before the transaction (slow, synchronous), and only for an owner who is new: an
      // existing user keeps their password.
      const hash =
        owner.kind === 'email' &&
        owner.password !== undefined &&
        (await findUserByEmail(vault.db, vault, owner.email)) === null
          ? await hashPassword(owner.password, kdf)
          : null;
      return vault.transaction(async (trx) => {
        let user: User | null = null;
        if (owner.kind === 'id') {
          user = await findUserById(trx, vault, owner.userId);
          if (!user) throw validationError({ ownerUserId: ['no user has this id'] });
        } else if (owner.kind === 'email') {
          user =
            (await findUserByEmail(trx, vault, owner.email)) ??
            (await insertUser(
              trx,
              vault,
              { email: owner.email, password: undefined, first_name: null, last_name: null },
              hash,
            ));
        }
        const created = await insertTenant(trx, vault, actor, {
          name: checked.name,
          ownerUserId: user?.id ?? null,
          application: checked.withApplication ? FIRST_APPLICATION : null,
        });
        return { tenant: created.tenant, owner: user, application: created.application };
      });
    },

    async get(principal) {
      return vault.transaction(async (trx) => {
        const row = await loadOwnTenant(trx, vault, principal, 'tenant:read');
        await auditTenant(trx, vault, principal, row.id, 'read');
        return withShownActors(principal, tenantOf(row));
      });
    },

    async update(principal, input) {
      authorize(principal, 'tenant:update', { tenantId: principal.tenantId });
      const errors = new FieldErrorCollector();
      const name = checkTenantName(errors, input.name);
      // Present: replaces every setting. Omitted: settings stay as they are.
      const settings = input.settings === undefined ? undefined : checkSettings(errors, input.settings);
      errors.throwIfAny();
      return vault.transaction(async (trx) => {
        const row = await loadOwnTenant(trx, vault, principal, 'tenant:update');
        const updated = await updateAuthenticatedRow(trx, vault, 'tenants', row, {
          name,
          ...(settings === undefined ? {} : { settings: JSON.stringify(settings) }),
          modified_at: vault.clock.now().toISOString(),
          modified_by: actorOf(principal).actor_id,
        });
        await auditTenant(trx, vault, principal, row.id, 'update');
        return withShownActors(principal, tenantOf(updated));
      });
    },

    async delete(principal) {
      await vault.transaction(async (trx) => {
        const row = await loadOwnTenant(trx, vault, principal, 'tenant:delete');
        for (const table of TENANT_SCOPED_TABLES) {
          await trx.deleteFrom(table).where('tenant_id', '=', row.id).execute();
        }
        await vault.audit.dropChain(trx, row.id);
        await trx.deleteFrom('tenants').where('id', '=', row.id).execute();
        // The first entry of a fresh chain: the record of the deletion outlives the tenant.
        await auditTenant(trx, vault, principal, row.id, 'delete');
      });
    },

    async listForUser(userId) {
      return vault.transaction(async (trx) => {
        const rows = await trx
          .selectFrom('tenants')
          .innerJoin('members', 'members.tenant_id', 'tenants.id')
          .selectAll('tenants')
          .select([
            'members.id as member_id',
            'members.tenant_id as member_tenant_id',
            'members.user_id as member_user_id',
            'members.role as member_role',
            'members.row_mac as member_row_mac',
          ])
          .where('members.user_id', '=', userId)
          .orderBy('tenants.created_at')
          .orderBy('tenants.id')
          .execute();
        const tenants: Tenant[] = [];
        for (const {
          member_id,
          member_tenant_id,
          member_user_id,
          member_role,
          member_row_mac,
          ...row
        } of rows) {
          // The membership is what lists the tenant: both rows must be the vault's.
          verifyRow(vault, 'members', {
            id: member_id,
            tenant_id: member_tenant_id,
            user_id: member_user_id,
            role: member_role,
            row_mac: member_row_mac,
          });
          verifyRow(vault, 'tenants', row);
          if (!isMemberRole(member_role)) continue;
          // Only the actor id is recorded; no session is known here.
          const actor = memberPrincipal({ id: member_id, tenantId: row.id, userId, role: member_role }, '');
          await auditTenant(trx, vault, actor, row.id, 'read');
          tenants.push(tenantOf(row));
        }
        return tenants;
      });
    },

    async listAll() {
      return vault.transaction(async (trx) => {
        const rows = verifiedRows(
          vault,
          'tenants',
          await trx.selectFrom('tenants').selectAll().orderBy('created_at').orderBy('id').execute(),
        );
        for (const row of rows) await auditTenant(trx, vault, operatorIn(row.id), row.id, 'read');
        return rows.map(tenantOf);
      });
    },
  };
}
