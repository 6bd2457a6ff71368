import { VaultError, isVaultError } from '../../core/errors/catalogue.ts';
import { generateKeyFile, readKeyFile } from '../../core/crypto/root-key.ts';
import type { KeySource } from '../../core/crypto/root-key.ts';
import {
  CONSOLE_METHODS,
  DESKTOP_API,
  START_SCREEN_METHODS,
  parseCreateRequest,
  parseNoArgument,
  parsePathRequest,
  parseUnlockRequest,
  type DesktopApiMethod,
  type DesktopHandlers,
  type NewVaultSecret,
  type UnlockSecret,
} from './ipc-contract.ts';
import type { RecentVaults } from './recent-vaults.ts';
import type { RememberedKeys } from './remembered-keys.ts';
import type { AppOrigins } from './security.ts';
import type { UnlockOutcome, VaultSession } from './vault-session.ts';

/** The system file dialogs (Electron's `dialog`), each answering a path or null when cancelled. */
export interface FileDialogs {
  chooseVaultFile(): Promise<string | null>;
  chooseNewVaultLocation(): Promise<string | null>;
  chooseKeyFile(): Promise<string | null>;
  chooseNewKeyFileLocation(): Promise<string | null>;
}

export interface DesktopApiDeps {
  readonly session: VaultSession;
  readonly recent: RecentVaults;
  readonly remembered: RememberedKeys;
  readonly dialogs: FileDialogs;
  /** Loads the console of the open vault in the window. */
  showConsole(consoleUrl: string): Promise<void>;
  now(): Date;
}

export type { DesktopHandlers };

/** What each API method does; arguments are parsed before anything else happens. */
export function desktopApiHandlers(deps: DesktopApiDeps): DesktopHandlers {
  const { session, recent, remembered, dialogs } = deps;

  async function afterUnlock(
    outcome: UnlockOutcome,
    key: KeySource,
    remember: boolean,
  ): Promise<UnlockOutcome> {
    if (!outcome.ok) return outcome;
    await recent.add(outcome.info.path, deps.now());
    // Remembering is per unlock: an unchecked box forgets what an earlier unlock kept.
    if (remember) await remembered.remember(outcome.info.path, key);
    else await remembered.forget(outcome.info.path);
    return outcome;
  }

  return {
    listRecentVaults: async (argument) => {
      parseNoArgument(argument);
      const entries = await recent.list();
      return Promise.all(
        entries.map(async (entry) => ({ ...entry, remembered: await remembered.has(entry.path) })),
      );
    },
    chooseVaultFile: async (argument) => (parseNoArgument(argument), dialogs.chooseVaultFile()),
    chooseNewVaultLocation: async (argument) => (parseNoArgument(argument), dialogs.chooseNewVaultLocation()),
    chooseKeyFile: async (argument) => (parseNoArgument(argument), dialogs.chooseKeyFile()),
    chooseNewKeyFileLocation: async (argument) => (
      parseNoArgument(argument),
      dialogs.chooseNewKeyFileLocation()
    ),
    rememberAvailable: async (argument) => (parseNoArgument(argument), remembered.available()),

    unlockVault: async (argument) => {
      const request = parseUnlockRequest(argument);
      const key = await keyOf(request.secret);
      if (!('kind' in key)) return key;
      return afterUnlock(await session.unlock(request.path, key), key, request.remember);
    },

    unlockRemembered: async (argument) => {
      const { path } = parsePathRequest(argument);
      const key = await remembered.recall(path);
      if (key === null) {
        return { ok: false, code: 'VAULT_KEY_REQUIRED', message: 'No key is remembered for this vault.' };
      }
      return afterUnlock(await session.unlock(path, key), key, true);
    },

    createVault: async (argument) => {
      const request = parseCreateRequest(argument);
      const key = await newKeyOf(request.secret);
      if (!('kind' in key)) return key;
      return afterUnlock(await session.create(request.path, key), key, request.remember);
    },

    forgetRememberedKey: async (argument) => {
      const { path } = parsePathRequest(argument);
      await remembered.forget(path);
      return null;
    },

    openConsole: async (argument) => {
      parseNoArgument(argument);
      const current = session.current;
      if (current === null) throw new VaultError('VAULT_CLOSED', 'No vault is open.');
      await deps.showConsole(current.consoleUrl);
      return null;
    },

    takeConsoleSignIn: async (argument) => (parseNoArgument(argument), session.takeConsoleSignIn()),
  };
}

type Refusal = { readonly ok: false; readonly code: string; readonly message: string };

function refusal(error: unknown): Refusal {
  if (isVaultError(error)) return { ok: false, code: error.code, message: error.message };
  throw error;
}

async function keyOf(secret: UnlockSecret): Promise<KeySource | Refusal> {
  if (secret.kind === 'passphrase') return { kind: 'passphrase', passphrase: secret.passphrase };
  return readKeyFile(secret.keyFile).then((key) => ({ kind: 'key' as const, key }), refusal);
}

/** A new key file is written (0600, never over an existing file) before the vault is created. */
async function newKeyOf(secret: NewVaultSecret): Promise<KeySource | Refusal> {
  if (secret.kind === 'passphrase') return { kind: 'passphrase', passphrase: secret.passphrase };
  return generateKeyFile(secret.keyFile).then((key) => ({ kind: 'key' as const, key }), refusal);
}

/** Electron's ipcMain, as far as the handlers need it. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcEventLike, ...args: unknown[]) => Promise<unknown>): void;
}

export interface IpcEventLike {
  readonly senderFrame: { readonly url: string } | null;
}

/**
 * Binds each method to its channel. A call is answered only from the page allowed to make it (the
 * start screen's file, or the open vault's console for its sign-in) and with at most one argument.
 */
export function registerIpcHandlers(
  ipcMain: IpcMainLike,
  handlers: DesktopHandlers,
  origins: AppOrigins,
): void {
  for (const method of Object.keys(DESKTOP_API) as DesktopApiMethod[]) {
    ipcMain.handle(DESKTOP_API[method], async (event, ...args) => {
      const url = event.senderFrame?.url ?? '';
      const allowed =
        (START_SCREEN_METHODS.includes(method) && origins.isStartScreen(url)) ||
        (CONSOLE_METHODS.includes(method) && origins.isServer(url));
      if (!allowed) throw new Error(`${method} is not available to this page`);
      if (args.length > 1) throw new Error(`${method} takes at most one argument`);
      return handlers[method](args[0]);
    });
  }
}
