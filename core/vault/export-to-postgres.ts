import { sql } from 'kysely';
import { loadSodium } from '../crypto/sodium.ts';
import { vaultPaths } from '../backends/embedded/paths.ts';
import { openVaultFile, readHeader } from '../backends/embedded/vault-file.ts';
import { unlockKeyring } from './load.ts';
import { PostgresVault } from '../backends/postgres/postgres-vault.ts';
import type { VaultHandle } from './types.ts';
import type { Clock } from './clock.ts';
import type { KeySource } from '../crypto/root-key.ts';
import { copyRows, countCopiedRows, verifyCopy, writePage, type CopyReport } from './vault-copy.ts';

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

export type ExportReport = CopyReport;

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

  const expected = await countCopiedRows(source.db, source.audit);
  const target = await PostgresVault.adopt(
    {
      url: options.url,
      key: options.key,
      identity,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    },
    async (trx) => {
      // Entries live in the table and in segment files: they are read through the vault's audit store.
      await copyRows(
        { db: source.db, order: 'embedded', audit: source.audit },
        expected,
        (table, rows) => writePage(trx, table, rows),
        options.onProgress,
      );
      // Token row ids were copied as they are; new tokens continue after the highest.
      await sql`select setval(pg_get_serial_sequence('tokens', 'row_id'), coalesce(max(row_id), 0) + 1, false) from tokens`.execute(
        trx,
      );
    },
  );
  try {
    return await verifyCopy(target, expected, 'the database was left as it is for inspection.');
  } finally {
    await target.close();
  }
}
