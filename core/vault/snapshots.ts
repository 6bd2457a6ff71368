import type { Database as SqlJsDatabase } from 'sql.js';
import type { Keyring } from '../crypto/keyring.ts';
import type { Sodium } from '../crypto/sodium.ts';
import type { JournalWriter } from '../storage/journal.ts';
import { Mutex } from '../storage/mutex.ts';
import { applyPragmas } from '../storage/pragmas.ts';
import type { VaultPaths } from '../storage/paths.ts';
import { explainDiskFull } from '../storage/space-guard.ts';
import { errnoOf } from '../storage/storage-fs.ts';
import type { StorageFs } from '../storage/storage-fs.ts';
import { writeVaultFile } from '../storage/vault-file.ts';
import type { VaultHeader } from '../storage/vault-file.ts';
import type { Clock } from './types.ts';

export interface SnapshotParts {
  readonly sodium: Sodium;
  readonly fs: StorageFs;
  readonly sqlite: SqlJsDatabase;
  readonly paths: VaultPaths;
  readonly journal: JournalWriter;
  readonly clock: Clock;
  /** The keyring in force; it only changes inside `exclusive` (key rotation). */
  keyring(): Keyring;
  /** Runs `fn` holding the vault's lock (no transaction or read runs meanwhile). */
  underVaultLock<T>(fn: () => Promise<T>): Promise<T>;
  /** Called under the vault's lock before the export: cached statements are dropped. */
  beforeExport(): void;
}

/** The database image and the header that will describe it, taken at one commit boundary. */
interface Capture {
  readonly image: Uint8Array;
  readonly header: VaultHeader;
  readonly fileKey: Uint8Array;
}

const NOTHING_LOST =
  'the snapshot could not be written; nothing is lost, the journal still holds every commit';

/**
 * Writes snapshots of the open vault, one at a time.
 *
 * A background snapshot works like Redis' BGSAVE: under the vault's lock it exports the database
 * and starts a new journal segment (the old one kept as `vault.journal.prev`), then encrypts and
 * writes the vault file outside the lock while commits go to the new segment; once the new vault
 * file is durable the previous segment is deleted. A crash at any step leaves the old snapshot
 * plus both segments, or the new snapshot plus the new segment: every commit stays reachable.
 *
 * A held snapshot (close, compaction of a vault left with a previous segment, key rotation) writes
 * everything under the lock and resets the journal; it is also the fallback while a previous
 * segment remains after a failed background snapshot, since there is room for only one.
 */
export class Snapshots {
  /** The header of the vault file on disk (with the keyring in force). */
  header: VaultHeader;
  private readonly order = new Mutex();
  private previousSegment: boolean;

  constructor(
    private readonly parts: SnapshotParts,
    header: VaultHeader,
    previousSegment: boolean,
  ) {
    this.header = header;
    this.previousSegment = previousSegment;
  }

  /** True while a segment older than the current journal still exists. */
  get hasPreviousSegment(): boolean {
    return this.previousSegment;
  }

  /** Runs `fn` with no snapshot in progress and none starting (key rotation, close). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.order.run(fn);
  }

  /** A snapshot that lets traffic continue while it is encrypted and written. */
  async background(): Promise<void> {
    await this.order.run(async () => {
      let capture: Capture | null = null;
      await this.parts.underVaultLock(async () => {
        if (this.previousSegment) {
          await this.writeHeldLocked();
          return;
        }
        capture = await this.capture();
        try {
          await this.parts.journal.rotate(
            this.parts.paths.previousJournal,
            capture.header.snapshot.term,
            capture.fileKey,
          );
        } catch (err) {
          // The rotation may have stopped after the link: a later (held) snapshot cleans up.
          this.previousSegment = true;
          throw explainDiskFull(err, NOTHING_LOST);
        }
        this.previousSegment = true;
      });
      if (!capture) return;
      await this.persist(capture);
      await this.discardPrevious();
    });
  }

  /** A snapshot written entirely under the vault's lock; the caller is inside `exclusive`. */
  async writeHeld(): Promise<void> {
    await this.parts.underVaultLock(() => this.writeHeldLocked());
  }

  /** Same as `writeHeld` for a caller that already holds the vault's lock (and `exclusive`). */
  async writeHeldLocked(): Promise<void> {
    const capture = await this.capture();
    await this.persist(capture);
    try {
      await this.parts.journal.reset(
        capture.header.snapshot.sequence,
        capture.header.snapshot.term,
        capture.fileKey,
      );
    } catch (err) {
      throw explainDiskFull(err, NOTHING_LOST);
    }
    await this.discardPrevious();
  }

  /** Exports the database at the last commit; the caller holds the vault's lock. */
  private async capture(): Promise<Capture> {
    const { journal, sqlite, clock } = this.parts;
    const keyring = this.parts.keyring();
    await journal.idle();
    if (journal.failed) throw journal.failed;
    const sequence = journal.lastSequence;
    this.parts.beforeExport();
    const image = sqlite.export();
    applyPragmas(sqlite);
    const term = keyring.activeTerm;
    const header: VaultHeader = {
      ...this.header,
      terms: keyring.terms,
      snapshot: { sequence, term, written_at: clock.now().toISOString() },
      acknowledged_mark: true,
    };
    return { image, header, fileKey: keyring.fileKey(term) };
  }

  private async persist(capture: Capture): Promise<void> {
    const { sodium, paths, fs } = this.parts;
    try {
      await writeVaultFile(sodium, paths.vault, capture.header, capture.fileKey, capture.image, fs);
    } catch (err) {
      throw explainDiskFull(err, NOTHING_LOST);
    }
    this.header = capture.header;
  }

  /**
   * Deletes the previous segment once a durable snapshot covers it. If the delete is lost in a
   * crash, the segment's commits are all older than the snapshot and are skipped on open.
   */
  private async discardPrevious(): Promise<void> {
    const { fs, paths } = this.parts;
    try {
      await fs.unlink(paths.previousJournal);
    } catch (err) {
      if (errnoOf(err) !== 'ENOENT') throw err;
    }
    this.previousSegment = false;
  }
}
