import type { Kysely } from 'kysely';
import { operatorIn } from '../access/principal.ts';
import { emailProblems, normalizeEmail } from '../identity/email.ts';
import { findUserByEmail, findUserRow, insertUser } from '../identity/users.ts';
import { verifiedRows } from '../integrity/row-authenticator.ts';
import type { Database } from '../storage/schema.ts';
import { FieldErrorCollector } from '../validation/fields.ts';
import type { VaultHandle } from '../vault/types.ts';
import { APPLICATION_MESSAGES, auditApplication } from './application-store.ts';
import { FIRST_APPLICATION, insertTenant } from './tenants.ts';

const EMBEDDED_DEFAULT = 'embedded_default';

/**
 * The owner of the embedded default's tenant when nobody names one (no terminal at the first
 * start): an address under `.localhost` (reserved, never routed) with no password, so nobody can
 * sign in as it until the operator claims it with `svc user passwd owner@vault.localhost`.
 */
export const EMBEDDED_OWNER_EMAIL = 'owner@vault.localhost';

export interface EmbeddedOwner {
  /** Default EMBEDDED_OWNER_EMAIL. An existing user with this address becomes the owner. */
  readonly email?: string;
  /** A password hash for a NEW owner user; without one the user cannot sign in until claimed. */
  readonly passwordHash?: string;
}

export interface BootstrapResult {
  readonly tenantId: string;
  readonly applicationId: string;
  /** Shown once; only its keyed hash is stored. */
  readonly apiKey: string;
  readonly ownerEmail: string;
  /** False when the owner has no password yet and must be claimed with `svc user passwd`. */
  readonly ownerCanSignIn: boolean;
}

export interface ApplicationSummary {
  readonly id: string;
  readonly tenantId: string;
  readonly name: string;
  readonly type: string;
}

/** Whether `bootstrapEmbeddedDefault` would create the default tenant now (read-only). */
export async function needsEmbeddedDefault(vault: VaultHandle): Promise<boolean> {
  return vault.transaction((trx) => wouldBootstrap(trx));
}

async function wouldBootstrap(trx: Kysely<Database>): Promise<boolean> {
  const done = await trx
    .selectFrom('vault_meta')
    .select('value')
    .where('key', '=', EMBEDDED_DEFAULT)
    .executeTakeFirst();
  if (done) return false;
  const existing = await trx.selectFrom('tenants').select('id').limit(1).executeTakeFirst();
  return existing === undefined;
}

/**
 * The embedded default's first run: one tenant with an OWNER (like any tenant: `owner_id` is set,
 * the owner cannot be removed) and a management application, audited as the operator's. Returns
 * null when the vault was bootstrapped before, so a second start never shows a key again, and when
 * the vault already has tenants (made with `svc tenant create`): serving such a vault must not add
 * a tenant nobody asked for.
 */
export async function bootstrapEmbeddedDefault(
  vault: VaultHandle,
  owner: EmbeddedOwner = {},
): Promise<BootstrapResult | null> {
  const errors = new FieldErrorCollector();
  const email = owner.email ?? EMBEDDED_OWNER_EMAIL;
  for (const problem of emailProblems(email)) errors.add('email', problem);
  errors.throwIfAny();
  return vault.transaction(async (trx) => {
    if (!(await wouldBootstrap(trx))) return null;
    const user =
      (await findUserByEmail(trx, vault, email)) ??
      (await insertUser(
        trx,
        vault,
        { email: normalizeEmail(email), password: undefined, first_name: null, last_name: null },
        owner.passwordHash ?? null,
      ));
    const { tenant, application } = await insertTenant(trx, vault, null, {
      name: 'Default',
      ownerUserId: user.id,
      application: FIRST_APPLICATION,
    });
    if (!application) throw new Error('bootstrap: the first application was not created');
    await trx
      .insertInto('vault_meta')
      .values({
        key: EMBEDDED_DEFAULT,
        value: JSON.stringify({ tenant_id: tenant.id, application_id: application.id }),
      })
      .execute();
    const stored = await findUserRow(trx, vault, { id: user.id });
    const ownerCanSignIn = stored !== undefined && stored.password_hash !== null;
    return {
      tenantId: tenant.id,
      applicationId: application.id,
      apiKey: application.key,
      ownerEmail: user.email ?? email,
      ownerCanSignIn,
    };
  });
}

/** Every application of the vault (operator view, `svc start`); each one's read is audited. */
export async function listApplications(vault: VaultHandle): Promise<ApplicationSummary[]> {
  return vault.transaction(async (trx) => {
    const rows = verifiedRows(
      vault,
      'applications',
      await trx.selectFrom('applications').selectAll().orderBy('created_at').orderBy('id').execute(),
    );
    for (const row of rows) {
      await auditApplication(trx, vault, operatorIn(row.tenant_id), row, 'read', APPLICATION_MESSAGES.read);
    }
    return rows.map((r) => ({ id: r.id, tenantId: r.tenant_id, name: r.name, type: r.type }));
  });
}
