/**
 * Child process of the crash-consistency test: commits in a loop from several concurrent writers
 * and prints each acknowledged commit's key on its own line. The parent kills it at random. It opens
 * the vault when a line arrives on stdin.
 */
// The embedded vault's own module, not the vault index: that also loads the PostgreSQL client
// (and, through it, Node's fetch), a start cost every writer process would pay for nothing.
import { openVault } from '../../../vault/lifecycle.ts';
import type { EmbeddedVault } from '../embedded-vault.ts';

// No top-level await and nothing read at load: the script is compiled as CommonJS, whose
// compiled code V8 caches from a first run that only loads it (core/test-support/compiled-script.ts).
void main();

async function main(): Promise<void> {
  const path = process.env.CRASH_VAULT_PATH!;
  const key = new Uint8Array(Buffer.from(process.env.CRASH_VAULT_KEY!, 'base64'));
  const round = process.env.CRASH_ROUND!;
  // The parent starts each round's process while it checks the round before: the modules load in
  // the meantime, and the vault is opened (and the kill timed) only when the parent says so.
  await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
  const vault = await openVault({ path, key: { kind: 'key', key }, snapshotThresholdBytes: 8 * 1024 });
  process.stdout.write('ready\n');
  await vault.transaction(async (trx) => {
    await trx
      .insertInto('vault_meta')
      .values({ key: 'last', value: '' })
      .onConflict((c) => c.doNothing())
      .execute();
  });
  await Promise.all([0, 1, 2, 3].map((lane) => writer(vault, round, lane)));
}

async function writer(vault: EmbeddedVault, round: string, lane: number): Promise<never> {
  for (let i = 0; ; i++) {
    const name = `r${round}-w${lane}-${i}`;
    await vault.transaction(async (trx) => {
      await trx
        .insertInto('vault_meta')
        .values({ key: name, value: 'x'.repeat(64) })
        .execute();
      await trx.updateTable('vault_meta').set({ value: name }).where('key', '=', 'last').execute();
    });
    process.stdout.write(`${name}\n`);
  }
}
