import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { postgresAvailable } from './core/test-support/postgres.ts';
import { LongestFirstSequencer } from './vitest.sequencer.ts';

/** Service tests that run a second time on PostgreSQL (a fresh schema per fixture). */
const POSTGRES_SUITES = [
  'core/tokens/dedup.test.ts',
  'core/tokens/tokenize.test.ts',
  'core/tokens/search.test.ts',
  'core/tokens/read.test.ts',
  'core/tokens/update.test.ts',
  'core/tokens/expiry.test.ts',
  'core/tokens/access-scope.test.ts',
  'core/tenancy/tenants.test.ts',
  'core/tenancy/applications.test.ts',
  'core/audit/log-service.test.ts',
  'core/vault/postgres-vault.test.ts',
];

const postgres = await postgresAvailable();
if (!postgres) {
  console.warn(
    '\nPostgreSQL is not reachable at 127.0.0.1:5432 (or SVC_TEST_POSTGRES_URL): the PostgreSQL runs of the service tests are SKIPPED.\n',
  );
}

export default defineConfig({
  test: {
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker per core less one: a single worker on the 2-core machines the
    // suite runs on, with the other core mostly idle while it waits on child processes, a browser,
    // PostgreSQL or the disk. One worker per core. More oversubscribes the cores when the browser
    // and crash tests run together, and their step timeouts start to fail (`--maxWorkers` overrides).
    maxWorkers: availableParallelism(),
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'embedded',
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
          exclude: ['**/node_modules/**', '**/*.postgres.test.ts', 'core/vault/postgres-vault.test.ts'],
        },
      },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: POSTGRES_SUITES,
                env: { SVC_TEST_BACKEND: 'postgres' },
                // Each statement is a round trip to a server, not a call into memory.
                testTimeout: 120_000,
              },
            },
          ]
        : []),
    ],
  },
});
