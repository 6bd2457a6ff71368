import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { verifyAuditChains } from '../audit/audit-log.ts';
import type { ChainReport } from '../audit/audit-log.ts';
import { VaultError, isVaultError } from '../errors/catalogue.ts';
import { verifyStoredRows } from '../integrity/stored-row-macs.ts';
import type { AuditStore } from '../audit/audit-store.ts';
import type { Database } from '../storage/schema.ts';
import { totalRows, type RowCounts } from './row-counts.ts';
import type { VaultHandle } from './types.ts';

/**
 * What moving a vault between backends (the embedded file and PostgreSQL, either way) shares: the
 * tables copied, the order each is read in, and the checks a copy must pass before it is reported.
 */
export interface CopiedTable {
  readonly name: keyof Database;
  /**
   * Order on the embedded file: insertion order (rowid) where listings lean on it, else the primary
   * key (`token_activity` has no rowid).
   */
  readonly embedded: readonly string[];
  /**
   * Order on PostgreSQL: the identity column that stands for SQLite's rowid where there is one
   * (`members`, `invitations`, `tokens.row_id`), else the primary key.
   */
  readonly postgres: readonly string[];
}

/**
 * Every table the vault's rows live in, parents before children (foreign keys). `members` and
 * `invitations` list by insertion order, so each is read in that order and the copy keeps it.
 * `schema_migrations` is not copied: each side runs its own list to the same version.
 */
export const COPIED_TABLES: readonly CopiedTable[] = [
  { name: 'vault_meta', embedded: ['key'], postgres: ['key'] },
  { name: 'tenants', embedded: ['rowid'], postgres: ['id'] },
  { name: 'users', embedded: ['rowid'], postgres: ['id'] },
  { name: 'applications', embedded: ['rowid'], postgres: ['id'] },
  { name: 'tenant_keys', embedded: ['rowid'], postgres: ['tenant_id', 'purpose', 'term'] },
  { name: 'members', embedded: ['rowid'], postgres: ['rowid'] },
  { name: 'sessions', embedded: ['rowid'], postgres: ['id'] },
  { name: 'invitations', embedded: ['rowid'], postgres: ['rowid'] },
  { name: 'reactor_formulas', embedded: ['rowid'], postgres: ['id'] },
  { name: 'reactors', embedded: ['rowid'], postgres: ['id'] },
  { name: 'proxies', embedded: ['rowid'], postgres: ['id'] },
  { name: 'tokens', embedded: ['row_id'], postgres: ['row_id'] },
  { name: 'token_search_indexes', embedded: ['rowid'], postgres: ['token_rowid', 'digest'] },
  { name: 'token_associations', embedded: ['rowid'], postgres: ['parent_rowid', 'child_rowid'] },
  {
    name: 'token_activity',
    embedded: ['tenant_id', 'month', 'token_id'],
    postgres: ['tenant_id', 'month', 'token_id'],
  },
  { name: 'audit_logs', embedded: ['rowid'], postgres: ['tenant_id', 'seq'] },
  { name: 'audit_heads', embedded: ['rowid'], postgres: ['tenant_id'] },
  { name: 'audit_checkpoints', embedded: ['rowid'], postgres: ['tenant_id', 'first_seq'] },
];

/** Rows per read and per multi-row insert: far below PostgreSQL's 65,535 parameters. */
const COPY_BATCH = 500;

/** Rows per table and their sum, as `onProgress` and the reports count them. */

export interface CopyReport {
  readonly vaultId: string;
  /** Rows per table, counted again in the copy once written (equal to the source's). */
  readonly rows: RowCounts;
  /** The audit chains, verified in the copy with the vault's keys. */
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
 * The rows of every copied table in `db`; audit entries counted by `audit` when given (the
 * embedded vault keeps most of them in segment files, core/audit/segments/).
 */
export async function countCopiedRows(
  db: Kysely<Database>,
  audit?: AuditStore,
): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of COPIED_TABLES) {
    counts[table.name] =
      table.name === 'audit_logs' && audit ? await audit.count() : await countRows(db, table.name);
  }
  return counts;
}

/**
 * Every audit entry `audit` holds, tenant by tenant in chain order, in batches of COPY_BATCH, as
 * untyped rows like readPage's.
 */
async function* auditBatches(audit: AuditStore): AsyncIterable<Record<string, unknown>[]> {
  let batch: Record<string, unknown>[] = [];
  for (const tenant of await audit.tenants()) {
    for await (const row of audit.entries(tenant)) {
      batch.push({ ...row });
      if (batch.length === COPY_BATCH) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length > 0) yield batch;
}

/** One page of `table`, in the order given, as the source's query builder returns it. */
function readPage(
  db: Kysely<Database>,
  table: keyof Database,
  order: readonly string[],
  offset: number,
): Promise<Record<string, unknown>[]> {
  let query = db.selectFrom(table).selectAll();
  for (const column of order) query = query.orderBy(sql.ref(column));
  return query.limit(COPY_BATCH).offset(offset).execute() as Promise<Record<string, unknown>[]>;
}

/** Where copyRows reads a vault's rows. */
export interface CopySource {
  readonly db: Kysely<Database>;
  /** Which backend's read order (CopiedTable) the rows are read in. */
  readonly order: 'embedded' | 'postgres';
  /** Where the audit entries are read, when not from the table (the embedded vault's segments). */
  readonly audit?: AuditStore;
}

/**
 * Copies the rows of every copied table, `counts[table]` of each, page by page through `write`,
 * parents before children; `onProgress` is called after each page with the rows copied so far and
 * their total.
 */
export async function copyRows(
  source: CopySource,
  counts: RowCounts,
  write: (table: keyof Database, rows: Record<string, unknown>[]) => Promise<void>,
  onProgress?: (copied: number, total: number) => void,
): Promise<void> {
  const total = totalRows(counts);
  let copied = 0;
  const copy = async (table: keyof Database, rows: Record<string, unknown>[]) => {
    await write(table, rows);
    copied += rows.length;
    onProgress?.(copied, total);
  };
  for (const table of COPIED_TABLES) {
    if (table.name === 'audit_logs' && source.audit !== undefined) {
      for await (const rows of auditBatches(source.audit)) await copy('audit_logs', rows);
      continue;
    }
    for (let offset = 0; offset < (counts[table.name] ?? 0); offset += COPY_BATCH) {
      const rows = await readPage(source.db, table.name, table[source.order], offset);
      if (rows.length === 0) break;
      await copy(table.name, rows);
    }
  }
}

/**
 * A page read by readPage written to the other backend as it is: same columns and values on both
 * schemas (blobs as bytea). The rows are untyped there, so the table's insert type cannot be checked.
 */
export async function writePage(
  trx: Kysely<Database>,
  table: keyof Database,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  await trx
    .insertInto(table)
    .values(rows as never)
    .execute();
}

/**
 * The checks every copy passes before it is reported: the rows of each table counted again in the
 * copy equal the source's, the audit chains verify there with the vault's keys, and so does the MAC
 * of every row that decides access (copied as it was: the keyring is the same). A count or a chain
 * failing is VAULT_CORRUPT, a row INTEGRITY_FAILED naming it; `leftAs` says what became of the copy.
 */
export async function verifyCopy(
  target: VaultHandle,
  expected: RowCounts,
  leftAs: string,
): Promise<CopyReport> {
  const rows = await countCopiedRows(target.db, target.audit);
  for (const table of COPIED_TABLES) {
    if (rows[table.name] !== expected[table.name]) {
      throw new VaultError(
        'VAULT_CORRUPT',
        `The copy of ${table.name} holds ${rows[table.name]} rows, the vault ${expected[table.name]}; ${leftAs}`,
      );
    }
  }
  const chains = await verifyAuditChains(target.db, target);
  if (!chains.ok) {
    throw new VaultError('VAULT_CORRUPT', `The audit chains of the copy do not verify; ${leftAs}`);
  }
  try {
    await verifyStoredRows(target.db, target);
  } catch (error) {
    if (isVaultError(error, 'INTEGRITY_FAILED')) {
      throw new VaultError(
        'INTEGRITY_FAILED',
        `Copying refused a row: ${error.message.replace(/\.$/, '')}; ${leftAs}`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
  return { vaultId: target.id, rows, chains };
}
