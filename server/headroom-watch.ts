import type { FastifyBaseLogger } from 'fastify';
import {
  HEADROOM_CHECK_INTERVAL_MS,
  HeadroomWarnings,
  describeHeadroomWarning,
} from '../core/storage/headroom.ts';
import type { VaultHandle } from '../core/vault/types.ts';

export interface HeadroomWatch {
  /** Settles once the first look (at start) has been taken and its warning logged. */
  readonly firstLook: Promise<void>;
  /** Looks now, as the timer does. */
  look(): Promise<void>;
  /** Stops looking; waits for a look in progress. */
  stop(): Promise<void>;
}

/**
 * Looks at the vault's headroom at once and every `intervalMs` after, and logs a warning (figures
 * only) when the database or the disk passes the warning share: once per crossing
 * (core/storage/headroom.ts), so a vault that stays near a limit does not fill the log.
 */
export function watchHeadroom(
  log: FastifyBaseLogger,
  vault: Pick<VaultHandle, 'headroom'>,
  intervalMs: number = HEADROOM_CHECK_INTERVAL_MS,
): HeadroomWatch {
  const warnings = new HeadroomWarnings();
  let running: Promise<void> = Promise.resolve();
  const look = (): Promise<void> =>
    (running = (async () => {
      try {
        for (const warning of warnings.check(await vault.headroom())) {
          log.warn({ headroom: warning }, describeHeadroomWarning(warning));
        }
      } catch {
        // A closed or failed vault: its requests and the health route say so; nothing to measure.
      }
    })());
  const firstLook = look();
  // 0 takes the look at start only, as a sweep interval of 0 turns the sweeper off.
  const timer = intervalMs > 0 ? setInterval(() => void look(), intervalMs) : null;
  timer?.unref();
  return {
    firstLook,
    look,
    async stop() {
      if (timer !== null) clearInterval(timer);
      await running;
    },
  };
}
