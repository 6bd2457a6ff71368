import { columnIndex } from './block-rows.ts';
import type { Cell, RowTable } from './block-rows.ts';
import { entityIdsOf } from '../log-filter.ts';
import type { LogFilter } from '../log-filter.ts';

/**
 * What one block of a segment holds for one tenant, kept in memory so that listing, filtering and
 * counting decode only the blocks that may hold what is asked for. Sets are small (the vault's
 * entity types, operations, actor kinds; the actors of one block); entity ids, which are many, go
 * into a Bloom filter (no false negatives: a block it rules out holds no entry about the id).
 */
export interface TenantSummary {
  readonly count: number;
  readonly firstSeq: number;
  readonly lastSeq: number;
  /** The tenant's chain epoch when the entries were spilled (core/audit/segments/segmented-store.ts). */
  readonly epoch: number;
  /** Earliest and latest `created_at` (min and max: a clock may step back). */
  readonly firstAt: string;
  readonly lastAt: string;
  readonly entityTypes: readonly string[];
  readonly operations: readonly string[];
  readonly actorIds: readonly (string | null)[];
  readonly actorTypes: readonly (string | null)[];
  /** Bloom filter over `entity_id` and every element of `entity_ids`, base64. */
  readonly ids: string;
}

/** One block of a segment file: where it is and what it holds per tenant. */
export interface BlockSummary {
  readonly offset: number;
  /** Bytes on disk, frame included. */
  readonly length: number;
  readonly tenants: Readonly<Record<string, TenantSummary>>;
  /**
   * The nonce the block was sealed with, base64 (absent from index files written before it was
   * kept): an open segment's index names each block by it, so that an entry matches only the very
   * block it was written for (core/audit/segments/open-index.ts).
   */
  readonly nonce?: string;
  /** The block could not be read when its segment was opened: its tenants are unknown. */
  readonly damaged?: true;
}

const BLOOM_HASHES = 6;
const BLOOM_BITS_PER_ID = 10;

/** FNV-1a over the UTF-16 units of `text`, from `seed`. */
function fnv(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

function bloomPositions(id: string, bits: number): number[] {
  const a = fnv(id, 0x811c9dc5);
  const b = fnv(id, 0x9747b28c) | 1;
  const positions: number[] = [];
  for (let i = 0; i < BLOOM_HASHES; i++) positions.push(((a + Math.imul(i, b)) >>> 0) % bits);
  return positions;
}

function bloomOf(ids: ReadonlySet<string>): string {
  const bytes = Math.max(8, Math.ceil((ids.size * BLOOM_BITS_PER_ID) / 8));
  const filter = Buffer.alloc(bytes);
  for (const id of ids) {
    for (const p of bloomPositions(id, bytes * 8)) filter[p >> 3]! |= 1 << (p & 7);
  }
  return filter.toString('base64');
}

/** Whether the Bloom filter may hold `id` (false: it certainly does not). */
export function bloomMayHold(filterText: string, id: string): boolean {
  const filter = Buffer.from(filterText, 'base64');
  if (filter.length === 0) return false;
  return bloomPositions(id, filter.length * 8).every((p) => ((filter[p >> 3] ?? 0) & (1 << (p & 7))) !== 0);
}

/** What a summary gathers of one tenant's rows while it walks the block. */
interface TenantGathering {
  count: number;
  readonly firstSeq: number;
  lastSeq: number;
  firstAt: string;
  lastAt: string;
  /** The distinct values of `SET_COLUMNS`, in that order. */
  readonly sets: readonly Set<Cell>[];
  /** The tenant's row before this one. */
  last: readonly Cell[];
}

/** Columns whose distinct values a summary lists (the entity ids go into its Bloom filter). */
const SET_COLUMNS = ['entity_type', 'operation', 'actor_id', 'actor_type', 'entity_id'] as const;

/**
 * The per-tenant summaries of a block's rows (in chain order), with each tenant's epoch. One walk
 * over the cells: no row objects, no per-tenant lists. Consecutive entries mostly repeat a tenant's
 * values (a token read over and over): a value equal to the one before is not hashed into its set
 * again.
 */
export function summarize(
  table: RowTable,
  epochOf: (tenantId: string) => number,
): Record<string, TenantSummary> {
  const tenantAt = columnIndex(table, 'tenant_id');
  const seqAt = columnIndex(table, 'seq');
  const createdAt = columnIndex(table, 'created_at');
  const entitiesAt = columnIndex(table, 'entity_ids');
  const setAt = SET_COLUMNS.map((c) => columnIndex(table, c));
  const groups = new Map<string, TenantGathering>();
  let g: TenantGathering | undefined;
  for (const row of table.rows) {
    const tenant = row[tenantAt] as string;
    const seq = row[seqAt] as number;
    const created = row[createdAt] as string;
    if (g === undefined || g.last[tenantAt] !== tenant) g = groups.get(tenant);
    if (!g) {
      g = {
        count: 0,
        firstSeq: seq,
        lastSeq: seq,
        firstAt: created,
        lastAt: created,
        sets: setAt.map((i) => new Set([row[i]!])),
        last: row,
      };
      groups.set(tenant, g);
    }
    g.count++;
    g.lastSeq = seq;
    if (created < g.firstAt) g.firstAt = created;
    if (created > g.lastAt) g.lastAt = created;
    for (let k = 0; k < setAt.length; k++) {
      const value = row[setAt[k]!]!;
      if (value !== g.last[setAt[k]!]) g.sets[k]!.add(value);
    }
    g.last = row;
    const many = row[entitiesAt] as string | null;
    if (many !== null) for (const id of entityIdsOf(many)) g.sets[4]!.add(id);
  }
  const out: Record<string, TenantSummary> = {};
  for (const [tenant, g] of groups) {
    out[tenant] = {
      count: g.count,
      firstSeq: g.firstSeq,
      lastSeq: g.lastSeq,
      epoch: epochOf(tenant),
      firstAt: g.firstAt,
      lastAt: g.lastAt,
      entityTypes: [...g.sets[0]!] as string[],
      operations: [...g.sets[1]!] as string[],
      actorIds: [...g.sets[2]!] as (string | null)[],
      actorTypes: [...g.sets[3]!] as (string | null)[],
      ids: bloomOf(g.sets[4] as Set<string>),
    };
  }
  return out;
}

/**
 * What a summary says of `filter` (the same fields `entryMatches` looks at): `none` when no entry
 * of the block can match, `all` when every one does (counted without decoding), else `some`.
 */
export function summaryVerdict(s: TenantSummary, filter: LogFilter): 'none' | 'all' | 'some' {
  const sets: Array<[readonly (string | null)[], string | undefined]> = [
    [s.entityTypes, filter.entityType],
    [s.operations, filter.operation],
    [s.actorIds, filter.actorId],
    [s.actorTypes, filter.actorType],
  ];
  let all = true;
  for (const [values, wanted] of sets) {
    if (wanted === undefined) continue;
    if (!values.includes(wanted)) return 'none';
    if (values.length !== 1) all = false;
  }
  if (filter.startDate !== undefined) {
    if (s.lastAt < filter.startDate) return 'none';
    if (s.firstAt < filter.startDate) all = false;
  }
  if (filter.endDate !== undefined) {
    if (s.firstAt >= filter.endDate) return 'none';
    if (s.lastAt >= filter.endDate) all = false;
  }
  if (filter.entityId !== undefined) {
    if (!bloomMayHold(s.ids, filter.entityId)) return 'none';
    all = false;
  }
  return all ? 'all' : 'some';
}
