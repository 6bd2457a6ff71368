import { isVaultError } from '../../core/errors/catalogue.ts';
import { readLockHolder } from '../../core/backends/embedded/lock.ts';
import { vaultPaths } from '../../core/backends/embedded/paths.ts';
import type { VaultHandle } from '../../core/vault/types.ts';
import type { KdfLimits, KeySource } from '../../core/crypto/root-key.ts';
import type { StartServerOptions, RunningServer } from '../../server/listen.ts';

/** The few core and server functions the desktop session needs; tests pass the real ones. */
export interface VaultSessionDeps {
  openVault(options: { path: string; key: KeySource }): Promise<VaultHandle>;
  createVault(options: { path: string; key: KeySource; kdf?: KdfLimits }): Promise<VaultHandle>;
  /** The embedded default's first run (tenant, owner, management application); null afterwards. */
  bootstrap(vault: VaultHandle): Promise<{ readonly apiKey: string } | null>;
  startServer(vault: VaultHandle, options: StartServerOptions): Promise<RunningServer>;
  /** A one-time console sign-in secret for the running server (exchanged once for a session). */
  issueConsoleSignIn(server: RunningServer): string;
}

export interface VaultSessionOptions {
  /** 127.0.0.1 unless configured; the desktop never listens beyond loopback. */
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly version: string;
  /** Where the server's request log goes (the menu's "open logs"). */
  readonly logger?: StartServerOptions['logger'];
  readonly kdf?: KdfLimits;
  /** The built console's folder (the app's own copy); the server's default otherwise. */
  readonly consoleRoot?: string;
}

// What the start screen is answered: the bridge's map defines it for both sides.
export type { UnlockOutcome, UnlockedInfo } from '../bridge/desktop-bridge.ts';
import type { UnlockOutcome, UnlockedInfo } from '../bridge/desktop-bridge.ts';

interface Open {
  readonly vault: VaultHandle;
  readonly server: RunningServer;
  readonly info: UnlockedInfo;
  /** The sign-in secret not yet taken by the console window. */
  pendingSignIn: string | null;
}

/**
 * One vault at a time, opened in this process: unlock (or create) → serve on loopback → a one-time
 * console sign-in → lock. Failures come back as values the start screen can word; a failed unlock
 * leaves the vault's files as they were (core checks the key before it takes the lock).
 */
export class VaultSession {
  private open: Open | null = null;
  private busy: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: VaultSessionDeps,
    private readonly options: VaultSessionOptions,
  ) {}

  get current(): UnlockedInfo | null {
    return this.open?.info ?? null;
  }

  unlock(path: string, key: KeySource): Promise<UnlockOutcome> {
    return this.serialised(() => this.start(path, () => this.deps.openVault({ path, key })));
  }

  create(path: string, key: KeySource): Promise<UnlockOutcome> {
    const kdf = this.options.kdf;
    return this.serialised(() =>
      this.start(path, () => this.deps.createVault(kdf ? { path, key, kdf } : { path, key })),
    );
  }

  /** Hands the console its sign-in secret once; later calls get null. */
  takeConsoleSignIn(): string | null {
    if (this.open === null) return null;
    const secret = this.open.pendingSignIn;
    this.open.pendingSignIn = null;
    return secret;
  }

  /** Stops the server, then closes the vault (closing snapshot, lock released). Idempotent. */
  lock(): Promise<void> {
    return this.serialised(async () => {
      const open = this.open;
      if (open === null) return;
      this.open = null;
      // Server first, so no request is mid-write when the vault takes its closing snapshot.
      try {
        await open.server.close();
      } finally {
        await open.vault.close();
      }
    });
  }

  private serialised<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.busy.then(fn, fn);
    this.busy = run.catch(() => undefined);
    return run;
  }

  private async start(path: string, openFn: () => Promise<VaultHandle>): Promise<UnlockOutcome> {
    if (this.open !== null) {
      return { ok: false, code: 'ALREADY_OPEN', message: `A vault is already open: ${this.open.info.path}.` };
    }
    let vault: VaultHandle;
    try {
      vault = await openFn();
    } catch (error) {
      return this.failure(path, error);
    }
    let server: RunningServer;
    let apiKey: string | null;
    try {
      apiKey = (await this.deps.bootstrap(vault))?.apiKey ?? null;
      server = await this.deps.startServer(vault, {
        host: this.options.host ?? '127.0.0.1',
        port: this.options.port ?? 0,
        version: this.options.version,
        ...(this.options.logger ? { logger: this.options.logger } : {}),
        ...(this.options.consoleRoot ? { console: { root: this.options.consoleRoot } } : {}),
      });
    } catch (error) {
      await vault.close().catch(() => undefined);
      return this.failure(path, error);
    }
    const secret = this.deps.issueConsoleSignIn(server);
    const info: UnlockedInfo = {
      path: vault.path,
      url: server.url,
      consoleUrl: `${server.url.replace(/\/$/, '')}/console/`,
      apiKey,
    };
    this.open = { vault, server, info, pendingSignIn: secret };
    return { ok: true, info };
  }

  private async failure(path: string, error: unknown): Promise<UnlockOutcome> {
    if (isVaultError(error, 'VAULT_LOCKED')) {
      const holder = await readLockHolder(vaultPaths(path).lock).catch(() => null);
      return {
        ok: false,
        code: 'VAULT_LOCKED',
        message: error.message,
        ...(holder ? { holder } : {}),
      };
    }
    if (isVaultError(error)) return { ok: false, code: error.code, message: error.message };
    return { ok: false, code: 'INTERNAL', message: error instanceof Error ? error.message : String(error) };
  }
}
