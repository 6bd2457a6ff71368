/**
 * Rows of the `tokens` and `token_search_indexes` tables: the only module that writes them.
 * Callers pass the transaction; every timestamp comes from the vault clock via the caller.
 */
import type {
  CompiledQuery,
  Expression,
  ExpressionBuilder,
  Insertable,
  Kysely,
  Selectable,
  SqlBool,
  Updateable,
} from 'kysely';
import type { NowOrLater } from '../common-types.ts';
import { VaultError } from '../errors/catalogue.ts';
import { updateAuthenticatedRow, verified } from '../integrity/row-authenticator.ts';
import type { RowKeys } from '../integrity/row-authenticator.ts';
import { insertRowsCompiled, runCompiled, runCompiledNow } from '../storage/compiled-queries.ts';
import type { Database, TokensTable } from '../storage/schema.ts';

export type TokenRow = Selectable<TokensTable>;
/** A row to insert, with its MAC (`withRowMac(keys, 'tokens', …)`). */
export type NewTokenRow = Omit<Insertable<TokensTable>, 'row_id'>;
export type TokenChanges = Omit<Updateable<TokensTable>, 'row_id' | 'tenant_id' | 'id' | 'type' | 'row_mac'>;

/** The one NOT_FOUND of tokens: a missing, expired or other tenant's token look the same. */
export function tokenNotFound(): VaultError {
  return new VaultError('NOT_FOUND', 'Not found.');
}

/** Tokens that have not expired at `now` (expired ones are invisible before the sweeper runs). */
export function notExpired(eb: ExpressionBuilder<Database, 'tokens'>, now: Date): Expression<SqlBool> {
  return notExpiredAt(eb, now.toISOString());
}

/** `notExpired` at a time given as its ISO text (a statement compiled once binds it later). */
export function notExpiredAt(eb: ExpressionBuilder<Database, 'tokens'>, now: string): Expression<SqlBool> {
  return eb.or([eb('tokens.expires_at', 'is', null), eb('tokens.expires_at', '>', now)]);
}

/**
 * The read path's query, compiled once per query builder: building it with Kysely on every read
 * cost more than running it. Its parameters are, in order: tenant, token id, now.
 */
const findTokenQueries = new WeakMap<Kysely<Database>, CompiledQuery<TokenRow>>();

function findTokenQuery(db: Kysely<Database>): CompiledQuery<TokenRow> {
  let query = findTokenQueries.get(db);
  if (!query) {
    query = db
      .selectFrom('tokens')
      .selectAll()
      .where('tenant_id', '=', '')
      .where('id', '=', '')
      .where((eb) => notExpired(eb, new Date(0)))
      .compile();
    if (query.parameters.length !== 3) throw new VaultError('INTERNAL', 'findToken compiled unexpectedly.');
    findTokenQueries.set(db, query);
  }
  return query;
}

/**
 * A live token of the tenant, verified against its MAC (its container and mask decide who sees
 * what: INTEGRITY_FAILED when they were changed outside the vault), or undefined.
 *
 * The row comes back at once where the store can run the lookup without waiting (the embedded
 * vault's own handle with its lock free), else as a promise (PostgreSQL, a transaction's handle,
 * the lock taken). Which path runs depends on the store and the lock, never on the token.
 */
export function findToken(
  db: Kysely<Database>,
  keys: RowKeys,
  tenantId: string,
  id: unknown,
  now: Date,
): NowOrLater<TokenRow | undefined> {
  if (typeof id !== 'string' || id === '') return undefined;
  const query = findTokenQuery(db);
  const parameters = [tenantId, id, now.toISOString()];
  const result = runCompiledNow(db, query, parameters);
  if (result !== null) return verified(keys, 'tokens', result.rows[0] ?? undefined);
  return runCompiled(db, query, parameters).then((awaited) => verified(keys, 'tokens', awaited.rows[0]));
}

/**
 * Any row with this id, expired or not (an expired one still holds its id until it is swept). Not
 * verified: it only tells whether the id is taken, and an expired row is deleted, which is all a
 * forged expiry could cause and what whoever forged it could do directly.
 */
export async function findTokenRow(
  db: Kysely<Database>,
  tenantId: string,
  id: string,
): Promise<TokenRow | undefined> {
  return db
    .selectFrom('tokens')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * The oldest live token of the tenant with this type and fingerprint (other than `excludeRowId`),
 * verified: it is returned to the caller in place of a new token.
 */
export async function findDuplicate(
  db: Kysely<Database>,
  keys: RowKeys,
  tenantId: string,
  type: string,
  fingerprint: string,
  now: Date,
  excludeRowId?: number,
): Promise<TokenRow | undefined> {
  let query = db
    .selectFrom('tokens')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('fingerprint', '=', fingerprint)
    .where('type', '=', type)
    .where((eb) => notExpired(eb, now));
  if (excludeRowId !== undefined) query = query.where('row_id', '!=', excludeRowId);
  return verified(keys, 'tokens', await query.orderBy('row_id').limit(1).executeTakeFirst());
}

/** A new row's columns, in the order the compiled inserts bind them. */
type TokenInsert = Required<NewTokenRow>;
const TOKEN_COLUMNS = [
  'tenant_id',
  'id',
  'type',
  'data',
  'mask',
  'fingerprint',
  'fingerprint_expression',
  'container',
  'metadata',
  'search_indexes',
  'created_by',
  'created_at',
  'modified_by',
  'modified_at',
  'expires_at',
  'expires_offset',
  'row_mac',
] as const satisfies ReadonlyArray<keyof TokenInsert>;
/** Placeholder values naming every column in TOKEN_COLUMNS' order (the compiled shape). */
const TOKEN_TEMPLATE: TokenInsert = {
  tenant_id: '',
  id: '',
  type: '',
  data: '',
  mask: null,
  fingerprint: null,
  fingerprint_expression: '',
  container: '',
  metadata: '',
  search_indexes: '',
  created_by: null,
  created_at: '',
  modified_by: null,
  modified_at: null,
  expires_at: null,
  expires_offset: null,
  row_mac: '',
};

function tokenInsert(row: NewTokenRow): TokenInsert {
  return {
    ...row,
    modified_by: row.modified_by ?? null,
    modified_at: row.modified_at ?? null,
    expires_at: row.expires_at ?? null,
    expires_offset: row.expires_offset ?? null,
    mask: row.mask ?? null,
    fingerprint: row.fingerprint ?? null,
    created_by: row.created_by ?? null,
  };
}

export async function insertTokenRow(trx: Kysely<Database>, row: NewTokenRow): Promise<TokenRow> {
  const [inserted] = await insertRowsCompiled(
    trx,
    {
      key: 'tokens:insert-returning-all',
      columns: TOKEN_COLUMNS,
      chunk: 1,
      template: TOKEN_TEMPLATE,
      build: (rows) => trx.insertInto('tokens').values(rows).returningAll(),
    },
    [tokenInsert(row)],
  );
  if (!inserted) throw new VaultError('INTERNAL', 'An inserted token returned no row.');
  return inserted;
}

/** Rows per multi-row insert of tokens: 16 bound values each, far below SQLite's limit. */
const TOKEN_INSERT_CHUNK = 50;

/** Inserts rows in order, in few statements; returns their row ids in the same order. */
export async function insertTokenRows(
  trx: Kysely<Database>,
  rows: readonly NewTokenRow[],
): Promise<number[]> {
  const ids = new Map<string, number>();
  const key = (tenantId: string, id: string) => `${tenantId}\u0000${id}`;
  const inserted = await insertRowsCompiled(
    trx,
    {
      key: 'tokens:insert-returning-keys',
      columns: TOKEN_COLUMNS,
      chunk: TOKEN_INSERT_CHUNK,
      template: TOKEN_TEMPLATE,
      build: (part) => trx.insertInto('tokens').values(part).returning(['row_id', 'tenant_id', 'id']),
    },
    rows.map(tokenInsert),
  );
  // RETURNING's row order is unspecified; token ids are unique within their tenant (the rows of a
  // grouped tokenize may belong to several tenants).
  for (const r of inserted) ids.set(key(r.tenant_id, r.id), r.row_id);
  return rows.map((row) => {
    const rowId = ids.get(key(row.tenant_id, row.id));
    if (rowId === undefined) throw new VaultError('INTERNAL', 'An inserted token returned no row id.');
    return rowId;
  });
}

/** Stores `changes` to a token row loaded in this transaction, with a new MAC. */
export async function updateTokenRow(
  trx: Kysely<Database>,
  keys: RowKeys,
  row: TokenRow,
  changes: TokenChanges,
): Promise<TokenRow> {
  return updateAuthenticatedRow(
    trx,
    keys,
    'tokens',
    row,
    changes as Partial<Omit<TokenRow, 'row_id' | 'row_mac'>>,
  );
}

/** Removes the row and its blind indexes: the data envelope is gone for good. */
export async function deleteTokenRow(trx: Kysely<Database>, row: Pick<TokenRow, 'row_id'>): Promise<void> {
  await trx.deleteFrom('token_search_indexes').where('token_rowid', '=', row.row_id).execute();
  await trx.deleteFrom('tokens').where('row_id', '=', row.row_id).execute();
}

/** Replaces a token's blind indexes with these digests (duplicates stored once). */
export async function replaceSearchDigests(
  trx: Kysely<Database>,
  tenantId: string,
  rowId: number,
  digests: readonly Uint8Array[],
  replacing: boolean,
): Promise<void> {
  if (replacing) await trx.deleteFrom('token_search_indexes').where('token_rowid', '=', rowId).execute();
  await insertSearchDigests(trx, [{ tenantId, rowId, digests }]);
}

/** Rows per multi-row insert of blind indexes. */
const DIGEST_INSERT_CHUNK = 200;

/** Adds blind indexes of new tokens (each token's duplicates stored once), in few statements. */
export async function insertSearchDigests(
  trx: Kysely<Database>,
  tokens: ReadonlyArray<{
    readonly tenantId: string;
    readonly rowId: number;
    readonly digests: readonly Uint8Array[];
  }>,
): Promise<void> {
  const values: Array<{ tenant_id: string; token_rowid: number; digest: Uint8Array }> = [];
  for (const { tenantId, rowId, digests } of tokens) {
    const seen = new Set<string>();
    for (const digest of digests) {
      const hex = Buffer.from(digest).toString('hex');
      if (seen.has(hex)) continue;
      seen.add(hex);
      values.push({ tenant_id: tenantId, token_rowid: rowId, digest });
    }
  }
  await insertRowsCompiled(
    trx,
    {
      key: 'token_search_indexes:insert',
      columns: ['tenant_id', 'token_rowid', 'digest'],
      chunk: DIGEST_INSERT_CHUNK,
      template: { tenant_id: '', token_rowid: 0, digest: new Uint8Array(0) },
      build: (part) => trx.insertInto('token_search_indexes').values(part),
    },
    values,
  );
}
