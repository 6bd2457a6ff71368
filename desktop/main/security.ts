/**
 * The window's security settings and guards (Electron's security checklist): isolated, sandboxed
 * renderers without Node, navigation and new windows kept to the app's own pages, every
 * permission request refused, a CSP on every page.
 */

/** The start screen is a local page: its own files only, no network at all. */
export const START_SCREEN_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface SecureWebPreferences {
  readonly preload: string;
  readonly contextIsolation: true;
  readonly sandbox: true;
  readonly nodeIntegration: false;
  readonly nodeIntegrationInWorker: false;
  readonly nodeIntegrationInSubFrames: false;
  readonly webSecurity: true;
  readonly allowRunningInsecureContent: false;
  readonly webviewTag: false;
  readonly navigateOnDragDrop: false;
  readonly safeDialogs: true;
  readonly devTools: boolean;
}

export interface MainWindowOptions {
  readonly width: number;
  readonly height: number;
  readonly minWidth: number;
  readonly minHeight: number;
  readonly title: string;
  readonly show: false;
  readonly icon?: string;
  readonly webPreferences: SecureWebPreferences;
}

export function mainWindowOptions(input: {
  readonly preload: string;
  /** Packaged builds have no devtools. */
  readonly packaged: boolean;
  readonly icon?: string;
}): MainWindowOptions {
  return {
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 520,
    title: 'svc vault',
    // Shown on ready-to-show, so no blank frame flashes.
    show: false,
    ...(input.icon ? { icon: input.icon } : {}),
    webPreferences: {
      preload: input.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      devTools: !input.packaged,
    },
  };
}

/**
 * The pages the window may show: the start screen (one local file) and, while a vault is open, its
 * server's origin. Anything else is foreign.
 */
export class AppOrigins {
  private serverOrigin: string | null = null;

  constructor(private readonly startScreenUrl: string) {}

  setServer(url: string | null): void {
    this.serverOrigin = url === null ? null : new URL(url).origin;
  }

  isStartScreen(url: string): boolean {
    const parsed = parse(url);
    return (
      parsed !== null &&
      parsed.protocol === 'file:' &&
      stripHash(parsed) === stripHash(new URL(this.startScreenUrl))
    );
  }

  isServer(url: string): boolean {
    const parsed = parse(url);
    return parsed !== null && this.serverOrigin !== null && parsed.origin === this.serverOrigin;
  }

  isAllowed(url: string): boolean {
    return this.isStartScreen(url) || this.isServer(url);
  }
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}

function stripHash(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** Only web links leave the app, and only to the system browser. */
export function isExternalWebLink(url: string): boolean {
  const parsed = parse(url);
  return parsed !== null && (parsed.protocol === 'https:' || parsed.protocol === 'http:');
}

/** The parts of Electron's WebContents the guards use. */
export interface GuardedContents {
  on(
    event: 'will-navigate' | 'will-redirect' | 'will-frame-navigate',
    listener: (event: { preventDefault(): void; url: string }) => void,
  ): void;
  on(event: 'will-attach-webview', listener: (event: { preventDefault(): void }) => void): void;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

/**
 * Navigation stays on the app's pages; window.open never opens a window (a web link goes to the
 * system browser instead); no <webview> is ever attached.
 */
export function guardContents(
  contents: GuardedContents,
  origins: AppOrigins,
  openExternal: (url: string) => void,
): void {
  const stayHome = (event: { preventDefault(): void; url: string }) => {
    if (origins.isAllowed(event.url)) return;
    event.preventDefault();
    if (isExternalWebLink(event.url)) openExternal(event.url);
  };
  contents.on('will-navigate', stayHome);
  contents.on('will-redirect', stayHome);
  // Frames too: a subframe (an iframe the page did not expect) stays on the app's pages as well.
  contents.on('will-frame-navigate', stayHome);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (!origins.isAllowed(url) && isExternalWebLink(url)) openExternal(url);
    return { action: 'deny' };
  });
}

/** The parts of Electron's Session the guards use. */
export interface GuardedSession {
  setPermissionRequestHandler(
    handler: (contents: unknown, permission: string, callback: (granted: boolean) => void) => void,
  ): void;
  setPermissionCheckHandler(handler: () => boolean): void;
  webRequest: {
    onHeadersReceived(
      listener: (
        details: { url: string; responseHeaders?: Record<string, string[]> },
        callback: (response: { responseHeaders?: Record<string, string[]> }) => void,
      ) => void,
    ): void;
  };
}

/** Every permission (camera, notifications, clipboard reads…) is refused; the app needs none. */
export function denyPermissions(session: GuardedSession): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

/**
 * A CSP on every response the window loads: the server's own pages bring theirs (kept), anything
 * without one gets the strict start-screen policy.
 */
export function enforceCsp(session: GuardedSession): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: withCsp(details.responseHeaders ?? {}) });
  });
}

export function withCsp(headers: Record<string, string[]>): Record<string, string[]> {
  const has = Object.keys(headers).some((name) => name.toLowerCase() === 'content-security-policy');
  return has ? headers : { ...headers, 'Content-Security-Policy': [START_SCREEN_CSP] };
}
