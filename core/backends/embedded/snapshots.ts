import type { Database as SqlJsDatabase } from 'sql.js';
import type { Keyring } from '../../crypto/keyring.ts';
import type { Sodium } from '../../crypto/sodium.ts';
import type { JournalWriter } from './journal.ts';
import { Mutex } from './mutex.ts';
import { applyPragmas } from './pragmas.ts';
import type { VaultPaths } from './paths.ts';
import { explainDiskFull } from './space-guard.ts';
import { errnoOf } from './storage-fs.ts';
import type { StorageFs } from './storage-fs.ts';
import { withNewBody, writeVaultFile } from './vault-file.ts';
import type { VaultHeader } from './vault-file.ts';
import type { SnapshotBuildRequest } from './snapshot-build.ts';
import type { Clock } from '../../vault/clock.ts';

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
  /** Builds a background snapshot's vault file from the files (a worker thread in production). */
  buildFromFiles(request: SnapshotBuildRequest): Promise<void>;
}

/** What a background snapshot notes under the lock: the new header and the keys of its files. */
interface Plan {
  readonly header: VaultHeader;
  readonly fileKeys: ReadonlyArray<readonly [term: number, key: Uint8Array]>;
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
 * A background snapshot copies nothing under the vault's lock: there it only notes the new header
 * (the last commit, the keyring) and starts a new journal segment (the old one kept as
 * `vault.journal.prev`). The new vault file is then built from the files, not from the live
 * database: the old snapshot plus the closed segment, replayed as opening the vault does, exported,
 * encrypted and written atomically (in a worker thread, snapshot-build.ts), while commits go to
 * the new segment; once the new vault file is durable the previous segment is deleted. A crash at
 * any step leaves the old snapshot plus both segments, or the new snapshot plus the new segment:
 * every commit stays reachable.
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

  /** A snapshot that lets traffic continue while it is built, encrypted and written. */
  async background(): Promise<void> {
    await this.order.run(async () => {
      let plan: Plan | null = null;
      await this.parts.underVaultLock(async () => {
        if (this.previousSegment) {
          await this.writeHeldLocked();
          return;
        }
        plan = await this.plan();
        try {
          await this.parts.journal.rotate(
            this.parts.paths.previousJournal,
            plan.header.snapshot.term,
            this.parts.keyring().fileKey(plan.header.snapshot.term),
          );
        } catch (err) {
          // The rotation may have stopped after the link: a later (held) snapshot cleans up.
          this.previousSegment = true;
          throw explainDiskFull(err, NOTHING_LOST);
        }
        this.previousSegment = true;
      });
      if (!plan) return;
      await this.build(plan);
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

  /**
   * The header of a snapshot at the last commit, and the file keys of every term in the keyring
   * (the snapshot on disk and the segment being closed may be under an older term than the new
   * snapshot); the caller holds the vault's lock.
   */
  private async plan(): Promise<Plan> {
    const { journal } = this.parts;
    const keyring = this.parts.keyring();
    await journal.idle();
    if (journal.failed) throw journal.failed;
    return {
      header: this.headerAt(journal.lastSequence, keyring),
      fileKeys: keyring.terms.map((term) => [term, keyring.fileKey(term)] as const),
    };
  }

  private headerAt(sequence: number, keyring: Keyring): VaultHeader {
    return {
      ...this.header,
      terms: keyring.terms,
      snapshot: { sequence, term: keyring.activeTerm, written_at: this.parts.clock.now().toISOString() },
      acknowledged_mark: true,
    };
  }

  private async build(plan: Plan): Promise<void> {
    const { paths } = this.parts;
    try {
      await this.parts.buildFromFiles({
        vaultPath: paths.vault,
        segmentPath: paths.previousJournal,
        header: plan.header,
        fileKeys: plan.fileKeys,
      });
    } catch (err) {
      throw explainDiskFull(err, NOTHING_LOST);
    }
    this.header = withNewBody(plan.header);
  }

  /** Exports the database at the last commit; the caller holds the vault's lock. */
  private async capture(): Promise<Capture> {
    const { journal, sqlite } = this.parts;
    const keyring = this.parts.keyring();
    await journal.idle();
    if (journal.failed) throw journal.failed;
    const header = this.headerAt(journal.lastSequence, keyring);
    this.parts.beforeExport();
    const image = sqlite.export();
    applyPragmas(sqlite);
    return { image, header, fileKey: keyring.fileKey(header.snapshot.term) };
  }

  private async persist(capture: Capture): Promise<void> {
    const { sodium, paths, fs } = this.parts;
    try {
      this.header = await writeVaultFile(
        sodium,
        paths.vault,
        capture.header,
        capture.fileKey,
        capture.image,
        fs,
      );
    } catch (err) {
      throw explainDiskFull(err, NOTHING_LOST);
    }
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
