import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'core/**/*.test.ts',
      'server/**/*.test.ts',
      'cli/**/*.test.ts',
      'e2e/**/*.test.ts',
      'scripts/**/*.test.ts',
      'desktop/renderer/src/**/*.test.ts',
      'desktop/renderer/src/**/*.test.tsx',
      'desktop/main/**/*.test.ts',
      'desktop/preload/**/*.test.ts',
    ],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
