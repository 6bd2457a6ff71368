import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { open, seal } from '../../crypto/aead.ts';
import { loadSodium } from '../../crypto/sodium.ts';
import type { AuditLogsTable } from '../../storage/schema.ts';
import {
  BLOCK_FORMAT,
  FRAME_HEADER_BYTES,
  decodeBlock,
  decodeBlockTenants,
  decodeIndex,
  encodeBlock,
  encodeIndex,
  frameOf,
} from './block-codec.ts';
import { bloomMayHold } from './block-summary.ts';

const place = { vaultId: 'vault-1', segment: 3, generation: 0, offset: 4096 };
const key = new Uint8Array(32).fill(9);
const aad = (format: number) =>
  Buffer.from(`svc vault audit block v${format}\u0000vault-1\u00003\u00000\u00004096`, 'utf8');

function rows(n: number): AuditLogsTable[] {
  const prev = new Map<string, Uint8Array>();
  return Array.from({ length: n }, (_, i) => {
    const tenant = i % 3 === 0 ? 't1' : 't2';
    const hash = new Uint8Array(32).fill(i + 1);
    const row: AuditLogsTable = {
      id: `id-${i}`,
      tenant_id: tenant,
      seq: i,
      actor_id: i % 5 === 0 ? null : 'app-1',
      actor_type: i % 5 === 0 ? null : 'application',
      entity_type: i % 6 === 0 ? 'card' : 'token',
      entity_id: `tok-${i}`,
      operation: i % 9 === 0 ? 'update' : 'read',
      message: 'Token "read" \\ ünïcode ✓',
      // A clock that stepped back once: the summary's range is the minimum and the maximum.
      created_at: `2026-01-01T00:00:${String(i === 30 ? 5 : i).padStart(2, '0')}.000Z`,
      entity_ids: i % 4 === 0 ? `["tok-${i}","other-${i}"]` : null,
      revealed: i % 2,
      // Every tenant's first entry, and one in the middle, does not follow the entry before it.
      prev_hash: i === 20 ? new Uint8Array(32).fill(200) : (prev.get(tenant) ?? new Uint8Array(32)),
      hash,
    };
    prev.set(tenant, hash);
    return row;
  });
}

/** A block the format 1 encoder wrote (before blocks were format 2): three rows, two tenants. */
const FORMAT_1_BLOCK =
  'AQAAAebRuOHeUxgCahf/A/MsUlnTBersgZNLGJpwNdcrXW5wITPSoEojNO7rb3tpxp2hbzI9szY2UI/my6Px1mVOpSKVqsLVOHT1mLxV9u5vRff5ZeDFkPVZdaRvXsbBjGW7CnRbFT9wIPFK6HzWDFaUctyrRd/xknrdIKPih/lAQjfDiYfYz0XROgjumuxL5jiVQyWsAezMKxOxdKq9+sSHx2qpTFFIzhB2fPjNRTrzP7KhbuhTttXtiMsN7ftOJDd0X9J1femDcnowNxwBFsuqdpXv0ur0wPeD5JnUSUIftO7vAeXk5iFbmFdSq4VynCr1wSQoa0S+i8sBfoiodgP8r5iJg9EpXua50o4H6lcmAoZOIeQihvYZqQHjdIsU/TMSBQzpxJcCvv/khAhY611P1Am4KHQgx5aD/Nuei9UAxBuoeQmCwPH38tnhAVrXF+AuvoNQbNN5Ga1fs3OpBcnZrVibV2mUEq4Ho8FJ7JOZZGnkTeU9uyGDP19UacImB7NpcQwQ5WjHb/Jtmeq5i1FyMNk3SC0LVf9FkbizNSyrnVmnRY+SlbirVxBwC/WrARKkYXD6/Z0N8OIMo+GboQlmbbH3r2arWS+U6j/7afNg6wHpBUDnudkltatHXb3MLngQ6n+fmvN0/64=';

const filled = (n: number) => new Uint8Array(32).fill(n);
/** The rows FORMAT_1_BLOCK holds (its last row's `prev_hash` was left out: it is rebuilt). */
const FORMAT_1_ROWS: AuditLogsTable[] = [
  {
    id: 'a1',
    tenant_id: 't1',
    seq: 1,
    actor_id: 'app-1',
    actor_type: 'application',
    entity_type: 'token',
    entity_id: 'tok-1',
    operation: 'read',
    message: 'Token read',
    created_at: '2026-01-01T00:00:00.000Z',
    prev_hash: filled(0),
    hash: filled(1),
    entity_ids: null,
    revealed: 1,
  },
  {
    id: 'a2',
    tenant_id: 't2',
    seq: 7,
    actor_id: null,
    actor_type: null,
    entity_type: 'token',
    entity_id: 'tok-2',
    operation: 'list',
    message: 'Tokens listed',
    created_at: '2026-01-01T00:00:01.000Z',
    prev_hash: filled(5),
    hash: filled(6),
    entity_ids: '["tok-2","tok-3"]',
    revealed: null,
  },
  {
    id: 'a3',
    tenant_id: 't1',
    seq: 2,
    actor_id: 'app-1',
    actor_type: 'application',
    entity_type: 'token',
    entity_id: 'tok-1',
    operation: 'read',
    message: 'Token read',
    created_at: '2026-01-01T00:00:02.000Z',
    prev_hash: filled(1),
    hash: filled(2),
    entity_ids: null,
    revealed: 0,
  },
];

describe('audit segment blocks', () => {
  it('decode to exactly the rows written, with the summaries returned at encoding', async () => {
    const sodium = await loadSodium();
    const written = rows(40);
    const epochs = (t: string) => (t === 't2' ? 3 : 0);
    const { frame: block, tenants } = await encodeBlock(sodium, key, place, written, epochs);
    expect(block[0]).toBe(BLOCK_FORMAT);
    const decoded = await decodeBlock(sodium, key, place, block);
    expect(decoded?.rows).toEqual(written);
    expect(decoded?.tenants).toEqual(tenants);
    expect(tenants.t1).toMatchObject({ count: 14, firstSeq: 0, lastSeq: 39, epoch: 0 });
    expect(tenants.t2).toMatchObject({ count: 26, firstSeq: 1, lastSeq: 38, epoch: 3 });
    for (const [tenant, summary] of Object.entries(tenants)) {
      const mine = written.filter((r) => r.tenant_id === tenant);
      const distinct = (pick: (r: AuditLogsTable) => string | null) => new Set(mine.map(pick));
      expect(new Set(summary.entityTypes)).toEqual(distinct((r) => r.entity_type));
      expect(new Set(summary.operations)).toEqual(distinct((r) => r.operation));
      expect(new Set(summary.actorIds)).toEqual(distinct((r) => r.actor_id));
      expect(new Set(summary.actorTypes)).toEqual(distinct((r) => r.actor_type));
      const times = mine.map((r) => r.created_at).sort();
      expect([summary.firstAt, summary.lastAt]).toEqual([times[0], times.at(-1)]);
      for (const r of mine) {
        const ids = [r.entity_id, ...(JSON.parse(r.entity_ids ?? '[]') as string[])];
        for (const id of ids) expect(bloomMayHold(summary.ids, id)).toBe(true);
      }
    }
  });

  it('leave out only the prev_hash that follows the tenant entry before it', async () => {
    const sodium = await loadSodium();
    const written = rows(40);
    const { frame: block } = await encodeBlock(sodium, key, place, written, () => 0);
    const sealed = block.subarray(FRAME_HEADER_BYTES);
    const json = (await import('node:zlib')).brotliDecompressSync(open(sodium, key, sealed, aad(2))!);
    const parsed = JSON.parse(json.toString('utf8')) as { columns: string[]; rows: unknown[][] };
    const at = parsed.columns.indexOf('prev_hash');
    const kept = parsed.rows.flatMap((r, i) => (r[at] === null ? [] : [i]));
    expect(kept).toEqual([0, 1, 20]);
  });

  it('refuse rows a block cannot carry as they are', async () => {
    const sodium = await loadSodium();
    const odd = { ...rows(1)[0]!, message: { text: 'x' } } as unknown as AuditLogsTable;
    await expect(encodeBlock(sodium, key, place, [odd], () => 0)).rejects.toMatchObject({ code: 'INTERNAL' });
  });

  it('still decode format 1 blocks, whatever zlib level they were deflated at', async () => {
    const sodium = await loadSodium();
    const original = Buffer.from(FORMAT_1_BLOCK, 'base64');
    expect(original[0]).toBe(1);
    const json = inflateRawSync(open(sodium, key, original.subarray(FRAME_HEADER_BYTES), aad(1))!);
    const level9 = frameOf(1, seal(sodium, key, deflateRawSync(json, { level: 9 }), aad(1)));
    for (const block of [original, level9]) {
      const decoded = await decodeBlock(sodium, key, place, block);
      expect(decoded?.rows).toEqual(FORMAT_1_ROWS);
      expect(decoded?.tenants.t2).toMatchObject({ count: 1, firstSeq: 7, lastSeq: 7, epoch: 4 });
    }
  });

  it('give their summaries alone as the whole decoding gives them, whatever the tenant ids hold', async () => {
    const sodium = await loadSodium();
    const odd = ['columns', 'a"}{]\\', '}', 'ünï✓', '\\"'];
    const written = rows(30).map((r, i) => ({ ...r, tenant_id: odd[i % odd.length]!, actor_id: '{"x":[' }));
    const { frame: block, tenants } = await encodeBlock(sodium, key, place, written, () => 2);
    expect(Object.keys(tenants)).toHaveLength(odd.length);
    expect(await decodeBlockTenants(sodium, key, place, block)).toEqual(tenants);
    const old = Buffer.from(FORMAT_1_BLOCK, 'base64');
    const decoded = await decodeBlock(sodium, key, place, old);
    expect(await decodeBlockTenants(sodium, key, place, old)).toEqual(decoded?.tenants);
    const moved = { ...place, offset: place.offset + 1 };
    expect(await decodeBlockTenants(sodium, key, moved, block)).toBeNull();
  });

  it('index files: a rolled index does not open as an open one, nor the other way round', async () => {
    const sodium = await loadSodium();
    const blocks = [{ offset: 0, length: 9 }];
    const args = [sodium, key, 'vault-1', 3, 0] as const;
    for (const kind of ['rolled', 'open'] as const) {
      const file = await encodeIndex(...args, blocks, kind);
      const other = kind === 'rolled' ? 'open' : 'rolled';
      expect(await decodeIndex(...args, file, kind)).toEqual(blocks);
      expect(await decodeIndex(...args, file, other)).toBeNull();
    }
  });

  it('bind the format byte: a block relabelled with the other format does not open', async () => {
    const sodium = await loadSodium();
    const { frame: block } = await encodeBlock(sodium, key, place, rows(5), () => 0);
    const old = Buffer.from(FORMAT_1_BLOCK, 'base64');
    const relabelled = [Buffer.from(block), Buffer.from(old)];
    relabelled[0]![0] = 1;
    relabelled[1]![0] = 2;
    for (const b of relabelled) expect(await decodeBlock(sodium, key, place, b)).toBeNull();
    const unknown = Buffer.from(block);
    unknown[0] = 3;
    expect(await decodeBlock(sodium, key, place, unknown)).toBeNull();
  });
});
