import type { Sodium } from '../../crypto/sodium.ts';
import { newDatabaseImage } from './database-image.ts';
import { readAt } from './durable-fs.ts';
import type { SnapshotBodyReader } from './snapshot-body.ts';

/**
 * The snapshot body of vault files written before the chunked format (header format version 1): a
 * libsodium secretstream (XChaCha20-Poly1305) under the file key, AAD `svc-snapshot:v1:<vault id>`,
 * laid out as [24-byte stream header] then [u32 length][chunk]…; the first chunk is the JSON
 * metadata, the last one carries the FINAL tag. Read only: new snapshots use the chunked format.
 */
export const SECRETSTREAM_BODY_FORMAT = 'xchacha20-poly1305-secretstream';

export function secretstreamBodyReader(sodium: Sodium): SnapshotBodyReader {
  return async (body, times) => {
    const { corrupt } = body;
    let started = performance.now();
    const bytes = await readAt(body.handle, body.start, body.end - body.start);
    times.readMs += performance.now() - started;
    started = performance.now();
    const streamHeaderBytes = sodium.crypto_secretstream_xchacha20poly1305_HEADERBYTES;
    if (bytes.length < streamHeaderBytes) throw corrupt('truncated');
    let state;
    try {
      state = sodium.crypto_secretstream_xchacha20poly1305_init_pull(
        bytes.subarray(0, streamHeaderBytes),
        body.fileKey,
      );
    } catch {
      throw corrupt('bad stream header');
    }
    const aad = Buffer.from(`svc-snapshot:v1:${body.vaultId}`, 'utf8');
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
    const db = newDatabaseImage(body.imageBytes(first.message));
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
    times.decryptMs += performance.now() - started;
    return db;
  };
}
