import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { KdfHeader } from '../../crypto/root-key.ts';
import { vaultHeadroom, type VaultHeadroom } from '../../storage/headroom.ts';
import { redactedDatabaseUrl } from './database-url.ts';
import { explainPostgresError } from './errors.ts';
import { createPostgresPool } from './pool.ts';
import type { Database } from '../../storage/schema.ts';
import { readKeyringRow } from './postgres-keyring.ts';
import type { VaultStatus } from '../../vault/status-schema.ts';

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
  const bytes = Number(facts?.bytes ?? 0);
  return {
    path,
    journal_path: '',
    vault_id: stored.vaultId,
    created_at: stored.createdAt,
    format_version: Number(facts?.version ?? 0),
    key_source: stored.kdf.kind === 'argon2id' ? 'passphrase' : 'key',
    key_terms: [...keyTerms],
    snapshot_bytes: bytes,
    snapshot_sequence: 0,
    snapshot_written_at: stored.createdAt,
    journal_bytes: 0,
    journal_records: 0,
    lock_holder: null,
    headroom: postgresHeadroom(bytes),
  };
}

/**
 * The database's size with no limit beside it: the space guard's limits are the embedded engine's
 * (its memory, the vault file's disk); PostgreSQL's storage is the database server's to watch.
 */
function postgresHeadroom(databaseBytes: number): VaultHeadroom {
  return vaultHeadroom({ databaseBytes, limits: null, disk: null });
}

/** The headroom of an open vault on PostgreSQL. */
export async function openPostgresVaultHeadroom(db: Kysely<Database>): Promise<VaultHeadroom> {
  const facts = await sql.raw<DatabaseFacts>(DATABASE_FACTS).execute(db);
  return postgresHeadroom(Number(facts.rows[0]?.bytes ?? 0));
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
