import { VaultError } from '../errors/catalogue.ts';
import { checksum } from '../crypto/keyed-hash.ts';
import type { KdfHeader } from '../crypto/root-key.ts';
import type { Sodium } from '../crypto/sodium.ts';
import { readAt, writeFileAtomically, writeFully } from './durable-fs.ts';
import { errnoOf, nodeStorageFs } from './storage-fs.ts';
import type { StorageFs, StorageHandle } from './storage-fs.ts';

/**
 * The vault file: a plaintext header (checksummed, holding the KDF parameters and the wrapped
 * keyring) followed by the snapshot, the SQLite image encrypted as a libsodium secretstream in
 * chunks. Layout and rationale: docs/architecture.md, "Storage engine".
 */
export const VAULT_MAGIC = Buffer.from('SVCVAULT', 'ascii');
export const VAULT_FORMAT_VERSION = 1;
const PREFIX_BYTES = 8 + 2 + 4;
const CHECKSUM_BYTES = 32;
// Small enough that encrypting one chunk keeps the event loop responsive (a background snapshot
// yields between chunks); readers accept any chunk length.
const CHUNK_BYTES = 1024 * 1024;
const MAX_HEADER_BYTES = 1024 * 1024;

export interface SnapshotInfo {
  readonly sequence: number;
  readonly term: number;
  readonly written_at: string;
}

export interface VaultHeader {
  readonly vault_id: string;
  readonly created_at: string;
  readonly kdf: KdfHeader;
  /** base64 of the keyring sealed with the root key. */
  readonly keyring: string;
  /** Key terms in the keyring (numbers only), so status needs no key. */
  readonly terms: readonly number[];
  readonly snapshot: SnapshotInfo;
  /**
   * The vault keeps its acknowledged-commit mark (`vault.ack`) and its journal at all times, so a
   * missing one is damage. Absent in vaults written before the mark existed; set at their next snapshot.
   */
  readonly acknowledged_mark?: boolean;
}

export interface HeaderRead {
  readonly header: VaultHeader;
  /** Where the snapshot body starts. */
  readonly bodyOffset: number;
}

interface SnapshotMeta {
  readonly vault_id: string;
  readonly sequence: number;
  readonly term: number;
  readonly db_bytes: number;
}

/** AAD of the wrapped keyring: binds it to this vault and to the KDF that made the root key. */
export function keyringAad(vaultId: string, kdf: KdfHeader): Uint8Array {
  return Buffer.from(`svc-keyring:v1:${vaultId}:${JSON.stringify(kdf)}`, 'utf8');
}

export function encodeHeader(sodium: Sodium, header: VaultHeader): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(PREFIX_BYTES);
  VAULT_MAGIC.copy(prefix, 0);
  prefix.writeUInt16LE(VAULT_FORMAT_VERSION, 8);
  prefix.writeUInt32LE(json.length, 10);
  const head = Buffer.concat([prefix, json]);
  return Buffer.concat([head, checksum(sodium, head, CHECKSUM_BYTES)]);
}

export async function openVaultFile(path: string, fs: StorageFs = nodeStorageFs): Promise<StorageHandle> {
  try {
    return await fs.open(path, 'r');
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') {
      throw new VaultError(
        'VAULT_NOT_FOUND',
        `No vault at ${path}. Create one with \`svc init\` or \`svc start\`.`,
      );
    }
    throw err;
  }
}

export async function readHeader(sodium: Sodium, handle: StorageHandle, path: string): Promise<HeaderRead> {
  const corrupt = (why: string) =>
    new VaultError('VAULT_CORRUPT', `${path} is not a readable vault file: ${why}.`);
  const prefix = await readAt(handle, 0, PREFIX_BYTES);
  if (prefix.length < PREFIX_BYTES || !prefix.subarray(0, 8).equals(VAULT_MAGIC)) throw corrupt('bad magic');
  const version = prefix.readUInt16LE(8);
  if (version !== VAULT_FORMAT_VERSION) throw corrupt(`unknown format version ${version}`);
  const length = prefix.readUInt32LE(10);
  if (length > MAX_HEADER_BYTES) throw corrupt('header too large');
  const rest = await readAt(handle, PREFIX_BYTES, length + CHECKSUM_BYTES);
  if (rest.length < length + CHECKSUM_BYTES) throw corrupt('header truncated');
  const head = Buffer.concat([prefix, rest.subarray(0, length)]);
  if (!Buffer.from(checksum(sodium, head, CHECKSUM_BYTES)).equals(rest.subarray(length))) {
    throw corrupt('header checksum mismatch');
  }
  let header: VaultHeader;
  try {
    header = JSON.parse(rest.subarray(0, length).toString('utf8')) as VaultHeader;
  } catch {
    throw corrupt('header is not JSON');
  }
  return { header, bodyOffset: PREFIX_BYTES + length + CHECKSUM_BYTES };
}

function bodyAad(vaultId: string): Uint8Array {
  return Buffer.from(`svc-snapshot:v1:${vaultId}`, 'utf8');
}

/** Encrypts the database image as a secretstream: [24-byte stream header] then [u32 length][chunk]… */
function* encryptBody(
  sodium: Sodium,
  fileKey: Uint8Array,
  header: VaultHeader,
  db: Uint8Array,
): Generator<Uint8Array> {
  const { state, header: streamHeader } = sodium.crypto_secretstream_xchacha20poly1305_init_push(fileKey);
  yield streamHeader;
  const aad = bodyAad(header.vault_id);
  const meta: SnapshotMeta = {
    vault_id: header.vault_id,
    sequence: header.snapshot.sequence,
    term: header.snapshot.term,
    db_bytes: db.length,
  };
  const push = (plain: Uint8Array, final: boolean): Uint8Array => {
    const tag = final
      ? sodium.crypto_secretstream_xchacha20poly1305_TAG_FINAL
      : sodium.crypto_secretstream_xchacha20poly1305_TAG_MESSAGE;
    const ct = sodium.crypto_secretstream_xchacha20poly1305_push(state, plain, aad, tag);
    const framed = Buffer.alloc(4 + ct.length);
    framed.writeUInt32LE(ct.length, 0);
    framed.set(ct, 4);
    return framed;
  };
  yield push(Buffer.from(JSON.stringify(meta), 'utf8'), db.length === 0);
  for (let offset = 0; offset < db.length; offset += CHUNK_BYTES) {
    const end = Math.min(offset + CHUNK_BYTES, db.length);
    yield push(db.subarray(offset, end), end === db.length);
  }
}

/** Writes header + encrypted snapshot atomically (temp, fsync, rename, directory fsync). */
export async function writeVaultFile(
  sodium: Sodium,
  path: string,
  header: VaultHeader,
  fileKey: Uint8Array,
  db: Uint8Array,
  fs: StorageFs = nodeStorageFs,
): Promise<void> {
  await writeFileAtomically(
    path,
    async (handle) => {
      let position = 0;
      const head = encodeHeader(sodium, header);
      await writeFully(handle, head, position);
      position += head.length;
      for (const piece of encryptBody(sodium, fileKey, header, db)) {
        await writeFully(handle, piece, position);
        position += piece.length;
      }
    },
    0o600,
    fs,
  );
}

/** Writes a new header in front of the existing (unchanged) encrypted body, atomically. */
export async function rewriteHeader(
  sodium: Sodium,
  path: string,
  source: StorageHandle,
  bodyOffset: number,
  header: VaultHeader,
  fs: StorageFs = nodeStorageFs,
): Promise<void> {
  const { size } = await source.stat();
  await writeFileAtomically(
    path,
    async (handle) => {
      const head = encodeHeader(sodium, header);
      await writeFully(handle, head, 0);
      let position = head.length;
      for (let offset = bodyOffset; offset < size; offset += CHUNK_BYTES) {
        const piece = await readAt(source, offset, Math.min(CHUNK_BYTES, size - offset));
        await writeFully(handle, piece, position);
        position += piece.length;
      }
    },
    0o600,
    fs,
  );
}

/** Decrypts and verifies the snapshot: every chunk authenticated, the final tag present, no trailing bytes. */
export async function readSnapshot(
  sodium: Sodium,
  handle: StorageHandle,
  path: string,
  read: HeaderRead,
  fileKey: Uint8Array,
): Promise<Uint8Array> {
  const corrupt = (why: string) =>
    new VaultError('VAULT_CORRUPT', `The snapshot in ${path} is damaged: ${why}.`);
  const { size } = await handle.stat();
  const bytes = await readAt(handle, read.bodyOffset, size - read.bodyOffset);
  const streamHeaderBytes = sodium.crypto_secretstream_xchacha20poly1305_HEADERBYTES;
  if (bytes.length < streamHeaderBytes) throw corrupt('truncated');
  let state;
  try {
    state = sodium.crypto_secretstream_xchacha20poly1305_init_pull(
      bytes.subarray(0, streamHeaderBytes),
      fileKey,
    );
  } catch {
    throw corrupt('bad stream header');
  }
  const aad = bodyAad(read.header.vault_id);
  let offset = streamHeaderBytes;
  const pull = (): { message: Uint8Array; final: boolean } => {
    if (offset + 4 > bytes.length) throw corrupt('truncated');
    const length = bytes.readUInt32LE(offset);
    if (offset + 4 + length > bytes.length) throw corrupt('truncated');
    const chunk = bytes.subarray(offset + 4, offset + 4 + length);
    offset += 4 + length;
    let result;
    try {
      result = sodium.crypto_secretstream_xchacha20poly1305_pull(state, chunk, aad);
    } catch {
      result = false;
    }
    if (!result || result === true) throw corrupt('a chunk failed authentication');
    return {
      message: result.message,
      final: result.tag === sodium.crypto_secretstream_xchacha20poly1305_TAG_FINAL,
    };
  };
  const first = pull();
  let meta: SnapshotMeta;
  try {
    meta = JSON.parse(Buffer.from(first.message).toString('utf8')) as SnapshotMeta;
  } catch {
    throw corrupt('unreadable metadata');
  }
  if (meta.vault_id !== read.header.vault_id || meta.sequence !== read.header.snapshot.sequence) {
    throw corrupt('header and snapshot disagree');
  }
  const db = new Uint8Array(meta.db_bytes);
  let filled = 0;
  let final = first.final;
  while (!final) {
    const next = pull();
    if (filled + next.message.length > db.length) throw corrupt('more data than announced');
    db.set(next.message, filled);
    filled += next.message.length;
    final = next.final;
  }
  if (filled !== db.length) throw corrupt('less data than announced');
  if (offset !== bytes.length) throw corrupt('trailing bytes after the final chunk');
  return db;
}
