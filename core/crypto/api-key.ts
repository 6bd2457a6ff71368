import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 40 base62 characters ≈ 238 bits. */
const KEY_CHARS = 40;

/** `key_` + base62 from the CSPRNG, with rejection sampling so every character is uniform. */
export function generateApiKey(): string {
  let out = 'key_';
  while (out.length < 4 + KEY_CHARS) {
    for (const byte of randomBytes(64)) {
      if (byte >= 248) continue; // 248 = 4 × 62: keeps the modulo unbiased
      out += ALPHABET[byte % 62];
      if (out.length === 4 + KEY_CHARS) break;
    }
  }
  return out;
}

export function looksLikeApiKey(value: string): boolean {
  return /^key_[0-9A-Za-z]{32,128}$/.test(value);
}
