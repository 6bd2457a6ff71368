import { describe, expect, it } from 'vitest';
import { isVaultError } from '../errors/catalogue.ts';
import { authorize, grantedTransform, transformFor } from './authorize.ts';
import { containerCovers, isContainer } from './containers.ts';
import { operatorIn, withView, type Principal } from './principal.ts';
import { decide, validateGrants } from './rules.ts';
import type { AccessRule, Grants } from './rules.ts';

const rule = (
  priority: number,
  container: string,
  permissions: string[],
  transform: AccessRule['transform'],
): AccessRule => ({
  description: `rule ${priority}`,
  priority,
  container,
  permissions,
  transform,
});

// Two rules over one container family with different permission sets: the narrower container
// reveals and may be searched, the rest of the family is only read, masked.
const legacy: Grants = {
  permissions: [],
  rules: [
    rule(1, '/general/low/', ['token:read', 'token:search'], 'reveal'),
    rule(2, '/general/', ['token:read'], 'mask'),
  ],
};

const mixed: Grants = {
  permissions: ['token:create', 'token:use'],
  rules: [rule(2, '/pci/', ['token:read'], 'mask'), rule(1, '/pci/high/', ['token:read'], 'redact')],
};

describe('decide: rules × containers × permissions', () => {
  const cases: Array<[string, Grants, string, string, string]> = [
    // [name, grants, permission, container, expected transform or 'deny']
    ['first rule by priority wins', legacy, 'token:read', '/general/low/', 'reveal'],
    ['prefix match covers children', legacy, 'token:read', '/general/low/deep/', 'reveal'],
    ['falls through to the wider rule', legacy, 'token:read', '/general/high/', 'mask'],
    ['a rule must include the permission', legacy, 'token:search', '/general/high/', 'deny'],
    ['search allowed where a rule grants it', legacy, 'token:search', '/general/low/', 'reveal'],
    ['outside every container', legacy, 'token:read', '/pci/', 'deny'],
    ['container prefix is by path, not string', legacy, 'token:read', '/generalx/', 'deny'],
    ['priority, not array order', mixed, 'token:read', '/pci/high/', 'redact'],
    ['lower priority rule for siblings', mixed, 'token:read', '/pci/low/', 'mask'],
    ['plain permission: create masks everywhere', mixed, 'token:create', '/anything/', 'mask'],
    ['plain permission: use reveals everywhere', mixed, 'token:use', '/pci/high/', 'reveal'],
    ['no permission at all', mixed, 'token:delete', '/pci/', 'deny'],
    ['plain read masks', { permissions: ['token:read'], rules: [] }, 'token:read', '/x/', 'mask'],
    ['plain update masks', { permissions: ['token:update'], rules: [] }, 'token:update', '/', 'mask'],
    ['plain search masks', { permissions: ['token:search'], rules: [] }, 'token:search', '/a/b/', 'mask'],
    [
      'root rule covers all',
      { permissions: [], rules: [rule(1, '/', ['token:read'], 'reveal')] },
      'token:read',
      '/a/b/c/',
      'reveal',
    ],
    [
      'rules before plain permissions',
      { permissions: ['token:read'], rules: [rule(1, '/s/', ['token:read'], 'redact')] },
      'token:read',
      '/s/',
      'redact',
    ],
    [
      'plain permission after rules miss',
      { permissions: ['token:read'], rules: [rule(1, '/s/', ['token:read'], 'redact')] },
      'token:read',
      '/t/',
      'mask',
    ],
  ];
  it.each(cases)('%s', (_name, grants, permission, container, expected) => {
    const decision = decide(grants, permission, { container });
    expect(decision.allowed ? decision.transform : 'deny').toBe(expected);
  });
});

describe('authorize and transformFor', () => {
  const app = (grants: Grants, type: 'private' | 'public' | 'management' = 'private'): Principal => ({
    kind: 'application',
    tenantId: 't1',
    applicationId: 'a1',
    applicationType: type,
    ...grants,
  });
  const user: Principal = { kind: 'user', tenantId: 't1', userId: 'u1', sessionId: 's1', role: 'ADMIN' };
  const operator: Principal = { kind: 'operator', tenantId: 't1' };

  const codeOf = (fn: () => unknown): string => {
    try {
      fn();
      return 'ok';
    } catch (err) {
      return isVaultError(err) ? err.code : 'other';
    }
  };

  it.each([
    [
      'app with permission',
      app({ permissions: ['application:read'], rules: [] }, 'management'),
      'application:read',
      't1',
      'ok',
    ],
    [
      'app without permission',
      app({ permissions: ['log:read'], rules: [] }, 'management'),
      'application:read',
      't1',
      'FORBIDDEN',
    ],
    [
      'resource of another tenant',
      app({ permissions: ['application:read'], rules: [] }, 'management'),
      'application:read',
      't2',
      'NOT_FOUND',
    ],
    [
      'another tenant even without permission',
      app({ permissions: [], rules: [] }),
      'application:read',
      't2',
      'NOT_FOUND',
    ],
    ['token permission held only through a rule', app(legacy), 'token:read', 't1', 'ok'],
    ['member has management permissions', user, 'tenant:update', 't1', 'ok'],
    ['member has no token permissions', user, 'token:read', 't1', 'FORBIDDEN'],
    ['member of another tenant', user, 'tenant:read', 't2', 'NOT_FOUND'],
    ['operator has everything', operator, 'token:use', 't1', 'ok'],
  ] as const)('%s', (_name, principal, permission, tenant, expected) => {
    expect(codeOf(() => authorize(principal, permission, { tenantId: tenant }))).toBe(expected);
  });

  it('decides the transform per container and refuses uncovered containers', () => {
    expect(transformFor(app(legacy), 'token:read', '/general/low/')).toBe('reveal');
    expect(transformFor(app(legacy), 'token:read', '/general/')).toBe('mask');
    expect(codeOf(() => transformFor(app(legacy), 'token:read', '/pci/'))).toBe('FORBIDDEN');
    expect(codeOf(() => transformFor(user, 'token:read', '/'))).toBe('FORBIDDEN');
    expect(transformFor(operator, 'token:read', '/pci/')).toBe('reveal');
  });

  it('shows a caller asking for masked views mask where its grants reveal, and never more', () => {
    const masked = withView(app(legacy), 'mask');
    expect(transformFor(masked, 'token:read', '/general/low/')).toBe('mask');
    expect(grantedTransform(masked, 'token:read', '/general/low/')).toBe('reveal');
    expect(codeOf(() => transformFor(masked, 'token:read', '/pci/'))).toBe('FORBIDDEN');
    expect(transformFor(app({ permissions: [], rules: [redacting] }), 'token:read', '/')).toBe('redact');
    expect(
      transformFor(withView(app({ permissions: [], rules: [redacting] }), 'mask'), 'token:read', '/'),
    ).toBe('redact');
    expect(transformFor(operatorIn('t1', 'mask'), 'token:read', '/pci/')).toBe('mask');
    expect(transformFor(operatorIn('t1', 'reveal'), 'token:read', '/pci/')).toBe('reveal');
    expect(grantedTransform(operatorIn('t1', 'mask'), 'token:read', '/pci/')).toBe('reveal');
  });
});

const redacting: AccessRule = {
  description: 'redact everything',
  priority: 1,
  container: '/',
  permissions: ['token:read'],
  transform: 'redact',
};

describe('validateGrants', () => {
  it('accepts the permissions a type allows', () => {
    expect(validateGrants('private', ['token:read', 'token:use'], [])).toEqual({});
    expect(validateGrants('public', ['token:create'], [rule(1, '/pci/', ['token:create'], 'mask')])).toEqual(
      {},
    );
    expect(validateGrants('management', ['application:read', 'log:read'], [])).toEqual({});
  });
  it.each([
    ['public app cannot read', 'public', ['token:read'], [], 'permissions[0]'],
    ['private app cannot manage', 'private', ['application:create'], [], 'permissions[0]'],
    ['management app cannot touch tokens', 'management', ['token:read'], [], 'permissions[0]'],
    ['unknown permission', 'private', ['token:fly'], [], 'permissions[0]'],
    ['nothing granted', 'private', [], [], 'permissions'],
    [
      'management app with rules',
      'management',
      ['log:read'],
      [rule(1, '/', ['token:read'], 'mask')],
      'rules',
    ],
    ['bad container', 'private', [], [rule(1, 'pci', ['token:read'], 'mask')], 'rules[0].container'],
    [
      'duplicate priority',
      'private',
      [],
      [rule(1, '/a/', ['token:read'], 'mask'), rule(1, '/b/', ['token:read'], 'mask')],
      'rules[1].priority',
    ],
    [
      'rule with a management permission',
      'private',
      [],
      [rule(1, '/a/', ['log:read'], 'mask')],
      'rules[0].permissions[0]',
    ],
    [
      'rule permission not allowed for the type',
      'public',
      [],
      [rule(1, '/a/', ['token:read'], 'mask')],
      'rules[0].permissions[0]',
    ],
    [
      'bad transform',
      'private',
      [],
      [{ ...rule(1, '/a/', ['token:read'], 'mask'), transform: 'show' as 'mask' }],
      'rules[0].transform',
    ],
  ] as const)('%s', (_name, type, permissions, rules, field) => {
    expect(Object.keys(validateGrants(type, permissions, rules))).toContain(field);
  });
});

describe('containers', () => {
  it.each([
    ['/', true],
    ['/pci/', true],
    ['/pci/high-1/x_y/', true],
    ['pci/', false],
    ['/pci', false],
    ['//', false],
    ['/a//b/', false],
    ['/a b/', false],
  ])('%s valid=%s', (path, valid) => expect(isContainer(path)).toBe(valid));
  it('covers by prefix of whole segments', () => {
    expect(containerCovers('/pci/', '/pci/high/')).toBe(true);
    expect(containerCovers('/pci/', '/pcix/')).toBe(false);
    expect(containerCovers('/', '/x/')).toBe(true);
  });
});
