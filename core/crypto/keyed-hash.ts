import type { Sodium } from './sodium.ts';

/**
 * Keyed BLAKE2b (32 bytes). Used for API-key lookup hashes, fingerprints and blind indexes. A string
 * is hashed as its UTF-8 bytes, encoded here: libsodium's own conversion of a string costs more
 * than Node's (the same bytes either way).
 */
export function keyedHash(
  sodium: Sodium,
  key: Uint8Array,
  message: Uint8Array | string,
  bytes = 32,
): Uint8Array {
  return sodium.crypto_generichash(
    bytes,
    typeof message === 'string' ? Buffer.from(message, 'utf8') : message,
    key,
  );
}

/** Unkeyed BLAKE2b, for integrity checksums of non-secret headers. */
export function checksum(sodium: Sodium, message: Uint8Array, bytes = 32): Uint8Array {
  return sodium.crypto_generichash(bytes, message, null);
}
