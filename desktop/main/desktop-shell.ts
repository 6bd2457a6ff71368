/**
 * The desktop app's shell: wires the app's modules to Electron's APIs (handed in, so the wiring
 * runs under Node with a stub in tests). All decisions live in those modules.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Electron from 'electron';
import { pino } from 'pino';
import pkg from '../../package.json' with { type: 'json' };
import { resolveConfig } from '../../core/config/index.ts';
import { coreVaultSessionDeps } from './core-deps.ts';
import { desktopApiHandlers, registerIpcHandlers, type FileDialogs } from './desktop-api.ts';
import { RecentVaults } from './recent-vaults.ts';
import { RememberedKeys } from './remembered-keys.ts';
import {
  AppOrigins,
  denyPermissions,
  enforceCsp,
  guardContents,
  isExternalWebLink,
  mainWindowOptions,
} from './security.ts';
import { onWindowClose, shellMenu, type ShellState } from './shell-menu.ts';
import { VaultSession } from './vault-session.ts';

/** The Electron APIs the shell uses; the entry passes the real module, tests a stub. */
export type ElectronApis = Pick<
  typeof Electron,
  | 'BrowserWindow'
  | 'Menu'
  | 'Tray'
  | 'app'
  | 'clipboard'
  | 'dialog'
  | 'ipcMain'
  | 'nativeImage'
  | 'safeStorage'
  | 'session'
  | 'shell'
>;

export interface DesktopShellOptions {
  /** The app's folder: package.json, dist/, desktop/start-screen/dist/, desktop/renderer/dist/. */
  readonly root: string;
  /** Where the configuration (port, log level) is read from. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

export interface DesktopShell {
  readonly vaultSession: VaultSession;
  readonly window: Electron.BrowserWindow;
}

const VAULT_FILTER = [{ name: 'svc vault', extensions: ['svc'] }];
const KEY_FILTER = [{ name: 'Key file', extensions: ['key'] }];

/** The file choosers of the start screen, as dialogs of `window`; null when the person cancels. */
function fileDialogs(dialog: ElectronApis['dialog'], window: Electron.BrowserWindow): FileDialogs {
  const pick = async (save: boolean, title: string, filters: { name: string; extensions: string[] }[]) => {
    if (save) {
      const result = await dialog.showSaveDialog(window, { title, filters });
      return result.canceled || result.filePath === undefined ? null : result.filePath;
    }
    const result = await dialog.showOpenDialog(window, { title, filters, properties: ['openFile'] });
    return result.canceled ? null : (result.filePaths[0] ?? null);
  };
  return {
    chooseVaultFile: () => pick(false, 'Open a vault', VAULT_FILTER),
    chooseNewVaultLocation: () => pick(true, 'Create a vault', VAULT_FILTER),
    chooseKeyFile: () => pick(false, 'Choose the key file', KEY_FILTER),
    chooseNewKeyFileLocation: () => pick(true, 'Save the new key file', KEY_FILTER),
  };
}

/**
 * Every page of the app under the same guards: no permission granted, the CSP enforced, navigation
 * kept to the app's origins, and web links opened in the person's browser.
 */
function guardWebContents({ app, session, shell }: ElectronApis, origins: AppOrigins): void {
  const defaultSession = session.defaultSession;
  denyPermissions(defaultSession);
  enforceCsp(defaultSession);
  app.on('web-contents-created', (_event, contents) => {
    guardContents(contents, origins, (url) => {
      if (isExternalWebLink(url)) void shell.openExternal(url);
    });
  });
}

/**
 * Runs the desktop app: one instance (a second launch focuses the first window), a guarded
 * window on the start screen, the IPC API, the tray menu, and a clean close of the vault.
 * Resolves null when another instance is already running.
 */
export async function runDesktopShell(
  electron: ElectronApis,
  options: DesktopShellOptions,
): Promise<DesktopShell | null> {
  const { BrowserWindow, Menu, Tray, app, clipboard, dialog, ipcMain, nativeImage, safeStorage, shell } =
    electron;
  const { root } = options;
  // Built by `npm run build:start-screen` (scripts/build-start-screen.ts).
  const startScreenFile = join(root, 'desktop', 'start-screen', 'dist', 'index.html');
  const preloadFile = join(root, 'dist', 'desktop', 'preload', 'preload.cjs');
  const iconFile = join(root, 'desktop', 'main', 'assets', 'icon.png');
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  await app.whenReady();
  const userData = app.getPath('userData');
  app.setAppLogsPath();
  const logFile = join(app.getPath('logs'), 'server.log');
  const resolved = await resolveConfig({ env: options.env });

  const origins = new AppOrigins(pathToFileURL(startScreenFile).href);
  const vaultSession = new VaultSession(coreVaultSessionDeps, {
    // Loopback only; a port set in the configuration is used, otherwise any free one.
    host: '127.0.0.1',
    port: resolved.sources.port === 'default' ? 0 : resolved.config.port,
    version: pkg.version,
    consoleRoot: join(root, 'desktop', 'renderer', 'dist'),
    logger: {
      level: resolved.config.logLevel,
      destination: pino.destination({ dest: logFile, mkdir: true, sync: false }),
    },
  });
  let keepRunningInBackground = false;
  let quitting = false;

  guardWebContents(electron, origins);

  const window = new BrowserWindow(
    mainWindowOptions({ preload: preloadFile, packaged: app.isPackaged, icon: iconFile }),
  );
  window.once('ready-to-show', () => window.show());
  app.on('second-instance', () => {
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  });

  const state = (): ShellState => {
    const current = vaultSession.current;
    return { open: current ? { path: current.path, url: current.url } : null, keepRunningInBackground };
  };

  const showStartScreen = async () => {
    origins.setServer(null);
    await window.loadFile(startScreenFile);
  };

  const lockVault = async () => {
    await vaultSession.lock();
    refreshMenu();
    await showStartScreen();
  };

  const tray = new Tray(nativeImage.createFromPath(iconFile));
  tray.setToolTip('svc vault');
  function refreshMenu(): void {
    const menu = Menu.buildFromTemplate(
      shellMenu(state(), {
        showWindow: () => window.show(),
        copyUrl: () => {
          const current = vaultSession.current;
          if (current) clipboard.writeText(current.url);
        },
        openLogs: () => void shell.openPath(app.getPath('logs')),
        lockVault: () => void lockVault(),
        setKeepRunningInBackground: (keep) => {
          keepRunningInBackground = keep;
          refreshMenu();
        },
        quit: () => app.quit(),
      }),
    );
    tray.setContextMenu(menu);
    Menu.setApplicationMenu(
      menu.items.length > 0 ? Menu.buildFromTemplate([{ label: 'svc vault', submenu: menu }]) : null,
    );
  }

  registerIpcHandlers(
    ipcMain,
    desktopApiHandlers({
      session: vaultSession,
      recent: new RecentVaults(join(userData, 'recent-vaults.json')),
      remembered: new RememberedKeys(join(userData, 'remembered-keys.json'), safeStorage),
      dialogs: fileDialogs(dialog, window),
      showConsole: async (consoleUrl) => {
        origins.setServer(consoleUrl);
        refreshMenu();
        await window.loadURL(consoleUrl);
      },
      now: () => new Date(),
    }),
    origins,
  );

  window.on('close', (event) => {
    const action = onWindowClose(state(), quitting);
    if (action === 'close') return;
    event.preventDefault();
    if (action === 'hide') {
      window.hide();
      return;
    }
    quitting = true;
    void vaultSession.lock().finally(() => {
      window.destroy();
      app.quit();
    });
  });
  app.on('before-quit', (event) => {
    if (vaultSession.current === null) return;
    // The vault closes cleanly (snapshot, lock released) before the process ends.
    event.preventDefault();
    quitting = true;
    void vaultSession.lock().finally(() => app.quit());
  });
  app.on('window-all-closed', () => app.quit());

  refreshMenu();
  await showStartScreen();
  return { vaultSession, window };
}
