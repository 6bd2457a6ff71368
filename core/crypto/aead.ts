import { randomBytes } from 'node:crypto';
import type { Sodium } from './sodium.ts';

/** XChaCha20-Poly1305 nonce length. */
export const NONCE_BYTES = 24;
export const KEY_BYTES = 32;
export const TAG_BYTES = 16;

/**
 * Encrypts with XChaCha20-Poly1305. The nonce comes from node's CSPRNG (libsodium's own generator
 * in WASM caps throughput) and is prepended to the ciphertext.
 */
export function seal(sodium: Sodium, key: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Uint8Array {
  const nonce = randomBytes(NONCE_BYTES);
  const ct = sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, aad, null, nonce, key);
  const out = new Uint8Array(NONCE_BYTES + ct.length);
  out.set(nonce, 0);
  out.set(ct, NONCE_BYTES);
  return out;
}

/** Decrypts what `seal` produced; null when the ciphertext, the AAD or the key does not match. */
export function open(
  sodium: Sodium,
  key: Uint8Array,
  sealed: Uint8Array,
  aad: Uint8Array,
): Uint8Array | null {
  if (sealed.length < NONCE_BYTES + TAG_BYTES) return null;
  try {
    return sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
      null,
      sealed.subarray(NONCE_BYTES),
      aad,
      sealed.subarray(0, NONCE_BYTES),
      key,
    );
  } catch {
    return null;
  }
}
