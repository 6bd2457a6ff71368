import { describe, expect, it } from 'vitest';
import { isVaultError } from '../core/errors/catalogue.ts';
import { confirmOrCancel, requireYes } from './ask.ts';
import { makeTestIo } from './test-support/harness.ts';

describe('requireYes', () => {
  it('refuses a script without --yes with a usage error naming the action', () => {
    const { deps } = makeTestIo({ isTTY: false });
    expect(() => requireYes(deps, false, 'deleting a token')).toThrow(
      'deleting a token needs confirmation; pass --yes',
    );
    try {
      requireYes(deps, false, 'deleting a token');
    } catch (error) {
      expect(isVaultError(error, 'USAGE')).toBe(true);
    }
  });

  it('lets --yes through anywhere, and a terminal through to be asked', () => {
    expect(() => requireYes(makeTestIo({ isTTY: false }).deps, true, 'deleting a token')).not.toThrow();
    expect(() => requireYes(makeTestIo({ isTTY: true }).deps, false, 'deleting a token')).not.toThrow();
  });
});

describe('confirmOrCancel', () => {
  it('asks nothing under --yes', async () => {
    const io = makeTestIo({ isTTY: true });
    await confirmOrCancel(io.deps, true, 'Delete it?', 'it was left as it is');
    expect(io.asked).toEqual([]);
  });

  it('goes on after a yes', async () => {
    const io = makeTestIo({ isTTY: true, answers: [true] });
    await confirmOrCancel(io.deps, false, 'Delete it?', 'it was left as it is');
    expect(io.asked).toEqual(['Delete it?']);
  });

  it('cancels after a no, saying nothing changed', async () => {
    const io = makeTestIo({ isTTY: true, answers: [false] });
    const refused = confirmOrCancel(io.deps, false, 'Delete it?', 'it was left as it is');
    await expect(refused).rejects.toThrow('cancelled; it was left as it is');
    await refused.catch((error: unknown) => expect(isVaultError(error, 'CANCELLED')).toBe(true));
  });
});
