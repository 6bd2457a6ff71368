import { describe, expect, it } from 'vitest';
import { seededRandom } from '../backends/embedded/test-support/power-loss-fs.ts';
import { keyedHash } from './keyed-hash.ts';
import { loadSodium } from './sodium.ts';

describe('keyedHash', () => {
  it('hashes a string as libsodium hashes it itself (UTF-8, lone surrogates as U+FFFD)', async () => {
    const sodium = await loadSodium();
    const key = new Uint8Array(32).fill(7);
    const random = seededRandom(3);
    const units = ['a', 'Z', '0', '\u0000', 'é', '漢', '😀', '\ud800', '\udfff', '-', ' '];
    for (let i = 0; i < 500; i += 1) {
      let text = '';
      for (let n = Math.floor(random() * 12); n > 0; n -= 1)
        text += units[Math.floor(random() * units.length)];
      expect(keyedHash(sodium, key, text), JSON.stringify(text)).toEqual(
        sodium.crypto_generichash(32, text, key),
      );
    }
  });
});
