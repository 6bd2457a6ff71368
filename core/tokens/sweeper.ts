/**
 * The expiry sweeper (service interface "Token expiration": deleted up to 1 hour after expiry).
 * Expired tokens are already invisible to every read; this removes their rows (and their blind
 * indexes) for good, with an audit record each. The server starts it; the default interval of
 * 10 minutes keeps deletion well within the hour. The first sweep runs at once, so tokens that
 * expired while the vault was closed go soon after it opens. Runs never overlap.
 */
import type { Services } from '../services-contract.ts';

export const DEFAULT_SWEEP_INTERVAL_MS = 10 * 60 * 1000;

export interface ExpirySweeperOptions {
  readonly intervalMs?: number;
  /** Called with a failed sweep's error (the next tick tries again). Default: ignore. */
  readonly onError?: (error: unknown) => void;
  /** Called after each sweep with the number of tokens removed. */
  readonly onSweep?: (removed: number) => void;
}

/**
 * Starts sweeping expired tokens, and expired applications when given; returns a function that
 * stops it (and waits for a running sweep).
 */
export function startExpirySweeper(
  services: Pick<Services, 'tokens'> & Partial<Pick<Services, 'applications'>>,
  options: ExpirySweeperOptions = {},
): () => Promise<void> {
  const intervalMs = options.intervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
  if (!Number.isSafeInteger(intervalMs) || intervalMs <= 0) {
    throw new RangeError('intervalMs must be a positive number of milliseconds');
  }
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = (): void => {
    if (running || stopped) return;
    running = services.tokens
      .sweepExpired()
      .then(async (removed) => {
        await services.applications?.sweepExpired();
        options.onSweep?.(removed);
      })
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  // The sweeper never keeps a process alive on its own.
  timer.unref();
  tick();
  return async () => {
    stopped = true;
    clearInterval(timer);
    if (running) await running;
  };
}
