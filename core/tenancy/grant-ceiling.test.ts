import { describe, expect, it } from 'vitest';
import type { Condition } from '../access/conditions.ts';
import type { Principal } from '../access/principal.ts';
import type { AccessRule } from '../access/rules.ts';
import { codeOf } from '../test-support/services-fixture.ts';
import { MANAGEMENT_PERMISSIONS } from '../access/permissions.ts';
import type { Grants } from '../access/rules.ts';
import { assertMayAttach, assertMayCreate, assertMayGrant } from './grant-ceiling.ts';

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

describe('assertMayAttach: attaching an application is granting its access', () => {
  const key = (permissions: string[], rules: AccessRule[] = []): Principal => ({
    kind: 'application',
    tenantId: 't',
    applicationId: 'caller',
    applicationType: 'management',
    permissions,
    rules,
  });
  const ruleOf = (
    priority: number,
    container: string,
    permissions: string[],
    transform: AccessRule['transform'],
  ): AccessRule => ({ description: '', priority, container, permissions, transform });
  const revealAll: Grants = {
    permissions: [],
    rules: [ruleOf(1, '/', ['token:read', 'token:use'], 'reveal')],
  };

  it.each<[string, Principal, Grants, string]>([
    [
      'a proxy:create key cannot attach the reveal-all application',
      key(['proxy:create']),
      revealAll,
      'FORBIDDEN',
    ],
    [
      'a reactor:create key cannot attach an application that only creates tokens',
      key(['reactor:create']),
      { permissions: ['token:create'], rules: [] },
      'FORBIDDEN',
    ],
    [
      'a key with every management permission is an administrator',
      key([...MANAGEMENT_PERMISSIONS]),
      revealAll,
      'ok',
    ],
    ['the operator', { kind: 'operator', tenantId: 't' }, revealAll, 'ok'],
    [
      'a member',
      { kind: 'user', tenantId: 't', userId: 'u', sessionId: 's', role: 'ADMIN' },
      revealAll,
      'ok',
    ],
    ['equal access', key([], revealAll.rules as AccessRule[]), revealAll, 'ok'],
    [
      'reveal where the caller only masks',
      key([], [ruleOf(1, '/', ['token:read', 'token:use'], 'mask')]),
      revealAll,
      'FORBIDDEN',
    ],
    [
      'a permission the caller lacks (token:use)',
      key([], [ruleOf(1, '/', ['token:read'], 'reveal')]),
      revealAll,
      'FORBIDDEN',
    ],
    [
      'everywhere, when the caller reaches /pci/ only',
      key([], [ruleOf(1, '/pci/', ['token:read', 'token:use'], 'reveal')]),
      revealAll,
      'FORBIDDEN',
    ],
    [
      'within /pci/, when the caller reveals everywhere',
      key([], [ruleOf(1, '/', ['token:use'], 'reveal')]),
      { permissions: [], rules: [ruleOf(1, '/pci/', ['token:use'], 'reveal')] },
      'ok',
    ],
    [
      'masking everywhere but /pci/high/, where the caller redacts',
      key([], [ruleOf(1, '/pci/high/', ['token:read'], 'redact'), ruleOf(2, '/', ['token:read'], 'mask')]),
      { permissions: ['token:read'], rules: [] },
      'FORBIDDEN',
    ],
    [
      "an application that redacts where the caller's exception redacts",
      key([], [ruleOf(1, '/pci/high/', ['token:read'], 'redact'), ruleOf(2, '/', ['token:read'], 'reveal')]),
      {
        permissions: [],
        rules: [ruleOf(1, '/pci/', ['token:read'], 'redact'), ruleOf(2, '/', ['token:read'], 'reveal')],
      },
      'ok',
    ],
    [
      "an application's lower-priority reveal on / is decided per container, not per rule",
      key([], [ruleOf(1, '/secret/', ['token:read'], 'redact'), ruleOf(2, '/', ['token:read'], 'reveal')]),
      {
        permissions: [],
        rules: [ruleOf(1, '/secret/', ['token:read'], 'redact'), ruleOf(2, '/', ['token:read'], 'reveal')],
      },
      'ok',
    ],
    [
      'an application revealing below a container the caller redacts',
      key([], [ruleOf(1, '/secret/', ['token:read'], 'redact'), ruleOf(2, '/', ['token:read'], 'reveal')]),
      { permissions: [], rules: [ruleOf(1, '/secret/deep/', ['token:read'], 'reveal')] },
      'FORBIDDEN',
    ],
    [
      'plain token:use (reveal everywhere) from a caller revealing everywhere by rule',
      key([], [ruleOf(1, '/', ['token:use'], 'reveal')]),
      { permissions: ['token:use'], rules: [] },
      'ok',
    ],
    [
      'a management permission the caller does not hold',
      key(['proxy:create']),
      { permissions: ['log:read'], rules: [] },
      'FORBIDDEN',
    ],
    [
      'a conditioned rule beyond the caller',
      key([], [ruleOf(1, '/pci/', ['token:read'], 'reveal')]),
      { permissions: [], rules: [conditioned([idIs], 'reveal')] },
      'FORBIDDEN',
    ],
    [
      'a conditioned rule within the caller',
      key([], [ruleOf(1, '/pci/', ['token:read'], 'reveal')]),
      { permissions: [], rules: [conditioned([idIs, underPci], 'reveal')] },
      'ok',
    ],
  ])('%s → %s', async (_name, principal, application, expected) => {
    expect(await outcome(() => assertMayAttach(principal, application))).toBe(expected);
  });
});
