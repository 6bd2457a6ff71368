import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './vitest.sequencer.ts';

/** Server tests that stay on the embedded file, each with why. */
const EMBEDDED_ONLY_SERVER_SUITES: Record<string, string> = {
  'server/authorization-matrix.test.ts':
    'who may call what is decided above storage, the same on either backend; the routes it walks run on PostgreSQL in their own files',
  'server/listen.test.ts': 'the vault lock file and the serving URL it records',
  'server/headroom-watch.test.ts':
    "the embedded engine's size limit crossed; PostgreSQL's headroom (no limit) runs in routes/vault-headroom.postgres.test.ts",
  'server/operator-credential.test.ts': 'the operator credential file beside the vault file',
  'server/routes/health.test.ts': 'a failing journal write (file layer faults) and the health it reports',
  'server/rate-limit.test.ts': 'an in-memory limiter: no storage path of its own',
  'server/http/logging.test.ts': 'request log lines: no storage path',
  'server/http/log-redaction.test.ts': 'how log values are serialized: no storage path',
  'server/secrets-in-logs.test.ts': 'log redaction: no storage path beyond the token routes run above',
  'server/http/trace-id.test.ts': 'a response header: no storage path',
  'server/errors.test.ts': 'problem+json rendering of test-only routes: no storage path',
  'server/request-handling.test.ts': 'body limits and parsing, refused before storage',
  'server/http/host-check.test.ts': 'the Host header check, before any route',
  'server/routes/openapi.test.ts': 'the published schema: no storage path',
  'server/routes/api-docs.test.ts': 'the reference page and its files: no storage path',
  'server/expression-attacks.test.ts': 'refused by counted expression limits before storage',
  'server/http/body-parsers.test.ts': 'body parsing, before any route',
  'server/http/pagination.test.ts': 'query parsing of page parameters: no storage path',
  'server/http/validation.test.ts': 'request checks and response serializers: no storage path',
  'server/http/expression-budget.test.ts': 'the expression budget, counted in memory',
  'server/routes/reactors-hostile.test.ts':
    'hostile code stopped by the sandbox, above storage; the reactor routes run on PostgreSQL in reactors.test.ts',
  'server/routes/reactors-fairness.test.ts':
    'how tenants share the sandbox workers, above storage; the reactor routes run on PostgreSQL in reactors.test.ts',
};

/**
 * Every server test file runs on PostgreSQL too (a sibling `x.postgres.test.ts`, see
 * core/test-support/on-postgres.ts) or is listed above with why not, so a new one is placed on purpose.
 */
function checkServerSuitesPlaced(): void {
  const files = readdirSync(new URL('./server', import.meta.url), { recursive: true, encoding: 'utf8' })
    .map((f) => `server/${f.split('\\').join('/')}`)
    .filter((f) => f.endsWith('.test.ts'));
  const all = new Set(files);
  const unplaced = files.filter(
    (f) =>
      !f.endsWith('.postgres.test.ts') &&
      !all.has(f.replace(/\.test\.ts$/, '.postgres.test.ts')) &&
      !(f in EMBEDDED_ONLY_SERVER_SUITES),
  );
  if (unplaced.length > 0) {
    throw new Error(
      `vitest.config.ts: give ${unplaced.join(', ')} a sibling .postgres.test.ts or place it in EMBEDDED_ONLY_SERVER_SUITES.`,
    );
  }
}
checkServerSuitesPlaced();

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
    // gives each test environment (jsdom) workers of their own.
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
    // The service and server tests that touch storage run a second time on PostgreSQL from a sibling
    // `x.postgres.test.ts` each (core/test-support/on-postgres.ts), files of this same project: a
    // project of their own would need workers of its own, started when the embedded files end, and
    // its files' waits on the database would leave the cores idle at the end of the run.
    include: [
      'core/**/*.test.ts',
      'server/**/*.test.ts',
      'cli/**/*.test.ts',
      'client/**/*.test.ts',
      'e2e/**/*.test.ts',
      'scripts/**/*.test.ts',
      'bench/**/*.test.ts',
      'desktop/renderer/src/**/*.test.ts',
      'desktop/renderer/src/**/*.test.tsx',
      'desktop/main/**/*.test.ts',
      'desktop/preload/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**'],
  },
});
