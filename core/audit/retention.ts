import type { Kysely, Selectable } from 'kysely';
import { constantTimeEqual } from '../crypto/constant-time.ts';
import type { AuditCheckpointsTable, Database } from '../storage/schema.ts';
import type { PruneResult } from './audit-store.ts';
import type { VaultHandle } from '../vault/types.ts';

export type AuditCheckpoint = Selectable<AuditCheckpointsTable>;
type Keys = Pick<VaultHandle, 'keyedHash'>;

/**
 * 32 bytes, so byte 32 of a checkpoint message is `{` while a link message (32-byte previous hash,
 * then a JSON array) has `[` there: the two kinds of MAC input can never be equal.
 */
const CHECKPOINT_TAG = Buffer.from('svc vault audit checkpoint v1\u0000\u0000\u0000', 'utf8');

/** The bytes a checkpoint's MAC covers: every field that vouches for the gap. */
export function checkpointMessage(
  cp: Omit<AuditCheckpoint, 'mac' | 'created_at'> & { created_at?: string },
): Uint8Array {
  const fields = JSON.stringify({
    tenant_id: cp.tenant_id,
    first_seq: cp.first_seq,
    last_seq: cp.last_seq,
    entries: cp.entries,
    first_at: cp.first_at,
    last_at: cp.last_at,
    prev_hash: Buffer.from(cp.prev_hash).toString('hex'),
    end_hash: Buffer.from(cp.end_hash).toString('hex'),
  });
  return Buffer.concat([CHECKPOINT_TAG, Buffer.from(fields, 'utf8')]);
}

/** Whether `cp` was made with the vault's audit key and bridges a gap starting after `prev`. */
export function checkpointHolds(vault: Keys, cp: AuditCheckpoint, prev: Uint8Array): boolean {
  return (
    cp.last_seq >= cp.first_seq &&
    cp.entries === cp.last_seq - cp.first_seq + 1 &&
    constantTimeEqual(vault.keyedHash('audit', checkpointMessage(cp)), cp.mac) &&
    constantTimeEqual(cp.prev_hash, prev)
  );
}

/** A tenant's checkpoints by the first sequence number they stand for. */
export async function checkpointsOf(
  db: Kysely<Database>,
  tenantId: string,
): Promise<Map<number, AuditCheckpoint>> {
  const rows = await db
    .selectFrom('audit_checkpoints')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .execute();
  return new Map(rows.map((row) => [row.first_seq, row]));
}

export type { PruneResult } from './audit-store.ts';

/**
 * Read retention: removes `read` entries created before `before` and puts a checkpoint in place of
 * each run of consecutive ones (core/audit/prune-runs.ts finds the runs; the store removes them:
 * from the table in the checkpoints' transaction, from segment files by a rewrite after it). A checkpoint keeps the chain hash before the run and at its end
 * under the audit key, so `verifyAuditChains` still checks every kept entry and its links, and a
 * gap without a valid checkpoint is still reported. Creates, updates and deletes are never pruned,
 * nor is a chain's newest entry (the head must stay an entry).
 */
export async function pruneReadEntries(
  vault: Pick<VaultHandle, 'audit'>,
  before: Date,
  tenantId?: string,
): Promise<PruneResult> {
  return vault.audit.pruneReads(before.toISOString(), tenantId);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Read retention while serving: prunes reads older than `days` now and then once a day (an unref'd
 * timer). `days` 0 does nothing. The returned stop waits for a prune in progress, so the vault can
 * close after it. A failed prune is reported and retried on the next day's run.
 */
export function startReadRetention(
  vault: Pick<VaultHandle, 'audit' | 'clock'>,
  days: number,
  onError: (error: unknown) => void,
  onPrune: (result: PruneResult) => void = () => undefined,
): () => Promise<void> {
  if (days <= 0) return async () => undefined;
  let running: Promise<void> = Promise.resolve();
  const run = () => {
    running = running
      .then(() => pruneReadEntries(vault, new Date(vault.clock.now().getTime() - days * DAY_MS)))
      .then(onPrune, onError);
  };
  run();
  const timer = setInterval(run, DAY_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
