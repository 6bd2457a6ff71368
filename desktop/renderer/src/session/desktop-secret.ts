/**
 * What the desktop app's preload exposes to the console page (desktop/preload). Only the method the
 * console uses is declared: the page must work in a plain browser too, where there is no bridge.
 */
export interface SvcDesktopBridge {
  /** The one-time sign-in secret of the open vault: the first call gets it, later ones null. */
  readonly takeConsoleSignIn?: () => Promise<unknown>;
}

declare global {
  interface Window {
    readonly svcDesktop?: SvcDesktopBridge;
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
