/**
 * The MACs of stored rows as a whole: written for every existing row when the column arrives (the
 * migration), moved to the active key term by a rotation, and counted before old terms are retired.
 */
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type { Database } from '../storage/schema.ts';
import {
  AUTHENTICATED_COLUMNS,
  AUTHENTICATED_TABLES,
  ROW_KEY,
  rowMac,
  verifyRow,
} from './row-authenticator.ts';
import type { AuthenticatedTable, Covered, RowKeys, Stored } from './row-authenticator.ts';

/** Rows per statement: three parameters each, far below SQLite's and PostgreSQL's limits. */
const BATCH = 200;

type Loaded = Record<string, unknown> & { row_mac: string | null };

/** The next `BATCH` rows of `table` after `after` (by key) that `where` selects, with what a MAC covers. */
async function nextRows(
  db: Kysely<Database>,
  table: AuthenticatedTable,
  after: unknown,
  where: RawBuilder<boolean> | null,
): Promise<Loaded[]> {
  const key = ROW_KEY[table];
  const columns = [...new Set<string>([key, ...AUTHENTICATED_COLUMNS[table], 'row_mac'])];
  const conditions = [
    ...(after === undefined ? [] : [sql<boolean>`${sql.ref(key)} > ${after}`]),
    ...(where === null ? [] : [where]),
  ];
  const filter = conditions.length === 0 ? sql`` : sql`where ${sql.join(conditions, sql` and `)}`;
  const result = await sql<Loaded>`select ${sql.join(columns.map((c) => sql.ref(c)))}
    from ${sql.table(table)} ${filter} order by ${sql.ref(key)} limit ${BATCH}`.execute(db);
  return result.rows;
}

/**
 * Sets each row's `row_mac` to its new value in one statement, only where the stored MAC is still
 * the one read (`expected`): a row changed meanwhile keeps what its writer stored. Returns how many
 * rows changed.
 */
async function storeMacs(
  trx: Kysely<Database>,
  table: AuthenticatedTable,
  macs: ReadonlyArray<{ key: unknown; expected: string | null; mac: string }>,
): Promise<number> {
  if (macs.length === 0) return 0;
  const key = sql.ref(ROW_KEY[table]);
  const cases = macs.map(({ key: value, expected, mac }) =>
    expected === null
      ? sql`when ${key} = ${value} and row_mac is null then ${mac}`
      : sql`when ${key} = ${value} and row_mac = ${expected} then ${mac}`,
  );
  const result = await sql`update ${sql.table(table)}
    set row_mac = case ${sql.join(cases, sql` `)} else row_mac end
    where ${key} in (${sql.join(macs.map((m) => m.key))})`.execute(trx);
  return Number(result.numAffectedRows ?? 0n);
}

/**
 * Writes a MAC for every row of every authenticated table, whatever it holds: run once, by the
 * migration that adds the column, when the vault is opened with its key. Rows as they are at that
 * moment are vouched for; a row changed before it (by someone without the key) is not detected.
 */
export async function authenticateStoredRows(trx: Kysely<Database>, keys: RowKeys): Promise<void> {
  for (const table of AUTHENTICATED_TABLES) {
    let after: unknown = undefined;
    for (;;) {
      const rows = await nextRows(trx, table, after, null);
      if (rows.length === 0) break;
      await storeMacs(
        trx,
        table,
        rows.map((row) => ({
          key: row[ROW_KEY[table]],
          expected: row.row_mac,
          mac: rowMac(keys, table, row as unknown as Covered<typeof table>),
        })),
      );
      after = rows.at(-1)![ROW_KEY[table]];
    }
  }
}

/**
 * Moves every row MAC to the active key term, in batches of one transaction each: each row is
 * verified under the term it names first (INTEGRITY_FAILED stops the rotation, nothing retired), so
 * a rotation never vouches for a row someone changed. Returns the rows moved.
 */
export async function moveRowMacsToActiveTerm(
  vault: RowKeys & { transaction<T>(fn: (trx: Kysely<Database>) => Promise<T>): Promise<T> },
): Promise<number> {
  const term = vault.keyTerm;
  let moved = 0;
  for (const table of AUTHENTICATED_TABLES) {
    let after: unknown = undefined;
    for (;;) {
      const batch = await vault.transaction(async (trx) => {
        const rows = await nextRows(trx, table, after, sql<boolean>`row_mac not like ${`v1.${term}.%`}`);
        const macs = rows.map((row) => {
          verifyRow(vault, table, row as unknown as Stored<typeof table>);
          return {
            key: row[ROW_KEY[table]],
            expected: row.row_mac,
            mac: rowMac(vault, table, row as unknown as Covered<typeof table>, term),
          };
        });
        return { stored: await storeMacs(trx, table, macs), last: macs.at(-1)?.key };
      });
      if (batch.last === undefined) break;
      moved += batch.stored;
      after = batch.last;
    }
  }
  return moved;
}

/**
 * Verifies every row of every authenticated table, a batch at a time (INTEGRITY_FAILED at the first
 * row that fails, naming it); returns how many rows were checked. For a copy of a vault, whose rows
 * keep the MACs the source computed under the same keyring.
 */
export async function verifyStoredRows(db: Kysely<Database>, keys: RowKeys): Promise<number> {
  let checked = 0;
  for (const table of AUTHENTICATED_TABLES) {
    let after: unknown = undefined;
    for (;;) {
      const rows = await nextRows(db, table, after, null);
      if (rows.length === 0) break;
      for (const row of rows) verifyRow(keys, table, row as unknown as Stored<typeof table>);
      checked += rows.length;
      after = rows.at(-1)![ROW_KEY[table]];
    }
  }
  return checked;
}

/** Rows whose MAC is not under `term` (retiring the other terms must wait until there are none). */
export async function countRowMacsOutsideTerm(db: Kysely<Database>, term: number): Promise<number> {
  let total = 0;
  for (const table of AUTHENTICATED_TABLES) {
    const result = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}
      where row_mac not like ${`v1.${term}.%`}`.execute(db);
    total += Number(result.rows[0]?.n ?? 0);
  }
  return total;
}
