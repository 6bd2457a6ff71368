import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { open, seal } from '../../crypto/aead.ts';
import { loadSodium } from '../../crypto/sodium.ts';
import type { AuditLogsTable } from '../../storage/schema.ts';
import { FRAME_HEADER_BYTES, SEGMENT_FORMAT, decodeBlock, encodeBlock } from './block-codec.ts';

const place = { vaultId: 'vault-1', segment: 3, generation: 0, offset: 4096 };
const aad = Buffer.from(
  `svc vault audit block v${SEGMENT_FORMAT}\u0000vault-1\u00003\u00000\u00004096`,
  'utf8',
);

function rows(n: number): AuditLogsTable[] {
  let prev = new Uint8Array(32);
  return Array.from({ length: n }, (_, i) => {
    const hash = new Uint8Array(32).fill(i + 1);
    const row: AuditLogsTable = {
      id: `id-${i}`,
      tenant_id: i % 3 === 0 ? 't1' : 't2',
      seq: i,
      actor_id: 'app-1',
      actor_type: 'application',
      entity_type: 'token',
      entity_id: `tok-${i}`,
      operation: 'read',
      message: 'Token read',
      created_at: '2026-01-01T00:00:00.000Z',
      entity_ids: null,
      revealed: i % 2,
      prev_hash: prev,
      hash,
    };
    prev = hash;
    return row;
  });
}

describe('audit segment blocks', () => {
  it('decode whatever zlib level they were deflated at (earlier builds used the default level)', async () => {
    const sodium = await loadSodium();
    const key = new Uint8Array(32).fill(9);
    const written = rows(40);
    const { frame } = await encodeBlock(sodium, key, place, written, () => 0);
    const json = inflateRawSync(open(sodium, key, frame.subarray(FRAME_HEADER_BYTES), aad)!);
    const sealed = seal(sodium, key, deflateRawSync(json, { level: 9 }), aad);
    const older = Buffer.alloc(FRAME_HEADER_BYTES + sealed.length);
    older[0] = SEGMENT_FORMAT;
    older.writeUInt32BE(sealed.length, 1);
    older.set(sealed, FRAME_HEADER_BYTES);
    for (const block of [frame, older]) {
      const decoded = await decodeBlock(sodium, key, place, block);
      expect(decoded?.rows).toEqual(written);
    }
  });
});
