/**
 * MACs over the rows that decide who may do what. On PostgreSQL the database's administrators can
 * change any row without the vault key; a row that grants access (a password hash, an application's
 * grants, a member's role, a proxy's application…) must therefore carry proof that the vault wrote
 * it. Each such row stores `row_mac = v1.<term>.<MAC>`, a keyed BLAKE2b (the row key of a keyring
 * term) over the table, the term and the row's identity and deciding columns in a canonical
 * encoding. The MAC is written with every insert and every update of those columns and checked on
 * every load that acts on the row; a row that fails is refused (INTEGRITY_FAILED, naming table and
 * row id, never a value), never used.
 *
 * The rule is the same on both backends: the embedded file is encrypted whole, so there a failure
 * means a bug or someone holding the key, but one schema and one code path keep rows copyable
 * between the backends as they are (docs/security.md, "Rows that decide access").
 */
import type { Kysely, Selectable } from 'kysely';
import { sql } from 'kysely';
import { constantTimeEqual } from '../crypto/constant-time.ts';
import { VaultError } from '../errors/catalogue.ts';
import type { Database } from '../storage/schema.ts';
import type { VaultKeys } from '../vault/barrier.ts';

/**
 * Each authenticated table and the columns its MAC covers: the row's identity first, then every
 * column whose value decides access. Columns that only describe (names, timestamps, who made it)
 * are left out, so changing them is not tampering; a column added later that decides access must
 * be added here (which changes the MAC of every row of the table: a migration re-MACs them).
 */
export const AUTHENTICATED_COLUMNS = {
  users: ['id', 'email', 'password_hash'],
  sessions: ['id', 'user_id', 'token_hash', 'expires_at'],
  tenants: ['id', 'owner_id', 'settings'],
  members: ['id', 'tenant_id', 'user_id', 'role'],
  applications: [
    'id',
    'tenant_id',
    'type',
    'key_hash',
    'permissions',
    'rules',
    'expires_at',
    'can_create_expiring_applications',
  ],
  invitations: ['id', 'tenant_id', 'email', 'secret_hash', 'expires_at'],
  reactor_formulas: ['id', 'tenant_id', 'status', 'code', 'configuration', 'request_parameters'],
  reactors: ['id', 'tenant_id', 'formula_id', 'application_id', 'configuration'],
  proxies: [
    'id',
    'tenant_id',
    'key',
    'destination_url',
    'request_transform',
    'response_transform',
    'application_id',
    'configuration',
    'require_auth',
  ],
  // The data envelope is already bound to tenant and token id by its AAD; the container decides
  // who reaches the token, the mask what a masked read shows.
  tokens: ['tenant_id', 'id', 'type', 'container', 'mask', 'expires_at'],
} as const satisfies { readonly [T in keyof Database]?: readonly (keyof Database[T] & string)[] };

export type AuthenticatedTable = keyof typeof AUTHENTICATED_COLUMNS;

export const AUTHENTICATED_TABLES = Object.keys(AUTHENTICATED_COLUMNS) as AuthenticatedTable[];

/**
 * The column that names a row in a refusal (and keys its update): the primary key. Token rows are
 * named by `row_id`, since a token id may be an alias derived from the data.
 */
export const ROW_KEY = {
  users: 'id',
  sessions: 'id',
  tenants: 'id',
  members: 'id',
  applications: 'id',
  invitations: 'id',
  reactor_formulas: 'id',
  reactors: 'id',
  proxies: 'id',
  tokens: 'row_id',
} as const satisfies { readonly [T in AuthenticatedTable]: keyof Database[T] & string };

type Row<T extends AuthenticatedTable> = Selectable<Database[T]>;

/** Columns `C` of table `T` as a load returns them. */
type Columns<T extends AuthenticatedTable, C extends string> = {
  readonly [K in C]: K extends keyof Row<T> ? Row<T>[K] : never;
};

/** The columns a MAC covers. */
export type Covered<T extends AuthenticatedTable> = Columns<T, (typeof AUTHENTICATED_COLUMNS)[T][number]>;

/** What a load must read to verify a row: the covered columns, the row's key and its MAC. */
export type Stored<T extends AuthenticatedTable> = Covered<T> & Columns<T, (typeof ROW_KEY)[T] | 'row_mac'>;

/** What computing and checking MACs needs of the vault's keys. */
export type RowKeys = Pick<VaultKeys, 'rowMac' | 'keyTerm' | 'keyTerms'>;

const FORMAT = 'v1';
const STORED = /^v1\.([1-9][0-9]{0,8})\.([A-Za-z0-9_-]{43})$/;

type Canonical = string | number | null;

function canonical(table: string, column: string, value: unknown): Canonical {
  if (value === null || typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value);
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  // A load that did not select a covered column: a bug, never a reason to accept the row.
  throw new VaultError('INTERNAL', `The ${table}.${column} column was not loaded for its integrity check.`);
}

/**
 * The message a MAC is computed over: a JSON array (deterministic for strings, numbers and null)
 * of the format, table, term and covered values in the listed order; bytes as base64.
 */
function message<T extends AuthenticatedTable>(table: T, term: number, row: Covered<T>): Buffer {
  const values = (AUTHENTICATED_COLUMNS[table] as readonly string[]).map((column) =>
    canonical(table, column, (row as Record<string, unknown>)[column]),
  );
  // As bytes: libsodium's own conversion of a string costs more than the hash.
  return Buffer.from(JSON.stringify(['svc-row', FORMAT, table, term, values]), 'utf8');
}

function macOf<T extends AuthenticatedTable>(
  keys: RowKeys,
  table: T,
  row: Covered<T>,
  term: number,
): Uint8Array {
  return keys.rowMac(term, message(table, term, row));
}

/** The `row_mac` value of `row` under the active term (or `term`). */
export function rowMac<T extends AuthenticatedTable>(
  keys: RowKeys,
  table: T,
  row: Covered<T>,
  term: number = keys.keyTerm,
): string {
  const mac = macOf(keys, table, row, term);
  return `${FORMAT}.${term}.${Buffer.from(mac.buffer, mac.byteOffset, mac.byteLength).toString('base64url')}`;
}

/** `row` with its MAC, for an insert. */
export function withRowMac<T extends AuthenticatedTable, R extends Covered<T>>(
  keys: RowKeys,
  table: T,
  row: R,
): R & { row_mac: string } {
  return { ...row, row_mac: rowMac(keys, table, row) };
}

/** The key term and MAC bytes a stored MAC holds, or null when it is not a MAC of this format. */
function parseStored(stored: unknown): { term: number; mac: Buffer } | null {
  const match = typeof stored === 'string' ? STORED.exec(stored) : null;
  return match ? { term: Number(match[1]), mac: Buffer.from(match[2]!, 'base64url') } : null;
}

function refused(table: AuthenticatedTable, row: Record<string, unknown>, why: string): VaultError {
  const key = ROW_KEY[table];
  const id = row[key];
  const named = typeof id === 'string' || typeof id === 'number' ? String(id) : '(unknown)';
  return new VaultError(
    'INTEGRITY_FAILED',
    `The ${table} row ${key}=${named} failed its integrity check and was refused: ${why}.`,
  );
}

/**
 * Throws INTEGRITY_FAILED unless `row`'s MAC matches its covered columns. The refusal names the
 * table and the row's key, never a value.
 */
export function verifyRow<T extends AuthenticatedTable>(keys: RowKeys, table: T, row: Stored<T>): void {
  const fields = row as unknown as Record<string, unknown>;
  const stored = parseStored(fields.row_mac);
  if (stored === null) throw refused(table, fields, 'it has no valid MAC (written outside the vault)');
  const { term } = stored;
  if (!keys.keyTerms.includes(term)) {
    throw refused(
      table,
      fields,
      `its MAC names key term ${term}, which this process does not hold (after a key rotation by ` +
        'another process, restart this one; otherwise the row was forged)',
    );
  }
  if (!constantTimeEqual(macOf(keys, table, row, term), stored.mac)) {
    throw refused(table, fields, 'its content does not match its MAC (changed outside the vault)');
  }
}

/** `row` when it verifies (undefined stays undefined): for the `const row = await …` of a load. */
export function verified<T extends AuthenticatedTable, R extends Stored<T>>(
  keys: RowKeys,
  table: T,
  row: R,
): R;
export function verified<T extends AuthenticatedTable, R extends Stored<T>>(
  keys: RowKeys,
  table: T,
  row: R | undefined,
): R | undefined;
export function verified<T extends AuthenticatedTable, R extends Stored<T>>(
  keys: RowKeys,
  table: T,
  row: R | undefined,
): R | undefined {
  if (row !== undefined) verifyRow(keys, table, row);
  return row;
}

/**
 * Whether `row` verifies, for a load that only shows a row's value and can leave a refused one
 * out; anything that acts on a row uses `verified`, which refuses.
 */
export function rowHolds<T extends AuthenticatedTable>(keys: RowKeys, table: T, row: Stored<T>): boolean {
  try {
    verifyRow(keys, table, row);
    return true;
  } catch (error) {
    if (error instanceof VaultError && error.code === 'INTEGRITY_FAILED') return false;
    throw error;
  }
}

/** Every row of a page, verified (the whole page is refused when one row fails). */
export function verifiedRows<T extends AuthenticatedTable, R extends Stored<T>>(
  keys: RowKeys,
  table: T,
  rows: R[],
): R[] {
  for (const row of rows) verifyRow(keys, table, row);
  return rows;
}

/**
 * Thrown when an authenticated row changed between its load and its update (another server wrote
 * it): its `code` is PostgreSQL's serialization failure, so the transaction is run again from its
 * load, as for any serialization failure. The embedded vault has one writer and never meets it.
 */
export class RowChangedMeanwhile extends Error {
  readonly code = '40001';

  constructor(table: AuthenticatedTable) {
    super(`A ${table} row changed while it was being updated; the transaction runs again.`);
    this.name = 'RowChangedMeanwhile';
  }
}

/**
 * Updates `current` (as loaded in this transaction) with `changes` and a MAC of the result. The
 * current row is verified first, so an update never vouches for what someone else changed, and the
 * statement applies only while the stored MAC is still the one loaded: a row another server
 * changed meanwhile is not overwritten with a MAC over a mix of both (RowChangedMeanwhile).
 * Returns the row as now stored.
 */
export async function updateAuthenticatedRow<T extends AuthenticatedTable, R extends Stored<T>>(
  trx: Kysely<Database>,
  keys: RowKeys,
  table: T,
  current: R,
  changes: Partial<Omit<Row<T>, 'row_mac' | (typeof ROW_KEY)[T]>>,
): Promise<R> {
  verifyRow(keys, table, current);
  // An undefined value changes nothing, as in Kysely's own `set`.
  const changed = Object.entries(changes).filter(([, value]) => value !== undefined);
  const next = { ...current, ...Object.fromEntries(changed) } as R;
  const mac = rowMac(keys, table, next);
  const key = ROW_KEY[table];
  const fields = current as unknown as Record<string, unknown>;
  const assignments = [...changed, ['row_mac', mac] as const].map(
    ([column, value]) => sql`${sql.ref(column)} = ${value}`,
  );
  const result = await sql`update ${sql.table(table)} set ${sql.join(assignments)}
    where ${sql.ref(key)} = ${fields[key]} and row_mac = ${fields.row_mac}`.execute(trx);
  if (result.numAffectedRows === 0n) throw new RowChangedMeanwhile(table);
  return { ...next, row_mac: mac };
}
