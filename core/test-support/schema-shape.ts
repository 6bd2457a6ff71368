/**
 * The shape of a migrated database, read from the database itself (SQLite's pragmas, PostgreSQL's
 * catalogue) and written the same way for both backends, so that two shapes can be compared:
 * tables, columns (type, nullability, default, whether the database numbers it), primary keys,
 * unique constraints, indexes and foreign keys. CHECK constraints are not read.
 */
import { sql } from 'kysely';
import type { Kysely, RawBuilder } from 'kysely';
import type pg from 'pg';

export interface ColumnShape {
  /** The PostgreSQL type that stores the column's values, `collate` included (see `POSTGRES_TYPE_OF`). */
  readonly type: string;
  readonly nullable: boolean;
  /** The default as SQL text without casts (`'{}'`, `0`), or null for none. */
  readonly default: string | null;
  /** Whether the database numbers the column itself (SQLite's rowid alias, a PostgreSQL identity). */
  readonly generated: boolean;
}

export interface TableShape {
  readonly columns: ReadonlyMap<string, ColumnShape>;
  /** The primary key's columns in order; empty when the table has none. */
  readonly primaryKey: readonly string[];
  /** Column lists (`a, b`) of the unique constraints, the primary key's excepted. */
  readonly uniques: ReadonlySet<string>;
  /** Indexes made by `create index`, by name: their column list, and `unique` when they are. */
  readonly indexes: ReadonlyMap<string, string>;
  /** Foreign keys by their columns (`a, b`): `table(columns) on delete <action>`. */
  readonly foreignKeys: ReadonlyMap<string, string>;
}

export type SchemaShape = ReadonlyMap<string, TableShape>;

/**
 * The one mapping between the backends' column types: each SQLite type the embedded migrations
 * declare, and the PostgreSQL type that holds the same values and compares them the same way.
 * - TEXT is `text collate "C"`: byte order, like SQLite's BINARY collation, so sorting, ranges and
 *   equality answer the same on both.
 * - INTEGER is `bigint`: a SQLite integer has 64 bits; `integer` (32) would refuse what the file takes.
 * - BLOB is `bytea`.
 * A type missing here fails the comparison until it is mapped.
 */
export const POSTGRES_TYPE_OF: Readonly<Record<string, string>> = {
  TEXT: 'text collate "C"',
  INTEGER: 'bigint',
  BLOB: 'bytea',
};

const columnList = (columns: readonly string[]): string => columns.join(', ');

/** `'{}'::text` → `'{}'`: PostgreSQL writes the cast it applies, SQLite keeps the text as declared. */
function defaultText(expression: string | null): string | null {
  return expression === null ? null : expression.replace(/::[a-z ]+(\[\])?$/i, '');
}

interface SqliteColumn {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}
interface SqliteIndex {
  name: string;
  unique: number;
  origin: string;
}
interface SqliteForeignKey {
  id: number;
  seq: number;
  table: string;
  from: string;
  to: string;
  on_delete: string;
}

/** The shape of the embedded vault's database (sql.js), read through its Kysely instance. */
export async function sqliteShape<DB>(db: Kysely<DB>): Promise<SchemaShape> {
  const rows = async <T>(query: RawBuilder<T>): Promise<T[]> => (await query.execute(db)).rows;
  const tables = await rows<{ name: string; sql: string }>(
    sql`select name, sql from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`,
  );
  const shape = new Map<string, TableShape>();
  for (const table of tables) {
    const info = await rows<SqliteColumn>(sql`select * from pragma_table_info(${table.name})`);
    const primaryKey = info
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name);
    const withoutRowid = /\)\s*without\s+rowid\s*$/i.test(table.sql);
    const columns = new Map<string, ColumnShape>();
    for (const c of info) {
      const type = POSTGRES_TYPE_OF[c.type.toUpperCase()] ?? `unmapped SQLite type ${c.type}`;
      // An INTEGER PRIMARY KEY alone is the table's rowid: SQLite numbers it when none is given.
      const rowid =
        !withoutRowid && primaryKey.length === 1 && c.pk === 1 && c.type.toUpperCase() === 'INTEGER';
      columns.set(c.name, {
        type,
        // A primary key column counts as NOT NULL, as PostgreSQL makes it. SQLite admits NULL in one
        // that is not the rowid (a compatibility quirk it keeps); no vault writes a null key.
        nullable: c.notnull === 0 && c.pk === 0,
        default: defaultText(c.dflt_value),
        generated: rowid,
      });
    }
    const uniques = new Set<string>();
    const indexes = new Map<string, string>();
    for (const index of await rows<SqliteIndex>(sql`select * from pragma_index_list(${table.name})`)) {
      if (index.origin === 'pk') continue;
      const cols = await rows<{ name: string }>(
        sql`select name from pragma_index_info(${index.name}) order by seqno`,
      );
      const list = columnList(cols.map((c) => c.name));
      if (index.origin === 'u') uniques.add(list);
      else indexes.set(index.name, index.unique === 1 ? `${list} unique` : list);
    }
    const keys = await rows<SqliteForeignKey>(sql`select * from pragma_foreign_key_list(${table.name})`);
    const foreignKeys = new Map<string, string>();
    for (const id of new Set(keys.map((k) => k.id))) {
      const parts = keys.filter((k) => k.id === id).sort((a, b) => a.seq - b.seq);
      const first = parts[0]!;
      foreignKeys.set(
        columnList(parts.map((k) => k.from)),
        `${first.table}(${columnList(parts.map((k) => k.to))}) on delete ${first.on_delete.toLowerCase()}`,
      );
    }
    shape.set(table.name, { columns, primaryKey, uniques, indexes, foreignKeys });
  }
  return shape;
}

const POSTGRES_DELETE_ACTION: Readonly<Record<string, string>> = {
  a: 'no action',
  r: 'restrict',
  c: 'cascade',
  n: 'set null',
  d: 'set default',
};

/** The shape of the tables of the schema `client` works in (its `search_path`). */
export async function postgresShape(client: pg.Client): Promise<SchemaShape> {
  const tables = await client.query<{ name: string }>(
    `select tablename::text as name from pg_tables where schemaname = current_schema() order by 1`,
  );
  const shape = new Map<string, TableShape>();
  for (const { name } of tables.rows) {
    const relation = `${client.escapeIdentifier(name)}`;
    const columnRows = await client.query<{
      name: string;
      type: string;
      collation: string | null;
      notnull: boolean;
      default: string | null;
      identity: string;
    }>(
      `select a.attname::text as name, format_type(a.atttypid, a.atttypmod) as type,
         case when a.attcollation <> t.typcollation then co.collname::text end as collation,
         a.attnotnull as notnull, pg_get_expr(d.adbin, d.adrelid) as default, a.attidentity::text as identity
       from pg_attribute a
       join pg_type t on t.oid = a.atttypid
       left join pg_collation co on co.oid = a.attcollation
       left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
       where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped
       order by a.attnum`,
      [relation],
    );
    const columns = new Map<string, ColumnShape>();
    for (const c of columnRows.rows) {
      columns.set(c.name, {
        type: c.collation === null ? c.type : `${c.type} collate "${c.collation}"`,
        nullable: !c.notnull,
        default: defaultText(c.default),
        generated: c.identity !== '',
      });
    }
    const indexRows = await client.query<{
      name: string;
      unique: boolean;
      primary: boolean;
      constraint: boolean;
      columns: string[];
    }>(
      `select c.relname::text as name, i.indisunique as unique, i.indisprimary as primary,
         exists (select 1 from pg_constraint k where k.conindid = i.indexrelid and k.contype in ('p', 'u'))
           as constraint,
         array(select a.attname::text from unnest(i.indkey) with ordinality k(attnum, ord)
               join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
               order by k.ord) as columns
       from pg_index i join pg_class c on c.oid = i.indexrelid
       where i.indrelid = $1::regclass`,
      [relation],
    );
    let primaryKey: readonly string[] = [];
    const uniques = new Set<string>();
    const indexes = new Map<string, string>();
    for (const index of indexRows.rows) {
      const list = columnList(index.columns);
      if (index.primary) primaryKey = index.columns;
      else if (index.constraint) uniques.add(list);
      else indexes.set(index.name, index.unique ? `${list} unique` : list);
    }
    const keyRows = await client.query<{
      target: string;
      action: string;
      columns: string[];
      target_columns: string[];
    }>(
      `select f.relname::text as target, k.confdeltype::text as action,
         array(select a.attname::text from unnest(k.conkey) with ordinality c(n, o)
               join pg_attribute a on a.attrelid = k.conrelid and a.attnum = c.n order by c.o) as columns,
         array(select a.attname::text from unnest(k.confkey) with ordinality c(n, o)
               join pg_attribute a on a.attrelid = k.confrelid and a.attnum = c.n order by c.o)
           as target_columns
       from pg_constraint k join pg_class f on f.oid = k.confrelid
       where k.contype = 'f' and k.conrelid = $1::regclass`,
      [relation],
    );
    const foreignKeys = new Map<string, string>();
    for (const key of keyRows.rows) {
      const action = POSTGRES_DELETE_ACTION[key.action] ?? key.action;
      foreignKeys.set(
        columnList(key.columns),
        `${key.target}(${columnList(key.target_columns)}) on delete ${action}`,
      );
    }
    shape.set(name, { columns, primaryKey, uniques, indexes, foreignKeys });
  }
  return shape;
}

/**
 * One way the two shapes differ. `at` names the place: `table`, `table.column`,
 * `table.column type|nullable|default|generated`, `table primary key`, `table unique (a, b)`,
 * `table index name`, `table foreign key (a)`. A side that lacks the thing says `absent`.
 */
export interface ShapeDifference {
  readonly at: string;
  readonly embedded: string;
  readonly postgres: string;
}

const ABSENT = 'absent';

function compareSets(
  at: (item: string) => string,
  embedded: ReadonlyMap<string, string>,
  postgres: ReadonlyMap<string, string>,
  out: ShapeDifference[],
): void {
  for (const key of new Set([...embedded.keys(), ...postgres.keys()])) {
    const e = embedded.get(key) ?? ABSENT;
    const p = postgres.get(key) ?? ABSENT;
    if (e !== p) out.push({ at: at(key), embedded: e, postgres: p });
  }
}

const present = (set: ReadonlySet<string>): Map<string, string> =>
  new Map([...set].map((item) => [item, 'present']));

/** Every difference between the embedded and the PostgreSQL shape, in table order. */
export function shapeDifferences(embedded: SchemaShape, postgres: SchemaShape): ShapeDifference[] {
  const out: ShapeDifference[] = [];
  const tables = [...new Set([...embedded.keys(), ...postgres.keys()])].sort();
  for (const table of tables) {
    const e = embedded.get(table);
    const p = postgres.get(table);
    if (e === undefined || p === undefined) {
      out.push({
        at: table,
        embedded: e === undefined ? ABSENT : 'table',
        postgres: p === undefined ? ABSENT : 'table',
      });
      continue;
    }
    for (const column of new Set([...e.columns.keys(), ...p.columns.keys()])) {
      const ec = e.columns.get(column);
      const pc = p.columns.get(column);
      if (ec === undefined || pc === undefined) {
        out.push({
          at: `${table}.${column}`,
          embedded: ec === undefined ? ABSENT : 'column',
          postgres: pc === undefined ? ABSENT : 'column',
        });
        continue;
      }
      for (const attribute of ['type', 'nullable', 'default', 'generated'] as const) {
        if (ec[attribute] !== pc[attribute]) {
          out.push({
            at: `${table}.${column} ${attribute}`,
            embedded: String(ec[attribute]),
            postgres: String(pc[attribute]),
          });
        }
      }
    }
    const ek = columnList(e.primaryKey);
    const pk = columnList(p.primaryKey);
    if (ek !== pk) out.push({ at: `${table} primary key`, embedded: ek || ABSENT, postgres: pk || ABSENT });
    compareSets((u) => `${table} unique (${u})`, present(e.uniques), present(p.uniques), out);
    compareSets((name) => `${table} index ${name}`, e.indexes, p.indexes, out);
    compareSets((cols) => `${table} foreign key (${cols})`, e.foreignKeys, p.foreignKeys, out);
  }
  return out;
}
