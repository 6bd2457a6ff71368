import { writeFile } from 'node:fs/promises';
import { loadSodium } from '../../../crypto/sodium.ts';
import type { Sodium } from '../../../crypto/sodium.ts';
import { unlockKeyring } from '../../../vault/load.ts';
import { createVault } from '../../../vault/index.ts';
import type { KeySource } from '../../../crypto/root-key.ts';
import { vaultPaths } from '../paths.ts';
import { encodeHeader, openVaultFile, readHeader, readSnapshot } from '../vault-file.ts';
import type { VaultHeader } from '../vault-file.ts';

const CHUNK_BYTES = 1024 * 1024;

/**
 * The snapshot body as vault files before the chunked format hold it (header format version 1,
 * no `snapshot.body`): a libsodium secretstream under the term's file key, AAD
 * `svc-snapshot:v1:<vault id>`, [24-byte stream header] then [u32 length][chunk]…, the JSON
 * metadata first and the FINAL tag on the last chunk. This is that build's writer, kept here so
 * tests make such a vault at run time.
 */
function* secretstreamBody(
  sodium: Sodium,
  fileKey: Uint8Array,
  header: VaultHeader,
  db: Uint8Array,
): Generator<Uint8Array> {
  const { state, header: streamHeader } = sodium.crypto_secretstream_xchacha20poly1305_init_push(fileKey);
  yield streamHeader;
  const aad = Buffer.from(`svc-snapshot:v1:${header.vault_id}`, 'utf8');
  const meta = {
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

/**
 * Creates a vault at `path` under `key` holding the `vault_meta` rows given, closes it, and
 * rewrites its vault file as the build before the chunked body format wrote it: the same header
 * without `snapshot.body` (so format version 1) and the same image as a secretstream body.
 */
export async function createSecretstreamVault(
  path: string,
  key: KeySource,
  rows: Readonly<Record<string, string>>,
): Promise<void> {
  const vault = await createVault({ path, key });
  await vault.transaction((trx) =>
    trx
      .insertInto('vault_meta')
      .values(Object.entries(rows).map(([k, value]) => ({ key: k, value })))
      .execute(),
  );
  await vault.close();

  const sodium = await loadSodium();
  const file = vaultPaths(path).vault;
  const handle = await openVaultFile(file);
  let header: VaultHeader;
  let image: Uint8Array;
  let fileKey: Uint8Array;
  try {
    const read = await readHeader(sodium, handle, file);
    fileKey = unlockKeyring(sodium, read.header, key).fileKey(read.header.snapshot.term);
    image = await readSnapshot(sodium, handle, file, read, fileKey);
    const { body: _body, ...snapshot } = read.header.snapshot;
    header = { ...read.header, snapshot };
  } finally {
    await handle.close();
  }
  const pieces = [encodeHeader(sodium, header), ...secretstreamBody(sodium, fileKey, header, image)];
  await writeFile(file, Buffer.concat(pieces), { mode: 0o600 });
}
