import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../sandbox/index.ts';
import { compiledEntryOptions } from './start-worker.ts';

/**
 * The test run starts worker threads from entries compiled in advance (SVC_TEST_COMPILED_WORKERS);
 * `svc` run from its TypeScript sources (no fresh bundle) and the benchmarks start them through the
 * tsx bootstrap instead. This keeps that path exercised.
 */
describe('startWorker from TypeScript sources', () => {
  const compiled = process.env.SVC_TEST_COMPILED_WORKERS;
  afterEach(() => {
    if (compiled === undefined) delete process.env.SVC_TEST_COMPILED_WORKERS;
    else process.env.SVC_TEST_COMPILED_WORKERS = compiled;
  });

  it('boots the TypeScript loader inside the thread and runs the entry', async () => {
    delete process.env.SVC_TEST_COMPILED_WORKERS;
    const sandbox = createSandbox({ workers: 1, limits: { timeoutMs: 20_000 } });
    try {
      const outcome = await sandbox.runModule({
        tenant: 'tenant-a',
        code: 'module.exports = async (req) => ({ raw: req.args.n + 1 });',
        args: { n: 41 },
        configuration: {},
        svc: null,
      });
      expect(outcome).toEqual({ kind: 'ok', output: { raw: 42 } });
    } finally {
      await sandbox.close();
    }
  }, 60_000);
});

describe('compiledEntryOptions', () => {
  it("starts a compiled entry without the parent's Node options, keeping the caller's own", () => {
    const resourceLimits = { maxOldGenerationSizeMb: 64 };
    expect(compiledEntryOptions({ resourceLimits })).toEqual({ execArgv: [], resourceLimits });
    expect(compiledEntryOptions({ execArgv: ['--no-warnings'] })).toEqual({ execArgv: ['--no-warnings'] });
  });
});
