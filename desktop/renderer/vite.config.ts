import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The console is served by the vault at /console/ under a CSP without 'unsafe-inline': every script
 * and style must be an external, hashed file, so nothing is inlined (not even small assets).
 */
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    cssCodeSplit: false,
  },
  server: {
    // `npm run dev:console` against a vault served on 127.0.0.1:8080 (svc start).
    proxy: Object.fromEntries(
      [
        '/auth',
        '/tenants',
        '/applications',
        '/permissions',
        '/logs',
        '/tokens',
        '/tokenize',
        '/console/sessions',
        '/console/session',
        '/console/token-access',
        '/console/tokens',
      ].map((path) => [path, 'http://127.0.0.1:8080']),
    ),
  },
});
