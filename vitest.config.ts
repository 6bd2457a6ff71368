import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { postgresAvailable } from './core/test-support/postgres.ts';
import { LongestFirstSequencer } from './vitest.sequencer.ts';

/** Service tests that run a second time on PostgreSQL (an empty schema per fixture). */
const POSTGRES_CORE_SUITES = [
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
  'core/audit/retention.test.ts',
  'core/detokenize/detokenizer.test.ts',
  'core/identity/auth.test.ts',
  'core/mail/mailer.test.ts',
  'core/tenancy/invitations.test.ts',
  'core/tenancy/members.test.ts',
  'core/tenancy/usage-report.test.ts',
  'core/vault/postgres-vault.test.ts',
  'core/proxies/proxy-secrets.test.ts',
  'core/reactors/reactor-secrets.test.ts',
];

/**
 * Server tests that run a second time on PostgreSQL, through the same fixture
 * (server/test-support/test-server.ts): every route that reads or writes rows.
 */
const POSTGRES_SERVER_SUITES = [
  'server/routes/tokens.test.ts',
  'server/routes/detokenize.test.ts',
  'server/routes/tokens-list-query.test.ts',
  'server/routes/tokens-privacy.test.ts',
  'server/routes/token-associations.test.ts',
  'server/routes/tokens-leaks.test.ts',
  'server/routes/tokens-secrets.test.ts',
  'server/routes/tokens-listen.test.ts',
  'server/routes/tenants.test.ts',
  'server/routes/applications.test.ts',
  'server/routes/application-templates.test.ts',
  'server/routes/applications-expiring.test.ts',
  'server/routes/invitations.test.ts',
  'server/routes/invitation-accept.test.ts',
  'server/routes/members.test.ts',
  'server/routes/usage-reports.test.ts',
  'server/routes/auth.test.ts',
  'server/access.test.ts',
  'server/routes/permissions.test.ts',
  'server/routes/console.test.ts',
  'server/routes/logs.test.ts',
  'server/routes/log-verify.test.ts',
  'server/routes/reactors.test.ts',
  'server/routes/proxies.test.ts',
  'server/routes/proxy-invoke.test.ts',
];

/** Server tests that stay on the embedded file, each with why. */
const EMBEDDED_ONLY_SERVER_SUITES: Record<string, string> = {
  'server/authorization-matrix.test.ts':
    'who may call what is decided above storage, the same on either backend; the routes it walks run on PostgreSQL in the files above',
  'server/listen.test.ts': 'the vault lock file and the serving URL it records',
  'server/operator-credential.test.ts': 'the operator credential file beside the vault file',
  'server/routes/health.test.ts': 'a failing journal write (file layer faults) and the health it reports',
  'server/rate-limit.test.ts': 'an in-memory limiter: no storage path of its own',
  'server/http/logging.test.ts': 'request log lines: no storage path',
  'server/secrets-in-logs.test.ts': 'log redaction: no storage path beyond the token routes run above',
  'server/http/trace-id.test.ts': 'a response header: no storage path',
  'server/errors.test.ts': 'problem+json rendering of test-only routes: no storage path',
  'server/request-handling.test.ts': 'body limits and parsing, refused before storage',
  'server/http/host-check.test.ts': 'the Host header check, before any route',
  'server/routes/openapi.test.ts': 'the published schema: no storage path',
  'server/expression-attacks.test.ts': 'refused by counted expression limits before storage',
  'server/http/body-parsers.test.ts': 'body parsing, before any route',
  'server/http/pagination.test.ts': 'query parsing of page parameters: no storage path',
  'server/http/validation.test.ts': 'request checks and response serializers: no storage path',
  'server/http/expression-budget.test.ts': 'the expression budget, counted in memory',
  'server/routes/reactors-hostile.test.ts':
    'hostile code stopped by the sandbox, above storage; the reactor routes run on PostgreSQL in reactors.test.ts',
};

/** Every server test file is in one list or the other, so a new one is placed on purpose. */
function checkServerSuitesPlaced(): void {
  const placed = new Set([...POSTGRES_SERVER_SUITES, ...Object.keys(EMBEDDED_ONLY_SERVER_SUITES)]);
  const files = readdirSync(new URL('./server', import.meta.url), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `server/${f.split('\\').join('/')}`);
  const unplaced = files.filter((f) => !placed.has(f));
  if (unplaced.length > 0) {
    throw new Error(
      `vitest.config.ts: place ${unplaced.join(', ')} in POSTGRES_SERVER_SUITES or EMBEDDED_ONLY_SERVER_SUITES.`,
    );
  }
}
checkServerSuitesPlaced();

const POSTGRES_SUITES = [...POSTGRES_CORE_SUITES, ...POSTGRES_SERVER_SUITES];

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
    // Compiled once per run: the worker threads' entries (no test boots the TypeScript loader in a
    // thread) and the `svc` bundle the CLI processes run (as after `npm run build`); and the folder
    // of the new vaults whose files the test vaults copy; and the test database compacted.
    globalSetup: [
      'core/test-support/compiled-workers-setup.ts',
      'cli/test-support/cli-bundle-setup.ts',
      'core/test-support/new-vaults-setup.ts',
      'core/test-support/postgres-catalogue-setup.ts',
    ],
    // One process per worker for all the files it runs, not one per file: a fresh fork re-imports
    // the server, sql.js, libsodium and QuickJS for every file and recompiles the routes'
    // validators, which costs more than most files' tests. Nothing here depends on a fresh module
    // graph: no file mocks modules, the fake timers and spies are restored after each test, and
    // the process-wide caches (server/http/validation.ts) are meant to be shared. Vitest still
    // gives each project and each test environment (jsdom) workers of their own.
    isolate: false,
    // One worker per core. The suite is bound by its CPU now, and every worker more costs CPU of its
    // own: on the 2-core machine (`scripts/suite-cpu/machine-cpu.sh npx vitest run`, one run each,
    // back to back) four workers took 231 s and 452 CPU s, three 214 s and 407, two 202 s and 353
    // (each worker imports and transforms the module graph again, and processes competing for two
    // cores cost every one of them more CPU for the same work). Two per core was faster when most
    // of a file was waiting on children, the browser, PostgreSQL or fsync; those waits have since
    // been cut. Vitest's default, a core less, would leave a 2-core machine one worker.
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
                setupFiles: ['core/test-support/postgres-setup.ts'],
                // Each statement is a round trip to a server, not a call into memory.
                testTimeout: 120_000,
              },
            },
          ]
        : []),
    ],
  },
});
