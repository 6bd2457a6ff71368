import { rm } from 'node:fs/promises';
import type { VaultHandle } from '../../core/vault/types.ts';

/**
 * The signals a bench server answers: SIGUSR1 starts a background snapshot (`vault.compact()`) and
 * prints a `compacted` (with `extra()`'s fields) or `failed` line when it ends; SIGTERM closes the
 * server and the vault without a snapshot, removes `dir` and exits.
 */
export function answerBenchSignals(
  server: { close(): Promise<void> },
  vault: VaultHandle,
  dir: string,
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
  process.on('SIGTERM', () => {
    void (async () => {
      await server.close();
      await vault.close({ snapshot: false });
      await rm(dir, { recursive: true, force: true });
      process.exit(0);
    })();
  });
}
