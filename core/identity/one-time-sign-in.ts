import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { actorOf, operatorIn } from '../access/principal.ts';
import { appendAudit } from '../audit/audit-log.ts';
import { randomBase62 } from '../crypto/api-key.ts';
import { constantTimeEqual } from '../crypto/constant-time.ts';
import { VaultError } from '../errors/catalogue.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import type { Database } from '../storage/schema.ts';
import { TENANT_ENTITY } from '../tenancy/tenants.ts';
import { findTenantRow } from '../tenancy/tenant-store.ts';
import { updateAuthenticatedRow } from '../integrity/row-authenticator.ts';
import { FieldErrorCollector } from '../validation/fields.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { KdfLimits } from '../crypto/root-key.ts';
import { addMember } from '../tenancy/members.ts';
import { hashPassword } from './passwords.ts';
import { insertSession } from './sessions.ts';
import { checkNewUser, findUserByEmail, findUserRow, insertUser } from './users.ts';

/** A link is good for five minutes: long enough to open it, short enough that a stale copy is dead. */
export const ONE_TIME_LINK_TTL_MS = 5 * 60 * 1000;

/** 43 base62 characters ≈ 256 bits; the prefix lets secret scanners recognise a leaked link. */
const SECRET = /^svco_[0-9A-Za-z]{43}$/;

/**
 * The owner to set up at the first console sign-in: the details and password of the operator's
 * tenant's unclaimed owner (no password yet), or a new owner when the tenant has none.
 */
export interface OwnerInput {
  readonly email: string;
  readonly password: string;
  readonly first_name?: string;
  readonly last_name?: string;
}

export interface OneTimeSession {
  readonly token: string;
  readonly expires_at: string;
}

export interface OneTimeSignIn {
  /** A new secret for a sign-in link; only its digest is kept, in this process's memory. */
  issue(): string;
  /**
   * Exchanges a secret once for a session of the operator's tenant's owner. An unknown, used or
   * expired secret is UNAUTHENTICATED. When that owner is not set up yet (it has no password, or
   * the tenant has no owner), `owner` sets it up in the same transaction: the unclaimed owner user
   * gets its e-mail, name and password, or a new user becomes the OWNER. Without `owner` the answer
   * is a field error on `owner` and the secret stays usable, so the console can ask and send again.
   */
  redeem(secret: string, owner?: OwnerInput): Promise<OneTimeSession>;
}

interface Pending {
  readonly digest: Buffer;
  readonly expiresAt: number;
}

const digestOf = (secret: string): Buffer => createHash('sha256').update(secret).digest();

/**
 * One-time sign-in links for whoever unlocked the vault (the process that starts the server holds
 * them; they never touch the database). The operator's tenant is the embedded default's, or else
 * the oldest tenant: the link signs in as its owner.
 */
export function createOneTimeSignIn(
  vault: VaultHandle,
  options: { readonly kdf: KdfLimits; readonly sessionTtlMs: number; readonly linkTtlMs?: number },
): OneTimeSignIn {
  const linkTtlMs = options.linkTtlMs ?? ONE_TIME_LINK_TTL_MS;
  let pending: Pending[] = [];
  const refused = () => new VaultError('UNAUTHENTICATED', 'This sign-in link is unknown, used or expired.');

  /** Takes the secret out of the pending list (synchronously, so two racing uses cannot both win). */
  function take(secret: string): Pending | null {
    const now = vault.clock.now().getTime();
    pending = pending.filter((p) => p.expiresAt > now);
    if (!SECRET.test(secret)) return null;
    const digest = digestOf(secret);
    const found = pending.find((p) => constantTimeEqual(p.digest, digest));
    if (found === undefined) return null;
    pending = pending.filter((p) => p !== found);
    return found;
  }

  return {
    issue() {
      const secret = 'svco_' + randomBase62(43);
      pending.push({ digest: digestOf(secret), expiresAt: vault.clock.now().getTime() + linkTtlMs });
      return secret;
    },

    async redeem(secret, owner) {
      const link = take(secret);
      if (link === null) throw refused();
      try {
        return await signInOperator(vault, options, owner);
      } catch (error) {
        // Nothing was signed in: the link stays usable until it expires.
        pending.push(link);
        throw error;
      }
    },
  };
}

/** The tenant the link signs in to, verified: its `owner_id` decides whose session it makes. */
async function operatorTenant(
  db: Kysely<Database>,
  keys: RowKeys,
): Promise<{ id: string; owner_id: string | null }> {
  const meta = await db
    .selectFrom('vault_meta')
    .select('value')
    .where('key', '=', 'embedded_default')
    .executeTakeFirst();
  const embeddedId = meta ? (JSON.parse(meta.value) as { tenant_id?: unknown }).tenant_id : undefined;
  const first =
    typeof embeddedId === 'string'
      ? { id: embeddedId }
      : await db.selectFrom('tenants').select('id').orderBy('created_at').orderBy('id').executeTakeFirst();
  const row = first === undefined ? undefined : await findTenantRow(db, keys, first.id);
  if (!row) throw new VaultError('NOT_FOUND', 'The vault has no tenant to sign in to.');
  return row;
}

async function signInOperator(
  vault: VaultHandle,
  options: { readonly kdf: KdfLimits; readonly sessionTtlMs: number },
  owner: OwnerInput | undefined,
): Promise<OneTimeSession> {
  const tenant = await operatorTenant(vault.db, vault);
  const current =
    tenant.owner_id === null ? undefined : await findUserRow(vault.db, vault, { id: tenant.owner_id });
  if (current !== undefined && current.password_hash !== null) {
    if (owner !== undefined) {
      const errors = new FieldErrorCollector();
      errors.add('owner', 'the owner of this tenant is already set up');
      errors.throwIfAny();
    }
    const ownerId = current.id;
    const session = await vault.transaction((trx) =>
      insertSession(trx, vault, ownerId, options.sessionTtlMs),
    );
    return { token: session.token, expires_at: session.expiresAt };
  }

  // The owner is missing (a tenant made without one) or unclaimed (the embedded default's owner
  // made without a password): whoever holds the link sets it up, so the console never signs in
  // as an account that nobody can sign in to with a password afterwards.
  const errors = new FieldErrorCollector();
  if (owner === undefined) {
    errors.add('owner', 'the owner of this tenant is not set up yet: give its e-mail, name and password');
    errors.throwIfAny('Set up the owner of this tenant.');
    throw new Error('unreachable');
  }
  const user = checkNewUser(
    {
      email: owner.email,
      password: owner.password,
      first_name: owner.first_name,
      last_name: owner.last_name,
    },
    errors,
  );
  if (user.password === undefined || user.password === '') errors.add('password', 'is required');
  errors.throwIfAny();
  // Hashing is slow: before the transaction holds the vault.
  const hash = await hashPassword(owner.password, options.kdf);
  const claimedId = current?.id ?? null;
  return vault.transaction(async (trx) => {
    // Checked again under the lock: two first sign-ins must not both set up the owner.
    const now = await trx
      .selectFrom('tenants')
      .leftJoin('users', 'users.id', 'tenants.owner_id')
      .select(['tenants.owner_id as owner_id', 'users.password_hash as password_hash'])
      .where('tenants.id', '=', tenant.id)
      .executeTakeFirst();
    if (!now || now.owner_id !== claimedId || (claimedId !== null && now.password_hash !== null)) {
      throw new VaultError('CONFLICT', 'The owner of this tenant was set up meanwhile; sign in again.');
    }
    const actor = operatorIn(tenant.id);
    const at = vault.clock.now().toISOString();
    let ownerId: string;
    if (claimedId !== null) {
      const taken = await findUserByEmail(trx, vault, user.email);
      if (taken !== null && taken.id !== claimedId) {
        throw new VaultError('CONFLICT', 'A user with this e-mail already exists.');
      }
      const claimed = await findUserRow(trx, vault, { id: claimedId });
      if (!claimed)
        throw new VaultError('CONFLICT', 'The owner of this tenant was set up meanwhile; sign in again.');
      await updateAuthenticatedRow(trx, vault, 'users', claimed, {
        email: user.email,
        first_name: user.first_name,
        last_name: user.last_name,
        password_hash: hash,
        modified_at: at,
      });
      await appendAudit(trx, vault, actor, {
        tenantId: tenant.id,
        entityType: TENANT_ENTITY,
        entityId: tenant.id,
        operation: 'update',
        message: 'Tenant owner claimed at the first console sign-in',
      });
      ownerId = claimedId;
    } else {
      const created = await insertUser(trx, vault, user, hash);
      const row = await findTenantRow(trx, vault, tenant.id);
      if (!row) throw new VaultError('NOT_FOUND', 'The vault has no tenant to sign in to.');
      await updateAuthenticatedRow(trx, vault, 'tenants', row, {
        owner_id: created.id,
        modified_at: at,
        modified_by: actorOf(actor).actor_id,
      });
      await appendAudit(trx, vault, actor, {
        tenantId: tenant.id,
        entityType: TENANT_ENTITY,
        entityId: tenant.id,
        operation: 'update',
        message: 'Tenant owner set at the first console sign-in',
      });
      await addMember(trx, vault, actor, { tenantId: tenant.id, userId: created.id, role: 'OWNER' });
      ownerId = created.id;
    }
    const session = await insertSession(trx, vault, ownerId, options.sessionTtlMs);
    return { token: session.token, expires_at: session.expiresAt };
  });
}
