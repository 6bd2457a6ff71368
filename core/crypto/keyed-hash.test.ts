import { describe, expect, it } from 'vitest';
import { keyedHash } from './keyed-hash.ts';
import { loadSodium } from './sodium.ts';

describe('keyedHash', () => {
  it('hashes a string as libsodium itself does (stored lookup hashes and fingerprints keep matching)', async () => {
    const sodium = await loadSodium();
    const key = new Uint8Array(32).fill(7);
    for (const text of ['key_abc123', '', 'card_number\u0000ﬁ€😀', 'a'.repeat(300)]) {
      const ours = keyedHash(sodium, key, text);
      expect(Buffer.from(ours)).toEqual(Buffer.from(sodium.crypto_generichash(32, text, key)));
      expect(Buffer.from(ours)).toEqual(Buffer.from(keyedHash(sodium, key, Buffer.from(text, 'utf8'))));
    }
  });
});
