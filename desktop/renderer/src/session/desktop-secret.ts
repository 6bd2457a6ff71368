import type { DesktopBridge } from '../../../bridge/desktop-bridge.ts';

/**
 * What the desktop app's preload exposes (desktop/preload), typed by the one channel map of the
 * bridge. Partial: the page must work in a plain browser too, where there is no bridge, and the
 * console uses one method only.
 */
export type SvcDesktopBridge = Partial<DesktopBridge>;

declare global {
  interface Window {
    readonly svcDesktop?: Partial<DesktopBridge>;
  }
}

const SECRET = /^svco_[0-9A-Za-z]+$/;

/**
 * The sign-in secret the desktop app hands over (its window opens the console without a fragment).
 * Null in a browser, after the first call, or when the bridge refuses: the console then shows the
 * e-mail and password sign-in.
 */
export async function takeDesktopSecret(bridge: SvcDesktopBridge | undefined): Promise<string | null> {
  try {
    const secret = await bridge?.takeConsoleSignIn?.();
    return typeof secret === 'string' && SECRET.test(secret) ? secret : null;
  } catch {
    return null;
  }
}
