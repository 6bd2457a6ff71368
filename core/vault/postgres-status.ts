import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { KdfHeader } from '../crypto/root-key.ts';
import { redactedDatabaseUrl } from '../storage/postgres/database-url.ts';
import { explainPostgresError } from '../storage/postgres/errors.ts';
import { createPostgresPool } from '../storage/postgres/pool.ts';
import type { Database } from '../storage/schema.ts';
import { readKeyringRow } from './postgres-keyring.ts';
import type { VaultStatus } from './storage-contract.ts';

/** What a status tells of a vault on PostgreSQL beside its database's figures. */
export interface PostgresIdentity {
  readonly vaultId: string;
  readonly createdAt: string;
  readonly kdf: KdfHeader;
}

interface DatabaseFacts {
  bytes: number;
  version: number | null;
}

/** The database's size and the schema version: the figures a status shows beside the keyring's. */
const DATABASE_FACTS = `select pg_database_size(current_database()) as bytes,
  (select max(version) from schema_migrations) as version`;

/** A vault status in the embedded backend's shape; the journal and snapshot figures do not apply. */
function postgresStatus(
  path: string,
  stored: PostgresIdentity,
  keyTerms: readonly number[],
  facts: DatabaseFacts | undefined,
): VaultStatus {
  return {
    path,
    journalPath: '',
    vaultId: stored.vaultId,
    createdAt: stored.createdAt,
    formatVersion: Number(facts?.version ?? 0),
    keySource: stored.kdf.kind === 'argon2id' ? 'passphrase' : 'key',
    keyTerms,
    snapshotBytes: Number(facts?.bytes ?? 0),
    snapshotSequence: 0,
    snapshotWrittenAt: stored.createdAt,
    journalBytes: 0,
    journalRecords: 0,
    lockHolder: null,
  };
}

/** The status of an open vault on PostgreSQL, read through its query builder. */
export async function openPostgresVaultStatus(
  db: Kysely<Database>,
  path: string,
  stored: PostgresIdentity,
  keyTerms: readonly number[],
): Promise<VaultStatus> {
  const facts = await sql.raw<DatabaseFacts>(DATABASE_FACTS).execute(db);
  return postgresStatus(path, stored, keyTerms, facts.rows[0]);
}

/**
 * What can be known of a vault on PostgreSQL without its key (`svc vault status`): the keyring row's
 * id, creation time, key kind and terms, the schema version and the database size; null when the
 * database holds no vault. An unreachable database is SERVICE_UNAVAILABLE.
 */
export async function readPostgresVaultStatus(url: string): Promise<VaultStatus | null> {
  const pool = createPostgresPool(url, { max: 1 });
  try {
    const row = await readKeyringRow(pool);
    if (!row) return null;
    const facts = await pool.query<DatabaseFacts>(DATABASE_FACTS).catch((err: unknown) => {
      throw explainPostgresError(err);
    });
    const stored = {
      vaultId: row.vault_id,
      createdAt: row.created_at,
      kdf: JSON.parse(row.kdf) as KdfHeader,
    };
    return postgresStatus(redactedDatabaseUrl(url), stored, JSON.parse(row.terms) as number[], facts.rows[0]);
  } finally {
    await pool.end().catch(() => undefined);
  }
}
