import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * The most the entry script may weigh: what every screen waits for before it draws. Screens,
 * CodeMirror and the charts are loaded on demand (lazy imports), so the entry holds React, the
 * router, react-query and the shell; a build whose entry outgrows this fails.
 */
export const ENTRY_MAX_BYTES = 500 * 1024;

function entryBudget(): Plugin {
  return {
    name: 'svc-entry-budget',
    apply: 'build',
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type === 'chunk' && chunk.isEntry && chunk.code.length > ENTRY_MAX_BYTES) {
          this.error(
            `The console's entry script ${chunk.fileName} is ${Math.round(chunk.code.length / 1024)} KB, ` +
              `over its ${ENTRY_MAX_BYTES / 1024} KB budget: load the new weight lazily (import()).`,
          );
        }
      }
    },
  };
}

/**
 * The console is served by the vault at /console/ under a CSP without 'unsafe-inline': every script
 * and style must be an external, hashed file, so nothing is inlined (not even small assets).
 */
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: '/console/',
  plugins: [react(), entryBudget()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    cssCodeSplit: false,
    // CodeMirror's chunk is the largest; it is loaded only by screens with an editor.
    chunkSizeWarningLimit: 600,
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
