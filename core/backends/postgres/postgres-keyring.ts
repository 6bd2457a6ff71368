import type { Kysely } from 'kysely';
import type { Pool } from 'pg';
import type { KdfHeader } from '../../crypto/root-key.ts';
import { explainPostgresError } from './errors.ts';
import type { Database } from '../../storage/schema.ts';
import type { WrappedKeyring } from '../../vault/barrier.ts';

/**
 * The keyring row of a vault on PostgreSQL (`vault_keyring`, one row, id 1): the keyring wrapped by
 * the root key, the KDF header that derives it and the key terms. The table is not part of the
 * rows every backend shares (`Database`), so it is reached through its own view of the schema.
 */
export interface KeyringRow {
  vault_id: string;
  created_at: string;
  kdf: string;
  wrapped: Uint8Array;
  terms: string;
}

type KeyringDb = Database & { vault_keyring: KeyringRow & { id: number; updated_at: string } };

const keyringDb = (db: Kysely<Database>): Kysely<KeyringDb> => db as unknown as Kysely<KeyringDb>;

const KEYRING_COLUMNS = ['vault_id', 'created_at', 'kdf', 'wrapped', 'terms'] as const;

/** The keyring row, locked until the transaction ends: rekey and rotation never overwrite each other. */
export function lockedKeyringRow(trx: Kysely<Database>): Promise<KeyringRow> {
  return keyringDb(trx)
    .selectFrom('vault_keyring')
    .select(KEYRING_COLUMNS)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/** The keyring row, unlocked (a vault that has opened has one). */
export function keyringRow(db: Kysely<Database>): Promise<KeyringRow> {
  return keyringDb(db).selectFrom('vault_keyring').select(KEYRING_COLUMNS).executeTakeFirstOrThrow();
}

/** Whether the database already holds a vault's keyring. */
export async function hasKeyringRow(trx: Kysely<Database>): Promise<boolean> {
  return (
    (await keyringDb(trx).selectFrom('vault_keyring').select('vault_id').executeTakeFirst()) !== undefined
  );
}

export async function insertKeyringRow(
  trx: Kysely<Database>,
  row: KeyringRow,
  updatedAt: string,
): Promise<void> {
  await keyringDb(trx)
    .insertInto('vault_keyring')
    .values({ id: 1, ...row, updated_at: updatedAt })
    .execute();
}

/** Replaces the wrapped keyring (and its KDF header or terms when they change) in the one row. */
export async function updateKeyringRow(
  trx: Kysely<Database>,
  change: Partial<Pick<KeyringRow, 'kdf' | 'wrapped' | 'terms'>>,
  updatedAt: string,
): Promise<void> {
  await keyringDb(trx)
    .updateTable('vault_keyring')
    .set({ ...change, updated_at: updatedAt })
    .where('id', '=', 1)
    .execute();
}

export function storedKeyring(row: KeyringRow): WrappedKeyring {
  return {
    vaultId: row.vault_id,
    kdf: JSON.parse(row.kdf) as KdfHeader,
    wrapped: new Uint8Array(row.wrapped),
  };
}

/** The keyring row, or null when the database holds no vault (no table or no row). */
export async function readKeyringRow(pool: Pool): Promise<KeyringRow | null> {
  let result;
  try {
    result = await pool.query<KeyringRow>(
      `select vault_id, created_at, kdf, wrapped, terms from vault_keyring where id = 1`,
    );
  } catch (err) {
    if ((err as { code?: string }).code === '42P01') return null; // undefined_table
    throw explainPostgresError(err);
  }
  return result.rows[0] ?? null;
}
