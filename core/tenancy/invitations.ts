import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Kysely, Selectable } from 'kysely';
import { authorize } from '../access/authorize.ts';
import type { Permission } from '../access/permissions.ts';
import { actorOf } from '../access/principal.ts';
import type { Principal } from '../access/principal.ts';
import { appendAudit } from '../audit/audit-log.ts';
import type { AuditOperation } from '../audit/entity-types.ts';
import { randomBase62 } from '../crypto/api-key.ts';
import { constantTimeEqual } from '../crypto/constant-time.ts';
import { VaultError, validationError } from '../errors/catalogue.ts';
import { hashPassword, passwordProblems, verifyPassword } from '../identity/passwords.ts';
import { throttleKey } from '../identity/sign-in-throttle.ts';
import type { SignInThrottle } from '../identity/sign-in-throttle.ts';
import { emailProblems, findUserByEmail, insertUser, normalizeEmail } from '../identity/users.ts';
import {
  updateAuthenticatedRow,
  verified,
  verifiedRows,
  verifyRow,
  withRowMac,
} from '../integrity/row-authenticator.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import { invitationMessage } from '../mail/invitation-mail.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Page } from '../common-types.ts';
import type { Database, InvitationsTable } from '../storage/schema.ts';
import { FieldErrorCollector, checkName, checkPage } from '../validation/fields.ts';
import type { KdfLimits, VaultHandle } from '../vault/types.ts';
import type { Invitation, InvitationService, InvitationStatus, Member, SentInvitation } from './contract.ts';
import { addMember, findMemberRow, memberOf } from './members.ts';
import { withShownActors } from '../access/actor-ids.ts';

export const INVITATION_ENTITY = 'tenantInvitation';

/** An invitation is valid this long after creation or the last resend. */
export const INVITATION_TTL_MS = 72 * 60 * 60 * 1000;

/** Page size cap of the invitations list. */
export const MAX_INVITATION_PAGE_SIZE = 100;

/**
 * Longest `email` a request may send (the API's published limit); an address the mail rules accept
 * has at most 254 characters anyway, so this only words the refusal of a longer one.
 */
const EMAIL_REQUEST_MAX = 330;

/** `svci_` + 43 base62 characters from the CSPRNG ≈ 256 bits. */
const SECRET_CHARS = 43;
const SECRET_PREFIX = 'svci_';
const SECRET = /^svci_[0-9A-Za-z]{43}$/;

const INVALID_LINK = 'This invitation link is not valid: it was used, replaced by a resend, or deleted.';
const EXPIRED_LINK = 'This invitation has expired; ask the tenant to resend it.';

const MESSAGES = {
  create: 'Tenant invitation created and sent',
  read: 'Tenant invitation read',
  update: 'Tenant invitation resent',
  delete: 'Tenant invitation deleted',
} as const;

type InvitationRow = Selectable<InvitationsTable>;
/** An invitation as planned before its mail is sent; its MAC is computed when it is written. */
type PlannedInvitation = Omit<InvitationRow, 'row_mac'>;

export function generateInvitationSecret(): string {
  return SECRET_PREFIX + randomBase62(SECRET_CHARS);
}

/**
 * The secret from what a person pastes: the secret itself, or the whole accept link
 * (`…?token=<secret>`). Returns the input unchanged when neither shape is recognised.
 */
export function invitationSecretFrom(linkOrSecret: string): string {
  const trimmed = linkOrSecret.trim();
  if (SECRET.test(trimmed)) return trimmed;
  try {
    return new URL(trimmed).searchParams.get('token') ?? trimmed;
  } catch {
    return trimmed;
  }
}

function statusAt(expiresAt: string, now: Date): InvitationStatus {
  // Both are toISOString() output, which sorts as it compares.
  return expiresAt <= now.toISOString() ? 'EXPIRED' : 'PENDING';
}

function invitationOf(row: PlannedInvitation, now: Date): Invitation {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    email: row.email,
    status: statusAt(row.expires_at, now),
    expires_at: row.expires_at,
    created_by: row.created_by,
    created_at: row.created_at,
    modified_by: row.modified_by,
    modified_at: row.modified_at,
  };
}

async function auditInvitation(
  trx: Kysely<Database>,
  vault: Pick<VaultHandle, 'keyedHash' | 'clock'>,
  actor: Principal,
  row: { id: string; tenant_id: string },
  operation: AuditOperation & keyof typeof MESSAGES,
  message: string = MESSAGES[operation],
): Promise<void> {
  await appendAudit(trx, vault, actor, {
    tenantId: row.tenant_id,
    entityType: INVITATION_ENTITY,
    entityId: row.id,
    operation,
    message,
  });
}

/**
 * Invitation `id` for `permission`: the permission is checked before the lookup; another tenant's
 * invitation is NOT_FOUND exactly like a missing one.
 */
async function loadFor(
  trx: Kysely<Database>,
  keys: RowKeys,
  principal: Principal,
  permissions: readonly Permission[],
  id: string,
): Promise<InvitationRow> {
  for (const p of permissions) authorize(principal, p);
  const row =
    typeof id === 'string'
      ? verified(
          keys,
          'invitations',
          await trx.selectFrom('invitations').selectAll().where('id', '=', id).executeTakeFirst(),
        )
      : undefined;
  if (!row) throw new VaultError('NOT_FOUND', 'Not found.');
  for (const p of permissions) authorize(principal, p, { tenantId: row.tenant_id });
  return row;
}

async function tenantName(trx: Kysely<Database>, tenantId: string): Promise<string> {
  const tenant = await trx.selectFrom('tenants').select('name').where('id', '=', tenantId).executeTakeFirst();
  if (!tenant) throw new VaultError('NOT_FOUND', 'No such tenant.');
  return tenant.name;
}

async function isMemberByEmail(trx: Kysely<Database>, tenantId: string, email: string): Promise<boolean> {
  const row = await trx
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .select('members.id')
    .where('members.tenant_id', '=', tenantId)
    .where('users.email', '=', email)
    .executeTakeFirst();
  return row !== undefined;
}

export interface InvitationServiceOptions {
  readonly mailer: Mailer;
  /** Read each time a link is made. */
  readonly acceptBaseUrl: () => string;
  readonly kdf: KdfLimits;
  /** The sign-in throttle: accepting for an existing account is a password guess like a sign-in. */
  readonly throttle: SignInThrottle;
}

/**
 * What a send is about to make true: a new invitation (`create`), or a new link and expiry for an
 * existing one (`update`). `row` is the invitation as it will be stored.
 */
interface MailPlan {
  readonly operation: 'create' | 'update';
  readonly row: PlannedInvitation;
  readonly secret: string;
  readonly tenantName: string;
  /** What the caller is told stays as it was when the mail cannot be sent. */
  readonly failure: string;
}

/**
 * Tenant invitations. Nothing slow runs under the vault's lock, and an SMTP conversation can take
 * seconds, so a create or resend runs in three steps: a short transaction checks the request and
 * plans the row; the e-mail is sent with no transaction open; a second short transaction writes
 * the planned row. When sending fails nothing is written: a failing SMTP server leaves no
 * invitation (create) or the old one untouched (resend). When the write fails after the send (the
 * invitation was deleted meanwhile, the address joined the tenant, the vault stopped), the mail's
 * link is simply not valid: it matches no stored secret.
 */
export function createInvitationService(
  vault: VaultHandle,
  options: InvitationServiceOptions,
): InvitationService {
  const { mailer, acceptBaseUrl, kdf, throttle } = options;

  async function send(plan: MailPlan): Promise<void> {
    const message = invitationMessage({
      to: plan.row.email,
      tenantName: plan.tenantName,
      acceptBaseUrl: acceptBaseUrl(),
      secret: plan.secret,
      expiresAt: plan.row.expires_at,
    });
    try {
      await mailer.send(message);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // Never let the secret reach an error, however the transport words its failure.
      const safe = reason.split(plan.secret).join('[secret]');
      throw new VaultError(
        'MAIL_FAILED',
        `The invitation e-mail could not be sent through ${mailer.description} (${safe}). ${plan.failure}`,
        { cause: error },
      );
    }
  }

  /** A new link and expiry for `row`: earlier links stop working once it is written. */
  async function planRefresh(
    trx: Kysely<Database>,
    principal: Principal,
    row: InvitationRow,
  ): Promise<MailPlan> {
    const now = vault.clock.now();
    const secret = generateInvitationSecret();
    return {
      operation: 'update',
      row: {
        ...row,
        // A new hash: every earlier link stops matching.
        secret_hash: vault.keyedHash('invitation', secret),
        expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
        modified_by: actorOf(principal).actor_id,
        modified_at: now.toISOString(),
      },
      secret,
      tenantName: await tenantName(trx, row.tenant_id),
      failure: 'The invitation was not changed; earlier links still work.',
    };
  }

  /** Writes what `plan` mailed; the checks of the first step are made again, as things may have moved. */
  async function commit(trx: Kysely<Database>, principal: Principal, plan: MailPlan): Promise<InvitationRow> {
    const { row } = plan;
    const current = verified(
      vault,
      'invitations',
      plan.operation === 'update'
        ? await trx.selectFrom('invitations').selectAll().where('id', '=', row.id).executeTakeFirst()
        : await trx
            .selectFrom('invitations')
            .selectAll()
            .where('tenant_id', '=', row.tenant_id)
            .where('email', '=', row.email)
            .executeTakeFirst(),
    );
    if (plan.operation === 'update' && current === undefined) {
      throw new VaultError('NOT_FOUND', 'The invitation was deleted while its e-mail was sent.');
    }
    if (current === undefined) {
      if (await isMemberByEmail(trx, row.tenant_id, row.email))
        throw new VaultError('CONFLICT', 'A member of this tenant already has this e-mail address.');
      const stored = withRowMac(vault, 'invitations', row);
      await trx.insertInto('invitations').values(stored).execute();
      await auditInvitation(trx, vault, principal, row, 'create');
      return stored;
    }
    // A resend, or a create that met an invitation made for the same address meanwhile: the
    // address keeps one invitation, and the link just mailed is the one that works.
    const updated = await updateAuthenticatedRow(trx, vault, 'invitations', current, {
      secret_hash: row.secret_hash,
      expires_at: row.expires_at,
      modified_by: actorOf(principal).actor_id,
      modified_at: row.modified_at ?? row.created_at,
    });
    await auditInvitation(trx, vault, principal, current, 'update');
    return updated;
  }

  /** Plans in one transaction, mails with none open, writes in another. */
  async function mailThenWrite(
    principal: Principal,
    planIn: (trx: Kysely<Database>) => Promise<MailPlan>,
  ): Promise<SentInvitation> {
    const plan = await vault.transaction(planIn);
    await send(plan);
    const row = await vault.transaction((trx) => commit(trx, principal, plan));
    return { ...withShownActors(principal, invitationOf(row, vault.clock.now())), mail: mailer.delivery };
  }

  return {
    async create(principal, input) {
      authorize(principal, 'tenant:invitation:create', { tenantId: principal.tenantId });
      const errors = new FieldErrorCollector();
      const raw: unknown = input?.email;
      if (typeof raw === 'string' && raw.length > EMAIL_REQUEST_MAX)
        errors.add('email', `must be at most ${EMAIL_REQUEST_MAX} characters`);
      else for (const problem of emailProblems(raw)) errors.add('email', problem);
      errors.throwIfAny();
      const email = normalizeEmail(raw as string);
      return mailThenWrite(principal, async (trx) => {
        const name = await tenantName(trx, principal.tenantId);
        if (await isMemberByEmail(trx, principal.tenantId, email))
          throw new VaultError('CONFLICT', 'A member of this tenant already has this e-mail address.');
        const existing = verified(
          vault,
          'invitations',
          await trx
            .selectFrom('invitations')
            .selectAll()
            .where('tenant_id', '=', principal.tenantId)
            .where('email', '=', email)
            .executeTakeFirst(),
        );
        // One invitation per address: inviting the address again resends that invitation (new
        // link and expiry; earlier links stop working), so the invitee holds one working link.
        if (existing) return planRefresh(trx, principal, existing);
        const now = vault.clock.now();
        const secret = generateInvitationSecret();
        return {
          operation: 'create',
          row: {
            id: randomUUID(),
            tenant_id: principal.tenantId,
            email,
            secret_hash: vault.keyedHash('invitation', secret),
            expires_at: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
            created_by: actorOf(principal).actor_id,
            created_at: now.toISOString(),
            modified_by: null,
            modified_at: null,
          },
          secret,
          tenantName: name,
          failure: 'No invitation was created.',
        };
      });
    },

    async list(principal, filter, page) {
      authorize(principal, 'tenant:invitation:read', { tenantId: principal.tenantId });
      const { offset, limit } = checkPage(page, MAX_INVITATION_PAGE_SIZE);
      const status = filter.status;
      if (status !== undefined && status !== 'PENDING' && status !== 'EXPIRED')
        throw validationError({ status: ['must be PENDING or EXPIRED'] });
      return vault.transaction(async (trx): Promise<Page<Invitation>> => {
        const now = vault.clock.now();
        let query = trx.selectFrom('invitations').where('tenant_id', '=', principal.tenantId);
        if (status === 'PENDING') query = query.where('expires_at', '>', now.toISOString());
        if (status === 'EXPIRED') query = query.where('expires_at', '<=', now.toISOString());
        const count = await query.select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
        const rows = verifiedRows(
          vault,
          'invitations',
          await query
            .selectAll()
            .orderBy('created_at')
            .orderBy(sql`rowid`)
            .limit(limit)
            .offset(offset)
            .execute(),
        );
        for (const row of rows) await auditInvitation(trx, vault, principal, row, 'read');
        return {
          total: Number(count.n),
          items: rows.map((row) => withShownActors(principal, invitationOf(row, now))),
        };
      });
    },

    async get(principal, id) {
      return vault.transaction(async (trx) => {
        const row = await loadFor(trx, vault, principal, ['tenant:invitation:read'], id);
        await auditInvitation(trx, vault, principal, row, 'read');
        return withShownActors(principal, invitationOf(row, vault.clock.now()));
      });
    },

    async resend(principal, id) {
      return mailThenWrite(principal, async (trx) => {
        const row = await loadFor(
          trx,
          vault,
          principal,
          ['tenant:invitation:create', 'tenant:invitation:update'],
          id,
        );
        return planRefresh(trx, principal, row);
      });
    },

    async delete(principal, id) {
      await vault.transaction(async (trx) => {
        const row = await loadFor(trx, vault, principal, ['tenant:invitation:delete'], id);
        await trx.deleteFrom('invitations').where('id', '=', row.id).execute();
        await auditInvitation(trx, vault, principal, row, 'delete');
      });
    },

    async accept(input): Promise<{ member: Member }> {
      const secret = typeof input?.token === 'string' ? invitationSecretFrom(input.token) : '';
      if (!SECRET.test(secret)) throw new VaultError('NOT_FOUND', INVALID_LINK);
      const hash = vault.keyedHash('invitation', secret);
      const find = async (db: Kysely<Database>): Promise<InvitationRow> => {
        const row = await db
          .selectFrom('invitations')
          .selectAll()
          .where('secret_hash', '=', hash)
          .executeTakeFirst();
        // The lookup is by keyed hash already; comparing again guards against a lax driver.
        if (!row || !constantTimeEqual(row.secret_hash, hash))
          throw new VaultError('NOT_FOUND', INVALID_LINK);
        // Its tenant decides what the link joins: a row moved to another tenant is refused.
        verifyRow(vault, 'invitations', row);
        if (statusAt(row.expires_at, vault.clock.now()) === 'EXPIRED')
          throw new VaultError('UNPROCESSABLE', EXPIRED_LINK);
        return row;
      };

      const invitation = await find(vault.db);
      const account = await vault.db
        .selectFrom('users')
        .select(['id', 'email', 'first_name', 'last_name', 'password_hash', 'row_mac'])
        .where('email', '=', invitation.email)
        .executeTakeFirst();

      // Slow password work happens before the transaction holds the vault.
      let newUser: { first_name: string; last_name: string; hash: string } | null = null;
      if (account) {
        // An existing user proves who they are: the link alone must not add their account.
        const attempt = throttle.begin(throttleKey(account.email));
        const ok =
          typeof input.password === 'string' &&
          account.password_hash !== null &&
          (await verifyPassword(account.password_hash, input.password));
        // As at sign-in: the MAC binding the hash to the account is checked once the password matched.
        if (ok) verifyRow(vault, 'users', account);
        if (ok) attempt.succeeded();
        if (!ok)
          throw new VaultError(
            'UNAUTHENTICATED',
            account.password_hash === null
              ? 'The invited account has no password yet; set one first (svc user passwd).'
              : 'The password is not correct for the invited account.',
          );
      } else {
        const errors = new FieldErrorCollector();
        const first_name = checkName(errors, input.first_name, 'first_name');
        const last_name = checkName(errors, input.last_name, 'last_name');
        if (input.password === undefined) errors.add('password', 'is required');
        else for (const problem of passwordProblems(input.password)) errors.add('password', problem);
        errors.throwIfAny();
        newUser = { first_name, last_name, hash: await hashPassword(input.password as string, kdf) };
      }

      return vault.transaction(async (trx) => {
        // Again inside the transaction: it may have been resent, deleted or used meanwhile.
        const row = await find(trx);
        let user = await findUserByEmail(trx, vault, row.email);
        if (newUser) {
          if (user)
            throw new VaultError('CONFLICT', 'An account with this e-mail was just created; try again.');
          user = await insertUser(
            trx,
            vault,
            {
              email: row.email,
              password: undefined,
              first_name: newUser.first_name,
              last_name: newUser.last_name,
            },
            newUser.hash,
          );
        } else if (!user || user.id !== account?.id) {
          throw new VaultError('CONFLICT', 'The invited account changed meanwhile; try again.');
        }
        if (await isMemberByEmail(trx, row.tenant_id, row.email))
          throw new VaultError('CONFLICT', 'This account is already a member of the tenant.');
        // The accepting user is the actor of everything that follows.
        const actor: Principal = {
          kind: 'user',
          tenantId: row.tenant_id,
          userId: user.id,
          sessionId: '',
          role: 'ADMIN',
        };
        const membership = await addMember(trx, vault, actor, {
          tenantId: row.tenant_id,
          userId: user.id,
          role: 'ADMIN',
        });
        // Consumed: the row goes, so the link can never be used again.
        await trx.deleteFrom('invitations').where('id', '=', row.id).execute();
        await auditInvitation(trx, vault, actor, row, 'delete', 'Tenant invitation accepted');
        const created = await findMemberRow(trx, vault, membership.id);
        if (!created) throw new VaultError('INTERNAL', 'The new member could not be read back.');
        return { member: memberOf(created) };
      });
    },
  };
}
