import { rm } from 'node:fs/promises';
import type { VaultHandle } from '../../core/vault/types.ts';

/**
 * On SIGTERM a bench server runs `closers` in order (its server, then its vault, …), removes its
 * temp folder `dir` when it has one, and exits.
 */
export function stopOnSigterm(dir: string | null, ...closers: ReadonlyArray<() => Promise<unknown>>): void {
  process.on('SIGTERM', () => {
    void (async () => {
      for (const close of closers) await close();
      if (dir !== null) await rm(dir, { recursive: true, force: true });
      process.exit(0);
    })();
  });
}

/**
 * On SIGUSR1 a bench server starts a background snapshot (`vault.compact()`) and prints a
 * `compacted` line (with `extra()`'s fields) or a `failed` line when it ends.
 */
export function compactOnSigusr1(
  vault: VaultHandle,
  extra: () => Record<string, unknown> = () => ({}),
): void {
  process.on('SIGUSR1', () => {
    const started = performance.now();
    void vault.compact().then(
      () =>
        process.stdout.write(
          `${JSON.stringify({ event: 'compacted', ms: Math.round(performance.now() - started), ...extra() })}\n`,
        ),
      (err: unknown) => process.stdout.write(`${JSON.stringify({ event: 'failed', error: String(err) })}\n`),
    );
  });
}
