import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { DESKTOP_API, type DesktopBridge } from '../../bridge/desktop-bridge.ts';
import '../../renderer/src/styles.css';
import './start-screen.css';
import { StartScreen } from './start-screen';

declare global {
  interface Window {
    /** The preload's bridge (desktop/preload/preload.cts), typed by the one channel map. */
    readonly svcDesktop?: Partial<DesktopBridge>;
  }
}

/** The whole bridge, as the app's preload exposes it; anything less is no desktop app. */
function wholeBridge(bridge: Partial<DesktopBridge> | undefined): DesktopBridge | null {
  if (bridge === undefined) return null;
  const methods = Object.keys(DESKTOP_API) as (keyof DesktopBridge)[];
  return methods.every((m) => typeof bridge[m] === 'function') ? (bridge as DesktopBridge) : null;
}

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');
const bridge = wholeBridge(window.svcDesktop);
createRoot(root).render(
  <StrictMode>
    {bridge === null ? (
      <p className="problem" role="alert">
        This page is the desktop app&apos;s start screen: open it in svc vault.
      </p>
    ) : (
      <StartScreen bridge={bridge} />
    )}
  </StrictMode>,
);
