import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { countRows, openTokenFixture } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';
import { deleteTokenRow } from '../tokens/token-store.ts';
import { sweepExpiredRows } from './expiry-sweep.ts';

describe('sweepExpiredRows', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture(); // the clock starts at 2026-01-01T00:00:00Z
  });
  afterEach(() => f.close());

  it('removes the expired rows soonest first, a batch per transaction under its lock, and no other', async () => {
    const expiries = ['03:00', '01:00', '04:00', '02:00', '06:00'];
    for (const [i, at] of expiries.entries()) {
      await f.services.tokens.create(f.app, {
        id: `token-${i}`,
        data: 'x',
        expires_at: `2026-01-01T${at}:00Z`,
      });
    }
    f.clock.set(new Date('2026-01-01T05:00:00Z'));
    const locks: string[] = [];
    const removed: string[] = [];
    const vault = {
      transaction: f.vault.transaction.bind(f.vault),
      clock: f.vault.clock,
      lockFor: async (name: string) => {
        locks.push(name);
      },
    };
    const total = await sweepExpiredRows(vault, {
      table: 'tokens',
      batch: 2,
      async remove(trx, row) {
        removed.push(row.id);
        await deleteTokenRow(trx, row);
      },
    });
    expect(total).toBe(4);
    expect(removed).toEqual(['token-1', 'token-3', 'token-0', 'token-2']);
    // Two full batches, then one that finds less than a batch and ends the sweep.
    expect(locks).toEqual(['expiry-sweep', 'expiry-sweep', 'expiry-sweep']);
    expect(await countRows(f, 'tokens')).toBe(1);
  });
});
