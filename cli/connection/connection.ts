import type { ResolvedConfig } from '../../core/config/index.ts';
import { VaultError } from '../../core/errors/catalogue.ts';
import { vaultPaths } from '../../core/backends/embedded/paths.ts';
import { describeHolder, isRunningHere, readLockHolder } from '../../core/backends/embedded/lock.ts';
import { describeVaultLocation, vaultLocationOf } from '../../core/vault/location.ts';
import type { LockHolder } from '../../core/backends/embedded/lock.ts';
import type { ApiClient } from '../../client/api-client.ts';
import { readOperatorCredential } from '../../server/operator-credential.ts';
import { cliApiClient } from './http-transport.ts';
import type { CliDeps } from '../runtime/deps.ts';
import { API_KEY_ENV } from '../options/leading-flags.ts';
import type { HttpAuthority } from '../services/http/index.ts';
import { readSession, serverKey } from './session-file.ts';

export { API_KEY_ENV };

/**
 * Where a data command's services come from:
 * - `in-process`: this process opens the vault (no server holds it, or the one that did is gone);
 * - `local-server`: a running server on this host holds the vault; the command goes through its
 *   API with the operator credential it wrote beside the lock;
 * - `remote`: --server / SVC_SERVER names a server; the command goes through its API with an API
 *   key (--api-key / SVC_API_KEY), for what that key may do, or without one with the session of
 *   `svc auth login` to that server, for what the member may do.
 */
export type Connection =
  | { readonly kind: 'in-process'; readonly holder: LockHolder | null }
  | {
      readonly kind: 'local-server';
      readonly url: string;
      readonly authority: Extract<HttpAuthority, 'operator'>;
      readonly credential: string;
      readonly holder: LockHolder;
    }
  | {
      readonly kind: 'remote';
      readonly url: string;
      readonly authority: Extract<HttpAuthority, 'key'>;
      readonly apiKey: string | undefined;
    }
  | {
      readonly kind: 'remote';
      readonly url: string;
      readonly authority: Extract<HttpAuthority, 'session'>;
      readonly sessionToken: string;
      /** Who signed in (never the token). */
      readonly email: string;
    };

/** The API key for --server: the flag, else SVC_API_KEY. Never printed. */
export function apiKeyOf(deps: CliDeps, flag: string | undefined): string | undefined {
  if (flag !== undefined && flag !== '') return flag;
  const fromEnv = deps.env[API_KEY_ENV];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

/**
 * Decides where the services come from. A lock naming a server URL whose process still runs on this
 * host means that server holds the vault; a lock left by a killed server is stale, and the vault
 * is opened here (which takes the stale lock over).
 */
export async function connectionFor(
  deps: CliDeps,
  resolved: ResolvedConfig,
  apiKeyFlag?: string,
): Promise<Connection> {
  const { server } = resolved.config;
  if (server !== null) {
    const apiKey = apiKeyOf(deps, apiKeyFlag);
    // An API key given wins; else the session signed in to this very server, if any.
    const session = apiKey === undefined ? await readSession(resolved.config.home) : null;
    if (session !== null && serverKey(session.server) === serverKey(server)) {
      return {
        kind: 'remote',
        url: server,
        authority: 'session',
        sessionToken: session.token,
        email: session.email,
      };
    }
    return { kind: 'remote', url: server, authority: 'key', apiKey };
  }
  // A database is shared: servers hold no lock on it, and a command opens it beside them.
  if (resolved.config.databaseUrl !== null) return { kind: 'in-process', holder: null };
  const holder = await readLockHolder(vaultPaths(resolved.config.vaultPath).lock);
  if (holder === null || holder.url === undefined || !isRunningHere(holder))
    return { kind: 'in-process', holder };
  const credential = await readOperatorCredential(resolved.config.vaultPath);
  if (credential === null) {
    throw new VaultError(
      'VAULT_LOCKED',
      `The vault is held by ${describeHolder(holder, holder.startedAt)}, but its operator credential file is not readable here; run the command as the user who started the server, or stop the server first.`,
    );
  }
  return { kind: 'local-server', url: holder.url, authority: 'operator', credential, holder };
}

/** The typed API client for a server connection, carrying its credential. */
export function clientOf(connection: Exclude<Connection, { kind: 'in-process' }>): ApiClient {
  if (connection.kind === 'local-server') {
    return cliApiClient({ baseUrl: connection.url, credentials: { operatorKey: connection.credential } });
  }
  if (connection.authority === 'session') {
    return cliApiClient({
      baseUrl: connection.url,
      credentials: { sessionToken: connection.sessionToken },
    });
  }
  return cliApiClient({
    baseUrl: connection.url,
    credentials: connection.apiKey === undefined ? {} : { apiKey: connection.apiKey },
  });
}

/**
 * For commands that need the vault closed (restore, rekey): the server to stop, named, when one
 * holds it. The lock would refuse them anyway; this says why before any key is asked for.
 */
export async function requireNoServer(resolved: ResolvedConfig, action: string): Promise<void> {
  // No lock on a database: servers on it keep running (docs/postgres.md, "Several servers on one database").
  if (resolved.config.databaseUrl !== null) return;
  const holder = await readLockHolder(vaultPaths(resolved.config.vaultPath).lock);
  if (holder === null || !isRunningHere(holder)) return;
  const where = holder.url === undefined ? '' : ` (serving ${holder.url})`;
  throw new VaultError(
    'VAULT_LOCKED',
    `${action} needs the vault closed, but process ${holder.pid}${where} holds it; stop that server first, then run this again.`,
  );
}

/** How `svc status` and `svc config` name a connection. */
export const MODE_NAMES = {
  'in-process': 'in-process (this command opens the vault)',
  'local-server': 'through the server holding the vault (operator credential)',
  remote: 'through --server / SVC_SERVER (API key, or the session of svc auth login)',
} as const satisfies Record<Connection['kind'], string>;

export interface ConnectionReport {
  readonly mode: Connection['kind'];
  readonly vaultPath: string;
  /** The lock's holder as text, or null when nobody holds the vault. */
  readonly lockedBy: string | null;
  /** The server a command would go through, or null in-process. */
  readonly serverUrl: string | null;
  /** Whether the holder's operator credential file is there (never its value). */
  readonly operatorCredential: boolean;
  /** Whether an API key is given for --server (never its value). */
  readonly apiKey: boolean;
  /** Who is signed in to the --server server with `svc auth login` (never the token), or null. */
  readonly signedInAs: string | null;
  /** Why a command could not run now, or null. */
  readonly problem: string | null;
}

/** Which way a data command would go now, and why: `svc status` and `svc config`. */
export async function reportConnection(
  deps: CliDeps,
  resolved: ResolvedConfig,
  apiKeyFlag?: string,
): Promise<ConnectionReport> {
  const { vaultPath, databaseUrl } = resolved.config;
  const holder = databaseUrl === null ? await readLockHolder(vaultPaths(vaultPath).lock) : null;
  const lockedBy =
    holder === null
      ? null
      : `${describeHolder(holder, holder.startedAt)}${isRunningHere(holder) ? '' : ' (stale: its process is gone)'}`;
  const operatorCredential = (await readOperatorCredential(vaultPath).catch(() => null)) !== null;
  const apiKey = apiKeyOf(deps, apiKeyFlag) !== undefined;
  const shownPath = describeVaultLocation(vaultLocationOf(resolved.config));
  const base = { vaultPath: shownPath, lockedBy, operatorCredential, apiKey };
  try {
    const connection = await connectionFor(deps, resolved, apiKeyFlag);
    const session = connection.kind === 'remote' && connection.authority === 'session';
    return {
      ...base,
      mode: connection.kind,
      serverUrl: connection.kind === 'in-process' ? null : connection.url,
      signedInAs: session ? connection.email : null,
      problem:
        connection.kind === 'remote' && connection.authority === 'key' && connection.apiKey === undefined
          ? "no API key: pass --api-key, set SVC_API_KEY, or sign in with 'svc auth login --server URL'"
          : null,
    };
  } catch (error) {
    return {
      ...base,
      signedInAs: null,
      mode: resolved.config.server === null ? 'local-server' : 'remote',
      serverUrl: holder?.url ?? null,
      problem: error instanceof Error ? error.message : String(error),
    };
  }
}
