/**
 * The bridge between the app's pages and the main process: a fixed list of methods, each bound to
 * one IPC channel (the list and channels are DESKTOP_API in desktop/main/ipc-contract.ts; the test
 * beside this file checks they match). No raw ipcRenderer, no Node: a sandboxed preload may only
 * require `electron`, so the channel names are written out here rather than imported.
 */
// A sandboxed preload is CommonJS and gets modules only through require.
// eslint-disable-next-line @typescript-eslint/no-require-imports
import electron = require('electron');

const { contextBridge, ipcRenderer } = electron;

type Outcome = Promise<unknown>;

const invoke =
  (channel: string) =>
  (argument?: unknown): Outcome =>
    argument === undefined ? ipcRenderer.invoke(channel) : ipcRenderer.invoke(channel, argument);

const svcDesktop = Object.freeze({
  listRecentVaults: invoke('vault:list-recent') as () => Outcome,
  chooseVaultFile: invoke('vault:choose-file') as () => Outcome,
  chooseNewVaultLocation: invoke('vault:choose-new-location') as () => Outcome,
  chooseKeyFile: invoke('vault:choose-key-file') as () => Outcome,
  chooseNewKeyFileLocation: invoke('vault:choose-new-key-file-location') as () => Outcome,
  unlockVault: invoke('vault:unlock') as (request: unknown) => Outcome,
  unlockRemembered: invoke('vault:unlock-remembered') as (request: unknown) => Outcome,
  createVault: invoke('vault:create') as (request: unknown) => Outcome,
  forgetRememberedKey: invoke('vault:forget-remembered-key') as (request: unknown) => Outcome,
  rememberAvailable: invoke('vault:remember-available') as () => Outcome,
  openConsole: invoke('console:open') as () => Outcome,
  takeConsoleSignIn: invoke('console:take-sign-in') as () => Outcome,
});

contextBridge.exposeInMainWorld('svcDesktop', svcDesktop);
