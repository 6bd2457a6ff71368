import { describe, expect, it } from 'vitest';
import { unsyncedFs } from '../../test-support/unsynced-fs.ts';
import { codeOf } from '../../test-support/services-fixture.ts';
import { createTempVault } from '../../test-support/temp-vault.ts';
import type { TempVault } from '../../test-support/temp-vault.ts';
import { GatedFs } from './test-support/gated-fs.ts';
import { faultyFs } from './test-support/faulty-fs.ts';
import type { Fault } from './test-support/faulty-fs.ts';

const JOURNAL = 'vault.journal';
const MARK = 'vault.ack';

/** A vault whose journal and mark writes wait for the test, and fail when `fault` says so. */
async function gatedVault(): Promise<{ temp: TempVault; gate: GatedFs; fail: (f: Fault | null) => void }> {
  let fault: Fault | null = null;
  const gate = new GatedFs(faultyFs(() => fault, unsyncedFs));
  const temp = await createTempVault({ fs: gate.fs });
  gate.hold(JOURNAL, MARK);
  return { temp, gate, fail: (f) => (fault = f) };
}

const insert = (temp: TempVault, key: string) =>
  temp.vault.transaction(async (trx) => {
    await trx.insertInto('vault_meta').values({ key, value: 'v' }).execute();
  });

/**
 * Two commits in flight at once: the first one's record written and its mark held, the second
 * one's record being written (held), that is, written while the first one's mark is.
 */
async function twoCommitsInFlight(
  temp: TempVault,
  gate: GatedFs,
): Promise<{ first: Promise<void>; second: Promise<void> }> {
  const first = insert(temp, 'k1');
  await gate.until(JOURNAL, 1);
  const second = insert(temp, 'k2');
  gate.release(JOURNAL);
  await gate.until(MARK, 1);
  await gate.until(JOURNAL, 1);
  return { first, second };
}

describe('the journal writes a record while the previous one is acknowledged', () => {
  it('answers in order, each after the mark covering its record', async () => {
    const { temp, gate } = await gatedVault();
    try {
      const answered: string[] = [];
      const commits = await twoCommitsInFlight(temp, gate);
      const first = commits.first.then(() => answered.push('k1'));
      const second = commits.second.then(() => answered.push('k2'));
      gate.release(JOURNAL);
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(answered).toEqual([]);
      gate.release(MARK);
      await first;
      await gate.until(MARK, 1);
      expect(answered).toEqual(['k1']);
      gate.release(MARK);
      await second;
      expect(answered).toEqual(['k1', 'k2']);
    } finally {
      await temp.dispose();
    }
  });

  it('a failed mark fails the commit written after it, and the vault refuses writes', async () => {
    const { temp, gate, fail } = await gatedVault();
    try {
      const { first, second } = await twoCommitsInFlight(temp, gate);
      fail((op, path) => (op === 'write' && path.endsWith(MARK) ? 'EIO' : null));
      gate.release(MARK);
      expect(await codeOf(first)).toBe('VAULT_FAILED');
      gate.release(JOURNAL);
      expect(await codeOf(second)).toBe('VAULT_FAILED');
      expect(temp.vault.failure).not.toBeNull();
      expect(await codeOf(insert(temp, 'k3'))).toBe('VAULT_FAILED');
    } finally {
      await temp.dispose();
    }
  });

  it('a failed record write fails it and every later one, not the earlier one being acknowledged', async () => {
    const { temp, gate, fail } = await gatedVault();
    try {
      const { first, second } = await twoCommitsInFlight(temp, gate);
      fail((op, path) => (op === 'write' && path.endsWith(JOURNAL) ? 'EIO' : null));
      gate.release(JOURNAL);
      expect(await codeOf(second)).toBe('VAULT_FAILED');
      fail(null);
      gate.release(MARK);
      await first;
      expect(await codeOf(insert(temp, 'k3'))).toBe('VAULT_FAILED');
    } finally {
      await temp.dispose();
    }
  });
});
