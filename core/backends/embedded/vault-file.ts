import { VaultError } from '../../errors/catalogue.ts';
import { checksum } from '../../crypto/keyed-hash.ts';
import type { KdfHeader } from '../../crypto/root-key.ts';
import type { Sodium } from '../../crypto/sodium.ts';
import { CHUNKED_BODY_FORMAT, encryptChunkedBody, readChunkedBody } from './chunked-body.ts';
import { readAt, writeFileAtomically, writeFully } from './durable-fs.ts';
import { secretstreamBodyReader } from './secretstream-body.ts';
import type { SnapshotBodyReader, SnapshotReadTimes } from './snapshot-body.ts';
import { errnoOf, nodeStorageFs } from './storage-fs.ts';
import type { StorageFs, StorageHandle } from './storage-fs.ts';

/**
 * The vault file: a plaintext header (checksummed, holding the KDF parameters and the wrapped
 * keyring) followed by the snapshot body, the SQLite image encrypted in chunks in the format the
 * header names (chunked-body.ts; files from before that field hold a secretstream body,
 * secretstream-body.ts). Layout and rationale: docs/storage.md.
 */
export const VAULT_MAGIC = Buffer.from('SVCVAULT', 'ascii');
/**
 * Format version 2: the header names its body's format (`snapshot.body`). Version 1 headers name
 * none and hold a secretstream body; they are still read. A header that names a body format is
 * always written as version 2, so a build that predates the field refuses the file by its version
 * instead of reporting the body as damaged.
 */
export const VAULT_FORMAT_VERSION = 2;
const SECRETSTREAM_FORMAT_VERSION = 1;
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
  /**
   * The body's format (CHUNKED_BODY_FORMAT); absent in files whose body is a secretstream. Set by
   * `writeVaultFile` and carried over by `rewriteHeader`, never by the caller's header.
   */
  readonly body?: string;
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
  /** The format version in the file's prefix. */
  readonly formatVersion: number;
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
  const version = header.snapshot.body === undefined ? SECRETSTREAM_FORMAT_VERSION : VAULT_FORMAT_VERSION;
  prefix.writeUInt16LE(version, 8);
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
  if (version !== VAULT_FORMAT_VERSION && version !== SECRETSTREAM_FORMAT_VERSION) {
    throw corrupt(`unknown format version ${version}`);
  }
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
  if ((version === VAULT_FORMAT_VERSION) !== (typeof header.snapshot?.body === 'string')) {
    throw corrupt(`format version ${version} and the body format disagree`);
  }
  return { header, formatVersion: version, bodyOffset: PREFIX_BYTES + length + CHECKSUM_BYTES };
}

/** The header as written in front of a new body: it names that body's format. */
export function withNewBody(header: VaultHeader): VaultHeader {
  return { ...header, snapshot: { ...header.snapshot, body: CHUNKED_BODY_FORMAT } };
}

/** `header` naming the body format of `from` (absent for a secretstream body). */
function withBodyOf(header: VaultHeader, from: VaultHeader): VaultHeader {
  const { body: _ignored, ...snapshot } = header.snapshot;
  const body = from.snapshot.body;
  return { ...header, snapshot: body === undefined ? snapshot : { ...snapshot, body } };
}

/** Writes header + encrypted snapshot atomically (temp, fsync, rename, directory fsync); returns the header written. */
export async function writeVaultFile(
  sodium: Sodium,
  path: string,
  header: VaultHeader,
  fileKey: Uint8Array,
  db: Uint8Array,
  fs: StorageFs = nodeStorageFs,
): Promise<VaultHeader> {
  const written = withNewBody(header);
  const meta: SnapshotMeta = {
    vault_id: written.vault_id,
    sequence: written.snapshot.sequence,
    term: written.snapshot.term,
    db_bytes: db.length,
  };
  await writeFileAtomically(
    path,
    async (handle) => {
      let position = 0;
      const head = encodeHeader(sodium, written);
      await writeFully(handle, head, position);
      position += head.length;
      const metaBytes = Buffer.from(JSON.stringify(meta), 'utf8');
      for (const piece of encryptChunkedBody(fileKey, written.vault_id, metaBytes, db, CHUNK_BYTES)) {
        await writeFully(handle, piece, position);
        position += piece.length;
      }
    },
    0o600,
    fs,
  );
  return written;
}

/**
 * Writes a new header in front of the existing (unchanged) encrypted body of `from`, atomically.
 * The header keeps naming the body's format, whatever `header` says.
 */
export async function rewriteHeader(
  sodium: Sodium,
  path: string,
  source: StorageHandle,
  from: HeaderRead,
  header: VaultHeader,
  fs: StorageFs = nodeStorageFs,
): Promise<void> {
  const { size } = await source.stat();
  await writeFileAtomically(
    path,
    async (handle) => {
      const head = encodeHeader(sodium, withBodyOf(header, from.header));
      await writeFully(handle, head, 0);
      let position = head.length;
      for (let offset = from.bodyOffset; offset < size; offset += CHUNK_BYTES) {
        const piece = await readAt(source, offset, Math.min(CHUNK_BYTES, size - offset));
        await writeFully(handle, piece, position);
        position += piece.length;
      }
    },
    0o600,
    fs,
  );
}

/** Where reading a snapshot spent its time: file reads and decryption, in milliseconds. */
export type SnapshotTimes = Readonly<SnapshotReadTimes>;

/**
 * Decrypts and verifies the snapshot in the format its header names: every chunk authenticated, in
 * order, the last one present and nothing after it, the metadata agreeing with the header. Any
 * failure is VAULT_CORRUPT. `onTimes` receives where the time went (benchmarks, diagnostics).
 */
export async function readSnapshot(
  sodium: Sodium,
  handle: StorageHandle,
  path: string,
  read: HeaderRead,
  fileKey: Uint8Array,
  onTimes?: (times: SnapshotTimes) => void,
): Promise<Uint8Array> {
  const corrupt = (why: string) =>
    new VaultError('VAULT_CORRUPT', `The snapshot in ${path} is damaged: ${why}.`);
  const format = read.header.snapshot.body;
  let reader: SnapshotBodyReader;
  if (format === undefined) reader = secretstreamBodyReader(sodium);
  else if (format === CHUNKED_BODY_FORMAT) reader = readChunkedBody;
  else throw corrupt(`unknown body format ${JSON.stringify(format).slice(0, 64)}`);
  const { size } = await handle.stat();
  const times: SnapshotReadTimes = { readMs: 0, decryptMs: 0 };
  const image = await reader(
    {
      handle,
      start: read.bodyOffset,
      end: size,
      fileKey,
      vaultId: read.header.vault_id,
      corrupt,
      imageBytes: (metaBytes) => {
        let meta: SnapshotMeta;
        try {
          meta = JSON.parse(Buffer.from(metaBytes).toString('utf8')) as SnapshotMeta;
        } catch {
          throw corrupt('unreadable metadata');
        }
        if (meta.vault_id !== read.header.vault_id || meta.sequence !== read.header.snapshot.sequence) {
          throw corrupt('header and snapshot disagree');
        }
        if (!Number.isSafeInteger(meta.db_bytes) || meta.db_bytes < 0) throw corrupt('unreadable metadata');
        return meta.db_bytes;
      },
    },
    times,
  );
  onTimes?.(times);
  return image;
}
