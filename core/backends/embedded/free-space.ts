/**
 * The free space of the disk holding the vault, as the write path checks it before every
 * transaction, without a `statfs` each time (that call cost more than a small transaction).
 *
 * Rule: a reading is reused for at most FREE_SPACE_MAX_AGE_MS and at most FREE_SPACE_MAX_WRITTEN
 * bytes of the vault's own writes, and those writes are subtracted from it, so what the vault
 * writes itself is always counted. A reading that would refuse a write is taken afresh before the
 * refusal, and the owner discards the reading whenever it writes outside the journal (a snapshot).
 * What goes unseen is space other programs take within the last FREE_SPACE_MAX_AGE_MS: the reserve
 * (StorageLimits.minFreeDiskBytes) is what absorbs it.
 */

/** A reading is reused for this long at most (by the vault's clock). */
export const FREE_SPACE_MAX_AGE_MS = 1000;
/** A reading is reused while the vault has written at most this many bytes since. */
export const FREE_SPACE_MAX_WRITTEN = 8 * 1024 * 1024;

interface Reading {
  readonly free: number;
  readonly at: number;
  readonly written: number;
}

export class FreeSpaceGauge {
  private reading: Reading | null = null;
  private pending: Promise<Reading> | null = null;
  /** Bumped by `invalidate`: a reading begun before it is not kept. */
  private epoch = 0;

  constructor(
    /** Free bytes now (a `statfs`); +Infinity when the file system cannot tell. */
    private readonly read: () => Promise<number>,
    /** Milliseconds by the vault's clock. */
    private readonly now: () => number,
    /** Bytes the vault has written so far (monotonic). */
    private readonly written: () => number,
  ) {}

  /** Free bytes, from a recent reading less what the vault wrote since, or a fresh one. */
  async freeBytes(reserve: number): Promise<number> {
    const estimate = this.estimate();
    if (estimate !== null && estimate >= reserve) return estimate;
    const fresh = await this.sample();
    return fresh.free - (this.written() - fresh.written);
  }

  /** Forgets the reading (the vault wrote outside the journal, or is about to). */
  invalidate(): void {
    this.reading = null;
    this.epoch++;
  }

  private estimate(): number | null {
    const reading = this.reading;
    if (!reading) return null;
    const age = this.now() - reading.at;
    const since = this.written() - reading.written;
    if (age < 0 || age > FREE_SPACE_MAX_AGE_MS || since > FREE_SPACE_MAX_WRITTEN) return null;
    return reading.free - since;
  }

  /** One `statfs` at a time: callers arriving meanwhile share it. */
  private sample(): Promise<Reading> {
    this.pending ??= (async () => {
      try {
        const at = this.now();
        const written = this.written();
        const epoch = this.epoch;
        const reading = { free: await this.read(), at, written };
        if (epoch === this.epoch) this.reading = reading;
        return reading;
      } finally {
        this.pending = null;
      }
    })();
    return this.pending;
  }
}
