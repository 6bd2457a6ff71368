import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { ToastProvider } from './components/toast';
import { SessionProvider } from './session/session';
import { takeDesktopSecret } from './session/desktop-secret';
import { takeLinkSecret } from './session/link-secret';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    // A refused or invalid request will not succeed on its own: show its problem at once.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 5_000 },
  },
});

const root = document.getElementById('root');
if (root === null) throw new Error('index.html has no #root');

// A printed link carries the secret in its fragment; the desktop app's window has none and hands
// the secret over through its preload instead.
const fromLink = takeLinkSecret(window.location, window.history);
const secret = fromLink === null ? takeDesktopSecret(window.svcDesktop) : Promise.resolve(fromLink);

void secret.then((linkSecret) =>
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <ToastProvider>
          <SessionProvider restoreFromCookie={linkSecret === null}>
            <App linkSecret={linkSecret} />
          </SessionProvider>
        </ToastProvider>
      </QueryClientProvider>
    </StrictMode>,
  ),
);
