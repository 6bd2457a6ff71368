import { describe, expect, it } from 'vitest';
import { countTurnsWhile } from '../test-support/event-loop.ts';
import { PasswordWorkers } from './password-workers.ts';
import { RateLimitedError } from '../errors/rate-limited.ts';

// Storage plays no part here: this file has no PostgreSQL rerun.
describe('password workers', () => {
  it('hashes off the event loop: the loop keeps turning while passwords are checked', async () => {
    const workers = new PasswordWorkers({ size: 1, maxQueue: 2 });
    // Long enough for a blocked loop to show; the product's limits would only cost more.
    const heavy = { op: 'hash', password: 'x', opsLimit: 2, memLimit: 32 * 1024 * 1024 } as const;
    const first = await workers.run(heavy);
    // Hashing on the loop would allow at most a turn between hashes; in a worker it turns freely.
    const { turns } = await countTurnsWhile(async () => {
      const jobs = [workers.run(heavy), workers.run(heavy), workers.run(heavy)];
      // One running, two waiting: the queue is full, so the next caller is told to retry.
      await expect(workers.run(heavy)).rejects.toBeInstanceOf(RateLimitedError);
      const hashes = await Promise.all(jobs);
      expect(hashes.every((h) => typeof h === 'string' && h.startsWith('$argon2id$'))).toBe(true);
    });
    expect(turns).toBeGreaterThan(20);
    expect(await workers.run({ op: 'verify', stored: String(first), password: 'x' })).toBe(true);
    expect(await workers.run({ op: 'verify', stored: 'not a hash', password: 'x' })).toBe(false);
  });
});
