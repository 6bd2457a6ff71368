/**
 * Parts of a token read and a tokenize on their own, in-process, for comparing two trees without
 * the noise of HTTP runs: `node --import tsx bench/read-parts.ts [tree]` (default: this one; pass a
 * detached worktree of the old code to measure it with the same script, and alternate). Prints one
 * JSON line, process CPU µs per call: masks of a card number and of a card, the `{{ data }}`
 * fingerprint, the activity month, a keyed hash of an API key, an audit block's encoding per entry
 * (its deflate on the pool included) and the spiller's row count after a commit with 4,000 entries
 * in `audit_logs`. Not part of `npm run bench`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AuditItem } from '../core/audit/audit-log.ts';
import type * as Expressions from '../core/expressions/index.ts';
import type * as ActivityModule from '../core/tokens/activity.ts';
import type * as SodiumModule from '../core/crypto/sodium.ts';
import type * as KeyedHashModule from '../core/crypto/keyed-hash.ts';
import type * as BlockCodecModule from '../core/audit/segments/block-codec.ts';
import type * as AuditLogModule from '../core/audit/audit-log.ts';
import type * as VaultModule from '../core/vault/index.ts';
import type * as UnsyncedFsModule from '../core/test-support/unsynced-fs.ts';
import type { AuditLogsTable } from '../core/storage/schema.ts';

const tree = resolve(process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url)));
/** A module of `tree`, typed as this tree's own (the parts measured keep their signatures). */
const load = <T>(path: string): Promise<T> => import(join(tree, path)) as Promise<T>;

const expressions = await load<typeof Expressions>('core/expressions/index.ts');
const { activityMonth } = await load<typeof ActivityModule>('core/tokens/activity.ts');
const { loadSodium } = await load<typeof SodiumModule>('core/crypto/sodium.ts');
const { keyedHash } = await load<typeof KeyedHashModule>('core/crypto/keyed-hash.ts');
const { encodeBlock } = await load<typeof BlockCodecModule>('core/audit/segments/block-codec.ts');
const { appendAuditBatch } = await load<typeof AuditLogModule>('core/audit/audit-log.ts');
const { createVault } = await load<typeof VaultModule>('core/vault/index.ts');
const { unsyncedFs } = await load<typeof UnsyncedFsModule>('core/test-support/unsynced-fs.ts');

function cpuUs(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/** CPU µs per call of `fn`, after a tenth as many calls to warm up. */
async function perCall(calls: number, fn: () => unknown): Promise<number> {
  for (let i = 0; i < calls / 10; i++) await fn();
  const start = cpuUs();
  for (let i = 0; i < calls; i++) await fn();
  return Math.round(((cpuUs() - start) / calls) * 100) / 100;
}

const card = { number: '4242424242424242', expiration_month: 12, expiration_year: 2030 };
const cardMask = {
  number: '{{ data.number | reveal_last: 4 }}',
  expiration_month: '{{ data.expiration_month }}',
  expiration_year: '{{ data.expiration_year }}',
};
const sodium = await loadSodium();
const key = new Uint8Array(randomBytes(32));

const entries: AuditLogsTable[] = [];
let prev = new Uint8Array(32);
for (let i = 0; i < 1024; i++) {
  const hash = new Uint8Array(randomBytes(32));
  entries.push({
    id: `a3f1c2e4-1111-2222-3333-${String(i).padStart(12, '0')}`,
    tenant_id: 't1',
    seq: i,
    actor_id: 'app-1',
    actor_type: 'application',
    entity_type: 'token',
    entity_id: `tok-${i}`,
    operation: 'read',
    message: 'Token read',
    created_at: '2026-01-01T00:00:00.000Z',
    entity_ids: null,
    revealed: 0,
    prev_hash: prev,
    hash,
  });
  prev = hash;
}
const place = { vaultId: 'v', segment: 1, generation: 0, offset: 0 };

const dir = await mkdtemp(join(tmpdir(), 'svc-bench-read-parts-'));
const vault = await createVault({
  path: join(dir, 'vault.svc'),
  key: { kind: 'key', key: new Uint8Array(randomBytes(32)) },
  fs: unsyncedFs,
  auditSegments: { spillThresholdRows: 1_000_000, segmentRollBytes: 16 * 1024 * 1024 },
});
try {
  const items: AuditItem[] = Array.from({ length: 500 }, (_, i) => ({
    principal: null,
    event: {
      tenantId: 't1',
      entityType: 'token',
      entityId: `tok-${i}`,
      operation: 'read',
      message: 'Token read',
    },
  }));
  for (let i = 0; i < 8; i++) await vault.transaction((trx) => appendAuditBatch(trx, vault, items));
  // The count the spiller asks for after every commit: private, reached as the spiller reaches it.
  const count = vault as unknown as { auditRows(): number | undefined };
  const parts = {
    mask_card_number_us: await perCall(200_000, () =>
      expressions.evaluateMask('{{ data | reveal_last: 4 }}', card.number),
    ),
    mask_card_us: await perCall(100_000, () => expressions.evaluateMask(cardMask, card)),
    fingerprint_us: await perCall(200_000, () => expressions.fingerprintInput('{{ data }}', card.number)),
    activity_month_us: await perCall(300_000, () => activityMonth(new Date())),
    api_key_hash_us: await perCall(200_000, () =>
      keyedHash(sodium, key, 'svc_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG'),
    ),
    audit_block_per_entry_us:
      Math.round(
        ((await perCall(100, () => encodeBlock(sodium, key, place, entries, () => 0))) / 1024) * 100,
      ) / 100,
    spill_count_4000_entries_us: await perCall(300, () => count.auditRows()),
  };
  process.stdout.write(`${JSON.stringify({ bench: 'read-parts', tree, ...parts })}\n`);
} finally {
  await vault.close({ snapshot: false });
  await rm(dir, { recursive: true, force: true });
}
