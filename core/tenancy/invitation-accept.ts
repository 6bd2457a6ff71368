/**
 * Accepting an invitation: the secret from the link is the credential (no principal). A new user
 * gives a name and a password; an existing user proves who they are with their password, as at
 * sign-in and under the same throttle. The accepting user becomes an ADMIN member and the
 * invitation is consumed. Slow password work runs before the transaction holds the vault; the
 * transaction checks the link again, as it may have been resent, deleted or used meanwhile.
 */
import type { Kysely } from 'kysely';
import type { Principal } from '../access/principal.ts';
import { constantTimeEqual } from '../crypto/constant-time.ts';
import { VaultError } from '../errors/catalogue.ts';
import { hashPassword, passwordProblems, verifyPassword } from '../identity/passwords.ts';
import { throttleKey } from '../identity/sign-in-throttle.ts';
import { findUserByEmail, insertUser } from '../identity/users.ts';
import { verifyRow } from '../integrity/row-authenticator.ts';
import type { Database } from '../storage/schema.ts';
import { FieldErrorCollector, checkName } from '../validation/fields.ts';
import type { InvitationService, Member } from './contract.ts';
import type { InvitationContext } from './invitation-context.ts';
import { invitationSecretFrom, isInvitationSecret } from './invitation-secret.ts';
import { auditInvitation, isMemberByEmail, statusAt } from './invitation-store.ts';
import type { InvitationRow } from './invitation-store.ts';
import { addMember, findMemberRow, memberOf } from './members.ts';

type AcceptInput = Parameters<InvitationService['accept']>[0];

const INVALID_LINK = 'This invitation link is not valid: it was used, replaced by a resend, or deleted.';
const EXPIRED_LINK = 'This invitation has expired; ask the tenant to resend it.';

/** The account the invitation names, when one exists, with what proves its password. */
function invitedAccount(db: Kysely<Database>, email: string) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'first_name', 'last_name', 'password_hash', 'row_mac'])
    .where('email', '=', email)
    .executeTakeFirst();
}
type InvitedAccount = NonNullable<Awaited<ReturnType<typeof invitedAccount>>>;

/** A user to create on acceptance: names checked and password hashed before the transaction. */
interface NewUser {
  readonly first_name: string;
  readonly last_name: string;
  readonly hash: string;
}

/** The valid, unexpired invitation whose secret hashes to `hash`. */
async function invitationBySecret(
  context: InvitationContext,
  db: Kysely<Database>,
  hash: Uint8Array,
): Promise<InvitationRow> {
  const { vault } = context;
  const row = await db
    .selectFrom('invitations')
    .selectAll()
    .where('secret_hash', '=', hash)
    .executeTakeFirst();
  // The lookup is by keyed hash already; comparing again guards against a lax driver.
  if (!row || !constantTimeEqual(row.secret_hash, hash)) throw new VaultError('NOT_FOUND', INVALID_LINK);
  // Its tenant decides what the link joins: a row moved to another tenant is refused.
  verifyRow(vault, 'invitations', row);
  if (statusAt(row.expires_at, vault.clock.now()) === 'EXPIRED')
    throw new VaultError('UNPROCESSABLE', EXPIRED_LINK);
  return row;
}

/** An existing user proves who they are: the link alone must not add their account. */
async function provePassword(
  context: InvitationContext,
  account: InvitedAccount,
  input: AcceptInput,
): Promise<void> {
  const attempt = context.throttle.begin(throttleKey(account.email));
  const ok =
    typeof input.password === 'string' &&
    account.password_hash !== null &&
    (await verifyPassword(account.password_hash, input.password));
  // As at sign-in: the MAC binding the hash to the account is checked once the password matched.
  if (ok) verifyRow(context.vault, 'users', account);
  if (ok) attempt.succeeded();
  if (!ok)
    throw new VaultError(
      'UNAUTHENTICATED',
      account.password_hash === null
        ? 'The invited account has no password yet; set one first (svc user passwd).'
        : 'The password is not correct for the invited account.',
    );
}

/** The new user's names and password hash; a 400 naming each field that is wrong. */
async function checkNewUser(context: InvitationContext, input: AcceptInput): Promise<NewUser> {
  const errors = new FieldErrorCollector();
  const first_name = checkName(errors, input.first_name, 'first_name');
  const last_name = checkName(errors, input.last_name, 'last_name');
  if (input.password === undefined) errors.add('password', 'is required');
  else for (const problem of passwordProblems(input.password)) errors.add('password', problem);
  errors.throwIfAny();
  return { first_name, last_name, hash: await hashPassword(input.password as string, context.kdf) };
}

/** In one transaction: the user (created if new), the ADMIN membership, the invitation consumed. */
async function join(
  context: InvitationContext,
  trx: Kysely<Database>,
  hash: Uint8Array,
  account: InvitedAccount | undefined,
  newUser: NewUser | null,
): Promise<{ member: Member }> {
  const { vault } = context;
  // Again inside the transaction: it may have been resent, deleted or used meanwhile.
  const row = await invitationBySecret(context, trx, hash);
  let user = await findUserByEmail(trx, vault, row.email);
  if (newUser) {
    if (user) throw new VaultError('CONFLICT', 'An account with this e-mail was just created; try again.');
    user = await insertUser(
      trx,
      vault,
      { email: row.email, password: undefined, first_name: newUser.first_name, last_name: newUser.last_name },
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
}

export async function acceptInvitation(
  context: InvitationContext,
  input: AcceptInput,
): Promise<{ member: Member }> {
  const { vault } = context;
  const secret = typeof input?.token === 'string' ? invitationSecretFrom(input.token) : '';
  if (!isInvitationSecret(secret)) throw new VaultError('NOT_FOUND', INVALID_LINK);
  const hash = vault.keyedHash('invitation', secret);
  const invitation = await invitationBySecret(context, vault.db, hash);
  const account = await invitedAccount(vault.db, invitation.email);
  // Slow password work happens before the transaction holds the vault.
  let newUser: NewUser | null = null;
  if (account) await provePassword(context, account, input);
  else newUser = await checkNewUser(context, input);
  return vault.transaction((trx) => join(context, trx, hash, account, newUser));
}
