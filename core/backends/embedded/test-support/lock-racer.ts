/**
 * Child process of the lock race test: on `go <lock path>` it tries to take the lock and answers
 * `held` or `locked`; on `release` it lets go and answers `released`.
 */
import { createInterface } from 'node:readline';
import { isVaultError } from '../../../errors/catalogue.ts';
import { acquireLock } from '../lock.ts';
import type { VaultLock } from '../lock.ts';

let lock: VaultLock | null = null;
const lines = createInterface({ input: process.stdin });
process.stdout.write('ready\n');
for await (const line of lines) {
  if (line.startsWith('go ')) {
    try {
      lock = await acquireLock(line.slice(3), new Date());
      process.stdout.write('held\n');
    } catch (err) {
      process.stdout.write(isVaultError(err, 'VAULT_LOCKED') ? 'locked\n' : `error ${String(err)}\n`);
    }
  } else if (line === 'release') {
    await lock?.release();
    lock = null;
    process.stdout.write('released\n');
  }
}
