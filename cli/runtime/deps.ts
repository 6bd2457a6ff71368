import type { SecretInput } from '../../core/config/index.ts';
import type { Env } from '../../core/config/index.ts';
import type { Services } from '../../core/services-contract.ts';
import type { TenancyOptions } from '../../core/tenancy/contract.ts';
import type * as bootstrap from '../../core/tenancy/bootstrap.ts';
import type * as vault from '../../core/vault/index.ts';
import type { VaultHandle } from '../../core/vault/types.ts';
import type { Clock } from '../../core/vault/clock.ts';
import type { startServer } from '../../server/listen.ts';

/** Where a command writes. Plain functions so tests capture strings without streams. */
export interface Writer {
  write(text: string): void;
  /** True when this writer is a terminal (tables and colour are for people; pipes get plain text). */
  readonly isTTY: boolean;
  /** The terminal's width in columns, when known. */
  readonly columns?: number;
}

export interface Prompter {
  /** Hidden input. Throws VaultError('CANCELLED') on Ctrl-C. */
  password(options: { message: string; validate?: (value: string) => string | undefined }): Promise<string>;
  input(options: { message: string; default?: string }): Promise<string>;
  confirm(options: { message: string; default?: boolean }): Promise<boolean>;
  /** One of `choices` (arrow keys on a terminal). */
  select<T extends string>(options: {
    message: string;
    choices: readonly SelectChoice<T>[];
    default?: T;
  }): Promise<T>;
  /** Any number of `choices` (space toggles, enter accepts on a terminal); at least one when `required`. */
  checkbox<T extends string>(options: {
    message: string;
    choices: readonly SelectChoice<T>[];
    required?: boolean;
  }): Promise<T[]>;
}

export interface SelectChoice<T extends string> {
  readonly value: T;
  /** Shown instead of the value when given. */
  readonly name?: string;
  readonly description?: string;
}

/** The vault operations a command may call; injected so tests can, e.g., pass fast KDF limits. */
export type VaultApi = Pick<
  typeof vault,
  | 'createVault'
  | 'openVault'
  | 'createVaultAt'
  | 'openVaultAt'
  | 'vaultStatusAt'
  | 'vaultExists'
  | 'readVaultStatus'
  | 'backupVault'
  | 'restoreVault'
  | 'rekeyVault'
>;

/** The embedded default's first-run bootstrap and the application list `svc start` shows. */
export type TenancyApi = Pick<
  typeof bootstrap,
  'bootstrapEmbeddedDefault' | 'listApplications' | 'needsEmbeddedDefault'
>;

/** What the CLI adds to the services' options: invitation mail and links (cli/services/tenancy-options.ts). */
export interface CliServiceOptions {
  readonly tenancy?: TenancyOptions;
}

/**
 * The domain services over an open vault (core/services.ts). Injected so tests can pass small
 * password KDF limits; the CLI acts through them as the operator of a tenant.
 */
export type ServicesFactory = (vault: VaultHandle, options?: CliServiceOptions) => Promise<Services>;

/**
 * Everything a command touches outside its own code (the GitHub CLI's "factory"): one object, built
 * once in `main`, replaced piecemeal in tests so commands run in parallel without touching globals.
 */
export interface CliDeps {
  readonly stdout: Writer;
  readonly stderr: Writer;
  /** The environment the command sees (never mutated; tests pass their own). */
  readonly env: Env;
  readonly cwd: string;
  /** True when a person can answer prompts: stdin and stderr (where prompts go) are terminals. */
  readonly isTTY: boolean;
  readonly prompter: Prompter;
  readStdin(): Promise<string>;
  readonly clock: Clock;
  readonly vault: VaultApi;
  readonly tenancy: TenancyApi;
  readonly services: ServicesFactory;
  readonly startServer: typeof startServer;
  /**
   * Resolves when the process is asked to stop (SIGINT/SIGTERM); `svc start` and `svc logs --follow`
   * wait on it. Call it once per command: each call listens for the next signal.
   */
  waitForShutdown(): Promise<string>;
  /** Resolves after `ms`, or as soon as `signal` aborts (polling loops); tests may shorten it. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Adapts the CLI's prompter and stdin to the secret input core/config asks for. */
export function secretInput(deps: CliDeps): SecretInput {
  return {
    interactive: deps.isTTY,
    promptSecret: (message, validate) =>
      deps.prompter.password(validate === undefined ? { message } : { message, validate }),
    readStdin: () => deps.readStdin(),
  };
}
