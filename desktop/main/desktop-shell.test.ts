import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir, type TempDir } from '../../core/test-support/temp-vault.ts';
import { vaultPaths } from '../../core/backends/embedded/paths.ts';
import { runDesktopShell, type ElectronApis } from './desktop-shell.ts';
import { DESKTOP_API } from './ipc-contract.ts';
import { mainWindowOptions } from './security.ts';

const root = join(import.meta.dirname, '..', '..');
const startScreenUrl = pathToFileURL(join(root, 'desktop', 'start-screen', 'dist', 'index.html')).href;

type Listener = (...args: unknown[]) => unknown;

/** A stand-in for the `electron` module: records what the shell asks of it. */
function electronStub(userData: string, singleInstance = true) {
  const appListeners = new Map<string, Listener>();
  const ipc = new Map<string, Listener>();
  const windows: FakeWindow[] = [];
  class FakeWindow {
    readonly listeners = new Map<string, Listener>();
    readonly loaded: string[] = [];
    destroyed = false;
    constructor(readonly options: unknown) {
      windows.push(this);
    }
    on(event: string, listener: Listener) {
      this.listeners.set(event, listener);
      return this;
    }
    once(event: string, listener: Listener) {
      return this.on(event, listener);
    }
    async loadFile(file: string) {
      this.loaded.push(pathToFileURL(file).href);
    }
    async loadURL(url: string) {
      this.loaded.push(url);
    }
    show() {}
    hide() {}
    focus() {}
    restore() {}
    isMinimized() {
      return false;
    }
    destroy() {
      this.destroyed = true;
    }
  }
  const permission = { request: undefined as Listener | undefined, check: undefined as Listener | undefined };
  const app = {
    isPackaged: true,
    requestSingleInstanceLock: () => singleInstance,
    quit: vi.fn(),
    whenReady: async () => undefined,
    getPath: (name: string) => join(userData, name),
    setAppLogsPath: () => undefined,
    on: (event: string, listener: Listener) => appListeners.set(event, listener),
  };
  const electron = {
    app,
    BrowserWindow: FakeWindow,
    Menu: {
      buildFromTemplate: (items: unknown[]) => ({ items }),
      setApplicationMenu: () => undefined,
    },
    Tray: class {
      setToolTip() {}
      setContextMenu() {}
    },
    nativeImage: { createFromPath: () => ({}) },
    clipboard: { writeText: vi.fn() },
    dialog: { showOpenDialog: vi.fn(), showSaveDialog: vi.fn() },
    ipcMain: { handle: (channel: string, listener: Listener) => ipc.set(channel, listener) },
    safeStorage: {
      isEncryptionAvailable: () => false,
      encryptString: () => Buffer.alloc(0),
      decryptString: () => '',
    },
    session: {
      defaultSession: {
        setPermissionRequestHandler: (h: Listener) => (permission.request = h),
        setPermissionCheckHandler: (h: Listener) => (permission.check = h),
        webRequest: { onHeadersReceived: () => undefined },
      },
    },
    shell: { openExternal: vi.fn(), openPath: vi.fn() },
  };
  const invoke = (channel: string, url: string, ...args: unknown[]) =>
    ipc.get(channel)!({ senderFrame: { url } }, ...args);
  return {
    electron: electron as unknown as ElectronApis,
    app,
    ipc,
    windows,
    appListeners,
    permission,
    invoke,
  };
}

describe('runDesktopShell', () => {
  let temp: TempDir;
  beforeEach(async () => {
    temp = await makeTempDir('svc-desktop-shell-');
  });
  afterEach(async () => {
    await temp.cleanup();
  });

  it('quits at once when another instance holds the single-instance lock', async () => {
    const stub = electronStub(temp.dir, false);
    expect(await runDesktopShell(stub.electron, { root, env: { SVC_HOME: temp.dir } })).toBeNull();
    expect(stub.app.quit).toHaveBeenCalled();
    expect(stub.windows).toHaveLength(0);
  });

  it('opens a guarded window on the start screen, creates a vault, shows the console signed in, and closes cleanly', async () => {
    const stub = electronStub(join(temp.dir, 'userData'));
    const shell = await runDesktopShell(stub.electron, { root, env: { SVC_HOME: temp.dir } });
    expect(shell).not.toBeNull();
    const [window] = stub.windows;
    expect(window!.options).toEqual(
      mainWindowOptions({
        preload: join(root, 'dist', 'desktop', 'preload', 'preload.cjs'),
        packaged: true,
        icon: join(root, 'desktop', 'main', 'assets', 'icon.png'),
      }),
    );
    expect(window!.loaded).toEqual([startScreenUrl]);
    expect([...stub.ipc.keys()].sort()).toEqual(Object.values(DESKTOP_API).sort());
    expect(stub.appListeners.has('web-contents-created')).toBe(true);
    expect(stub.appListeners.has('second-instance')).toBe(true);
    const granted = vi.fn();
    stub.permission.request!({}, 'media', granted);
    expect(granted).toHaveBeenCalledWith(false);

    const keyFile = join(temp.dir, 'vault.key');
    const outcome = (await stub.invoke(DESKTOP_API.createVault, startScreenUrl, {
      path: temp.vaultPath,
      secret: { kind: 'new-key-file', keyFile },
    })) as { ok: boolean; info: { url: string; consoleUrl: string } };
    expect(outcome.ok).toBe(true);
    expect(outcome.info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    await stub.invoke(DESKTOP_API.openConsole, startScreenUrl);
    expect(window!.loaded.at(-1)).toBe(outcome.info.consoleUrl);
    // The console page takes its one-time secret through the preload; the start screen cannot.
    await expect(stub.invoke(DESKTOP_API.takeConsoleSignIn, startScreenUrl)).rejects.toThrow();
    const secret = await stub.invoke(DESKTOP_API.takeConsoleSignIn, outcome.info.consoleUrl);
    expect(secret).toMatch(/^svco_/);
    const signIn = await fetch(`${outcome.info.url}/console/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // The new vault's default owner has no password yet: the first sign-in claims it.
      body: JSON.stringify({
        secret,
        owner: { email: 'owner@example.test', password: 'a good long password' },
      }),
    });
    expect(signIn.status).toBe(200);

    // Closing the window locks the vault (snapshot, lock released) and quits.
    const closeEvent = { preventDefault: vi.fn() };
    window!.listeners.get('close')!(closeEvent);
    expect(closeEvent.preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(window!.destroyed).toBe(true));
    expect(stub.app.quit).toHaveBeenCalled();
    expect(shell!.vaultSession.current).toBeNull();
    expect(existsSync(vaultPaths(temp.vaultPath).lock)).toBe(false);
  });
});
