/**
 * Records reads: the audit entries of a read (a token shown, detokenized or used, a reactor
 * invoked) and the monthly-activity marks of the tokens it touched, group-committed.
 *
 * Rule: a read is answered only after its audit entry is durable. Reads do not take a write
 * transaction each; they hand their entries here and wait. One transaction drains everything
 * handed in until it takes the vault's lock, as one batch: per tenant one chain-head read,
 * multi-row inserts and one head update (core/audit/audit-log.ts), then the activity marks, then
 * one journal record and the acknowledged mark, after which every reader of the batch is answered.
 * The next batch may start once the record is durable (`startBatch`): its transaction and record
 * then overlap this batch's mark, and batches are answered in order.
 *
 * This process holds the vault's exclusive lock, so the marks it has written this month can be
 * kept in memory: a repeat read in the same month writes nothing for activity. The memory is
 * bounded (MAX_REMEMBERED_MARKS); forgetting only costs an `INSERT OR IGNORE` that changes nothing.
 *
 * A batch holding an entry of a tenant deleted since the read answers that reader NOT_FOUND (its
 * read could not be audited), the others normally.
 *
 * Entries nobody waits for (`recordLater`: a proxy invocation's entry, recorded after its answer)
 * start no batch of their own: they join the next batch a waiting reader starts, or get one after
 * UNAWAITED_ENTRY_DELAY_MS, or at `flush()`. A batch of their own right after each answer would
 * otherwise be the commit the caller's next read waits behind, one fsync pair per request at one
 * connection; what no answer waited for was never promised to survive a crash.
 */
import type { Kysely } from 'kysely';
import { appendAuditBatch } from '../audit/audit-log.ts';
import type { AuditItem } from '../audit/audit-log.ts';
import { VaultError } from '../errors/catalogue.ts';
import { compileOnce, runCompiled } from '../storage/compiled-queries.ts';
import type { Database } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import { activityMonth, insertActivity } from './activity.ts';

/** Longest an entry nobody waits for waits for a batch to join before it gets its own. */
export const UNAWAITED_ENTRY_DELAY_MS = 20;

/** Activity marks remembered per process before the memory is cleared (≈ 100 bytes each). */
export const MAX_REMEMBERED_MARKS = 200_000;

export interface ReadRecord {
  /** Audit entries, appended in this order. */
  readonly entries: readonly AuditItem[];
  /** Tokens that count as monthly active for `tenantId` at the time of the read. */
  readonly activeTokens?: { readonly tenantId: string; readonly tokenIds: readonly string[] };
}

interface Waiting {
  readonly record: ReadRecord;
  readonly month: string;
  resolve(): void;
  reject(err: unknown): void;
}

type Vault = Pick<VaultHandle, 'transaction' | 'keyedHash' | 'clock'>;

export class ReadAudit {
  private waiting: Waiting[] = [];
  /** Recorded with `recordLater`: written with the next batch, which they do not start. */
  private unawaited: Waiting[] = [];
  private unawaitedTimer: NodeJS.Timeout | null = null;
  /** A batch runs its transaction or writes its journal record: the next one starts after that. */
  private writing = false;
  /** Batches not yet answered (at most two: one writing, one waiting for its acknowledged mark). */
  private readonly unanswered = new Set<Promise<void>>();
  /** `tenant \0 token` of marks durably written for `markedMonth`. */
  private marked = new Set<string>();
  private markedMonth = '';

  constructor(private readonly vault: Vault) {}

  /** Resolves once the record is durable; rejects when it could not be written. */
  record(record: ReadRecord): Promise<void> {
    if (isEmpty(record)) return Promise.resolve();
    const done = this.enqueue(this.waiting, record);
    this.startBatch(false);
    return done;
  }

  /**
   * For a record no answer waits for: resolves once it is durable, like `record`, but joins the
   * next batch instead of starting one (at the latest after UNAWAITED_ENTRY_DELAY_MS).
   */
  recordLater(record: ReadRecord): Promise<void> {
    if (isEmpty(record)) return Promise.resolve();
    const done = this.enqueue(this.unawaited, record);
    this.scheduleUnawaited();
    return done;
  }

  /** Starts writing every record handed in so far now; resolves once they are written (or failed). */
  async flush(): Promise<void> {
    while (this.writing || this.unanswered.size > 0 || this.waiting.length > 0 || this.unawaited.length > 0) {
      this.startBatch(true);
      await Promise.all(this.unanswered);
    }
  }

  private enqueue(queue: Waiting[], record: ReadRecord): Promise<void> {
    const month = activityMonth(this.vault.clock.now());
    return new Promise<void>((resolve, reject) => queue.push({ record, month, resolve, reject }));
  }

  /** Everything handed in so far, emptied. */
  private takeAll(): Waiting[] {
    const all = this.unawaited.length === 0 ? this.waiting : [...this.unawaited, ...this.waiting];
    this.waiting = [];
    this.unawaited = [];
    return all;
  }

  private scheduleUnawaited(): void {
    if (this.writing || this.unawaitedTimer !== null || this.unawaited.length === 0) return;
    this.unawaitedTimer = setTimeout(() => {
      this.unawaitedTimer = null;
      this.startBatch(true);
    }, UNAWAITED_ENTRY_DELAY_MS);
  }

  /**
   * Starts a batch for waiting readers (entries nobody waits for ride along, or were due) unless
   * one is being written. A batch is being written until it is answered, or until its journal
   * record is durable when as many readers wait as it holds: the next one then runs its
   * transaction and writes its record while the previous batch's acknowledged mark is written. A
   * smaller batch started that early would cost its fixed work for fewer readers, and readers
   * that arrive meanwhile would wait for it as well: it waits for the answer instead.
   */
  private startBatch(unawaitedDue: boolean): void {
    if (this.writing) return;
    if (this.waiting.length === 0 && !(unawaitedDue && this.unawaited.length > 0)) return;
    if (this.unawaitedTimer !== null) {
      clearTimeout(this.unawaitedTimer);
      this.unawaitedTimer = null;
    }
    this.writing = true;
    let written = false;
    const next = () => {
      if (written) return;
      written = true;
      this.writing = false;
      this.startBatch(false);
      this.scheduleUnawaited();
    };
    const batch = this.writeBatch(next);
    this.unanswered.add(batch);
    void batch.finally(() => this.unanswered.delete(batch));
  }

  /** One transaction for everything handed in when it takes the lock; `written` once journaled. */
  private async writeBatch(written: () => void): Promise<void> {
    let taken = false;
    let batch: Waiting[] = [];
    let refused: Waiting[] = [];
    const newMarks: Array<[string, string, string]> = [];
    let size = 0;
    try {
      await this.vault.transaction(
        async (trx) => {
          // Taken under the lock, so everything that arrived while the last batch was written joins.
          batch = this.takeAll();
          size = batch.length;
          taken = true;
          ({ batch, refused } = await this.splitByLiveTenant(trx, batch));
          await appendAuditBatch(
            trx,
            this.vault,
            batch.flatMap((w) => w.record.entries),
          );
          await this.writeMarks(trx, batch, newMarks);
        },
        // Started early only when it would be no smaller than this one (see `startBatch`).
        { onJournaled: () => this.waiting.length >= size && written() },
      );
    } catch (err) {
      // Refused before the batch was taken (a full disk, a closed vault): it fails as a whole.
      if (!taken) batch = this.takeAll();
      for (const w of batch) w.reject(err);
      return;
    } finally {
      for (const w of refused) w.reject(new VaultError('NOT_FOUND', 'No such tenant.'));
      written();
    }
    for (const [month, tenant, token] of newMarks) this.remember(month, tenant, token);
    for (const w of batch) w.resolve();
  }

  /** Readers whose every tenant still exists, and the others. */
  private async splitByLiveTenant(
    trx: Kysely<Database>,
    batch: Waiting[],
  ): Promise<{ batch: Waiting[]; refused: Waiting[] }> {
    const tenants = new Set<string>();
    for (const w of batch) {
      for (const e of w.record.entries) tenants.add(e.event.tenantId);
      if (w.record.activeTokens) tenants.add(w.record.activeTokens.tenantId);
    }
    if (tenants.size === 0) return { batch, refused: [] };
    const ids = [...tenants];
    const query = compileOnce(trx, `tenants:live:${ids.length}`, ids.length, () =>
      trx
        .selectFrom('tenants')
        .select('id')
        .where(
          'id',
          'in',
          ids.map(() => ''),
        ),
    );
    const live = new Set((await runCompiled(trx, query, ids)).rows.map((r) => r.id));
    if (live.size === tenants.size) return { batch, refused: [] };
    const ok = (w: Waiting) =>
      w.record.entries.every((e) => live.has(e.event.tenantId)) &&
      (!w.record.activeTokens || live.has(w.record.activeTokens.tenantId));
    return { batch: batch.filter(ok), refused: batch.filter((w) => !ok(w)) };
  }

  /** Inserts the marks not yet written this month; `written` collects them for after the commit. */
  private async writeMarks(
    trx: Kysely<Database>,
    batch: readonly Waiting[],
    written: Array<[string, string, string]>,
  ): Promise<void> {
    const wanted = new Map<string, Set<string>>(); // `month \0 tenant` → token ids
    for (const w of batch) {
      const active = w.record.activeTokens;
      if (!active) continue;
      for (const token of active.tokenIds) {
        if (this.isRemembered(w.month, active.tenantId, token)) continue;
        const key = `${w.month}\u0000${active.tenantId}`;
        let ids = wanted.get(key);
        if (!ids) wanted.set(key, (ids = new Set()));
        ids.add(token);
      }
    }
    for (const [key, ids] of wanted) {
      const [month, tenant] = key.split('\u0000') as [string, string];
      await insertActivity(trx, tenant, month, [...ids]);
      for (const token of ids) written.push([month, tenant, token]);
    }
  }

  private isRemembered(month: string, tenant: string, token: string): boolean {
    return month === this.markedMonth && this.marked.has(`${tenant}\u0000${token}`);
  }

  private remember(month: string, tenant: string, token: string): void {
    if (month !== this.markedMonth) {
      if (month < this.markedMonth) return;
      this.markedMonth = month;
      this.marked = new Set();
    }
    if (this.marked.size >= MAX_REMEMBERED_MARKS) this.marked = new Set();
    this.marked.add(`${tenant}\u0000${token}`);
  }
}

function isEmpty(record: ReadRecord): boolean {
  return record.entries.length === 0 && (record.activeTokens?.tokenIds.length ?? 0) === 0;
}

const perVault = new WeakMap<object, ReadAudit>();

/** The one ReadAudit of an open vault, shared by every service that records reads on it. */
export function readAuditOf(vault: Vault): ReadAudit {
  let audit = perVault.get(vault);
  if (!audit) perVault.set(vault, (audit = new ReadAudit(vault)));
  return audit;
}
