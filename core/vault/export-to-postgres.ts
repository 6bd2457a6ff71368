import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { verifyAuditChains } from '../audit/audit-log.ts';
import type { ChainReport } from '../audit/audit-log.ts';
import { VaultError } from '../errors/catalogue.ts';
import { loadSodium } from '../crypto/sodium.ts';
import { vaultPaths } from '../storage/paths.ts';
import type { Database } from '../storage/schema.ts';
import { openVaultFile, readHeader } from '../storage/vault-file.ts';
import { unlockKeyring } from './load.ts';
import { PostgresVault } from './postgres-vault.ts';
import type { Clock, KeySource, VaultHandle } from './types.ts';

/**
 * Every table the vault's rows live in, parents before children (foreign keys), each read in the
 * order its insertion order must keep: `members` and `invitations` list by SQLite's rowid, which
 * becomes the identity column's order on PostgreSQL. `schema_migrations` is not copied: the
 * database runs its own list to the same version.
 */
const TABLES: readonly { readonly name: keyof Database; readonly order: string }[] = [
  { name: 'vault_meta', order: 'key' },
  { name: 'tenants', order: 'rowid' },
  { name: 'users', order: 'rowid' },
  { name: 'applications', order: 'rowid' },
  { name: 'tenant_keys', order: 'rowid' },
  { name: 'members', order: 'rowid' },
  { name: 'sessions', order: 'rowid' },
  { name: 'invitations', order: 'rowid' },
  { name: 'reactor_formulas', order: 'rowid' },
  { name: 'reactors', order: 'rowid' },
  { name: 'proxies', order: 'rowid' },
  { name: 'tokens', order: 'row_id' },
  { name: 'token_search_indexes', order: 'rowid' },
  { name: 'token_associations', order: 'rowid' },
  { name: 'token_activity', order: 'rowid' },
  { name: 'audit_logs', order: 'rowid' },
  { name: 'audit_heads', order: 'rowid' },
  { name: 'audit_checkpoints', order: 'rowid' },
];

/** Rows per read and per multi-row insert: far below PostgreSQL's 65,535 parameters. */
const BATCH = 500;

export interface ExportToPostgresOptions {
  /** The embedded vault, open (this process holds its lock, so nothing changes while copying). */
  readonly source: VaultHandle;
  /** Its file: the header's keyring and KDF move with the rows, so the same key opens the copy. */
  readonly sourcePath: string;
  readonly key: KeySource;
  /** An empty database (or one without a vault: the schema is created). */
  readonly url: string;
  readonly clock?: Clock;
  /** Called after each batch with the rows copied so far and the total. */
  readonly onProgress?: (copied: number, total: number) => void;
}

export interface ExportReport {
  readonly vaultId: string;
  /** Rows per table, counted again in the database after the commit (equal to the source's). */
  readonly rows: Readonly<Record<string, number>>;
  /** The audit chains, verified in the database with the vault's keys. */
  readonly chains: ChainReport;
}

async function countRows(db: Kysely<Database>, table: keyof Database): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((e) => e.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Copies an embedded vault into an empty PostgreSQL database as it is: the same vault id, keyring,
 * key terms and KDF (so the same key opens it), and every row byte for byte — envelopes,
 * fingerprints, blind indexes and audit hashes need no re-encryption, since the keys are the same.
 * Everything is written in one transaction with the schema: a failure leaves the database empty.
 * Afterwards the rows of every table are counted on both sides and the audit chains verified in the
 * database; a difference is VAULT_CORRUPT (and the copy is left for inspection, the source intact).
 */
export async function exportToPostgres(options: ExportToPostgresOptions): Promise<ExportReport> {
  const { source } = options;
  const sodium = await loadSodium();
  const path = vaultPaths(options.sourcePath).vault;
  const handle = await openVaultFile(path);
  let identity;
  try {
    const { header } = await readHeader(sodium, handle, path);
    identity = {
      vaultId: header.vault_id,
      createdAt: header.created_at,
      kdf: header.kdf,
      keyring: unlockKeyring(sodium, header, options.key),
    };
  } finally {
    await handle.close();
  }

  const expected: Record<string, number> = {};
  for (const table of TABLES) expected[table.name] = await countRows(source.db, table.name);
  const total = Object.values(expected).reduce((a, b) => a + b, 0);
  let copied = 0;

  const target = await PostgresVault.adopt(
    {
      url: options.url,
      key: options.key,
      identity,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    },
    async (trx) => {
      copied = 0;
      for (const table of TABLES) {
        for (let offset = 0; offset < (expected[table.name] ?? 0); offset += BATCH) {
          const rows = await source.db
            .selectFrom(table.name)
            .selectAll()
            .orderBy(sql.ref(table.order))
            .limit(BATCH)
            .offset(offset)
            .execute();
          if (rows.length === 0) break;
          // Rows go as they are: same columns and values on both schemas (blobs as bytea).
          await trx
            .insertInto(table.name)
            .values(rows as never)
            .execute();
          copied += rows.length;
          options.onProgress?.(copied, total);
        }
      }
      // Token row ids were copied as they are; new tokens continue after the highest.
      await sql`select setval(pg_get_serial_sequence('tokens', 'row_id'), coalesce(max(row_id), 0) + 1, false) from tokens`.execute(
        trx,
      );
    },
  );
  try {
    const rows: Record<string, number> = {};
    for (const table of TABLES) {
      rows[table.name] = await countRows(target.db, table.name);
      if (rows[table.name] !== expected[table.name]) {
        throw new VaultError(
          'VAULT_CORRUPT',
          `The copy of ${table.name} holds ${rows[table.name]} rows, the vault ${expected[table.name]}; the database was left as it is for inspection.`,
        );
      }
    }
    const chains = await verifyAuditChains(target.db, target);
    if (!chains.ok) {
      throw new VaultError(
        'VAULT_CORRUPT',
        'The audit chains of the copy do not verify; the database was left as it is for inspection.',
      );
    }
    return { vaultId: target.id, rows, chains };
  } finally {
    await target.close();
  }
}
