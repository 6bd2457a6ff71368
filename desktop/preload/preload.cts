/**
 * The bridge between the app's pages and the main process: a fixed list of methods, each bound to
 * one IPC channel. The methods, channels, requests and answers are one map
 * (desktop/bridge/desktop-bridge.ts): this file imports its types only, because a sandboxed
 * preload may only require `electron`, so the channel names are written out here and checked
 * against the map at compile time (and by the test beside this file at run time). No raw
 * ipcRenderer, no Node.
 */
// A sandboxed preload is CommonJS and gets modules only through require.
// eslint-disable-next-line @typescript-eslint/no-require-imports
import electron = require('electron');

import type { DesktopApiMethod, DesktopBridge, DesktopChannels } from '../bridge/desktop-bridge.ts';

const { contextBridge, ipcRenderer } = electron;

/**
 * Each method's channel, checked against the one map of the bridge: a method missing, added or bound
 * to another channel than the main process registers fails to compile.
 */
const CHANNELS = {
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
} as const satisfies { readonly [M in DesktopApiMethod]: DesktopChannels[M]['channel'] };

/** One method: its channel with at most the one argument; the answer is the main process's, as the map types it. */
function bind<M extends DesktopApiMethod>(method: M): DesktopBridge[M] {
  const channel = CHANNELS[method];
  const call = (argument?: unknown): Promise<unknown> =>
    argument === undefined ? ipcRenderer.invoke(channel) : ipcRenderer.invoke(channel, argument);
  return call as DesktopBridge[M];
}

const svcDesktop: DesktopBridge = Object.freeze({
  listRecentVaults: bind('listRecentVaults'),
  chooseVaultFile: bind('chooseVaultFile'),
  chooseNewVaultLocation: bind('chooseNewVaultLocation'),
  chooseKeyFile: bind('chooseKeyFile'),
  chooseNewKeyFileLocation: bind('chooseNewKeyFileLocation'),
  unlockVault: bind('unlockVault'),
  unlockRemembered: bind('unlockRemembered'),
  createVault: bind('createVault'),
  forgetRememberedKey: bind('forgetRememberedKey'),
  rememberAvailable: bind('rememberAvailable'),
  openConsole: bind('openConsole'),
  takeConsoleSignIn: bind('takeConsoleSignIn'),
});

contextBridge.exposeInMainWorld('svcDesktop', svcDesktop);
