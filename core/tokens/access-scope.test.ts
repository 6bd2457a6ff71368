import { describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import type { Principal } from '../access/principal.ts';
import {
  readTransformOn,
  requireReveal,
  searchRevealsEverywhere,
  stricterTransform,
  transformOnExisting,
} from './access-scope.ts';
import { appIn, rule } from '../test-support/token-kit.ts';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return isVaultError(error) ? error.code : 'other';
  }
};

describe('searchRevealsEverywhere', () => {
  it.each<[string, Principal, boolean]>([
    ['operator', { kind: 'operator', tenantId: 't' }, true],
    ['a reveal rule on /', appIn('t', { rules: [rule(1, '/', ['token:search'], 'reveal')] }), true],
    ['reveal rules only', appIn('t', { rules: [rule(1, '/pii/', ['token:search'], 'reveal')] }), true],
    ['the plain permission (mask)', appIn('t', { permissions: ['token:search'] }), false],
    [
      'the plain permission behind a reveal rule on /',
      appIn('t', { permissions: ['token:search'], rules: [rule(1, '/', ['token:search'], 'reveal')] }),
      true,
    ],
    ['a redact rule', appIn('t', { rules: [rule(1, '/', ['token:search'], 'redact')] }), false],
    [
      'a mask rule anywhere',
      appIn('t', {
        rules: [rule(1, '/pii/high/', ['token:search'], 'reveal'), rule(2, '/', ['token:search'], 'mask')],
      }),
      false,
    ],
    [
      'reveal for read does not count',
      appIn('t', { permissions: ['token:search'], rules: [rule(1, '/', ['token:read'], 'reveal')] }),
      false,
    ],
  ])('%s → %s', (_name, principal, expected) => expect(searchRevealsEverywhere(principal)).toBe(expected));
});

describe('acting on an existing token', () => {
  const pciReader = appIn('t', {
    rules: [rule(1, '/pci/', ['token:read'], 'redact'), rule(2, '/general/', ['token:update'], 'mask')],
  });

  it('is a 404 where the caller cannot read, a 403 where it can', () => {
    expect(codeOf(() => transformOnExisting(pciReader, 'token:read', '/bank/'))).toBe('NOT_FOUND');
    expect(codeOf(() => transformOnExisting(pciReader, 'token:update', '/bank/'))).toBe('NOT_FOUND');
    expect(codeOf(() => transformOnExisting(pciReader, 'token:update', '/pci/high/'))).toBe('FORBIDDEN');
    expect(transformOnExisting(pciReader, 'token:update', '/general/x/')).toBe('mask');
    expect(readTransformOn(pciReader, '/general/')).toBeNull();
  });

  it('needs reveal for read on every container to change how data is derived', () => {
    const revealsPci = appIn('t', { rules: [rule(1, '/pci/', ['token:read'], 'reveal')] });
    expect(codeOf(() => requireReveal(revealsPci, [], ['/bank/']))).toBe('ok');
    expect(codeOf(() => requireReveal(revealsPci, ['mask'], ['/pci/high/']))).toBe('ok');
    expect(codeOf(() => requireReveal(revealsPci, ['containers'], ['/pci/', '/bank/']))).toBe('FORBIDDEN');
    expect(codeOf(() => requireReveal(pciReader, ['mask'], ['/pci/']))).toBe('FORBIDDEN');
  });

  it('shows the stricter of two transforms', () => {
    expect(stricterTransform('reveal', 'mask')).toBe('mask');
    expect(stricterTransform('mask', 'redact')).toBe('redact');
    expect(stricterTransform('reveal', 'reveal')).toBe('reveal');
  });
});
