import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { sql } from 'kysely';
import { VaultError } from '../errors/catalogue.ts';
import { vaultPaths } from '../backends/embedded/paths.ts';
import { createAdoptedVault } from './lifecycle.ts';
import { restoreVault } from '../backends/embedded/maintenance.ts';
import { openPostgresVault } from '../backends/postgres/postgres-vault.ts';
import { vaultExists } from './status.ts';
import type { Clock } from './clock.ts';
import type { KeySource } from '../crypto/root-key.ts';
import type { RowCounts } from './row-counts.ts';
import { copyRows, countCopiedRows, verifyCopy, writePage, type CopyReport } from './vault-copy.ts';

export interface ImportFromPostgresOptions {
  /** The database holding the vault (servers may keep running on it: the copy reads one snapshot). */
  readonly url: string;
  /** Where the vault file goes: the configured vault path. */
  readonly path: string;
  /** The vault's key: it must open the database's keyring, and it opens the new file. */
  readonly key: KeySource;
  /** Whether a vault file already at `path` may be replaced (otherwise VAULT_EXISTS). */
  readonly replace: boolean;
  readonly clock?: Clock;
  /** Called after each batch with the rows copied so far and the total. */
  readonly onProgress?: (copied: number, total: number) => void;
}

/**
 * Copies a vault held in PostgreSQL into a vault file at `path` as it is: the same vault id,
 * keyring, key terms and KDF (so the same key opens it), and every row byte for byte. The rows are
 * read in one read-only REPEATABLE READ transaction, so servers still writing to the database do
 * not tear the copy. They are written into a new vault file beside `path`, whose row counts and
 * audit chains are checked (VAULT_CORRUPT otherwise) before it takes `path`'s place the way a
 * restored backup does; until then a vault already at `path` is untouched, and a failed import
 * leaves nothing behind.
 */
export async function importFromPostgres(options: ImportFromPostgresOptions): Promise<CopyReport> {
  const refuseExisting = async () => {
    if (!options.replace && (await vaultExists(options.path))) {
      throw new VaultError(
        'VAULT_EXISTS',
        `A vault already exists at ${options.path}; it was left as it is (replacing it needs --force).`,
      );
    }
  };
  await refuseExisting();
  const clock = options.clock === undefined ? {} : { clock: options.clock };
  const source = await openPostgresVault({ url: options.url, key: options.key, ...clock });
  const paths = vaultPaths(options.path);
  // Beside the destination (same file system, same directory permissions), named so that nothing
  // takes it for the vault.
  const staging = join(paths.dir, `.${basename(options.path)}.import-${randomBytes(6).toString('hex')}.svc`);
  try {
    const identity = await source.identity(options.key);
    await mkdir(paths.dir, { recursive: true, mode: 0o700 });
    const target = await createAdoptedVault({ path: staging, key: options.key, identity, ...clock });
    let report: CopyReport;
    try {
      const expected = await source.transaction(async (): Promise<RowCounts> => {
        // One snapshot of the whole database for every read below; nothing is written there.
        await sql`set transaction isolation level repeatable read, read only`.execute(source.db);
        const counts = await countCopiedRows(source.db);
        await copyRows(
          { db: source.db, order: 'postgres' },
          counts,
          async (table, rows) => {
            // Same columns and values on both schemas, less PostgreSQL's stand-in for SQLite's
            // rowid: the file numbers rows itself, in the order they are inserted (this one).
            for (const row of rows) delete row.rowid;
            await target.transaction((trx) => writePage(trx, table, rows));
          },
          options.onProgress,
        );
        return counts;
      });
      report = await verifyCopy(target, expected, 'no vault file was written.');
      // Written as one snapshot: the file restored below holds every row.
      await target.close();
    } catch (err) {
      await target.close({ snapshot: false }).catch(() => undefined);
      throw err;
    }
    await refuseExisting();
    await restoreVault({
      from: staging,
      path: options.path,
      key: options.key,
      force: options.replace,
      ...clock,
    });
    return report;
  } finally {
    await removeVaultFiles(staging);
    await source.close();
  }
}

async function removeVaultFiles(path: string): Promise<void> {
  const paths = vaultPaths(path);
  for (const file of [paths.vault, paths.journal, paths.previousJournal, paths.acknowledged, paths.lock]) {
    await rm(file, { force: true });
  }
  await rm(paths.auditSegments, { recursive: true, force: true });
}
