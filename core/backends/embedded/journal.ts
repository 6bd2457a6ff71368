import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { crc32 } from 'node:zlib';
import { VaultError } from '../../errors/catalogue.ts';
import { open as openSealed, seal } from '../../crypto/aead.ts';
import { checksum } from '../../crypto/keyed-hash.ts';
import type { Sodium } from '../../crypto/sodium.ts';
import type { AcknowledgedMark } from './acknowledged.ts';
import { writeFileAtomically, writeFully } from './durable-fs.ts';
import { isDiskFull, nodeStorageFs } from './storage-fs.ts';
import type { StorageFs, StorageHandle } from './storage-fs.ts';
import { decodeEntry, encodeEntry } from './journal-codec.ts';
import type { JournalEntry, JournaledStatement } from './journal-codec.ts';

/**
 * The journal: an append-only file of committed transactions since the snapshot.
 *
 * Header (52 bytes): "SVCJRNL1", vault id (16 bytes), base sequence (u64 LE: the snapshot it
 * follows), key term (u32 LE), BLAKE2b-16 of the preceding bytes.
 * Record: length (u32 LE), CRC-32 of that length (u32 LE), then nonce ‖ XChaCha20-Poly1305
 * ciphertext of the JSON entry, AAD = "svc-journal:v1:<vault id>:<seq>".
 *
 * A file that simply ends inside a record (or ends in zeros) is a torn tail from a crash before the
 * fsync, so that commit was never acknowledged and is cut away. A complete record that fails its
 * checks is damage, and opening stops with an error instead of silently dropping data.
 */
const MAGIC = Buffer.from('SVCJRNL1', 'ascii');
export const JOURNAL_HEADER_BYTES = 8 + 16 + 8 + 4 + 16;
const RECORD_PREFIX_BYTES = 8;

export interface JournalHeader {
  readonly vaultId: string;
  readonly baseSequence: number;
  readonly term: number;
}

export interface JournalScan {
  readonly header: JournalHeader;
  readonly entries: JournalEntry[];
  /** Bytes up to the end of the last complete, authentic record. */
  readonly validBytes: number;
  readonly fileBytes: number;
}

function uuidBytes(id: string): Buffer {
  return Buffer.from(id.replace(/-/g, ''), 'hex');
}

function uuidFromBytes(bytes: Buffer): string {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function recordAad(vaultId: string, seq: number): Uint8Array {
  return Buffer.from(`svc-journal:v1:${vaultId}:${seq}`, 'utf8');
}

function lengthCheck(length: number): number {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(length, 0);
  return crc32(b);
}

function encodeHeader(sodium: Sodium, header: JournalHeader): Buffer {
  const head = Buffer.alloc(JOURNAL_HEADER_BYTES - 16);
  MAGIC.copy(head, 0);
  uuidBytes(header.vaultId).copy(head, 8);
  head.writeBigUInt64LE(BigInt(header.baseSequence), 24);
  head.writeUInt32LE(header.term, 32);
  return Buffer.concat([head, checksum(sodium, head, 16)]);
}

function decodeHeader(sodium: Sodium, bytes: Buffer, path: string): JournalHeader {
  const corrupt = (why: string) => new VaultError('VAULT_CORRUPT', `The journal ${path} is damaged: ${why}.`);
  if (bytes.length < JOURNAL_HEADER_BYTES) throw corrupt('header truncated');
  if (!bytes.subarray(0, 8).equals(MAGIC)) throw corrupt('bad magic');
  const head = bytes.subarray(0, JOURNAL_HEADER_BYTES - 16);
  if (
    !Buffer.from(checksum(sodium, head, 16)).equals(
      bytes.subarray(JOURNAL_HEADER_BYTES - 16, JOURNAL_HEADER_BYTES),
    )
  ) {
    throw corrupt('header checksum mismatch');
  }
  return {
    vaultId: uuidFromBytes(bytes.subarray(8, 24)),
    baseSequence: Number(bytes.readBigUInt64LE(24)),
    term: bytes.readUInt32LE(32),
  };
}

/** Creates (or replaces, atomically) an empty journal that follows snapshot `baseSequence`. */
export async function createJournalFile(
  sodium: Sodium,
  path: string,
  header: JournalHeader,
  fs: StorageFs = nodeStorageFs,
): Promise<void> {
  await writeFileAtomically(path, (handle) => writeFully(handle, encodeHeader(sodium, header), 0), 0o600, fs);
}

/** Counts complete records by their framing alone (no key needed; used by `svc vault status`). */
export async function countJournalRecords(path: string): Promise<{ bytes: number; records: number }> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { bytes: 0, records: 0 };
    throw err;
  }
  try {
    const bytes = await handle.readFile();
    let offset = JOURNAL_HEADER_BYTES;
    let records = 0;
    while (offset + RECORD_PREFIX_BYTES <= bytes.length) {
      const length = bytes.readUInt32LE(offset);
      if (bytes.readUInt32LE(offset + 4) !== lengthCheck(length)) break;
      if (offset + RECORD_PREFIX_BYTES + length > bytes.length) break;
      offset += RECORD_PREFIX_BYTES + length;
      records++;
    }
    return { bytes: bytes.length, records };
  } finally {
    await handle.close();
  }
}

/** Reads and authenticates every record; throws VAULT_CORRUPT on damage; reports a torn tail. */
export async function scanJournal(
  sodium: Sodium,
  handle: StorageHandle,
  path: string,
  fileKeyFor: (term: number) => Uint8Array,
): Promise<JournalScan> {
  const bytes = await handle.readFile();
  const header = decodeHeader(sodium, bytes, path);
  const key = fileKeyFor(header.term);
  const entries: JournalEntry[] = [];
  let offset = JOURNAL_HEADER_BYTES;
  const tailIsTorn = (from: number) => from >= bytes.length || bytes.subarray(from).every((b) => b === 0);
  while (offset < bytes.length) {
    if (offset + RECORD_PREFIX_BYTES > bytes.length) break; // torn inside the prefix
    const length = bytes.readUInt32LE(offset);
    const lengthValid = bytes.readUInt32LE(offset + 4) === lengthCheck(length);
    if (!lengthValid) {
      if (tailIsTorn(offset)) break;
      throw new VaultError(
        'VAULT_CORRUPT',
        `The journal ${path} is damaged at byte ${offset}: bad record length.`,
      );
    }
    if (offset + RECORD_PREFIX_BYTES + length > bytes.length) break; // torn inside the record
    const seq = header.baseSequence + entries.length + 1;
    const sealed = bytes.subarray(offset + RECORD_PREFIX_BYTES, offset + RECORD_PREFIX_BYTES + length);
    const plain = openSealed(sodium, key, sealed, recordAad(header.vaultId, seq));
    if (plain === null) {
      throw new VaultError(
        'VAULT_CORRUPT',
        `The journal ${path} is damaged at byte ${offset}: record ${seq} failed authentication.`,
      );
    }
    const entry = decodeEntry(plain);
    if (entry.seq !== seq)
      throw new VaultError('VAULT_CORRUPT', `The journal ${path} has records out of order.`);
    entries.push(entry);
    offset += RECORD_PREFIX_BYTES + length;
  }
  return { header, entries, validBytes: offset, fileBytes: bytes.length };
}

interface Pending {
  readonly record: Buffer;
  readonly seq: number;
  /** Called once the record is durable in the journal, before the acknowledged mark covers it. */
  readonly journaled?: () => void;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * The open journal of a vault held by this process. `append` encrypts a committed transaction and
 * resolves once it is on disk and the acknowledged mark covers it. Two writes run per batch, each
 * in its own loop: the records (appends that arrive while one runs share the next), then the mark.
 * The next batch's records are written while the previous batch's mark is, so a batch waits for one
 * write before it, not two; the mark only ever names records already durable, and callers are
 * answered strictly in order, after the mark covering them.
 */
export class JournalWriter {
  private pending: Pending[] = [];
  /** Durable in the journal, waiting for the acknowledged mark. */
  private journaled: Pending[] = [];
  /**
   * Each loop's promise and whether it runs (a loop that only fails batches ends before its
   * promise is stored, so the flag, cleared by the loop itself, is what tells).
   */
  private flushing: Promise<void> = Promise.resolve();
  private flushActive = false;
  private marking: Promise<void> = Promise.resolve();
  private markActive = false;
  private failure: unknown = null;
  /** A mark write failed: no later batch is acknowledged. */
  private markFailed = false;
  private size: number;
  private last: number;
  private records: number;
  private appended = 0;

  private constructor(
    private readonly sodium: Sodium,
    private readonly fs: StorageFs,
    private handle: StorageHandle,
    private readonly acknowledged: AcknowledgedMark,
    private readonly path: string,
    private header: JournalHeader,
    private fileKey: Uint8Array,
    position: number,
    lastSequence: number,
    records: number,
  ) {
    this.size = position;
    this.last = lastSequence;
    this.records = records;
  }

  /**
   * Opens for appending after `validBytes`; a torn tail past it is truncated away first. The
   * journal owns `acknowledged` from here on and advances it after each durable batch.
   */
  static async open(
    sodium: Sodium,
    fs: StorageFs,
    path: string,
    scan: JournalScan,
    fileKey: Uint8Array,
    acknowledged: AcknowledgedMark,
  ): Promise<JournalWriter> {
    const handle = await fs.open(path, 'r+durable');
    if (scan.fileBytes > scan.validBytes) {
      await handle.truncate(scan.validBytes);
      await handle.sync();
    }
    const last = scan.header.baseSequence + scan.entries.length;
    return new JournalWriter(
      sodium,
      fs,
      handle,
      acknowledged,
      path,
      scan.header,
      fileKey,
      scan.validBytes,
      last,
      scan.entries.length,
    );
  }

  get lastSequence(): number {
    return this.last;
  }

  get byteLength(): number {
    return this.size;
  }

  /** Bytes of records appended since the journal was opened, across rotations (monotonic). */
  get appendedBytes(): number {
    return this.appended;
  }

  get recordCount(): number {
    return this.records;
  }

  get failed(): unknown {
    return this.failure;
  }

  /**
   * Appends one committed transaction; resolves once it is durable and acknowledged. `journaled`
   * is called when its record is durable, before the mark is written: a writer may then start its
   * next transaction, whose record is written while this one's mark is.
   */
  append(stmts: readonly JournaledStatement[], at: string, journaled?: () => void): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = ++this.last;
    const sealed = seal(
      this.sodium,
      this.fileKey,
      encodeEntry({ seq, at, stmts }),
      recordAad(this.header.vaultId, seq),
    );
    const record = Buffer.alloc(RECORD_PREFIX_BYTES + sealed.length);
    record.writeUInt32LE(sealed.length, 0);
    record.writeUInt32LE(lengthCheck(sealed.length), 4);
    record.set(sealed, RECORD_PREFIX_BYTES);
    this.records++;
    this.appended += record.length;
    const done = new Promise<void>((resolve, reject) =>
      this.pending.push({ record, seq, journaled, resolve, reject }),
    );
    if (!this.flushActive) {
      this.flushActive = true;
      this.flushing = this.flushLoop();
    }
    return done;
  }

  /** Resolves when every append so far is durable and acknowledged (or has failed). */
  async idle(): Promise<void> {
    while (this.flushActive || this.markActive) await (this.flushActive ? this.flushing : this.marking);
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const batch = this.pending;
        this.pending = [];
        try {
          // Every batch still to write comes after a failed one.
          if (this.failure) throw this.failure;
          const data = batch.length === 1 ? batch[0]!.record : Buffer.concat(batch.map((p) => p.record));
          // Opened `r+durable`: the write is durable when it returns, and the datasync costs nothing.
          await writeFully(this.handle, data, this.size);
          await this.handle.datasync();
          this.size += data.length;
        } catch (err) {
          this.fail(err, batch);
          continue;
        }
        this.journaled = this.journaled.length === 0 ? batch : this.journaled.concat(batch);
        if (!this.markActive) {
          this.markActive = true;
          this.marking = this.markLoop();
        }
        for (const p of batch) p.journaled?.();
      }
    } finally {
      this.flushActive = false;
    }
  }

  /** Writes the acknowledged mark over every durable record, then answers their callers in order. */
  private async markLoop(): Promise<void> {
    try {
      while (this.journaled.length > 0) {
        const batch = this.journaled;
        this.journaled = [];
        try {
          // Records written before a failed record write are durable, and their mark is written;
          // after a failed mark write nothing is acknowledged again.
          if (this.markFailed) throw this.failure;
          await this.acknowledged.advance(batch[batch.length - 1]!.seq);
        } catch (err) {
          this.markFailed = true;
          this.fail(err, batch);
          continue;
        }
        for (const p of batch) p.resolve();
      }
    } finally {
      this.markActive = false;
    }
  }

  /** After a failed write or fsync the files' state is unknown: every later append is refused. */
  private fail(err: unknown, batch: readonly Pending[]): void {
    this.failure ??= new VaultError(
      'VAULT_FAILED',
      isDiskFull(err)
        ? 'The disk is full (ENOSPC): writing the journal failed, so the vault accepts no more writes. Free space, then restart the vault.'
        : 'Writing the journal failed; the vault must be reopened.',
      { cause: err },
    );
    for (const p of batch) p.reject(this.failure);
  }

  /** Replaces the journal with an empty one following snapshot `baseSequence` (atomic rename). */
  async reset(baseSequence: number, term: number, fileKey: Uint8Array): Promise<void> {
    await this.idle();
    const header: JournalHeader = { vaultId: this.header.vaultId, baseSequence, term };
    await createJournalFile(this.sodium, this.path, header, this.fs);
    await this.handle.close();
    this.handle = await this.fs.open(this.path, 'r+durable');
    this.header = header;
    this.fileKey = fileKey;
    this.size = JOURNAL_HEADER_BYTES;
    this.last = baseSequence;
    this.records = 0;
  }

  /**
   * Starts a new, empty segment after the last commit and keeps the current one as `previousPath`
   * until a snapshot covers it. The hard link is made durable before the segment is replaced, so
   * at every moment each commit is in `previousPath` or in the journal.
   */
  async rotate(previousPath: string, term: number, fileKey: Uint8Array): Promise<void> {
    await this.idle();
    if (this.failure) throw this.failure;
    await this.fs.link(this.path, previousPath);
    await this.fs.syncDirectory(dirname(this.path));
    await this.reset(this.last, term, fileKey);
  }

  async close(): Promise<void> {
    await this.idle();
    await this.handle.close();
    await this.acknowledged.close();
  }
}
