import { describe, expect, it } from 'vitest';
import { VaultError, isVaultError } from '../../errors/catalogue.ts';
import { isDiskFull } from './storage-fs.ts';
import { errorOfOutcome, failureOutcome } from './snapshot-thread.ts';

/** The error as the vault's thread sees it after the worker reported it. */
function acrossThreads(err: unknown): Error {
  const outcome = failureOutcome(err);
  if (outcome.ok) throw new Error('a failure reads as a success');
  return errorOfOutcome(structuredClone(outcome));
}

describe('snapshot worker outcomes', () => {
  it('keeps a full disk recognisable, so the caller explains it as one', () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const seen = acrossThreads(full);
    expect(isDiskFull(seen)).toBe(true);
    expect(seen.message).toBe(full.message);
  });

  it('keeps a VaultError its code and detail', () => {
    const seen = acrossThreads(new VaultError('VAULT_CORRUPT', 'The journal x is damaged.'));
    expect(isVaultError(seen, 'VAULT_CORRUPT')).toBe(true);
    expect(seen.message).toBe('The journal x is damaged.');
  });

  it('reports anything else as a plain error with its message', () => {
    const seen = acrossThreads(new TypeError('boom'));
    expect(isVaultError(seen)).toBe(false);
    expect(seen.message).toBe('boom');
  });
});
