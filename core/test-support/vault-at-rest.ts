import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sql, type Kysely } from 'kysely';
import { loadSodium } from '../crypto/sodium.ts';
import { scanJournal } from '../backends/embedded/journal.ts';
import { vaultPaths } from '../backends/embedded/paths.ts';
import { openVaultFile, readHeader, readSnapshot } from '../backends/embedded/vault-file.ts';
import { unlockKeyring } from '../vault/load.ts';
import type { KeySource } from '../crypto/root-key.ts';
import type { Database } from '../storage/schema.ts';
import { testBackend } from './test-vault.ts';

/**
 * Names of the files in `dir` (and its folders: the audit segments) whose bytes contain `needle`
 * (UTF-8 or UTF-16).
 */
export async function filesContaining(dir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const name = join(entry.parentPath, entry.name).slice(dir.length + 1);
    const bytes = await readFile(join(dir, name));
    for (const encoding of ['utf8', 'utf16le'] as const) {
      if (bytes.includes(Buffer.from(needle, encoding))) hits.push(`${name} (${encoding})`);
    }
  }
  return hits;
}

/** The vault's files as the vault itself reads them: the snapshot's SQLite image and the journal's statements. */
export async function decryptedVaultFiles(
  vaultPath: string,
  key: KeySource,
): Promise<{ image: Buffer; journal: string }> {
  const sodium = await loadSodium();
  const paths = vaultPaths(vaultPath);
  const handle = await openVaultFile(paths.vault);
  try {
    const read = await readHeader(sodium, handle, paths.vault);
    const keyring = unlockKeyring(sodium, read.header, key);
    const image = Buffer.from(
      await readSnapshot(sodium, handle, paths.vault, read, keyring.fileKey(read.header.snapshot.term)),
    );
    const journalHandle = await openVaultFile(paths.journal);
    try {
      const scan = await scanJournal(sodium, journalHandle, paths.journal, (t) => keyring.fileKey(t));
      const journal = JSON.stringify(scan.entries, (_key, value: unknown) =>
        value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value,
      );
      return { image, journal };
    } finally {
      await journalHandle.close();
    }
  } finally {
    await handle.close();
  }
}

/**
 * Every row of every table in the connection's schema, as JSON text, bytea columns included (as
 * PostgreSQL prints them, hex): what a reader of the database sees of a PostgreSQL vault.
 */
export async function databaseRowsText(db: Kysely<Database>): Promise<string> {
  const tables = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
  const parts: string[] = [];
  for (const { name } of tables.rows) {
    const rows = await sql<{
      row: string;
    }>`select row_to_json(t)::text as row from ${sql.table(name)} t`.execute(db);
    for (const { row } of rows.rows) parts.push(`${name}: ${row}`);
  }
  return parts.join('\n');
}

/**
 * The places at rest that hold `needle` in the clear: on the embedded backend the vault's files,
 * raw and decrypted (the snapshot's image and the journal's statements); on PostgreSQL every row of
 * the vault's schema, as text and as hex (how bytea columns print). Empty when it is nowhere.
 */
export async function placesHolding(
  at: { readonly dir: string; readonly vaultPath: string; readonly key: KeySource },
  db: Kysely<Database>,
  needle: string,
): Promise<string[]> {
  if (testBackend() === 'postgres') {
    const text = await databaseRowsText(db);
    const places: string[] = [];
    if (text.includes(needle)) places.push('database rows (text)');
    if (text.includes(Buffer.from(needle, 'utf8').toString('hex'))) places.push('database rows (hex)');
    return places;
  }
  const places = await filesContaining(at.dir, needle);
  const decrypted = await decryptedVaultFiles(at.vaultPath, at.key);
  if (decrypted.image.includes(Buffer.from(needle))) places.push('snapshot image (decrypted)');
  if (decrypted.journal.includes(needle)) places.push('journal statements (decrypted)');
  return places;
}
