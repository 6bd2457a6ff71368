import { VaultError } from '../../errors/catalogue.ts';
import { checksum } from '../../crypto/keyed-hash.ts';
import type { Sodium } from '../../crypto/sodium.ts';
import { readAt, writeFileAtomically, writeFully } from './durable-fs.ts';
import { errnoOf } from './storage-fs.ts';
import type { StorageFs, StorageHandle } from './storage-fs.ts';

/**
 * The acknowledged high-water mark (`vault.ack`): the sequence of the last commit whose journal
 * record was fsynced before the commit was acknowledged. It is written (and fsynced) after the
 * journal's fsync and before the caller hears "done", so on open a journal that ends before it
 * means acknowledged commits were lost — a cut, zeroed or deleted journal tail — and is refused.
 *
 * Two 48-byte slots written alternately: "SVCACK01", vault id (16 bytes), sequence (u64 LE),
 * BLAKE2b-16 of the preceding 32 bytes. A write torn by a crash spoils at most the slot being
 * written; the other still holds the previous mark, and the highest valid slot wins.
 */
const MAGIC = Buffer.from('SVCACK01', 'ascii');
export const SLOT_BYTES = 8 + 16 + 8 + 16;
export const SLOTS = 2;

/** "SVCACK01" ‖ vault id: the fixed start of every slot of one vault. */
function slotPrefix(vaultId: string): Buffer {
  const prefix = Buffer.alloc(24);
  MAGIC.copy(prefix, 0);
  Buffer.from(vaultId.replace(/-/g, ''), 'hex').copy(prefix, 8);
  return prefix;
}

function encodeSlot(sodium: Sodium, prefix: Buffer, sequence: number): Buffer {
  const slot = Buffer.alloc(SLOT_BYTES);
  prefix.copy(slot, 0);
  slot.writeBigUInt64LE(BigInt(sequence), 24);
  slot.set(checksum(sodium, slot.subarray(0, SLOT_BYTES - 16), 16), SLOT_BYTES - 16);
  return slot;
}

function decodeSlot(sodium: Sodium, slot: Buffer, vaultId: string): number | null {
  if (slot.length < SLOT_BYTES || !slot.subarray(0, 8).equals(MAGIC)) return null;
  const head = slot.subarray(0, SLOT_BYTES - 16);
  if (!Buffer.from(checksum(sodium, head, 16)).equals(slot.subarray(SLOT_BYTES - 16, SLOT_BYTES)))
    return null;
  if (!slot.subarray(8, 24).equals(Buffer.from(vaultId.replace(/-/g, ''), 'hex'))) return null;
  return Number(slot.readBigUInt64LE(24));
}

/** The mark on disk; null when the file does not exist. Throws VAULT_CORRUPT when no slot is valid. */
export async function readAcknowledged(
  sodium: Sodium,
  fs: StorageFs,
  path: string,
  vaultId: string,
): Promise<number | null> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(path);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return null;
    throw err;
  }
  let best: number | null = null;
  for (let i = 0; i < SLOTS; i++) {
    const value = decodeSlot(sodium, bytes.subarray(i * SLOT_BYTES, (i + 1) * SLOT_BYTES), vaultId);
    if (value !== null && (best === null || value > best)) best = value;
  }
  if (best === null) {
    throw new VaultError(
      'VAULT_CORRUPT',
      `The acknowledged-commit record ${path} is damaged or belongs to another vault.`,
    );
  }
  return best;
}

/** Creates (or replaces, atomically) the mark at `sequence`, both slots equal. */
export async function createAcknowledged(
  sodium: Sodium,
  fs: StorageFs,
  path: string,
  vaultId: string,
  sequence: number,
): Promise<void> {
  const slot = encodeSlot(sodium, slotPrefix(vaultId), sequence);
  await writeFileAtomically(path, (h) => writeFully(h, Buffer.concat([slot, slot]), 0), 0o600, fs);
}

/** The open mark of a vault held by this process. */
export class AcknowledgedMark {
  private constructor(
    private readonly sodium: Sodium,
    private readonly handle: StorageHandle,
    /** Computed once: the mark is advanced on every commit. */
    private readonly prefix: Buffer,
    private value: number,
    /** The slot to write next: never the one holding the newest valid mark. */
    private next: number,
  ) {}

  static async open(sodium: Sodium, fs: StorageFs, path: string, vaultId: string): Promise<AcknowledgedMark> {
    const handle = await fs.open(path, 'r+durable');
    const bytes = await readAt(handle, 0, SLOT_BYTES * SLOTS);
    let best = 0;
    let bestSlot = -1;
    for (let i = 0; i < SLOTS; i++) {
      const value = decodeSlot(sodium, bytes.subarray(i * SLOT_BYTES, (i + 1) * SLOT_BYTES), vaultId);
      if (value !== null && value >= best) {
        best = value;
        bestSlot = i;
      }
    }
    return new AcknowledgedMark(sodium, handle, slotPrefix(vaultId), best, (bestSlot + 1) % SLOTS);
  }

  get sequence(): number {
    return this.value;
  }

  /** Durably records that every commit up to `sequence` is in the journal. */
  async advance(sequence: number): Promise<void> {
    if (sequence <= this.value) return;
    const slot = this.next;
    this.next = (this.next + 1) % SLOTS;
    await writeFully(this.handle, encodeSlot(this.sodium, this.prefix, sequence), slot * SLOT_BYTES);
    await this.handle.datasync();
    this.value = sequence;
  }

  async close(): Promise<void> {
    await this.handle.close();
  }
}
