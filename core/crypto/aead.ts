import { randomFillSync } from 'node:crypto';
import type { Sodium } from './sodium.ts';

/** XChaCha20-Poly1305 nonce length. */
export const NONCE_BYTES = 24;
export const KEY_BYTES = 32;
export const TAG_BYTES = 16;

/**
 * Nonces are cut from a block of node's CSPRNG output (libsodium's own generator in WASM caps
 * throughput): one call fills 256 nonces, where a call per nonce cost more than sealing a token's
 * data. Each nonce is handed out once; the block is refilled when used up.
 */
const NONCES_PER_FILL = 256;
const nonces = new Uint8Array(NONCE_BYTES * NONCES_PER_FILL);
let nextNonce = nonces.length;

function freshNonce(): Uint8Array {
  if (nextNonce === nonces.length) {
    randomFillSync(nonces);
    nextNonce = 0;
  }
  const nonce = nonces.slice(nextNonce, nextNonce + NONCE_BYTES);
  nextNonce += NONCE_BYTES;
  return nonce;
}

/** Encrypts with XChaCha20-Poly1305 under a fresh random nonce, prepended to the ciphertext. */
export function seal(sodium: Sodium, key: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): Uint8Array {
  const nonce = freshNonce();
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
