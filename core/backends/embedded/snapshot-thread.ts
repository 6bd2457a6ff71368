/** The host side of a background snapshot's worker thread (snapshot-worker.ts) and their messages. */
import { VaultError, isVaultError } from '../../errors/catalogue.ts';
import type { ErrorCode } from '../../errors/catalogue.ts';
import { errnoOf } from './storage-fs.ts';
import { startAtBackgroundPriority } from '../../threads/background-priority.ts';
import { startWorker } from '../../threads/start-worker.ts';
import type { SnapshotBuildRequest } from './snapshot-build.ts';

/** How the build ended; a failure keeps what the caller needs to explain it (no key material). */
export type SnapshotBuildOutcome =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly message: string;
      /** Set when the build threw a VaultError. */
      readonly vaultCode?: ErrorCode;
      /** The errno code of a failed file operation (ENOSPC, EIO…). */
      readonly errno?: string;
    };

export function failureOutcome(err: unknown): SnapshotBuildOutcome {
  const message = err instanceof Error ? err.message : 'The snapshot worker failed.';
  if (isVaultError(err)) return { ok: false, message, vaultCode: err.code };
  const errno = errnoOf(err);
  return errno === undefined ? { ok: false, message } : { ok: false, message, errno };
}

/** The error the worker reported, rebuilt on the caller's side (errno kept, so a full disk reads as one). */
export function errorOfOutcome(outcome: SnapshotBuildOutcome & { ok: false }): Error {
  if (outcome.vaultCode !== undefined) return new VaultError(outcome.vaultCode, outcome.message);
  return Object.assign(
    new Error(outcome.message),
    outcome.errno === undefined ? {} : { code: outcome.errno },
  );
}

/**
 * Builds the new vault file in a worker thread of its own (started for this snapshot, so the
 * memory of its database copy is returned when it ends), at background priority from its start.
 * The keys travel by postMessage, a copy within this process that the worker zeroes when done.
 */
export function buildSnapshotInWorker(request: SnapshotBuildRequest): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = startAtBackgroundPriority(() => startWorker(import.meta.url, 'snapshot-worker'));
    let outcome: SnapshotBuildOutcome | null = null;
    worker.once('message', (message: SnapshotBuildOutcome) => {
      outcome = message;
    });
    worker.once('error', (err) => {
      outcome ??= failureOutcome(err);
    });
    worker.once('exit', () => {
      if (outcome === null) reject(new VaultError('INTERNAL', 'The snapshot worker ended without a result.'));
      else if (outcome.ok) resolve();
      else reject(errorOfOutcome(outcome));
    });
    worker.postMessage(request);
  });
}
