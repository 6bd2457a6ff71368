import { describe, expect, it } from 'vitest';
import type { AuditLogsTable } from '../../storage/schema.ts';
import { decodeRows, encodedRows, tableOfRows } from './block-rows.ts';

function rows(n: number): AuditLogsTable[] {
  const prev = new Map<string, Uint8Array>();
  return Array.from({ length: n }, (_, i) => {
    const tenant = i % 2 === 0 ? 't1' : 't2';
    const hash = new Uint8Array(32).fill(i + 1);
    const row: AuditLogsTable = {
      id: `id-${i}`,
      tenant_id: tenant,
      seq: i,
      actor_id: null,
      actor_type: null,
      entity_type: 'token',
      entity_id: `tok-${i}`,
      operation: 'read',
      message: 'Token read',
      created_at: '2026-01-01T00:00:00.000Z',
      entity_ids: null,
      revealed: null,
      prev_hash: i === 5 ? new Uint8Array(32).fill(99) : (prev.get(tenant) ?? new Uint8Array(32)),
      hash,
    };
    prev.set(tenant, hash);
    return row;
  });
}

describe('format 2 rows', () => {
  it('round-trip: bytes as base64, each prev_hash that follows its tenant left out and rebuilt', () => {
    const written = rows(8);
    const table = tableOfRows(written);
    expect(table.bytes).toEqual(['prev_hash', 'hash']);
    const cells = encodedRows(table);
    const prevAt = table.columns.indexOf('prev_hash');
    expect(cells.flatMap((r, i) => (r[prevAt] === null ? [] : [i]))).toEqual([0, 1, 5]);
    expect(cells[0]![table.columns.indexOf('hash')]).toBe(Buffer.from(written[0]!.hash).toString('base64'));
    const decoded = decodeRows(table.columns, table.bytes, JSON.parse(JSON.stringify(cells)) as unknown[][]);
    expect(decoded).toEqual(written);
  });

  it('take bytes held in views of a larger buffer, and longer than a hash', () => {
    const written = rows(4).map((row, i) => {
      const pool = new Uint8Array(300).fill(i + 7);
      return { ...row, hash: pool.subarray(10, 42), prev_hash: pool.subarray(i, i + (i === 3 ? 150 : 32)) };
    });
    const table = tableOfRows(written);
    const decoded = decodeRows(table.columns, table.bytes, encodedRows(table));
    expect(decoded.map((r) => [Buffer.from(r.hash), Buffer.from(r.prev_hash)])).toEqual(
      written.map((r) => [Buffer.from(r.hash), Buffer.from(r.prev_hash)]),
    );
  });

  it('refuse a cell of another type than its column', () => {
    for (const [column, value] of [
      ['hash', 'text'],
      ['hash', 0],
      ['message', new Uint8Array(2)],
      ['message', true],
      ['message', undefined],
    ] as const) {
      const table = tableOfRows(rows(3));
      table.rows[1]![table.columns.indexOf(column)] = value as never;
      expect(() => encodedRows(table)).toThrow(/cannot store/);
    }
    const short = tableOfRows(rows(2));
    short.rows[1]!.pop();
    expect(() => encodedRows(short)).toThrow(/does not match/);
  });

  it('refuse bytes that are not whole base64, and a row that is not an audit entry', () => {
    const table = tableOfRows(rows(2));
    const cells = encodedRows(table);
    const hashAt = table.columns.indexOf('hash');
    for (const bad of [`!${'A'.repeat(43)}`, 'AAA', 7]) {
      const edited = cells.map((r) => [...r]);
      edited[1]![hashAt] = bad;
      expect(() => decodeRows(table.columns, table.bytes, edited)).toThrow(/malformed/);
    }
    expect(() => decodeRows(table.columns, [], cells)).toThrow(/malformed/);
  });
});
