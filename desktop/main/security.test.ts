import { describe, expect, it, vi } from 'vitest';
import {
  AppOrigins,
  START_SCREEN_CSP,
  denyPermissions,
  enforceCsp,
  guardContents,
  mainWindowOptions,
  withCsp,
  type GuardedContents,
  type GuardedSession,
} from './security.ts';

const START = 'file:///opt/svc/desktop/start-screen/dist/index.html';

describe('mainWindowOptions', () => {
  it('isolates and sandboxes the renderer, without Node, webviews or insecure content', () => {
    const options = mainWindowOptions({ preload: '/app/preload.cjs', packaged: true });
    expect(options.webPreferences).toEqual({
      preload: '/app/preload.cjs',
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
      devTools: false,
    });
    expect(options.show).toBe(false);
  });

  it('has devtools only in development builds', () => {
    expect(mainWindowOptions({ preload: '/p', packaged: false }).webPreferences.devTools).toBe(true);
  });
});

describe('AppOrigins', () => {
  it('allows the start screen file and the open vault server origin, nothing else', () => {
    const origins = new AppOrigins(START);
    expect(origins.isAllowed(START)).toBe(true);
    expect(origins.isAllowed(`${START}#unlock`)).toBe(true);
    expect(origins.isAllowed('file:///etc/passwd')).toBe(false);
    expect(origins.isAllowed('http://127.0.0.1:5000/console/')).toBe(false);
    origins.setServer('http://127.0.0.1:5000');
    expect(origins.isServer('http://127.0.0.1:5000/console/#x')).toBe(true);
    expect(origins.isAllowed('http://127.0.0.1:5001/console/')).toBe(false);
    expect(origins.isAllowed('http://localhost:5000/console/')).toBe(false);
    expect(origins.isAllowed('https://127.0.0.1:5000/')).toBe(false);
    expect(origins.isAllowed('not a url')).toBe(false);
    origins.setServer(null);
    expect(origins.isAllowed('http://127.0.0.1:5000/console/')).toBe(false);
  });
});

function fakeContents() {
  const listeners = new Map<string, (event: { preventDefault(): void; url: string }) => void>();
  let openHandler: ((details: { url: string }) => { action: 'deny' }) | undefined;
  const contents: GuardedContents = {
    on: (event: string, listener: (event: { preventDefault(): void; url: string }) => void) => {
      listeners.set(event, listener);
    },
    setWindowOpenHandler: (handler) => {
      openHandler = handler;
    },
  } as GuardedContents;
  const fire = (name: string, url: string) => {
    const event = { url, preventDefault: vi.fn() };
    listeners.get(name)!(event);
    return event.preventDefault.mock.calls.length > 0;
  };
  return { contents, fire, open: (url: string) => openHandler!({ url }) };
}

describe('guardContents', () => {
  const origins = new AppOrigins(START);
  origins.setServer('http://127.0.0.1:5000');

  it('lets the window navigate to its own pages only; foreign web links go to the system browser', () => {
    const external = vi.fn();
    const { contents, fire } = fakeContents();
    guardContents(contents, origins, external);
    for (const event of ['will-navigate', 'will-redirect', 'will-frame-navigate']) {
      expect(fire(event, 'http://127.0.0.1:5000/console/')).toBe(false);
      expect(fire(event, START)).toBe(false);
      expect(fire(event, 'https://evil.example/')).toBe(true);
      expect(fire(event, 'file:///home/me/.ssh/id_rsa')).toBe(true);
      expect(fire(event, 'javascript:alert(1)')).toBe(true);
    }
    expect(external.mock.calls).toEqual(Array(3).fill(['https://evil.example/']));
  });

  it('never opens a window; a foreign web link opens in the system browser', () => {
    const external = vi.fn();
    const { contents, open } = fakeContents();
    guardContents(contents, origins, external);
    expect(open('https://docs.example/')).toEqual({ action: 'deny' });
    expect(open('http://127.0.0.1:5000/console/')).toEqual({ action: 'deny' });
    expect(open('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(external.mock.calls).toEqual([['https://docs.example/']]);
  });

  it('refuses every webview', () => {
    const { contents, fire } = fakeContents();
    guardContents(contents, origins, vi.fn());
    expect(fire('will-attach-webview', START)).toBe(true);
  });
});

describe('session guards', () => {
  function fakeSession() {
    const state: {
      request?: Parameters<GuardedSession['setPermissionRequestHandler']>[0];
      check?: () => boolean;
      headers?: Parameters<GuardedSession['webRequest']['onHeadersReceived']>[0];
    } = {};
    const session: GuardedSession = {
      setPermissionRequestHandler: (h) => (state.request = h),
      setPermissionCheckHandler: (h) => (state.check = h),
      webRequest: { onHeadersReceived: (l) => (state.headers = l) },
    };
    return { session, state };
  }

  it('denies every permission request and check', () => {
    const { session, state } = fakeSession();
    denyPermissions(session);
    for (const permission of ['media', 'notifications', 'clipboard-read', 'geolocation', 'openExternal']) {
      const callback = vi.fn();
      state.request!({}, permission, callback);
      expect(callback).toHaveBeenCalledWith(false);
    }
    expect(state.check!()).toBe(false);
  });

  it('puts a CSP on every page that brings none, and keeps the one a page brings', () => {
    const { session, state } = fakeSession();
    enforceCsp(session);
    const callback = vi.fn();
    state.headers!({ url: START }, callback);
    expect(callback).toHaveBeenCalledWith({
      responseHeaders: { 'Content-Security-Policy': [START_SCREEN_CSP] },
    });
    const own = { 'content-security-policy': ["default-src 'self'"] };
    expect(withCsp(own)).toBe(own);
    expect(START_SCREEN_CSP).toContain("default-src 'none'");
    expect(START_SCREEN_CSP).not.toContain('unsafe');
  });
});
