import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { VaultError } from '../errors/catalogue.ts';
import type { User } from '../common-types.ts';
import type { UserService } from './contract.ts';
import { rowHolds, updateAuthenticatedRow, verified, withRowMac } from '../integrity/row-authenticator.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import type { Database, UsersTable } from '../storage/schema.ts';
import { FieldErrorCollector } from '../validation/fields.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { KdfLimits } from '../crypto/root-key.ts';
import { emailProblems, normalizeEmail } from './email.ts';
import { hashPassword, passwordProblems } from './passwords.ts';
import { deleteUserSessions } from './sessions.ts';

export type NewUser = Parameters<UserService['create']>[0];

export const PERSON_NAME_MAX = 200;

export function userOf(row: Pick<UsersTable, 'id' | 'email' | 'first_name' | 'last_name'>): User {
  return { id: row.id, email: row.email, first_name: row.first_name, last_name: row.last_name };
}

function optionalName(errors: FieldErrorCollector, field: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    errors.add(field, 'must be a string');
    return null;
  }
  const trimmed = value.trim();
  if (trimmed.length > PERSON_NAME_MAX) errors.add(field, `must be at most ${PERSON_NAME_MAX} characters`);
  return trimmed === '' ? null : trimmed;
}

export interface CheckedUser {
  readonly email: string;
  readonly password: string | undefined;
  readonly first_name: string | null;
  readonly last_name: string | null;
}

/** Validates a new user's fields (field names as in the input). */
export function checkNewUser(
  input: NewUser,
  errors: FieldErrorCollector,
  emailField = 'email',
  passwordField = 'password',
): CheckedUser {
  for (const problem of emailProblems(input.email)) errors.add(emailField, problem);
  if (input.password !== undefined)
    for (const problem of passwordProblems(input.password)) errors.add(passwordField, problem);
  return {
    email: typeof input.email === 'string' ? normalizeEmail(input.email) : '',
    password: input.password,
    first_name: optionalName(errors, 'first_name', input.first_name),
    last_name: optionalName(errors, 'last_name', input.last_name),
  };
}

/** A user's row as loaded: what the API shows and what its MAC covers (the password hash). */
export type UserRow = Pick<
  UsersTable,
  'id' | 'email' | 'first_name' | 'last_name' | 'password_hash' | 'row_mac'
>;

const USER_COLUMNS = ['id', 'email', 'first_name', 'last_name', 'password_hash', 'row_mac'] as const;

/** The user's row by id or by e-mail, verified against its MAC (INTEGRITY_FAILED otherwise). */
export async function findUserRow(
  db: Kysely<Database>,
  keys: RowKeys,
  by: { readonly id: string } | { readonly email: string },
): Promise<UserRow | undefined> {
  const query = db.selectFrom('users').select(USER_COLUMNS);
  const row = await (
    'id' in by ? query.where('id', '=', by.id) : query.where('email', '=', normalizeEmail(by.email))
  ).executeTakeFirst();
  return verified(keys, 'users', row);
}

export async function findUserByEmail(
  db: Kysely<Database>,
  keys: RowKeys,
  email: string,
): Promise<User | null> {
  const row = await findUserRow(db, keys, { email });
  return row ? userOf(row) : null;
}

export async function findUserById(db: Kysely<Database>, keys: RowKeys, id: string): Promise<User | null> {
  const row = await findUserRow(db, keys, { id });
  return row ? userOf(row) : null;
}

/**
 * The e-mails of those of `ids` that are users, in one query: what the audit log shows for its
 * actors. The e-mail is what a user row's MAC binds to its id, so a row that fails its check is left
 * out (shown as unknown) rather than naming someone else for what this user did; the log itself
 * stays readable, being where one looks into such a change.
 */
export async function userEmails(
  db: Kysely<Database>,
  keys: RowKeys,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('users').select(USER_COLUMNS).where('id', 'in', ids).execute();
  return new Map(rows.filter((row) => rowHolds(keys, 'users', row)).map((row) => [row.id, row.email]));
}

/** Inserts a checked user; CONFLICT when the e-mail is taken. Call inside the caller's transaction. */
export async function insertUser(
  trx: Kysely<Database>,
  vault: Pick<VaultHandle, 'clock'> & RowKeys,
  user: CheckedUser,
  passwordHash: string | null,
): Promise<User> {
  if (await findUserByEmail(trx, vault, user.email)) {
    throw new VaultError('CONFLICT', 'A user with this e-mail already exists.');
  }
  const row = withRowMac(vault, 'users', {
    id: randomUUID(),
    email: user.email,
    first_name: user.first_name,
    last_name: user.last_name,
    password_hash: passwordHash,
    created_at: vault.clock.now().toISOString(),
    modified_at: null,
  });
  await trx.insertInto('users').values(row).execute();
  return userOf(row);
}

/**
 * People are vault-wide, not tenant data: they are not in any tenant's audit chain. What they do
 * in a tenant (membership, actions) is.
 */
export function createUserService(vault: VaultHandle, kdf: KdfLimits): UserService {
  return {
    async create(input: NewUser): Promise<User> {
      const errors = new FieldErrorCollector();
      const user = checkNewUser(input, errors);
      errors.throwIfAny();
      // Hashing is slow and synchronous: do it before the transaction holds the vault.
      const hash = user.password === undefined ? null : await hashPassword(user.password, kdf);
      return vault.transaction((trx) => insertUser(trx, vault, user, hash));
    },

    findByEmail(email: string): Promise<User | null> {
      return findUserByEmail(vault.db, vault, email);
    },

    get(id: string): Promise<User | null> {
      return findUserById(vault.db, vault, id);
    },

    /** Also signs the user out everywhere: whoever knew the old password may hold a session. */
    async setPassword(userId: string, password: string): Promise<void> {
      const errors = new FieldErrorCollector();
      for (const problem of passwordProblems(password)) errors.add('password', problem);
      errors.throwIfAny();
      if (!(await findUserById(vault.db, vault, userId))) throw new VaultError('NOT_FOUND', 'No such user.');
      const hash = await hashPassword(password, kdf);
      await vault.transaction(async (trx) => {
        const current = await findUserRow(trx, vault, { id: userId });
        if (!current) throw new VaultError('NOT_FOUND', 'No such user.');
        await updateAuthenticatedRow(trx, vault, 'users', current, {
          password_hash: hash,
          modified_at: vault.clock.now().toISOString(),
        });
        await deleteUserSessions(trx, userId);
      });
    },
  };
}
