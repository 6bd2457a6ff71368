import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { newDatabaseImage } from './database-image.ts';
import { readAt, readInto } from './durable-fs.ts';
import type { SnapshotBodyReader } from './snapshot-body.ts';

/**
 * The snapshot body sealed with Node's native ChaCha20-Poly1305 (OpenSSL), chunk by chunk:
 *
 *   [32-byte random salt] then [u32 length][ciphertext ‖ 16-byte tag]…
 *
 * The first chunk is the JSON metadata (vault id, sequence, term, image length), the others the
 * SQLite image in order. The chunk key is HKDF-SHA256(file key, salt), so every written file has
 * its own key and the nonce can be the chunk index: (key, nonce) never repeats, though the file key
 * of a term seals many snapshots. The AAD binds each chunk to the vault, its index and whether it
 * is the last one; the reader takes a chunk as the last exactly when it ends at the end of the
 * file, so a dropped last chunk or a chunk appended after it fails authentication, and so does a
 * chunk moved elsewhere (its index is in the nonce and the AAD). The security rationale is in
 * docs/keys-and-crypto.md, "Snapshot body format".
 */
export const CHUNKED_BODY_FORMAT = 'chacha20-poly1305-chunked';

const CIPHER = 'chacha20-poly1305';
const SALT_BYTES = 32;
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const LENGTH_BYTES = 4;

function chunkKey(fileKey: Uint8Array, salt: Uint8Array): Buffer {
  return Buffer.from(
    hkdfSync('sha256', fileKey, salt, `svc-snapshot-body:${CHUNKED_BODY_FORMAT}`, KEY_BYTES),
  );
}

/** The per-chunk nonce and AAD, rewritten in place for each chunk (the cipher copies them). */
class ChunkBinding {
  readonly nonce = Buffer.alloc(NONCE_BYTES);
  readonly aad: Buffer;
  private readonly prefixLength: number;

  constructor(vaultId: string) {
    const prefix = Buffer.from(`svc-snapshot:${CHUNKED_BODY_FORMAT}:${vaultId}:`, 'utf8');
    this.prefixLength = prefix.length;
    this.aad = Buffer.alloc(prefix.length + 8 + 1);
    prefix.copy(this.aad);
  }

  at(index: number, final: boolean): this {
    this.nonce.writeBigUInt64LE(BigInt(index), 0);
    this.aad.writeBigUInt64LE(BigInt(index), this.prefixLength);
    this.aad[this.prefixLength + 8] = final ? 1 : 0;
    return this;
  }
}

/** Encrypts metadata and image as framed chunks; the first piece is the salt. */
export function* encryptChunkedBody(
  fileKey: Uint8Array,
  vaultId: string,
  meta: Uint8Array,
  db: Uint8Array,
  chunkBytes: number,
): Generator<Uint8Array> {
  const salt = randomBytes(SALT_BYTES);
  const key = chunkKey(fileKey, salt);
  const binding = new ChunkBinding(vaultId);
  let index = 0;
  const seal = (plain: Uint8Array, final: boolean): Buffer => {
    binding.at(index++, final);
    const cipher = createCipheriv(CIPHER, key, binding.nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(binding.aad, { plaintextLength: plain.length });
    // Every byte of the frame is written below (a stream cipher's output is as long as its input).
    const framed = Buffer.allocUnsafe(LENGTH_BYTES + plain.length + TAG_BYTES);
    framed.writeUInt32LE(plain.length + TAG_BYTES, 0);
    let written = cipher.update(plain).copy(framed, LENGTH_BYTES);
    written += cipher.final().copy(framed, LENGTH_BYTES + written);
    cipher.getAuthTag().copy(framed, LENGTH_BYTES + written);
    return framed;
  };
  try {
    yield salt;
    yield seal(meta, db.length === 0);
    for (let offset = 0; offset < db.length; offset += chunkBytes) {
      const end = Math.min(offset + chunkBytes, db.length);
      yield seal(db.subarray(offset, end), end === db.length);
    }
  } finally {
    key.fill(0);
  }
}

/**
 * Reads, authenticates and decrypts the body chunk by chunk straight into one image of the length
 * the (authenticated) metadata announces: the ciphertext is never held whole, and the plaintext is
 * copied once, from the cipher into the image. The next chunk is read by the I/O thread pool while
 * this one is decrypted, so the file reads run beside the cipher instead of between its chunks.
 */
export const readChunkedBody: SnapshotBodyReader = async (body, times) => {
  const { handle, start, end, fileKey, vaultId, corrupt, imageBytes } = body;
  // Two buffers take turns: one holds the chunk being decrypted, the other the next one being read
  // (each grown only for a chunk longer than any before).
  const frameBuffers = [Buffer.alloc(0), Buffer.alloc(0)];
  const readFrame = (slot: number, position: number, length: number): Promise<Buffer> => {
    if (frameBuffers[slot]!.length < length) frameBuffers[slot] = Buffer.allocUnsafe(length);
    return readInto(handle, frameBuffers[slot]!, position, length);
  };
  const head = await readAt(handle, start, SALT_BYTES + LENGTH_BYTES);
  if (head.length < SALT_BYTES + LENGTH_BYTES) throw corrupt('truncated');
  const key = chunkKey(fileKey, head.subarray(0, SALT_BYTES));
  // The next chunk's read, in flight while this one is decrypted.
  let reading: Promise<Buffer> | null = null;
  try {
    const binding = new ChunkBinding(vaultId);
    let position = start + SALT_BYTES + LENGTH_BYTES;
    let length = head.readUInt32LE(SALT_BYTES);
    let image: Uint8Array | null = null;
    let filled = 0;
    // The next chunk's length comes with this chunk: one read per chunk.
    const frameLength = (at: number, size: number): number =>
      at + size === end ? size : size + LENGTH_BYTES;
    const plausible = (at: number, size: number): boolean => at + size <= end && size >= TAG_BYTES;
    for (let index = 0; ; index++) {
      if (position + length > end) throw corrupt('truncated');
      if (length < TAG_BYTES) throw corrupt('a chunk failed authentication');
      const final = position + length === end;
      const waited = performance.now();
      // The read of this chunk started while the one before was decrypted (not for the first).
      const frame = await (reading ?? readFrame(index % 2, position, frameLength(position, length)));
      reading = null;
      times.readMs += performance.now() - waited;
      if (frame.length < frameLength(position, length)) throw corrupt('truncated');
      const nextPosition = position + length + LENGTH_BYTES;
      const nextLength = final ? 0 : frame.readUInt32LE(length);
      // An implausible next length is reported at the next turn, once this chunk has authenticated.
      if (!final && plausible(nextPosition, nextLength)) {
        reading = readFrame((index + 1) % 2, nextPosition, frameLength(nextPosition, nextLength));
      }
      const started = performance.now();
      const plain = openChunk(key, binding.at(index, final), frame.subarray(0, length), corrupt);
      if (image === null) {
        image = newDatabaseImage(imageBytes(plain));
      } else {
        if (filled + plain.length > image.length) throw corrupt('more data than announced');
        image.set(plain, filled);
        filled += plain.length;
      }
      times.decryptMs += performance.now() - started;
      if (final) break;
      position = nextPosition;
      length = nextLength;
    }
    if (image === null || filled !== image.length) throw corrupt('less data than announced');
    return image;
  } finally {
    key.fill(0);
    // No read may still be writing into a frame buffer once this returns or throws.
    await reading?.catch(() => undefined);
  }
};

function openChunk(
  key: Buffer,
  binding: ChunkBinding,
  sealed: Buffer,
  corrupt: (why: string) => Error,
): Buffer {
  const textLength = sealed.length - TAG_BYTES;
  try {
    const decipher = createDecipheriv(CIPHER, key, binding.nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(binding.aad, { plaintextLength: textLength });
    decipher.setAuthTag(sealed.subarray(textLength));
    const plain = decipher.update(sealed.subarray(0, textLength));
    decipher.final();
    return plain;
  } catch {
    throw corrupt('a chunk failed authentication');
  }
}
