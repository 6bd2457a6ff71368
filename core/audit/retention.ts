import type { Kysely, Selectable } from 'kysely';
import { constantTimeEqual } from '../crypto/constant-time.ts';
import type { AuditCheckpointsTable, AuditLogsTable, Database } from '../storage/schema.ts';
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

export interface PruneResult {
  /** Read entries removed. */
  readonly entries: number;
  /** Checkpoints written (a run next to an earlier checkpoint replaces it with a merged one). */
  readonly checkpoints: number;
}

type Row = Pick<Selectable<AuditLogsTable>, 'seq' | 'operation' | 'created_at' | 'prev_hash' | 'hash'>;

/** Maximal runs of consecutive read entries older than `before`; the newest entry always stays. */
function prunableRuns(rows: readonly Row[], before: string): Row[][] {
  const runs: Row[][] = [];
  let run: Row[] = [];
  rows.slice(0, -1).forEach((row) => {
    if (row.operation === 'read' && row.created_at < before) run.push(row);
    else if (run.length > 0) {
      runs.push(run);
      run = [];
    }
  });
  if (run.length > 0) runs.push(run);
  return runs;
}

/**
 * Read retention: removes `read` entries created before `before` and puts a checkpoint in place of
 * each run of consecutive ones. A checkpoint keeps the chain hash before the run and at its end
 * under the audit key, so `verifyAuditChains` still checks every kept entry and its links, and a
 * gap without a valid checkpoint is still reported. Creates, updates and deletes are never pruned,
 * nor is a chain's newest entry (the head must stay an entry). One transaction for the whole vault
 * (or one tenant).
 */
export async function pruneReadEntries(
  vault: Pick<VaultHandle, 'keyedHash' | 'clock' | 'transaction' | 'lockFor'>,
  before: Date,
  tenantId?: string,
): Promise<PruneResult> {
  const cutoff = before.toISOString();
  return vault.transaction(async (trx) => {
    // Servers sharing a database prune one at a time, so two never checkpoint the same run.
    await vault.lockFor('audit-prune');
    let query = trx.selectFrom('audit_heads').select('tenant_id');
    if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
    const tenants = (await query.execute()).map((r) => r.tenant_id);
    let entries = 0;
    let checkpoints = 0;
    const now = vault.clock.now().toISOString();
    for (const tenant of tenants) {
      const rows = await trx
        .selectFrom('audit_logs')
        .select(['seq', 'operation', 'created_at', 'prev_hash', 'hash'])
        .where('tenant_id', '=', tenant)
        .orderBy('seq', 'asc')
        .execute();
      const existing = await checkpointsOf(trx, tenant);
      for (const run of prunableRuns(rows, cutoff)) {
        const first = run[0] as Row;
        const last = run[run.length - 1] as Row;
        // A run right after an earlier checkpoint (or before one) merges with it: one gap, one checkpoint.
        const before = [...existing.values()].find((cp) => cp.last_seq === first.seq - 1);
        const after = existing.get(last.seq + 1);
        const merged = {
          tenant_id: tenant,
          first_seq: before?.first_seq ?? first.seq,
          last_seq: after?.last_seq ?? last.seq,
          entries: (before?.entries ?? 0) + run.length + (after?.entries ?? 0),
          first_at: before?.first_at ?? first.created_at,
          last_at: after?.last_at ?? last.created_at,
          prev_hash: before?.prev_hash ?? first.prev_hash,
          end_hash: after?.end_hash ?? last.hash,
        };
        const checkpoint: AuditCheckpoint = {
          ...merged,
          mac: vault.keyedHash('audit', checkpointMessage(merged)),
          created_at: now,
        };
        for (const old of [before, after]) {
          if (!old) continue;
          await trx
            .deleteFrom('audit_checkpoints')
            .where('tenant_id', '=', tenant)
            .where('first_seq', '=', old.first_seq)
            .execute();
          existing.delete(old.first_seq);
        }
        await trx.insertInto('audit_checkpoints').values(checkpoint).execute();
        existing.set(checkpoint.first_seq, checkpoint);
        checkpoints++;
        await trx
          .deleteFrom('audit_logs')
          .where('tenant_id', '=', tenant)
          .where('seq', '>=', first.seq)
          .where('seq', '<=', last.seq)
          .execute();
        entries += run.length;
      }
    }
    return { entries, checkpoints };
  });
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Read retention while serving: prunes reads older than `days` now and then once a day (an unref'd
 * timer). `days` 0 does nothing. The returned stop waits for a prune in progress, so the vault can
 * close after it. A failed prune is reported and retried on the next day's run.
 */
export function startReadRetention(
  vault: Pick<VaultHandle, 'keyedHash' | 'clock' | 'transaction' | 'lockFor'>,
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
