/**
 * `--only crypto`: the AEADs the vault could seal token values, journal records and snapshot
 * chunks with, on this machine: libsodium's WASM XChaCha20-Poly1305 (journal records, field
 * envelopes) and secretstream (snapshot chunks), against Node's native ChaCha20-Poly1305 and
 * AES-256-GCM. The nonce is fixed in the loop so only the cipher is timed (the vault draws nonces
 * from Node's CSPRNG either way).
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { loadSodium } from '../core/crypto/sodium.ts';
import { emit } from './json-lines.ts';

const BENCH = 'crypto';

function microseconds(rounds: number, fn: () => void): number {
  for (let i = 0; i < Math.ceil(rounds / 10); i++) fn();
  const started = performance.now();
  for (let i = 0; i < rounds; i++) fn();
  return ((performance.now() - started) * 1000) / rounds;
}

export async function runCryptoBench(options: { rounds: number }): Promise<void> {
  const sodium = await loadSodium();
  const key = new Uint8Array(randomBytes(32));
  const aad = Buffer.from('svc-journal:v1:00000000-0000-0000-0000-000000000000:1', 'utf8');
  const nonce24 = randomBytes(24);
  const nonce12 = randomBytes(12);
  // A token's data (a field envelope: a card number's JSON) is about 20 bytes, sealed once per
  // value tokenized; a journal record of one audited read is about 1 KB; snapshot chunks are 1 MiB.
  for (const [what, size, rounds] of [
    ['token_value', 20, options.rounds * 2000],
    ['journal_record', 1000, options.rounds * 1000],
    ['snapshot_chunk', 1024 * 1024, options.rounds],
  ] as const) {
    const message = new Uint8Array(randomBytes(size));
    const { state } = sodium.crypto_secretstream_xchacha20poly1305_init_push(key);
    const ciphers: Record<string, () => void> = {
      libsodium_wasm_xchacha20poly1305: () =>
        sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(message, aad, null, nonce24, key),
      libsodium_wasm_secretstream: () =>
        sodium.crypto_secretstream_xchacha20poly1305_push(state, message, aad, 0),
      node_chacha20_poly1305: () => {
        const c = createCipheriv('chacha20-poly1305', key, nonce12, { authTagLength: 16 });
        c.setAAD(aad, { plaintextLength: message.length });
        c.update(message);
        c.final();
        c.getAuthTag();
      },
      node_aes_256_gcm: () => {
        const c = createCipheriv('aes-256-gcm', key, nonce12);
        c.setAAD(aad);
        c.update(message);
        c.final();
        c.getAuthTag();
      },
    };
    for (const [cipher, fn] of Object.entries(ciphers)) {
      const us = microseconds(rounds, fn);
      emit({
        bench: BENCH,
        metric: `${what}_seal_us`,
        value: +us.toFixed(1),
        unit: 'us',
        cipher,
        bytes: size,
        mib_per_second: +(size / us / 1.048576).toFixed(0),
      });
    }
  }
}
