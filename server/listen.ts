import type { AddressInfo } from 'node:net';
import { VaultError, isVaultError } from '../core/errors/catalogue.ts';
import { DEFAULT_SWEEP_INTERVAL_MS, startExpirySweeper } from '../core/tokens/index.ts';
import type { VaultHandle } from '../core/vault/types.ts';
import { createServerServices, urlOf } from './server-services.ts';
import { isLoopbackHost } from './http/loopback.ts';
import { newOperatorCredential } from './operator-credential.ts';
import { buildServer, type ServerOptions } from './app.ts';
import { watchHeadroom } from './headroom-watch.ts';
import type { VaultServer } from './types.ts';

export interface StartServerOptions extends ServerOptions {
  /** Address to bind, e.g. `127.0.0.1`, `::1`, `localhost`, `0.0.0.0`. */
  readonly host: string;
  /** 0 picks any free port; `url` then shows the real one. */
  readonly port: number;
  /** Needed to bind anything but loopback: the API would then be reachable from other machines. */
  readonly allowRemote?: boolean;
  /**
   * How often expired tokens are deleted for good, in milliseconds. Default 10 minutes, well within
   * the hour after expiry by which a token must be gone (expired tokens are unreadable at once
   * either way).
   * `false` or `0` runs no sweeper (tests). Only a listening server sweeps; `buildServer` never
   * starts timers.
   */
  readonly sweepIntervalMs?: number | false;
  /**
   * Writes the operator credential beside the vault's lock file, for CLI commands on this host to
   * go through this server. Default: true for the embedded file; false for a vault in a database,
   * which has no lock and no folder of its own (several servers share it and CLI commands open it
   * beside them).
   */
  readonly operatorCredentialFile?: boolean;
  /**
   * How often the server looks at the vault's headroom to warn when the database or the disk nears
   * its limit (server/headroom-watch.ts); 0 looks once, at start. Default: HEADROOM_CHECK_INTERVAL_MS.
   */
  readonly headroomIntervalMs?: number;
}

export { DEFAULT_SWEEP_INTERVAL_MS };

export interface RunningServer {
  /** Where local clients reach the server, e.g. `http://127.0.0.1:54321`. Also recorded in the vault lock. */
  readonly url: string;
  readonly app: VaultServer;
  /** Things the operator should hear about (the CLI prints them). */
  readonly warnings: string[];
  /** The look at the vault's headroom taken at start (its warning, if any, is logged when it settles). */
  readonly headroomChecked: Promise<void>;
  /** Stops listening and clears the lock URL; the vault stays open (its owner closes it). Idempotent. */
  close(): Promise<void>;
}

export { isLoopbackHost };

export async function startServer(vault: VaultHandle, options: StartServerOptions): Promise<RunningServer> {
  const {
    host,
    port,
    allowRemote = false,
    sweepIntervalMs = DEFAULT_SWEEP_INTERVAL_MS,
    operatorCredentialFile = vault.backend === 'embedded',
    headroomIntervalMs,
    ...serverOptions
  } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new VaultError('USAGE', `Port must be an integer from 0 to 65535, not ${String(port)}.`);
  }
  const sweeps = sweepIntervalMs !== false && sweepIntervalMs !== 0;
  if (sweeps && (!Number.isSafeInteger(sweepIntervalMs) || sweepIntervalMs < 0)) {
    throw new VaultError(
      'USAGE',
      `The expiry sweep interval must be a positive number of milliseconds, not ${String(sweepIntervalMs)}.`,
    );
  }
  const warnings: string[] = [];
  if (!isLoopbackHost(host)) {
    if (!allowRemote) {
      throw new VaultError(
        'USAGE',
        `Refusing to listen on ${host}: only loopback addresses (127.0.0.1, ::1, localhost) are allowed ` +
          'unless remote access is allowed explicitly (--allow-remote / SVC_ALLOW_REMOTE).',
      );
    }
    warnings.push(
      `Listening on ${host}: the API is reachable from other machines over plain HTTP. ` +
        'Put it behind a TLS-terminating proxy and a firewall.',
    );
  }

  // Built here rather than in buildServer, so that the sweeper works on the routes' services.
  // Accept links may default to this server's URL, known once it listens (see createServerServices).
  const built =
    serverOptions.services === undefined
      ? createServerServices(vault, serverOptions.serviceOptions, serverOptions.tenancy)
      : { services: serverOptions.services, listening: () => undefined };
  const { services } = built;
  // The bound name is one the server answers for (Host check); IP addresses always are.
  const allowedHosts = [host, ...(serverOptions.allowedHosts ?? [])];
  // The operator credential is written beside the lock once the server listens and holds it.
  const operator = newOperatorCredential(vault.path);
  const app = await buildServer(vault, {
    ...serverOptions,
    services,
    allowedHosts,
    operatorCredential: operator.credential,
  });
  try {
    await app.listen({ host, port });
  } catch (error) {
    await app.close();
    throw listenError(error, host, port);
  }
  const url = urlOf(app.server.address() as AddressInfo);
  built.listening(url);
  try {
    await vault.setLockUrl(url);
    if (operatorCredentialFile) await operator.write();
  } catch (error) {
    await operator.remove();
    await app.close();
    throw error;
  }

  // Started once the server is up; a failed sweep is logged (without token data: core's errors
  // carry none) and retried on the next tick.
  const stopSweeper = sweeps
    ? startExpirySweeper(services, {
        intervalMs: sweepIntervalMs,
        onError: (error) => app.log.error({ err: error }, 'expiry sweep failed'),
        onSweep: (removed) => {
          if (removed > 0) app.log.info({ removed }, 'expired tokens deleted');
        },
      })
    : async () => undefined;

  const headroom = watchHeadroom(app.log, vault, headroomIntervalMs);

  // The destinations' HTTP client loads now, while no request is waiting, not inside the first
  // proxy request or reactor fetch; a failure to load is that request's error again later.
  void services.outbound
    .warm()
    .catch((error: unknown) => app.log.warn({ err: error }, 'outbound client did not load'));

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      try {
        // First, and waiting for a sweep in progress, so none runs against a closing vault.
        await stopSweeper();
        await headroom.stop();
        await operator.remove();
        await clearLockUrl(vault);
      } finally {
        // Also writes the proxy invocations' audit entries still waiting for a batch (server/app.ts).
        await app.close();
      }
    })());
  return { url, app, warnings, headroomChecked: headroom.firstLook, close };
}

async function clearLockUrl(vault: VaultHandle): Promise<void> {
  try {
    await vault.setLockUrl(undefined);
  } catch (error) {
    // The owner may close the vault first; the lock, and its URL, went with it.
    if (!isVaultError(error, 'VAULT_CLOSED')) throw error;
  }
}

const LISTEN_FAILURES: Readonly<Record<string, (host: string, port: number) => string>> = {
  EADDRINUSE: (host, port) => `Port ${port} on ${host} is already in use.`,
  EACCES: (host, port) => `Not permitted to listen on ${host} port ${port}.`,
  EADDRNOTAVAIL: (host) => `Address ${host} does not belong to this machine.`,
  ENOTFOUND: (host) => `Host name ${host} does not resolve.`,
};

function listenError(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = code === undefined ? undefined : LISTEN_FAILURES[code];
  return message === undefined ? error : new VaultError('USAGE', message(host, port), { cause: error });
}
