import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 40 base62 characters ≈ 238 bits. */
const KEY_CHARS = 40;

/**
 * `length` base62 characters from the CSPRNG, with rejection sampling so every character is
 * uniform. Shared by API keys and session tokens.
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(64)) {
      if (byte >= 248) continue; // 248 = 4 × 62: keeps the modulo unbiased
      out += ALPHABET[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** `key_` + 40 base62 characters. */
export function generateApiKey(): string {
  return `key_${randomBase62(KEY_CHARS)}`;
}

export function looksLikeApiKey(value: string): boolean {
  return /^key_[0-9A-Za-z]{32,128}$/.test(value);
}
