import { describe, expect, it } from 'vitest';
import type { Condition } from '../access/conditions.ts';
import type { Principal } from '../access/principal.ts';
import type { AccessRule } from '../access/rules.ts';
import { codeOf } from '../test-support/services-fixture.ts';
import { assertMayCreate, assertMayGrant } from './grant-ceiling.ts';

const creator = (rules: AccessRule[], permissions: string[] = [], flag = true): Principal => ({
  kind: 'application',
  tenantId: 't',
  applicationId: 'creator',
  applicationType: 'private',
  permissions,
  rules,
  canCreateExpiringApplications: flag,
});

const onContainer = (container: string, transform: AccessRule['transform']): AccessRule => ({
  description: '',
  priority: 1,
  container,
  permissions: ['token:read'],
  transform,
});

const conditioned = (conditions: Condition[], transform: AccessRule['transform']): AccessRule => ({
  description: '',
  priority: 1,
  container: '',
  permissions: ['token:read'],
  transform,
  conditions,
});

const idIs: Condition = { attribute: 'id', operator: 'equals', value: 'tok' };
const underPci: Condition = { attribute: 'container', operator: 'starts_with', value: '/pci/' };

/** The VaultError code thrown, or 'ok'. */
function outcome(run: () => void): Promise<string> {
  return codeOf(Promise.resolve().then(run));
}

describe('assertMayCreate: expiring applications', () => {
  it.each<[string, Principal, AccessRule[], string[], string]>([
    [
      'reveal within a revealing creator',
      creator([onContainer('/', 'reveal')]),
      [conditioned([idIs], 'reveal')],
      [],
      'ok',
    ],
    [
      'reveal beyond a masking creator',
      creator([], ['token:read']),
      [conditioned([idIs], 'reveal')],
      [],
      'FORBIDDEN',
    ],
    ['mask within a masking creator', creator([], ['token:read']), [conditioned([idIs], 'mask')], [], 'ok'],
    [
      'any token, creator reveals in /pci/ only',
      creator([onContainer('/pci/', 'reveal')]),
      [conditioned([idIs], 'reveal')],
      [],
      'FORBIDDEN',
    ],
    [
      'tokens under /pci/, creator reveals there',
      creator([onContainer('/pci/', 'reveal')]),
      [conditioned([idIs, underPci], 'reveal')],
      [],
      'ok',
    ],
    [
      'plain token:read (masks) from a revealing creator',
      creator([onContainer('/', 'reveal')]),
      [],
      ['token:read'],
      'ok',
    ],
    [
      'plain token:read from a creator covering /pci/ only',
      creator([onContainer('/pci/', 'reveal')]),
      [],
      ['token:read'],
      'FORBIDDEN',
    ],
    [
      'a private key without the setting',
      creator([onContainer('/', 'reveal')], [], false),
      [conditioned([idIs], 'mask')],
      [],
      'FORBIDDEN',
    ],
    [
      'the operator (not a private key)',
      { kind: 'operator', tenantId: 't' },
      [conditioned([idIs], 'mask')],
      [],
      'FORBIDDEN',
    ],
  ])('%s → %s', async (_name, principal, rules, permissions, expected) => {
    expect(await outcome(() => assertMayCreate(principal, 'expiring', { permissions, rules }))).toBe(
      expected,
    );
  });

  it('a key with the setting creates nothing but expiring applications', async () => {
    const key = creator([onContainer('/', 'reveal')]);
    expect(
      await outcome(() => assertMayCreate(key, 'private', { permissions: ['token:read'], rules: [] })),
    ).toBe('FORBIDDEN');
  });

  it('letting an application create expiring ones is a grant only administrators give', async () => {
    const logReader: Principal = {
      kind: 'application',
      tenantId: 't',
      applicationId: 'm',
      applicationType: 'management',
      permissions: ['application:create'],
      rules: [],
    };
    const grant = { permissions: [], rules: [], canCreateExpiring: true };
    expect(await outcome(() => assertMayGrant(logReader, grant))).toBe('FORBIDDEN');
    expect(await outcome(() => assertMayGrant({ kind: 'operator', tenantId: 't' }, grant))).toBe('ok');
  });
});
