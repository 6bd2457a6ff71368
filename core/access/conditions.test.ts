import { describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { transformFor } from './authorize.ts';
import { conditionsHold, reachOf } from './conditions.ts';
import type { Condition } from './conditions.ts';
import type { Principal } from './principal.ts';
import { decide, leastTransformOver, validateGrants } from './rules.ts';
import type { AccessRule, Grants } from './rules.ts';

const idIs = (value: string): Condition => ({ attribute: 'id', operator: 'equals', value });
const inContainer = (value: string): Condition => ({
  attribute: 'container',
  operator: 'starts_with',
  value,
});

const conditioned = (
  priority: number,
  conditions: Condition[],
  transform: AccessRule['transform'],
): AccessRule => ({
  description: '',
  priority,
  container: '',
  permissions: ['token:read'],
  transform,
  conditions,
});

const expiring = (rules: AccessRule[]): Principal => ({
  kind: 'application',
  tenantId: 't',
  applicationId: 'a',
  applicationType: 'expiring',
  permissions: [],
  rules,
});

describe('conditions', () => {
  it.each<[string, Condition[], { id?: string; container: string }, boolean]>([
    ['id equals: the named token', [idIs('tok-1')], { id: 'tok-1', container: '/a/' }, true],
    ['id equals: another token', [idIs('tok-1')], { id: 'tok-10', container: '/a/' }, false],
    ['id equals is case-sensitive', [idIs('Tok-1')], { id: 'tok-1', container: '/a/' }, false],
    ['no id known (create): an id condition fails closed', [idIs('tok-1')], { container: '/a/' }, false],
    ['container starts_with', [inContainer('/pci/')], { id: 'x', container: '/pci/high/' }, true],
    [
      'container equals',
      [{ attribute: 'container', operator: 'equals', value: '/pci/' }],
      { container: '/pci/high/' },
      false,
    ],
    ['all must hold (AND)', [idIs('x'), inContainer('/pci/')], { id: 'x', container: '/general/' }, false],
    ['AND, both hold', [idIs('x'), inContainer('/pci/')], { id: 'x', container: '/pci/' }, true],
    ['an empty list never matches', [], { id: 'x', container: '/' }, false],
  ])('%s', (_name, conditions, token, expected) => {
    expect(conditionsHold(conditions, token)).toBe(expected);
  });

  it('decides by conditions: the first matching rule by priority, no match denied', () => {
    const grants: Grants = {
      permissions: [],
      rules: [conditioned(2, [inContainer('/')], 'mask'), conditioned(1, [idIs('tok-1')], 'reveal')],
    };
    expect(decide(grants, 'token:read', { id: 'tok-1', container: '/a/' })).toEqual({
      allowed: true,
      transform: 'reveal',
    });
    expect(decide(grants, 'token:read', { id: 'tok-2', container: '/a/' })).toEqual({
      allowed: true,
      transform: 'mask',
    });
    expect(decide(grants, 'token:update', { id: 'tok-1', container: '/a/' })).toEqual({ allowed: false });
  });

  it('transformFor gives the conditioned transform only for the named token', () => {
    const key = expiring([conditioned(1, [idIs('tok-1')], 'reveal')]);
    expect(transformFor(key, 'token:read', { id: 'tok-1', container: '/pci/' })).toBe('reveal');
    for (const other of [{ id: 'tok-2', container: '/pci/' }, '/pci/']) {
      try {
        transformFor(key, 'token:read', other);
        expect.unreachable();
      } catch (error) {
        expect(isVaultError(error, 'FORBIDDEN')).toBe(true);
      }
    }
  });

  it('validates conditioned rules for expiring applications only', () => {
    expect(validateGrants('expiring', [], [conditioned(1, [idIs('t')], 'reveal')])).toEqual({});
    expect(Object.keys(validateGrants('expiring', [], [conditioned(1, [], 'reveal')]))).toContain(
      'rules[0].conditions',
    );
    const bad = validateGrants(
      'expiring',
      [],
      [
        conditioned(
          1,
          [{ attribute: 'type', operator: 'contains', value: '' } as unknown as Condition],
          'reveal',
        ),
      ],
    );
    expect(Object.keys(bad).sort()).toEqual([
      'rules[0].conditions[0].attribute',
      'rules[0].conditions[0].operator',
      'rules[0].conditions[0].value',
    ]);
    const withContainer = { ...conditioned(1, [idIs('t')], 'reveal'), container: '/' };
    expect(Object.keys(validateGrants('expiring', [], [withContainer]))).toEqual(['rules[0].container']);
    expect(Object.keys(validateGrants('private', [], [withContainer]))).toEqual(['rules[0].conditions']);
    expect(Object.keys(validateGrants('expiring', ['token:create'], []))).toEqual(['permissions[0]']);
  });
});

describe('leastTransformOver: the grant ceiling of a reach', () => {
  const creator: Grants = {
    permissions: ['token:read'],
    rules: [
      { description: '', priority: 1, container: '/pci/', permissions: ['token:read'], transform: 'reveal' },
      {
        description: '',
        priority: 2,
        container: '/pci/high/',
        permissions: ['token:read'],
        transform: 'redact',
      },
    ],
  };
  it.each<[string, Condition[], string | null]>([
    ['any container: the plain permission masks somewhere', [idIs('x')], 'mask'],
    [
      'under /pci/: everything there reveals (the /pci/ rule comes first)',
      [idIs('x'), inContainer('/pci/')],
      'reveal',
    ],
    [
      'exactly /general/: masked by the plain permission',
      [{ attribute: 'container', operator: 'equals', value: '/general/' }],
      'mask',
    ],
  ])('%s', (_name, conditions, expected) => {
    expect(leastTransformOver(creator, 'token:read', reachOf(conditions))).toBe(expected);
  });

  it('is null where some container is not covered', () => {
    const narrow: Grants = { permissions: [], rules: [creator.rules[0] as AccessRule] };
    expect(leastTransformOver(narrow, 'token:read', reachOf([idIs('x')]))).toBeNull();
    expect(leastTransformOver(narrow, 'token:read', reachOf([inContainer('/pci/')]))).toBe('reveal');
    // A rule further down shows less: the least is what counts.
    const stricter: Grants = {
      permissions: [],
      rules: [
        { ...(creator.rules[1] as AccessRule), priority: 1 },
        { ...(creator.rules[0] as AccessRule), priority: 2 },
      ],
    };
    expect(leastTransformOver(stricter, 'token:read', reachOf([inContainer('/pci/')]))).toBe('redact');
  });
});
