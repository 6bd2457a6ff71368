import { constantTimeEqual } from '../crypto/constant-time.ts';
import type { AuditLogsTable } from '../storage/schema.ts';
import type { VaultHandle } from '../vault/types.ts';
import type { ChainBreak } from './audit-store.ts';
import { GENESIS, linkMessage } from './chain.ts';
import { checkpointHolds } from './retention.ts';
import type { AuditCheckpoint } from './retention.ts';

/**
 * Walks one tenant's chain entry by entry, oldest first, wherever the entries are read from.
 * Reports the first link that does not hold: an altered entry (its MAC), a removed one (a gap in
 * `seq` or a `prev_hash` that does not match), reordered ones (both), or entries removed from the
 * end (the head no longer matches). A gap of pruned read entries passes only through its checkpoint
 * (core/audit/retention.ts): a valid MAC, the hash before the gap, and the next entry linking to the
 * checkpoint's end hash.
 */
export class ChainChecker {
  private prev: Uint8Array = GENESIS;
  private expectedSeq = 1;
  /** Entries seen. */
  entries = 0;

  constructor(
    private readonly vault: Pick<VaultHandle, 'keyedHash'>,
    private readonly tenantId: string,
    private checkpoints: ReadonlyMap<number, AuditCheckpoint>,
  ) {}

  /** Checkpoints read again (a prune that ran since the walk began may have written one). */
  useCheckpoints(checkpoints: ReadonlyMap<number, AuditCheckpoint>): void {
    this.checkpoints = checkpoints;
  }

  /** Checks again the entry the last `add` refused, with the checkpoints now in use. */
  retry(row: AuditLogsTable): ChainBreak | null {
    this.entries--;
    return this.add(row);
  }

  /** The next sequence number the chain expects. */
  get nextSeq(): number {
    return this.expectedSeq;
  }

  /** Checks the next entry; returns the break it makes, or null. */
  add(row: AuditLogsTable): ChainBreak | null {
    this.entries++;
    // A gap is allowed only where a checkpoint made with the audit key vouches for exactly it.
    const checkpoint = row.seq !== this.expectedSeq ? this.checkpoints.get(this.expectedSeq) : undefined;
    if (
      checkpoint &&
      checkpoint.last_seq === row.seq - 1 &&
      checkpointHolds(this.vault, checkpoint, this.prev)
    ) {
      this.prev = checkpoint.end_hash;
      this.expectedSeq = row.seq;
    }
    if (row.seq !== this.expectedSeq)
      return this.broken(
        this.expectedSeq,
        row.id,
        `entry ${this.expectedSeq} is missing (found ${row.seq} next)`,
      );
    if (!constantTimeEqual(row.prev_hash, this.prev))
      return this.broken(row.seq, row.id, 'does not link to the entry before it');
    const hash = this.vault.keyedHash('audit', linkMessage(this.prev, row));
    if (!constantTimeEqual(hash, row.hash)) return this.broken(row.seq, row.id, 'its contents were altered');
    this.prev = hash;
    this.expectedSeq++;
    return null;
  }

  /** Entries that cannot be read at all (a damaged block of a segment file). */
  unreadable(what: string): ChainBreak {
    return this.broken(this.expectedSeq, null, `${what} cannot be read: it was damaged or altered`);
  }

  /** The end of the chain against its head (null: no head). */
  finish(head: { seq: number; hash: Uint8Array } | null): ChainBreak | null {
    const lastSeq = this.expectedSeq - 1;
    if (!head) return this.entries > 0 ? this.broken(lastSeq, null, 'the chain head is missing') : null;
    if (head.seq !== lastSeq || !constantTimeEqual(head.hash, this.prev))
      return this.broken(
        lastSeq + 1,
        null,
        `entries after ${lastSeq} were removed (the head is at ${head.seq})`,
      );
    return null;
  }

  private broken(seq: number, entryId: string | null, reason: string): ChainBreak {
    return { tenantId: this.tenantId, seq, entryId, reason };
  }
}
