/**
 * The one map of the desktop bridge: every method of `window.svcDesktop`, its IPC channel, what a
 * page sends and what the main process answers. The preload binds each method to its channel with
 * these types, the main process's handlers are typed by the answers, and the pages (the start
 * screen, the console) call the bridge through `DesktopBridge`; a change on one side that the other
 * does not follow fails to compile. No imports: the renderer, the preload and the main process all
 * read this file.
 */

/** A vault the start screen lists: opened before, its key perhaps remembered. */
export interface RecentVault {
  readonly path: string;
  readonly openedAt: string;
  readonly remembered: boolean;
}

export type UnlockSecret =
  | { readonly kind: 'passphrase'; readonly passphrase: string }
  | { readonly kind: 'key-file'; readonly keyFile: string };

export type NewVaultSecret =
  | { readonly kind: 'passphrase'; readonly passphrase: string; readonly confirmation: string }
  | { readonly kind: 'new-key-file'; readonly keyFile: string };

export interface UnlockRequest {
  readonly path: string;
  readonly secret: UnlockSecret;
  /** Keep the key in the OS keychain (safeStorage) for next time. Off unless asked. */
  readonly remember?: boolean;
}

export interface CreateRequest {
  readonly path: string;
  readonly secret: NewVaultSecret;
  readonly remember?: boolean;
}

export interface PathRequest {
  readonly path: string;
}

/** What the start screen shows once a vault is unlocked. */
export interface UnlockedInfo {
  readonly path: string;
  /** The server's URL: the console, the API and the proxy for local applications. */
  readonly url: string;
  readonly consoleUrl: string;
  /** Shown once, on the vault's first start; null afterwards. */
  readonly apiKey: string | null;
}

/** The process holding a vault's lock. */
export interface VaultHolder {
  readonly pid: number;
  readonly host: string;
  readonly startedAt: string;
  /** Set when one of our servers holds the vault. */
  readonly url?: string;
}

export type UnlockOutcome =
  | { readonly ok: true; readonly info: UnlockedInfo }
  | {
      readonly ok: false;
      /** A code of the error catalogue: VAULT_WRONG_KEY, VAULT_LOCKED, VAULT_EXISTS, VAULT_KEY_REQUIRED, … */
      readonly code: string;
      readonly message: string;
      /** Set when another process holds the vault. */
      readonly holder?: VaultHolder;
    };

/** Each method: its channel, what the page sends (`undefined`: nothing) and what it gets back. */
export interface DesktopChannels {
  listRecentVaults: { channel: 'vault:list-recent'; request: undefined; answer: RecentVault[] };
  chooseVaultFile: { channel: 'vault:choose-file'; request: undefined; answer: string | null };
  chooseNewVaultLocation: { channel: 'vault:choose-new-location'; request: undefined; answer: string | null };
  chooseKeyFile: { channel: 'vault:choose-key-file'; request: undefined; answer: string | null };
  chooseNewKeyFileLocation: {
    channel: 'vault:choose-new-key-file-location';
    request: undefined;
    answer: string | null;
  };
  unlockVault: { channel: 'vault:unlock'; request: UnlockRequest; answer: UnlockOutcome };
  unlockRemembered: { channel: 'vault:unlock-remembered'; request: PathRequest; answer: UnlockOutcome };
  createVault: { channel: 'vault:create'; request: CreateRequest; answer: UnlockOutcome };
  forgetRememberedKey: { channel: 'vault:forget-remembered-key'; request: PathRequest; answer: null };
  rememberAvailable: { channel: 'vault:remember-available'; request: undefined; answer: boolean };
  openConsole: { channel: 'console:open'; request: undefined; answer: null };
  /** The one-time sign-in secret of the open vault: the first call gets it, later ones null. */
  takeConsoleSignIn: { channel: 'console:take-sign-in'; request: undefined; answer: string | null };
}

export type DesktopApiMethod = keyof DesktopChannels;
export type DesktopChannel = DesktopChannels[DesktopApiMethod]['channel'];
export type DesktopRequest<M extends DesktopApiMethod> = DesktopChannels[M]['request'];
export type DesktopAnswer<M extends DesktopApiMethod> = DesktopChannels[M]['answer'];

/** The channel of each method, as values (the main process registers them; tests compare the preload's). */
export const DESKTOP_API: { readonly [M in DesktopApiMethod]: DesktopChannels[M]['channel'] } = Object.freeze(
  {
    listRecentVaults: 'vault:list-recent',
    chooseVaultFile: 'vault:choose-file',
    chooseNewVaultLocation: 'vault:choose-new-location',
    chooseKeyFile: 'vault:choose-key-file',
    chooseNewKeyFileLocation: 'vault:choose-new-key-file-location',
    unlockVault: 'vault:unlock',
    unlockRemembered: 'vault:unlock-remembered',
    createVault: 'vault:create',
    forgetRememberedKey: 'vault:forget-remembered-key',
    rememberAvailable: 'vault:remember-available',
    openConsole: 'console:open',
    takeConsoleSignIn: 'console:take-sign-in',
  },
);

/** A method as a page calls it: no argument when it takes none. */
export type BridgeMethod<M extends DesktopApiMethod> =
  DesktopRequest<M> extends undefined
    ? () => Promise<DesktopAnswer<M>>
    : (request: DesktopRequest<M>) => Promise<DesktopAnswer<M>>;

/** `window.svcDesktop`, as the preload exposes it. */
export type DesktopBridge = { readonly [M in DesktopApiMethod]: BridgeMethod<M> };

/** What the main process answers each method with, after parsing the page's argument itself. */
export type DesktopHandlers = {
  readonly [M in DesktopApiMethod]: (argument: unknown) => Promise<DesktopAnswer<M>>;
};
