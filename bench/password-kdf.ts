/**
 * CPU per Argon2id password hash at the limits the product and the tests use, in this process
 * (libsodium's wasm, after a warm-up hash): `node --import tsx bench/password-kdf.ts`. One JSON
 * line per limit. Not part of `npm run bench`.
 */
import { loadSodium } from '../core/crypto/sodium.ts';
import { INTERACTIVE_KDF } from '../core/identity/passwords.ts';
import { FAST_KDF } from '../core/test-support/temp-vault.ts';
import type { KdfLimits } from '../core/crypto/root-key.ts';
import { emit } from './json-lines.ts';

const sodium = await loadSodium();
const cases: Array<[string, KdfLimits, number]> = [
  ['interactive', INTERACTIVE_KDF, 5],
  ['tests (FAST_KDF)', FAST_KDF, 50],
  ['one pass, 8 MiB', { opsLimit: 1, memLimit: 8 * 1024 * 1024 }, 20],
];
for (const [name, limits, rounds] of cases) {
  sodium.crypto_pwhash_str('warm-up', limits.opsLimit, limits.memLimit);
  const before = process.cpuUsage();
  for (let i = 0; i < rounds; i++)
    sodium.crypto_pwhash_str(`password ${i}`, limits.opsLimit, limits.memLimit);
  const spent = process.cpuUsage(before);
  emit({
    bench: 'password-kdf',
    metric: 'cpu_per_hash',
    value: Math.round(((spent.user + spent.system) / 1000 / rounds) * 100) / 100,
    unit: 'ms',
    limits: name,
    opsLimit: limits.opsLimit,
    memLimit: limits.memLimit,
  });
}
