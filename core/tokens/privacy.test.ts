import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fieldErrorsOf } from '../test-support/services-fixture.ts';
import { FieldErrorCollector } from '../validation/fields.ts';
import { containerWithPrivacy, privacyOf } from './privacy.ts';
import { countRows, openTokenFixture } from '../test-support/token-kit.ts';
import type { TokenFixture } from '../test-support/token-kit.ts';

describe('privacyOf', () => {
  it.each([
    ['/pci/high/', 'pci', 'high'],
    ['/general/high/', 'general', 'high'],
    ['/bank/low/', 'bank', 'low'],
    ['/pii/moderate/', 'pii', 'moderate'],
    ['/pci/high/shop-1/', 'pci', 'high'],
    ['/pci/', 'pci', null],
    ['/pci/secret/', 'pci', null],
    ['/', null, null],
    ['/shop-1/high/', null, null],
    ['/abcdefghijklmnopqrstuvwxyz/high/', null, null],
  ])('%s → %s/%s/mask', (container, classification, impact) => {
    expect(privacyOf(container)).toEqual({
      classification,
      impact_level: impact,
      restriction_policy: 'mask',
    });
  });
});

describe('containerWithPrivacy', () => {
  const resolve = (privacy: unknown, containers: unknown, checked: string) => {
    const errors = new FieldErrorCollector();
    const container = containerWithPrivacy(errors, privacy, containers, checked);
    return { container, errors: errors.errors };
  };

  it('leaves the container alone without privacy', () => {
    expect(resolve(undefined, undefined, '/general/high/')).toEqual({
      container: '/general/high/',
      errors: {},
    });
    expect(resolve(null, ['/x/'], '/x/')).toEqual({ container: '/x/', errors: {} });
  });

  it('names the container from classification and impact level, the missing one from the default', () => {
    expect(
      resolve({ classification: 'pii', impact_level: 'low' }, undefined, '/general/high/').container,
    ).toBe('/pii/low/');
    expect(resolve({ classification: 'bank' }, undefined, '/general/high/').container).toBe('/bank/high/');
    expect(resolve({ impact_level: 'moderate' }, [], '/pci/high/').container).toBe('/pci/moderate/');
    expect(resolve({ restriction_policy: 'mask' }, undefined, '/pci/high/').container).toBe('/pci/high/');
    expect(resolve({ classification: null, impact_level: null }, undefined, '/pci/high/').container).toBe(
      '/pci/high/',
    );
  });

  it('accepts privacy that agrees with containers, and refuses a contradiction', () => {
    expect(resolve({ restriction_policy: 'mask' }, ['/general/high/'], '/general/high/').errors).toEqual({});
    expect(
      resolve({ classification: 'pci', impact_level: 'high' }, ['/pci/high/a/'], '/pci/high/a/').errors,
    ).toEqual({});
    const { errors } = resolve({ classification: 'pii', impact_level: 'high' }, ['/pci/high/'], '/pci/high/');
    expect(Object.keys(errors)).toEqual(['privacy.classification']);
    expect(Object.keys(resolve({ classification: 'pci' }, ['/custom/'], '/custom/').errors)).toEqual([
      'privacy.classification',
    ]);
  });

  it('refuses malformed privacy and the redact policy', () => {
    expect(Object.keys(resolve('pci', undefined, '/pci/high/').errors)).toEqual(['privacy']);
    expect(Object.keys(resolve({ level: 'high' }, undefined, '/pci/high/').errors)).toEqual(['privacy']);
    expect(Object.keys(resolve({ classification: 'p/c' }, undefined, '/pci/high/').errors)).toEqual([
      'privacy.classification',
    ]);
    expect(Object.keys(resolve({ impact_level: 'extreme' }, undefined, '/pci/high/').errors)).toEqual([
      'privacy.impact_level',
    ]);
    expect(Object.keys(resolve({ restriction_policy: 'redact' }, undefined, '/pci/high/').errors)).toEqual([
      'privacy.restriction_policy',
    ]);
  });
});

describe('privacy on tokens', () => {
  let f: TokenFixture;
  beforeEach(async () => {
    f = await openTokenFixture();
  });
  afterEach(() => f.close());

  it('is part of every view: create, get, list, search, tokenize, update', async () => {
    const { token } = await f.services.tokens.create(f.app, {
      type: 'social_security_number',
      data: '123-45-6789',
      privacy: { classification: 'pii', impact_level: 'moderate' },
    });
    const expected = { classification: 'pii', impact_level: 'moderate', restriction_policy: 'mask' };
    expect(token).toMatchObject({ containers: ['/pii/moderate/'], privacy: expected });
    expect((await f.services.tokens.get(f.app, token.id)).privacy).toEqual(expected);
    expect((await f.services.tokens.list(f.app, {}, { page: 1, size: 10 })).items[0]?.privacy).toEqual(
      expected,
    );
    const found = await f.services.tokens.search(f.app, { query: `id:"${token.id}"`, page: 1, size: 10 });
    expect(found.items[0]?.privacy).toEqual(expected);
    const tokenized = (await f.services.tokens.tokenize(f.app, { card: { type: 'token', data: 'x' } })) as {
      card: { privacy: unknown };
    };
    expect(tokenized.card.privacy).toEqual({
      classification: 'general',
      impact_level: 'high',
      restriction_policy: 'mask',
    });
    // Moving needs plaintext read access: the operator has it.
    const moved = await f.services.tokens.update(f.operator, token.id, { containers: ['/custom/'] });
    expect(moved.privacy).toEqual({
      classification: 'custom',
      impact_level: null,
      restriction_policy: 'mask',
    });
  });

  it('refuses a contradiction with containers and creates nothing', async () => {
    const errors = await fieldErrorsOf(
      f.services.tokens.create(f.app, {
        data: 'x',
        containers: ['/general/high/'],
        privacy: { classification: 'pci' },
      }),
    );
    expect(errors).toHaveProperty(['privacy.classification']);
    expect(await countRows(f, 'tokens')).toBe(0);
  });
});
