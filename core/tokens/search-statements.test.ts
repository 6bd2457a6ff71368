import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Database } from '../storage/schema.ts';
import { scopeCondition } from './access-scope.ts';
import type { ContainerScope } from './access-scope.ts';
import { parseSearchQuery } from './search-query.ts';
import { compileSearch, requiresDataTerm } from './search-sql.ts';
import { searchStatements } from './search-statements.ts';
import type { Hasher } from './token-crypto.ts';
import { notExpired } from './token-store.ts';

const sqlite = new Kysely<Database>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});
const postgres = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

const digest: Hasher = (value) => new TextEncoder().encode(`digest of ${value.toLowerCase()}`);

/** The statements as Kysely builds them with the values in place (what search did per request). */
function reference(
  db: Kysely<Database>,
  query: string,
  tenantId: string,
  scope: ContainerScope,
  now: Date,
  limit: number,
  offset: number,
) {
  const tree = parseSearchQuery(query);
  const tenantColumn = requiresDataTerm(tree)
    ? sql<string>`${sql.ref('tokens.tenant_id')} || ''`
    : sql.ref('tokens.tenant_id');
  const filtered = db
    .selectFrom('tokens')
    .where(tenantColumn, '=', tenantId)
    .where((eb) => compileSearch(eb, tree, { tenantId, digest }))
    .where((eb) => notExpired(eb, now))
    .where((eb) => scopeCondition(eb, scope));
  return {
    count: filtered.select((eb) => eb.fn.countAll<number>().as('n')).compile(),
    page: filtered.selectAll('tokens').orderBy('tokens.row_id', 'desc').limit(limit).offset(offset).compile(),
  };
}

const QUERIES = [
  'type:card_number',
  'id:"a-b" AND type:card_number AND container:"/pci/*"',
  'type:x OR (fingerprint:f AND NOT created_by:u)',
  'modified_by:m -id:z',
  'container:"/a/b/" OR container:"/a/*" OR container:"/bad path*"',
  'metadata.customer:Bob AND metadata.other:x',
  'data:4242 AND type:card',
  'data:a OR data:B',
  'created_at:[2024-01-01 TO 2024-02-01} AND modified_at:{2024-01-01 TO *]',
  'created_at:[* TO 2024-02-01T10:00:00Z]',
  'NOT (type:a OR type:b)',
];

const SCOPES: ContainerScope[] = [
  { kind: 'all' },
  { kind: 'prefixes', prefixes: ['/a/', '/pci/'] },
  {
    kind: 'prefixes',
    prefixes: ['/b/'],
    conditioned: [[{ attribute: 'id', operator: 'equals', value: 'tok-1' }]],
  },
];

describe('searchStatements', () => {
  for (const [name, db] of [
    ['sqlite', sqlite],
    ['postgres', postgres],
  ] as const) {
    it(`gives the statements and parameters Kysely builds with the values in place (${name})`, () => {
      // Twice over, with other values the second time: the second run comes from the cache.
      for (const round of [0, 1]) {
        for (const query of QUERIES) {
          for (const scope of SCOPES) {
            const variant = round === 0 ? query : query.replaceAll('card', 'bank').replaceAll('2024', '2025');
            const tenantId = `tenant-${round}`;
            const now = new Date(Date.UTC(2024, 5, 1 + round));
            const [limit, offset] = round === 0 ? [10, 0] : [25, 50];
            const expected = reference(db, variant, tenantId, scope, now, limit, offset);
            const tree = parseSearchQuery(variant);
            const run = searchStatements(db, tree, {
              tenantId,
              scope,
              driver: requiresDataTerm(tree) ? 'search-index' : 'tenant',
              now,
              limit,
              offset,
              digest,
            });
            expect(run.count.sql).toBe(expected.count.sql);
            expect(run.countParameters).toEqual(expected.count.parameters);
            expect(run.page.sql).toBe(expected.page.sql);
            expect(run.pageParameters).toEqual(expected.page.parameters);
          }
        }
      }
    });
  }

  it('keys a statement by its shape: other values reuse it, another shape does not', () => {
    const options = {
      tenantId: 't',
      scope: { kind: 'all' } as const,
      driver: 'tenant' as const,
      now: new Date(0),
      limit: 10,
      offset: 0,
      digest,
    };
    const a = searchStatements(sqlite, parseSearchQuery('type:a AND metadata.k:v'), options);
    const b = searchStatements(sqlite, parseSearchQuery('type:b AND metadata.k:w'), options);
    const c = searchStatements(sqlite, parseSearchQuery('type:b AND metadata.j:w'), options);
    expect(b.page).toBe(a.page);
    expect(c.page).not.toBe(a.page);
  });
});
