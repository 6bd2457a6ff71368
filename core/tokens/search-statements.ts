/**
 * The count and page statements of a search, compiled once per shape: Kysely building and
 * compiling both per request cost more than SQLite running them. A shape is everything the SQL
 * text depends on (the tree's operators and fields, metadata keys, container prefixes, which range
 * ends are open, the caller's scope, whether the blind index drives); the values that only ever
 * reach SQL as parameters (terms, digests, the tenant, the time, the page) are slots filled per
 * request.
 *
 * How the slots are found: the shape is built once with a unique marker string in place of each
 * slot value (`compileSearch` and the scope condition are reused unchanged, so there is one copy of
 * the search rules), and every compiled parameter that is a marker is replaced by its slot's value
 * on each run. A parameter that is no marker is a constant of the shape (from its key). Rule: a
 * slot value may only ever be bound as a parameter; a marker found anywhere but in the parameters
 * (inlined into the SQL, or changed on its way) is an internal error, never a wrong query.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { CompiledQuery, Kysely } from 'kysely';
import { VaultError } from '../errors/catalogue.ts';
import type { Database } from '../storage/schema.ts';
import { scopeCondition } from './access-scope.ts';
import type { ContainerScope } from './access-scope.ts';
import type { SearchNode } from './search-query.ts';
import { compileSearch } from './search-sql.ts';
import type { Hasher } from './token-crypto.ts';
import { notExpiredAt } from './token-store.ts';
import type { TokenRow } from './token-store.ts';

/** Where a page's rows come from (see `listPage` in token-page.ts). */
export type SearchDriver = 'tenant' | 'search-index';

/** A compiled statement and, per parameter, its slot (a number) or the shape's own constant. */
interface Bound<R> {
  readonly query: CompiledQuery<R>;
  readonly parameters: readonly ({ readonly slot: number } | { readonly constant: unknown })[];
}

interface SearchStatements {
  readonly count: Bound<{ n: number }>;
  readonly page: Bound<TokenRow>;
}

/** A search's slot values (in slot order) and the key of its shape. */
interface Shaped {
  readonly key: string;
  readonly template: SearchNode;
  /** A slot value, or for a `data:` term the plaintext term its digest is computed from. */
  readonly values: unknown[];
  /** Slots holding a `data:` term (replaced by its digest when bound). */
  readonly dataSlots: number[];
}

/**
 * Random per process, so that no stored value (a rule condition, say, which the shape keeps as a
 * constant) can spell a marker and be taken for a slot.
 */
const MARK = `\u0000svc-slot-${randomUUID()}\u0000`;
const marker = (slot: number): string => `${MARK}${slot}`;

/** Fixed slots, after the tree's own. */
const FIXED = ['tenant', 'now', 'limit', 'offset'] as const;

/** Kept per query builder at most; more shapes than this are rebuilt (a query may have many). */
const MAX_SHAPES = 512;
const cache = new WeakMap<Kysely<Database>, Map<string, SearchStatements>>();

/** The shape of `node`: its key part, and the tree with markers in place of its slot values. */
function shapeOf(
  node: SearchNode,
  values: unknown[],
  dataSlots: number[],
): { key: unknown; node: SearchNode } {
  const slot = (value: unknown): string => {
    values.push(value);
    return marker(values.length - 1);
  };
  switch (node.kind) {
    case 'and':
    case 'or': {
      const left = shapeOf(node.left, values, dataSlots);
      const right = shapeOf(node.right, values, dataSlots);
      return {
        key: [node.kind, left.key, right.key],
        node: { kind: node.kind, left: left.node, right: right.node },
      };
    }
    case 'not': {
      const inner = shapeOf(node.node, values, dataSlots);
      return { key: ['not', inner.key], node: { kind: 'not', node: inner.node } };
    }
    case 'equals':
      return { key: ['equals', node.field], node: { ...node, value: slot(node.value) } };
    case 'container':
      // A prefix becomes a computed range (and is checked): its value belongs to the shape.
      return node.prefix
        ? { key: ['container*', node.value], node }
        : { key: ['container'], node: { ...node, value: slot(node.value) } };
    case 'metadata':
      // The key becomes a JSON path: part of the shape.
      return { key: ['metadata', node.key], node: { ...node, value: slot(node.value) } };
    case 'data': {
      dataSlots.push(values.length);
      return { key: ['data'], node: { kind: 'data', value: slot(node.value) } };
    }
    case 'range':
      return {
        key: [
          'range',
          node.field,
          node.min === null,
          node.minInclusive,
          node.max === null,
          node.maxInclusive,
        ],
        node: {
          ...node,
          min: node.min === null ? null : slot(node.min),
          max: node.max === null ? null : slot(node.max),
        },
      };
  }
}

function shaped(tree: SearchNode, scope: ContainerScope, driver: SearchDriver): Shaped {
  const values: unknown[] = [];
  const dataSlots: number[] = [];
  const { key, node } = shapeOf(tree, values, dataSlots);
  return { key: JSON.stringify([driver, scope, key]), template: node, values, dataSlots };
}

function bind<R>(built: { compile(): CompiledQuery<R> }, slots: number): Bound<R> {
  const query = built.compile();
  if (query.sql.includes(MARK)) {
    throw new VaultError('INTERNAL', 'A search statement inlined one of its values.');
  }
  const parameters = query.parameters.map((p) => {
    if (typeof p === 'string' && p.includes(MARK)) {
      const slot = Number(p.slice(MARK.length));
      if (!p.startsWith(MARK) || !Number.isInteger(slot) || slot < 0 || slot >= slots) {
        throw new VaultError('INTERNAL', 'A search statement changed one of its values.');
      }
      return { slot };
    }
    return { constant: p };
  });
  return { query, parameters };
}

function build(
  db: Kysely<Database>,
  shape: Shaped,
  scope: ContainerScope,
  driver: SearchDriver,
): SearchStatements {
  const base = shape.values.length;
  const [tenant, now, limit, offset] = FIXED.map((_, i) => marker(base + i)) as [
    string,
    string,
    string,
    string,
  ];
  const slots = base + FIXED.length;
  // The markers of `data:` terms go through the digest as themselves.
  const digest = ((value: string) => value) as unknown as Hasher;
  // When every match must carry a blind-index digest, the index's few rows are the ones to visit:
  // the tenant check is then written as an expression no index serves, or SQLite (which keeps no
  // statistics) walks the tenant's every token through a (tenant_id, …) index and tests each
  // against the digest's list. The check itself stays.
  const tenantColumn =
    driver === 'search-index'
      ? sql<string>`${sql.ref('tokens.tenant_id')} || ''`
      : sql.ref('tokens.tenant_id');
  const filtered = db
    .selectFrom('tokens')
    .where(tenantColumn, '=', tenant)
    .where((eb) => compileSearch(eb, shape.template, { tenantId: tenant, digest }))
    .where((eb) => notExpiredAt(eb, now))
    .where((eb) => scopeCondition(eb, scope));
  return {
    count: bind(
      filtered.select((eb) => eb.fn.countAll<number>().as('n')),
      slots,
    ),
    page: bind(
      filtered
        .selectAll('tokens')
        .orderBy('tokens.row_id', 'desc')
        .limit(limit as unknown as number)
        .offset(offset as unknown as number),
      slots,
    ),
  };
}

export interface SearchRun {
  readonly count: CompiledQuery<{ n: number }>;
  readonly countParameters: readonly unknown[];
  readonly page: CompiledQuery<TokenRow>;
  readonly pageParameters: readonly unknown[];
}

/**
 * The count and page statements of `tree` over the live tokens of `tenantId` in `scope`, with their
 * parameters. `digest` is called once per `data:` term. `db` is the vault's query builder (the
 * statements are cached per builder); run them on the transaction's.
 */
export function searchStatements(
  db: Kysely<Database>,
  tree: SearchNode,
  options: {
    readonly tenantId: string;
    readonly scope: ContainerScope;
    readonly driver: SearchDriver;
    readonly now: Date;
    readonly limit: number;
    readonly offset: number;
    readonly digest: Hasher;
  },
): SearchRun {
  const shape = shaped(tree, options.scope, options.driver);
  let shapes = cache.get(db);
  if (!shapes) cache.set(db, (shapes = new Map()));
  let statements = shapes.get(shape.key);
  if (!statements) {
    statements = build(db, shape, options.scope, options.driver);
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    shapes.set(shape.key, statements);
  }
  const values = shape.values;
  for (const slot of shape.dataSlots) values[slot] = options.digest(values[slot] as string);
  values.push(options.tenantId, options.now.toISOString(), options.limit, options.offset);
  const fill = (bound: Bound<unknown>) =>
    bound.parameters.map((p) => ('slot' in p ? values[p.slot] : p.constant));
  return {
    count: statements.count.query,
    countParameters: fill(statements.count),
    page: statements.page.query,
    pageParameters: fill(statements.page),
  };
}
