import { afterEach, describe, expect, it, vi } from 'vitest';
import { missingPostgresOutcome, reportMissingPostgres } from './postgres-required.ts';

describe('a PostgreSQL test file without a database', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it.each([
    [{ CI: 'true' }, 'fail'],
    [{ CI: 'TRUE' }, 'fail'],
    [{ CI: '1' }, 'fail'],
    [{ CI: ' true ' }, 'fail'],
    [{}, 'skip'],
    [{ CI: '' }, 'skip'],
    [{ CI: 'false' }, 'skip'],
    [{ CI: '0' }, 'skip'],
  ] as const)('with %o it is to %s', (env, outcome) => {
    expect(missingPostgresOutcome(env)).toBe(outcome);
  });

  it('fails in CI: the report throws, naming the file, and prints no skip notice', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(() => reportMissingPostgres('server/routes/tokens.test.ts on PostgreSQL', { CI: 'true' })).toThrow(
      /server\/routes\/tokens\.test\.ts on PostgreSQL FAILS instead of skipping/,
    );
    expect(warn).not.toHaveBeenCalled();
  });

  it('skips elsewhere: the report says what was left out and returns', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(() => reportMissingPostgres('e2e/postgres-servers.test.ts', {})).not.toThrow();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('e2e/postgres-servers.test.ts is SKIPPED'));
  });
});
